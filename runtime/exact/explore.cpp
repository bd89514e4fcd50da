#include "exact/explore.hpp"

#include <deque>

#include "base/error.hpp"

namespace rb {

void explore(ExactChain& chain, int steps, const ExploreOptions& o, const StepRunner& run,
             ExploreStats& stats) {
  std::deque<std::uint32_t> queue{0};
  chain.at(0).mass = 1;
  ExactPath path;
  State work;
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
    path.clear();
    std::uint64_t branches = 0;
    do {
      if (o.stop && o.stop->load(std::memory_order_relaxed))
        throw ExactLimit("the exact mode was cancelled");
      if (++stats.leaves > o.max_leaves)
        throw ExactLimit("the exact mode ran steps " + std::to_string(o.max_leaves) +
                         " times without finishing");
      if (++branches > o.max_branches)
        throw ExactLimit("step " + std::to_string(node.step + 1) + " branches into more than " +
                         std::to_string(o.max_branches) +
                         " ways from one state: a roll whose dice a script reads (an after-roll "
                         "ability, a reroll) is enumerated face by face, or a loop of rounds runs "
                         "inside one step (make each round a step that returns \"again\")");
      path.rewind();
      work = node.state;
      ExactLeaf leaf = run(node.step, path, work);
      if (path.mismatch())
        throw ScriptError("step " + std::to_string(node.step + 1) +
                          " drew other dice from the same state and draws: it depends on "
                          "something outside the state (a value kept between calls?)");
      const double p = path.probability();
      ExactWrites w = node.writes;
      for (const auto& [m, value] : leaf.sets) w.set(m, value);
      if (leaf.outcome >= 0) w.outcome = leaf.outcome, w.outcome_name = leaf.outcome_name;
      work.canonicalise(o.interchangeable);
      const std::size_t before = chain.size();
      const std::uint32_t to = chain.node(leaf.next_step, work, w);
      if (chain.size() > o.max_states)
        throw ExactLimit("the exact mode's chain passed " + std::to_string(o.max_states) +
                         " states (--max-states)");
      if (chain.bytes() + (o.other_bytes ? *o.other_bytes : 0) > o.max_bytes)
        throw ExactLimit("the exact mode's states took more than " +
                         std::to_string(o.max_bytes >> 20) + " MiB (" +
                         std::to_string(chain.size()) +
                         " states, --max-memory): this battle's states do not merge enough "
                         "to enumerate them all");
      chain.at(to).mass += node.mass * p;
      chain.add_edge(v, {p, to, std::move(leaf.adds)});
      if (chain.size() > before) queue.push_back(to);
    } while (path.advance());
  }
}

}  // namespace rb
