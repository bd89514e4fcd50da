// Best play (simulate --exact --best SIDE, docs/exact.md) against a dynamic program written here,
// apart from the runtime: TI4 space combat between base ships without Sustain Damage or
// Anti-Fighter Barrage (cruisers hit on 7, destroyers and carriers on 9), each round both sides
// roll, then each takes the other's hits. The side playing best chooses, knowing both rolls,
// which of its ships are lost (any ships, as many as the hits); the other loses ships in its
// hit_order. A round in which nobody is hit comes back to the same state: its probability is
// divided out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/error.hpp"
#include "combat/assign_hits.hpp"
#include "content/content.hpp"
#include "exact/round_names.hpp"
#include "fixtures.hpp"
#include "sim/bench.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;
using rb::testing::fixed_dice_picks;

namespace {

// Ships of a side by type: destroyer, cruiser, carrier.
using Fleet = std::array<int, 3>;
constexpr std::array<int, 3> kCombat{9, 7, 9};

int ships(const Fleet& f) {
  return f[0] + f[1] + f[2];
}

// The distribution of a fleet's hits in one roll (a d10 per ship).
std::vector<double> hits(const Fleet& f) {
  std::vector<double> dist{1.0};
  for (int t = 0; t < 3; ++t)
    for (int k = 0; k < f[static_cast<std::size_t>(t)]; ++k) {
      const double p = (11 - kCombat[static_cast<std::size_t>(t)]) / 10.0;
      std::vector<double> next(dist.size() + 1, 0.0);
      for (std::size_t i = 0; i < dist.size(); ++i) {
        next[i] += dist[i] * (1 - p);
        next[i + 1] += dist[i] * p;
      }
      dist = next;
    }
  return dist;
}

// Loses `n` ships in `order` (indices into Fleet).
Fleet lose(Fleet f, int n, const std::vector<int>& order) {
  for (int t : order)
    while (n > 0 && f[static_cast<std::size_t>(t)] > 0) --f[static_cast<std::size_t>(t)], --n;
  return f;
}

// Every fleet left after losing min(n, ships) ships, any of them.
std::vector<Fleet> losses(const Fleet& f, int n) {
  n = std::min(n, ships(f));
  std::vector<Fleet> out;
  for (int a = 0; a <= std::min(n, f[0]); ++a)
    for (int b = 0; b <= std::min(n - a, f[1]); ++b) {
      const int c = n - a - b;
      if (c <= f[2]) out.push_back({f[0] - a, f[1] - b, f[2] - c});
    }
  return out;
}

// The chance that `best_attacker` (else the defender) wins, playing best (`best`) or by its
// hit_order; the other side plays by its hit_order.
struct Solver {
  std::vector<int> order_a, order_d;
  bool best_attacker = false;
  bool best = true;
  std::map<std::pair<Fleet, Fleet>, double> memo;

  double win(const Fleet& a, const Fleet& d) {
    if (ships(a) == 0 || ships(d) == 0)
      return best_attacker ? (ships(a) > 0 && ships(d) == 0) : (ships(d) > 0 && ships(a) == 0);
    const auto key = std::make_pair(a, d);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    const std::vector<double> ha = hits(a), hd = hits(d);
    double v = 0;
    const double stay = ha[0] * hd[0];
    for (std::size_t i = 0; i < ha.size(); ++i)
      for (std::size_t j = 0; j < hd.size(); ++j) {
        if (i == 0 && j == 0) continue;
        const int on_d = static_cast<int>(i), on_a = static_cast<int>(j);
        double value;
        if (best_attacker) {
          const Fleet d2 = lose(d, on_d, order_d);
          value = best ? -1 : win(lose(a, on_a, order_a), d2);
          if (best)
            for (const Fleet& a2 : losses(a, on_a)) value = std::max(value, win(a2, d2));
        } else {
          const Fleet a2 = lose(a, on_a, order_a);
          value = best ? -1 : win(a2, lose(d, on_d, order_d));
          if (best)
            for (const Fleet& d2 : losses(d, on_d)) value = std::max(value, win(a2, d2));
        }
        v += ha[i] * hd[j] * value;
      }
    v /= 1 - stay;
    memo[key] = v;
    return v;
  }
};

// The default hit_order among these ships: destroyer, cruiser, carrier.
const std::vector<int> kDefault{0, 1, 2};

nlohmann::json best_report(const std::string& scenario, const std::string& side,
                           const std::string& objective = "win") {
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const Session session = open_session(read_scenario(root / scenario), so);
  return Simulation(session).exact_best(ExactRunOptions{}, side, objective);
}

}  // namespace

TEST_CASE("best play: the defender loses its destroyer, not the cruiser its hit_order names",
          "[best_play][exact_mode]") {
  Solver best{kDefault, {1, 0, 2}, false, true, {}};
  Solver policy{kDefault, {1, 0, 2}, false, false, {}};
  const double b = best.win({0, 1, 0}, {1, 1, 0});
  const double p = policy.win({0, 1, 0}, {1, 1, 0});
  REQUIRE(b > p + 0.01);  // the choice matters here
  const nlohmann::json r =
      best_report("tests/fixtures/exact/best_play_cruiser_first.toml", "defender");
  const nlohmann::json& x = r.at("best");
  CHECK(std::abs(x.at("policy").get<double>() - p) < 1e-9);
  CHECK(std::abs(x.at("best").get<double>() - b) < 1e-9);
  CHECK(std::abs(x.at("gain_points").get<double>() - 100 * (b - p)) < 1e-7);
  // the report is the best play's: its outcomes, and the policy's report beside it
  CHECK(std::abs(r.at("defender_win").get<double>() - b) < 1e-9);
  CHECK(std::abs(r.at("policy").at("defender_win").get<double>() - p) < 1e-9);
  CHECK(x.at("settled").get<bool>());
  CHECK(x.at("choice_nodes").get<std::size_t>() > 0);
}

TEST_CASE("best play: a hit_order that already plays best gains nothing",
          "[best_play][exact_mode]") {
  Solver best{kDefault, kDefault, false, true, {}};
  Solver policy{kDefault, kDefault, false, false, {}};
  const double b = best.win({0, 1, 0}, {1, 1, 0});
  REQUIRE(std::abs(b - policy.win({0, 1, 0}, {1, 1, 0})) < 1e-12);
  const nlohmann::json r =
      best_report("tests/fixtures/exact/best_play_default_order.toml", "defender");
  CHECK(std::abs(r.at("best").at("best").get<double>() - b) < 1e-9);
  CHECK(std::abs(r.at("best").at("gain_points").get<double>()) < 1e-7);
  // ties go to the policy's own option: the whole report is the policy's
  for (const char* key : {"attacker_win", "draw", "defender_win", "rounds_mean"})
    CHECK(std::abs(r.at(key).get<double>() - r.at("policy").at(key).get<double>()) < 1e-12);
}

TEST_CASE("best play: its graph with the policy's own options is the policy's game, or it says not",
          "[best_play][exact_mode]") {
  // the same game: the defender's graph of choices, every choice at the policy's option, gives
  // the policy's odds (and the best play is at least that)
  {
    const nlohmann::json x =
        best_report("tests/fixtures/exact/best_play_cruiser_first.toml", "defender").at("best");
    CHECK(x.at("same_game").get<bool>());
    CHECK(std::abs(x.at("policy_in_graph").get<double>() - x.at("policy").get<double>()) < 1e-9);
    CHECK(x.at("best").get<double>() >= x.at("policy").get<double>() - 1e-12);
  }
  // a shield that cancels 1 hit a round only where the policy assigns (policy_only_shield/, a
  // hook that reads ctx:by_policy): with the defender's hits as choices it loses the shield, its
  // policy's options no longer give the policy's odds, and the report says it is another game
  {
    const std::filesystem::path root = RB_SOURCE_DIR;
    SessionOptions so;
    so.root = root;
    so.search = {root / "tests" / "fixtures" / "exact"};
    const Session session =
        open_session(read_scenario(root / "tests/fixtures/exact/best_play_policy_only.toml"), so);
    const nlohmann::json x =
        Simulation(session).exact_best(ExactRunOptions{}, "defender", "win").at("best");
    CHECK(x.at("policy_in_graph").get<double>() < x.at("policy").get<double>() - 0.1);
    CHECK_FALSE(x.at("same_game").get<bool>());
  }
}

