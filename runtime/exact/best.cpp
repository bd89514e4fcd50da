#include "exact/best.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace rb {

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// The draw at `d` of a leaf (kNone past its end), its choice mark kept.
std::uint32_t draw_at(const ExactTreeLeaf& l, std::size_t d) {
  return d < l.draws.size() ? l.draws[d] : kNone;
}

// Whether option b's weight beats the best so far, a: ties (to rounding) keep the lower index.
bool better(double b, double a) {
  return b > a + 1e-12 * std::abs(a);
}

// The tree of one node evaluated with the values V: its leaves [lo, hi) share their first d
// draws. The sum of p x V(to) over the leaves, where at a choice only the best option's
// leaves count (each option's leaves carry the same prefix, so the largest sum is the best).
// `keep`, when given, gets the leaves the best options keep.
double evaluate(const std::vector<ExactTreeLeaf>& leaves, std::size_t lo, std::size_t hi,
                std::size_t d, const std::vector<double>& V, std::vector<std::size_t>* keep) {
  bool choice_below = false;
  for (std::size_t i = lo; i < hi && !choice_below; ++i)
    choice_below = leaves[i].last_choice >= static_cast<int>(d);
  if (!choice_below) {
    double s = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      s += leaves[i].p * V[leaves[i].to];
      if (keep) keep->push_back(i);
    }
    return s;
  }
  const std::uint32_t first = draw_at(leaves[lo], d);
  const bool choice = first != kNone && (first & ExactTreeLeaf::kChoice) != 0;
  double total = 0, best = -1;
  std::size_t best_lo = lo, best_hi = lo;
  for (std::size_t i = lo; i < hi;) {
    const std::uint32_t v = draw_at(leaves[i], d);
    std::size_t j = i + 1;
    while (j < hi && draw_at(leaves[j], d) == v) ++j;
    if (!choice) {
      total += evaluate(leaves, i, j, d + 1, V, keep);
    } else {
      const double w = v == kNone ? 0 : evaluate(leaves, i, j, d + 1, V, nullptr);
      if (best < 0 || better(w, best)) best = w, best_lo = i, best_hi = j;
    }
    i = j;
  }
  if (!choice) return total;
  if (keep) evaluate(leaves, best_lo, best_hi, d + 1, V, keep);
  return best;
}

}  // namespace

BestPlay best_play(ExactChain& chain, const std::vector<ExactTree>& trees, int steps,
                   const std::vector<double>& final_values, std::size_t max_sweeps) {
  BestPlay r;
  const std::size_t n = chain.size();
  r.choice_nodes = trees.size();
  if (n == 0) return r;
  std::vector<double> V(n, 0.0);
  std::vector<std::int32_t> tree_of(n, -1);
  for (std::size_t t = 0; t < trees.size(); ++t)
    tree_of[trees[t].node] = static_cast<std::int32_t>(t);
  for (std::size_t v = 0; v < n; ++v) {
    const ExactNode& node = chain.at(static_cast<std::uint32_t>(v));
    if (node.step != steps) continue;
    const int o = node.writes.outcome;
    if (o >= 0 && static_cast<std::size_t>(o) < final_values.size())
      V[v] = final_values[static_cast<std::size_t>(o)];
  }
  // value iteration from below, in place, the nodes in reverse order of exploration (a node's
  // successors were mostly found after it): one sweep settles what does not come back
  r.settled = false;
  while (r.iterations < max_sweeps) {
    ++r.iterations;
    double change = 0;
    for (std::size_t v = n; v-- > 0;) {
      const ExactNode& node = chain.at(static_cast<std::uint32_t>(v));
      if (node.step == steps || node.out.empty()) continue;  // final, or never expanded
      double value;
      if (tree_of[v] >= 0) {
        const auto& leaves = trees[static_cast<std::size_t>(tree_of[v])].leaves;
        value = evaluate(leaves, 0, leaves.size(), 0, V, nullptr);
      } else {
        double s = 0, self = 0;
        for (const ExactEdge& e : node.out)
          if (e.to == v)
            self += e.p;
          else
            s += e.p * V[e.to];
        value = self > 0 && self < 1 ? s / (1 - self) : s;
      }
      change = std::max(change, std::abs(value - V[v]));
      V[v] = value;
    }
    if (change < 1e-13) {
      r.settled = true;
      break;
    }
  }
  r.value = V[0];
  // every choice fixed at its best option: the node's edges are the leaves it keeps
  std::vector<std::size_t> keep;
  for (const ExactTree& t : trees) {
    keep.clear();
    evaluate(t.leaves, 0, t.leaves.size(), 0, V, &keep);
    ExactNode& node = chain.at(t.node);
    node.out.clear();
    for (std::size_t i : keep) {
      const ExactTreeLeaf& l = t.leaves[i];
      chain.add_edge(t.node, {l.p, l.to, l.adds});
    }
  }
  return r;
}

}  // namespace rb
