#include "exact/process.hpp"

#include <cmath>

namespace rb {

namespace {

// Whether option b's value beats a: ties (to rounding) keep a (as best play's trees do).
bool better(double b, double a) {
  return b > a + 1e-12 * std::abs(a);
}

}  // namespace

bool CombatProcess::finish() {
  const std::size_t n = rounds.size();
  std::vector<std::uint32_t> into(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::uint32_t r = rounds[i].first; r < rounds[i].first + rounds[i].count; ++r)
      for (std::uint32_t m = rolls[r].first; m < rolls[r].first + rolls[r].count; ++m)
        if (!moves[m].end && moves[m].to != i) ++into[moves[m].to];
  order.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (into[i] == 0) order.push_back(static_cast<std::uint32_t>(i));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Round& round = rounds[order[k]];
    for (std::uint32_t r = round.first; r < round.first + round.count; ++r)
      for (std::uint32_t m = rolls[r].first; m < rolls[r].first + rolls[r].count; ++m)
        if (!moves[m].end && moves[m].to != order[k] && --into[moves[m].to] == 0)
          order.push_back(moves[m].to);
  }
  return order.size() == n && (n == 0 || order[0] == 0);
}

std::vector<double> CombatProcess::values(std::span<const double> end_values, double round_reward,
                                          bool maximise, std::vector<std::uint32_t>* choice) const {
  std::vector<double> V(rounds.size(), 0.0);
  if (choice) choice->assign(rolls.size(), 0);
  auto worth = [&](const Move& m) { return m.end ? end_values[m.to] : round_reward + V[m.to]; };
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::uint32_t i = order[k];
    const Round& round = rounds[i];
    double sum = 0;
    for (std::uint32_t r = round.first; r < round.first + round.count; ++r) {
      const Roll& roll = rolls[r];
      double pick = worth(moves[roll.first]);
      std::uint32_t picked = 0;
      if (maximise)
        for (std::uint32_t o = 1; o < roll.count; ++o) {
          const double w = worth(moves[roll.first + o]);
          if (better(w, pick)) pick = w, picked = o;
        }
      if (choice) (*choice)[r] = picked;
      sum += roll.p * pick;
    }
    // a round where nobody is hit begins another round from the same state
    V[i] = round.self > 0 && round.self < 1 ? (sum + round.self * round_reward) / (1 - round.self)
                                            : sum;
  }
  return V;
}

void CombatProcess::play(std::span<const std::uint32_t> choice, std::vector<double>& p_end,
                         std::vector<double>& rounds_end) const {
  p_end.assign(ends, 0.0), rounds_end.assign(ends, 0.0);
  // by round's state: the chance of reaching it, and that chance times the rounds begun so far
  std::vector<double> p(rounds.size(), 0.0), r(rounds.size(), 0.0);
  if (!rounds.empty()) p[0] = 1;
  for (const std::uint32_t i : order) {
    const Round& round = rounds[i];
    if (p[i] == 0) continue;
    // visits of the state: each self-loop another round begun
    const double s = round.self > 0 && round.self < 1 ? round.self : 0;
    const double visits = 1 / (1 - s);
    const double out_p = p[i] * visits, out_r = r[i] * visits + p[i] * s * visits * visits;
    for (std::uint32_t k = round.first; k < round.first + round.count; ++k) {
      const Roll& roll = rolls[k];
      const Move& m = moves[roll.first + choice[k]];
      const double q = roll.p;
      if (m.end) {
        p_end[m.to] += out_p * q, rounds_end[m.to] += out_r * q;
      } else {
        p[m.to] += out_p * q, r[m.to] += (out_r + out_p) * q;  // a new round begins
      }
    }
  }
  for (std::uint32_t e = 0; e < ends; ++e)
    if (p_end[e] > 0) rounds_end[e] /= p_end[e];
}

}  // namespace rb
