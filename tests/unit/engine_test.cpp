// The Lua host on the mini ruleset: dice through the script API (reroll limits, faced dice, the
// d10's 0), declarative modifiers and hooks with use limits, decisions and the ruleset's
// default policy. The probe procedure opens mini.probe; the probes pack acts on it.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

std::vector<DiceStream::Forced> values(std::initializer_list<int> v) {
  std::vector<DiceStream::Forced> out;
  for (int x : v) out.push_back({x, kNoSym});
  return out;
}

std::vector<std::string> keys(const Trace& t, std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& e : t.events)
    if (e.key.rfind(prefix, 0) == 0) out.push_back(e.key);
  return out;
}

}  // namespace

TEST_CASE("engine: a die with a reroll limit refuses the reroll past it", "[engine][dice]") {
  MiniTable table({"probes"}, "probe = 'reroll_limit'");
  RunOptions options;
  options.forced = values({3, 8});
  options.strict_dice = true;  // a refused reroll must not roll
  const RunResult r = run_probe(table, options);
  CHECK(r.metric("first") == 3);
  CHECK(r.metric("reroll1") == 1);
  CHECK(r.metric("second") == 8);
  CHECK(r.metric("reroll2") == 0);
  CHECK(r.metric("after") == 8);
  CHECK(r.metric("rerolls") == 1);
  CHECK(r.forced_used == 2);
  CHECK(r.forced_left == 0);
}

TEST_CASE("engine: faced dice are forced by face and counted by face", "[engine][dice]") {
  MiniTable table({"probes"}, "probe = 'faced'");
  RunOptions options;
  for (const char* f : {"crit", "hit", "blank", "hit", "focus"})
    options.forced.push_back({0, sym(f)});
  options.strict_dice = true;
  const RunResult r = run_probe(table, options);
  CHECK(r.metric("hit") == 2);
  CHECK(r.metric("crit") == 1);
  CHECK(r.metric("focus") == 1);
  CHECK(r.metric("blank") == 1);
}

TEST_CASE("engine: the d10 forced to 10 or to its label 0 shows 0 and reads 10", "[engine][dice]") {
  MiniTable table({"probes"}, "probe = 'd10_zero'");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.forced = values({10, 0});
  options.strict_dice = true;
  options.trace = &trace;
  const RunResult r = run_probe(table, options);
  CHECK(r.metric("value1") == 10);
  CHECK(r.metric("value2") == 10);
  CHECK(r.metric("hits") == 2);
  CHECK(keys(trace, "roll:") ==
        std::vector<std::string>{"roll:attacker:test:-:0:hit", "roll:attacker:test:-:0:hit"});
  CHECK(keys(trace, "face:") == std::vector<std::string>{"face:0"});
}

TEST_CASE("engine: strict forced dice that run out stop the run with a script error",
          "[engine][dice]") {
  MiniTable table({"probes"}, "probe = 'reroll_limit'");
  RunOptions options;
  options.forced = values({3});
  options.strict_dice = true;
  try {
    run_probe(table, options);
    FAIL("the run rolled past the forced dice");
  } catch (const ScriptError& e) {
    CHECK_THAT(e.what(), Catch::Contains("more dice than the 1 forced results") &&
                             Catch::Contains("hook 'probes:reroll_limit'"));
  }
}

