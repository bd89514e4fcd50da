// TI4 ground combat against its exact answer: 3 infantry invade a planet held by 2 infantry and
// a mech (content/ti4-base/scenarios/invasion_ground_combat.toml), default policies: the mech
// uses Sustain Damage on the first hit, infantry are lost before the mech. The exact probability
// that the invader controls the planet afterwards comes from a Markov chain over (invading
// infantry, defending infantry, the mech's hit points), computed below independently of the
// engine: 0.138817. A fixed-seed simulation of 2 x 10^5 tactical actions must land within four
// standard errors, sqrt(p (1 - p) / n), about 0.0031. The seed is fixed: the test is deterministic.
// A second case bombards first (invasion_bombardment.toml): exact 0.247013, tolerance about 0.0039.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "same_numbers.hpp"

#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

// P(k hits) for n dice that each hit with probability p
std::vector<double> binomial(int n, double p) {
  std::vector<double> out(static_cast<std::size_t>(n) + 1, 0.0);
  out[0] = 1.0;
  for (int i = 0; i < n; ++i)
    for (int k = i + 1; k >= 0; --k)
      out[static_cast<std::size_t>(k)] = out[static_cast<std::size_t>(k)] * (1 - p) +
                                         (k > 0 ? out[static_cast<std::size_t>(k - 1)] * p : 0.0);
  return out;
}

// The probability that the invader ends with ground forces on the planet, from (a invading
// infantry, d defending infantry, m the mech's hit points: 2 undamaged, 1 damaged, 0 dead).
struct GroundChain {
  bool mech_first = false;  // the defender's hit_order loses the mech first, without sustaining
  std::array<std::array<std::array<double, 3>, 4>, 4> memo{};
  std::array<std::array<std::array<bool, 3>, 4>, 4> known{};

  double win(int a, int d, int m) {
    if (a == 0) return 0.0;  // both wiped out too: the defender keeps the planet
    if (d == 0 && m == 0) return 1.0;
    auto& slot =
        memo[static_cast<std::size_t>(a)][static_cast<std::size_t>(d)][static_cast<std::size_t>(m)];
    if (known[static_cast<std::size_t>(a)][static_cast<std::size_t>(d)]
             [static_cast<std::size_t>(m)])
      return slot;
    const std::vector<double> on_defender = binomial(a, 0.3);  // infantry hit on 8+
    std::vector<double> on_attacker = binomial(d, 0.3);
    if (m > 0) {  // the mech rolls one die, hitting on 6+
      std::vector<double> with(on_attacker.size() + 1, 0.0);
      for (std::size_t k = 0; k < on_attacker.size(); ++k) {
        with[k] += on_attacker[k] * 0.5;
        with[k + 1] += on_attacker[k] * 0.5;
      }
      on_attacker = with;
    }
    double stay = 0, rest = 0;
    for (std::size_t i = 0; i < on_defender.size(); ++i)
      for (std::size_t j = 0; j < on_attacker.size(); ++j) {
        const double p = on_defender[i] * on_attacker[j];
        int h = static_cast<int>(i), dd = d, mm = m;
        if (mech_first && mm > 0 && h > 0) mm = 0, --h;  // the mech is lost first
        if (mm == 2 && h > 0) mm = 1, --h;               // Sustain Damage first
        const int k = std::min(h, dd);                   // then infantry, then the mech
        dd -= k, h -= k;
        if (h > 0) mm = 0;
        const int na = std::max(0, a - static_cast<int>(j));
        if (na == a && dd == d && mm == m)
          stay += p;
        else
          rest += p * win(na, dd, mm);
      }
    known[static_cast<std::size_t>(a)][static_cast<std::size_t>(d)][static_cast<std::size_t>(m)] =
        true;
    return slot = rest / (1 - stay);
  }
};

