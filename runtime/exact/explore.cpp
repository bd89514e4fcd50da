#include "exact/explore.hpp"

#include <algorithm>
#include <deque>

#include "base/error.hpp"

namespace rb {

void explore(ExactChain& chain, int steps, const ExploreOptions& o, const StepRunner& run,
             ExploreStats& stats) {
  std::deque<std::uint32_t> queue{0};
  chain.at(0).mass = 1;
  ExactPath path;
  State work;
  std::size_t tree_bytes = 0;  // best play: what the trees of choices take (against max_bytes)
  while (!queue.empty()) {
    const std::uint32_t v = queue.front();
    queue.pop_front();
    ExactNode& node = chain.at(v);  // nodes keep their address while the chain grows
    if (node.expanded || node.step >= steps) continue;
    if (node.mass < o.prune) {
      ++stats.pruned;
      continue;
    }
    node.expanded = true;
    if (o.expanding) *o.expanding = v;
    path.clear();
    std::uint64_t branches = 0;
    ExactTree tree;  // best play: this node's leaves, kept when one of them made a choice
    bool chose = false;
    // ends of the step's first draw filed without running it (ExactLeaf::siblings): the leaf
    // that gave them, and by value drawn, the state each leaves (null: run the step)
    ExactLeaf sibling_leaf;
    ExactSiblings siblings;
    std::vector<const State*> sibling_at;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> same_to;  // ExactLeaf::same -> node
    do {
      if (o.stop && o.stop->load(std::memory_order_relaxed))
        throw ExactLimit("the exact mode was cancelled");
      if (++stats.leaves > o.max_leaves)
        throw ExactLimit("the exact mode ran steps " + std::to_string(o.max_leaves) +
                         " times without finishing");
      if (++branches > o.max_branches)
        throw ExactLimit("step " + std::to_string(node.step + 1) + " branches into more than " +
                         std::to_string(o.max_branches) +
                         " ways from one state (--max-branches): a roll whose dice a script reads "
                         "(an after-roll "
                         "ability, a reroll) is enumerated face by face, or a loop of rounds runs "
                         "inside one step (make each round a step that returns \"again\")" +
                         (o.trees ? std::string("; in best play, every option of each of the "
                                                "side's decisions in the step is a branch too "
                                                "(a hit assignment: each of its distinct outcomes)")
                                  : std::string()));
      path.rewind();
      ExactLeaf leaf;
      if (path.size() == 1 && path.value(0) < sibling_at.size() && sibling_at[path.value(0)]) {
        // an end of the first draw that leads as an earlier leaf did: the draw replayed (its
        // probability in the path), the state that end left, the earlier leaf's writes
        work = *sibling_at[path.value(0)];
        path.choose(siblings.p, siblings.n);
        leaf = sibling_leaf;
        ++stats.filed;
      } else {
        work = node.state;
        leaf = run(node.step, path, work);
        if (leaf.stop) return;
        if (leaf.replayed) ++stats.replayed;
        if (path.mismatch())
          throw ScriptError("step " + std::to_string(node.step + 1) +
                            " drew other dice from the same state and draws: it depends on "
                            "something outside the state (a value kept between calls?)");
        if (!leaf.siblings.ends.empty() && sibling_at.empty() && !o.trees) {
          siblings = std::move(leaf.siblings);
          sibling_at.assign(siblings.n, nullptr);
          for (const auto& [j, t] : siblings.ends) sibling_at[j] = t;
          sibling_leaf = leaf;
          sibling_leaf.siblings = {};
        }
      }
      const double p = path.probability();
      if (o.trees) {
        ExactTreeLeaf t;
        double chance = p;  // a choice's draw counted 1/n in p: divided out
        for (const ExactLeaf::Choice& c : leaf.choices) chance *= static_cast<double>(c.n);
        t.p = chance;
        t.draws.reserve(path.size());
        for (std::size_t i = 0; i < path.size(); ++i) t.draws.push_back(path.value(i));
        for (const ExactLeaf::Choice& c : leaf.choices) {
          t.draws[c.at] |= ExactTreeLeaf::kChoice | (c.owner ? ExactTreeLeaf::kSecond : 0) |
                           (c.process >= 0 ? ExactTreeLeaf::kProcess : 0);
          if (c.process >= 0) tree.process = c.process;
          t.last_choice = std::max(t.last_choice, static_cast<int>(c.at));
        }
        chose = chose || !leaf.choices.empty();
        tree_bytes += sizeof(ExactTreeLeaf) + t.draws.size() * sizeof(std::uint32_t) +
                      leaf.adds.size() * sizeof(leaf.adds[0]);
        tree.leaves.push_back(std::move(t));
      }
      const std::size_t before = chain.size();
      std::uint32_t to = 0;
      bool known = false;  // a leaf with the same `same` was filed: its node
      if (leaf.same)
        for (const auto& [k, t] : same_to)
          if (k == leaf.same) {
            to = t, known = true;
            break;
          }
      if (!known) {
        ExactWrites w = node.writes;
        for (const auto& [m, value] : leaf.sets) w.set(m, value);
        if (leaf.outcome >= 0) w.outcome = leaf.outcome, w.outcome_name = leaf.outcome_name;
        work.canonicalise(o.interchangeable);
        to = chain.node(leaf.next_step, work, w);
        if (leaf.same) same_to.emplace_back(leaf.same, to);
      }
      if (chain.size() > o.max_states)
        throw ExactLimit("the exact mode's chain passed " + std::to_string(o.max_states) +
                         " states (--max-states)");
      if (chain.bytes() + (o.other_bytes ? *o.other_bytes : 0) + tree_bytes > o.max_bytes)
        throw ExactLimit("the exact mode's states took more than " +
                         std::to_string(o.max_bytes >> 20) + " MiB (" +
                         std::to_string(chain.size()) +
                         " states, --max-memory): this battle's states do not merge enough "
                         "to enumerate them all" +
                         (tree_bytes ? std::string(" (best play's trees of choices take ") +
                                           std::to_string(tree_bytes >> 20) + " MiB of it)"
                                     : std::string()));
      chain.at(to).mass += node.mass * p;
      if (o.trees) tree.leaves.back().to = to, tree.leaves.back().adds = leaf.adds;
      chain.add_edge(v, {p, to, std::move(leaf.adds)});
      if (chain.size() > before) queue.push_back(to);
    } while (path.advance());
    if (chose) {
      tree.node = v;
      o.trees->push_back(std::move(tree));
    }
  }
}

}  // namespace rb
