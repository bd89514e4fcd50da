// A roll of classes of faces (ctx:roll's faces, script/api_dice.cpp), on the mini ruleset's attack
// die (hit x3, crit, focus x2, blank x2), five dice, the roll one step of ctx:steps
// (tests/fixtures/root/scripts/mini/by_face.lua). With faces = {{"hit", "crit"}} the die has two
// classes, hit or crit (4/8) and the rest (4/8): a step that reads only pool:count("hit", "crit")
// is run once per count of that class (6 ways, not the 56 of the four kinds), and the count is
// Binomial(5, 1/2) to 1e-12 in the exact mode. A step that reads the faces apart (pool:count
// ("hit")) makes each die of a class show its face, drawn then: the counts of the four kinds are
// then the multinomial's again (exact to 1e-12), so a script that reads more than it declared
// gets the right answer, only more branches. Monte Carlo draws what the plain by_face roll
// draws: at a fixed seed the class's count is the by_face roll's hits plus crits, run for run.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

constexpr int kDice = 5;
constexpr const char* kUnits =
    "[attacker]\nunits = { cruiser = 1 }\n[defender]\nunits = { cruiser = 1 }\n";

std::string with_units(const std::string& top) {
  return top + kUnits;
}

double metric_of(const std::vector<std::pair<Sym, double>>& metrics, const char* name) {
  for (const auto& [m, v] : metrics)
    if (m == sym(name)) return v;
  return -1;
}

double choose(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

}  // namespace

TEST_CASE("faces: the exact mode branches on the counts of the classes read",
          "[dice][by_face][faces][exact]") {
  MiniTable table({}, with_units("faces = \"hit_crit\"\ntogether = true\n"));
  const ExactResult r = table.engine.run_exact("by_face", table.start, ExactRunOptions{});
  std::map<int, double> got;
  for (const auto& f : r.finals) got[static_cast<int>(metric_of(f.metrics, "hit_crit"))] += f.p;
  REQUIRE(got.size() == kDice + 1);
  for (int k = 0; k <= kDice; ++k) {
    INFO(k << " hit or crit");
    CHECK(std::abs(got[k] - choose(kDice, k) / 32) < 1e-12);  // Binomial(5, 1/2)
  }
  CHECK(r.leaves == kDice + 1);  // one step run per count of the class, not 56
}

TEST_CASE("faces: a die of a class read apart shows its face, drawn then (exact)",
          "[dice][by_face][faces][exact]") {
  MiniTable table({}, with_units("faces = \"hit_crit\"\n"));
  const ExactResult r = table.engine.run_exact("by_face", table.start, ExactRunOptions{});
  // the counts of hit, crit, focus and blank: the multinomial of five dice, (3, 1, 2, 2) / 8
  const std::array<double, 4> p = {3.0 / 8, 1.0 / 8, 2.0 / 8, 2.0 / 8};
  std::map<std::array<int, 4>, double> got;
  double total = 0;
  for (const auto& f : r.finals) {
    const std::array<int, 4> k{static_cast<int>(metric_of(f.metrics, "hit")),
                               static_cast<int>(metric_of(f.metrics, "crit")),
                               static_cast<int>(metric_of(f.metrics, "focus")),
                               static_cast<int>(metric_of(f.metrics, "blank"))};
    REQUIRE(k[0] + k[1] + k[2] + k[3] == kDice);
    got[k] += f.p;
    total += f.p;
  }
  CHECK(std::abs(total - 1) < 1e-12);
  REQUIRE(got.size() == 56);
  const auto fact = [](int n) { return n <= 1 ? 1.0 : std::tgamma(n + 1.0); };
  for (const auto& [k, q] : got) {
    double want = fact(kDice);
    for (std::size_t i = 0; i < 4; ++i) want *= std::pow(p[i], k[i]) / fact(k[i]);
    INFO(k[0] << " hit, " << k[1] << " crit, " << k[2] << " focus, " << k[3] << " blank");
    CHECK(std::abs(q - want) < 1e-12);
  }
}

TEST_CASE("faces: Monte Carlo draws as the by_face roll does, the memo once per class count",
          "[dice][by_face][faces][memo]") {
  MiniTable classes({}, with_units("faces = \"hit_crit\"\ntogether = true\n"));
  MiniTable plain({}, with_units(""));
  const int n = 20'000;
  std::map<int, int> seen;
  for (int i = 0; i < n; ++i) {
    RunOptions o;
    o.seed = 20261128;
    o.run = static_cast<std::uint64_t>(i);
    State a = classes.start, b = plain.start;
    RunResult ra, rb;
    classes.engine.run("by_face", a, o, ra);
    plain.engine.run("by_face", b, o, rb);
    const int k = static_cast<int>(ra.metric("hit_crit"));
    REQUIRE(k == static_cast<int>(rb.metric("hit") + rb.metric("crit")));  // the same draws
    ++seen[k];
  }
  for (int k = 0; k <= kDice; ++k) {
    const double p = choose(kDice, k) / 32, freq = static_cast<double>(seen[k]) / n;
    INFO(k << " hit or crit: " << freq << " against " << p);
    CHECK(std::abs(freq - p) <= 4 * std::sqrt(p * (1 - p) / n));
  }
  CHECK(classes.engine.memo_steps_run() <= kDice + 1);
}

TEST_CASE("faces: a die of a class read apart in Monte Carlo gets a face of its class",
          "[dice][by_face][faces]") {
  MiniTable table({}, with_units("faces = \"hit\"\n"));
  // classes: hit, and the rest (crit, focus, blank); every face read apart
  std::array<int, 4> seen{};
  const int n = 20'000;
  for (int i = 0; i < n; ++i) {
    RunOptions o;
    o.seed = 7;
    o.run = static_cast<std::uint64_t>(i);
    State state = table.start;
    RunResult r;
    table.engine.run("by_face", state, o, r);
    const std::array<int, 4> k{
        static_cast<int>(r.metric("hit")), static_cast<int>(r.metric("crit")),
        static_cast<int>(r.metric("focus")), static_cast<int>(r.metric("blank"))};
    REQUIRE(k[0] + k[1] + k[2] + k[3] == kDice);
    for (std::size_t f = 0; f < 4; ++f) seen[f] += k[f];
  }
  const std::array<double, 4> p = {3.0 / 8, 1.0 / 8, 2.0 / 8, 2.0 / 8};
  for (std::size_t f = 0; f < 4; ++f) {
    const double dice = static_cast<double>(n) * kDice, freq = seen[f] / dice;
    INFO("face " << f << ": " << freq << " against " << p[f]);
    CHECK(std::abs(freq - p[f]) <= 4 * std::sqrt(p[f] * (1 - p[f]) / dice));
  }
}

TEST_CASE("faces: an unknown face or a face named twice is refused, naming it",
          "[dice][by_face][faces]") {
  const auto error_of = [](const char* faces) {
    MiniTable table({}, with_units(std::string("faces = \"") + faces + "\"\n"));
    State state = table.start;
    RunResult r;
    try {
      table.engine.run("by_face", state, RunOptions{}, r);
    } catch (const ScriptError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string unknown = error_of("unknown");
  INFO(unknown);
  CHECK(contains(unknown, "ctx:roll: faces: the attack die has no face 'hot'"));
  CHECK(contains(unknown, "hit"));  // did you mean
  CHECK(contains(unknown, "by_face.lua"));
  const std::string twice = error_of("twice");
  INFO(twice);
  CHECK(contains(twice, "ctx:roll: faces names 'hit' twice"));
}
