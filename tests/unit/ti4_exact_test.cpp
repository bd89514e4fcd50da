// TI4 space combat against its exact answer: 2 cruisers attacking 1 dreadnought, default
// policies (content/ti4-base/scenarios/cruisers_vs_dreadnought.toml). The exact outcome
// probabilities come from a Markov chain over (cruisers left, dreadnought damaged or not):
// attacker 0.448547, draw 0.140896, defender 0.410557. A fixed-seed simulation of 10^6 combats
// must land within four standard errors of each, sqrt(p (1 - p) / n): about 0.0020 for the
// attacker and the defender and 0.0014 for the draw. A correct engine fails this about once in
// 16,000 seeds; a seed is fixed, so the test is deterministic.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

TEST_CASE("ti4 space combat: 2 cruisers against 1 dreadnought matches the exact Markov chain",
          "[ti4][exact]") {
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session = open_session(
      read_scenario(root / "content/ti4-base/scenarios/cruisers_vs_dreadnought.toml"), so);
  Simulation sim(session);

  SimOptions options;
  options.runs = 1'000'000;
  options.seed = 20240603;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  const nlohmann::json report = sim.report(tally, options.seed);

  const double n = static_cast<double>(options.runs);
  struct Exact {
    const char* outcome;
    double p;
  };
  double total = 0;
  for (const Exact& e : {Exact{"attacker_win", 0.448547}, Exact{"draw", 0.140896},
                         Exact{"defender_win", 0.410557}}) {
    const double got = report.at(e.outcome).get<double>();
    const double tolerance = 4.0 * std::sqrt(e.p * (1.0 - e.p) / n);  // four standard errors
    INFO(e.outcome << ": simulated " << got << ", exact " << e.p << ", tolerance " << tolerance);
    CHECK(std::abs(got - e.p) <= tolerance);
    total += got;
  }
  CHECK(total == Approx(1.0).epsilon(1e-9));  // every run ends in one of the three outcomes
}