TEST_CASE("engine: ctx:event's fields name the player and unit and place the path on the board",
          "[engine][trace]") {
  MiniTable table({"probes"}, "probe = 'event_fields'\n[attacker]\nunits = { cruiser = 1 }\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.trace = &trace;
  run_probe(table, options);
  const TraceEvent* move = nullptr;
  for (const auto& e : trace.events)
    if (e.key == "move:fields") move = &e;
  REQUIRE(move);
  CHECK(move->text == "a move");
  CHECK(move->fields["player"] == "attacker");
  CHECK(move->fields["unit"] == "cruiser");
  CHECK(move->fields["path"] == nlohmann::json::parse(R"([{"name": "arena", "q": 2, "r": -1},
                                                         {"name": "attacker", "q": null, "r": null}])"));
}

TEST_CASE("engine: an unknown field of ctx:event is a script error naming the fields",
          "[engine][trace]") {
  MiniTable table({"probes"}, "probe = 'event_bad_field'\n");
  try {
    run_probe(table);  // not traced: the fields are checked all the same
    FAIL("an unknown field of ctx:event was accepted");
  } catch (const ScriptError& e) {
    CHECK_THAT(e.what(), Catch::Contains("ctx:event: unknown field 'plyer'") &&
                             Catch::Contains("did you mean 'player'") &&
                             Catch::Contains("hook 'probes:event_bad_field'"));
  }
}

TEST_CASE("engine: a held card's modifier and its once-per-round hook apply each round",
          "[engine][events]") {
  MiniTable table({"mini-cards"},
                  "[attacker]\nunits = { cruiser = 1 }\ncard = 'rally'\n"
                  "[defender]\nunits = { fighter = 1 }\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  // round 1: 2+1 misses, 3 misses; round 2: 6+1 hits (needs 7), 1 misses
  options.forced = values({2, 3, 6, 1});
  options.strict_dice = true;
  options.trace = &trace;
  State state = table.start;
  RunResult r;
  table.engine.run("combat", state, options, r);
  CHECK(r.outcome_name == "attacker_win");
  CHECK(r.metric("rounds") == 2);
  CHECK(keys(trace, "roll:") == std::vector<std::string>{"roll:attacker:combat:cruiser:2:miss",
                                                         "roll:defender:combat:fighter:3:miss",
                                                         "roll:attacker:combat:cruiser:6:hit",
                                                         "roll:defender:combat:fighter:1:miss"});
  // the hook fired once per round (its use counter is cleared when the round ends)
  CHECK(keys(trace, "hook:") ==
        std::vector<std::string>{"hook:rally_cheer:attacker", "hook:rally_cheer:attacker"});
  const EntityId attacker = state.role(sym("attacker"));
  CHECK(state.counter(attacker, sym("cheers")) == 2);
  CHECK(state.counter(attacker, sym("used:mini-cards:rally_cheer")) == 0);
  // the start state is untouched by the run
  CHECK(table.start.counter(table.start.role(sym("attacker")), sym("cheers")) == 0);
}

TEST_CASE("engine: decisions come from scripted answers first, then the ruleset's policy",
          "[engine][decide]") {
  MiniTable table({}, "[attacker]\nunits = { cruiser = 1 }\n[defender]\nunits = { fighter = 1 }\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.forced = values({3, 3, 3, 3, 7, 3});  // two rounds of misses, then a hit
  options.trace = &trace;
  SECTION("the policy: the mini ruleset never retreats") {
    State state = table.start;
    RunResult r;
    table.engine.run("combat", state, options, r);
    CHECK(r.outcome_name == "attacker_win");
    CHECK(r.metric("rounds") == 3);
    CHECK(keys(trace, "decision:") ==
          std::vector<std::string>{"decision:defender:mini.retreat:stay",
                                   "decision:defender:mini.retreat:stay"});
    bool reason = false;
    for (const auto& e : trace.events)
      reason |= contains(e.text, "policy: the mini ruleset never retreats");
    CHECK(reason);
  }
  SECTION("a scripted answer for the second round") {
    ScriptedAnswers answers;
    answers.add({"defender", "mini.retreat", "stay"});
    answers.add({"defender", "mini.retreat", "retreat"});
    options.answers = &answers;
    State state = table.start;
    RunResult r;
    table.engine.run("combat", state, options, r);
    CHECK(r.outcome_name == "defender_retreat");
    CHECK(r.metric("rounds") == 2);
    CHECK(r.unused_answers.empty());
    CHECK(r.forced_left == 2);
    bool scripted = false;
    for (const auto& e : trace.events) scripted |= contains(e.text, "retreat: retreat (scripted)");
    CHECK(scripted);
  }
}

TEST_CASE("engine: an unknown procedure is a usage error naming the closest", "[engine]") {
  MiniTable table({}, "");
  State state = table.start;
  RunResult r;
  CHECK_THROWS_WITH(
      table.engine.run("combt", state, {}, r),
      Catch::Contains("no procedure 'combt'") && Catch::Contains("did you mean 'combat'"));
}

TEST_CASE("engine: a run with strict forced dice does not make the next run strict",
          "[engine][dice]") {
  MiniTable table({"probes"}, "probe = 'reroll_limit'");
  RunOptions strict;
  strict.forced = values({3, 8});
  strict.strict_dice = true;
  CHECK(run_probe(table, strict).metric("second") == 8);
  // the next run on the same engine forces nothing: it rolls from its own stream
  RunOptions free;
  free.seed = 3;
  const RunResult r = run_probe(table, free);
  CHECK(r.metric("first") >= 1);
  CHECK(r.metric("first") <= 10);
  CHECK(r.forced_used == 0);
}

TEST_CASE("engine: role, hooked and end_scope take several names, count any of attributes",
          "[engine]") {
  MiniTable table({"probes"},
                  "probe = 'several_names'\n[attacker]\nunits={cruiser=2,dreadnought=1}\n"
                  "[defender]\nunits={fighter=1}\n");
  const RunResult r = run_probe(table);
  CHECK(r.metric("roles_match") == 1);
  CHECK(r.metric("probe_hooked") == 1);       // the probes pack hooks it
  CHECK(r.metric("after_roll_hooked") == 0);  // nothing does
  CHECK(r.metric("sustain") == 1);
  CHECK(r.metric("sustain_or_combat") == 3);
  CHECK(r.metric("type_dreadnought") == 1);
  CHECK(r.metric("left") == 1);  // the round and combat counters ended, the game's stays
}

TEST_CASE("engine: a hook fires once per copy of its source, and each copy has its own use limit",
          "[engine][hooks]") {
  MiniTable table({"probes"}, "probe = 'two_copies'\n[attacker]\nunits={cruiser=1}\n");
  const RunResult r = run_probe(table);
  CHECK(r.metric("uses_first") == 2);
  CHECK(r.metric("uses_second") == 2);      // once per round, per copy
  CHECK(r.metric("uses_next_round") == 4);  // a new round: both again
}

TEST_CASE("engine: an optional hook's helps reaches the policy; the condition stays legality",
          "[engine][hooks][decide]") {
  MiniTable table({"probes"}, "probe = 'helps'\n[attacker]\nunits={cruiser=1}\n");
  Trace trace;
  trace.enabled = true;
  RunOptions options;
  options.trace = &trace;
  SECTION("the mini policy declines what does not help, and uses the rest") {
    const RunResult r = run_probe(table, options);
    CHECK(r.metric("hint_helps") == 1);        // helps: true, then false
    CHECK(r.metric("hint_never_helps") == 0);  // legal both times, never helps
    CHECK(r.metric("hint_unsure") == 2);       // no helps: the policy gets nil
    CHECK(r.metric("hint_fails") == 2);
    // the decision is asked and traced as before: the answer and the policy's reason
    CHECK(keys(trace, "decision:attacker:use:hint_never_helps:") ==
          std::vector<std::string>{"decision:attacker:use:hint_never_helps:no",
                                   "decision:attacker:use:hint_never_helps:no"});
    bool reason = false;
    for (const auto& e : trace.events) reason |= contains(e.text, "(policy: it does not help)");
    CHECK(reason);
  }
  SECTION("a scripted answer overrides helps, which is then not run") {
    MiniTable failing({"probes"}, "probe = 'helps_fails'\n[attacker]\nunits={cruiser=1}\n");
    ScriptedAnswers answers;
    answers.add({"attacker", "use:hint_fails", "yes"});
    options.answers = &answers;
    CHECK(run_probe(failing, options).metric("hint_fails") == 1);
  }
  SECTION("an error in helps names the hook") {
    MiniTable failing({"probes"}, "probe = 'helps_fails'\n[attacker]\nunits={cruiser=1}\n");
    CHECK_THROWS_WITH(run_probe(failing, options), Catch::Contains("hook 'probes:hint_fails'") &&
                                                       Catch::Contains("helps") &&
                                                       Catch::Contains("helps was asked"));
  }
}