namespace {

// Non-Euclidean Shielding (Letnev): each Sustain Damage cancels 2 hits. A Letnev attacker with
// dreadnoughts (5, Sustain Damage) and destroyers (9) against cruisers (7), the attacker playing
// best: for each number of hits it takes, every way its units can take them (lose a destroyer, a
// damaged or an undamaged dreadnought: 1 hit; an undamaged dreadnought sustains: 2 hits, or the 1
// left), the best of them. The state: undamaged and damaged dreadnoughts, destroyers, cruisers.
// The distribution of the hits of dice that hit with these chances.
std::vector<double> hits_of(const std::vector<double>& chances) {
  std::vector<double> dist{1.0};
  for (const double p : chances) {
    std::vector<double> next(dist.size() + 1, 0.0);
    for (std::size_t i = 0; i < dist.size(); ++i)
      next[i] += dist[i] * (1 - p), next[i + 1] += dist[i] * p;
    dist = next;
  }
  return dist;
}

struct ShieldedSolver {
  int cancels = 2;  // the hits a Sustain Damage cancels (1: without the technology)
  std::map<std::array<int, 4>, double> memo;

  // the states (healthy, damaged, destroyers) `left` hits can leave
  void outcomes(std::array<int, 3> u, int left, std::set<std::array<int, 3>>& out) {
    const auto [h, m, e] = u;
    if (left == 0 || h + m + e == 0) {
      out.insert(u);
      return;
    }
    if (e > 0) outcomes({h, m, e - 1}, left - 1, out);
    if (m > 0) outcomes({h, m - 1, e}, left - 1, out);
    if (h > 0) outcomes({h - 1, m, e}, left - 1, out);
    if (h > 0) outcomes({h - 1, m + 1, e}, std::max(0, left - cancels), out);
  }

  double win(const std::array<int, 4>& s) {  // P(the attacker wins)
    const auto [h, m, e, c] = s;
    if (h + m + e == 0) return 0;
    if (c == 0) return 1;
    if (auto it = memo.find(s); it != memo.end()) return it->second;
    std::vector<double> dice(static_cast<std::size_t>(h + m), 0.6);
    dice.insert(dice.end(), static_cast<std::size_t>(e), 0.2);
    const std::vector<double> ha = hits_of(dice),
                              hd = hits_of(std::vector<double>(static_cast<std::size_t>(c), 0.4));
    const double stay = ha[0] * hd[0];
    double v = 0;
    for (std::size_t i = 0; i < ha.size(); ++i)
      for (std::size_t j = 0; j < hd.size(); ++j) {
        if (i == 0 && j == 0) continue;
        std::set<std::array<int, 3>> out;
        outcomes({h, m, e}, static_cast<int>(j), out);
        double best = 0;
        for (const auto& [h2, m2, e2] : out)
          best = std::max(best, win({h2, m2, e2, std::max(0, c - static_cast<int>(i))}));
        v += ha[i] * hd[j] * best;
      }
    return memo[s] = v / (1 - stay);
  }
};

}  // namespace

TEST_CASE(
    "best play: Non-Euclidean Shielding's Sustain Damage cancels 2 hits when the side chooses",
    "[best_play][exact_mode]") {
  // 2 Letnev dreadnoughts and a destroyer with the technology against 4 cruisers
  const double with = ShieldedSolver{2, {}}.win({2, 0, 1, 4});
  const double without = ShieldedSolver{1, {}}.win({2, 0, 1, 4});
  REQUIRE(with > without + 0.05);  // the technology matters here
  const nlohmann::json x =
      best_report("tests/fixtures/exact/best_play_nes.toml", "attacker").at("best");
  CHECK(std::abs(x.at("best").get<double>() - with) < 1e-9);
  CHECK(x.at("same_game").get<bool>());
  CHECK(x.at("best").get<double>() >= x.at("policy").get<double>() - 1e-12);
  // the battle the issue found: a policy that wins every time, and best play that does too
  const nlohmann::json y =
      best_report("tests/ti4battle/scenarios/letnev_nes_duranium.toml", "attacker").at("best");
  CHECK(std::abs(y.at("best").get<double>() - 1.0) < 1e-12);
  CHECK(y.at("same_game").get<bool>());
}

TEST_CASE("best play: each side's best response keeps its cruisers before its carrier",
          "[best_play][exact_mode]") {
  for (const bool attacker : {true, false}) {
    Solver best{kDefault, kDefault, attacker, true, {}};
    Solver policy{kDefault, kDefault, attacker, false, {}};
    const double b = best.win({0, 2, 1}, {0, 2, 1});
    const double p = policy.win({0, 2, 1}, {0, 2, 1});
    REQUIRE(b > p + 0.01);
    const std::string side = attacker ? "attacker" : "defender";
    INFO(side);
    const nlohmann::json r = best_report("tests/fixtures/exact/best_play_carrier.toml", side);
    CHECK(std::abs(r.at("best").at("policy").get<double>() - p) < 1e-9);
    CHECK(std::abs(r.at("best").at("best").get<double>() - b) < 1e-9);
    // outcomes still sum to 1 in the best play's chain (the choices' 1/n divided out)
    CHECK(std::abs(r.at("attacker_win").get<double>() + r.at("draw").get<double>() +
                   r.at("defender_win").get<double>() - 1) < 1e-12);
  }
}

TEST_CASE("best play: not_lose counts a draw, and is at least the chance to win",
          "[best_play][exact_mode]") {
  const nlohmann::json w = best_report("tests/fixtures/exact/best_play_carrier.toml", "attacker");
  const nlohmann::json n =
      best_report("tests/fixtures/exact/best_play_carrier.toml", "attacker", "not_lose");
  CHECK(std::abs(n.at("best").at("policy").get<double>() -
                 (w.at("policy").at("attacker_win").get<double>() +
                  w.at("policy").at("draw").get<double>())) < 1e-12);
  CHECK(n.at("best").at("best").get<double>() >= w.at("best").at("best").get<double>());
  CHECK(n.at("best").at("best").get<double>() >= n.at("best").at("policy").get<double>() - 1e-12);
  CHECK_THROWS_AS(best_report("tests/fixtures/exact/best_play_carrier.toml", "nobody"), UsageError);
}

namespace {

// Both sides choosing (simulate --best both), and a metric objective, in the same space combat:
// each round both roll; the attacker chooses its losses a2 knowing both rolls, then the defender
// its losses d2 knowing a2 too (ctx:assign_hits_each asks the attacker first). A policy maps
// (a, d, hits on d, hits on a) to a2, and (a, d, hits on d, hits on a, a2) to d2; absent: the
// hit_order's. A side's best response maximises its own value against the other's policy, ties
// keeping the option it had, in every state and after every option of the other (a defender's
// answer for each a2); the sides answer in turn until an answer changes nothing.
using AKey = std::tuple<Fleet, Fleet, int, int>;
using DKey = std::tuple<Fleet, Fleet, int, int, Fleet>;
struct Game {
  std::vector<int> order_a = kDefault, order_d = kDefault;
  std::map<AKey, Fleet> A;
  std::map<DKey, Fleet> D;
  std::function<double(const Fleet&, const Fleet&)> end;  // a final state's value
  int side = -1;                                          // the side answering (-1: none)
  std::map<AKey, Fleet> newA;
  std::map<DKey, Fleet> newD;
  std::map<std::pair<Fleet, Fleet>, double> memo;

