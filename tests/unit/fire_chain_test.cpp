// exact/fire_chain solves rounds of simultaneous fire as a Markov chain over (hits taken by each
// side, the round counter, whether a round has ended), sweeping dense tables. Here each answer is
// checked against an independent solver: the same rounds stepped one at a time over a map of
// states until (almost) no probability is left in play.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "exact/fire_chain.hpp"

using namespace rb;

namespace {

struct Key {
  int ka, kd;
  std::int64_t counter;
  bool several;
  bool operator<(const Key& o) const {
    return std::tie(ka, kd, counter, several) < std::tie(o.ka, o.kd, o.counter, o.several);
  }
};

// Round by round: the probability of each state, and of each state x the rounds fought so far.
std::map<Key, std::pair<double, double>> stepped(const FireSide& a, const FireSide& d,
                                                 const FireChainOptions& o) {
  const int na_max = static_cast<int>(a.hits.size()), nd_max = static_cast<int>(d.hits.size());
  std::map<Key, std::pair<double, double>> live{{{0, 0, o.counter, false}, {1.0, 0.0}}}, ends;
  for (int round = 0; round < 20000 && !live.empty(); ++round) {
    std::map<Key, std::pair<double, double>> next;
    for (const auto& [k, v] : live) {
      const auto& ha = (k.several ? a.hits : a.first)[static_cast<std::size_t>(k.ka)];
      const auto& hd = (k.several ? d.hits : d.first)[static_cast<std::size_t>(k.kd)];
      for (std::size_t i = 0; i < ha.size(); ++i)
        for (std::size_t j = 0; j < hd.size(); ++j) {
          const double q = ha[i] * hd[j];
          if (q == 0) continue;
          const int nd = std::min(nd_max - 1, k.kd + static_cast<int>(i));
          const int na = std::min(na_max - 1, k.ka + static_cast<int>(j));
          const double p = v.first * q, r = q * (v.second + v.first);
          if (a.fires[static_cast<std::size_t>(na)] && d.fires[static_cast<std::size_t>(nd)]) {
            std::int64_t c = k.counter + 1;
            if (o.cap >= 0) c = std::min(c, std::max(o.cap, k.counter));
            auto& t = next[{na, nd, c, true}];
            t.first += p, t.second += r;
          } else {
            auto& t = ends[{na, nd, k.counter, k.several}];
            t.first += p, t.second += r;
          }
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
    const FireEnd& e = got[n++];  // both in the order of (ka, kd, counter, several)
    INFO("end " << k.ka << " " << k.kd << " " << k.counter << " " << k.several);
    CHECK(e.ka == k.ka);
    CHECK(e.kd == k.kd);
    CHECK(e.counter == k.counter);
    CHECK(e.several == k.several);
    CHECK(e.p == Approx(v.first).margin(1e-13));
    CHECK(e.rounds == Approx(v.second / v.first).epsilon(1e-9));
    total += e.p;
  }
  CHECK(total == Approx(1.0).margin(1e-12));
}

// The hits of n dice hitting with probability p each.
std::vector<double> binomial(int n, double p) {
  std::vector<double> out{1.0};
  for (int i = 0; i < n; ++i) {
    out.push_back(0.0);
    for (std::size_t h = out.size() - 1; h > 0; --h) out[h] = out[h] * (1 - p) + out[h - 1] * p;
    out[0] *= 1 - p;
  }
  return out;
}

// A side of `units` units, each rolling one die that hits with probability p, the first `sustain`
// of them taking one hit first (Sustain Damage): after k hits it rolls one die per unit left.
FireSide plain_side(int units, int sustain, double p) {
  FireSide s;
  for (int k = 0; k <= units + sustain; ++k) {
    const int left = std::min(units, units + sustain - k);
    s.hits.push_back(binomial(left, p));
    s.first.push_back(binomial(left, p));
    s.fires.push_back(left > 0 ? 1 : 0);
  }
  return s;
}

}  // namespace

TEST_CASE("fire_chain: plain sides equal the rounds stepped one by one", "[fire_chain]") {
  FireChainOptions o;
  o.counter = 1, o.cap = 2;  // the counter of a combat: 1 in the first round, then 2
  check_against_stepped(plain_side(3, 0, 0.2), plain_side(2, 0, 0.4), o);
  // more hits than the other side can take (they land on its last entry), Sustain Damage
  check_against_stepped(plain_side(6, 2, 0.5), plain_side(2, 1, 0.3), o);
  check_against_stepped(plain_side(1, 0, 0.9), plain_side(8, 0, 0.1), o);
}

TEST_CASE("fire_chain: a counter without a cap, and one capped later", "[fire_chain]") {
  FireChainOptions o;
  o.counter = 0, o.cap = 5;
  check_against_stepped(plain_side(3, 1, 0.3), plain_side(3, 0, 0.3), o);
  o.cap = -1;  // each round its own phase: the rounds end by hits alone (no round misses all)
  FireSide sure = plain_side(2, 0, 1.0);
  check_against_stepped(sure, plain_side(2, 0, 1.0), o);
}

TEST_CASE("fire_chain: the first round rolls otherwise, and a side stops firing before its end",
          "[fire_chain]") {
  FireChainOptions o;
  o.counter = 1, o.cap = 2;
  // a's first round rolls one more die (a modifier until the end of the round)
  FireSide a = plain_side(3, 0, 0.3);
  for (std::size_t k = 0; k < a.first.size(); ++k)
    a.first[k] = binomial(static_cast<int>(a.hits[k].size()), 0.3);
  // d's last two units take hits but do not roll: after 2 hits it no longer fires
  FireSide d;
  for (int k = 0; k <= 4; ++k) {
    const int rolling = std::max(0, 2 - k);
    d.hits.push_back(binomial(rolling, 0.5));
    d.first.push_back(binomial(rolling, 0.5));
    d.fires.push_back(rolling > 0 ? 1 : 0);
  }
  check_against_stepped(a, d, o);
  check_against_stepped(d, a, o);
}
