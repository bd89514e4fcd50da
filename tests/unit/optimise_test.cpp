// rulebench optimise (issue 31, docs/optimise.md): on a small budget (6 resources, 2 fleet supply,
// fighters within capacity, against 2 cruisers) the optimiser enumerates exactly the legal builds
// written out below, and its best build and its cheapest build reaching a target are those of a
// brute force that answers every one of them with the exact mode (simulate --exact).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>

#include "sim/optimise.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

const fs::path kRoot = RB_SOURCE_DIR;

// Every legal build of the spec below, by hand: at most 2 non-fighter ships (destroyer 1,
// cruiser 2, carrier 3 with capacity 4, dreadnought 4 with capacity 1; the flagship's 8 and the
// war sun, which needs its technology, are out), fighters 2 for 1 resource within capacity, 6
// resources in all. A label lists the types cheapest first (of equal cost, by name).
struct Written {
  const char* label;
  const char* units;
  int cost;
};
const Written kBuilds[] = {
    {"1 destroyer", "destroyer = 1", 1},
    {"2 destroyer", "destroyer = 2", 2},
    {"1 cruiser", "cruiser = 1", 2},
    {"1 destroyer, 1 cruiser", "destroyer = 1, cruiser = 1", 3},
    {"2 cruiser", "cruiser = 2", 4},
    {"1 carrier", "carrier = 1", 3},
    {"1 fighter, 1 carrier", "fighter = 1, carrier = 1", 4},
    {"2 fighter, 1 carrier", "fighter = 2, carrier = 1", 4},
    {"3 fighter, 1 carrier", "fighter = 3, carrier = 1", 5},
    {"4 fighter, 1 carrier", "fighter = 4, carrier = 1", 5},
    {"1 dreadnought", "dreadnought = 1", 4},
    {"1 fighter, 1 dreadnought", "fighter = 1, dreadnought = 1", 5},
    {"1 destroyer, 1 carrier", "destroyer = 1, carrier = 1", 4},
    {"1 destroyer, 1 fighter, 1 carrier", "fighter = 1, destroyer = 1, carrier = 1", 5},
    {"1 destroyer, 2 fighter, 1 carrier", "fighter = 2, destroyer = 1, carrier = 1", 5},
    {"1 destroyer, 3 fighter, 1 carrier", "fighter = 3, destroyer = 1, carrier = 1", 6},
    {"1 destroyer, 4 fighter, 1 carrier", "fighter = 4, destroyer = 1, carrier = 1", 6},
    {"1 destroyer, 1 dreadnought", "destroyer = 1, dreadnought = 1", 5},
    {"1 destroyer, 1 fighter, 1 dreadnought", "fighter = 1, destroyer = 1, dreadnought = 1", 6},
    {"1 cruiser, 1 carrier", "cruiser = 1, carrier = 1", 5},
    {"1 fighter, 1 cruiser, 1 carrier", "fighter = 1, cruiser = 1, carrier = 1", 6},
    {"2 fighter, 1 cruiser, 1 carrier", "fighter = 2, cruiser = 1, carrier = 1", 6},
    {"1 cruiser, 1 dreadnought", "cruiser = 1, dreadnought = 1", 6},
    {"2 carrier", "carrier = 2", 6},
};

const char* kSpec =
    R"(scenario = { ruleset = "ti4", procedure = "space_combat", attacker = {}, defender = { units = { cruiser = 2 } } }
side = "attacker"
resources = 6
fleet_supply = 2
objective = "win"
target = 0.5
)";

}  // namespace

TEST_CASE("optimise: the best build and the cheapest reaching a target equal a brute force",
          "[optimise]") {
  const fs::path dir = fs::temp_directory_path() / "rb_optimise_test";
  fs::create_directories(dir);
  std::ofstream(dir / "small.toml") << kSpec;
  SessionOptions so;
  so.root = kRoot;
  const OptimiseSpec spec = read_optimise(dir / "small.toml");
  OptimiseOptions o;
  o.threads = 2;
  const nlohmann::json r = run_optimise(spec, so, o);

  // the builds enumerated are exactly the ones written above, every one evaluated exactly
  std::set<std::string> got, want;
  for (const auto& b : r["builds"]) {
    got.insert(b["label"].get<std::string>());
    CHECK(b["method"] == "exact");
  }
  for (const Written& w : kBuilds) want.insert(w.label);
  CHECK(r["enumerated"] == std::size(kBuilds));
  CHECK(r["evaluated"] == std::size(kBuilds));
  CHECK(got == want);

  // the brute force: simulate --exact on each build
  struct Answer {
    std::string label;
    int cost;
    double p;
  };
  std::vector<Answer> brute;
  for (const Written& w : kBuilds) {
    Scenario s = scenario_from_table(
        toml::parse(std::string("ruleset = \"ti4\"\nprocedure = \"space_combat\"\nattacker = { "
                                "units = { ") +
                    w.units + " } }\ndefender = { units = { cruiser = 2 } }\n"),
        "inline", kRoot);
    const Session session = open_session(s, so);
    const Simulation sim(session);
    ExactRunOptions eo;
    eo.max_states = 200'000;
    brute.push_back({w.label, w.cost, sim.exact(eo).at("attacker_win").get<double>()});
  }
  const Answer best = *std::max_element(brute.begin(), brute.end(),
                                        [](const Answer& a, const Answer& b) { return a.p < b.p; });
  CHECK(r["builds"][0]["label"] == best.label);
  CHECK(r["builds"][0]["value"].get<double>() == Approx(best.p).margin(1e-12));
  for (const auto& b : r["builds"])
    for (const Answer& a : brute)
      if (a.label == b["label"]) CHECK(b["cost"] == a.cost);

  // the cheapest build that wins at least half the time (of equal cost, the likelier)
  const Answer* cheapest = nullptr;
  for (const Answer& a : brute)
    if (a.p >= 0.5 &&
        (!cheapest || a.cost < cheapest->cost || (a.cost == cheapest->cost && a.p > cheapest->p)))
      cheapest = &a;
  REQUIRE(cheapest);
  REQUIRE(!r["target_build"].is_null());
  CHECK(r["builds"][r["target_build"].get<std::size_t>()]["label"] == cheapest->label);
  fs::remove_all(dir);
}

