// The exact mode's limits and refusals (issue 18: "a state budget (--max-states); beyond it, say
// so and stop"; "interactive decisions are refused in exact mode").
#include <catch2/catch.hpp>

#include "exact/explore.hpp"
#include "fixtures.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {
Session session_of(const char* scenario) {
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  return open_session(read_scenario(fs::path(RB_SOURCE_DIR) / scenario), so);
}

// 2 cruisers against 2, with one of the hostile packs of tests/fixtures/hostile-ti4.
Session hostile_session(const std::string& pack) {
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  so.search = {fs::path(RB_SOURCE_DIR) / "tests" / "fixtures" / "hostile-ti4"};
  return open_session(
      scenario_from_table(rb::testing::scenario("ruleset = \"ti4\"\nprocedure = \"space_combat\"\n"
                                                "packs = [\"" +
                                                pack +
                                                "\"]\n"
                                                "[attacker]\nunits = { cruiser = 2 }\n"
                                                "[defender]\nunits = { cruiser = 2 }\n"),
                          pack + ".toml", RB_SOURCE_DIR),
      so);
}
}  // namespace

TEST_CASE("exact mode: past --max-states it stops and says so", "[exact][exact_mode][limits]") {
  const Session s = session_of("content/ti4-base/scenarios/bench_c.toml");
  ExactRunOptions o;
  o.max_states = 10;
  try {
    Simulation(s).exact(o);
    FAIL("no limit was reached");
  } catch (const ExactLimit& e) {
    CHECK(rb::testing::contains(e.what(), "passed 10 states (--max-states)"));
  }
  o.max_states = 1000;  // (c) needs 175
  CHECK(Simulation(s).exact(o).at("states").get<std::size_t>() <= 1000);
}

TEST_CASE("exact mode: interactive decisions are refused", "[exact][exact_mode][limits]") {
  const Session s = session_of("content/ti4-base/scenarios/bench_a.toml");
  EngineOptions eo;
  eo.interactive = true;
  CHECK_THROWS_WITH(Simulation(s).exact(ExactRunOptions{}, eo),
                    Catch::Contains("interactive decisions are refused"));
}

TEST_CASE("exact mode: a step whose dice branch past the limit stops with the reason",
          "[exact][exact_mode][limits]") {
  // the L1Z1X flagship reads every die of both sides' rolls: far more than 50 ways per round
  const Session s = session_of("content/ti4-base/scenarios/bench_f.toml");
  Table table(s);
  ExactRunOptions o;
  o.max_branches = 50;
  CHECK_THROWS_WITH(table.engine.run_exact(s.procedure, table.start, o),
                    Catch::Contains("branches into more than 50 ways from one state"));
}

TEST_CASE("exact mode: a loop inside one step that every miss prolongs stops at its time limit",
          "[exact][exact_mode][limits]") {
  // issue 27: a landing whose ground combat rounds looped inside one step grew to 5.5 GB, and
  // --max-states did not stop it (the chain never grew: one step never ended)
  const Session s = hostile_session("reroll_until_hit");
  // every way that rolls k misses first ends, so the step's leaves never run out: its memory is
  // bounded (the draws of a leaf, the chain) and its time limit stops it, as what it is
  ExactRunOptions o;
  o.max_states = 1000;
  o.seconds = 1;
  try {
    Simulation(s).exact(o);
    FAIL("no limit was reached");
  } catch (const ExactLimit& e) {
    CHECK(rb::testing::contains(e.what(), "the exact mode ran past its time limit of 1 s"));
  }
  // a Monte Carlo run of it ends
  Table table(s);
  State state = table.start;
  RunResult result;
  CHECK_NOTHROW(table.engine.run(s.procedure, state, RunOptions{}, result));
}

TEST_CASE("exact mode: a step that rolls forever stops at the bound on one run's pools",
          "[exact][exact_mode][limits]") {
  const Session s = hostile_session("roll_forever");
  try {
    Simulation(s).exact(ExactRunOptions{});
    FAIL("no limit was reached");
  } catch (const ExactLimit& e) {
    // (each roll of two alike dice is one draw: the pools run out first)
    CHECK(rb::testing::contains(e.what(), "rolled more than 100000 pools of dice"));
    CHECK(rb::testing::contains(e.what(), "make each round a step that returns \"again\""));
  }
}
