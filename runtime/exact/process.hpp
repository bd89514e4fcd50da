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
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/symbols.hpp"
#include "combat/combat.hpp"
#include "state/state.hpp"

namespace rb {

struct CombatProcess {
  // where an option leads: a round's state (an index into `rounds`) or an end (into the ends)
  struct Move {
    std::uint32_t to = 0;
    bool end = false;
  };
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
  };
  std::vector<Round> rounds;  // rounds[0]: the start
  std::vector<Roll> rolls;
  std::vector<Move> moves;
  std::uint32_t ends = 0;
  // the rounds in an order where every move to a round's state leads to a later one (built by
  // finish(); false when the rounds come back otherwise than by a self-loop)
  std::vector<std::uint32_t> order;
  Sym metric = kNoSym;  // a move to a round's state begins a new round: adds 1 to it

  // Orders the rounds; false when they come back to an earlier state (not a decision process
  // over a graph without cycles: the caller keeps the round by round path).
  bool finish();

  // The value of each round's state (by index), given each end's value and what a new round is
  // worth (the objective's weight of `metric`), the best side taking its best option at every
  // roll (maximise) or the policy's (not). `choice`: if given, the option taken by roll.
  std::vector<double> values(std::span<const double> end_values, double round_reward, bool maximise,
                             std::vector<std::uint32_t>* choice = nullptr) const;

  // Under the options `choice` (by roll): the chance of each end from the start, and the
  // expected rounds begun on the way given that end (what the metric adds).
  void play(std::span<const std::uint32_t> choice, std::vector<double>& p_end,
            std::vector<double>& rounds_end) const;

  std::size_t bytes() const {
    return sizeof(*this) + rounds.size() * sizeof(Round) + rolls.size() * sizeof(Roll) +
           moves.size() * sizeof(Move) + order.size() * sizeof(std::uint32_t);
  }
};

// The names of the rounds' states of one call's combats (the graph the caller builds the processes
// over), so that a round's next state is found without being built. A state is the two sides'
// own entities (each side's configuration: the player and the entities it owns, by number) and
// the rest of it (every other entity, with those blanked, and the counters, modifiers, links,
// roles, turn order and board), each an index; a side's take (combat::RoundParts::Take) changes
// its own entities alone, so the configuration after a take is a function of the one before
// (after(), made once each), and the rest after a round that goes on is a function of the rest
// before (the round's scope ended, the counter counted: next_rest). Equal names are equal states
// before their canonical order (State::canonicalise), so the caller builds a state (copy, put
// together, canonical order, hash) only for a name not seen: find() gives the state a name
// already led to. Knows nothing of Lua or of the game.
class RoundNames {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Key {
    std::uint32_t a = 0, d = 0, rest = 0, end = 0;  // end: an end of the combat (else a round's)
    bool operator==(const Key&) const = default;
  };

  // The configuration of `player` in `s` (its index, made if new).
  std::uint32_t own(const State& s, EntityId player);
  // Whether `s`'s entities of configuration c's player are c's (the caller checks what it built).
  bool holds(std::uint32_t c, const State& s) const;
  // The rest of `s` beside the configurations of `a` and `d` (its index, made if new).
  std::uint32_t rest(const State& s, EntityId a, EntityId d);
  // Configuration c after the take made for `hits` taken, option `option` (made once): its
  // changed entities as the take left them, its lost ones in reinforcements (as
  // ExchangeHost::destroy leaves them). kNone when the take changes an entity that is not c's or
  // gives one away (the caller then keeps the whole states).
  std::uint32_t after(std::uint32_t c, std::size_t hits, std::size_t option,
                      const combat::RoundParts::Take& take);
  // The rest after a round that goes on, by the rest before (kNone: not known yet; the caller
  // sets it from the first state it builds, and checks it on the next ones).
  std::vector<std::uint32_t> next_rest;

  // The state a name led to (kNone: none yet), and filing one.
  std::uint32_t find(const Key& k) const {
    const auto it = led_.find(k);
    return it == led_.end() ? kNone : it->second;
  }
  void file(const Key& k, std::uint32_t to) { led_.emplace(k, to); }

  // The state a round's name (a, d, rest) names: the rest with the two configurations' entities.
  void build(const Key& k, State& out) const;

  std::size_t bytes() const { return bytes_; }

  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = (std::uint64_t{k.a} << 32 | k.d) * 0x9E3779B97F4A7C15ull;
      h ^= (std::uint64_t{k.rest} << 1 | k.end) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull ^ (h >> 31));
    }
  };

 private:
  using Own = std::vector<std::pair<EntityId, Entity>>;
  struct Config {
    EntityId player = kNoEntity;
    Own own;
    std::vector<std::vector<std::uint32_t>> after;  // by hits, by option (kNone: not made)
  };
  std::uint32_t intern(EntityId player, Own&& own);
  std::vector<Config> configs_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> config_at_;
  std::vector<State> rests_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> rest_at_;
  std::unordered_map<Key, std::uint32_t, KeyHash> led_;
  std::size_t bytes_ = 0;
  State rest_scratch_;
};

}  // namespace rb
