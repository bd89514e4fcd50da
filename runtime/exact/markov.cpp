#include "exact/markov.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace rb {

void ExactWrites::set(Sym metric, double value) {
  auto it = std::lower_bound(sets.begin(), sets.end(), metric,
                             [](const auto& a, Sym m) { return a.first < m; });
  if (it != sets.end() && it->first == metric)
    it->second = value;
  else
    sets.insert(it, {metric, value});
}

std::uint64_t ExactWrites::hash() const {
  std::uint64_t h = 0x84222325cbf29ce4ull ^ static_cast<std::uint64_t>(outcome + 1);
  for (const auto& [m, v] : sets) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    h = (h ^ static_cast<std::uint64_t>(m)) * 0x100000001b3ull;
    h = (h ^ bits) * 0x100000001b3ull;
  }
  return h;
}

namespace {
std::uint64_t node_hash(int step, const State& state, const ExactWrites& writes) {
  return state.hash() ^ (writes.hash() * 0x9E3779B97F4A7C15ull) ^
         (static_cast<std::uint64_t>(step) * 0xC2B2AE3D27D4EB4Full);
}
}  // namespace

std::uint32_t ExactChain::node(int step, const State& state, const ExactWrites& writes) {
  const std::uint64_t h = node_hash(step, state, writes);
  auto [lo, hi] = by_hash_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    const ExactNode& n = *nodes_[it->second];
    if (n.step == step && n.writes == writes && n.state == state) return it->second;
  }
  auto n = std::make_unique<ExactNode>();
  n->step = step;
  n->state = state;
  n->writes = writes;
  n->hash = h;
  // the node, its state, its writes, its pointer and its entry in the index (a hash node)
  bytes_ += sizeof(ExactNode) + n->state.bytes() + writes.sets.size() * sizeof(writes.sets[0]) +
            writes.outcome_name.size() + sizeof(void*) + 4 * sizeof(void*);
  nodes_.push_back(std::move(n));
  const auto i = static_cast<std::uint32_t>(nodes_.size() - 1);
  by_hash_.emplace(h, i);
  return i;
}

std::int64_t ExactChain::find(int step, const State& state, const ExactWrites& writes) const {
  const std::uint64_t h = node_hash(step, state, writes);
  auto [lo, hi] = by_hash_.equal_range(h);
  for (auto it = lo; it != hi; ++it) {
    const ExactNode& n = *nodes_[it->second];
    if (n.step == step && n.writes == writes && n.state == state) return it->second;
  }
  return -1;
}

void ExactChain::add_edge(std::uint32_t from, ExactEdge edge) {
  for (ExactEdge& e : nodes_[from]->out)
    if (e.to == edge.to && e.adds == edge.adds) {
      e.p += edge.p;
      return;
    }
  bytes_ += sizeof(ExactEdge) + edge.adds.size() * sizeof(edge.adds[0]);
  nodes_[from]->out.push_back(std::move(edge));
}

