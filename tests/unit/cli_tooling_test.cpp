// The modder's tooling on the command line: a pack made by `rulebench new pack` passes its own
// check and tests, `check` lints a pack's Lua with luacheck, `test --json` and `--junit`, `list`
// of any ruleset's units with their stats, `types --check`.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "fixtures.hpp"

using namespace rb::testing;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("rulebench-tooling-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool luacheck_installed() {
  return shell("command -v luacheck >/dev/null 2>&1").code == 0;
}

}  // namespace

TEST_CASE("new pack: the pack made from each ruleset's template passes check and its tests",
          "[cli][tooling]") {
  const fs::path d = scratch("new");
  Run r = rulebench(d, "new pack my-cards --ruleset ti4");
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const char* f : {"pack.toml", "README.md", "cards/volley.toml", "cards/deflector_screen.lua",
                        "tests/cards.toml", ".luarc.json", ".luacheckrc", "types/rulebench.lua"})
    CHECK(fs::is_regular_file(d / "my-cards" / f));
  CHECK(has(read(d / "my-cards" / "pack.toml"), "depends = [\"ti4-base >= 0.1.0\"]"));
  CHECK(has(read(d / "my-cards" / "cards" / "volley.toml"), "[action_card.my_cards_volley]"));
  r = rulebench(d, "check ./my-cards");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "ok    ./my-cards"));
  CHECK(has(r.out, "1 pack checked, 0 failed"));
  CHECK_FALSE(has(r.out, "luacheck warning"));
  r = rulebench(d, "test my-cards/");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "3 passed, 0 failed"));
  r = rulebench(d, "types --check my-cards");
  CHECK(r.code == 0);

  // a folder that is taken, a name that is no id, something else than a pack
  r = rulebench(d, "new pack my-cards");
  CHECK(r.code == 2);
  CHECK(has(r.out, "exists and is not an empty folder"));
  r = rulebench(d, "new pack 'my cards' other");
  CHECK(r.code == 2);
  CHECK(has(r.out, "is not a pack id"));
  r = rulebench(d, "new ruleset x");
  CHECK(r.code == 2);
  CHECK(has(r.out, "rulebench new pack NAME"));
  r = rulebench(d, "new pack ti4-base elsewhere");
  CHECK(r.code == 2);
  CHECK(has(r.out, "a pack 'ti4-base' exists already"));
  fs::remove_all(d);
}

TEST_CASE("check: luacheck names an undefined global in a pack's Lua and fails it",
          "[cli][tooling]") {
  if (!luacheck_installed()) {
    WARN("luacheck is not installed (Debian lua-check): skipped");
    return;
  }
  const fs::path d = scratch("lint");
  write(d / "sloppy" / "pack.toml", R"(id = "sloppy"
ruleset = "ti4"
depends = ["ti4-base"]
scripts = ["hooks.lua"]
)");
  write(d / "sloppy" / "hooks.lua", R"(local unused = 1
hook {
  id = "sloppy",
  window = "space_combat.start_of_round",
  apply = function(ctx) return helper(ctx) end,
}
)");
  Run r = rulebench(d, "check ./sloppy");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out, "FAIL  ./sloppy"));
  CHECK(has(r.out, "hooks.lua:5:32: (W113) accessing undefined variable 'helper'"));
  CHECK(has(r.out, "luacheck warning: "));  // the unused variable: listed, not a failure
  CHECK(has(r.out, "(W211) unused variable 'unused'"));
  r = rulebench(d, "check ./sloppy --json");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["failed"] == 1);
  CHECK(j["packs"][0]["luacheck"]["errors"].size() == 1);
  fs::remove_all(d);
}

TEST_CASE(
    "check: a misspelt ctx method or ctx:activate id fails it, at its line, with the nearest "
    "name",
    "[cli][tooling]") {
  // tests/fixtures/names/misnamed: loads, and would fail only when those lines run
  const fs::path d = scratch("names");
  const std::string pack = std::string(RB_SOURCE_DIR) + "/tests/fixtures/names/misnamed";
  Run r = rulebench(d, "check '" + pack + "'");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out,
            "volley.lua:9: ctx:activate(\"misnamed_voley_bonus\"): no modifier "
            "'misnamed_voley_bonus' in this pack or the packs it loads (did you mean "
            "'misnamed_volley_bonus'?)"));
  CHECK(has(r.out, "volley.lua:17: ctx:typ is not a ctx method (did you mean 'type'?)"));
  // the same text in a comment or a string is no call; the right id is no problem
  CHECK_FALSE(has(r.out, "volley.lua:1:"));
  CHECK_FALSE(has(r.out, "volley.lua:8:"));
  CHECK_FALSE(has(r.out, "volley.lua:18:"));
  r = rulebench(d, "check '" + pack + "' --json");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["failed"] == 1);
  CHECK(j["packs"][0]["script_names"].size() == 2);
  // every shipped pack passes it (the whole check runs in its own test)
  r = rulebench(d, "check ti4-base ti4-pok xwing-core red-alert-core");
  CHECK(r.code == 0);
}

