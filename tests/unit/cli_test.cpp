// The rulebench command line as a user meets it: exit codes (0 ok, 1 a check, test or precision
// not met, 2 usage or content error, 130 interrupted) and the messages of bad input. Each test
// runs the built binary (RULEBENCH_EXE) through the shell, in a scratch folder of its own.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "cli_run.hpp"
#include "fixtures.hpp"

using namespace rb::testing;
namespace fs = std::filesystem;

namespace {

// A scratch folder with a two-cruiser scenario (ok.toml) and a pack outside content/ ("twin":
// a second unit/cruiser) with one rules test.
fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("rulebench-cli-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  write(d / "ok.toml", R"(ruleset = "ti4"
[attacker]
units = { cruiser = 2 }
[defender]
units = { destroyer = 2 }
)");
  write(d / "twin" / "pack.toml", R"(id = "twin"
ruleset = "ti4"
depends = ["ti4-base"]
data = ["units.toml"]
)");
  write(d / "twin" / "units.toml", "[unit.cruiser]\ncombat = 6\n");
  // passes only when the pack "twin" is loaded: its cruiser makes the short name ambiguous
  write(d / "twin" / "tests" / "twin.toml", R"(rule = "twin"
name = "a second unit/cruiser makes the short name ambiguous"
[scenario]
ruleset = "ti4"
packs = ["twin"]
attacker = { units = { cruiser = 1 } }
defender = { units = { fighter = 1 } }
[expect]
error = "the short name 'cruiser' is ambiguous"
)");
  return d;
}

}  // namespace

TEST_CASE("cli: nonsense numbers are usage errors (exit 2) naming the option", "[cli]") {
  const fs::path d = scratch("numbers");
  const std::array<std::pair<const char*, const char*>, 16> cases{{
      {"simulate ok.toml --runs 0", "--runs"},
      {"simulate ok.toml --runs -1", "--runs"},
      {"simulate ok.toml --runs 1e20", "--runs"},
      {"simulate ok.toml --threads 0", "--threads"},
      {"simulate ok.toml --threads -1", "--threads"},
      {"simulate ok.toml --precision 0", "--precision"},
      {"simulate ok.toml --precision -1", "--precision"},
      {"simulate ok.toml --precision nan", "--precision"},
      {"simulate ok.toml --precision-mean 0", "--precision-mean"},
      {"simulate ok.toml --runs 10 --precision-mean 0.1", "--precision-mean"},
      {"simulate ok.toml --max-runs 10",
       "--max-runs is the cap of --precision or --precision-mean"},
      {"simulate ok.toml --seed -1", "--seed"},
      {"simulate ok.toml --seed 18446744073709551616", "--seed"},
      {"compare ok.toml --with attacker:morale_boost --runs 0", "--runs"},
      {"compare ok.toml --with attacker:morale_boost --threads 0", "--threads"},
      {"trace ok.toml --seed 99999999999999999999", "--seed"},
  }};
  for (const auto& [args, option] : cases) {
    const Run r = rulebench(d, args);
    INFO(args << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(has(r.out, option));
  }
}

TEST_CASE("cli: an unknown command is named, with the nearest one", "[cli]") {
  const fs::path d = scratch("command");
  const Run r = rulebench(d, "simulat ok.toml");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "unknown command 'simulat' (did you mean 'simulate'?)"));
}

TEST_CASE("cli: compare with nothing to compare is a usage error", "[cli]") {
  const fs::path d = scratch("compare");
  const Run r = rulebench(d, "compare ok.toml --runs 10");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "compare needs --with or --without"));
}

TEST_CASE("cli: --precision stopped by the run cap says so and exits 1", "[cli]") {
  const fs::path d = scratch("precision");
  const Run r = rulebench(d, "simulate ok.toml --precision 0.0001 --max-runs 2000 --threads 1");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out, "2000 runs, seed 1"));  // the report is still printed
  CHECK(has(r.out, "--precision 0.0001 not reached"));
  // reached: exit 0
  CHECK(rulebench(d, "simulate ok.toml --precision 0.2 --threads 1").code == 0);
  // the means' bound is its own option, with its own message
  const Run m =
      rulebench(d, "simulate ok.toml --precision-mean 0.00001 --max-runs 2000 --threads 1");
  INFO(m.out);
  CHECK(m.code == 1);
  CHECK(has(m.out, "--precision-mean 1e-05 not reached"));
  CHECK(rulebench(d, "simulate ok.toml --precision-mean 0.5 --threads 1").code == 0);
}

