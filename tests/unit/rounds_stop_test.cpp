// A TI4 scenario's rounds = k (simulate --rounds k): every combat stops after round k with the
// outcome "ongoing", and the report gives the state then. Bench (a), 3 destroyers against 2
// cruisers, stopped after round 1: each side's hits in round 1 are binomial (a die hits on
// combat value or more: (11 - combat) / 10, destroyers 9: 0.2, cruisers 7: 0.4), and each hit
// destroys one unit, so the state after round 1 is known in closed form.
#include <catch2/catch.hpp>

#include <cmath>

#include "fixtures.hpp"
#include "sim/changes.hpp"
#include "sim/compare.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

double binomial(int n, int k, double p) {
  double c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c * std::pow(p, k) * std::pow(1 - p, n - k);
}

Session bench_a(const std::vector<std::string>& with) {
  const SessionOptions so = rb::testing::repo_session_options();
  const Session base =
      open_session(read_scenario(so.root / "content/ti4-base/scenarios/bench_a.toml"), so);
  Changes changes;
  changes.with = with;
  return with.empty() ? base : apply_changes(base, changes, so);
}

// P(k units left) for each side after round 1: destroyers 3 - (cruiser hits), cruisers
// 2 - min(destroyer hits, 2)
struct AfterRound1 {
  double destroyers[4] = {}, cruisers[3] = {};
  double attacker_win = 0;  // every cruiser destroyed (a destroyer is always left: 2 hits at most)
  AfterRound1() {
    for (int h = 0; h <= 2; ++h) destroyers[3 - h] += binomial(2, h, 0.4);
    for (int h = 0; h <= 3; ++h) cruisers[2 - std::min(h, 2)] += binomial(3, h, 0.2);
    attacker_win = cruisers[0];
  }
};

}  // namespace

TEST_CASE("rounds = 1: the exact mode's state after round 1 is the binomials' to 1e-12",
          "[ti4][exact][rounds]") {
  const AfterRound1 e;
  CHECK(e.attacker_win == Approx(0.104).margin(1e-12));  // 3 * 0.2^2 * 0.8 + 0.2^3
  const Session session = bench_a({"scenario:rounds=1"});
  const nlohmann::json r = Simulation(session).exact(ExactRunOptions{});
  REQUIRE(r.at("method") == "exact");
  CHECK(r.at("unresolved").get<double>() < 1e-12);
  CHECK(std::abs(r.at("attacker_win").get<double>() - e.attacker_win) < 1e-12);
  CHECK(std::abs(r.at("ongoing").get<double>() - (1 - e.attacker_win)) < 1e-12);
  CHECK(r.at("draw").get<double>() < 1e-12);
  CHECK(r.at("defender_win").get<double>() < 1e-12);
  CHECK(std::abs(r.at("rounds_mean").get<double>() - 1.0) < 1e-12);
  const auto& d = r.at("survivors").at("attacker").at("destroyer");
  const auto& c = r.at("survivors").at("defender").at("cruiser");
  REQUIRE(d.size() >= 4);
  REQUIRE(c.size() >= 3);
  for (int k = 0; k <= 3; ++k) {
    INFO("destroyers left " << k);
    CHECK(std::abs(d[static_cast<std::size_t>(k)].get<double>() - e.destroyers[k]) < 1e-12);
  }
  for (int k = 0; k <= 2; ++k) {
    INFO("cruisers left " << k);
    CHECK(std::abs(c[static_cast<std::size_t>(k)].get<double>() - e.cruisers[k]) < 1e-12);
  }
}

TEST_CASE("rounds = 1: Monte Carlo agrees with the state after round 1", "[ti4][rounds]") {
  const AfterRound1 e;
  const Session session = bench_a({"scenario:rounds=1"});
  const Simulation sim(session);
  SimOptions o;
  o.runs = 200'000;
  o.seed = 29;
  o.threads = 2;
  const nlohmann::json r = sim.report(sim.run(o), o.seed);
  const double n = static_cast<double>(o.runs);
  auto near = [&](double got, double p) {  // within four standard errors
    INFO("simulated " << got << ", exact " << p);
    CHECK(std::abs(got - p) <= 4 * std::sqrt(p * (1 - p) / n) + 1e-12);
  };
  near(r.at("ongoing").get<double>(), 1 - e.attacker_win);
  for (int k = 0; k <= 3; ++k)
    near(r["survivors"]["attacker"]["destroyer"][static_cast<std::size_t>(k)].get<double>(),
         e.destroyers[k]);
  CHECK(r.at("rounds_mean").get<double>() == Approx(1.0));
}

TEST_CASE("report: an only_when_any outcome is printed only when some run ends in it",
          "[ti4][rounds][simulate]") {
  // bench (a) as written: no run is stopped, so no "ongoing" line (the JSON still has it, 0)
  {
    const Session session = bench_a({});
    const Simulation sim(session);
    const nlohmann::json r = sim.exact(ExactRunOptions{});
    CHECK(r.at("ongoing").get<double>() == 0.0);
    const std::string text = format_report(r, sim.report_def());
    CHECK(text.find("attacker_win") != std::string::npos);
    CHECK(text.find("ongoing") == std::string::npos);
  }
  // stopped after round 1: the line is there
  {
    const Session session = bench_a({"scenario:rounds=1"});
    const Simulation sim(session);
    const std::string text = format_report(sim.exact(ExactRunOptions{}), sim.report_def());
    CHECK(text.find("  ongoing") != std::string::npos);
  }
}

// compare --rounds k: arm A is the scenario with the stop, arm B that with the change (Morale
// Boost: +1 to every combat roll, destroyers hit on 8: 0.3). The resources each side lost until
// the stop are the round's hits: a destroyer 2 half resources, a cruiser 4.
TEST_CASE("compare --rounds 1: both arms stop after round 1; resources lost are round 1's",
          "[ti4][exact][rounds][compare]") {
  const Session stopped = bench_a({"scenario:rounds=1"});
  Changes boost;
  boost.with = {"attacker:morale_boost"};
  const Session boosted = apply_changes(stopped, boost, rb::testing::repo_session_options());
  const nlohmann::json r = exact_comparison(stopped, boosted, boost, ExactRunOptions{});
  auto win = [](double p) { return 3 * p * p * (1 - p) + p * p * p; };  // 2 or 3 of 3 dice hit
  const nlohmann::json& a = r.at("a");
  const nlohmann::json& b = r.at("b");
  CHECK(std::abs(a.at("attacker_win").get<double>() - win(0.2)) < 1e-12);
  CHECK(std::abs(b.at("attacker_win").get<double>() - win(0.3)) < 1e-12);
  CHECK(std::abs(b.at("ongoing").get<double>() - (1 - win(0.3))) < 1e-12);
  // the cruisers' 2 dice at 0.4 destroy 0.8 destroyers on average in both arms
  CHECK(std::abs(a.at("attacker_half_resources_lost").get<double>() - 2 * 0.8) < 1e-12);
  CHECK(std::abs(b.at("attacker_half_resources_lost").get<double>() - 2 * 0.8) < 1e-12);
  // the destroyers' hits destroy min(hits, 2) cruisers
  auto lost = [&](double p) {
    double e = 0;
    for (int h = 0; h <= 3; ++h) e += std::min(h, 2) * binomial(3, h, p);
    return 4 * e;
  };
  CHECK(std::abs(a.at("defender_half_resources_lost").get<double>() - lost(0.2)) < 1e-12);
  CHECK(std::abs(b.at("defender_half_resources_lost").get<double>() - lost(0.3)) < 1e-12);
}
