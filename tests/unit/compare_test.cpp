// compare (issue 4): both arms run on common random numbers, so a change that alters nothing
// gives a difference of exactly zero, a real change gives a significant one with a tighter
// interval than independent arms would, and the result does not depend on the thread count.
// Also the variants: where records, settings and packs go in the scenario.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/compare.hpp"

using namespace rb;

namespace {

const fs::path kRoot = RB_SOURCE_DIR;

Session ti4_session(const std::string& scenario) {
  return open_session(read_scenario(kRoot / "content/ti4-base/scenarios" / scenario),
                      rb::testing::repo_session_options());
}

nlohmann::json compare(const Session& a, const Changes& changes, std::uint64_t runs,
                       int threads = 2) {
  const Session b = apply_changes(a, changes, rb::testing::repo_session_options());
  const Comparison cmp(a, b);
  CompareOptions o;
  o.runs = runs;
  o.seed = 11;
  o.threads = threads;
  return cmp.report(cmp.run(o), o.seed, changes);
}

const toml::array& side_list(const Session& s, const char* side, const char* key) {
  const toml::array* a = s.scenario.table[side][key].as_array();
  REQUIRE(a != nullptr);
  return *a;
}

std::vector<std::string> strings(const toml::array& a) {
  std::vector<std::string> out;
  for (const auto& n : a) out.push_back(n.value_or(std::string("?")));
  return out;
}

}  // namespace

TEST_CASE("compare: nothing changed gives a difference of exactly zero", "[compare]") {
  const Session a = ti4_session("demo.toml");
  // no change at all, and a change that loads the content again (the base pack, already loaded)
  for (const Changes& changes : {Changes{}, Changes{{"ti4-base"}, {}}}) {
    INFO(changes.describe());
    const auto j = compare(a, changes, 20000);
    for (const auto& [key, d] : j.at("difference").items()) {
      INFO(key);
      CHECK(d.at("difference").get<double>() == 0.0);
      CHECK(d.at("ci95").at(0).get<double>() == 0.0);
      CHECK(d.at("ci95").at(1).get<double>() == 0.0);
      CHECK_FALSE(d.at("significant").get<bool>());
    }
    CHECK(j.at("changed_outcome").get<double>() == 0.0);
    CHECK(j.at("a").dump() == j.at("b").dump());
  }
}

TEST_CASE("compare: Cruiser II for the attacker is a significant gain for the attacker",
          "[compare]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  const auto j = compare(a, Changes{{"attacker:cruiser_ii"}, {}}, 20000);
  const auto& att = j.at("difference").at("attacker_win");
  CHECK(att.at("significant").get<bool>());
  CHECK(att.at("ci95").at(0).get<double>() > 0.05);  // combat 7 -> 6: about +12 points
  const auto& def = j.at("difference").at("defender_win");
  CHECK(def.at("significant").get<bool>());
  CHECK(def.at("ci95").at(1).get<double>() < 0);
  CHECK(j.at("summary").get<std::string>().find("points for the attacker, significant") !=
        std::string::npos);
  // each arm's own numbers are simulate's: B - A is their difference
  const double diff =
      j.at("b").at("attacker_win").get<double>() - j.at("a").at("attacker_win").get<double>();
  CHECK(att.at("difference").get<double>() == Approx(diff).margin(1e-12));
}

TEST_CASE("compare: common random numbers give a tighter interval than independent arms",
          "[compare]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  const auto j = compare(a, Changes{{"defender:policy.sustain=never"}, {}}, 20000);
  const double n = 20000;
  for (const char* key : {"attacker_win", "defender_win"}) {
    INFO(key);
    const auto& d = j.at("difference").at(key);
    const double pa = d.at("a").get<double>(), pb = d.at("b").get<double>();
    const double independent = 1.96 * std::sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n);
    const double paired = (d.at("ci95").at(1).get<double>() - d.at("ci95").at(0).get<double>()) / 2;
    CHECK(paired < independent);
    CHECK(d.at("significant").get<bool>());
  }
  // the dreadnought that never sustains damage loses more often
  CHECK(j.at("difference").at("defender_win").at("difference").get<double>() < 0);
}

TEST_CASE("compare: the result does not depend on the thread count", "[compare][threads]") {
  const Session a = ti4_session("demo.toml");
  const Changes changes{{"attacker:morale_boost"}, {}};
  CHECK(compare(a, changes, 6000, 1).dump() == compare(a, changes, 6000, 2).dump());
}

TEST_CASE("variants: a record goes to the list the ruleset names for its kind, per side",
          "[compare][variants]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  const Session b = apply_changes(
      a, Changes{{"attacker:cruiser_ii", "morale_boost", "defender:prophecy_of_ixth"}, {}},
      rb::testing::repo_session_options());
  CHECK(strings(side_list(b, "attacker", "technologies")) ==
        std::vector<std::string>{"cruiser_ii"});
  CHECK(strings(side_list(b, "attacker", "cards")) == std::vector<std::string>{"morale_boost"});
  CHECK(strings(side_list(b, "defender", "cards")) == std::vector<std::string>{"morale_boost"});
  CHECK(strings(side_list(b, "defender", "laws")) == std::vector<std::string>{"prophecy_of_ixth"});
  CHECK_FALSE(b.scenario.table["defender"]["technologies"]);
  CHECK_FALSE(a.scenario.table["attacker"]["technologies"]);  // arm A is untouched
  // and out again
  const Session c =
      apply_changes(b, Changes{{}, {"attacker:morale_boost", "technology/cruiser_ii"}},
                    rb::testing::repo_session_options());
  CHECK(side_list(c, "attacker", "cards").empty());
  CHECK(side_list(c, "attacker", "technologies").empty());
  CHECK(strings(side_list(c, "defender", "cards")) == std::vector<std::string>{"morale_boost"});
}