TEST_CASE("cli: a scripted answer that is not an option is one plain line, no Lua traceback",
          "[cli]") {
  const fs::path d = scratch("answer");
  write(d / "answer.toml", R"(rule = "Morale Boost"
name = "an answer the decision does not offer"
dice = [1, 1]
[scenario]
ruleset = "ti4"
attacker = { units = { cruiser = 1 }, cards = ["morale_boost"] }
defender = { units = { cruiser = 1 } }
[[answer]]
player = "attacker"
decision = "use:morale_boost"
answer = "perhaps"
[expect]
outcome = "draw"
)");
  const Run r = rulebench(d, "test answer.toml");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out,
            "scripted answer 'perhaps' for use:morale_boost (attacker) is not one of the "
            "options: yes, no"));
  CHECK(!has(r.out, "stack traceback"));
}

TEST_CASE("cli: test that finds no tests fails, check of a missing pack is a usage error",
          "[cli]") {
  const fs::path d = scratch("missing");
  fs::create_directories(d / "empty");
  Run r = rulebench(d, "test empty");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out, "no tests found in empty"));
  r = rulebench(d, "check ./nowhere");
  CHECK(r.code == 2);
  CHECK(has(r.out, "no folder ./nowhere"));
  r = rulebench(d, "check ti4-bse");
  CHECK(r.code == 2);
  CHECK(has(r.out, "no pack folder or pack id 'ti4-bse' (did you mean 'ti4-base'?)"));
}

TEST_CASE("cli: a pack outside content/ named by its folder is taken as a folder", "[cli]") {
  const fs::path d = scratch("packs");
  // ./twin would have been stripped to the id "twin", which no search folder holds
  Run r = rulebench(d, "check twin");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "ok    twin"));
  r = rulebench(d, "check ./twin");
  CHECK(r.code == 0);
  r = rulebench(d, "simulate ok.toml --runs 10 --with ./twin");
  // twin's cruiser makes the scenario's short name 'cruiser' ambiguous: proof it was loaded,
  // reported at the scenario line that writes it
  CHECK(r.code == 2);
  CHECK(has(r.out, "ok.toml"));
  CHECK(has(r.out, "the short name 'cruiser' is ambiguous"));
  write(d / "amb.toml", R"(ruleset = "ti4"
packs = ["./twin"]
[attacker]
units = { cruiser = 2 }
[defender]
units = { destroyer = 2 }
)");
  r = rulebench(d, "simulate amb.toml --runs 10");
  CHECK(r.code == 2);
  CHECK(has(r.out, "amb.toml:4: the short name 'cruiser' is ambiguous"));
  // the tests of a pack outside content/ find their pack
  r = rulebench(d, "test twin/");
  CHECK(r.code == 0);
  CHECK(has(r.out, "1 passed, 0 failed"));
  r = rulebench(d, "test twin/tests/twin.toml");
  CHECK(r.code == 0);
  // --packs DIR: a folder of packs
  r = rulebench(d, "--packs . check twin");
  CHECK(r.code == 0);
}

TEST_CASE("cli: scenario mistakes are errors at their scenario line", "[cli][scenario]") {
  const fs::path d = scratch("scenario");
  const std::string head = "ruleset = \"ti4\"\n[defender]\nunits = { destroyer = 2 }\n";
  const std::array<std::pair<std::string, std::string>, 4> cases{{
      {"[attacker]\nunits = { cruiser = 2 }\npolicy = { hit_order = [\"fightr\"] }\n",
       "s.toml:6: unknown unit 'fightr'"},
      {"[attacker]\nunits = { cruiser = 2 }\npolicy = { use = { morale_bost = \"never\" } }\n",
       "s.toml:6: attacker.policy.use.morale_bost: no optional ability 'morale_bost' in the "
       "loaded packs (did you mean 'morale_boost'?)"},
      {"[attacker]\nunits = { cruiser = 2 }\npolicy = { use = { morale_boost = \"nevr\" } }\n",
       "s.toml:6: use.morale_boost must be \"always\" or \"never\""},
      {"[attacker]\nunits = { cruiser = 9223372036854775807 }\n",
       "s.toml:5: unit counts are whole numbers from 0 to 1000"},
  }};
  for (const auto& [side, expected] : cases) {
    write(d / "s.toml", head + side);
    const Run r = rulebench(d, "simulate s.toml --runs 10");
    INFO(head + side << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(has(r.out, expected));
  }
  // a setting from the command line is checked the same way
  const Run r = rulebench(d, "simulate ok.toml --runs 10 --with attacker:policy.hit_order=fightr");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "unknown unit 'fightr'"));
  // and a scenario that uses them correctly runs
  write(d / "good.toml",
        head +
            "[attacker]\nunits = { cruiser = 2 }\n"
            "policy = { hit_order = [\"cruiser\"], use = { morale_boost = \"never\" } }\n");
  CHECK(rulebench(d, "simulate good.toml --runs 10").code == 0);
}

