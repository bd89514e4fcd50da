// The red_alert ruleset against values enumerated here, independently of its Lua: a standard
// cruiser squadron (strike) fires at range 3 (2 battle dice) at a standard cruiser squadron
// (strike, 3 figures), no features, no stars on either side
// (content/red-alert-core/scenarios/exact_cruiser_r3.toml). The battle die has six faces, one
// each: circle, triangle, square, blast, star, red alert. Against a strike class unit from a
// strike class unit a triangle or a blast is a hit (no blast is ignored); figures lost are
// min(hits, 3); the target retires 2 hexes per red alert when it has at least one hit (it has
// no stars to repair, no flagship near, and the 2 hexes towards its baseline are free); the
// attacker collects one star per star rolled. Enumerating the 36 outcomes: E[lost] = 2/3,
// P(retire) = 1/9, E[retire hexes] = 2/9, E[stars] = 1/3.
// Tolerance: four standard errors of the mean of n = 400 000 runs, from the exact variances
// (about 0.0036 for the figures lost, 0.0020 for P(retire)); the seed is fixed, so the test is
// deterministic.
#include <catch2/catch.hpp>

#include "fixtures.hpp"

#include <array>
#include <cmath>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

enum Face { circle, triangle, square, blast, star, red_alert };

struct Moments {
  double mean = 0, square = 0;
  double variance() const { return square - mean * mean; }
};

}  // namespace

TEST_CASE(
    "red_alert unit combat: a cruiser at range 3 against a strike squadron matches enumeration",
    "[red_alert][exact]") {
  // the enumeration
  const int dice = 2, figures = 3;
  Moments lost, retire, hexes, stars;
  std::array<double, 4> lost_p{};
  const int outcomes = 36;
  for (int o = 0; o < outcomes; ++o) {
    int hits = 0, alerts = 0, st = 0;
    for (int d = 0, x = o; d < dice; ++d, x /= 6) {
      const int f = x % 6;
      hits += (f == triangle || f == blast) ? 1 : 0;
      alerts += f == red_alert ? 1 : 0;
      st += f == star ? 1 : 0;
    }
    const double p = 1.0 / outcomes;
    const int l = std::min(hits, figures);
    const bool r = hits > 0 && alerts > 0 && l < figures;
    const int h = r ? 2 * alerts : 0;
    lost.mean += p * l, lost.square += p * l * l;
    retire.mean += p * r, retire.square += p * r;
    hexes.mean += p * h, hexes.square += p * h * h;
    stars.mean += p * st, stars.square += p * st * st;
    lost_p[static_cast<std::size_t>(l)] += p;
  }
  REQUIRE(std::abs(lost.mean - 2.0 / 3.0) < 1e-12);
  REQUIRE(std::abs(retire.mean - 1.0 / 9.0) < 1e-12);
  REQUIRE(std::abs(stars.mean - 1.0 / 3.0) < 1e-12);

  // the simulation
  const fs::path root = default_root();
  SessionOptions so;
  so.root = root;
  Session session = open_session(
      read_scenario(root / "content/red-alert-core/scenarios/exact_cruiser_r3.toml"), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = 400'000;
  options.seed = 20261123;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  const nlohmann::json report = sim.report(tally, options.seed);
  const double n = static_cast<double>(options.runs);

  struct Check {
    const char* key;
    const Moments& m;
  };
  for (const Check& c : {Check{"expected_figures_lost", lost}, Check{"retire", retire},
                         Check{"expected_retire_hexes", hexes}, Check{"expected_stars", stars}}) {
    const double got = report.at(c.key).get<double>();
    const double tolerance = 4.0 * std::sqrt(c.m.variance() / n);
    INFO(c.key << ": simulated " << got << ", exact " << c.m.mean << ", tolerance " << tolerance);
    CHECK(std::abs(got - c.m.mean) < tolerance);
  }
  const auto& dist = report.at("figures_lost");
  REQUIRE(dist.size() == 3);  // 0, 1 or 2 figures: two dice
  for (std::size_t k = 0; k < 3; ++k) {
    const double got = dist[k].get<double>(), p = lost_p[k];
    INFO("P(figures lost = " << k << "): simulated " << got << ", exact " << p);
    CHECK(std::abs(got - p) < 4.0 * std::sqrt(p * (1.0 - p) / n));
  }
  CHECK(report.at("combat").get<double>() == 1.0);
  CHECK(report.at("eliminated").get<double>() == 0.0);
}

TEST_CASE("exact mode: the cruiser at range 3 equals its enumeration to 1e-12",
          "[red_alert][exact][exact_mode]") {
  const nlohmann::json r =
      rb::testing::exact_report("content/red-alert-core/scenarios/exact_cruiser_r3.toml");
  CHECK(std::abs(r.at("expected_figures_lost").get<double>() - 2.0 / 3.0) < 1e-12);
  CHECK(std::abs(r.at("retire").get<double>() - 1.0 / 9.0) < 1e-12);
  CHECK(std::abs(r.at("expected_retire_hexes").get<double>() - 2.0 / 9.0) < 1e-12);
  CHECK(std::abs(r.at("expected_stars").get<double>() - 1.0 / 3.0) < 1e-12);
}
