// A counter spent on near misses inside the exact mode's fire chain (exact/fire_chain.hpp,
// FireSide::near): a side's roll is drawn as (hits, near misses), it spends min(near misses, what
// it has left), each spent one a hit, and what each side has spent is one more dimension of the
// chain's states. Checked two ways: the chain against the same rounds stepped one at a time over
// a map of states (an independent solver), and the engine's answers (the Hacan flagship, the Wrath
// of Kenara: a die that misses by 1 becomes a hit for 1 trade good) with the chain against the
// same battles with every round the procedure's own in Lua (EngineOptions::exchange_fire off: the
// hook wrath_of_kenara reads each die's face and spends the trade goods, kept in each state).
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "same_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "exact/fire_chain.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

struct Key {
  int ka, kd;
  std::int64_t counter;
  bool several;
  std::int64_t sa, sd;
  bool operator<(const Key& o) const {
    return std::tie(ka, kd, counter, several, sa, sd) <
           std::tie(o.ka, o.kd, o.counter, o.several, o.sa, o.sd);
  }
};

// A side's roll from a state: (hits, spent, p), spending what it has left on its near misses.
std::vector<std::tuple<int, std::int64_t, double>> roll(const FireSide& x, int k, bool several,
                                                        std::int64_t spent) {
  std::vector<std::tuple<int, std::int64_t, double>> out;
  const auto& ways = several ? x.near : x.near_first;
  if (ways.empty()) {
    const auto& h = (several ? x.hits : x.first)[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < h.size(); ++i) out.emplace_back(static_cast<int>(i), 0, h[i]);
    return out;
  }
  for (const FireSide::Way& w : ways[static_cast<std::size_t>(k)]) {
    const std::int64_t m = std::min<std::int64_t>(w.near, x.spendable - spent);
    out.emplace_back(w.hits + static_cast<int>(m), m, w.p);
  }
  return out;
}

// Round by round: the probability of each state, and of each state x the rounds fought so far.
std::map<Key, std::pair<double, double>> stepped(const FireSide& a, const FireSide& d,
                                                 const FireChainOptions& o) {
  const int na_max = static_cast<int>(a.hits.size()), nd_max = static_cast<int>(d.hits.size());
  std::map<Key, std::pair<double, double>> live{{{0, 0, o.counter, false, 0, 0}, {1.0, 0.0}}}, ends;
  for (int round = 0; round < 20000 && !live.empty(); ++round) {
    std::map<Key, std::pair<double, double>> next;
    for (const auto& [k, v] : live)
      for (const auto& [i, xa, pa] : roll(a, k.ka, k.several, k.sa))
        for (const auto& [j, xd, pd] : roll(d, k.kd, k.several, k.sd)) {
          const double q = pa * pd;
          if (q == 0) continue;
          const int nd = std::min(nd_max - 1, k.kd + i);
          const int na = std::min(na_max - 1, k.ka + j);
          const double p = v.first * q, r = q * (v.second + v.first);
          if (a.fires[static_cast<std::size_t>(na)] && d.fires[static_cast<std::size_t>(nd)]) {
            std::int64_t c = k.counter + 1;
            if (o.cap >= 0) c = std::min(c, std::max(o.cap, k.counter));
            auto& t = next[{na, nd, c, true, k.sa + xa, k.sd + xd}];
            t.first += p, t.second += r;
          } else {
            auto& t = ends[{na, nd, k.counter, k.several, k.sa + xa, k.sd + xd}];
            t.first += p, t.second += r;
          }
        }
    live.clear();
    for (const auto& [k, v] : next)
      if (v.first > 1e-300) live[k] = v;
  }
  return ends;
}

void check_against_stepped(const FireSide& a, const FireSide& d, const FireChainOptions& o) {
  double unresolved = 0;
  const std::vector<FireEnd> got = fire_chain(a, d, o, unresolved);
  const auto want = stepped(a, d, o);
  CHECK(unresolved == 0);
  REQUIRE(got.size() == want.size());
  double total = 0;
  std::size_t n = 0;
  for (const auto& [k, v] : want) {
    const FireEnd& e = got[n++];  // both in the order of (ka, kd, counter, several, sa, sd)
    INFO("end " << k.ka << " " << k.kd << " " << k.counter << " " << k.several << " " << k.sa << " "
                << k.sd);
    CHECK(e.ka == k.ka);
    CHECK(e.kd == k.kd);
    CHECK(e.counter == k.counter);
    CHECK(e.several == k.several);
    CHECK(e.spent_a == k.sa);
    CHECK(e.spent_d == k.sd);
    CHECK(e.p == Approx(v.first).margin(1e-13));
    CHECK(e.rounds == Approx(v.second / v.first).epsilon(1e-9));
    total += e.p;
  }
  CHECK(total == Approx(1.0).margin(1e-12));
}