TEST_CASE("test: --json and --junit report each test, a failure with its problems",
          "[cli][tooling]") {
  const fs::path d = scratch("junit");
  write(d / "t.toml", R"(rule = "Morale Boost"
name = "a deliberately wrong expectation & <markup>"
dice = [6, 1, 6, 5]
[scenario]
ruleset = "ti4"
attacker = { units = { cruiser = 1 }, cards = ["morale_boost"] }
defender = { units = { dreadnought = 1 } }
[expect]
outcome = "attacker_win"
)");
  Run r = rulebench(d, "test t.toml --json --junit report.xml");
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["passed"] == 0);
  CHECK(j["failed"] == 1);
  CHECK(j["tests"][0]["problems"][0] == "outcome: expected attacker_win, actual defender_win");
  const std::string xml = read(d / "report.xml");
  CHECK(has(xml, "<testsuites name=\"rulebench test\" tests=\"1\" failures=\"1\""));
  CHECK(has(xml, "name=\"Morale Boost: a deliberately wrong expectation &amp; &lt;markup&gt;\""));
  CHECK(has(xml, "<failure message=\"outcome: expected attacker_win, actual defender_win\">"));
  fs::remove_all(d);
}

TEST_CASE("list: units of any ruleset with their stats, cards with their text, --json",
          "[cli][tooling]") {
  const fs::path d = scratch("list");
  Run r = rulebench(d, "list units --ruleset xwing");
  CHECK(r.code == 0);
  CHECK(has(r.out, "xwing-core:ship/academy_pilot"));
  CHECK(has(r.out, "agility 3, attack 2, hull 3, initiative 1"));
  // a house rule is not what a scenario sees unless it names the pack
  r = rulebench(d, "list units");
  CHECK(has(r.out, "not loaded: homebrew-example"));
  CHECK_FALSE(has(r.out, "Heavy Cruiser"));
  r = rulebench(d, "list units --pack homebrew-example");
  CHECK(has(r.out, "sustain_damage (changed by homebrew-example, when it is loaded)"));
  r = rulebench(d, "list cards");
  CHECK(has(r.out, "Morale Boost"));
  CHECK(has(r.out, "your units' combat rolls get +1 for the rest of that round"));
  CHECK_FALSE(has(r.out, "unit/cruiser"));
  r = rulebench(d, "list windows --json");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["list"] == "windows");
  CHECK(j["items"][0].contains("doc"));
  r = rulebench(d, "check xwing-core");
  CHECK(has(r.out, "1 pack checked, 0 failed"));
  fs::remove_all(d);
}

TEST_CASE(
    "trace: each roll names the modifiers that changed it, shows the d10's 0 face as 10 and "
    "carries its fields",
    "[cli][tooling][trace]") {
  const fs::path d = scratch("trace_modifiers");
  // Sardakk N'orr (Unrelenting +1) with Morale Boost (+1 this round) against Jol-Nar (Fragile -1)
  const std::string scenario =
      "'" + std::string(RB_SOURCE_DIR) + "/content/ti4-base/scenarios/sardakk_vs_jol_nar.toml'";
  // seed 2 rolls some 10s
  Run r = rulebench(d, "trace " + scenario + " --seed 2 --with attacker:morale_boost");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "(combat, hits on 3 = 5 - 2: +1 Morale Boost, +1 Unrelenting): "));
  CHECK(has(r.out, "(combat, hits on 6 = 7 - 1: +1 Unrelenting): "));  // round 2: the card is spent
  CHECK(has(r.out, "(combat, hits on 6 = 5 + 1: -1 Fragile): "));
  CHECK(has(r.out, "rolls 10 ("));
  CHECK_FALSE(has(r.out, "rolls 0 ("));
  CHECK_FALSE(has(r.out, " with +"));
  r = rulebench(d, "trace --json " + scenario + " --seed 2 --with attacker:morale_boost");
  bool boosted = false, ten = false;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["kind"] != "roll" || j["purpose"] != "combat") continue;
    CHECK(j["die"] == "d10");
    CHECK(j.contains("threshold"));
    CHECK(j.contains("hit"));
    if (j["player"] == "attacker" &&
        j["modifiers"] ==
            nlohmann::json::parse(
                R"([{"delta":1,"by":"Morale Boost"},{"delta":1,"by":"Unrelenting"}])"))
      boosted = true;
    if (j["player"] == "defender")
      CHECK(j["modifiers"] == nlohmann::json::parse(R"([{"delta":-1,"by":"Fragile"}])"));
    if (j["face"] == "0") {
      CHECK(j["value"] == 10);
      ten = true;
    }
  }
  CHECK(boosted);
  CHECK(ten);
  fs::remove_all(d);
}

