#include "exact/fire_chain.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace rb {

std::vector<FireEnd> fire_chain(const FireSide& a, const FireSide& d, const FireChainOptions& o,
                                double& unresolved) {
  const int max_a = static_cast<int>(a.hits.size()) - 1, max_d = static_cast<int>(d.hits.size()) - 1;
  // a state before a round: every transition goes to a larger key, or to itself
  struct Key {
    int total;
    std::int64_t counter;
    bool several;
    int ka;
    auto tie() const { return std::tie(total, counter, several, ka); }
    bool operator<(const Key& k) const { return tie() < k.tie(); }
  };
  struct Mass {
    double p = 0, r = 0;  // probability, and the sum of probability x rounds fought so far
  };
  std::map<Key, Mass> open;
  std::map<std::tuple<int, int, std::int64_t, bool>, Mass> ends;
  open[{0, o.counter, false, 0}] = {1, 0};
  while (!open.empty()) {
    const auto [key, in] = *open.begin();
    open.erase(open.begin());
    const int ka = key.ka, kd = key.total - key.ka;
    if (in.p < o.epsilon) {
      unresolved += in.p;
      continue;
    }
    const auto& ha = (key.several ? a.hits : a.first)[static_cast<std::size_t>(ka)];
    const auto& hd = (key.several ? d.hits : d.first)[static_cast<std::size_t>(kd)];
    const std::int64_t next_counter =
        o.cap >= 0 ? std::min(key.counter + 1, std::max(o.cap, key.counter)) : key.counter + 1;
    // a round where nobody is hit leads back here when the counter no longer moves
    const double stay = next_counter == key.counter && key.several ? ha[0] * hd[0] : 0;
    const double visits = 1 / (1 - stay);
    // mass leaving by edge q: p * q * visits; rounds: r * q * visits + p * q * visits^2
    for (std::size_t i = 0; i < ha.size(); ++i) {
      if (ha[i] == 0) continue;
      for (std::size_t j = 0; j < hd.size(); ++j) {
        const double q = ha[i] * hd[j];
        if (q == 0 || (i == 0 && j == 0 && stay > 0)) continue;
        const int na = std::min(max_a, ka + static_cast<int>(j));
        const int nd = std::min(max_d, kd + static_cast<int>(i));
        const Mass out{in.p * q * visits, in.r * q * visits + in.p * q * visits * visits};
        if (a.fires[static_cast<std::size_t>(na)] && d.fires[static_cast<std::size_t>(nd)]) {
          Mass& m = open[{na + nd, next_counter, true, na}];
          m.p += out.p, m.r += out.r;
        } else {
          Mass& m = ends[{na, nd, key.counter, key.several}];
          m.p += out.p, m.r += out.r;
        }
      }
    }
  }
  std::vector<FireEnd> out;
  out.reserve(ends.size());
  for (const auto& [k, m] : ends)
    out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), m.p,
                   m.p > 0 ? m.r / m.p : 0});
  return out;
}

}  // namespace rb
