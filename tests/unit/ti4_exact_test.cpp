// TI4 space combat against its exact answer: 2 cruisers attacking 1 dreadnought, default
// policies (content/ti4-base/scenarios/cruisers_vs_dreadnought.toml). The exact outcome
// probabilities come from a Markov chain over (cruisers left, dreadnought damaged or not):
// attacker 0.448547, draw 0.140896, defender 0.410557. A fixed-seed simulation of 10^6 combats
// must land within four standard errors of each, sqrt(p (1 - p) / n): about 0.0020 for the
// attacker and the defender and 0.0014 for the draw. A correct engine fails this about once in
// 16,000 seeds; a seed is fixed, so the test is deterministic.
#include <catch2/catch.hpp>

#include <cmath>

#include "fixtures.hpp"
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

namespace {

// The chain of the header, solved to double precision: (cruisers left c, dreadnought d: 2
// undamaged, 1 damaged, 0 gone); each round c dice hit on 7 (0.4), the dreadnought's one on 5
// (0.6); the dreadnought sustains its first hit; a round where nobody is hit is divided out.
struct Outcome {
  double attacker = 0, draw = 0, defender = 0;
};
Outcome cruisers_vs_dreadnought(int c, int d) {
  if (c == 0 || d == 0) return {c > 0 ? 1.0 : 0.0, c == 0 && d == 0 ? 1.0 : 0.0, d > 0 ? 1.0 : 0.0};
  std::vector<double> hits(1, 1.0);  // the cruisers' hits: Binomial(c, 0.4)
  for (int i = 0; i < c; ++i) {
    hits.push_back(0.0);
    for (std::size_t j = hits.size() - 1; j > 0; --j) hits[j] = hits[j] * 0.6 + hits[j - 1] * 0.4;
    hits[0] *= 0.6;
  }
  const double stay = hits[0] * 0.4;
  Outcome o;
  for (std::size_t h = 0; h < hits.size(); ++h)
    for (int k = 0; k <= 1; ++k) {  // the dreadnought misses (0) or hits (1)
      if (h == 0 && k == 0) continue;
      const double p = hits[h] * (k ? 0.6 : 0.4) / (1 - stay);
      const Outcome next = cruisers_vs_dreadnought(c - k, std::max(0, d - static_cast<int>(h)));
      o.attacker += p * next.attacker, o.draw += p * next.draw, o.defender += p * next.defender;
    }
  return o;
}

}  // namespace

TEST_CASE("exact mode: 2 cruisers against 1 dreadnought equals the Markov chain to 1e-9",
          "[ti4][exact][exact_mode]") {
  const Outcome e = cruisers_vs_dreadnought(2, 2);
  CHECK(e.attacker == Approx(0.448547).margin(1e-6));  // the header's figures
  CHECK(e.draw == Approx(0.140896).margin(1e-6));
  CHECK(e.defender == Approx(0.410557).margin(1e-6));
  const nlohmann::json r =
      rb::testing::exact_report("content/ti4-base/scenarios/cruisers_vs_dreadnought.toml");
  CHECK(r.at("method") == "exact");
  CHECK(std::abs(r.at("attacker_win").get<double>() - e.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - e.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - e.defender) < 1e-9);
  CHECK(r.at("unresolved").get<double>() < 1e-12);
}