TEST_CASE("cli: SIGINT during simulate prints the partial result and exits 130", "[cli]") {
  const fs::path d = scratch("sigint");
  // 10^12 runs would take days: interrupted after 2 s, it must stop within the timeout
  // (a watchdog kills it after 60 s, so a missed signal fails the test instead of hanging it)
  const Run r = shell("cd '" + d.string() + "' && { " + kExe +
                      " simulate ok.toml --runs 1000000000000 --threads 1 > out.txt 2>&1 & "
                      "pid=$!; (sleep 60; kill -KILL $pid) >/dev/null 2>&1 & dog=$!; sleep 2; "
                      "kill -INT $pid; wait $pid; echo \"exit=$?\"; kill $dog 2>/dev/null; "
                      "cat out.txt; }");
  INFO(r.out);
  CHECK(has(r.out, "exit=130"));
  CHECK(has(r.out, "interrupted: the partial result of the "));
  CHECK(has(r.out, "attacker_win"));  // the intervals so far
  CHECK(has(r.out, "interrupted after "));
}

TEST_CASE("cli: list lists the records of any kind (factions), an unknown kind is a usage error",
          "[cli][factions]") {
  const fs::path d = scratch("list");
  Run r = rulebench(d, "list factions");
  CHECK(r.code == 0);
  CHECK(has(r.out, "ti4-base:faction/sardakk_norr"));
  CHECK(has(r.out, "ti4-pok:faction/titans"));
  // what names it (its technologies: 2 faction technologies); ti4-te changes other packs' records
  // (the Naalu mech), so it is listed only when named: then Thunder's Edge's breakthrough too
  CHECK(has(r.out, "3 leader, 1 promissory_note, 2 technology, 4 unit"));
  CHECK(has(r.out, "not loaded: homebrew-example, ti4-te"));
  r = rulebench(d, "list factions --pack ti4-te");
  CHECK(r.code == 0);
  CHECK(has(r.out, "3 leader, 1 promissory_note, 3 technology, 4 unit"));
  CHECK(has(r.out, "ti4-te:faction/last_bastion"));
  r = rulebench(d, "list leaders");
  CHECK(r.code == 0);
  CHECK(has(r.out, "ti4-base:leader/two_ram"));
  CHECK(!has(r.out, "faction/"));
  r = rulebench(d, "list factio");
  CHECK(r.code == 2);
  CHECK(has(r.out, "did you mean 'faction'"));
}

TEST_CASE("cli: what a new pack's template tells the modder to run works (list purposes, roles)",
          "[cli]") {
  const fs::path d = scratch("purposes");
  // every `rulebench list X` a template names
  std::set<std::string> named;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(RB_SOURCE_DIR) / "scripts"))
    if (e.is_regular_file() && e.path().string().find("/new_pack/") != std::string::npos) {
      std::ifstream in(e.path());
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      for (std::size_t at = 0; (at = text.find("`rulebench list ", at)) != std::string::npos;) {
        at += 16;
        named.insert(text.substr(at, text.find('`', at) - at));
      }
    }
  CHECK(named.count("purposes"));
  for (const std::string& what : named) {
    INFO(what);
    CHECK(rulebench(d, "list " + what).code == 0);
  }
  Run r = rulebench(d, "list purposes");
  CHECK(r.code == 0);
  CHECK(has(r.out, "combat\nanti_fighter_barrage\n"));
  r = rulebench(d, "list roles --json");
  CHECK(r.code == 0);
  CHECK(has(r.out, "{\"name\":\"attacker\"}"));
  r = rulebench(d, "list purpose");
  CHECK(r.code == 2);
  CHECK(has(r.out, "did you mean 'purposes'"));
}

TEST_CASE("cli: types DIR makes a folder that does not exist yet; --check does not", "[cli]") {
  const fs::path d = scratch("types-new");
  Run r = rulebench(d, "types --check new/pack");
  CHECK(r.code == 2);
  CHECK(has(r.out, "no folder new/pack"));
  r = rulebench(d, "types new/pack");
  CHECK(r.code == 0);
  CHECK(fs::is_regular_file(d / "new" / "pack" / "types" / "rulebench.lua"));
  CHECK(rulebench(d, "types --check new/pack").code == 0);
}

