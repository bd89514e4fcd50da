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
#include "same_numbers.hpp"

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

// ---------------------------------------------------------------- the Letnev flagship

// The Barony of Letnev's Arc Secundus (5 x2, Sustain Damage, repaired at the start of every space
// combat round) with 4 trade goods for Munitions Reserves (2 at the start of a round: every die of
// the round that missed is rerolled once) attacks a dreadnought and 2 cruisers
// (content/ti4-base/scenarios/letnev_flagship.toml), default policies. Repaired each round, the
// flagship is destroyed only by 2 hits in one round; so the chain's state is the defender's
// cruisers, its dreadnought (2 healthy, 1 damaged, 0 destroyed) and the trade goods left.
namespace {

struct LetnevState {
  int cruisers, dreadnought, trade_goods;
  auto key() const { return std::array<int, 3>{cruisers, dreadnought, trade_goods}; }
};

// The distribution of hits of dice with these chances.
std::vector<double> hits_of(const std::vector<double>& chances) {
  std::vector<double> dist{1.0};
  for (double p : chances) {
    std::vector<double> next(dist.size() + 1, 0.0);
    for (std::size_t k = 0; k < dist.size(); ++k) {
      next[k] += dist[k] * (1 - p);
      next[k + 1] += dist[k] * p;
    }
    dist = next;
  }
  return dist;
}

Outcome solve_letnev(LetnevState s, std::map<std::array<int, 3>, Outcome>& memo) {
  if (auto it = memo.find(s.key()); it != memo.end()) return it->second;
  const bool reroll = s.trade_goods >= 2;  // Munitions Reserves this round
  const int goods = reroll ? s.trade_goods - 2 : s.trade_goods;
  const double p = hit_chance(5, 0);
  const double flagship_die = reroll ? p + (1 - p) * p : p;
  const std::vector<double> attacker = hits_of({flagship_die, flagship_die});
  std::vector<double> chances(static_cast<std::size_t>(s.cruisers), hit_chance(7, 0));
  if (s.dreadnought > 0) chances.push_back(hit_chance(5, 0));
  const std::vector<double> defender = hits_of(chances);
  Outcome o;
  double stay = 0;  // the round that leads back to this state (nobody loses anything)
  for (std::size_t i = 0; i < attacker.size(); ++i)
    for (std::size_t j = 0; j < defender.size(); ++j) {
      const double q = attacker[i] * defender[j];
      const Side d = take(Side{s.cruisers, s.dreadnought}, static_cast<int>(i));
      const bool flagship_lost = j >= 2;  // one hit is sustained, and repaired next round
      const bool defender_lost = !d.alive();
      if (flagship_lost || defender_lost) {
        (flagship_lost ? (defender_lost ? o.draw : o.defender) : o.attacker) += q;
        continue;
      }
      const LetnevState next{d.cruisers, d.dreadnought, goods};
      if (next.key() == s.key()) {
        stay += q;
        continue;
      }
      const Outcome n = solve_letnev(next, memo);
      o.attacker += q * n.attacker;
      o.draw += q * n.draw;
      o.defender += q * n.defender;
    }
  o.attacker /= 1 - stay, o.draw /= 1 - stay, o.defender /= 1 - stay;
  memo[s.key()] = o;
  return o;
}

}  // namespace