// The Production step (Learn to Play, "Production"): a player cannot produce more units than the
// production value, each fighter and infantry counting. With production = 3 the legal builds are
// exactly those written above with at most 3 units (a hand count of their `units`).
TEST_CASE("optimise: a production limit keeps the builds of at most that many units",
          "[optimise]") {
  const fs::path dir = fs::temp_directory_path() / "rb_optimise_production_test";
  fs::create_directories(dir);
  std::ofstream(dir / "small.toml") << kSpec << "production = 3\nevaluate = 1\n";
  const OptimiseSpec spec = read_optimise(dir / "small.toml");
  CHECK(spec.production == 3);
  SessionOptions so;
  so.root = kRoot;
  OptimiseOptions o;
  o.threads = 1;
  const nlohmann::json r = run_optimise(spec, so, o);
  std::size_t want = 0;
  for (const Written& w : kBuilds) {
    int units = 0;
    for (const char* c = w.units; *c; ++c)
      if (*c >= '0' && *c <= '9') units += *c - '0';
    if (units <= 3) ++want;
  }
  CHECK(want < std::size(kBuilds));  // the limit leaves some out
  CHECK(r["enumerated"] == want);
  CHECK(r["optimise"]["production"] == 3);
  fs::remove_all(dir);
}

// The quick stage: against 4 destroyers (Anti-Fighter Barrage) fighters are worth less than their
// hits per round say. The brute force (every one of the 33 legal builds for 6 resources, fleet
// supply 3, answered exactly) puts "2 destroyer, 1 dreadnought" first by 18 points, but it is
// sixth by hits per round: evaluating the 3 most promising misses it; a Monte Carlo screen of
// every build (200 runs each) before those 3 are evaluated finds it.
TEST_CASE(
    "optimise: the quick Monte Carlo stage finds a build the hits-per-round order puts past "
    "evaluate",
    "[optimise]") {
  const fs::path dir = fs::temp_directory_path() / "rb_optimise_screen_test";
  fs::create_directories(dir);
  const std::string spec_text =
      "scenario = { ruleset = \"ti4\", procedure = \"space_combat\", attacker = {}, defender = { "
      "units = { destroyer = 4 } } }\nside = \"attacker\"\nresources = 6\nfleet_supply = 3\n";
  SessionOptions so;
  so.root = kRoot;
  OptimiseOptions o;
  o.threads = 2;
  auto run = [&](const std::string& extra) {
    std::ofstream(dir / "spec.toml") << spec_text << extra;
    return run_optimise(read_optimise(dir / "spec.toml"), so, o);
  };
  const nlohmann::json brute = run("evaluate = 1000\n");
  REQUIRE(brute["enumerated"] == 33);
  CHECK(brute["screened"] == 0);  // every build evaluated: nothing to screen
  const std::string best = brute["builds"][0]["label"];
  CHECK(best == "2 destroyer, 1 dreadnought");
  for (const auto& b : brute["builds"]) REQUIRE(b["method"] == "exact");

  const nlohmann::json by_promise = run("evaluate = 3\nscreen = 0\n");
  CHECK(by_promise["screened"] == 0);
  for (const auto& b : by_promise["builds"]) CHECK(b["label"] != best);

  const nlohmann::json screened = run("evaluate = 3\n");
  CHECK(screened["screened"] == 33);
  CHECK(screened["evaluated"] == 3);
  CHECK(screened["optimise"]["screen_runs"] == 200);
  CHECK(screened["builds"][0]["label"] == best);
  CHECK(screened["builds"][0]["value"].get<double>() ==
        Approx(brute["builds"][0]["value"].get<double>()).margin(1e-12));
  CHECK(screened["builds"][0].contains("screen_value"));
  fs::remove_all(dir);
}