TEST_CASE("trace: opens with what was run, numbers rounds, hides idle rules, ends with survivors",
          "[cli][tooling][trace]") {
  const fs::path d = scratch("trace");
  Run r = rulebench(d, "trace '" + std::string(RB_SOURCE_DIR) +
                           "/content/ti4-base/scenarios/learn_to_play_action.toml'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "scenario  "));
  CHECK(has(r.out, "ruleset   ti4 (Twilight Imperium 4th edition), procedure tactical_action"));
  CHECK(has(r.out, "packs     ti4-base 0.1.0"));
  CHECK(has(r.out, "seed      1"));
  CHECK(has(r.out, "-- round 1 --"));
  CHECK(has(r.out, "-- round 2 --"));
  // the passage check of each system and the rules that did nothing: one line, not seven
  CHECK(has(r.out, "== window tactical_action.passage\n   (the same window 7 times in a row)"));
  CHECK_FALSE(has(r.out, "nobody uses"));
  CHECK_FALSE(has(r.out, "rule anomaly_movement"));
  CHECK(has(r.out, "survivors:\n  attacker (sol): dreadnought 1, infantry 4, space_dock 1\n"));
  CHECK(has(r.out, "produces an infantry"));
  // -v: every event
  r = rulebench(d, "trace -v '" + std::string(RB_SOURCE_DIR) +
                       "/content/ti4-base/scenarios/learn_to_play_action.toml'");
  CHECK(has(r.out, "rule anomaly_movement (") == false);  // a rule has no source
  CHECK(has(r.out, "-> rule anomaly_movement [ti4-base]"));
  // trace -i with no terminal refuses instead of ignoring -i
  r = rulebench(d, "trace -i '" + std::string(RB_SOURCE_DIR) +
                       "/content/ti4-base/scenarios/demo.toml' < /dev/null");
  CHECK(r.code == 2);
  CHECK(has(r.out, "standard input is not a terminal"));
  // structured fields beside the key and the text
  r = rulebench(d, "trace --json '" + std::string(RB_SOURCE_DIR) +
                       "/content/ti4-base/scenarios/learn_to_play_action.toml'");
  bool decision = false, hook_window = false;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j["kind"] == "decision" && j.contains("options") && j.contains("answer") &&
        j.contains("player"))
      decision = true;
    if (j["kind"] == "window" && j.contains("window")) hook_window = true;
  }
  CHECK(decision);
  CHECK(hook_window);
  fs::remove_all(d);
}

TEST_CASE("simulate and compare: what was run, in text and JSON; compare counts altered runs",
          "[cli][tooling]") {
  const fs::path d = scratch("sim");
  const std::string demo =
      "'" + std::string(RB_SOURCE_DIR) + "/content/ti4-base/scenarios/demo.toml'";
  Run r = rulebench(d, "simulate " + demo + " --runs 2000 --json --with attacker:morale_boost");
  REQUIRE(r.code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["scenario"]["ruleset"] == "ti4");
  CHECK(j["scenario"]["procedure"] == "space_combat");
  CHECK(j["scenario"]["settings"]["attacker"]["cards"][0] == "morale_boost");
  CHECK(j["packs"][0]["id"] == "ti4-base");
  CHECK(j["changes"]["with"][0] == "attacker:morale_boost");
  r = rulebench(d, "simulate " + demo + " --runs 2000");
  CHECK(has(r.out, "ruleset   ti4 (Twilight Imperium 4th edition), procedure space_combat"));
  CHECK(has(r.out, "attacker  units ("));
  // X-Wing's one attack has no outcome: the line counts the runs whose damage changed
  const std::string xw =
      "'" + std::string(RB_SOURCE_DIR) + "/content/xwing-core/scenarios/issue_example.toml'";
  r = rulebench(d, "compare " + xw + " --with attacker:tokens.focus=0 --runs 20000");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "the change altered damage of "));
  CHECK_FALSE(has(r.out, "0.00% of runs"));
  // the wrong forms name the right one
  r = rulebench(d, "compare " + xw + " --with tokens.focus=0 --runs 10");
  CHECK(r.code == 0);  // every side: the attacker's and the defender's focus
  const std::string eng =
      "'" + std::string(RB_SOURCE_DIR) + "/content/xwing-core/scenarios/engagement_demo.toml'";
  r = rulebench(d, "compare " + eng + " --with first_player=imperial --runs 10");
  CHECK(r.code == 2);
  CHECK(has(r.out, "is written scenario:first_player=imperial"));
  r = rulebench(d, "compare " + eng + " --with rebel:luke.tokens.focus=0 --runs 10");
  CHECK(r.code == 2);
  CHECK(has(r.out, "'rebel' is not a side of this procedure's report"));
  fs::remove_all(d);
}