// The ways n dice fall as (hits, near misses), each die hitting with probability ph and missing
// near with pn.
std::vector<FireSide::Way> trinomial(int n, double ph, double pn) {
  std::map<std::pair<int, int>, double> t{{{0, 0}, 1.0}};
  for (int i = 0; i < n; ++i) {
    std::map<std::pair<int, int>, double> next;
    for (const auto& [k, p] : t) {
      next[{k.first + 1, k.second}] += p * ph;
      next[{k.first, k.second + 1}] += p * pn;
      next[k] += p * (1 - ph - pn);
    }
    t = next;
  }
  std::vector<FireSide::Way> out;
  for (const auto& [k, p] : t) out.push_back({k.first, k.second, p});
  return out;
}

std::vector<double> hits_of(const std::vector<FireSide::Way>& ways) {
  std::vector<double> out;
  for (const FireSide::Way& w : ways) {
    if (out.size() <= static_cast<std::size_t>(w.hits))
      out.resize(static_cast<std::size_t>(w.hits) + 1);
    out[static_cast<std::size_t>(w.hits)] += w.p;
  }
  return out;
}

// `units` units rolling one die each (the first `sustain` take a hit first), spending up to
// `spendable` on near misses (0: none).
FireSide side(int units, int sustain, double ph, double pn, std::int64_t spendable) {
  FireSide s;
  for (int k = 0; k <= units + sustain; ++k) {
    const int left = std::min(units, units + sustain - k);
    const std::vector<FireSide::Way> ways = trinomial(left, ph, pn);
    s.hits.push_back(hits_of(ways));
    s.first.push_back(hits_of(ways));
    s.fires.push_back(left > 0 ? 1 : 0);
    if (spendable > 0) s.near.push_back(ways), s.near_first.push_back(ways);
  }
  s.spendable = spendable;
  return s;
}

}  // namespace

TEST_CASE("fire_chain: a side that spends a counter on near misses equals the rounds stepped",
          "[fire_chain][exact]") {
  FireChainOptions o;
  o.counter = 1, o.cap = 2;
  // a counter that runs out in the combat, and one that cannot (more than it could ever spend)
  check_against_stepped(side(3, 1, 0.3, 0.1, 2), side(4, 0, 0.3, 0, 0), o);
  check_against_stepped(side(3, 1, 0.3, 0.1, 100), side(4, 0, 0.3, 0, 0), o);
  // both sides spend, one of them with Sustain Damage; a counter capped later
  check_against_stepped(side(2, 2, 0.2, 0.2, 3), side(3, 1, 0.4, 0.1, 5), o);
  o.counter = 0, o.cap = 5;
  check_against_stepped(side(2, 0, 0.5, 0.3, 1), side(2, 0, 0.5, 0.2, 4), o);
}

namespace {

// Every number of the exact report with the chain spending, and with each round the procedure's
// own in Lua. `fewer`: the C++ rounds take at most a quarter of the step runs.
void check_chain_against_steps(const std::string& scenario, std::uint64_t most_step_runs,
                               bool fewer = true) {
  INFO(scenario);
  const SessionOptions so = rb::testing::repo_session_options();
  const Session session = open_session(read_scenario(so.root / scenario), so);
  EngineOptions steps;
  steps.exchange_fire = false;
  const nlohmann::json stepwise = Simulation(session).exact(ExactRunOptions{}, steps);
  const nlohmann::json chain = Simulation(session).exact(ExactRunOptions{});
  const std::size_t compared = rb::testing::check_same_numbers(chain, stepwise);
  CHECK(compared > 5);
  // the trade goods are spent in the chain: a combat is one draw, not a step per way the dice fell
  CHECK(chain.at("step_runs").get<std::uint64_t>() <= most_step_runs);
  if (fewer)
    CHECK(chain.at("step_runs").get<std::uint64_t>() * 4 <
          stepwise.at("step_runs").get<std::uint64_t>());
}

}  // namespace

TEST_CASE(
    "exact mode: the Hacan flagship's trade goods spent in the fire chain equal the procedure's "
    "rounds in Lua",
    "[ti4][exact][factions][exact_mode]") {
  // step runs: 64 and 135 (main's C++ rounds one a step: 143 and 299)
  check_chain_against_steps("tests/fixtures/exact/hacan_flagship_trade_goods.toml", 100);
  check_chain_against_steps("tests/fixtures/exact/hacan_flagship_3tg.toml", 200);
}

TEST_CASE(
    "exact mode: the Dynamo's repairs paid in the fire chain equal the procedure's rounds in Lua",
    "[ti4][exact][factions][exact_mode]") {
  // the flagship alone: its rounds' ends are states of its queue, so the repairs paid are a
  // dimension of the chain's states (FireSide::takes); step runs: 88 (the hook's rounds: 485)
  check_chain_against_steps("tests/fixtures/exact/empyrean_dynamo_chain.toml", 120);
  // a fleet: one round a step in C++ (the repair of one unit and not another is no state of the
  // queue), the same answers
  // (646 step runs, 1 745 with the hook's rounds)
  check_chain_against_steps("tests/fixtures/exact/empyrean_dynamo_fleet.toml", 1000, false);
}