TEST_CASE("cli: --without SIDE:KEY takes a one-key setting back to its default (a faction)",
          "[cli]") {
  const fs::path d = scratch("without-faction");
  write(d / "sol.toml", R"(ruleset = "ti4"
[attacker]
faction = "sol"
units = { cruiser = 2 }
[defender]
units = { destroyer = 2 }
)");
  Run r = rulebench(d, "compare sol.toml --runs 200 --threads 1 --without attacker:faction");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(has(r.out, "without attacker:faction"));
}

TEST_CASE("cli: list counts gives each [[counts]] line its records and the rules tests naming them",
          "[cli]") {
  const fs::path d = scratch("counts");
  Run r = rulebench(d, "list counts");
  CHECK(r.code == 0);
  for (const char* line : {"factions", "flagships", "mechs", "technologies", "action cards",
                           "agendas", "leaders", "promissory notes", "named by a test"})
    CHECK(has(r.out, line));
  // a test of a card counts for it: Morale Boost's tests name the action card
  CHECK(
      !has(r.out, "ti4-base:action_card/morale_boost"));  // it is named, so not listed as untested
  // --json: the same lines as items, with the ids no test names
  r = rulebench(d, "list counts --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["list"] == "counts");
  bool flagships = false;
  for (const auto& item : j["items"]) {
    INFO(item.dump());
    CHECK(item["records"].get<int>() >= item["named_by_a_test"].get<int>());
    CHECK(item["untested"].size() ==
          item["records"].get<std::size_t>() - item["named_by_a_test"].get<std::size_t>());
    if (item["label"] == "flagships") {
      flagships = true;
      CHECK(item["kind"] == "unit");
      CHECK(item["records"].get<int>() >= 25);
      CHECK(item["rules_tests"].get<int>() > 0);
    }
  }
  CHECK(flagships);
  r = rulebench(d, "list counts --ruleset xwing");
  CHECK(r.code == 2);
  CHECK(has(r.out, "declares no [[counts]]"));
}

TEST_CASE(
    "cli: a rules test with too few forced dice names the die past them and shows the trace "
    "up to it, with no Lua traceback",
    "[cli][rules_test]") {
  const fs::path d = scratch("too_few_dice");
  // Anti-Fighter Barrage (a destroyer's 2 dice each) comes first: dice 1-2 are the attacker's,
  // dice 3-4 the defender's, so die 4 is one too many
  write(d / "few.toml", R"(rule = "space-combat/3"
name = "three forced dice for a run that rolls more"
dice = [9, 9, 9]
[scenario]
ruleset = "ti4"
attacker = { units = { destroyer = 1, fighter = 2 } }
defender = { units = { destroyer = 1, fighter = 2 } }
[expect]
outcome = "attacker_win"
)");
  Run r = rulebench(d, "test few.toml");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(
      has(r.out, "FAIL  space-combat/3: three forced dice for a run that rolls more  (few.toml)"));
  CHECK(has(r.out,
            "dice: the test forces 3 result(s), and the run rolls more: die 4 is defender's "
            "destroyer, anti_fighter_barrage roll (a d10) (rolled in procedure "
            "'space_combat': "));
  CHECK_FALSE(has(r.out, "stack traceback"));
  // the trace up to it: the three forced dice, not the fourth
  CHECK(has(r.out, "      | "));
  CHECK(has(r.out, "defender's destroyer rolls 9 (anti_fighter_barrage"));
  std::size_t defender_dice = 0;
  for (std::size_t at = r.out.find("defender's destroyer rolls"); at != std::string::npos;
       at = r.out.find("defender's destroyer rolls", at + 1))
    ++defender_dice;
  CHECK(defender_dice == 1);
}

TEST_CASE("cli: a failing rules test shows the last 15 lines of its trace without -v",
          "[cli][rules_test]") {
  const fs::path d = scratch("trace_tail");
  write(d / "wrong.toml", R"(rule = "space-combat/6"
name = "a cruiser against a fighter, with the wrong outcome expected"
dice = [7, 3]
[scenario]
ruleset = "ti4"
attacker = { units = { cruiser = 1 } }
defender = { units = { fighter = 1 } }
[expect]
outcome = "defender_win"
)");
  Run r = rulebench(d, "test wrong.toml");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(has(r.out, "FAIL  space-combat/6"));
  CHECK(has(r.out, "      trace, "));
  CHECK(has(r.out, "      | "));
  CHECK(has(r.out, "attacker's cruiser rolls 7 (combat, hits on 7): hit"));
  CHECK(has(r.out, "outcome: attacker_win"));
}
