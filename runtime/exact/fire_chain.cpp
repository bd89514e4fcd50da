#include "exact/fire_chain.hpp"

#include <algorithm>
#include <tuple>

namespace rb {

namespace {
// (probability, probability x rounds) of a cell of the chain's table
typedef double Mass __attribute__((vector_size(2 * sizeof(double))));
}  // namespace

// The rounds in phases: the first round (the counter at its start, no round ended), then one
// phase per value the counter takes after each round; once it stops moving the phase repeats
// (a round leads back into it). Each phase is a dense table over (hits taken by d, by a), a's
// hits the inner index; a round moves mass from (kd, ka) to (kd + i, ka + j), never to a smaller
// index, so a phase is swept in index order, a saturated phase's own entries included. For one
// number of hits i that a rolls, d's hits j land on consecutive entries of one row (the ones past
// what a can take all on its last entry): the inner loop is a plain multiply-add over a row.
std::vector<FireEnd> fire_chain(const FireSide& a, const FireSide& d, const FireChainOptions& o,
                                double& unresolved) {
  const int na_max = static_cast<int>(a.hits.size()), nd_max = static_cast<int>(d.hits.size());
  const std::size_t cells = static_cast<std::size_t>(na_max) * static_cast<std::size_t>(nd_max);
  auto at = [na_max](int ka, int kd) {
    return static_cast<std::size_t>(kd) * static_cast<std::size_t>(na_max) +
           static_cast<std::size_t>(ka);
  };
  auto next_of = [&](std::int64_t c) {
    return o.cap >= 0 ? std::min(c + 1, std::max(o.cap, c)) : c + 1;
  };
  // tail[k][j]: the probability of rolling j or more hits (d's rolls, by the hits d has taken)
  auto tails = [](const std::vector<std::vector<double>>& rolls) {
    std::vector<std::vector<double>> out(rolls.size());
    for (std::size_t k = 0; k < rolls.size(); ++k) {
      out[k].assign(rolls[k].size() + 1, 0.0);
      for (std::size_t j = rolls[k].size(); j-- > 0;) out[k][j] = out[k][j + 1] + rolls[k][j];
    }
    return out;
  };
  const std::vector<std::vector<double>> d_first_tail = tails(d.first), d_hits_tail = tails(d.hits);
  // a_run[k]: the first of a's entries past k where whether a fires changes (or na_max)
  std::vector<int> a_run(static_cast<std::size_t>(na_max));
  for (int k = na_max; k-- > 0;) {
    const auto u = static_cast<std::size_t>(k);
    a_run[u] = k + 1 < na_max && a.fires[u + 1] == a.fires[u] ? a_run[u + 1] : k + 1;
  }
  // each cell's probability and sum of probability x rounds fought so far, as one pair: a
  // round's move adds (pi, ri) x q to both at once (two lanes of one vector, each lane the same
  // multiply and add as two scalars, so the sums are the same to the bit)
  std::vector<Mass> p(cells, Mass{}), np(cells, Mass{});
  std::vector<Mass> e(cells, Mass{});  // the ends of the phase being swept
  std::vector<FireEnd> out;
  p[0] = Mass{1, 0};
  std::int64_t counter = o.counter;
  bool several = false;
  for (;;) {
    const std::int64_t next_counter = next_of(counter);
    // a saturated phase: its rounds lead back into it
    const bool loops = several && next_counter == counter;
    std::fill(e.begin(), e.end(), Mass{});
    bool open = false;                              // mass moved on into the next phase
    Mass* const go = loops ? p.data() : np.data();  // where a round that goes on leads
    for (int kd = 0; kd < nd_max; ++kd)
      for (int ka = 0; ka < na_max; ++ka) {
        const std::size_t k = at(ka, kd);
        const double in_p = p[k][0], in_r = p[k][1];
        if (in_p == 0) continue;
        p[k] = Mass{};
        if (in_p < o.epsilon) {
          unresolved += in_p;
          continue;
        }
        const auto& ha = (several ? a.hits : a.first)[static_cast<std::size_t>(ka)];
        const auto& hd = (several ? d.hits : d.first)[static_cast<std::size_t>(kd)];
        const auto& hd_tail = (several ? d_hits_tail : d_first_tail)[static_cast<std::size_t>(kd)];
        // a round where nobody is hit leads back here when the counter no longer moves
        const double stay = loops ? ha[0] * hd[0] : 0;
        const double visits = 1 / (1 - stay);
        // mass leaving by edge q: p * q * visits; rounds: r * q * visits + p * q * visits^2
        const double mp = in_p * visits, mr = in_r * visits + in_p * visits * visits;
        // d's hits j < span land on a's entries ka + j; those from span on, on the last
        const int hd_n = static_cast<int>(hd.size());
        const int span = std::min(hd_n, na_max - 1 - ka);
        const double* const q = hd.data();
        for (std::size_t i = 0; i < ha.size(); ++i) {
          if (ha[i] == 0) continue;
          const int nd = std::min(nd_max - 1, kd + static_cast<int>(i));
          const bool d_fires = d.fires[static_cast<std::size_t>(nd)];
          const Mass m = {mp * ha[i], mr * ha[i]};
          const std::size_t row = at(0, nd);
          // the self-loop (nobody hit) is divided out above
          const int j0 = i == 0 && stay > 0 ? 1 : 0;
          for (int j = j0; j < span;) {
            // a run of a's entries that all go on, or all end
            const bool goes_on = d_fires && a.fires[static_cast<std::size_t>(ka + j)];
            const int end =
                d_fires ? std::min(span, a_run[static_cast<std::size_t>(ka + j)] - ka) : span;
            Mass* const t = (goes_on ? go : e.data()) + row + static_cast<std::size_t>(ka);
            for (int jj = j; jj < end; ++jj) t[jj] += m * q[jj];
            open = open || (goes_on && !loops);
            j = end;
          }
          const int from = std::max(span, j0);
          if (from < hd_n) {  // a takes all it can
            const double tail = hd_tail[static_cast<std::size_t>(from)];
            if (tail == 0) continue;
            const std::size_t t = row + static_cast<std::size_t>(na_max - 1);
            if (d_fires && a.fires[static_cast<std::size_t>(na_max - 1)]) {
              go[t] += m * tail;
              open = open || !loops;
            } else {
              e[t] += m * tail;
            }
          }
        }
      }
    for (std::size_t k = 0; k < cells; ++k)
      if (e[k][0] > 0)
        out.push_back({static_cast<int>(k % static_cast<std::size_t>(na_max)),
                       static_cast<int>(k / static_cast<std::size_t>(na_max)), counter, several,
                       e[k][0], e[k][1] / e[k][0]});
    if (!open) break;
    std::swap(p, np);
    counter = next_counter, several = true;
  }
  // in the order of (hits taken by a, by d, counter, several): the order the ends are drawn in
  std::sort(out.begin(), out.end(), [](const FireEnd& x, const FireEnd& y) {
    return std::tie(x.ka, x.kd, x.counter, x.several) < std::tie(y.ka, y.kd, y.counter, y.several);
  });
  return out;
}

}  // namespace rb
