// script/memo: the memo of ctx:steps. A procedure that runs as a list of steps, each a function
// of the state and the dice alone (DESIGN.md: the state is a value, the dice are the only
// randomness, scripts keep nothing between calls), need not run a step again from a state it has
// already run it from: what the step did is a function of the draws it made. For each (step,
// state) the memo keeps a trie over the step's draws, (bound, value) one after the other; a leaf
// holds what the step wrote to the run's result (metrics, outcome) and the node of the next step
// with the state the step left. A run walks the trie drawing from its own stream exactly as the
// step would have, so a memoized run gives the same numbers as a run that executes every step;
// only a draw the trie has not seen executes the step again (its drawn prefix replayed).
//
// A roll whose dice no script sees (ctx:exchange_fire's rounds) is one group draw in the trie: it
// branches on the roll's hits, and the node keeps each die's law (type, threshold, modifier) so a
// walk rolls the same dice and counts the hits. Steps with too many distinct draws are not
// memoized: past kMaxSlots a node becomes execute-only, and so does one whose step drew uniform()
// (2^32 outcomes). The memo stops growing at its byte cap (EngineOptions::memo_bytes); runs then
// execute the steps it does not hold.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/symbols.hpp"
#include "dice/dice.hpp"
#include "state/state.hpp"

namespace rb {

struct MemoNode;

// LawDie and Law (a group draw's dice): dice/dice.hpp, where combat/ reads them too.

// What a step wrote to the run's result, in order: a metric (name, value) or, with name
// kNoSym, the outcome (index into the procedure's outcomes; its name in `outcome`).
struct MemoWrite {
  Sym name = kNoSym;
  double value = 0;
  int outcome = -1;
  std::string outcome_name;
  bool add = false;  // ctx:add_metric: added to the metric, not set
};

// A leaf's writes are MemoNode::writes[writes .. writes + count): a node's leaves keep theirs
// side by side, so that a walk reads few cache lines.
struct MemoLeaf {
  MemoNode* next = nullptr;  // null: the memo was full when the leaf was made
  std::uint32_t writes = 0, count = 0;
};

struct MemoNode {
  int step = 0;  // the index of the step to run next (== the number of steps: the run is done)
  State state;
  std::uint64_t hash = 0;
  bool execute_only = false;
  // The trie: a slot is -1 (not seen), <= -2 (leaf -slot-2), or >= 0 (a draw: draws[slot]).
  // A draw's children are slots[base .. base + bound), one per value. A group draw (law >= 0)
  // rolls the dice of laws[law] and branches on how many hit.
  struct DrawNode {
    std::uint32_t bound;
    std::uint32_t base;
    std::int32_t law;
  };
  std::vector<Law> laws;
  // The laws as a walk rolls them: alike dice in a row as one run, the faces that hit as bits.
  // Made by the walk (it knows the die types) for the laws the trie has gained since;
  // law_runs[i] .. law_runs[i + 1] are the runs of laws[i] (none: a die with more than 64 faces,
  // rolled die by die).
  struct LawRun {
    std::uint32_t sides, count, weight;
    std::uint64_t hits;  // bit f: face f hits
  };
  std::vector<LawRun> runs;
  std::vector<std::uint32_t> law_runs;
  std::int32_t root = -1;
  std::vector<DrawNode> draws;
  std::vector<std::int32_t> slots;
  std::vector<MemoLeaf> leaves;
  std::vector<MemoWrite> writes;  // the leaves' writes
};

class StepMemo {
 public:
  static constexpr std::size_t kMaxSlots = 1 << 16;  // per node, then execute-only
  explicit StepMemo(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // The node of `step` for `state`: found (equal state), added (a copy of it), or null when the
  // memo is full.
  MemoNode* node(int step, const State& state);
  // Files what a step run from `at` did: its draws, its writes, the node it led to.
  // Returns false when the draws contradict the trie (the step is not deterministic).
  bool add(MemoNode& at, const std::vector<DiceStream::KeyDraw>& draws,
           const std::vector<Law>& laws, std::vector<MemoWrite> writes, MemoNode* next);
  void forget(MemoNode& at);  // at becomes execute-only, its trie freed
  std::size_t bytes() const { return bytes_; }
  std::size_t nodes() const { return nodes_.size(); }
  // Steps run (not replayed) from a node of this memo: a step the trie did not hold, or one it
  // cannot hold.
  std::size_t steps_run() const { return steps_run_; }
  void count_step_run() { ++steps_run_; }
  std::size_t execute_only() const {
    std::size_t n = 0;
    for (const auto& p : nodes_) n += p->execute_only ? 1 : 0;
    return n;
  }

 private:
  std::vector<std::unique_ptr<MemoNode>> nodes_;
  std::unordered_multimap<std::uint64_t, MemoNode*> by_hash_;
  MemoNode* last_root_ = nullptr;  // a run usually starts from the state the last one did
  std::size_t bytes_ = 0;
  std::size_t max_bytes_;
  std::size_t steps_run_ = 0;
};

}  // namespace rb