  Fleet pa(const AKey& k) const {
    auto it = A.find(k);
    return it != A.end() ? it->second : lose(std::get<0>(k), std::get<3>(k), order_a);
  }
  Fleet pd(const DKey& k) const {
    auto it = D.find(k);
    return it != D.end() ? it->second : lose(std::get<1>(k), std::get<2>(k), order_d);
  }
  double value(const Fleet& a, const Fleet& d) {
    if (ships(a) == 0 || ships(d) == 0) return end(a, d);
    if (auto it = memo.find({a, d}); it != memo.end()) return it->second;
    const std::vector<double> ha = hits(a), hd = hits(d);
    double v = 0;
    for (std::size_t i = 0; i < ha.size(); ++i)
      for (std::size_t j = 0; j < hd.size(); ++j) {
        if (i == 0 && j == 0) continue;
        const int on_d = static_cast<int>(i), on_a = static_cast<int>(j);
        const AKey ka{a, d, on_d, on_a};
        // the defender's answer to a2: its policy's, or (answering) its best
        auto defend = [&](const Fleet& a2) {
          const DKey kd{a, d, on_d, on_a, a2};
          Fleet d2 = pd(kd);
          if (side != 1) return value(a2, d2);
          double best = value(a2, d2);
          for (const Fleet& x : losses(d, on_d))
            if (const double w = value(a2, x); w > best + 1e-12 * std::abs(best)) best = w, d2 = x;
          if (d2 != lose(d, on_d, order_d)) newD[kd] = d2;
          return best;
        };
        Fleet a2 = pa(ka);
        double w = defend(a2);
        if (side == 1)  // the defender's answer covers what the attacker might lose instead
          for (const Fleet& x : losses(a, on_a)) defend(x);
        if (side == 0) {
          for (const Fleet& x : losses(a, on_a))
            if (const double y = defend(x); y > w + 1e-12 * std::abs(w)) w = y, a2 = x;
          if (a2 != lose(a, on_a, order_a)) newA[ka] = a2;
        }
        v += ha[i] * hd[j] * w;
      }
    v /= 1 - hits(a)[0] * hits(d)[0];
    memo[{a, d}] = v;
    return v;
  }
  // the value from (a, d) with `answering` choosing; every sub-fleet visited, so that the
  // answer covers every state (as the runtime's covers every state it explored)
  double answer(const Fleet& a, const Fleet& d, int answering) {
    side = answering;
    memo.clear(), newA.clear(), newD.clear();
    for (int x0 = 0; x0 <= a[0]; ++x0)
      for (int x1 = 0; x1 <= a[1]; ++x1)
        for (int x2 = 0; x2 <= a[2]; ++x2)
          for (int y0 = 0; y0 <= d[0]; ++y0)
            for (int y1 = 0; y1 <= d[1]; ++y1)
              for (int y2 = 0; y2 <= d[2]; ++y2) value({x0, x1, x2}, {y0, y1, y2});
    return value(a, d);
  }
};

nlohmann::json best_json(const std::string& scenario, const std::string& side,
                         const std::string& objective, bool decisions = false) {
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const Session session = open_session(read_scenario(root / scenario), so);
  return Simulation(session).exact_best(ExactRunOptions{}, side, objective, decisions);
}

}  // namespace

TEST_CASE("best play, both sides: best responses in turn settle on a pair, as a game solved here",
          "[best_play][exact_mode]") {
  const Fleet start{0, 2, 1};
  auto attacker_wins = [](const Fleet& a, const Fleet& d) {
    return ships(a) > 0 && ships(d) == 0 ? 1.0 : 0.0;
  };
  auto defender_wins = [](const Fleet& a, const Fleet& d) {
    return ships(d) > 0 && ships(a) == 0 ? 1.0 : 0.0;
  };
  Game g;
  std::vector<double> rounds;
  bool settled = false;
  for (int round = 0; round < 20 && !settled; ++round) {
    const int side = round % 2;
    g.end = side == 0 ? std::function<double(const Fleet&, const Fleet&)>(attacker_wins)
                      : std::function<double(const Fleet&, const Fleet&)>(defender_wins);
    rounds.push_back(g.answer(start, start, side));
    if (side == 0) {
      settled = round > 0 && g.newA == g.A;
      g.A = g.newA;
    } else {
      settled = g.newD == g.D;
      g.D = g.newD;
    }
  }
  REQUIRE(settled);
  REQUIRE(rounds.size() >= 2);
  g.end = attacker_wins;
  const double pair_a = g.answer(start, start, -1);
  g.end = defender_wins;
  const double pair_d = g.answer(start, start, -1);
  Game policy;
  policy.end = attacker_wins;
  const double policy_a = policy.answer(start, start, -1);
  REQUIRE(std::abs(pair_a - policy_a) > 0.01);  // the choices matter

  const nlohmann::json r = best_json("tests/fixtures/exact/best_play_carrier.toml", "both", "win");
  const nlohmann::json& b = r.at("best");
  CHECK(b.at("rounds_settled").get<bool>());
  CHECK(b.at("rounds").get<std::size_t>() == rounds.size());
  const auto got = b.at("round_values").get<std::vector<double>>();
  REQUIRE(got.size() == rounds.size());
  for (std::size_t k = 0; k < rounds.size(); ++k) CHECK(std::abs(got[k] - rounds[k]) < 1e-9);
  CHECK(std::abs(b.at("sides").at("attacker").at("pair").get<double>() - pair_a) < 1e-9);
  CHECK(std::abs(b.at("sides").at("defender").at("pair").get<double>() - pair_d) < 1e-9);
  CHECK(std::abs(b.at("sides").at("attacker").at("policy").get<double>() - policy_a) < 1e-9);
  // the report is the pair's
  CHECK(std::abs(r.at("attacker_win").get<double>() - pair_a) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - pair_d) < 1e-9);
}

TEST_CASE(
    "best play, metric objective: the attacker maximises the half resources it comes out "
    "ahead by, as a dynamic program with rewards",
    "[best_play][exact_mode]") {
  // half resources: destroyer 2, cruiser 4, carrier 6 (space_combat.lua, lib.unit_cost x 2)
  auto worth = [](const Fleet& f) { return 2 * f[0] + 4 * f[1] + 6 * f[2]; };
  const Fleet start{0, 2, 1};
  auto margin = [&](const Fleet& a, const Fleet& d) {
    return static_cast<double>((worth(start) - worth(d)) - (worth(start) - worth(a)));
  };
  Game best, policy;
  best.end = policy.end = margin;
  const double b = best.answer(start, start, 0);
  const double p = policy.answer(start, start, -1);
  REQUIRE(b > p + 0.01);
  for (const char* objective : {"metric:half_resources_margin", "metric:resources_margin"}) {
    if (std::string(objective) == "metric:resources_margin") {
      CHECK_THROWS_AS(
          best_json("tests/fixtures/exact/best_play_carrier.toml", "attacker", objective),
          UsageError);
      continue;
    }
    const nlohmann::json r =
        best_json("tests/fixtures/exact/best_play_carrier.toml", "attacker", objective);
    CHECK(std::abs(r.at("best").at("best").get<double>() - b) < 1e-9);
    CHECK(std::abs(r.at("best").at("policy").get<double>() - p) < 1e-9);
    CHECK(std::abs(r.at("half_resources_margin").get<double>() - b) < 1e-9);
  }
  // the defender minimises the same metric (metric:-NAME): its own margin, from its side
  Game dbest;
  dbest.end = [&](const Fleet& a, const Fleet& d) { return -margin(a, d); };
  const double db = dbest.answer(start, start, 1);
  const nlohmann::json r = best_json("tests/fixtures/exact/best_play_carrier.toml", "defender",
                                     "metric:-half_resources_margin");
  CHECK(std::abs(r.at("best").at("best").get<double>() - db) < 1e-9);
}