// The simulated probability that the active player controls the planet: 2 x 10^5 runs, fixed seed.
constexpr double kRuns = 200'000;
double simulated_control(const char* scenario) {
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session = open_session(read_scenario(root / scenario), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = static_cast<std::uint64_t>(kRuns);
  options.seed = 20261123;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  return sim.report(tally, options.seed).at("planet_1_controlled").get<double>();
}

}  // namespace

TEST_CASE(
    "ti4 ground combat: 3 infantry against 2 infantry and a mech matches the exact Markov chain",
    "[ti4][exact][invasion]") {
  const double exact = GroundChain{}.win(3, 2, 2);
  CHECK(exact == Approx(0.138817).margin(1e-6));  // the chain itself, as computed by hand
  const double got = simulated_control("content/ti4-base/scenarios/invasion_ground_combat.toml");
  const double tolerance = 4.0 * std::sqrt(exact * (1.0 - exact) / kRuns);  // four standard errors
  INFO("simulated " << got << ", exact " << exact << ", tolerance " << tolerance);
  CHECK(std::abs(got - exact) <= tolerance);
}

// Bombardment first: a dreadnought's Bombardment 5 (a hit with probability 0.6) is absorbed by the
// mech's Sustain Damage, so the ground combat starts from (3, 2, damaged mech) or (3, 2, mech).
TEST_CASE("ti4 invasion: bombardment then ground combat matches the exact Markov chain",
          "[ti4][exact][invasion]") {
  GroundChain chain;
  const double exact = 0.6 * chain.win(3, 2, 1) + 0.4 * chain.win(3, 2, 2);
  CHECK(exact == Approx(0.247013).margin(1e-6));
  const double got = simulated_control("content/ti4-base/scenarios/invasion_bombardment.toml");
  const double tolerance = 4.0 * std::sqrt(exact * (1.0 - exact) / kRuns);
  INFO("simulated " << got << ", exact " << exact << ", tolerance " << tolerance);
  CHECK(std::abs(got - exact) <= tolerance);
}

TEST_CASE("exact mode: the ground combat and the bombardment before it equal the chain to 1e-9",
          "[ti4][exact][invasion][exact_mode]") {
  GroundChain chain;
  const double ground = chain.win(3, 2, 2);
  const double bombarded = 0.6 * chain.win(3, 2, 1) + 0.4 * chain.win(3, 2, 2);
  const auto control = [](const char* scenario) {
    return rb::testing::exact_report(scenario).at("planet_1_controlled").get<double>();
  };
  CHECK(std::abs(control("content/ti4-base/scenarios/invasion_ground_combat.toml") - ground) <
        1e-9);
  CHECK(std::abs(control("content/ti4-base/scenarios/invasion_bombardment.toml") - bombarded) <
        1e-9);
}

// Ground combat losses follow the player's hit_order: the defender loses its mech first and
// never sustains (the C++ rounds of ctx:exchange_fire and the exact mode both take the order).
TEST_CASE("exact mode: ground combat losses follow the defender's hit_order (the mech first)",
          "[ti4][exact][invasion][exact_mode]") {
  GroundChain chain;
  chain.mech_first = true;
  const double exact = chain.win(3, 2, 2);
  GroundChain plain;
  REQUIRE(std::abs(exact - plain.win(3, 2, 2)) > 0.01);  // the order matters here
  const double got = rb::testing::exact_report("tests/fixtures/ground/mech_first.toml")
                         .at("planet_1_controlled")
                         .get<double>();
  INFO("exact mode " << got << ", chain " << exact);
  CHECK(std::abs(got - exact) < 1e-9);
}

TEST_CASE("exact mode: a ground combat whose rounds run in Lua (a live hook) equals the chain",
          "[ti4][exact][invasion][exact_mode]") {
  // issue 27: with a hook on a ground combat window the rounds looped inside one step, and the
  // exact mode never ended (the way where every die misses); now each round is a step
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  so.search = {root / "tests" / "fixtures" / "ground"};
  const Session session =
      open_session(read_scenario(root / "tests/fixtures/ground/invasion_idle_hook.toml"), so);
  ExactRunOptions o;
  o.seconds = 30;
  const nlohmann::json r = Simulation(session).exact(o);
  CHECK(std::abs(r.at("planet_1_controlled").get<double>() - GroundChain{}.win(3, 2, 2)) < 1e-9);
}

