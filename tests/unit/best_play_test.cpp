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
#include <vector>

#include "base/error.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

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