TEST_CASE(
    "ti4 factions: the Letnev flagship with Munitions Reserves matches the exact Markov chain",
    "[ti4][exact][factions]") {
  std::map<std::array<int, 3>, Outcome> memo;
  const Outcome exact = solve_letnev({2, 2, 4}, memo);
  REQUIRE(exact.attacker + exact.draw + exact.defender == Approx(1.0).epsilon(1e-12));
  // the abilities matter: without the repair and the rerolls the flagship fares worse
  std::map<std::array<int, 3>, Outcome> no_goods;
  REQUIRE(exact.attacker > solve_letnev({2, 2, 0}, no_goods).attacker + 0.05);

  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session =
      open_session(read_scenario(root / "content/ti4-base/scenarios/letnev_flagship.toml"), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = 200'000;
  options.seed = 20261124;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  const nlohmann::json report = sim.report(tally, options.seed);
  const double n = static_cast<double>(options.runs);
  for (const auto& [outcome, p] :
       {std::pair{"attacker_win", exact.attacker}, std::pair{"draw", exact.draw},
        std::pair{"defender_win", exact.defender}}) {
    const double got = report.at(outcome).get<double>();
    const double tolerance = 4.0 * std::sqrt(p * (1.0 - p) / n);  // four standard errors
    INFO(outcome << ": simulated " << got << ", exact " << p << ", tolerance " << tolerance);
    CHECK(std::abs(got - p) <= tolerance);
  }
}

TEST_CASE("exact mode: the Letnev flagship with Munitions Reserves equals the Markov chain to 1e-9",
          "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 3>, Outcome> memo;
  const Outcome exact = solve_letnev({2, 2, 4}, memo);
  const nlohmann::json r =
      rb::testing::exact_report("content/ti4-base/scenarios/letnev_flagship.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
}

TEST_CASE(
    "exact mode: a hook that requires a counter its owner is short of keeps the rounds in "
    "the chain (Letnev with no trade goods against Jol-Nar)",
    "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 4>, Outcome> memo;
  const Outcome exact = solve({2, 2}, {2, 2}, 0, -1, memo);
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/letnev_without_trade_goods.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
  // Munitions Reserves cannot run: the rounds are the chain's (28 step runs), not a step run per
  // way the dice fell (567 when its window was taken as live)
  CHECK(r.at("step_runs").get<std::uint64_t>() < 100);
}

// ---------------------------------------------------------------- Non-Euclidean Shielding

// A Letnev dreadnought (5, Sustain Damage) with Non-Euclidean Shielding attacks cruisers (7):
// when it sustains, 1 more hit is cancelled, so while healthy it takes 2 hits of a round as
// damage and is destroyed by 3; damaged, by 1. The state: cruisers left, the dreadnought healthy.
namespace {

Outcome solve_shielding(int cruisers, bool healthy, std::map<std::array<int, 2>, Outcome>& memo) {
  Outcome o;
  if (cruisers == 0) {
    o.attacker = 1;
    return o;
  }
  if (auto it = memo.find({cruisers, healthy ? 1 : 0}); it != memo.end()) return it->second;
  const std::vector<double> attacker = hits_of({hit_chance(5, 0)});
  const std::vector<double> defender =
      hits_of(std::vector<double>(static_cast<std::size_t>(cruisers), hit_chance(7, 0)));
  const double stay = attacker[0] * defender[0];
  for (std::size_t i = 0; i < attacker.size(); ++i)
    for (std::size_t j = 0; j < defender.size(); ++j) {
      if (i == 0 && j == 0) continue;
      const double q = attacker[i] * defender[j] / (1 - stay);
      const int left = cruisers - static_cast<int>(i);
      const bool destroyed = healthy ? j >= 3 : j >= 1;
      if (destroyed) {
        (left == 0 ? o.draw : o.defender) += q;
        continue;
      }
      const Outcome n = solve_shielding(left, healthy && j == 0, memo);
      o.attacker += q * n.attacker, o.draw += q * n.draw, o.defender += q * n.defender;
    }
  memo[{cruisers, healthy ? 1 : 0}] = o;
  return o;
}

}  // namespace

TEST_CASE(
    "exact mode: Non-Euclidean Shielding (a sustain that cancels 2 hits) equals the Markov "
    "chain, one round a step in C++",
    "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 2>, Outcome> memo;
  const Outcome exact = solve_shielding(3, true, memo);
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/non_euclidean_shielding.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
}

// ---------------------------------------------------------------- directed hits

// The L1Z1X flagship (5, 2 dice, Sustain Damage; its hits go to non-fighter ships if able)
// against a cruiser (7), a carrier (9) and fighters (9). The defender's order loses fighters,
// then the cruiser, then the carrier; the flagship's hits take the cruiser, then the carrier,
// then fighters (`directed`), or the defender's order (not directed). The state: the flagship
// (2 healthy, 1 damaged), the cruiser, the carrier, the fighters left.
namespace {

Outcome solve_directed(std::array<int, 4> s, bool directed,
                       std::map<std::array<int, 4>, Outcome>& memo) {
  Outcome o;
  const auto [flagship, cruiser, carrier, fighters] = s;
  const bool attacker = flagship > 0, defender = cruiser + carrier + fighters > 0;
  if (!attacker || !defender) {
    (attacker ? o.attacker : defender ? o.defender : o.draw) = 1;
    return o;
  }
  if (auto it = memo.find(s); it != memo.end()) return it->second;
  const std::vector<double> a = hits_of({hit_chance(5, 0), hit_chance(5, 0)});
  std::vector<double> dice;
  if (cruiser) dice.push_back(hit_chance(7, 0));
  for (int i = 0; i < carrier + fighters; ++i) dice.push_back(hit_chance(9, 0));
  const std::vector<double> d = hits_of(dice);
  const double stay = a[0] * d[0];
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < d.size(); ++j) {
      if (i == 0 && j == 0) continue;
      std::array<int, 4> n = s;
      n[0] = std::max(0, flagship - static_cast<int>(j));  // healthy: sustains, then destroyed
      // the losses, in the order the hits take them
      const std::array<int, 3> order = directed ? std::array{1, 2, 3} : std::array{3, 1, 2};
      int left = static_cast<int>(i);
      for (int slot : order) {
        const int lost = std::min(left, n[static_cast<std::size_t>(slot)]);
        n[static_cast<std::size_t>(slot)] -= lost, left -= lost;
      }
      const Outcome next = solve_directed(n, directed, memo);
      const double q = a[i] * d[j] / (1 - stay);
      o.attacker += q * next.attacker, o.draw += q * next.draw, o.defender += q * next.defender;
    }
  memo[s] = o;
  return o;
}

}  // namespace

TEST_CASE(
    "exact mode: the L1Z1X flagship's hits to non-fighter ships (directed hits) equal the Markov "
    "chain, one round a step in C++",
    "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 4>, Outcome> memo, plain;
  const Outcome exact = solve_directed({2, 1, 1, 2}, true, memo);
  // the direction matters: hits taken in the defender's own order (fighters first) differ
  REQUIRE(std::abs(exact.attacker - solve_directed({2, 1, 1, 2}, false, plain).attacker) > 0.01);
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/l1z1x_flagship_directed.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
  // each round's ends are computed once per state and one drawn: 83 step runs, where the
  // procedure's own rounds (a step run per way the dice fell) took 249; the ends after which the
  // combat goes on ("again") are filed without running the step again (ExactLeaf::siblings):
  // 59 step runs
  CHECK(r.at("step_runs").get<std::uint64_t>() < 70);
}

// ---------------------------------------------------------------- hooks that cannot run

TEST_CASE(
    "exact mode: ctx:hooked is false for a window whose hooks require a counter their owners "
    "are short of (Letnev's Munitions Reserves reroll with no trade goods)",
    "[ti4][exact][factions][exact_mode]") {
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/raid_formation_against_letnev.toml");
  // the Letnev without trade goods have no ability in this battle: the answer is the one
  // without their faction
  const nlohmann::json p =
      rb::testing::exact_report("tests/fixtures/exact/raid_formation_against_no_faction.toml");
  for (const char* o : {"attacker_win", "draw", "defender_win"})
    CHECK(std::abs(r.at(o).get<double>() - p.at(o).get<double>()) < 1e-12);
  // the rolls are counts of hits (2 616 step runs), not every die's face, which the reroll's
  // window would read (117 624 when that window was taken as live)
  CHECK(r.at("step_runs").get<std::uint64_t>() < 10'000);
}

// ---------------------------------------------------------------- a counter spent on near misses

namespace {

// The Wrath of Kenara (2 dice hitting on 7, Sustain Damage) with `tg` trade goods against
// `cruisers` cruisers (1 die each, hitting on 7). Each round both sides roll; each of the
// flagship's dice, in turn, that shows a 6 gets +1 (a hit) for 1 trade good while they last;
// then hits are taken (the flagship sustains first). `health`: 2 healthy, 1 damaged, 0 lost.
// Every face of the flagship's two dice is enumerated; a round where nobody is hit leaves the
// state as it was (a 6 that is raised is a hit), so its chance is divided out.
Outcome solve_kenara(int health, int tg, int cruisers,
                     std::map<std::array<int, 3>, Outcome>& memo) {
  if (health == 0 || cruisers == 0) {
    Outcome o;
    (health > 0 ? o.attacker : cruisers > 0 ? o.defender : o.draw) = 1;
    return o;
  }
  const std::array<int, 3> key{health, tg, cruisers};
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  // the cruisers' hits: Binomial(cruisers, 0.4)
  std::vector<double> hd{1.0};
  for (int i = 0; i < cruisers; ++i) {
    std::vector<double> next(hd.size() + 1, 0.0);
    for (std::size_t k = 0; k < hd.size(); ++k) next[k] += hd[k] * 0.6, next[k + 1] += hd[k] * 0.4;
    hd = next;
  }
  // the flagship's two dice, face by face: (hits, trade goods left) -> probability
  std::map<std::pair<int, int>, double> ha;
  for (int f1 = 1; f1 <= 10; ++f1)
    for (int f2 = 1; f2 <= 10; ++f2) {
      int hits = 0, left = tg;
      for (int f : {f1, f2}) {
        if (f >= 7)
          ++hits;
        else if (f == 6 && left > 0)
          ++hits, --left;
      }
      ha[{hits, left}] += 0.01;
    }
  const double stay = ha[{0, tg}] * hd[0];
  Outcome o;
  for (const auto& [roll, pa] : ha)
    for (std::size_t j = 0; j < hd.size(); ++j) {
      if (roll.first == 0 && j == 0) continue;  // nobody hit: the same state
      const double p = pa * hd[j] / (1 - stay);
      const Outcome next = solve_kenara(std::max(0, health - static_cast<int>(j)), roll.second,
                                        std::max(0, cruisers - roll.first), memo);
      o.attacker += p * next.attacker;
      o.draw += p * next.draw;
      o.defender += p * next.defender;
    }
  memo[key] = o;
  return o;
}

}  // namespace

TEST_CASE(
    "exact mode: the Hacan flagship's trade goods spent on dice that miss by 1 (a declared "
    "modifier's spend) equal an enumeration of every die's face",
    "[ti4][exact][factions][exact_mode]") {
  std::map<std::array<int, 3>, Outcome> memo;
  const Outcome exact = solve_kenara(2, 2, 3, memo);
  REQUIRE(exact.attacker + exact.draw + exact.defender == Approx(1.0).epsilon(1e-12));
  // the trade goods matter
  const Outcome none = solve_kenara(2, 0, 3, memo);
  REQUIRE(exact.attacker > none.attacker + 0.01);
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/hacan_flagship_trade_goods.toml");
  CHECK(std::abs(r.at("attacker_win").get<double>() - exact.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - exact.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - exact.defender) < 1e-9);
  // each roll is one draw over (hits, near misses up to the trade goods), not each die's face
  CHECK(r.at("step_runs").get<std::uint64_t>() < 200);
  // 100 trade goods: a roll's near misses are counted up to its dice (two), not to the trade goods
  std::map<std::array<int, 3>, Outcome> memo_100;
  const Outcome rich = solve_kenara(2, 100, 3, memo_100);
  const nlohmann::json r100 =
      rb::testing::exact_report("tests/fixtures/exact/hacan_flagship_trade_goods_100.toml");
  CHECK(std::abs(r100.at("attacker_win").get<double>() - rich.attacker) < 1e-9);
  CHECK(std::abs(r100.at("draw").get<double>() - rich.draw) < 1e-9);
  CHECK(std::abs(r100.at("defender_win").get<double>() - rich.defender) < 1e-9);
  // a policy that never uses it keeps the trade goods: the answer without them
  const nlohmann::json never =
      rb::testing::exact_report("tests/fixtures/exact/hacan_flagship_never.toml");
  CHECK(std::abs(never.at("attacker_win").get<double>() - none.attacker) < 1e-9);
  CHECK(std::abs(never.at("defender_win").get<double>() - none.defender) < 1e-9);
}

// ---------------------------------------------------------------- a hook at the end of each round

namespace {

// Ground forces left at the end: (attacker's infantry, defender's infantry) -> probability.
using Ends = std::map<std::pair<int, int>, double>;

double binomial(int n, int k, double p) {
  double c = 1;
  for (int i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c * std::pow(p, k) * std::pow(1 - p, n - k);
}

// Harrow after each round of ground combat: `a` L1Z1X infantry against `d` infantry (each hits on
// 8: 0.3), then, while both have some, the dreadnought's Bombardment (one die hitting on 5:
// `bombard`, 0.6; 0: no Harrow)
// against the defender's infantry; after the last round it bombards too, if the defender has
// infantry left. A round that leaves the state as it was (nobody hit, the bombardment missed)
// repeats, so its chance is divided out.
Ends solve_harrow(int a, int d, double bombard, std::map<std::pair<int, int>, Ends>& memo) {
  if (auto it = memo.find({a, d}); it != memo.end()) return it->second;
  const double ground = 0.3;
  Ends out;
  double stay = 0;
  for (int ha = 0; ha <= a; ++ha)
    for (int hd = 0; hd <= d; ++hd) {
      const double p = binomial(a, ha, ground) * binomial(d, hd, ground);
      const int a2 = std::max(0, a - hd), d2 = std::max(0, d - ha);
      for (const auto& [hit, q] : {std::pair{1, bombard}, std::pair{0, 1 - bombard}}) {
        const int d3 = std::max(0, d2 - hit);
        if (a2 == 0 || d2 == 0 || d3 == 0) {  // the last round (and its Harrow, if any)
          out[{a2, d2 > 0 ? d3 : 0}] += p * q;
        } else if (a2 == a && d3 == d) {
          stay += p * q;
        } else {
          for (const auto& [end, r] : solve_harrow(a2, d3, bombard, memo)) out[end] += p * q * r;
        }
      }
    }
  for (auto& [end, r] : out) r /= 1 - stay;
  memo[{a, d}] = out;
  return out;
}

}  // namespace

TEST_CASE(
    "exact mode: L1Z1X's Harrow (a hook at the end of each ground combat round) runs in the "
    "rounds enumerated in C++ and equals the Markov chain",
    "[ti4][exact][factions][exact_mode]") {
  // the dreadnought's Bombardment before the landing, then 2 infantry against 3 or 2
  auto solve = [](double bombard, std::vector<double>& attacker, std::vector<double>& defender) {
    std::map<std::pair<int, int>, Ends> memo;
    Ends ends;
    for (const auto& [hit, q] : {std::pair{1, 0.6}, std::pair{0, 0.4}})
      for (const auto& [end, r] : solve_harrow(2, 3 - hit, bombard, memo)) ends[end] += q * r;
    attacker.assign(3, 0.0), defender.assign(4, 0.0);
    for (const auto& [end, r] : ends) {
      attacker[static_cast<std::size_t>(end.first)] += r;
      defender[static_cast<std::size_t>(end.second)] += r;
    }
  };
  std::vector<double> attacker, defender, attacker_none, defender_none;
  solve(0.6, attacker, defender);
  solve(0.0, attacker_none, defender_none);
  // Harrow matters: without it the defender keeps more
  REQUIRE(defender[0] > defender_none[0] + 0.05);
  const nlohmann::json r =
      rb::testing::exact_report("tests/fixtures/exact/l1z1x_harrow_ground.toml");
  REQUIRE(r.at("ground_forces_attacker").size() == attacker.size());
  REQUIRE(r.at("ground_forces_defender").size() == defender.size());
  for (std::size_t k = 0; k < attacker.size(); ++k)
    CHECK(std::abs(r.at("ground_forces_attacker")[k].get<double>() - attacker[k]) < 1e-9);
  for (std::size_t k = 0; k < defender.size(); ++k)
    CHECK(std::abs(r.at("ground_forces_defender")[k].get<double>() - defender[k]) < 1e-9);
  // each round's ends, Harrow's bombardment in them, are computed once per state and one drawn,
  // and the ends after which the combat goes on are filed without running the step again: 131
  // step runs, 223 when the procedure's rounds ran in Lua (a step run per way the dice fell)
  CHECK(r.at("step_runs").get<std::uint64_t>() < 160);
}

TEST_CASE(
    "exact mode: hooks at a ground round's start (the Letnev's Dunlain Reaper) and end (Harrow) "
    "run in the C++ round as in the procedure's own round",
    "[ti4][exact][factions][exact_mode]") {
  const SessionOptions so = rb::testing::repo_session_options();
  const Session session = open_session(
      read_scenario(so.root / "tests/fixtures/exact/l1z1x_harrow_dunlain_reaper.toml"), so);
  EngineOptions in_lua;
  in_lua.exchange_fire = false;  // every round is the procedure's, its windows opened in Lua
  const nlohmann::json lua = Simulation(session).exact(ExactRunOptions{}, in_lua);
  const nlohmann::json cpp = Simulation(session).exact(ExactRunOptions{});
  // the Dunlain Reaper deploys: the defender's ground forces can end as a mech (the survivors
  // count the units it started with, infantry only)
  REQUIRE(lua.at("ground_forces_defender")[0].get<double>() <
          lua.at("survivors").at("defender").at("infantry")[0].get<double>() - 0.05);
  const std::size_t compared = rb::testing::check_same_numbers(cpp, lua);
  CHECK(compared > 10);
  // a round whose end (Harrow) left the defender without ground forces: the procedure's own round
  // ends the combat in the same step, the C++ round in the next one (a state more for each)
  CHECK(cpp.at("states").get<std::uint64_t>() >= lua.at("states").get<std::uint64_t>());
  CHECK(cpp.at("states").get<std::uint64_t>() <= lua.at("states").get<std::uint64_t>() + 30);
  // 1 061 step runs with the rounds handed back to Lua (main before 2026-11-28), 442 now
  CHECK(cpp.at("step_runs").get<std::uint64_t>() < 600);
}