namespace {

// One X-Wing attack, enumerated: attack dice (3 hit, 1 crit, 2 focus, 2 blank of 8), the
// attacker's lock (reroll no dice, the blanks, or the blanks and focus results) and focus token
// (focus results become hits), then the defender's dice (3 evade, 2 focus, 3 blank of 8), its
// evade token spent when a result is left uncancelled (on a blank or focus die), and the damage:
// the uncancelled hits and crits, at most hull + shields.
struct Attack {
  int dice = 3, agility = 2, cap = 5;
  bool focus = false, lock = false, evade = true;
  // counts of (hit+crit, focus, blank) of n dice with their probabilities
  static std::map<std::array<int, 3>, double> roll(int n) {
    std::map<std::array<int, 3>, double> out{{{0, 0, 0}, 1.0}};
    for (int k = 0; k < n; ++k) {
      std::map<std::array<int, 3>, double> next;
      for (const auto& [c, p] : out) {
        next[{c[0] + 1, c[1], c[2]}] += p * 4 / 8;
        next[{c[0], c[1] + 1, c[2]}] += p * 2 / 8;
        next[{c[0], c[1], c[2] + 1}] += p * 2 / 8;
      }
      out = next;
    }
    return out;
  }
  double damage(int results) const {
    double e = 0;
    std::map<std::array<int, 3>, double> def{{{0, 0, 0}, 1.0}};  // evade, focus, blank
    for (int k = 0; k < agility; ++k) {
      std::map<std::array<int, 3>, double> next;
      for (const auto& [c, p] : def) {
        next[{c[0] + 1, c[1], c[2]}] += p * 3 / 8;
        next[{c[0], c[1] + 1, c[2]}] += p * 2 / 8;
        next[{c[0], c[1], c[2] + 1}] += p * 3 / 8;
      }
      def = next;
    }
    for (const auto& [c, p] : def) {
      int evades = c[0];
      if (evade && results - evades > 0 && c[1] + c[2] > 0) ++evades;
      e += p * std::min(cap, std::max(0, results - evades));
    }
    return e;
  }
  // after the lock: the focus token (yes or no, or the policy's yes)
  double after_lock(int hits, int focus_results, bool best) const {
    const double no = damage(hits);
    if (!focus || focus_results == 0) return no;
    const double yes = damage(hits + focus_results);
    return best ? std::max(yes, no) : yes;
  }
  // reroll `n` dice of a roll (hits h, focus f) left with the others
  double reroll(int h, int f, int n, bool best) const {
    double v = 0;
    for (const auto& [c, p] : roll(n)) v += p * after_lock(h + c[0], f + c[1], best);
    return v;
  }
  // `policy`: the lock's policy ("blanks", "blanks_and_focus"), "" for best play
  double value(const std::string& policy) const {
    const bool best = policy.empty();
    double v = 0;
    for (const auto& [c, p] : roll(dice)) {
      const int h = c[0], f = c[1], b = c[2];
      double w;
      if (!lock || b + f == 0) {
        w = after_lock(h, f, best);
      } else {
        const double none = after_lock(h, f, best);
        const double blanks = reroll(h, f, b, best);
        const double both = reroll(h, 0, b + f, best);
        w = best ? std::max({none, blanks, both}) : policy == "blanks" ? blanks : both;
      }
      v += p * w;
    }
    return v;
  }
};

}  // namespace

TEST_CASE(
    "best play, X-Wing: the attacker's token spending for expected damage, against an "
    "enumeration of every face and choice",
    "[best_play][exact_mode]") {
  struct Case {
    const char* scenario;
    Attack attack;
    const char* policy;
  };
  Attack focus_lock;
  focus_lock.focus = true, focus_lock.lock = true;
  Attack lock_only;
  lock_only.lock = true;
  for (const Case& c : {Case{"best_play_xwing_lock_focus.toml", focus_lock, "blanks"},
                        Case{"best_play_xwing_lock_policy.toml", focus_lock, "blanks_and_focus"},
                        Case{"best_play_xwing_lock_only.toml", lock_only, "blanks"}}) {
    INFO(c.scenario);
    const double b = c.attack.value(""), p = c.attack.value(c.policy);
    const nlohmann::json r = best_json(std::string("tests/fixtures/exact/") + c.scenario,
                                       "attacker", "metric:expected_damage");
    CHECK(std::abs(r.at("best").at("best").get<double>() - b) < 1e-9);
    CHECK(std::abs(r.at("best").at("policy").get<double>() - p) < 1e-9);
    CHECK(std::abs(r.at("expected_damage").get<double>() - b) < 1e-9);
    CHECK(std::abs(r.at("best").at("gain").get<double>() - (b - p)) < 1e-9);
  }
  // the default policy already spends best; the two others lose expected damage
  CHECK(std::abs(focus_lock.value("") - focus_lock.value("blanks")) < 1e-12);
  CHECK(focus_lock.value("") > focus_lock.value("blanks_and_focus") + 0.01);
  CHECK(lock_only.value("") > lock_only.value("blanks") + 0.01);
}

TEST_CASE("best play: the table of first decisions lists each option's value, the best first",
          "[best_play][exact_mode]") {
  const nlohmann::json r =
      best_json("tests/fixtures/exact/best_play_carrier.toml", "defender", "win", true);
  const nlohmann::json& rows = r.at("best").at("decisions");
  REQUIRE(!rows.empty());
  bool keeps_cruisers = false;
  for (const auto& row : rows) {
    const auto& options = row.at("options");
    REQUIRE(options.size() >= 2);
    // the margin: over the next option of a lower value (equal ones are alike)
    double next = options[0].at("value").get<double>();
    for (const auto& o : options)
      if (options[0].at("value").get<double>() - o.at("value").get<double>() > 1e-9) {
        next = o.at("value").get<double>();
        break;
      }
    CHECK(row.at("margin").get<double>() ==
          Approx(options[0].at("value").get<double>() - next).margin(1e-12));
    CHECK(row.at("margin").get<double>() > 0);  // here every choice matters
    CHECK(options[0].at("value").get<double>() >= options[1].at("value").get<double>());
    // one hit: losing the carrier beats losing a cruiser (the best response keeps its cruisers)
    if (row.at("hits").get<int>() == 1 && options[0].at("option") == "lose 1 carrier")
      keeps_cruisers = true;
  }
  CHECK(keeps_cruisers);
}

TEST_CASE("best play: options that lose alike-looking units are told apart in the table",
          "[best_play][exact_mode]") {
  // one of 3 destroyers is galvanized: with 1 hit, losing it and losing another are two options
  // of "1 destroyer"; the table names them by the flag that tells them apart, the plain one best
  const nlohmann::json r =
      best_json("tests/fixtures/exact/best_play_galvanized.toml", "attacker", "win", true);
  const nlohmann::json& rows = r.at("best").at("decisions");
  bool one_hit = false;
  for (const auto& row : rows) {
    std::set<std::string> names;
    for (const auto& o : row.at("options")) names.insert(o.at("option").get<std::string>());
    CHECK(names.size() == row.at("options").size());  // no two options share a name
    if (row.at("hits").get<int>() != 1) continue;
    one_hit = true;
    REQUIRE(row.at("options").size() == 2);
    CHECK(row.at("options")[0].at("option") == "lose 1 destroyer (not galvanized)");
    CHECK(row.at("options")[1].at("option") == "lose 1 destroyer (galvanized)");
    CHECK(row.at("margin").get<double>() > 0.05);
  }
  CHECK(one_hit);
}

TEST_CASE("best play: a hit assignment is one choice per distinct outcome, not per order",
          "[best_play][exact_mode]") {
  // the attacker's dreadnought (Sustain Damage), carrier and fighter take 1 or 2 hits in round
  // 1. Counted by hand: 1 hit, 4 outcomes (lose the dreadnought, the carrier or the fighter, or
  // the dreadnought sustains); 2 hits, 6 (the dreadnought sustains and is lost; it sustains or is
  // lost, and the carrier or the fighter is lost; the carrier and the fighter are lost). Chosen
  // casualty by casualty, "sustain, then lose the carrier" and "lose the carrier, then sustain"
  // were two options with one outcome.
  const nlohmann::json r =
      best_json("tests/fixtures/exact/best_play_outcomes.toml", "attacker", "win", true);
  const nlohmann::json& rows = r.at("best").at("decisions");
  REQUIRE(!rows.empty());
  std::map<int, std::size_t> choices;
  for (const auto& row : rows) {
    CHECK(row.at("choices").get<std::size_t>() == row.at("outcomes").get<std::size_t>());
    choices[row.at("hits").get<int>()] = row.at("choices").get<std::size_t>();
  }
  CHECK(choices[1] == 4);
  CHECK(choices[2] == 6);
}