namespace {

// tests/fixtures/ground/round_end_roll/: the probability that the attacker takes the planet from
// (a attacking infantry, d defending infantry), each hitting on 8+ (0.3), with a hook at the end
// of each round, and of the last, that rolls two dice hitting on 7+ (0.4) while the defender has
// infantry, each hit one of them destroyed. A round that leaves the state as it was repeats: its
// chance is divided out.
double takes_with_round_end_roll(int a, int d, std::map<std::pair<int, int>, double>& memo) {
  if (auto it = memo.find({a, d}); it != memo.end()) return it->second;
  const std::vector<double> on_d = binomial(a, 0.3), on_a = binomial(d, 0.3),
                            hook = binomial(2, 0.4);
  double stay = 0, rest = 0;
  for (std::size_t i = 0; i < on_d.size(); ++i)
    for (std::size_t j = 0; j < on_a.size(); ++j)
      for (std::size_t h = 0; h < hook.size(); ++h) {
        const double p = on_d[i] * on_a[j] * hook[h];
        const int a2 = std::max(0, a - static_cast<int>(j));
        const int d2 = std::max(0, d - static_cast<int>(i));
        const int d3 = std::max(0, d2 - static_cast<int>(h));
        if (a2 == 0) continue;  // (the hook after the last round changes nothing of this)
        if (d3 == 0)
          rest += p;
        else if (a2 == a && d3 == d)
          stay += p;
        else
          rest += p * takes_with_round_end_roll(a2, d3, memo);
      }
  return memo[{a, d}] = rest / (1 - stay);
}

// Every number of the exact report of `file` (tests/fixtures/ground/), with the rounds run in C++
// (the end window's hooks in them) and with every round the procedure's own in Lua
// (EngineOptions::exchange_fire off): equal to 1e-9. Returns the C++ one.
nlohmann::json exact_as_in_lua(const char* file) {
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  so.search = {root / "tests" / "fixtures" / "ground"};
  const Session session = open_session(read_scenario(root / "tests/fixtures/ground" / file), so);
  EngineOptions in_lua;
  in_lua.exchange_fire = false;
  const nlohmann::json lua = Simulation(session).exact(ExactRunOptions{}, in_lua);
  const nlohmann::json cpp = Simulation(session).exact(ExactRunOptions{});
  INFO(file);
  const std::size_t compared = rb::testing::check_same_numbers(cpp, lua);
  CHECK(compared > 5);
  return cpp;
}

}  // namespace

TEST_CASE(
    "exact mode: a hook at a ground round's end that rolls dice runs once per state the round "
    "left, for each way its dice fall; one that also writes to the run hands the round back",
    "[ti4][exact][invasion][exact_mode]") {
  // the end window's hooks run apart from the round's dice (enumerate_round, kept by the state
  // the round left): their dice are every way they fall, from every state
  std::map<std::pair<int, int>, double> memo;
  const double takes = takes_with_round_end_roll(3, 3, memo);
  REQUIRE(takes > 0.5);  // the hook matters: 3 against 3 is even without it
  const nlohmann::json roll = exact_as_in_lua("round_end_roll.toml");
  CHECK(std::abs(roll.at("attacker_takes_the_planet").get<double>() - takes) < 1e-9);
  // a hook whose write to the run (a metric) differs with its dice: not in the state the round
  // leaves, so the round is the procedure's (the metric counts the hook's hits as well)
  const nlohmann::json metric = exact_as_in_lua("round_end_metric.toml");
  CHECK(std::abs(metric.at("attacker_takes_the_planet").get<double>() - takes) < 1e-9);
  CHECK(metric.at("ground_rounds_mean").get<double>() >
        roll.at("ground_rounds_mean").get<double>() + 0.5);
}
