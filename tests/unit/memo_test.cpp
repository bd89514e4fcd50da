// The step memo of ctx:steps (script/memo.hpp): a memoized run gives the same numbers as a run
// that executes every step, run by run and in whole simulations of the TI4 tactical action; a
// step with few draws is kept, one with many or with a uniform draw is executed; a full memo
// still gives the same numbers; a step that keeps a value between calls is caught; ctx:steps is
// refused where it cannot work.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

constexpr const char* kBattle =
    "[attacker]\nunits = { cruiser = 2, dreadnought = 1 }\n"
    "[defender]\nunits = { fighter = 3, cruiser = 1 }\n";

std::vector<RunResult> runs(MiniTable& table, int n, std::uint64_t seed = 7) {
  std::vector<RunResult> out;
  for (int i = 0; i < n; ++i) {
    RunOptions o;
    o.seed = seed;
    o.run = static_cast<std::uint64_t>(i);
    State state = table.start;
    RunResult r;
    table.engine.run("stepped", state, o, r);
    out.push_back(std::move(r));
  }
  return out;
}

void check_same(const std::vector<RunResult>& a, const std::vector<RunResult>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("run " << i);
    CHECK(a[i].outcome_name == b[i].outcome_name);
    CHECK(a[i].metrics == b[i].metrics);
  }
}

EngineOptions no_memo() {
  EngineOptions o;
  o.memo = false;
  return o;
}

Tally simulate(const char* scenario, bool memo, std::uint64_t runs) {
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session = open_session(read_scenario(root / scenario), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = runs;
  options.seed = 11;
  options.threads = 1;
  options.engine.memo = memo;
  return sim.run(options);
}

}  // namespace

TEST_CASE("ctx:steps: a memoized run gives the numbers of a run that executes every step",
          "[memo]") {
  MiniTable memo({}, kBattle);
  MiniTable plain({}, kBattle, no_memo());
  const auto a = runs(memo, 3000);
  check_same(a, runs(plain, 3000));
  // the volley (one roll of 3 dice, 10^3 paths at most) and the result are kept; the rounds and
  // the coin (a uniform draw) are executed: the memo holds nodes, and fewer than the runs
  CHECK(memo.engine.memo_nodes() > 3);
  CHECK(memo.engine.memo_nodes() < 3000);
  CHECK(plain.engine.memo_nodes() == 0);
  // the memo was used: a second pass over the same runs adds no node and gives the same numbers
  const std::size_t nodes = memo.engine.memo_nodes();
  check_same(runs(memo, 3000), a);
  CHECK(memo.engine.memo_nodes() == nodes);
}

TEST_CASE("ctx:steps: a memo at its byte cap runs the steps it does not hold, same numbers",
          "[memo]") {
  EngineOptions tiny;
  tiny.memo_bytes = 64 * 1024;
  MiniTable memo({}, kBattle, tiny);
  MiniTable plain({}, kBattle, no_memo());
  check_same(runs(memo, 2000, 3), runs(plain, 2000, 3));
  CHECK(memo.engine.memo_bytes() <= tiny.memo_bytes);
}

TEST_CASE("ctx:steps: no memo in a traced or forced run", "[memo]") {
  MiniTable table({}, kBattle);
  Trace trace;
  trace.enabled = true;
  RunOptions o;
  o.trace = &trace;
  State state = table.start;
  RunResult r;
  table.engine.run("stepped", state, o, r);
  CHECK(table.engine.memo_nodes() == 0);
}

TEST_CASE("ctx:steps: a step that keeps a value between calls is caught", "[memo]") {
  // the leaky volley draws a d10 on one call and a d6 on the next from the same state: the
  // first run that misses the trie replays a d10 draw to a step that asks for a d6
  MiniTable table({}, "probe = 'leak'\n" + std::string(kBattle));
  bool caught = false;
  std::string message;
  for (int i = 0; i < 200 && !caught; ++i) {
    try {
      RunOptions o;
      o.run = static_cast<std::uint64_t>(i);
      State state = table.start;
      RunResult r;
      table.engine.run("stepped", state, o, r);
    } catch (const ScriptError& e) {
      caught = true;
      message = e.what();
    }
  }
  REQUIRE(caught);
  CHECK(contains(message, "ctx:steps: step 1"));
  CHECK(contains(message, "outside the state"));
}

TEST_CASE("ctx:steps: the TI4 tactical action gives the same numbers with and without the memo",
          "[memo][ti4][tactical]") {
  for (const char* scenario :
       {"content/ti4-base/scenarios/bench_d.toml", "content/ti4-base/scenarios/bench_e.toml",
        "content/ti4-base/scenarios/gravity_rift_two.toml",
        "content/ti4-base/scenarios/tactical_wellon.toml",
        "tests/fixtures/memo/ground_combats_three_players.toml"}) {
    INFO(scenario);
    const Tally on = simulate(scenario, true, 3000), off = simulate(scenario, false, 3000);
    CHECK(on.runs == off.runs);
    CHECK(on.outcomes == off.outcomes);
    CHECK(on.metrics == off.metrics);
    CHECK(on.survivors == off.survivors);
  }
}
