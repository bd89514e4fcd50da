// exact/explore: builds the exact mode's chain (exact/markov.hpp) by running steps. From each
// node it runs the node's step once per leaf of the step's tree of draws (dice/ExactPath, walked
// like an odometer) and files each leaf as an edge. Nodes are expanded breadth first; a node
// whose probability, as far as it is known when its turn comes, is below `prune` is left
// unexpanded (its probability is reported as unresolved), so that a state that never repeats
// (a counter that grows every round) still ends. The steps themselves are run by the caller
// (script/, through Lua).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dice/dice.hpp"
#include "exact/markov.hpp"

namespace rb {

// The other ends of a step's one draw that lead the same way as the leaf just run: a step whose
// only draw was a round's end drawn by the runtime (ctx:exchange_fire with spec.again) and that
// returned "again" at once. Each such end is filed as a leaf (the same writes and next step, the
// state the round left) without running the step again. `p`, `n`: the draw's probabilities.
struct ExactSiblings {
  const double* p = nullptr;
  std::uint32_t n = 0;
  std::vector<std::pair<std::uint32_t, const State*>> ends;  // value drawn -> the state left
};

// What one run of a step did: the step to run next, the metrics it set (in order) and added to,
// and the outcome it set (-1: none).
struct ExactLeaf {
  int next_step = 0;
  std::vector<std::pair<Sym, double>> sets, adds;
  int outcome = -1;
  std::string outcome_name;
  // best play: the draws that were a side's choice (an option index drawn uniformly,
  // ExactPath::draw): their position in the path, their number of options and whose choice it
  // was (0: the first side that plays best, 1: the second), in order
  struct Choice {
    std::uint32_t at = 0, n = 0;
    int owner = 0;
    // not -1: the draw of an end of a combat solved as a decision process (exact/process.hpp:
    // its index among the run's processes), not a choice among options
    std::int32_t process = -1;
  };
  std::vector<Choice> choices;
  ExactSiblings siblings;  // none when `ends` is empty
  bool replayed = false;   // filed without running the step (best play's rounds: ExploreStats)
  // not 0: the node's leaves with the same `same` leave the same state, writes, additions and
  // next step (best play's rounds put together from the same parts): the explorer files them
  // at the node the first one reached, without canonicalising and looking up the state again
  std::uint64_t same = 0;
  // the exploration is over (the procedure run as one step called ctx:steps, which explored the
  // run): explore returns at once, filing nothing
  bool stop = false;
};

// Best play: the leaves of a node whose step made choices, as its tree of draws. A leaf's draws
// are every value its path drew, in order, a choice's marked with kChoice; `p` is the product of
// its chance draws alone (a choice's 1/n divided out). A choice of the second side that plays best
// (--best both) is marked kSecond too. Leaves are in the path's odometer order,
// so the leaves below a prefix of draws are consecutive.
struct ExactTreeLeaf {
  static constexpr std::uint32_t kChoice = 0x80000000u;
  static constexpr std::uint32_t kSecond = 0x40000000u;
  // the draw of a combat's end (ExactLeaf::Choice::process), marked kChoice too: its chance is
  // the process's, solved by best play (ExactTree::process)
  static constexpr std::uint32_t kProcess = 0x20000000u;
  std::uint32_t to = 0;
  double p = 0;
  std::vector<std::pair<Sym, double>> adds;
  std::vector<std::uint32_t> draws;
  int last_choice = -1;  // index in draws of its last choice
};
struct ExactTree {
  std::uint32_t node = 0;
  std::int32_t process = -1;  // the process whose end a draw of its leaves is (-1: none)
  std::vector<ExactTreeLeaf> leaves;
};

struct ExploreOptions {
  std::size_t max_states = 1'000'000;            // nodes of the chain
  std::size_t max_bytes = std::size_t{2} << 30;  // what the chain may take (ExactChain::bytes)
  std::uint64_t max_leaves = 20'000'000;         // step runs in all
  std::uint64_t max_branches = 200'000;          // step runs from one node (the leaves of one step)
  double prune = 1e-16;                          // nodes less likely than this are not expanded
  // set from another thread (a server's cancel): the exploration stops at its next step run
  const std::atomic<bool>* stop = nullptr;
  // kinds whose alike entities are exchanged in every node's state (State::canonicalise), so
  // that runs which differ only in which alike unit took the hit meet in one node
  std::vector<Sym> interchangeable;
  // set to the node whose step runs next (best play's words for a choice: Exact::choose)
  std::uint32_t* expanding = nullptr;
  // what the steps keep besides the chain (their own caches), counted against max_bytes
  const std::size_t* other_bytes = nullptr;
  // best play: the trees of the nodes whose step made choices are filed here
  std::vector<ExactTree>* trees = nullptr;
};

struct ExploreStats {
  std::uint64_t leaves = 0;    // step runs, and leaves filed without one (`filed`)
  std::uint64_t filed = 0;     // leaves filed without running the step (ExactLeaf::siblings)
  std::uint64_t replayed = 0;  // best play's leaves its run filed without Lua (among `leaves`)
  std::size_t pruned = 0;
};

// A limit of the exact mode was reached (the message says which and how to raise it).
struct ExactLimit : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// run(step, path, state): runs `step` on `state` (changing it), its draws from `path`.
using StepRunner = std::function<ExactLeaf(int step, ExactPath& path, State& state)>;

// Expands every node of `chain` reachable from node 0 whose step is below `steps`.
void explore(ExactChain& chain, int steps, const ExploreOptions& o, const StepRunner& run,
             ExploreStats& stats);

}  // namespace rb