namespace {

// A fleet less what "lose 1 cruiser, 1 carrier" (the walk's and the table's words) says.
Fleet after_losses(Fleet f, const std::string& what) {
  static const std::map<std::string, int> index{{"destroyer", 0}, {"cruiser", 1}, {"carrier", 2}};
  if (what == "nothing") return f;
  REQUIRE(what.rfind("lose ", 0) == 0);
  std::string rest = what.substr(5);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(", ");
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 2);
    const std::size_t space = item.find(' ');
    f[static_cast<std::size_t>(index.at(item.substr(space + 1)))] -=
        std::stoi(item.substr(0, space));
  }
  return f;
}

}  // namespace

TEST_CASE("trace --best: each option's value on the run drawn equals the game solved here",
          "[best_play][exact_mode]") {
  // two cruisers and a carrier against the same; the defender plays best. At each of its
  // decisions on the walk, an option's value is the chance to win from the fleets it leaves
  // (the attacker lost ships by its hit_order in the same round): the dynamic program's.
  Solver best{kDefault, kDefault, false, true, {}};
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const Session session =
      open_session(read_scenario(root / "tests/fixtures/exact/best_play_carrier.toml"), so);
  std::size_t decisions = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    ExactRunOptions o;
    o.best_walk = true;
    o.best_walk_seed = seed;
    const nlohmann::json r = Simulation(session).exact_best(o, "defender", "win");
    const nlohmann::json& walk = r.at("best").at("walk");
    Fleet a{0, 2, 1}, d{0, 2, 1};
    for (const auto& step : walk.at("steps")) {
      const Fleet a2 = after_losses(a, step.at("changes").at("attacker").get<std::string>());
      double top = -1;
      for (const auto& dec : step.at("decisions")) {
        ++decisions;
        const auto& options = dec.at("options");
        for (const auto& op : options) {
          INFO("seed " << seed << ": " << op.at("option"));
          const Fleet d2 = after_losses(d, op.at("option").get<std::string>());
          CHECK(op.at("value").get<double>() == Approx(best.win(a2, d2)).margin(1e-9));
          top = std::max(top, op.at("value").get<double>());
        }
        // the option taken is a best one
        CHECK(options[dec.at("taken").get<std::size_t>()].at("value").get<double>() ==
              Approx(top).margin(1e-12));
      }
      a = a2;
      d = after_losses(d, step.at("changes").at("defender").get<std::string>());
    }
    // the run ends as the fleets left say
    const std::string outcome = walk.at("outcome").get<std::string>();
    CHECK((ships(a) == 0) == (outcome != "attacker_win"));
    CHECK((ships(d) == 0) == (outcome != "defender_win"));
  }
  CHECK(decisions >= 3);  // (the runs drawn made some decisions)
}

TEST_CASE("bench --exact --best: best play timed beside the plain exact mode, with its ratio",
          "[best_play][exact_mode]") {
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const std::vector<ExactBenchResult> results = run_exact_bench(so, 0.01, {"a"}, "defender");
  REQUIRE(results.size() == 1);
  const ExactBenchResult& r = results[0];
  REQUIRE(r.stopped.empty());
  REQUIRE(r.best_stopped.empty());
  CHECK(r.best_repeats >= 1);
  // the value is simulate --exact --best's on the same case
  const nlohmann::json direct =
      best_report("content/ti4-base/scenarios/bench_a.toml", "defender").at("best");
  const nlohmann::json j = exact_bench_json(results);
  const nlohmann::json& b = j.at("cases").at(0).at("best");
  CHECK(b.at("side") == "defender");
  CHECK(b.at("best").get<double>() == Approx(direct.at("best").get<double>()).margin(1e-12));
  CHECK(b.at("policy").get<double>() == Approx(direct.at("policy").get<double>()).margin(1e-12));
  CHECK(b.at("ratio").get<double>() ==
        Approx(b.at("ms").get<double>() / j.at("cases").at(0).at("ms").get<double>()));
  CHECK(format_exact_bench(results).find("best play (to win)") != std::string::npos);
}

namespace {

// simulate --exact --best SIDE's chain (the best play's report), with the procedure's rounds run
// in C++ where they can be (ctx:exchange_fire) or every round run by the procedure itself; with
// `process`, a combat whose only decisions are the best side's hits is a decision process
// (EngineOptions::best_process), else its rounds run one a step.
nlohmann::json best_chain(const std::string& scenario, const std::string& side, bool in_cpp,
                          bool round_parts = true, bool process = false,
                          const std::string& objective = "win") {
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const Session session = open_session(read_scenario(root / scenario), so);
  const Simulation sim(session);
  ExactRunOptions o;
  std::function<double(const nlohmann::json&)> value_of;
  o.best = sym(side);
  o.best_objective = sim.best_objective(side, objective, false, &value_of);
  EngineOptions engine;
  engine.exchange_fire = in_cpp;
  engine.round_parts = round_parts;
  engine.best_process = process;
  nlohmann::json j = sim.exact(o, engine);
  j["value"] = value_of(j);
  return j;
}

}  // namespace