TEST_CASE("variants: settings set and remove values in a side's table", "[compare][variants]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  const Session b = apply_changes(a,
                                  Changes{{"attacker:policy.sustain=last", "policy.retreat=2",
                                           "defender:policy.hit_order=carrier,fighter"},
                                          {}},
                                  rb::testing::repo_session_options());
  CHECK(b.scenario.table["attacker"]["policy"]["sustain"].value_or(std::string()) == "last");
  CHECK(b.scenario.table["attacker"]["policy"]["retreat"].value_or(0LL) == 2);
  CHECK(b.scenario.table["defender"]["policy"]["retreat"].value_or(0LL) == 2);
  CHECK(strings(*b.scenario.table["defender"]["policy"]["hit_order"].as_array()) ==
        std::vector<std::string>{"carrier", "fighter"});
  const Session c = apply_changes(b, Changes{{}, {"attacker:policy.sustain"}},
                                  rb::testing::repo_session_options());
  CHECK_FALSE(c.scenario.table["attacker"]["policy"]["sustain"]);
  CHECK(c.scenario.table["attacker"]["policy"]["retreat"]);
}

TEST_CASE("variants: --without SIDE:KEY removes a setting of one key (back to its default)",
          "[compare][variants]") {
  // the help: "a setting without =VALUE goes back to its default"; a faction is such a setting
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  const Session b =
      apply_changes(a, Changes{{"attacker:faction=sol"}, {}}, rb::testing::repo_session_options());
  REQUIRE(b.scenario.table["attacker"]["faction"].value_or(std::string()) == "sol");
  const Session c =
      apply_changes(b, Changes{{}, {"attacker:faction"}}, rb::testing::repo_session_options());
  CHECK_FALSE(c.scenario.table["attacker"]["faction"]);
  CHECK(c.scenario.table["attacker"]["units"]);
  // a record of that name is still the record
  const Session d =
      apply_changes(b, Changes{{"attacker:morale_boost"}, {}}, rb::testing::repo_session_options());
  const Session e =
      apply_changes(d, Changes{{}, {"attacker:morale_boost"}}, rb::testing::repo_session_options());
  CHECK(side_list(e, "attacker", "cards").empty());
}

TEST_CASE("variants: a record of an installed pack the scenario does not load names the pack",
          "[compare][variants]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  try {
    apply_changes(a, Changes{{"attacker:dark_energy_tap"}, {}},
                  rb::testing::repo_session_options());
    FAIL("no error");
  } catch (const UsageError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("it is in the pack 'ti4-pok', which the scenario does not "
                                     "load (add --with ti4-pok") != std::string::npos);
  }
}

TEST_CASE("variants: a change that cannot apply is a usage error that says why",
          "[compare][variants]") {
  const Session a = ti4_session("cruisers_vs_dreadnought.toml");
  auto fails = [&](Changes ch, const std::string& part) {
    INFO(ch.describe());
    try {
      apply_changes(a, ch, rb::testing::repo_session_options());
      FAIL("no error");
    } catch (const UsageError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(part) != std::string::npos);
    }
  };
  fails({{"attacker:no_such_card"}, {}},
        "no action_card, agenda, leader, promissory_note, relic, technology 'no_such_card'");
  fails({{"attacker:unit/cruiser"}, {}}, "is a unit");
  fails({{"attacker:ti4-base"}, {}}, "a pack applies to every side");
  fails({{}, {"attacker:cruiser_ii"}}, "not in the scenario");
  fails({{"attacker:policy.sustain"}, {}}, "a setting needs a value");
  fails({{}, {"attacker:policy.retreat"}}, "is not set");
  fails({{}, {"ti4-base"}}, "still loaded");
}

TEST_CASE("variants: a scenario error in a changed arm still names its line", "[compare]") {
  // the changed arm's table is a copy, which toml++ keeps without source lines; the error looks
  // the key up in the file
  const fs::path file = fs::temp_directory_path() / "rulebench-variant-line.toml";
  {
    std::ofstream out(file);
    out << "ruleset = \"ti4\"\n[attacker]\nunits = { cruiser = 2 }\nunitz = {}\n"
           "[defender]\nunits = { dreadnought = 1 }\n";
  }
  for (const bool changed : {false, true}) {
    std::string error;
    try {
      Session s = open_session(read_scenario(file), rb::testing::repo_session_options());
      if (changed)
        s = apply_changes(s, Changes{{"attacker:morale_boost"}, {}},
                          rb::testing::repo_session_options());
      Table table(s);
    } catch (const ContentError& e) {
      error = e.what();
    }
    INFO(error);
    CHECK(error.find(":4: unknown key 'unitz'") != std::string::npos);
  }
}
