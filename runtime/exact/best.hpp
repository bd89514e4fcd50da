// exact/best: best play, a side's best response to the other side's policy, or both sides' best
// responses in turn (docs/exact.md, "Best play"). The explorer (exact/explore.hpp) runs the
// sides' decisions as choices: a draw of an option index, filed in the node's tree of draws
// (ExactTree) beside the chain's edges, each marked with the side that chose (its owner).
// best_play gives every node its value for a side's objective: the expected sum of what the run
// earns on the way (a metric's additions, weighted) and at its end (the final node's outcome and
// the last values of its metrics), where at the side's choices it takes the option of highest
// value (chance: the sum over the draws of p x value; choice: the largest) and at the other
// side's it takes the option fixed for it; nodes that come back are solved by value iteration.
// Then every choice is fixed at its best option (ties: the option the side had, at first the
// policy's own, which the runtime lists first) and the chain's edges of each node with a tree
// become the leaves those options keep, with their chance probabilities, so that
// ExactChain::solve gives the best play's whole report. With two sides, the sides answer each
// other in turn (the first side's best response to the second's choices, then the second's to
// that, ...) until a side's answer leaves its choices as they were: each side's choices are then
// a best response to the other's. Or a cap of rounds is reached, and the last pair is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/symbols.hpp"
#include "exact/explore.hpp"
#include "exact/markov.hpp"
#include "exact/process.hpp"

namespace rb {

// What a side's play is worth: the value of ending in each of the report's outcomes (by index;
// others 0), and a weight per metric (its additions on the way and its last value at the end).
struct BestObjective {
  std::vector<double> outcomes;
  std::vector<std::pair<Sym, double>> metrics;
};

// One of the first decisions of a side (the first nodes where it decides, reached from the start
// without an earlier decision of its own): the options (the side's choices in a row, as option
// indices) with their values, best first.
struct BestDecision {
  std::uint32_t node = 0;  // the chain's node whose step decides
  // the decision's words (BestOptions::label: 1 + an index into the caller's table; 0: none)
  std::uint32_t label = 0;
  double p = 0;  // the chance, from that node, of the draws that lead to the decision
  struct Option {
    std::vector<std::uint32_t> picks;  // the option index of each choice in the row
    double value = 0;
    std::uint32_t to = 0;  // a node the option leads to (what it changed: its state)
  };
  std::vector<Option> options;
};

struct BestPlay {
  double value = 0;              // the start's value under best play (the first side's objective)
  std::size_t choice_nodes = 0;  // nodes whose step made choices
  // passes of value iteration (all rounds): the nodes are valued in an order where a node's
  // successors come first, so one pass settles every node that does not come back (but by a
  // self-loop, divided out); nodes that come back are swept until they settle, and a pass counts
  // the most sweeps any such set of nodes took
  std::size_t iterations = 0;
  bool settled = true;  // the largest change fell below 1e-13 within max_sweeps
  // two sides: rounds of best responses, whether a round left its side's choices as they were,
  // each round's value for the side that answered (round 1: the first side), and each side's
  // value once both play the last pair
  std::size_t rounds = 0;
  bool rounds_settled = true;
  std::vector<double> round_values;
  std::vector<double> pair_values;
  // one side: its value in this graph with every choice at the policy's own option (each
  // decision's first). It is the policy's odds unless a rule acts otherwise when the side
  // chooses than when its policy does (a hook that reads ctx:by_policy): then the graph is not
  // the policy's game, and its best play no best response to that game
  double policy_in_graph = 0;
  // the first side's first decisions (want_decisions)
  std::vector<BestDecision> decisions;
  // trace --best (want_walk): one run drawn through the best play, step by step: the node it
  // left and the one it reached, and each decision of the first side on the way (one choice
  // each: its options' values, given the draws before it) with the option it took; then how
  // the run ended (the last node's outcome)
  struct WalkStep {
    std::uint32_t from = 0, to = 0;
    std::vector<BestDecision> decisions;
    std::vector<std::size_t> taken;  // by decision: the index of the option taken
  };
  std::vector<WalkStep> walk;
  std::string walk_outcome;
  // the words BestDecision::label indexes (1 + the index): a decision's name, then its options
  // in the choice's order (the policy's first); filled by the caller that kept them
  std::vector<std::vector<std::string>> labels;
  // the combats' decision processes (BestOptions::processes): how often one was valued, and how
  // often its last answer was given back (ProcessValues)
  std::size_t process_valued = 0, process_reused = 0;
  // want_values: every node's value for the first side (its best response), by node
  std::vector<double> values;
};

// A combat's decision process valued for best play, its last answer kept: asked again with the
// same inputs as last time (each end's value, what a new round is worth, maximise or not: the
// same bits), it gives back that answer instead of valuing the process again. The answer is
// bit for bit what valuing it again gives (CombatProcess::values is a function of those inputs
// alone). With `keep_choice` the options taken by roll are kept too, for a later call that asks
// for them.
class ProcessValues {
 public:
  explicit ProcessValues(const CombatProcess& p, bool keep_choice = false)
      : process_(&p), keep_choice_(keep_choice) {}
  const CombatProcess& process() const { return *process_; }
  // the start's value (CombatProcess::values(...)[0]); `choice`: the options taken by roll
  double start(std::span<const double> end_values, double round_reward, bool maximise,
               std::vector<std::uint32_t>* choice = nullptr);
  std::size_t valued = 0, reused = 0;  // calls that valued the process, that gave back the last

 private:
  const CombatProcess* process_;
  bool keep_choice_;
  bool have_ = false, have_choice_ = false;
  std::vector<double> ends_;
  double round_reward_ = 0;
  bool maximise_ = false;
  double value_ = 0;
  std::vector<std::uint32_t> choice_;
};

struct BestOptions {
  std::size_t max_sweeps = 100'000;
  std::size_t max_rounds = 20;  // two sides: rounds of best responses at most
  bool want_decisions = false;
  bool want_walk = false;
  std::uint64_t walk_seed = 1;  // the walk's draws
  bool want_values = false;     // BestPlay::values (one side)
  // the words of the choice a node's step draws after `prefix` (its draws before it, without
  // flags): 1 + an index into the caller's table, 0 when none were kept; empty: none
  std::function<std::uint32_t(std::uint32_t node, std::span<const std::uint32_t> prefix)> label;
  // the combats solved as decision processes, by index (ExactTree::process), one side playing
  // best (the first); null: none
  std::vector<const CombatProcess*> processes;
};

// `steps`: a node with this step is final; `sides`: the objective of each side that chooses (one,
// or two: the choices a tree marks as the second side's, ExactTreeLeaf::kSecond). Rewrites the
// edges of the trees' nodes.
BestPlay best_play(ExactChain& chain, const std::vector<ExactTree>& trees, int steps,
                   const std::vector<BestObjective>& sides, const BestOptions& o = {});

}  // namespace rb
