#include "exact/best.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <random>
#include <unordered_map>

namespace rb {

namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::uint32_t kFlags =
    ExactTreeLeaf::kChoice | ExactTreeLeaf::kSecond | ExactTreeLeaf::kProcess;

// A side's choices fixed: (tree, depth, first leaf) -> option index; absent: option 0, the
// policy's own.
using Fixed = std::unordered_map<std::uint64_t, std::uint32_t>;

std::uint64_t key_of(std::size_t tree, std::size_t d, std::size_t lo) {
  return (static_cast<std::uint64_t>(tree) << 40) | (static_cast<std::uint64_t>(d) << 20) | lo;
}

std::uint32_t fixed_at(const Fixed& f, std::uint64_t key) {
  const auto it = f.find(key);
  return it == f.end() ? 0 : it->second;
}

// The draw at `d` of a leaf (kNone past its end), its choice marks kept.
std::uint32_t draw_at(const ExactTreeLeaf& l, std::size_t d) {
  return d < l.draws.size() ? l.draws[d] : kNone;
}

// The words of the choice leaf `l` draws at `d` (BestOptions::label), 0: none.
std::uint32_t label_at(const BestOptions& o, std::uint32_t node, const ExactTreeLeaf& l,
                       std::size_t d) {
  if (!o.label) return 0;
  std::vector<std::uint32_t> prefix(l.draws.begin(),
                                    l.draws.begin() + static_cast<std::ptrdiff_t>(d));
  for (std::uint32_t& x : prefix) x &= ~kFlags;
  return o.label(node, prefix);
}

bool is_choice(std::uint32_t v) {
  return v != kNone && (v & ExactTreeLeaf::kChoice) != 0;
}

int owner_of(std::uint32_t v) {
  return (v & ExactTreeLeaf::kSecond) != 0 ? 1 : 0;
}

// Whether option b's value beats a: ties (to rounding) keep a.
bool better(double b, double a) {
  return b > a + 1e-12 * std::abs(a);
}

double reward(const std::vector<std::pair<Sym, double>>& adds, const BestObjective& o) {
  double r = 0;
  for (const auto& [m, w] : o.metrics)
    for (const auto& [a, v] : adds)
      if (a == m) r += w * v;
  return r;
}

// Whether two numbers are the same bits (ProcessValues: the last answer is given back only for the
// very same inputs; -0 and 0 are told apart).
bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool same_bits(std::span<const double> a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// How one tree is evaluated: the values V, the side that maximises (-1: none, every choice
// fixed), each side's fixed choices, and what to collect.
struct Eval {
  const std::vector<ExactTreeLeaf>& leaves;
  const std::vector<double>& leaf_reward;  // by leaf, for the objective
  const std::vector<double>& V;
  std::size_t tree;
  int side;
  const Fixed* fixed[2];
  bool ones = false;                         // every leaf worth 1 (the chance of a prefix)
  std::vector<std::size_t>* keep = nullptr;  // the leaves the chosen options keep
  Fixed* record = nullptr;                   // the maximising side's choices (non-zero ones)
  // the tree's combat solved as a decision process (its draw marked kProcess), the first side's
  // (one side plays best), its last answer kept, and what a new round of it is worth to the
  // objective
  ProcessValues* process = nullptr;
  double round_reward = 0;

  double leaf(std::size_t i) const {
    return ones ? leaves[i].p : leaves[i].p * (leaf_reward[i] + V[leaves[i].to]);
  }

  // The leaves [lo, hi) share their first d draws.
  double operator()(std::size_t lo, std::size_t hi, std::size_t d) const {
    bool choice_below = false;
    for (std::size_t i = lo; i < hi && !choice_below; ++i)
      choice_below = leaves[i].last_choice >= static_cast<int>(d);
    if (!choice_below) {
      double s = 0;
      for (std::size_t i = lo; i < hi; ++i) {
        s += leaf(i);
        if (keep) keep->push_back(i);
      }
      return s;
    }
    const std::uint32_t first = draw_at(leaves[lo], d);
    if (is_choice(first) && (first & ExactTreeLeaf::kProcess) != 0 && process) {
      // the combat's ends, each valued from here on; then the combat's rounds (the first side
      // choosing when it maximises, else its policy's options)
      std::vector<double> ends(process->process().ends, 0.0);
      for (std::size_t i = lo; i < hi;) {
        const std::uint32_t v = draw_at(leaves[i], d);
        std::size_t j = i + 1;
        while (j < hi && draw_at(leaves[j], d) == v) ++j;
        if (v != kNone && (v & ~kFlags) < ends.size()) ends[v & ~kFlags] = (*this)(i, j, d + 1);
        i = j;
      }
      return process->start(ends, ones ? 0 : round_reward, side == 0 && !ones);
    }
    if (!is_choice(first)) {
      double total = 0;
      for (std::size_t i = lo; i < hi;) {
        const std::uint32_t v = draw_at(leaves[i], d);
        std::size_t j = i + 1;
        while (j < hi && draw_at(leaves[j], d) == v) ++j;
        total += (*this)(i, j, d + 1);
        i = j;
      }
      return total;
    }
    const int owner = owner_of(first);
    const std::uint64_t key = key_of(tree, d, lo);
    const std::uint32_t had = fixed[owner] ? fixed_at(*fixed[owner], key) : 0;
    std::size_t pick_lo = lo, pick_hi = lo;
    double pick = -1;
    bool found = false;
    std::uint32_t pick_option = 0;
    if (owner != side) {
      // the other side's choice: its fixed option (the first, if that option has no leaves)
      for (std::size_t i = lo; i < hi;) {
        const std::uint32_t v = draw_at(leaves[i], d);
        std::size_t j = i + 1;
        while (j < hi && draw_at(leaves[j], d) == v) ++j;
        if (!found || (v & ~kFlags) == had) pick_lo = i, pick_hi = j, found = true;
        if ((v & ~kFlags) == had) break;
        i = j;
      }
      if (record && side >= 0) {
        // the answering side's choices below the other options are recorded too: its answer
        // covers what the other side might do there (else they fall back to the policy's, and
        // the other side, answering next, would find them there)
        Eval off = *this;
        off.keep = nullptr;
        for (std::size_t i = lo; i < hi;) {
          const std::uint32_t v = draw_at(leaves[i], d);
          std::size_t j = i + 1;
          while (j < hi && draw_at(leaves[j], d) == v) ++j;
          if (i != pick_lo && v != kNone) off(i, j, d + 1);
          i = j;
        }
      }
      return (*this)(pick_lo, pick_hi, d + 1);
    }
    // the maximising side's choice: the best option; ties keep the option it had
    Eval quiet = *this;
    quiet.keep = nullptr, quiet.record = nullptr;
    double had_value = -1;
    std::size_t had_lo = lo, had_hi = lo;
    for (std::size_t i = lo; i < hi;) {
      const std::uint32_t v = draw_at(leaves[i], d);
      std::size_t j = i + 1;
      while (j < hi && draw_at(leaves[j], d) == v) ++j;
      const double w = v == kNone ? 0 : quiet(i, j, d + 1);
      if (!found || better(w, pick)) pick = w, pick_lo = i, pick_hi = j, pick_option = v & ~kFlags;
      if (v != kNone && (v & ~kFlags) == had) had_value = w, had_lo = i, had_hi = j;
      found = true;
      i = j;
    }
    if (had_hi > had_lo && !better(pick, had_value))
      pick = had_value, pick_lo = had_lo, pick_hi = had_hi, pick_option = had;
    if (keep || record) {
      if (record && pick_option != 0) (*record)[key] = pick_option;
      (*this)(pick_lo, pick_hi, d + 1);  // what the chosen option keeps and chooses below
    }
    return pick;
  }
};

struct Solver {
  ExactChain& chain;
  const std::vector<ExactTree>& trees;
  int steps;
  std::vector<std::int32_t> tree_of;
  std::size_t sweeps = 0;
  bool settled = true;
  // the combats solved as decision processes (by ExactTree::process), each with its last answer
  std::vector<std::optional<ProcessValues>> processes{};

  // a tree's leaves that lead back to its own node through chance draws alone (a round in which
  // nobody is hit): their chance, which no choice changes, so that the node's value is
  // c / (1 - self), c its value with its own worth 0 (as a node without a tree divides out its
  // self-loops); -1 where such a leaf lies below a choice (value iteration alone)
  std::vector<double> self_p{};
  // The order the nodes are valued in (plan): the strongly connected sets of the graph of what a
  // node's value reads (its tree's leaves, else its edges), each set after the sets it reads, so
  // that one pass settles a node that reads itself only through a self-loop divided out; a set
  // that comes back (`again`: more than one node, or a node that reads its own value) is swept
  // until it settles. `order`: the nodes valued, set by set, a set's nodes in reverse order of
  // exploration.
  struct Set {
    std::uint32_t first = 0, count = 0;
    bool again = false;
  };
  std::vector<std::uint32_t> order{};
  std::vector<Set> sets{};

  // a tree whose combat is a decision process: the process and what its rounds earn
  void set_process(Eval& e, std::size_t t, const BestObjective& o) {
    const std::int32_t k = trees[t].process;
    if (k < 0 || static_cast<std::size_t>(k) >= processes.size()) return;
    auto& p = processes[static_cast<std::size_t>(k)];
    if (!p) return;
    e.process = &*p;
    e.round_reward = 0;
    for (const auto& [m, w] : o.metrics)
      if (m == p->process().metric) e.round_reward += w;
  }

  // whether a node is valued (not final, and expanded)
  bool valued(std::uint32_t v) const {
    const ExactNode& node = chain.at(v);
    return node.step != steps && !node.out.empty();
  }
  // what a valued node's value reads: its tree's leaves, else its edges
  std::size_t reads(std::uint32_t v) const {
    return tree_of[v] >= 0 ? trees[static_cast<std::size_t>(tree_of[v])].leaves.size()
                           : chain.at(v).out.size();
  }
  std::uint32_t read(std::uint32_t v, std::size_t i) const {
    return tree_of[v] >= 0 ? trees[static_cast<std::size_t>(tree_of[v])].leaves[i].to
                           : chain.at(v).out[i].to;
  }

  void plan() {
    self_p.assign(trees.size(), 0.0);
    for (std::size_t t = 0; t < trees.size(); ++t)
      for (const ExactTreeLeaf& l : trees[t].leaves)
        if (l.to == trees[t].node && self_p[t] >= 0)
          self_p[t] = l.last_choice < 0 ? self_p[t] + l.p : -1;
    // Tarjan's strongly connected sets, without recursion: a set is complete after every set it
    // reads, so the sets come out in the order they are valued in
    const auto n = static_cast<std::uint32_t>(chain.size());
    std::vector<std::uint32_t> index(n, kNone), low(n, 0), stack;
    std::vector<char> on_stack(n, 0);
    struct Frame {
      std::uint32_t v;
      std::size_t i;
    };
    std::vector<Frame> calls;
    std::uint32_t next = 0;
    auto enter = [&](std::uint32_t v) {
      index[v] = low[v] = next++;
      stack.push_back(v), on_stack[v] = 1;
      calls.push_back({v, 0});
    };
    for (std::uint32_t root = 0; root < n; ++root) {
      if (index[root] != kNone || !valued(root)) continue;
      enter(root);
      while (!calls.empty()) {
        const std::uint32_t v = calls.back().v;
        if (calls.back().i < reads(v)) {
          const std::uint32_t w = read(v, calls.back().i++);
          if (!valued(w)) continue;  // a final or unexpanded node: its value is known
          if (index[w] == kNone)
            enter(w);
          else if (on_stack[w])
            low[v] = std::min(low[v], index[w]);
          continue;
        }
        calls.pop_back();
        if (!calls.empty()) low[calls.back().v] = std::min(low[calls.back().v], low[v]);
        if (low[v] != index[v]) continue;
        Set set{static_cast<std::uint32_t>(order.size()), 0, false};
        std::uint32_t w;
        do {
          w = stack.back();
          stack.pop_back(), on_stack[w] = 0;
          order.push_back(w), ++set.count;
        } while (w != v);
        std::sort(order.begin() + set.first, order.end(), std::greater<>());
        set.again = set.count > 1;
        if (!set.again && tree_of[v] >= 0) {
          // a node alone comes back when its tree reads its own value: a leaf back to it that
          // is not divided out
          const auto t = static_cast<std::size_t>(tree_of[v]);
          const bool divided = self_p[t] > 0 && self_p[t] < 1;
          for (const ExactTreeLeaf& l : trees[t].leaves)
            if (l.to == v && !divided) set.again = true;
        }
        sets.push_back(set);
      }
    }
  }

  // The value of node `v` from the values V of the nodes it reads.
  double value_of(std::uint32_t v, const BestObjective& o, int side, const Fixed* f0,
                  const Fixed* f1, std::vector<double>& V,
                  const std::vector<std::vector<double>>& rewards) {
    const ExactNode& node = chain.at(v);
    if (tree_of[v] >= 0) {
      const auto t = static_cast<std::size_t>(tree_of[v]);
      const auto& leaves = trees[t].leaves;
      Eval e{leaves, rewards[t], V, t, side, {f0, f1}};
      set_process(e, t, o);
      const double self = self_p[t];
      if (self > 0 && self < 1) {
        const double had = V[v];
        V[v] = 0;
        const double value = e(0, leaves.size(), 0) / (1 - self);
        V[v] = had;
        return value;
      }
      return e(0, leaves.size(), 0);
    }
    double s = 0, self = 0;
    for (const ExactEdge& e : node.out) {
      const double r = o.metrics.empty() ? 0 : reward(e.adds, o);
      if (e.to == v)
        self += e.p, s += e.p * r;
      else
        s += e.p * (r + V[e.to]);
    }
    return self > 0 && self < 1 ? s / (1 - self) : s;
  }

  // The values of every node for `o`, `side` maximising (-1: none), the choices of the sides
  // fixed at `fixed` (null: the policy's own).
  std::vector<double> values(const BestObjective& o, int side, const Fixed* f0, const Fixed* f1,
                             std::size_t max_sweeps, std::vector<std::vector<double>>& rewards) {
    const std::size_t n = chain.size();
    std::vector<double> V(n, 0.0);
    rewards.assign(trees.size(), {});
    for (std::size_t t = 0; t < trees.size(); ++t)
      for (const ExactTreeLeaf& l : trees[t].leaves) rewards[t].push_back(reward(l.adds, o));
    for (std::size_t v = 0; v < n; ++v) {
      const ExactNode& node = chain.at(static_cast<std::uint32_t>(v));
      if (node.step != steps) continue;
      const int out = node.writes.outcome;
      double x = 0;
      if (out >= 0 && static_cast<std::size_t>(out) < o.outcomes.size())
        x = o.outcomes[static_cast<std::size_t>(out)];
      x += reward(node.writes.sets, o);
      V[v] = x;
    }
    // each set once its successors are valued: a node that does not come back in one pass;
    // a set that comes back by value iteration, in place, until its largest change < 1e-13
    std::size_t most = 1;
    for (const Set& set : sets) {
      const std::uint32_t* nodes = order.data() + set.first;
      if (!set.again) {
        V[nodes[0]] = value_of(nodes[0], o, side, f0, f1, V, rewards);
        continue;
      }
      bool done = false;
      std::size_t k = 0;
      while (k < max_sweeps && !done) {
        ++k;
        double change = 0;
        for (std::uint32_t i = 0; i < set.count; ++i) {
          const std::uint32_t v = nodes[i];
          const double value = value_of(v, o, side, f0, f1, V, rewards);
          change = std::max(change, std::abs(value - V[v]));
          V[v] = value;
        }
        done = change < 1e-13;
      }
      most = std::max(most, k);
      settled = settled && done;
    }
    sweeps += most;
    return V;
  }
};

}  // namespace

BestPlay best_play(ExactChain& chain, const std::vector<ExactTree>& trees, int steps,
                   const std::vector<BestObjective>& sides, const BestOptions& o) {
  BestPlay r;
  const std::size_t n = chain.size();
  r.choice_nodes = trees.size();
  if (n == 0 || sides.empty()) return r;
  Solver s{chain, trees, steps, std::vector<std::int32_t>(n, -1)};
  // the processes' last answers, with their choices (the edges filed at the end ask for them)
  s.processes.resize(o.processes.size());
  for (std::size_t k = 0; k < o.processes.size(); ++k)
    if (o.processes[k]) s.processes[k].emplace(*o.processes[k], true);
  for (std::size_t t = 0; t < trees.size(); ++t)
    s.tree_of[trees[t].node] = static_cast<std::int32_t>(t);
  s.plan();
  std::vector<std::vector<double>> rewards;
  Fixed fixed[2];
  std::vector<double> V0;        // the first side's values (its best response, or the pair's)
  auto answer = [&](int side) {  // side's best response to the other's fixed choices
    std::vector<double> V = s.values(sides[static_cast<std::size_t>(side)], side, &fixed[0],
                                     &fixed[1], o.max_sweeps, rewards);
    Fixed chosen;
    for (std::size_t t = 0; t < trees.size(); ++t) {
      Eval e{trees[t].leaves,        rewards[t], V,       t,      side,
             {&fixed[0], &fixed[1]}, false,      nullptr, &chosen};
      s.set_process(e, t, sides[static_cast<std::size_t>(side)]);
      e(0, trees[t].leaves.size(), 0);
    }
    r.round_values.push_back(V[0]);
    if (side == 0) V0 = std::move(V);
    return chosen;
  };
  if (sides.size() == 1) {
    fixed[0] = answer(0);
    r.rounds = 1;
  } else {
    r.rounds_settled = false;
    for (std::size_t round = 0; round < o.max_rounds; ++round) {
      const int side = static_cast<int>(round % 2);
      Fixed chosen = answer(side);
      r.rounds = round + 1;
      const bool same = chosen == fixed[side];
      fixed[side] = std::move(chosen);
      // unchanged: each side's choices are now a best response to the other's (round 1
      // answered the second side's policy, round 2 that answer, ...)
      if (round > 0 && same) {
        r.rounds_settled = true;
        break;
      }
    }
  }
  // each side's value once both play the last pair (one side: its best response's)
  if (sides.size() == 1) {
    r.pair_values = r.round_values;
  } else {
    for (std::size_t k = 0; k < sides.size(); ++k) {
      std::vector<double> V = s.values(sides[k], -1, &fixed[0], &fixed[1], o.max_sweeps, rewards);
      r.pair_values.push_back(V[0]);
    }
  }
  r.value = r.pair_values[0];
  r.iterations = s.sweeps;
  r.settled = s.settled;
  if (sides.size() == 1)
    r.policy_in_graph = s.values(sides[0], -1, nullptr, nullptr, o.max_sweeps, rewards)[0];
  if (o.want_decisions) {
    // the first side's first decisions, with its best response's values to the other's pair
    const std::vector<double> V =
        sides.size() == 1 ? V0 : s.values(sides[0], 0, &fixed[0], &fixed[1], o.max_sweeps, rewards);
    std::vector<char> seen(n, 0), mine(trees.size(), 0);
    for (std::size_t t = 0; t < trees.size(); ++t)
      for (const ExactTreeLeaf& l : trees[t].leaves)
        for (std::uint32_t v : l.draws)
          if (is_choice(v) && owner_of(v) == 0) mine[t] = 1;
    std::deque<std::uint32_t> queue{0};
    seen[0] = 1;
    while (!queue.empty() && r.decisions.size() < 4096) {
      const std::uint32_t v = queue.front();
      queue.pop_front();
      const std::int32_t t = s.tree_of[v];
      if (t >= 0 && mine[static_cast<std::size_t>(t)]) {
        const auto ti = static_cast<std::size_t>(t);
        const auto& leaves = trees[ti].leaves;
        const Eval value{leaves, rewards[ti], V, ti, 0, {&fixed[0], &fixed[1]}};
        Eval chance = value;
        chance.ones = true;
        // walks the tree to the side's first choices: a row of its choices is one option
        std::function<void(std::size_t, std::size_t, std::size_t, BestDecision*,
                           std::vector<std::uint32_t>&)>
            walk = [&](std::size_t lo, std::size_t hi, std::size_t d, BestDecision* row,
                       std::vector<std::uint32_t>& picks) {
              bool choice_below = false;
              for (std::size_t i = lo; i < hi && !choice_below; ++i)
                choice_below = leaves[i].last_choice >= static_cast<int>(d);
              const std::uint32_t first = draw_at(leaves[lo], d);
              const bool mine_here = choice_below && is_choice(first) && owner_of(first) == 0;
              if (row && !mine_here) {  // the row of choices ends: one option
                row->options.push_back({picks, value(lo, hi, d), leaves[lo].to});
                return;
              }
              if (!choice_below) return;
              BestDecision here;
              BestDecision* into = row;
              if (!row && mine_here) {
                here.node = v;
                here.label = label_at(o, v, leaves[lo], d);
                into = &here;
              }
              for (std::size_t i = lo; i < hi;) {
                const std::uint32_t x = draw_at(leaves[i], d);
                std::size_t j = i + 1;
                while (j < hi && draw_at(leaves[j], d) == x) ++j;
                const bool other = is_choice(x) && owner_of(x) == 1;
                if (x != kNone &&
                    (!other || (x & ~kFlags) == fixed_at(fixed[1], key_of(ti, d, lo)))) {
                  if (into) picks.push_back(x & ~kFlags);
                  walk(i, j, d + 1, into, picks);
                  if (into) picks.pop_back();
                }
                i = j;
              }
              if (!row && mine_here) {
                // the chance of the draws before it: its first option worth 1 per leaf
                const std::uint32_t x0 = draw_at(leaves[lo], d);
                std::size_t j = lo + 1;
                while (j < hi && draw_at(leaves[j], d) == x0) ++j;
                const double before = chance(lo, j, d + 1);
                // a leaf's p is the chance of all its draws: the options' values are given
                // the draws before the decision
                for (BestDecision::Option& op : here.options)
                  op.value = before > 0 ? op.value / before : 0;
                here.p = before;
                std::sort(here.options.begin(), here.options.end(),
                          [](const auto& a, const auto& b) { return a.value > b.value; });
                if (here.options.size() > 1) r.decisions.push_back(std::move(here));
              }
            };
        std::vector<std::uint32_t> picks;
        walk(0, leaves.size(), 0, nullptr, picks);
        continue;  // the side's later decisions are not first ones
      }
      for (const ExactEdge& e : chain.at(v).out)
        if (!seen[e.to]) seen[e.to] = 1, queue.push_back(e.to);
    }
  }
  if (o.want_walk) {
    // one run drawn through the best play (trace --best): the chance draws at random (seeded),
    // each choice the option fixed for its side; at the first side's choices, every option's
    // value given the draws before it
    const std::vector<double> V =
        sides.size() == 1 ? V0 : s.values(sides[0], 0, &fixed[0], &fixed[1], o.max_sweeps, rewards);
    std::mt19937_64 rng(o.walk_seed);
    auto uniform = [&] { return std::uniform_real_distribution<double>(0.0, 1.0)(rng); };
    // the index of one of `w` drawn by weight (the last one when rounding leaves some over)
    auto pick = [&](const std::vector<double>& w) {
      double total = 0;
      for (double x : w) total += x;
      double u = uniform() * total;
      for (std::size_t i = 0; i < w.size(); ++i) {
        if (u < w[i]) return i;
        u -= w[i];
      }
      return w.size() - 1;
    };
    std::uint32_t v = 0;
    for (std::size_t steps_walked = 0; steps_walked < 100'000; ++steps_walked) {
      const ExactNode& node = chain.at(v);
      if (node.step == steps || node.out.empty()) break;
      BestPlay::WalkStep step;
      step.from = v;
      const std::int32_t t = s.tree_of[v];
      if (t < 0) {
        std::vector<double> w;
        for (const ExactEdge& e : node.out) w.push_back(e.p);
        step.to = node.out[pick(w)].to;
      } else {
        const auto ti = static_cast<std::size_t>(t);
        const auto& leaves = trees[ti].leaves;
        const Eval value{leaves, rewards[ti], V, ti, 0, {&fixed[0], &fixed[1]}};
        Eval chance = value;
        chance.ones = true;
        std::size_t lo = 0, hi = leaves.size(), d = 0;
        for (;;) {
          bool choice_below = false;
          for (std::size_t i = lo; i < hi && !choice_below; ++i)
            choice_below = leaves[i].last_choice >= static_cast<int>(d);
          if (!choice_below) {
            std::vector<double> w;
            for (std::size_t i = lo; i < hi; ++i) w.push_back(leaves[i].p);
            step.to = leaves[lo + pick(w)].to;
            break;
          }
          // the groups of leaves by their draw at d
          std::vector<std::pair<std::size_t, std::size_t>> groups;
          for (std::size_t i = lo; i < hi;) {
            std::size_t j = i + 1;
            while (j < hi && draw_at(leaves[j], d) == draw_at(leaves[i], d)) ++j;
            if (draw_at(leaves[i], d) != kNone) groups.emplace_back(i, j);
            i = j;
          }
          const std::uint32_t first = draw_at(leaves[lo], d);
          std::size_t g = 0;
          if (!is_choice(first)) {
            std::vector<double> w;
            for (const auto& [i, j] : groups) w.push_back(chance(i, j, d + 1));
            g = pick(w);
          } else {
            const int owner = owner_of(first);
            const std::uint32_t had = fixed_at(fixed[owner], key_of(ti, d, lo));
            for (std::size_t k = 0; k < groups.size(); ++k)
              if ((draw_at(leaves[groups[k].first], d) & ~kFlags) == had) g = k;
            if (owner == 0) {
              BestDecision here;
              here.node = v;
              here.label = label_at(o, v, leaves[lo], d);
              for (const auto& [i, j] : groups) {
                const double c = chance(i, j, d + 1);
                here.options.push_back({{draw_at(leaves[i], d) & ~kFlags},
                                        c > 0 ? value(i, j, d + 1) / c : 0,
                                        leaves[i].to});
              }
              here.p = chance(lo, hi, d);
              step.decisions.push_back(std::move(here));
              step.taken.push_back(g);
            }
          }
          lo = groups[g].first, hi = groups[g].second, ++d;
        }
      }
      v = step.to;
      r.walk.push_back(std::move(step));
    }
    r.walk_outcome = chain.at(v).writes.outcome_name;
  }
  if (o.want_values && sides.size() == 1) r.values = V0;
  // every choice fixed at its pair's option: the node's edges are the leaves it keeps
  std::vector<std::size_t> keep;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    keep.clear();
    const std::vector<double> no_rewards(trees[t].leaves.size(), 0.0);
    const Eval e{trees[t].leaves, no_rewards, V0, t, -1, {&fixed[0], &fixed[1]}, false, &keep};
    ExactNode& node = chain.at(trees[t].node);
    Eval value{trees[t].leaves,       rewards.empty() ? no_rewards : rewards[t], V0, t, 0,
               {&fixed[0], &fixed[1]}};
    s.set_process(value, t, sides[0]);
    if (value.process) {
      // a combat solved as a decision process (its draw the leaves' first): each end's value
      // from here on, the first side's best options at every roll of the combat, then the
      // chance of each end under them and the rounds begun on the way (the metric's addition)
      const CombatProcess& P = value.process->process();
      const auto& leaves = trees[t].leaves;
      std::vector<double> ends(P.ends, 0.0);
      std::vector<std::pair<std::size_t, std::size_t>> group(P.ends, {0, 0});
      for (std::size_t i = 0; i < leaves.size();) {
        const std::uint32_t v = draw_at(leaves[i], 0);
        std::size_t j = i + 1;
        while (j < leaves.size() && draw_at(leaves[j], 0) == v) ++j;
        if (v != kNone && (v & ExactTreeLeaf::kProcess) && (v & ~kFlags) < P.ends)
          ends[v & ~kFlags] = value(i, j, 1), group[v & ~kFlags] = {i, j};
        i = j;
      }
      std::vector<std::uint32_t> choice;
      value.process->start(ends, value.round_reward, true, &choice);
      std::vector<double> p_end, rounds_end;
      P.play(choice, p_end, rounds_end);
      node.out.clear();
      for (std::uint32_t k = 0; k < P.ends; ++k) {
        if (!(p_end[k] > 0) || group[k].second == group[k].first) continue;
        keep.clear();
        e(group[k].first, group[k].second, 1);
        for (std::size_t i : keep) {
          const ExactTreeLeaf& l = leaves[i];
          std::vector<std::pair<Sym, double>> adds = l.adds;
          if (P.metric != kNoSym && rounds_end[k] != 0) {
            bool found = false;
            for (auto& [m, x] : adds)
              if (m == P.metric) x += rounds_end[k], found = true;
            if (!found) {
              adds.emplace_back(P.metric, rounds_end[k]);
              std::sort(adds.begin(), adds.end());
            }
          }
          chain.add_edge(trees[t].node, {p_end[k] * l.p, l.to, std::move(adds)});
        }
      }
      continue;
    }
    e(0, trees[t].leaves.size(), 0);
    node.out.clear();
    for (std::size_t i : keep) {
      const ExactTreeLeaf& l = trees[t].leaves[i];
      chain.add_edge(trees[t].node, {l.p, l.to, l.adds});
    }
  }
  for (const auto& p : s.processes)
    if (p) r.process_valued += p->valued, r.process_reused += p->reused;
  return r;
}

double ProcessValues::start(std::span<const double> end_values, double round_reward, bool maximise,
                            std::vector<std::uint32_t>* choice) {
  if (have_ && maximise == maximise_ && same_bits(round_reward, round_reward_) &&
      same_bits(end_values, ends_) && (!choice || have_choice_)) {
    ++reused;
    if (choice) *choice = choice_;
    return value_;
  }
  ++valued;
  have_choice_ = keep_choice_ || choice;
  choice_.clear();
  value_ =
      process_->values(end_values, round_reward, maximise, have_choice_ ? &choice_ : nullptr)[0];
  ends_.assign(end_values.begin(), end_values.end());
  round_reward_ = round_reward, maximise_ = maximise, have_ = true;
  if (choice) *choice = choice_;
  return value_;
}

}  // namespace rb
