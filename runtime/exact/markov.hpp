// exact/markov: the exact mode's Markov chain. A run is a sequence of steps, each a function of
// the state and the dice alone (DESIGN.md: the state is a value, the dice are the only
// randomness, scripts keep nothing between calls). A node is (the step to run next, the state,
// what the run has written so far that the report reads at its end); its edges are the leaves of
// the step's tree of draws, each with its probability, the metrics it added to and the node it
// leads to. The explorer (script/, which runs the steps) builds the chain; solve() gives the
// probability of ending in each final node and the expected sum of every added metric, exactly:
// nodes that can come back (a round in which nothing changes, a repair that undoes damage) form
// strongly connected sets, each solved as a linear system. This file knows nothing of Lua.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/symbols.hpp"
#include "state/state.hpp"

namespace rb {

// What a run has written so far that its report reads at the end: the last value of each metric
// it set, and the outcome.
struct ExactWrites {
  std::vector<std::pair<Sym, double>> sets;  // sorted by Sym
  int outcome = -1;
  std::string outcome_name;
  void set(Sym metric, double value);
  bool operator==(const ExactWrites&) const = default;
  std::uint64_t hash() const;
};

struct ExactEdge {
  double p = 0;
  std::uint32_t to = 0;
  std::vector<std::pair<Sym, double>> adds;  // metrics added to on the way (sorted by Sym)
};

struct ExactNode {
  int step = 0;  // the step to run next; the number of steps: a final node
  State state;
  ExactWrites writes;
  std::uint64_t hash = 0;
  std::vector<ExactEdge> out;
  bool expanded = false;
  double mass = 0;  // a lower bound of its probability, known while exploring (pruning)
};

class ExactChain {
 public:
  // The node (step, state, writes), found or added; its index. The root is the first node added.
  std::uint32_t node(int step, const State& state, const ExactWrites& writes);
  // The node (step, state, writes) if the chain has it, else -1.
  std::int64_t find(int step, const State& state, const ExactWrites& writes) const;
  ExactNode& at(std::uint32_t i) { return *nodes_[i]; }
  const ExactNode& at(std::uint32_t i) const { return *nodes_[i]; }
  std::size_t size() const { return nodes_.size(); }
  // About how many bytes the nodes, their states and edges and the index take.
  std::size_t bytes() const { return bytes_; }
  // Files an edge of `from`, merged with an equal one (same target, same additions).
  void add_edge(std::uint32_t from, ExactEdge edge);

  struct Solution {
    std::vector<double> reach;                  // by node: its probability (final nodes), or
                                                // its expected number of visits (the others)
    std::vector<std::pair<Sym, double>> added;  // metric -> expected sum of its additions
    double unresolved = 0;  // the probability of ending in a node never expanded (pruned)
    std::size_t sets = 0, largest_set = 0;  // strongly connected sets of more than one node
  };
  // `steps`: a node with this step is final.
  Solution solve(int steps) const;

 private:
  std::vector<std::unique_ptr<ExactNode>> nodes_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash_;
  std::size_t bytes_ = 0;
};

}  // namespace rb
