// Best play's value iteration (exact/best.hpp) on chains built here by hand, with values worked
// out on paper: the nodes are valued successors first, so one pass settles a node that does not
// come back, and nodes that do come back (through another node, or through a choice) are swept
// until they settle; a combat's decision process gives back its last answer when asked with the
// same inputs (ProcessValues), and values again, to the same bits as a fresh valuation, when
// any of them (an end's value, the round's reward, maximise) changed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/symbols.hpp"
#include "exact/best.hpp"

using namespace rb;

namespace {

constexpr std::uint32_t kChoice = ExactTreeLeaf::kChoice;
constexpr std::uint32_t kProcess = ExactTreeLeaf::kProcess;
constexpr std::uint32_t kNone = CombatProcess::kNone;

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// A node of a hand-built chain: `steps` (1) is final, with the outcome `outcome` (0: won, 1:
// lost); the others run step 0. Told apart by their names.
std::uint32_t add_node(ExactChain& chain, const std::string& name, int outcome = -1) {
  ExactWrites w;
  w.outcome = outcome, w.outcome_name = name;
  return chain.node(outcome >= 0 ? 1 : 0, State{}, w);
}

// A combat as a decision process with two ends (0 and 1, numbered 10 and 11 in its graph) and two
// rounds' states (the start, 5 in the graph, and a second round, 7). At the start: a roll (0.6)
// where the best side may take end 1 (the policy's option) or end 0, and a roll (0.4) that goes on
// to the second round; there, end 0 or end 1, half and half. Maximising, with ends worth e0 and
// e1 and a round worth r: 0.6 max(e1, e0) + 0.4 (r + (e0 + e1) / 2).
struct TwoRounds {
  std::vector<CombatProcess::Roll> rolls{{0.6, 0, 2}, {0.4, 2, 1}, {0.5, 3, 1}, {0.5, 4, 1}};
  std::vector<CombatProcess::Move> moves{{11, 1}, {10, 1}, {7, 0}, {10, 1}, {11, 1}};
  CombatProcess process;
  explicit TwoRounds(Sym metric = kNoSym) {
    process.rounds = {{0, 2, 0.0}, {2, 2, 0.0}};
    process.rolls = &rolls, process.moves = &moves;
    process.local.assign(8, kNone), process.local_end.assign(12, kNone);
    process.local[5] = 0, process.local[7] = 1;
    process.local_end[10] = 0, process.local_end[11] = 1;
    process.ends = 2;
    process.metric = metric;
    REQUIRE(process.finish());
  }
  static double value(double e0, double e1, double r, bool maximise) {
    return 0.6 * (maximise ? std::max(e0, e1) : e1) + 0.4 * (r + 0.5 * e0 + 0.5 * e1);
  }
};

}  // namespace

