// TI4 faction abilities against exact answers: Sardakk N'orr (Unrelenting: +1 to combat rolls)
// attacks the Universities of Jol-Nar (Fragile: -1) with the same fleet, a dreadnought and 2
// cruisers each (content/ti4-base/scenarios/sardakk_vs_jol_nar.toml), default policies (Sustain
// Damage first; cruisers lost before the dreadnought). The exact outcome probabilities are
// computed here, independently of the engine, by enumerating the Markov chain over (cruisers
// left, dreadnought healthy / damaged / destroyed) for each side: each round every unit rolls
// one d10 (cruiser 7, dreadnought 5, shifted by the faction's modifier), hits are simultaneous.
// A fixed-seed simulation of 10^6 combats must land within four standard errors of each.
#include <catch2/catch.hpp>

#include "fixtures.hpp"

#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

// A side: cruisers left and its dreadnought (2 healthy, 1 damaged, 0 destroyed).
struct Side {
  int cruisers;
  int dreadnought;
  bool alive() const { return cruisers > 0 || dreadnought > 0; }
  int dice() const { return cruisers + (dreadnought > 0 ? 1 : 0); }
};

// The chance that a d10 plus `modifier` reaches `value`.
double hit_chance(int value, int modifier) {
  int faces = 0;
  for (int die = 1; die <= 10; ++die) faces += die + modifier >= value ? 1 : 0;
  return faces / 10.0;
}

// The distribution of hits a side rolls: its cruisers and its dreadnought.
std::vector<double> hits(const Side& s, int modifier) {
  std::vector<double> dist{1.0};
  auto add_die = [&](double p) {
    std::vector<double> next(dist.size() + 1, 0.0);
    for (std::size_t k = 0; k < dist.size(); ++k) {
      next[k] += dist[k] * (1 - p);
      next[k + 1] += dist[k] * p;
    }
    dist = next;
  };
  for (int i = 0; i < s.cruisers; ++i) add_die(hit_chance(7, modifier));
  if (s.dreadnought > 0) add_die(hit_chance(5, modifier));
  return dist;
}

// Hits taken with Sustain Damage first: the healthy dreadnought absorbs one, then cruisers are
// lost, then the damaged dreadnought.
Side take(Side s, int n) {
  if (n > 0 && s.dreadnought == 2) s.dreadnought = 1, --n;
  const int lost = std::min(n, s.cruisers);
  s.cruisers -= lost;
  n -= lost;
  if (n > 0) s.dreadnought = 0;
  return s;
}

struct Outcome {
  double attacker = 0, draw = 0, defender = 0;
};

// Outcome probabilities from a state, a round at a time; the round in which nobody is hit
// repeats, so its probability is divided out.
Outcome solve(Side a, Side d, int mod_a, int mod_d, std::map<std::array<int, 4>, Outcome>& memo) {
  if (!a.alive() || !d.alive()) {
    Outcome o;
    (a.alive() ? o.attacker : d.alive() ? o.defender : o.draw) = 1;
    return o;
  }
  const std::array<int, 4> key{a.cruisers, a.dreadnought, d.cruisers, d.dreadnought};
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const std::vector<double> ha = hits(a, mod_a), hd = hits(d, mod_d);
  Outcome o;
  const double stay = ha[0] * hd[0];
  for (std::size_t i = 0; i < ha.size(); ++i)
    for (std::size_t j = 0; j < hd.size(); ++j) {
      if (i == 0 && j == 0) continue;
      const double p = ha[i] * hd[j] / (1 - stay);
      const Outcome next =
          solve(take(a, static_cast<int>(j)), take(d, static_cast<int>(i)), mod_a, mod_d, memo);
      o.attacker += p * next.attacker;
      o.draw += p * next.draw;
      o.defender += p * next.defender;
    }
  memo[key] = o;
  return o;
}

}  // namespace

TEST_CASE("ti4 factions: Sardakk N'orr's +1 against Jol-Nar's -1 matches the exact Markov chain",
          "[ti4][exact][factions]") {
  std::map<std::array<int, 4>, Outcome> memo;
  const Outcome exact = solve({2, 2}, {2, 2}, +1, -1, memo);
  REQUIRE(exact.attacker + exact.draw + exact.defender == Approx(1.0).epsilon(1e-12));
  // the factions matter: without them the same fleets are an even fight
  std::map<std::array<int, 4>, Outcome> plain_memo;
  const Outcome plain = solve({2, 2}, {2, 2}, 0, 0, plain_memo);
  REQUIRE(exact.attacker > plain.attacker + 0.2);

  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session =
      open_session(read_scenario(root / "content/ti4-base/scenarios/sardakk_vs_jol_nar.toml"), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = 1'000'000;
  options.seed = 20261123;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  const nlohmann::json report = sim.report(tally, options.seed);

  const double n = static_cast<double>(options.runs);
  struct Exact {
    const char* outcome;
    double p;
  };
  for (const Exact& e : {Exact{"attacker_win", exact.attacker}, Exact{"draw", exact.draw},
                         Exact{"defender_win", exact.defender}}) {
    const double got = report.at(e.outcome).get<double>();
    const double tolerance = 4.0 * std::sqrt(e.p * (1.0 - e.p) / n);  // four standard errors
    INFO(e.outcome << ": simulated " << got << ", exact " << e.p << ", tolerance " << tolerance);
    CHECK(std::abs(got - e.p) <= tolerance);
  }
}

TEST_CASE("exact mode: Sardakk N'orr against Jol-Nar equals the Markov chain to 1e-9",
          "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 4>, Outcome> memo;
  const Outcome exact = solve({2, 2}, {2, 2}, +1, -1, memo);
  const nlohmann::json r =
      rb::testing::exact_report("content/ti4-base/scenarios/sardakk_vs_jol_nar.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
}
