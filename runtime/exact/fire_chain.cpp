#include "exact/fire_chain.hpp"

#include <algorithm>
#include <tuple>

namespace rb {

namespace {
// (probability, probability x rounds) of a cell of the chain's table
typedef double Mass __attribute__((vector_size(2 * sizeof(double))));

// A side's rolls by (hits taken, spent so far) as (hits after spending, spent this round, p),
// in the order of (hits, spent): a side that spends nothing has its hits[k] alone.
struct Spends {
  struct Step {
    int hits = 0, spent = 0;
    double p = 0;
  };
  std::vector<std::vector<Step>> at[2];  // [several][k * width + spent]
  int width = 1;  // spent so far: 0 .. width - 1 (1: its rolls spend nothing)
  const std::vector<Step>& of(bool several, int k, std::int64_t spent) const {
    return at[several ? 1 : 0][static_cast<std::size_t>(k) * static_cast<std::size_t>(width) +
                               static_cast<std::size_t>(width > 1 ? spent : 0)];
  }
};

Spends spends_of(const FireSide& x, int width) {
  Spends out;
  if (x.near.empty()) width = 1;  // its rolls are the same whatever it has paid
  out.width = width;
  for (int several = 0; several < 2; ++several) {
    const auto& rolls = several ? x.hits : x.first;
    const auto& ways = several ? x.near : x.near_first;
    for (std::size_t k = 0; k < rolls.size(); ++k)
      for (int spent = 0; spent < width; ++spent) {
        std::vector<Spends::Step> steps;
        if (ways.empty()) {
          for (std::size_t i = 0; i < rolls[k].size(); ++i)
            if (rolls[k][i] != 0) steps.push_back({static_cast<int>(i), 0, rolls[k][i]});
        } else {
          const std::int64_t left = x.spendable - spent;
          for (const FireSide::Way& w : ways[k]) {
            const int m =
                static_cast<int>(std::min<std::int64_t>(w.near, std::max<std::int64_t>(left, 0)));
            steps.push_back({w.hits + m, m, w.p});
          }
          std::sort(steps.begin(), steps.end(), [](const Spends::Step& u, const Spends::Step& v) {
            return std::tie(u.hits, u.spent) < std::tie(v.hits, v.spent);
          });
          std::size_t n = 0;  // equal (hits, spent) merged
          for (std::size_t i = 0; i < steps.size(); ++i)
            if (n > 0 && steps[n - 1].hits == steps[i].hits && steps[n - 1].spent == steps[i].spent)
              steps[n - 1].p += steps[i].p;
            else
              steps[n++] = steps[i];
          steps.resize(n);
        }
        out.at[several].push_back(std::move(steps));
      }
  }
  return out;
}

// The most a side can spend in the whole exchange (FireSide::near): each spent one is a hit the
// other side takes, and while the rounds go on the other side has taken fewer than it can take
// (when it stops firing once it can take no more), so it is at most that less one plus the most
// near misses of one roll. Else what it has.
std::int64_t spend_bound(const FireSide& x, const FireSide& other) {
  // a side that repairs: every repair it can pay for (no bound holds: a round in which it takes
  // one hit, sustains and repairs can follow another without end)
  if (!x.takes.empty()) return x.repair_cost > 0 ? x.spendable / x.repair_cost : 0;
  if (x.near.empty() || x.spendable <= 0) return 0;
  int most = 0;
  for (const auto* ways : {&x.near, &x.near_first})
    for (const auto& roll : *ways)
      for (const FireSide::Way& w : roll) most = std::max(most, w.near);
  const int other_max = static_cast<int>(other.hits.size());
  if (other.fires.empty() || other.fires.back()) return x.spendable;
  return std::min<std::int64_t>(x.spendable, std::max(0, other_max - 2) + most);
}

// Where a side is after taking `hits` in a round from k (its repairs paid so far `paid`, at most
// `most`): k + hits (at most its last entry), or for a side that repairs, its takes with as many
// repairs as the round makes and it can still pay for, added to `paid`.
int takes_to(const FireSide& x, int k, int hits, std::int64_t paid, std::int64_t most, int n_max,
             std::int64_t& paid_after) {
  if (x.takes.empty()) return std::min(n_max - 1, k + hits);
  const auto& row = x.takes[static_cast<std::size_t>(k)];
  const auto& to =
      row[static_cast<std::size_t>(std::min<int>(hits, static_cast<int>(row.size()) - 1))];
  const std::int64_t r =
      std::min<std::int64_t>(static_cast<std::int64_t>(to.size()) - 1, most - paid);
  paid_after = paid + r;
  return to[static_cast<std::size_t>(r)];
}

// fire_chain with a side that spends: the states are (kd, ka, spent by a, spent by d), in that
// order of significance; a round moves mass to an entry no smaller in each, so a phase is swept in
// index order as the plain chain is.
std::vector<FireEnd> spend_chain(const FireSide& a, const FireSide& d, const FireChainOptions& o,
                                 double& unresolved) {
  const int na_max = static_cast<int>(a.hits.size()), nd_max = static_cast<int>(d.hits.size());
  const std::int64_t bound_a = spend_bound(a, d), bound_d = spend_bound(d, a);
  const auto wa = static_cast<std::size_t>(bound_a + 1), wd = static_cast<std::size_t>(bound_d + 1);
  const std::size_t cells =
      static_cast<std::size_t>(na_max) * static_cast<std::size_t>(nd_max) * wa * wd;
  if (static_cast<double>(na_max) * nd_max * static_cast<double>(wa) * static_cast<double>(wd) >
      static_cast<double>(o.max_cells))
    return {};
  const Spends sa = spends_of(a, static_cast<int>(wa)), sd = spends_of(d, static_cast<int>(wd));
  auto at = [&](int ka, int kd, std::int64_t xa, std::int64_t xd) {
    return ((static_cast<std::size_t>(kd) * static_cast<std::size_t>(na_max) +
             static_cast<std::size_t>(ka)) *
                wa +
            static_cast<std::size_t>(xa)) *
               wd +
           static_cast<std::size_t>(xd);
  };
  auto next_of = [&](std::int64_t c) {
    return o.cap >= 0 ? std::min(c + 1, std::max(o.cap, c)) : c + 1;
  };
  std::vector<double> p(cells, 0.0), r(cells, 0.0), np(cells, 0.0), nr(cells, 0.0);
  std::vector<double> ep(cells, 0.0), er(cells, 0.0);
  std::vector<FireEnd> out;
  p[0] = 1;
  std::int64_t counter = o.counter;
  bool several = false;
  for (;;) {
    const std::int64_t next_counter = next_of(counter);
    const bool loops = several && next_counter == counter;
    std::fill(ep.begin(), ep.end(), 0.0), std::fill(er.begin(), er.end(), 0.0);
    bool open = false;
    double* const go_p = loops ? p.data() : np.data();
    double* const go_r = loops ? r.data() : nr.data();
    for (std::size_t k = 0; k < cells; ++k) {
      const double in_p = p[k], in_r = r[k];
      if (in_p == 0) continue;
      p[k] = 0, r[k] = 0;
      if (in_p < o.epsilon) {
        unresolved += in_p;
        continue;
      }
      const auto xd = static_cast<std::int64_t>(k % wd);
      const auto xa = static_cast<std::int64_t>((k / wd) % wa);
      const int ka = static_cast<int>((k / wd / wa) % static_cast<std::size_t>(na_max));
      const int kd = static_cast<int>(k / wd / wa / static_cast<std::size_t>(na_max));
      const auto& ha = sa.of(several, ka, xa);
      const auto& hd = sd.of(several, kd, xd);
      double none_a = 0, none_d = 0;  // no hit (nor anything spent)
      for (const Spends::Step& u : ha) none_a += u.hits == 0 ? u.p : 0;
      for (const Spends::Step& u : hd) none_d += u.hits == 0 ? u.p : 0;
      const double stay = loops ? none_a * none_d : 0;
      const double visits = 1.0 / (1.0 - stay);
      const double mp = in_p * visits, mr = in_r * visits + in_p * visits * visits;
      for (const Spends::Step& u : ha) {
        std::int64_t td0 = xd;
        const int nd = takes_to(d, kd, u.hits, xd, bound_d, nd_max, td0);
        const bool d_fires = d.fires[static_cast<std::size_t>(nd)];
        const double pi = mp * u.p, ri = mr * u.p;
        for (const Spends::Step& v : hd) {
          if (loops && u.hits == 0 && v.hits == 0) continue;  // the self-loop, divided out
          std::int64_t ta = xa;
          const int na = takes_to(a, ka, v.hits, xa, bound_a, na_max, ta);
          ta += u.spent;
          const std::int64_t td = td0 + v.spent;
          if (ta >= static_cast<std::int64_t>(wa) || td >= static_cast<std::int64_t>(wd))
            return {};  // past spend_bound: cannot happen
          const std::size_t t = at(na, nd, ta, td);
          const bool goes_on = d_fires && a.fires[static_cast<std::size_t>(na)];
          if (goes_on) {
            go_p[t] += pi * v.p, go_r[t] += ri * v.p;
            open = open || !loops;
          } else {
            ep[t] += pi * v.p, er[t] += ri * v.p;
          }
        }
      }
    }
    for (std::size_t k = 0; k < cells; ++k)
      if (ep[k] > 0) {
        FireEnd e;
        // (a side that repairs keeps its repairs paid: each costs repair_cost)
        e.spent_d = static_cast<std::int64_t>(k % wd) * (d.takes.empty() ? 1 : d.repair_cost);
        e.spent_a =
            static_cast<std::int64_t>((k / wd) % wa) * (a.takes.empty() ? 1 : a.repair_cost);
        e.ka = static_cast<int>((k / wd / wa) % static_cast<std::size_t>(na_max));
        e.kd = static_cast<int>(k / wd / wa / static_cast<std::size_t>(na_max));
        e.counter = counter, e.several = several, e.p = ep[k], e.rounds = er[k] / ep[k];
        out.push_back(e);
      }
    if (!open) break;
    std::swap(p, np), std::swap(r, nr);
    counter = next_counter, several = true;
  }
  std::sort(out.begin(), out.end(), [](const FireEnd& x, const FireEnd& y) {
    return std::tie(x.ka, x.kd, x.counter, x.several, x.spent_a, x.spent_d) <
           std::tie(y.ka, y.kd, y.counter, y.several, y.spent_a, y.spent_d);
  });
  return out;
}

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
  if (!a.near.empty() || !d.near.empty() || !a.takes.empty() || !d.takes.empty())
    return spend_chain(a, d, o, unresolved);
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