TEST_CASE("best play: a process asked again with the same inputs gives back its last answer",
          "[best_play][exact_mode]") {
  const TwoRounds c;
  ProcessValues cache(c.process);
  auto fresh = [&](std::vector<double> ends, double r, bool maximise) {
    return c.process.values(ends, r, maximise)[0];
  };
  // each call: the cache's answer has the bits of a fresh valuation (and the value on paper);
  // `again`: whether it valued the process (an input changed) or gave back the last answer
  struct Call {
    std::vector<double> ends;
    double r;
    bool maximise, again;
  };
  const std::vector<Call> calls{
      {{0.7, 0.2}, 0.0, true, true},    // the first call values it
      {{0.7, 0.2}, 0.0, true, false},   // the same inputs: the last answer
      {{0.7, 0.2}, 0.25, true, true},   // the round's reward changed
      {{0.7, 0.2}, 0.25, false, true},  // maximise changed
      {{0.7, 0.2}, 0.25, false, false},
      {{0.7, 0.3}, 0.25, false, true},  // the second end's value changed
      {{0.6, 0.3}, 0.25, false, true},  // the first end's value changed
      {{0.6, 0.3}, 0.25, true, true},
      {{0.6, 0.3}, 0.0, true, true},
      {{0.6, 0.3}, -0.0, true, true},  // -0 is not the same bits as 0
  };
  std::size_t valued = 0, reused = 0;
  for (const Call& k : calls) {
    INFO("ends " << k.ends[0] << " " << k.ends[1] << ", round " << k.r << ", max " << k.maximise);
    const double got = cache.start(k.ends, k.r, k.maximise);
    CHECK(same_bits(got, fresh(k.ends, k.r, k.maximise)));
    CHECK(std::abs(got - TwoRounds::value(k.ends[0], k.ends[1], k.r, k.maximise)) < 1e-15);
    (k.again ? valued : reused) += 1;
    CHECK(cache.valued == valued);
    CHECK(cache.reused == reused);
  }
  // the options taken by roll: asked for after a call that did not keep them, it values again
  std::vector<std::uint32_t> choice, expected;
  c.process.values(calls.back().ends, calls.back().r, true, &expected);
  CHECK(same_bits(cache.start(calls.back().ends, calls.back().r, true, &choice),
                  fresh(calls.back().ends, calls.back().r, true)));
  CHECK(choice == expected);
  CHECK(expected[0] == 1);  // end 0 (0.6) beats end 1 (0.3)
  CHECK(cache.valued == valued + 1);
  // kept (keep_choice, as best play keeps them), a later call for them is the last answer
  ProcessValues keep(c.process, true);
  keep.start(calls.back().ends, calls.back().r, true);
  choice.clear();
  keep.start(calls.back().ends, calls.back().r, true, &choice);
  CHECK(choice == expected);
  CHECK(keep.valued == 1);
  CHECK(keep.reused == 1);
}

TEST_CASE("best play: nodes that come back through a combat's ends are swept until they settle",
          "[best_play][exact_mode]") {
  // The start's combat is TwoRounds's process; its end 0 leads to a node that wins half the time
  // and otherwise comes back to the start (a cycle through another node, not a self-loop); end 1
  // loses. The ends' values change from sweep to sweep, so the process is valued again each
  // time. To win, with a round worth w (a metric objective: the rounds' metric weighed w):
  // x = 0.6 max(0, e0) + 0.4 (w + e0 / 2), e0 = 1/2 + x/2, so x = (0.4 + 0.4 w) / 0.6; the best
  // side takes end 0 at the first roll.
  const Sym rounds = sym("best_sweep_rounds");
  for (const double w : {0.0, 0.25}) {
    INFO("a round worth " << w);
    const TwoRounds c(rounds);
    ExactChain chain;
    const std::uint32_t start = add_node(chain, "start");
    const std::uint32_t coin = add_node(chain, "coin");
    const std::uint32_t won = add_node(chain, "won", 0);
    const std::uint32_t lost = add_node(chain, "lost", 1);
    chain.add_edge(start, {0.5, coin, {}});
    chain.add_edge(start, {0.5, lost, {}});
    chain.add_edge(coin, {0.5, won, {}});
    chain.add_edge(coin, {0.5, start, {}});
    ExactTree tree;
    tree.node = start, tree.process = 0;
    tree.leaves.push_back({coin, 1.0, {}, {kChoice | kProcess | 0}, 0});
    tree.leaves.push_back({lost, 1.0, {}, {kChoice | kProcess | 1}, 0});
    BestObjective o;
    o.outcomes = {1.0, 0.0};
    if (w != 0) o.metrics = {{rounds, w}};
    BestOptions bo;
    bo.processes = {&c.process};
    const BestPlay r = best_play(chain, {tree}, 1, {o}, bo);
    const double x = (0.4 + 0.4 * w) / 0.6;
    CHECK(r.settled);
    CHECK(std::abs(r.value - x) < 1e-12);
    CHECK(r.iterations > 2);  // the cycle is swept until it settles
    CHECK(r.process_valued >= 2);
    // the edges filed: each end's chance under the best choices (end 0: 0.6 + 0.4 / 2), and the
    // rounds begun on the way to it
    const ExactChain::Solution s = chain.solve(1);
    CHECK(std::abs(s.reach[won] - 2.0 / 3) < 1e-12);
    CHECK(std::abs(s.reach[lost] - 1.0 / 3) < 1e-12);
    double begun = 0;
    for (const auto& [m, v] : s.added)
      if (m == rounds) begun = v;
    // each visit of the start begins a second round with chance 0.4; the start is visited
    // 1 / (1 - 0.8 / 2) times
    CHECK(std::abs(begun - 0.4 / 0.6) < 1e-12);
  }
}

