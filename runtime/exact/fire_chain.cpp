#include "exact/fire_chain.hpp"

#include <algorithm>
#include <tuple>

namespace rb {

// The rounds in phases: the first round (the counter at its start, no round ended), then one
// phase per value the counter takes after each round; once it stops moving the phase repeats
// (a round leads back into it). Each phase is a dense table over (hits taken by a, by d); a
// round moves mass from (ka, kd) to (ka + j, kd + i), never to a smaller index, so a phase is
// swept in index order, a saturated phase's own entries included.
std::vector<FireEnd> fire_chain(const FireSide& a, const FireSide& d, const FireChainOptions& o,
                                double& unresolved) {
  const int na_max = static_cast<int>(a.hits.size()), nd_max = static_cast<int>(d.hits.size());
  const std::size_t cells = static_cast<std::size_t>(na_max) * static_cast<std::size_t>(nd_max);
  auto at = [nd_max](int ka, int kd) {
    return static_cast<std::size_t>(ka) * static_cast<std::size_t>(nd_max) +
           static_cast<std::size_t>(kd);
  };
  auto next_of = [&](std::int64_t c) {
    return o.cap >= 0 ? std::min(c + 1, std::max(o.cap, c)) : c + 1;
  };
  // probability, and the sum of probability x rounds fought so far
  std::vector<double> p(cells, 0.0), r(cells, 0.0), np(cells, 0.0), nr(cells, 0.0);
  std::vector<double> ep(cells, 0.0), er(cells, 0.0);  // the ends of the phase being swept
  std::vector<FireEnd> out;
  p[0] = 1;
  std::int64_t counter = o.counter;
  bool several = false;
  for (;;) {
    const std::int64_t next_counter = next_of(counter);
    // a saturated phase: its rounds lead back into it
    const bool loops = several && next_counter == counter;
    std::fill(ep.begin(), ep.end(), 0.0), std::fill(er.begin(), er.end(), 0.0);
    bool open = false;  // mass moved on into the next phase
    for (int ka = 0; ka < na_max; ++ka)
      for (int kd = 0; kd < nd_max; ++kd) {
        const std::size_t k = at(ka, kd);
        const double in_p = p[k], in_r = r[k];
        if (in_p == 0) continue;
        p[k] = 0, r[k] = 0;
        if (in_p < o.epsilon) {
          unresolved += in_p;
          continue;
        }
        const auto& ha = (several ? a.hits : a.first)[static_cast<std::size_t>(ka)];
        const auto& hd = (several ? d.hits : d.first)[static_cast<std::size_t>(kd)];
        // a round where nobody is hit leads back here when the counter no longer moves
        const double stay = loops ? ha[0] * hd[0] : 0;
        const double visits = 1 / (1 - stay);
        // mass leaving by edge q: p * q * visits; rounds: r * q * visits + p * q * visits^2
        const double mp = in_p * visits, mr = in_r * visits + in_p * visits * visits;
        for (std::size_t i = 0; i < ha.size(); ++i) {
          if (ha[i] == 0) continue;
          const int nd = std::min(nd_max - 1, kd + static_cast<int>(i));
          const bool d_fires = d.fires[static_cast<std::size_t>(nd)];
          const double pi = mp * ha[i], ri = mr * ha[i];
          for (std::size_t j = 0; j < hd.size(); ++j) {
            const double q = hd[j];
            if (q == 0 || (i == 0 && j == 0 && stay > 0)) continue;
            const int na = std::min(na_max - 1, ka + static_cast<int>(j));
            const std::size_t t = at(na, nd);
            if (d_fires && a.fires[static_cast<std::size_t>(na)]) {
              // the next round: in this phase when it loops (a later index), else the next
              (loops ? p : np)[t] += pi * q, (loops ? r : nr)[t] += ri * q;
              open = open || !loops;
            } else {
              ep[t] += pi * q, er[t] += ri * q;
            }
          }
        }
      }
    for (std::size_t k = 0; k < cells; ++k)
      if (ep[k] > 0)
        out.push_back({static_cast<int>(k / static_cast<std::size_t>(nd_max)),
                       static_cast<int>(k % static_cast<std::size_t>(nd_max)), counter, several,
                       ep[k], er[k] / ep[k]});
    if (!open) break;
    std::swap(p, np), std::swap(r, nr);
    counter = next_counter, several = true;
  }
  // in the order of (hits taken by a, by d, counter, several): the order the ends are drawn in
  std::sort(out.begin(), out.end(), [](const FireEnd& x, const FireEnd& y) {
    return std::tie(x.ka, x.kd, x.counter, x.several) < std::tie(y.ka, y.kd, y.counter, y.several);
  });
  return out;
}

}  // namespace rb
