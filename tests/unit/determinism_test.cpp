// Determinism: the same seed gives a byte-identical trace; forced dice are consumed in order and
// show in the trace; the rules-test runner passes a right test and fails wrong ones readably.
#include <catch2/catch.hpp>

#include <sstream>

#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/rules_test.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

constexpr const char* kBattle =
    "[attacker]\nunits = { cruiser = 2, dreadnought = 1 }\ncard = 'rally'\n"
    "[defender]\nunits = { fighter = 4, cruiser = 1 }\ncard = 'volley'\n";

std::string json_trace(MiniTable& table, std::uint64_t seed, std::uint64_t run = 0) {
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.seed = seed;
  options.run = run;
  options.trace = &trace;
  State state = table.start;
  RunResult result;
  table.engine.run("combat", state, options, result);
  std::ostringstream out;
  trace.print_json_lines(out);
  return out.str();
}

SessionOptions fixture_session() {
  SessionOptions o;
  o.root = fixture_root();
  return o;
}

fs::path rules_fixture(const char* name) {
  return test_dir() / "fixtures" / "rules" / name;
}

const RulesTestResult& named(const std::vector<RulesTestResult>& results, std::string_view name) {
  for (const auto& r : results)
    if (r.name == name) return r;
  FAIL("no test named " << name);
  return results.front();
}

}  // namespace

TEST_CASE("determinism: the same seed gives a byte-identical JSON trace", "[determinism]") {
  MiniTable table({"mini-cards"}, kBattle);
  const std::string first = json_trace(table, 2024);
  REQUIRE_FALSE(first.empty());
  CHECK(contains(first, "\"kind\":\"roll\""));
  CHECK(contains(first, "\"kind\":\"hook\""));
  CHECK(json_trace(table, 2024) == first);
  // a fresh engine and start state: the same bytes
  MiniTable again({"mini-cards"}, kBattle);
  CHECK(json_trace(again, 2024) == first);
  // other seeds and run indexes give other battles
  CHECK(json_trace(table, 2025) != first);
  CHECK(json_trace(table, 2024, 1) != first);
}

