// exact/process: best play's combat as a decision process (docs/exact.md, "The best side's
// combat as a decision process"). Where the best side's only decisions in a combat are its hit
// assignments (the rounds ctx:exchange_fire runs in C++ while a side plays best), the whole
// combat is solved here rather than as one chain node per round: its states are the combat's own
// (the units after each round, the round counter), and from each one every roll of the round
// (the hits of both sides, with their probability) leads, by each of the best side's assignment
// outcomes (the other side's is its policy's), to the next round's state or to an end of the
// combat. The explorer values each end once (the procedure's steps after the combat); then the
// value of the start is backward induction over the rounds: at each roll the best side takes the
// option of highest value (ties: the lowest index, 0 being the policy's own), a round where nobody
// is hit comes back to its state (divided out). play() gives the chance of each end under those
// choices and the rounds fought on the way, which become the start node's edges. This file knows
// nothing of Lua or of the game: the caller builds it (script/api_dice.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/symbols.hpp"

namespace rb {

struct CombatProcess {
  // where an option leads: a round's state (an index into `rounds`) or an end (into the ends);
  // four bytes (a process of a large combat has tens of millions), so fewer than 2^31 of each
  struct Move {
    std::uint32_t to : 31 = 0;
    std::uint32_t end : 1 = 0;
  };
  static constexpr std::uint32_t kMostMoveTo = 0x7FFFFFFFu;
  // one roll of a round: both sides' hits, its chance, and the best side's options (count > 1:
  // a choice; the first is the policy's own), moves [first, first + count)
  struct Roll {
    double p = 0;
    std::uint32_t first = 0, count = 0;
  };
  // a round's state: its rolls [first, first + count), and the chance of a roll where nobody is
  // hit and the state comes back (a self-loop, divided out)
  struct Round {
    std::uint32_t first = 0, count = 0;
    double self = 0;
    std::uint32_t base = 0;  // its first roll's index among the process's rolls (row_of)
    std::uint32_t rows_first = 0, rows_count = 0;  // its distinct rows, in `state_rows`
  };
  std::vector<Round> rounds;  // rounds[0]: the start
  // the rolls and moves, kept by their owner (the rounds' graph, shared by the processes of its
  // combats: a process does not copy them) and numbered as it numbers them: a round's rolls and
  // a roll's moves are indices into them, a move's `to` the graph's number of a state or an end,
  // which `local` and `local_end` turn into the process's (an index into `rounds`, into the ends;
  // kNone where it is not the process's)
  const std::vector<Roll>* rolls = nullptr;
  const std::vector<Move>* moves = nullptr;
  std::vector<std::uint32_t> local, local_end;
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  // rolls that lead alike share their moves (the owner keeps one row of moves for every roll
  // whose best side takes the same hits from the same configuration while the other side ends
  // in the same one): by the process's rolls in order (its rounds' in turn), the row each reads,
  // numbered from 0 in this process (`rows` of them), so that a row's best option is found once
  std::vector<std::uint32_t> row_of;
  std::uint32_t rows = 0;
  // each row's moves (the owner's numbers: [first, first + count)), and each state's distinct
  // rows (Round::rows_first, rows_count): its edges, each once
  std::vector<std::pair<std::uint32_t, std::uint32_t>> row_moves;
  std::vector<std::uint32_t> state_rows;
  std::uint32_t ends = 0;
  // the rounds in an order where every move to a round's state leads to a later one (built by
  // finish(); false when the rounds come back otherwise than by a roll where nobody is hit, which
  // is no roll: Round::self)
  std::vector<std::uint32_t> order;
  Sym metric = kNoSym;  // a move to a round's state begins a new round: adds 1 to it

  // Orders the rounds; false when they come back to an earlier state (not a decision process
  // over a graph without cycles: the caller keeps the round by round path).
  bool finish();

  // The value of each round's state (by index), given each end's value and what a new round is
  // worth (the objective's weight of `metric`), the best side taking its best option at every
  // roll (maximise) or the policy's (not). `choice`: if given, the option taken by roll (the
  // owner's number of the roll).
  std::vector<double> values(std::span<const double> end_values, double round_reward, bool maximise,
                             std::vector<std::uint32_t>* choice = nullptr) const;

  // Under the options `choice` (by roll): the chance of each end from the start, and the
  // expected rounds begun on the way given that end (what the metric adds).
  void play(std::span<const std::uint32_t> choice, std::vector<double>& p_end,
            std::vector<double>& rounds_end) const;

  // (the rolls and moves are their owner's)
  std::size_t bytes() const {
    return sizeof(*this) + rounds.size() * sizeof(Round) +
           (local.size() + local_end.size() + order.size() + row_of.size() + state_rows.size() +
            2 * row_moves.size()) *
               sizeof(std::uint32_t);
  }
};

}  // namespace rb
