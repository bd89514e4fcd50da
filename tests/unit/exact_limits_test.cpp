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