TEST_CASE("determinism: forced dice are consumed in order and show in the trace", "[determinism]") {
  MiniTable table({}, "[attacker]\nunits = { cruiser = 2 }\n[defender]\nunits = { fighter = 3 }\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.trace = &trace;
  options.strict_dice = true;
  // round 1: attacker 7 (hit), 0 (=10, hit); defender 9 (hit), 1 (miss), 4 (miss)
  // round 2: attacker 2 (miss); defender 4 (miss); round 3: attacker 8 (hit); defender 5 (miss)
  for (int v : {7, 0, 9, 1, 4, 2, 4, 8, 5}) options.forced.push_back({v, kNoSym});
  State state = table.start;
  RunResult result;
  table.engine.run("combat", state, options, result);
  std::vector<std::string> rolls;
  for (const auto& e : trace.events)
    if (e.kind == EventKind::roll) rolls.push_back(e.key);
  CHECK(rolls == std::vector<std::string>{
                     "roll:attacker:combat:cruiser:7:hit", "roll:attacker:combat:cruiser:0:hit",
                     "roll:defender:combat:fighter:9:hit", "roll:defender:combat:fighter:1:miss",
                     "roll:defender:combat:fighter:4:miss", "roll:attacker:combat:cruiser:2:miss",
                     "roll:defender:combat:fighter:4:miss", "roll:attacker:combat:cruiser:8:hit",
                     "roll:defender:combat:fighter:5:miss"});
  CHECK(result.forced_used == 9);
  CHECK(result.forced_left == 0);
  CHECK(result.outcome_name == "attacker_win");
  CHECK(result.metric("rounds") == 3);
  // the JSON lines carry the same events with a sequence number
  std::ostringstream json;
  trace.print_json_lines(json);
  CHECK(contains(json.str(), "\"key\":\"roll:attacker:combat:cruiser:0:hit\""));
  // with the die's fields: the d10's 0 face is worth 10
  CHECK(contains(json.str(),
                 "\"face\":\"0\",\"hit\":true,\"key\":\"roll:attacker:combat:cruiser:0:hit\""));
  CHECK(contains(json.str(), "\"threshold\":7,\"unit\":\"cruiser\",\"value\":10}"));
  CHECK(contains(json.str(), "\"seq\":0"));
}

TEST_CASE("determinism: the narrative trace reads as a story", "[determinism]") {
  MiniTable table({}, "[attacker]\nunits = { cruiser = 1 }\n[defender]\nunits = { fighter = 1 }\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.trace = &trace;
  options.forced = {{7, kNoSym}, {3, kNoSym}};
  State state = table.start;
  RunResult result;
  table.engine.run("combat", state, options, result);
  std::ostringstream out;
  trace.print_narrative(out);
  CHECK(contains(out.str(),
                 "== window mini.start_of_combat + mini.start_of_round (one timing window)"));
  CHECK(contains(out.str(), "attacker's cruiser rolls 7 (combat, hits on 7): hit"));
  CHECK(contains(out.str(), "xx defender's fighter is destroyed"));
}

TEST_CASE("rules tests: a right test passes", "[rules_test]") {
  const auto results = run_rules_test_file(rules_fixture("cruiser_wins.toml"), fixture_session());
  REQUIRE(results.size() == 1);
  INFO((results[0].problems.empty() ? std::string() : results[0].problems[0]));
  CHECK(results[0].passed);
  CHECK(results[0].name ==
        "mini 1: a cruiser's 7 hits and the fighter's 3 misses: the attacker wins in one round");
  CHECK(contains(results[0].trace, "attacker's cruiser rolls 7"));
}

TEST_CASE("rules tests: scripted answers and expected errors pass when right", "[rules_test]") {
  const auto results = run_rules_test_file(rules_fixture("retreat.toml"), fixture_session());
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    INFO(r.name << (r.problems.empty() ? std::string() : ": " + r.problems[0]));
    CHECK(r.passed);
  }
}

TEST_CASE("rules tests: wrong expectations fail with a readable problem line", "[rules_test]") {
  const auto results =
      run_rules_test_file(rules_fixture("wrong_expectations.toml"), fixture_session());
  REQUIRE(results.size() == 7);
  for (const auto& r : results) {
    INFO(r.name);
    CHECK_FALSE(r.passed);
    CHECK_FALSE(r.problems.empty());
  }
  auto problem = [&](std::string_view name) {
    const auto& r = named(results, name);
    return r.problems.empty() ? std::string() : r.problems[0];
  };
  CHECK(problem("wrong outcome") == "outcome: expected defender_win, actual attacker_win");
  CHECK(problem("trace events in the wrong order") ==
        "trace: expected 'roll:attacker:combat:cruiser:7' after "
        "'roll:defender:combat:fighter:3' (it appears, but earlier)");
  CHECK(problem("a forced die never rolled") == "dice: 1 forced result(s) were never rolled");
  CHECK(problem("an answer never asked for") ==
        "answer never asked for: defender mini.retreat = retreat");
  const auto& both = named(results, "wrong survivors and metric").problems;
  REQUIRE(both.size() == 2);
  CHECK(both[0].rfind("metric rounds: expected 2, actual 1", 0) == 0);
  CHECK(both[1] == "survivors defender fighter: expected 1, actual 0");
  CHECK(problem("an event that must not appear") ==
        "trace: 'destroyed:defender:fighter' appears, but the test says it must not");
  // too few forced dice: the die past them is named, and where it was rolled, with no traceback
  CHECK(contains(problem("the run rolls more dice than forced"),
                 "dice: the test forces 2 result(s), and the run rolls more: die 3 is attacker's "
                 "cruiser, combat roll (a d10) (rolled in procedure 'combat': "));
  CHECK_FALSE(contains(problem("the run rolls more dice than forced"), "traceback"));
  // its trace ends before that die: the two forced dice, then the next round's window
  const std::string& upto = named(results, "the run rolls more dice than forced").trace;
  CHECK(contains(upto, "defender's fighter rolls 3"));
  CHECK(upto.rfind("rolls") < upto.rfind("mini.start_of_round"));
}

TEST_CASE("rules tests: a test file that cannot run reports why", "[rules_test]") {
  const auto results = run_rules_test_file(rules_fixture("no_such_file.toml"), fixture_session());
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].passed);
  CHECK(contains(results[0].problems.at(0), "cannot run"));
}

TEST_CASE("rules tests: a trace key no event key could match is rejected with its line",
          "[rules_test]") {
  for (const char* file :
       {"malformed_keys/trailing_colon.toml", "malformed_keys/trailing_comma.toml",
        "malformed_keys/empty_segment.toml"}) {
    INFO(file);
    const auto results = run_rules_test_file(rules_fixture(file), fixture_session());
    REQUIRE(results.size() == 1);
    CHECK_FALSE(results[0].passed);
    REQUIRE(results[0].problems.size() == 1);
    CHECK(contains(results[0].problems[0], ".toml:5:"));
    CHECK(contains(results[0].problems[0], "can never match an event key"));
  }
}
