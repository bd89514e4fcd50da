// exact/best: best play, a side's best response to the other side's policy (docs/exact.md,
// "Best play"). The explorer (exact/explore.hpp) runs the side's decisions as choices: a draw
// of an option index, filed in the node's tree of draws (ExactTree) beside the chain's edges.
// best_play gives every node its value, the chance of reaching a final node the objective
// counts (the final's value), where at a choice the side takes the option of highest value
// (chance: the sum over the draws of p x value; choice: the largest); nodes that come back are
// solved by value iteration. Then every choice is fixed at its best option (ties: the lowest
// index, the option the runtime lists first: the policy's own) and the chain's edges of each
// node with a tree become the leaves that option keeps, with their chance probabilities, so
// that ExactChain::solve gives the best play's whole report.
#pragma once

#include <cstddef>
#include <vector>

#include "exact/explore.hpp"
#include "exact/markov.hpp"

namespace rb {

struct BestPlay {
  double value = 0;              // the start's value under best play
  std::size_t choice_nodes = 0;  // nodes whose step made choices
  std::size_t iterations = 0;    // sweeps of value iteration
  bool settled = true;           // the largest change fell below 1e-13 within max_sweeps
};

// `steps`: a node with this step is final; `final_values`: a final node's value by its outcome
// (index; an outcome past the end, or none, is 0). Rewrites the edges of the trees' nodes.
BestPlay best_play(ExactChain& chain, const std::vector<ExactTree>& trees, int steps,
                   const std::vector<double>& final_values, std::size_t max_sweeps = 100'000);

}  // namespace rb
