// The tactical action's path search on hostile maps (issue 25): gravity rifts make moves free, so
// a ship may wander through dozens of systems, and every simple path used to be an option. The
// scenarios in tests/fixtures/paths/ took the whole time limit (60 s, ~590 MB) or were refused
// ("offers 18336 options, at most 10000"). Paths with the same outcome are now offered once
// (scripts/ti4/tactical_action.lua, find_paths): each scenario must run within an instruction
// budget (EngineOptions::procedure_budget, not the clock) and offer each ship a handful of moves.
// A map whose outcomes still cannot be told apart in time ends with an error naming the search.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/scenario.hpp"
#include "trace/trace.hpp"

using namespace rb;

namespace {

struct Moves {
  std::vector<std::size_t> options;  // each move_ship decision's option count ("stay" included)
  std::vector<std::string> moved;    // the move events' keys
  std::string error;
};

// One traced run of tests/fixtures/paths/<name>.toml, the whole procedure within `budget` Lua
// instructions.
Moves run_paths(const std::string& name, std::int64_t budget) {
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  const Session session = open_session(
      read_scenario(rb::testing::test_dir() / "fixtures" / "paths" / (name + ".toml")), so);
  EngineOptions eo;
  eo.procedure_budget = budget;
  Table table(session, eo);
  State state = table.start;
  Trace trace;
  trace.enabled = true;
  RunOptions ro;
  ro.trace = &trace;
  RunResult result;
  Moves out;
  try {
    table.engine.run(session.procedure, state, ro, result);
  } catch (const Error& e) {
    out.error = e.what();
  }
  for (const TraceEvent& e : trace.events) {
    if (e.key.rfind("decision:", 0) == 0 &&
        e.key.find(":tactical_action.move_ship:") != std::string::npos)
      out.options.push_back(e.fields.at("options").size());
    if (e.key.rfind("move:", 0) == 0) out.moved.push_back(e.key);
  }
  return out;
}

// About three times what the largest scenario below uses (rifts_36: some 700 000 instructions),
// far below what any of them used before (the 8-rift position ran 4 s before it was refused).
constexpr std::int64_t kBudget = 2'000'000;

}  // namespace

TEST_CASE("paths: 36 gravity rifts around the active system, three ships and two pick-ups",
          "[ti4][tactical][paths]") {
  const Moves m = run_paths("rifts_36", kBudget);
  INFO(m.error);
  REQUIRE(m.error.empty());
  // the carrier: one path per order of pick-ups (none, either, both in either order), and stay;
  // the destroyer and the cruiser: every path rolls for rifts, one outcome each
  CHECK(m.options == std::vector<std::size_t>{6, 2, 2});
  CHECK(m.moved ==
        std::vector<std::string>{"move:xxcha:carrier:rift_m3_3>rift_m2_2>rift_m1_1>wellon",
                                 "move:xxcha:destroyer:rift_2_m2>rift_1_m1>wellon",
                                 "move:xxcha:cruiser:rift_3_m3>rift_2_m2>rift_1_m1>wellon"});
}

TEST_CASE("paths: an 11-rift clique between the ships and the active system",
          "[ti4][tactical][paths]") {
  const Moves m = run_paths("rift_clique_11", kBudget);
  INFO(m.error);
  REQUIRE(m.error.empty());
  // the carrier: through a rift with nothing to pick up, by rift_4, by rift_8, by both in either
  // order; the cruiser: one path
  CHECK(m.options == std::vector<std::size_t>{6, 2});
  CHECK(m.moved == std::vector<std::string>{"move:xxcha:carrier:lodor>rift_10>wellon",
                                            "move:xxcha:cruiser:lodor>rift_10>wellon"});
}

TEST_CASE("paths: a legal position with 8 gravity rifts that was refused (18336 options)",
          "[ti4][tactical][paths]") {
  const Moves m = run_paths("rifts_8", kBudget);
  INFO(m.error);
  REQUIRE(m.error.empty());
  CHECK(m.options == std::vector<std::size_t>{2});
  CHECK(m.moved == std::vector<std::string>{
                       "move:xxcha:cruiser:rift_m2_2>tile_m2_1>tile_m1_0>tile_m1_m1>wellon"});
}

TEST_CASE(
    "paths: five pick-ups among 18 gravity rifts: one option for each order they can be made in",
    "[ti4][tactical][paths]") {
  // 62661 paths (refused); 90 orders of pick-ups, the same as all the paths grouped by outcome
  const Moves m = run_paths("pickups_5", 5 * kBudget);
  INFO(m.error);
  REQUIRE(m.error.empty());
  CHECK(m.options == std::vector<std::size_t>{91});
  CHECK(m.moved == std::vector<std::string>{"move:xxcha:carrier:rift_2_m2>rift_1_m1>wellon"});
}

TEST_CASE("paths: a map whose outcomes cannot be told apart in time is an error naming the search",
          "[ti4][tactical][paths]") {
  const Moves m = run_paths("wander", 10 * kBudget);  // the search's own bound ends it first
  CHECK(rb::testing::contains(m.error,
                              "movement: the paths from rift_4_m4 to wellon take more than"));
  CHECK(rb::testing::contains(m.error, "steps to search"));
  CHECK(m.options.empty());
}