namespace {

// Strongly connected sets of the nodes reachable from 0, in topological order (a set before
// every set it leads to). Tarjan's algorithm, iterative.
std::vector<std::vector<std::uint32_t>> strongly_connected(const ExactChain& c) {
  const std::size_t n = c.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<char> on_stack(n, 0);
  std::vector<std::uint32_t> stack;
  std::vector<std::vector<std::uint32_t>> sets;
  struct Frame {
    std::uint32_t v;
    std::size_t next;
  };
  std::vector<Frame> frames;
  int counter = 0;
  if (n == 0) return sets;
  frames.push_back({0, 0});
  index[0] = low[0] = counter++;
  stack.push_back(0), on_stack[0] = 1;
  while (!frames.empty()) {
    Frame& f = frames.back();
    const auto& out = c.at(f.v).out;
    if (f.next < out.size()) {
      const std::uint32_t w = out[f.next++].to;
      if (index[w] < 0) {
        index[w] = low[w] = counter++;
        stack.push_back(w), on_stack[w] = 1;
        frames.push_back({w, 0});
      } else if (on_stack[w]) {
        low[f.v] = std::min(low[f.v], index[w]);
      }
      continue;
    }
    const std::uint32_t v = f.v;
    frames.pop_back();
    if (!frames.empty()) low[frames.back().v] = std::min(low[frames.back().v], low[v]);
    if (low[v] == index[v]) {
      std::vector<std::uint32_t> set;
      std::uint32_t w;
      do {
        w = stack.back();
        stack.pop_back(), on_stack[w] = 0;
        set.push_back(w);
      } while (w != v);
      sets.push_back(std::move(set));
    }
  }
  std::reverse(sets.begin(), sets.end());  // Tarjan finishes a set after the sets it leads to
  return sets;
}

// Solves x = b + A x for the nodes of one strongly connected set, A[i][j] the probability of
// going from set[j] to set[i]: (I - A) x = b by Gaussian elimination with partial pivoting, or
// Gauss-Seidel iteration for large sets.
void solve_set(const ExactChain& c, const std::vector<std::uint32_t>& set,
               const std::unordered_map<std::uint32_t, std::size_t>& pos, std::vector<double>& x) {
  const std::size_t k = set.size();
  if (k <= 400) {
    std::vector<double> m(k * (k + 1), 0.0);  // row i: (I - A)[i][*], then b[i]
    for (std::size_t i = 0; i < k; ++i) {
      m[i * (k + 1) + i] = 1;
      m[i * (k + 1) + k] = x[set[i]];
    }
    for (std::size_t j = 0; j < k; ++j)
      for (const ExactEdge& e : c.at(set[j]).out)
        if (auto it = pos.find(e.to); it != pos.end()) m[it->second * (k + 1) + j] -= e.p;
    for (std::size_t col = 0; col < k; ++col) {
      std::size_t piv = col;
      for (std::size_t r = col + 1; r < k; ++r)
        if (std::abs(m[r * (k + 1) + col]) > std::abs(m[piv * (k + 1) + col])) piv = r;
      if (piv != col)
        for (std::size_t q = 0; q <= k; ++q) std::swap(m[col * (k + 1) + q], m[piv * (k + 1) + q]);
      const double d = m[col * (k + 1) + col];
      if (d == 0) continue;  // a set the run never leaves: its mass stays (reported unresolved)
      for (std::size_t r = 0; r < k; ++r) {
        if (r == col) continue;
        const double f = m[r * (k + 1) + col] / d;
        if (f == 0) continue;
        for (std::size_t q = col; q <= k; ++q) m[r * (k + 1) + q] -= f * m[col * (k + 1) + q];
      }
    }
    for (std::size_t i = 0; i < k; ++i) {
      const double d = m[i * (k + 1) + i];
      x[set[i]] = d == 0 ? 0 : m[i * (k + 1) + k] / d;
    }
    return;
  }
  std::vector<double> b(k);
  for (std::size_t i = 0; i < k; ++i) b[i] = x[set[i]];
  // incoming probability of each node from inside the set
  std::vector<std::vector<std::pair<std::size_t, double>>> in(k);
  for (std::size_t j = 0; j < k; ++j)
    for (const ExactEdge& e : c.at(set[j]).out)
      if (auto it = pos.find(e.to); it != pos.end()) in[it->second].push_back({j, e.p});
  std::vector<double> v = b;
  for (int iter = 0; iter < 100000; ++iter) {
    double change = 0, total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      double s = b[i], self = 0;
      for (const auto& [j, p] : in[i]) {
        if (j == i)
          self += p;
        else
          s += p * v[j];
      }
      const double nv = self < 1 ? s / (1 - self) : s;
      change += std::abs(nv - v[i]), total += nv;
      v[i] = nv;
    }
    if (change <= 1e-17 * std::max(1.0, total)) break;
  }
  for (std::size_t i = 0; i < k; ++i) x[set[i]] = v[i];
}

}  // namespace

ExactChain::Solution ExactChain::solve(int steps) const {
  Solution s;
  const std::size_t n = size();
  s.reach.assign(n, 0.0);
  if (n == 0) return s;
  std::vector<double>& x = s.reach;  // inflow, then the solution, set by set
  x[0] = 1;
  std::map<Sym, double> added;
  std::unordered_map<std::uint32_t, std::size_t> pos;
  for (const auto& set : strongly_connected(*this)) {
    pos.clear();
    if (set.size() == 1) {
      const std::uint32_t v = set[0];
      double self = 0;
      for (const ExactEdge& e : at(v).out) self += e.to == v ? e.p : 0;
      if (self > 0 && self < 1) x[v] /= 1 - self;
    } else {
      for (std::size_t i = 0; i < set.size(); ++i) pos[set[i]] = i;
      solve_set(*this, set, pos, x);
      ++s.sets;
      s.largest_set = std::max(s.largest_set, set.size());
    }
    for (const std::uint32_t v : set) {
      const ExactNode& node = at(v);
      if (node.step != steps && node.out.empty()) s.unresolved += x[v];
      for (const ExactEdge& e : node.out) {
        for (const auto& [m, a] : e.adds) added[m] += x[v] * e.p * a;
        const bool inside = set.size() == 1 ? e.to == v : pos.count(e.to) > 0;
        if (!inside) x[e.to] += x[v] * e.p;
      }
    }
  }
  s.added.assign(added.begin(), added.end());
  return s;
}

}  // namespace rb