TEST_CASE("best play: a node whose choice leads back to it is swept until it settles",
          "[best_play][exact_mode]") {
  // The start's only decision: an option that wins half the time and otherwise comes back to the
  // start (the self-loop lies below the choice, so it cannot be divided out), or one that loses.
  // Playing best it comes back until it wins: 1 (one pass alone would give 1/2). Behind it, a node
  // that leads to the start (valued after it, in one pass).
  ExactChain chain;
  const std::uint32_t before = add_node(chain, "before");
  const std::uint32_t start = add_node(chain, "start");
  const std::uint32_t won = add_node(chain, "won", 0);
  const std::uint32_t lost = add_node(chain, "lost", 1);
  chain.add_edge(before, {0.5, start, {}});
  chain.add_edge(before, {0.5, lost, {}});
  chain.add_edge(start, {1.0, lost, {}});
  ExactTree tree;
  tree.node = start;
  tree.leaves.push_back({lost, 1.0, {}, {kChoice | 0}, 0});
  tree.leaves.push_back({won, 0.5, {}, {kChoice | 1, 0}, 0});
  tree.leaves.push_back({start, 0.5, {}, {kChoice | 1, 1}, 0});
  BestObjective o;
  o.outcomes = {1.0, 0.0};
  const BestPlay r = best_play(chain, {tree}, 1, {o});
  CHECK(r.settled);
  CHECK(std::abs(r.value - 0.5) < 1e-12);  // the node before: half the time to the start
  CHECK(r.iterations > 10);
  const ExactChain::Solution s = chain.solve(1);
  CHECK(std::abs(s.reach[won] - 0.5) < 1e-12);
}

TEST_CASE("best play's decision process: a row that two states read comes after both in the order",
          "[best_play][exact_mode]") {
  // Three rounds' states (5, 6, 7 in the graph: 0, 1, 2 here) and two ends (10, 11). The start
  // reads row A (to state 7) on one roll and row B (to state 6) on the other; state 6 reads row A
  // too (the same moves: rolls that lead alike share them); state 7 chooses an end (end 11 the
  // policy's, end 10 the other). Every state is worth the best end, so the start is; ordered
  // wrongly (row A's state after its first reader only), state 6 would be valued before state 7
  // and read it as 0.
  std::vector<CombatProcess::Roll> rolls{{0.5, 0, 1}, {0.5, 1, 1}, {1.0, 0, 1}, {1.0, 2, 2}};
  std::vector<CombatProcess::Move> moves{{7, 0}, {6, 0}, {11, 1}, {10, 1}};
  CombatProcess p;
  p.rounds = {{0, 2, 0.0}, {2, 1, 0.0}, {3, 1, 0.0}};
  p.rolls = &rolls, p.moves = &moves;
  p.local.assign(8, kNone), p.local_end.assign(12, kNone);
  p.local[5] = 0, p.local[6] = 1, p.local[7] = 2;
  p.local_end[10] = 0, p.local_end[11] = 1;
  p.ends = 2;
  REQUIRE(p.finish());
  CHECK(p.rows == 3);  // rows A, B and state 7's
  REQUIRE(p.order.size() == 3);
  CHECK(p.order[0] == 0);
  CHECK(p.order[1] == 1);  // state 6 before state 7: it reads row A, which leads to 7
  CHECK(p.order[2] == 2);
  const std::vector<double> ends{0.9, 0.3};
  std::vector<std::uint32_t> choice;
  const std::vector<double> V = p.values(ends, 0.0, true, &choice);
  CHECK(std::abs(V[2] - 0.9) < 1e-15);
  CHECK(std::abs(V[1] - 0.9) < 1e-15);
  CHECK(std::abs(V[0] - 0.9) < 1e-15);
  CHECK(choice[3] == 1);  // state 7 takes end 10
  // the policy's: end 11 everywhere
  CHECK(std::abs(p.values(ends, 0.0, false)[0] - 0.3) < 1e-15);
}
