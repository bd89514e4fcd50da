// The exact mode against Monte Carlo on every scenario the repository ships (issue 18: "Monte
// Carlo within 4 standard errors of --exact on every scenario in content/*/scenarios/"), and on
// the TI4 combat (b) with cards whose hooks are live (a round's modifier that ends with the round,
// a repair that undoes damage, cancelled hits, a retreat policy). Each reported probability and
// mean with an interval is compared: |simulated - exact| within four standard errors of n
// simulated runs (sqrt(p (1 - p) / n) for a probability; the interval's half-width / 1.96 for a
// mean). Fixed seeds, so the test is deterministic; a correct engine fails one check in about
// 16 000. The slow cases (faction abilities that read every die, a Red Alert combat phase, an
// X-Wing engagement: 20 to 60 s of exploration each) are in their own test case.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "sim/compare.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

void agree(const Session& session, const std::string& what, std::uint64_t runs) {
  const Simulation sim(session);
  // a scenario whose [play] asks best play has no Monte Carlo answer (docs/exact.md): the same
  // battle with its policies is a scenario of its own (best_play_b.toml is bench_b.toml's)
  if (!sim.scenario_best().empty()) return;
  const nlohmann::json exact = sim.exact(ExactRunOptions{});
  SimOptions o;
  o.runs = runs;
  o.seed = 20261124;
  o.threads = 2;
  const nlohmann::json mc = sim.report(sim.run(o), o.seed);
  const double n = static_cast<double>(runs);
  CHECK(exact.at("unresolved").get<double>() < 1e-9);
  const ReportDef& def = sim.report_def();
  std::vector<std::string> probabilities = def.outcomes;
  for (const auto& [key, metric] : def.probabilities) probabilities.push_back(key);
  for (const std::string& key : probabilities) {
    const double p = exact.at(key).get<double>(), got = mc.at(key).get<double>();
    const double tolerance = 4.0 * std::sqrt(std::max(p * (1 - p), 1.0 / n) / n);
    INFO(what << " " << key << ": exact " << p << ", simulated " << got << ", tolerance "
              << tolerance);
    CHECK(std::abs(got - p) <= tolerance);
  }
  for (const auto& [key, metric] : def.means) {
    if (!mc.at("ci95").contains(key)) continue;
    const auto& ci = mc.at("ci95").at(key);
    const double se = (ci[1].get<double>() - ci[0].get<double>()) / 2 / 1.959963984540054;
    const double m = exact.at(key).get<double>(), got = mc.at(key).get<double>();
    INFO(what << " " << key << ": exact " << m << ", simulated " << got << ", tolerance "
              << 4 * se);
    CHECK(std::abs(got - m) <= 4 * se + 1e-12);
  }
}

std::vector<fs::path> scenarios(bool slow) {
  static const std::vector<std::string> kSlow = {"bench_f.toml", "bench_g.toml",
                                                 "engagement_demo.toml"};
  std::vector<fs::path> out;
  for (const auto& pack : fs::directory_iterator(fs::path(RB_SOURCE_DIR) / "content")) {
    const fs::path dir = pack.path() / "scenarios";
    if (!fs::is_directory(dir)) continue;
    for (const auto& f : fs::directory_iterator(dir)) {
      if (f.path().extension() != ".toml") continue;
      const bool is_slow =
          std::find(kSlow.begin(), kSlow.end(), f.path().filename().string()) != kSlow.end();
      if (is_slow == slow) out.push_back(f.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("exact mode: Monte Carlo agrees with it on every shipped scenario",
          "[exact][exact_mode][agreement]") {
  const auto files = scenarios(false);
  REQUIRE(files.size() >= 15);
  for (const fs::path& f : files)
    agree(open_session(read_scenario(f), rb::testing::repo_session_options()), f.string(), 40'000);
}

TEST_CASE("exact mode: Monte Carlo agrees with it on the slow shipped scenarios",
          "[exact][exact_mode][agreement][slow]") {
  const auto files = scenarios(true);
  REQUIRE(files.size() == 3);
  for (const fs::path& f : files)
    agree(open_session(read_scenario(f), rb::testing::repo_session_options()), f.string(), 20'000);
}

TEST_CASE("exact mode: Monte Carlo agrees with it when the cards' hooks are live",
          "[exact][exact_mode][agreement]") {
  const fs::path b = fs::path(RB_SOURCE_DIR) / "content/ti4-base/scenarios/bench_b.toml";
  const Session base = open_session(read_scenario(b), rb::testing::repo_session_options());
  for (const char* change :
       {"attacker:morale_boost", "attacker:duranium_armor", "defender:shields_holding",
        "attacker:assault_cannon", "attacker:policy.retreat=2", "defender:fighter_prototype"}) {
    const Session s =
        apply_changes(base, Changes{{change}, {}}, rb::testing::repo_session_options());
    agree(s, change, 40'000);
  }
}