TEST_CASE("best play: the best side's rounds run in C++, its hits one choice among their outcomes",
          "[best_play][exact_mode]") {
  // Where nothing but the hit assignment is decided in a round (no retreat, no hook that can
  // run), ctx:exchange_fire runs the best side's rounds itself, one a call, the best side's hits
  // one choice among the assignment's distinct outcomes, and files each leaf whose round goes on
  // without running the step again. The chain is the one the procedure's own rounds make (every
  // round run in Lua: EngineOptions::exchange_fire off): the same states, the same values, in
  // far fewer runs of the step. Before, the best side's rounds were always the procedure's.
  for (const char* scenario : {"tests/fixtures/exact/best_play_outcomes.toml",
                               "tests/fixtures/exact/best_play_carrier.toml",
                               "tests/fixtures/exact/best_play_cruiser_first.toml"})
    for (const char* side : {"attacker", "defender"}) {
      INFO(scenario << " " << side);
      const nlohmann::json lua = best_chain(scenario, side, false);
      const nlohmann::json cpp = best_chain(scenario, side, true);
      CHECK(cpp.at("states") == lua.at("states"));
      CHECK(cpp.at("value").get<double>() == Approx(lua.at("value").get<double>()).margin(1e-12));
      for (const char* key : {"attacker_win", "draw", "defender_win", "rounds_mean"})
        CHECK(cpp.at(key).get<double>() == Approx(lua.at(key).get<double>()).margin(1e-12));
      CHECK(cpp.at("best_play").at("choice_nodes") == lua.at("best_play").at("choice_nodes"));
      CHECK(cpp.at("step_runs").get<std::uint64_t>() < lua.at("step_runs").get<std::uint64_t>());
    }
  // bench (b): the values and states measured when every round was the procedure's (58 865 and
  // 176 844 runs of the step); now the rounds that go on are filed without a run of the step
  const nlohmann::json d = best_chain("content/ti4-base/scenarios/bench_b.toml", "defender", true);
  CHECK(d.at("value").get<double>() == Approx(0.574957935464864).margin(1e-9));
  CHECK(d.at("states") == 2107);
  CHECK(d.at("step_runs").get<std::uint64_t>() < 80'000);
  const nlohmann::json a = best_chain("content/ti4-base/scenarios/bench_b.toml", "attacker", true);
  CHECK(a.at("value").get<double>() == Approx(0.4403847014992943).margin(1e-9));
  CHECK(a.at("states") == 745);
  CHECK(a.at("step_runs").get<std::uint64_t>() < 30'000);
}

TEST_CASE("best play: a round put together from its parts is the round run draw by draw",
          "[best_play][exact_mode]") {
  // The best side's round from one start is made once in parts (each side's roll, and for each
  // number of hits a side takes, each outcome of its assignment as the units it changes); every
  // draw of the node's round is put together from them (combat::play_round_parts) instead of
  // running the round again (combat::exchange_fire), and a round that ends the combat with the
  // same parts as an earlier run of the node's step is filed as that run. Same draws, choices and
  // states: the whole report is the same, to the last bit, with the parts or without them, in
  // fewer runs of the step.
  for (const char* scenario : {"tests/fixtures/exact/best_play_outcomes.toml",
                               "tests/fixtures/exact/best_play_carrier.toml",
                               "tests/fixtures/exact/best_play_cruiser_first.toml",
                               "content/ti4-base/scenarios/bench_b.toml"})
    for (const char* side : {"attacker", "defender"}) {
      INFO(scenario << " " << side);
      nlohmann::json run = best_chain(scenario, side, true, false);
      nlohmann::json parts = best_chain(scenario, side, true, true);
      CHECK(parts.at("step_runs").get<std::uint64_t>() <= run.at("step_runs").get<std::uint64_t>());
      for (nlohmann::json* j : {&run, &parts}) {
        j->erase("seconds"), j->erase("step_runs");
        if (j->contains("policy") && j->at("policy").is_object()) j->at("policy").erase("seconds");
      }
      CHECK(parts == run);
    }
}

namespace {

// Every number of two reports (nested), to `tol`; `skip`: keys left out (how the answer was
// reached: states, step runs, seconds, sweeps, nodes with choices).
void check_same_numbers(const nlohmann::json& a, const nlohmann::json& b, double tol,
                        const std::string& at = "") {
  static const std::vector<std::string> skip{
      "seconds", "step_runs", "states", "choice_nodes", "iterations", "cycles", "largest_cycle"};
  INFO(at);
  if (a.is_number()) {
    REQUIRE(b.is_number());
    CHECK(a.get<double>() == Approx(b.get<double>()).margin(tol));
  } else if (a.is_object()) {
    REQUIRE(b.is_object());
    for (const auto& [k, v] : a.items()) {
      if (std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
      REQUIRE(b.contains(k));
      check_same_numbers(v, b.at(k), tol, at + "." + k);
    }
  } else if (a.is_array()) {
    REQUIRE(b.is_array());
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      check_same_numbers(a[i], b[i], tol, at + "[" + std::to_string(i) + "]");
  } else {
    CHECK(a == b);
  }
}

}  // namespace

TEST_CASE("best play: a combat whose only decisions are the hits is solved as a decision process",
          "[best_play][exact_mode]") {
  // One side plays best and its hit assignments are the only decisions in the combat's rounds:
  // the whole combat is a decision process over its own states (exact/process.hpp), solved by
  // backward induction once the procedure has valued each end, instead of a chain node per
  // round with a tree of choices. Same game: the whole report (outcomes, survivors, rounds,
  // metrics, the best and the policy's values) equals the round by round path's to 1e-9, in a
  // chain of fewer states and fewer runs of the step.
  for (const char* scenario :
       {"tests/fixtures/exact/best_play_outcomes.toml",
        "tests/fixtures/exact/best_play_carrier.toml",
        "tests/fixtures/exact/best_play_cruiser_first.toml",
        "content/ti4-base/scenarios/bench_a.toml", "content/ti4-base/scenarios/bench_b.toml"})
    for (const char* side : {"attacker", "defender"}) {
      INFO(scenario << " " << side);
      const nlohmann::json rounds = best_chain(scenario, side, true, true, false);
      const nlohmann::json process = best_chain(scenario, side, true, true, true);
      check_same_numbers(rounds, process, 1e-9);
      check_same_numbers(process, rounds, 1e-9);
      CHECK(process.at("states").get<std::size_t>() < rounds.at("states").get<std::size_t>());
      CHECK(process.at("step_runs").get<std::uint64_t>() <
            rounds.at("step_runs").get<std::uint64_t>());
    }
  // a metric objective: what each round adds (the rounds' metric) and the combat's ends
  for (const char* side : {"attacker", "defender"}) {
    INFO(side);
    const char* b = "content/ti4-base/scenarios/bench_b.toml";
    const nlohmann::json rounds =
        best_chain(b, side, true, true, false, "metric:half_resources_margin");
    const nlohmann::json process =
        best_chain(b, side, true, true, true, "metric:half_resources_margin");
    check_same_numbers(rounds, process, 1e-9);
  }
  // bench (b): main's values (the round by round path's, measured before)
  CHECK(best_chain("content/ti4-base/scenarios/bench_b.toml", "defender", true, true, true)
            .at("value")
            .get<double>() == Approx(0.574957935464864).margin(1e-9));
  CHECK(best_chain("content/ti4-base/scenarios/bench_b.toml", "attacker", true, true, true)
            .at("value")
            .get<double>() == Approx(0.4403847014992943).margin(1e-9));
}

TEST_CASE("best play: a round's next state is named by each side's units and the rest",
          "[best_play][exact_mode]") {
  // The decision process names a round's state by the two sides' own entities (each side's
  // configuration) and the rest of the state (exact/process.hpp, RoundNames), and builds a next
  // state only for a name not seen. Two states may share a name only when they are equal: a
  // defender's unit, an attacker's, the round counter or the end of the combat tells them apart.
  const Sym unit = sym("unit"), cruiser = sym("cruiser"), hp = sym("round");
  State s;
  const EntityId system = s.add({sym("system"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  const EntityId a = s.add({sym("player"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  const EntityId d = s.add({sym("player"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  Entity ship{unit, cruiser, 3, a, system, {}};
  const EntityId a1 = s.add(ship), a2 = s.add(ship);
  ship.owner = d;
  const EntityId d1 = s.add(ship);
  s.set_counter(system, hp, 1, kNoSym);

  RoundNames names;
  const std::uint32_t ca = names.own(s, a), cd = names.own(s, d);
  const std::uint32_t rest = names.rest(s, a, d);
  CHECK(ca != cd);
  CHECK(names.holds(ca, s));
  CHECK(names.holds(cd, s));

  // the defender's unit damaged: the attacker's configuration and the rest are the same
  State t = s;
  t.at(d1).attr[0] = 1;
  CHECK(names.own(t, a) == ca);
  CHECK(names.own(t, d) != cd);
  CHECK_FALSE(names.holds(cd, t));
  CHECK(names.rest(t, a, d) == rest);
  // the round counter counted: the units are the same, the rest is not
  State u = s;
  u.set_counter(system, hp, 2, kNoSym);
  CHECK(names.own(u, a) == ca);
  CHECK(names.own(u, d) == cd);
  const std::uint32_t rest2 = names.rest(u, a, d);
  CHECK(rest2 != rest);

  // a take: what it changes and loses, as the state it leaves says
  combat::RoundParts::Take take;
  Entity damaged = s.at(a1);
  damaged.attr[0] = 1;
  take.changed = {{a1, &damaged}};
  take.lost = {a2};
  const std::uint32_t after = names.after(ca, 2, 0, take);
  State v = s;
  v.at(a1) = damaged;
  v.at(a2).location = kReinforcements;
  CHECK(after == names.own(v, a));
  CHECK(names.after(ca, 2, 0, take) == after);  // made once
  // a take that changes an entity not the side's, or gives a unit away: no name
  combat::RoundParts::Take foreign;
  foreign.changed = {{d1, &s.at(d1)}};
  CHECK(names.after(ca, 1, 0, foreign) == RoundNames::kNone);
  combat::RoundParts::Take away;
  Entity given = s.at(a1);
  given.owner = d;
  away.changed = {{a1, &given}};
  CHECK(names.after(ca, 1, 1, away) == RoundNames::kNone);

  // names differ in each part: filed apart
  names.file({ca, cd, rest, 0}, 7);
  CHECK(names.find({ca, cd, rest, 0}) == 7);
  CHECK(names.find({ca, cd, rest2, 0}) == RoundNames::kNone);
  CHECK(names.find({ca, cd, rest, 1}) == RoundNames::kNone);
  CHECK(names.find({after, cd, rest, 0}) == RoundNames::kNone);
  CHECK(names.find({ca, names.own(t, d), rest, 0}) == RoundNames::kNone);
}

TEST_CASE("best play: a configuration in canonical order, used only where nothing names a unit",
          "[best_play][exact_mode]") {
  // A side's configuration after a take is named in canonical order (RoundNames::canonical: its
  // alike units exchange locations and attributes so that they come sorted, as
  // State::canonicalise orders them), which is the whole state's canonical order only where
  // nothing names a unit of either side (RoundNames::clean): a counter on a unit, a link, a unit
  // carried by another pins it, and then the configuration is named as the take left it.
  const Sym unit = sym("unit"), cruiser = sym("cruiser"), destroyer = sym("destroyer");
  const std::vector<Sym> kinds{unit};
  State s;
  const EntityId system = s.add({sym("system"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  const EntityId a = s.add({sym("player"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  const EntityId d = s.add({sym("player"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  Entity ship{unit, cruiser, 3, a, system, {}};
  const EntityId a1 = s.add(ship), a2 = s.add(ship);
  Entity small{unit, destroyer, 4, a, system, {}};
  const EntityId a3 = s.add(small);
  ship.owner = d;
  s.add(ship);

  // the first cruiser damaged, the second lost: out of order (a lost unit's location is the
  // reinforcements, which sorts before the system)
  State t = s;
  t.at(a1).attr[0] = 1;
  t.at(a2).location = kReinforcements;
  RoundNames names;
  const std::uint32_t raw = names.own(t, a), cd = names.own(t, d);
  const std::uint32_t rest = names.rest(t, a, d);
  const std::uint32_t canon = names.canonical(raw, kinds);
  State sorted = t;
  CHECK(sorted.canonicalise(kinds));
  CHECK(names.holds(canon, sorted));
  CHECK_FALSE(names.holds(raw, sorted));
  CHECK(names.canonical(canon, kinds) == canon);  // already in order
  CHECK(names.clean(rest, raw, cd));
  // in order already: the same configuration
  CHECK(names.canonical(names.own(s, a), kinds) == names.own(s, a));

  // a counter on a unit: not clean (the canonical order would keep that unit where it is)
  State counted = t;
  counted.set_counter(a1, sym("marked"), 1, kNoSym);
  RoundNames pinned;
  const std::uint32_t pa = pinned.own(counted, a), pd = pinned.own(counted, d);
  CHECK_FALSE(pinned.clean(pinned.rest(counted, a, d), pa, pd));
  // a unit carried by another (its location a unit of the side): not clean
  State carried = t;
  carried.at(a3).location = a1;
  RoundNames inside;
  const std::uint32_t ia = inside.own(carried, a), id = inside.own(carried, d);
  CHECK_FALSE(inside.clean(inside.rest(carried, a, d), ia, id));
}

TEST_CASE("best play: every number of hits's assignment outcomes from one search",
          "[best_play][exact_mode]") {
  // assignment_outcomes_upto reads every number of hits's outcomes from one search (each
  // casualty takes one hit, so the search for k hits is the one for more, cut at depth k): the
  // same outcomes in the same order as a search for each number, whatever the sustain policy;
  // where a Sustain Damage cancels more than one hit it declines (the caller searches each).
  using namespace combat;
  const Sym unit = sym("unit");
  Content content;
  const Env env{&content, nullptr, nullptr, unit};
  State s;
  const EntityId system = s.add({sym("system"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  const EntityId player = s.add({sym("player"), kNoSym, -1, kNoEntity, kNoEntity, {}});
  // slot 0: can sustain, slot 1: damaged
  auto add = [&](const char* type, int can, int damaged, int n) {
    for (int i = 0; i < n; ++i) s.add({unit, sym(type), 1, player, system, {can, damaged}});
  };
  add("dreadnought", 1, 0, 2);
  add("dreadnought", 1, 1, 1);
  add("cruiser", 0, 0, 2);
  add("fighter", 0, 0, 3);
  CasualtySpec spec;
  spec.can_sustain = 0, spec.damaged = 1;
  const std::vector<Sym> order{sym("fighter"), sym("cruiser"), sym("dreadnought")};
  const State before = s;
  for (const Sustain mode : {Sustain::first, Sustain::last, Sustain::never}) {
    INFO(kSustainNames[static_cast<int>(mode)]);
    Casualties queue;
    queue.build(env, s, player, system, spec, order);
    queue.begin_assignment();
    std::vector<std::vector<AssignmentOutcome>> by_hits;
    const int most = 12;  // (more than the units can take: every unit lost)
    REQUIRE(assignment_outcomes_upto(s, queue, most, mode, true, by_hits));
    CHECK(s == before);
    REQUIRE(by_hits.size() == static_cast<std::size_t>(most) + 1);
    for (int k = 1; k <= most; ++k) {
      INFO(k << " hits");
      const std::vector<AssignmentOutcome> each = assignment_outcomes(s, queue, k, mode, true);
      const std::vector<AssignmentOutcome>& one = by_hits[static_cast<std::size_t>(k)];
      REQUIRE(one.size() == each.size());
      for (std::size_t o = 0; o < each.size(); ++o) {
        CHECK(one[o].summary == each[o].summary);
        CHECK(one[o].takes == each[o].takes);
      }
    }
    CHECK(by_hits[2].size() > 3);  // (a choice: several outcomes)
    // a Sustain Damage that cancels two hits: declined, nothing made
    Casualties twice = queue;
    twice.cancel_at_least(2);
    std::vector<std::vector<AssignmentOutcome>> none;
    CHECK_FALSE(assignment_outcomes_upto(s, twice, most, mode, true, none));
    CHECK(none.empty());
  }
}

namespace {

// A TI4 ground combat (tests/fixtures/exact/best_play_ground.toml): each side's ground forces as
// (its mech: 2 undamaged, 1 damaged, 0 none; its infantry). Mechs hit on 6, infantry on 8; a
// mech has Sustain Damage. The side playing best chooses, for the hits it takes, any outcome (lose
// an infantry, damage the mech, lose it); the defender's policy damages its mech, then loses
// infantry, then the mech; the attacker's (in the fixture) loses its mech first and never
// sustains. The attacker takes the planet when it has ground forces left and the defender none.
using Forces = std::pair<int, int>;

struct GroundSolver {
  bool best_attacker = true;
  std::map<std::pair<Forces, Forces>, double> memo;

  static void outcomes(Forces u, int left, std::set<Forces>& out) {
    const auto [m, i] = u;
    if (left == 0 || (m == 0 && i == 0)) {
      out.insert(u);
      return;
    }
    if (i > 0) outcomes({m, i - 1}, left - 1, out);
    if (m == 2) outcomes({1, i}, left - 1, out);
    if (m > 0) outcomes({0, i}, left - 1, out);
  }
  static Forces defender_policy(Forces u, int hits) {
    for (; hits > 0 && (u.first > 0 || u.second > 0); --hits)
      u.first == 2 ? u.first = 1 : u.second > 0 ? --u.second : u.first = 0;
    return u;
  }
  static Forces attacker_policy(Forces u, int hits) {
    for (; hits > 0 && (u.first > 0 || u.second > 0); --hits)
      u.first > 0 ? u.first = 0 : --u.second;
    return u;
  }
  static std::vector<double> roll(Forces u) {
    std::vector<double> dice(static_cast<std::size_t>(u.second), 0.3);
    if (u.first > 0) dice.push_back(0.5);
    return hits_of(dice);
  }

  double value(Forces a, Forces d) {  // the best side's chance of its win
    const bool has_a = a.first + a.second > 0, has_d = d.first + d.second > 0;
    if (!has_a || !has_d) return (has_a && !has_d) == best_attacker ? 1 : 0;
    if (auto it = memo.find({a, d}); it != memo.end()) return it->second;
    const std::vector<double> ha = roll(a), hd = roll(d);
    double v = 0;
    for (std::size_t i = 0; i < ha.size(); ++i)
      for (std::size_t j = 0; j < hd.size(); ++j) {
        if (i == 0 && j == 0) continue;
        std::set<Forces> out;
        double best = 0;
        if (best_attacker) {
          const Forces d2 = defender_policy(d, static_cast<int>(i));
          outcomes(a, static_cast<int>(j), out);
          for (const Forces& a2 : out) best = std::max(best, value(a2, d2));
        } else {
          const Forces a2 = attacker_policy(a, static_cast<int>(j));
          outcomes(d, static_cast<int>(i), out);
          for (const Forces& d2 : out) best = std::max(best, value(a2, d2));
        }
        v += ha[i] * hd[j] * best;
      }
    return memo[{a, d}] = v / (1 - ha[0] * hd[0]);
  }
};

}  // namespace

TEST_CASE(
    "best play in a ground combat: the attacker plays to take the planet, the defender to keep it",
    "[best_play][exact_mode]") {
  // a mech and 2 infantry against 3 infantry; the attacker's policy wastes its mech
  const double attacker = GroundSolver{true, {}}.value({2, 2}, {0, 3});
  const double defender = GroundSolver{false, {}}.value({2, 2}, {0, 3});
  const nlohmann::json a = best_report("tests/fixtures/exact/best_play_ground.toml", "attacker");
  CHECK(std::abs(a.at("best").at("best").get<double>() - attacker) < 1e-9);
  CHECK(a.at("best").at("gain_points").get<double>() > 20);  // its Sustain Damage, its mech kept
  CHECK(a.at("best").at("same_game").get<bool>());
  // the report's chance of taking the planet is the best play's
  CHECK(std::abs(a.at("attacker_takes_the_planet").get<double>() - attacker) < 1e-9);
  const nlohmann::json d =
      best_report("tests/fixtures/exact/best_play_ground.toml", "defender").at("best");
  CHECK(std::abs(d.at("best").get<double>() - defender) < 1e-9);
  // with the attacker's policy the defender's infantry have nothing to choose: keeping the
  // planet is the attacker's policy's chance of not taking it
  CHECK(std::abs(d.at("policy").get<double>() + a.at("best").at("policy").get<double>() - 1) <
        1e-9);
}

TEST_CASE(
    "best play with fixed dice: after Space Cannon Defense, the ground forces' values are the "
    "ground combat's",
    "[best_play][exact_mode]") {
  // content/ti4-base/tests/best_play.toml: a mech and 2 infantry land on a planet with 3 infantry
  // and a PDS, the attacker playing to take the planet (its policy: mech first, never sustain).
  // Committing them all is worth the Space Cannon Defense die (a hit on 6) and then the ground
  // combat; its one hit leaves, by the option: the mech damaged, an infantry lost, the mech lost
  GroundSolver g{true, {}};
  const double sustained = g.value({1, 2}, {0, 3}), infantry = g.value({2, 1}, {0, 3});
  const double mech = g.value({0, 2}, {0, 3});
  const double commit = 0.5 * std::max({sustained, infantry, mech}) + 0.5 * g.value({2, 2}, {0, 3});
  const RunOptions::BestPicks picks = fixed_dice_picks(
      read_scenario(std::filesystem::path(RB_SOURCE_DIR) /
                    "tests/fixtures/exact/best_play_invasion.toml"),
      "attacker", {1, 6, 1, 1, 1, 1, 1, 1, 6, 8, 8, 1, 1, 1}, "metric:planet_1_controlled");
  REQUIRE(picks.picks.size() == 3);  // the infantry, the mech, the hit
  CHECK(picks.percent);
  const RunOptions::BestPicks::Pick &all = picks.picks[0], &hit = picks.picks[2];
  CHECK(all.options[all.k] == "infantry:2");
  CHECK(all.values[all.k] == Approx(commit).margin(1e-9));
  CHECK(picks.picks[1].values[picks.picks[1].k] == Approx(commit).margin(1e-9));
  REQUIRE(hit.options.size() == 3);
  const std::map<std::string, double> want{
      {"sustain:mech", sustained}, {"infantry", infantry}, {"mech", mech}};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO(hit.options[i]);
    REQUIRE(want.count(hit.options[i]));
    CHECK(hit.values[i] == Approx(want.at(hit.options[i])).margin(1e-9));
  }
  CHECK(hit.options[0] == "mech");  // the policy's
  CHECK(hit.options[hit.k] == "sustain:mech");
}

TEST_CASE("best play: a choice that changes no unit is named by its decision's words",
          "[best_play][exact_mode]") {
  // Proxima Targeting VI (Thunder's Edge): the attacker's first decision is how many infantry
  // to commit (it changes no unit in that step), then whether to bombard with it each round
  const std::string scenario = "tests/ti4battle/scenarios/proxima_bombards_both.toml";
  const nlohmann::json r = best_json(scenario, "attacker", "win", true);
  const nlohmann::json& rows = r.at("best").at("decisions");
  REQUIRE(rows.size() == 1);
  const nlohmann::json& options = rows[0].at("options");
  REQUIRE(options.size() == 4);  // 3, 2, 1 or no infantry
  CHECK(options[0].at("option") == "invasion.commit_ground_forces: infantry:3");
  CHECK(options[3].at("option") == "invasion.commit_ground_forces: infantry:0");
  CHECK(options[3].at("value").get<double>() == 0);  // nobody lands: the planet is not taken
  // on a walk, declining the bombardment (the policy's option is to use it) has its words too
  const std::filesystem::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  const Session session = open_session(read_scenario(root / scenario), so);
  bool declined = false;
  for (std::uint64_t seed = 1; seed <= 4 && !declined; ++seed) {
    ExactRunOptions o;
    o.best_walk = true;
    o.best_walk_seed = seed;
    const nlohmann::json w = Simulation(session).exact_best(o, "attacker", "win");
    for (const auto& step : w.at("best").at("walk").at("steps"))
      for (const auto& d : step.at("decisions"))
        for (const auto& op : d.at("options"))
          declined = declined || op.at("option") == "use:proxima_targeting_vi_bombardment: no";
  }
  CHECK(declined);
}

namespace {

// Destroyers (9) against destroyers, no retreat: the chance that only the first side's are left.
double destroyers_win(int a, int b, std::map<std::pair<int, int>, double>& memo) {
  if (b == 0) return a > 0 ? 1 : 0;
  if (a == 0) return 0;
  if (auto it = memo.find({a, b}); it != memo.end()) return it->second;
  const std::vector<double> ha = hits_of(std::vector<double>(static_cast<std::size_t>(a), 0.2)),
                            hb = hits_of(std::vector<double>(static_cast<std::size_t>(b), 0.2));
  double v = 0;
  for (std::size_t i = 0; i < ha.size(); ++i)
    for (std::size_t j = 0; j < hb.size(); ++j)
      if (i + j > 0)
        v += ha[i] * hb[j] *
             destroyers_win(std::max(0, a - static_cast<int>(j)),
                            std::max(0, b - static_cast<int>(i)), memo);
  return memo[{a, b}] = v / (1 - ha[0] * hb[0]);
}

}  // namespace

TEST_CASE("best play in a tactical action: a system cleared by Space Cannon Offense is a win",
          "[best_play][exact_mode]") {
  // 2 destroyers and a PDS (6) whose owner holds Strike Wing Ambuscade (1 more die for it)
  // against 2 destroyers: the extra die may destroy both before any space combat (no_combat).
  // The attacker's win is the action's (only its ships are left), so the die is worth using.
  std::map<std::pair<int, int>, double> memo;
  const std::vector<double> sco = hits_of({0.5, 0.5});  // the PDS's die and the extra one
  double with = 0;
  for (std::size_t k = 0; k < sco.size(); ++k)
    with += sco[k] * destroyers_win(2, 2 - static_cast<int>(k), memo);
  const std::vector<double> one = hits_of({0.5});
  double without = 0;
  for (std::size_t k = 0; k < one.size(); ++k)
    without += one[k] * destroyers_win(2, 2 - static_cast<int>(k), memo);
  REQUIRE(with > without + 0.1);
  const nlohmann::json x =
      best_report("tests/ti4battle/scenarios/strike_wing_ambuscade.toml", "attacker").at("best");
  CHECK(std::abs(x.at("best").get<double>() - with) < 1e-9);
  CHECK(std::abs(x.at("policy").get<double>() - with) < 1e-9);  // the policy plays the note
}
