// A roll counted by face (ctx:roll's by_face, dice/counts.hpp), on the mini ruleset's attack die
// (hit x3, crit, focus x2, blank x2: four kinds of face, probabilities 3/8, 1/8, 2/8, 2/8),
// five dice, the roll one step of ctx:steps (tests/fixtures/root/scripts/mini/by_face.lua).
// Against the multinomial computed here: the exact mode's distribution to 1e-12 over its 56
// outcomes (C(5+3, 3)), Monte Carlo's frequencies within four standard errors (200 000 runs, a
// fixed seed); the step memo runs the roll once per count of faces (at most 56 times, where the
// die-by-die draw keys 8^5 = 32 768 face sequences); the pool lists the dice in face order; the
// same seed gives the same runs; the counts' rank is a bijection onto [0, C(n+k-1, k-1)).
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "base/error.hpp"
#include "dice/counts.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

constexpr const char* kScenario =
    "[attacker]\nunits = { cruiser = 1 }\n[defender]\nunits = { cruiser = 1 }\n";
constexpr int kDice = 5;
constexpr std::array<const char*, 4> kKinds = {"hit", "crit", "focus", "blank"};
constexpr std::array<double, 4> kP = {3.0 / 8, 1.0 / 8, 2.0 / 8, 2.0 / 8};

using Counts = std::array<int, 4>;

// The multinomial: n! / prod c_i! * prod p_i^c_i, every way five dice fall into four kinds.
std::map<Counts, double> multinomial() {
  std::map<Counts, double> out;
  const auto fact = [](int n) {
    double f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
  };
  for (int a = 0; a <= kDice; ++a)
    for (int b = 0; a + b <= kDice; ++b)
      for (int c = 0; a + b + c <= kDice; ++c) {
        const Counts k{a, b, c, kDice - a - b - c};
        double p = fact(kDice);
        for (std::size_t i = 0; i < 4; ++i) p *= std::pow(kP[i], k[i]) / fact(k[i]);
        out[k] = p;
      }
  return out;
}

double metric_of(const std::vector<std::pair<Sym, double>>& metrics, const char* name) {
  for (const auto& [m, v] : metrics)
    if (m == sym(name)) return v;
  return -1;
}

Counts counts_of(const std::vector<std::pair<Sym, double>>& metrics) {
  Counts k{};
  for (std::size_t i = 0; i < 4; ++i)
    for (const auto& [name, v] : metrics)
      if (name == sym(kKinds[i])) k[i] = static_cast<int>(v);
  return k;
}

}  // namespace

TEST_CASE("by_face: the exact mode's outcomes are the multinomial's", "[dice][by_face][exact]") {
  MiniTable table({}, kScenario);
  const ExactResult r = table.engine.run_exact("by_face", table.start, ExactRunOptions{});
  const std::map<Counts, double> want = multinomial();
  REQUIRE(want.size() == 56);
  std::map<Counts, double> got;
  double total = 0;
  for (const auto& f : r.finals) {
    got[counts_of(f.metrics)] += f.p;
    total += f.p;
    CHECK(metric_of(f.metrics, "in_order") == 1);
  }
  CHECK(std::abs(total - 1) < 1e-12);
  CHECK(got.size() == want.size());
  for (const auto& [k, p] : want) {
    INFO(k[0] << " hit, " << k[1] << " crit, " << k[2] << " focus, " << k[3] << " blank");
    CHECK(std::abs(got[k] - p) < 1e-12);
  }
  CHECK(r.leaves == 56);  // one step run per outcome, not per face sequence
}

TEST_CASE("by_face: Monte Carlo draws the multinomial, once per count of faces in the memo",
          "[dice][by_face][memo]") {
  MiniTable table({}, kScenario);
  const std::map<Counts, double> want = multinomial();
  const int n = 200'000;
  std::map<Counts, int> seen;
  std::vector<Counts> first;
  for (int i = 0; i < n; ++i) {
    RunOptions o;
    o.seed = 20261127;
    o.run = static_cast<std::uint64_t>(i);
    State state = table.start;
    RunResult r;
    table.engine.run("by_face", state, o, r);
    const Counts k = counts_of(r.metrics);
    REQUIRE(k[0] + k[1] + k[2] + k[3] == kDice);
    REQUIRE(r.metric("in_order") == 1);
    ++seen[k];
    if (i < 1000) first.push_back(k);
  }
  for (const auto& [k, p] : want) {
    const double freq = static_cast<double>(seen[k]) / n;
    const double se = std::sqrt(p * (1 - p) / n);
    INFO(k[0] << " hit, " << k[1] << " crit, " << k[2] << " focus, " << k[3] << " blank: " << freq
              << " against " << p);
    CHECK(std::abs(freq - p) <= 4 * se);
  }
  // the trie branches on the counts: the roll's step ran at most once per count of faces
  CHECK(table.engine.memo_steps_run() <= 56);
  // the same (seed, run) gives the same roll, with or without the memo
  MiniTable plain({}, kScenario, [] {
    EngineOptions e;
    e.memo = false;
    return e;
  }());
  for (int i = 0; i < 1000; ++i) {
    RunOptions o;
    o.seed = 20261127;
    o.run = static_cast<std::uint64_t>(i);
    State state = plain.start;
    RunResult r;
    plain.engine.run("by_face", state, o, r);
    REQUIRE(counts_of(r.metrics) == first[static_cast<std::size_t>(i)]);
  }
}

TEST_CASE("by_face: forced results are taken die by die and listed in face order",
          "[dice][by_face]") {
  MiniTable table({}, kScenario);
  State state = table.start;
  RunResult r;
  RunOptions o;
  for (const char* f : {"blank", "hit", "focus", "crit", "hit"}) o.forced.push_back({0, sym(f)});
  o.strict_dice = true;
  table.engine.run("by_face", state, o, r);
  CHECK(counts_of(r.metrics) == Counts{2, 1, 1, 1});
  CHECK(r.metric("in_order") == 1);
}

TEST_CASE("by_face: the counts' rank numbers every way n dice fall into k kinds once",
          "[dice][by_face]") {
  for (int k = 1; k <= 6; ++k)
    for (int n = 0; n <= 6; ++n) {
      std::set<std::uint32_t> ranks;
      std::vector<std::uint32_t> c(static_cast<std::size_t>(k), 0);
      // every composition of n into k parts, by odometer
      const std::function<void(int, int)> walk = [&](int i, int left) {
        if (i == k - 1) {
          c[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(left);
          ranks.insert(count_rank(c.data(), k, n));
          return;
        }
        for (int x = 0; x <= left; ++x)
          c[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(x), walk(i + 1, left - x);
      };
      walk(0, n);
      INFO(n << " dice, " << k << " kinds");
      CHECK(ranks.size() == count_outcomes(n, k));
      CHECK(*ranks.rbegin() == count_outcomes(n, k) - 1);
    }
}

TEST_CASE("by_face: a value other than true or false is refused, naming the option",
          "[dice][by_face]") {
  MiniTable table({},
                  "by_face = \"yes\"\n[attacker]\nunits = { cruiser = 1 }\n"
                  "[defender]\nunits = { cruiser = 1 }\n");
  State state = table.start;
  RunResult r;
  try {
    table.engine.run("by_face", state, RunOptions{}, r);
    FAIL("no error");
  } catch (const ScriptError& e) {
    INFO(e.what());
    CHECK(contains(e.what(), "ctx:roll: by_face must be true or false, got string"));
    CHECK(contains(e.what(), "by_face.lua"));
  }
}
