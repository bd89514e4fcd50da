#include "script/memo.hpp"

namespace rb {

MemoNode* StepMemo::node(int step, const State& state) {
  if (step == 0 && last_root_ && last_root_->state == state) return last_root_;
  const std::uint64_t h = state.hash() ^ (static_cast<std::uint64_t>(step) * 0x9E3779B97F4A7C15ull);
  auto [lo, hi] = by_hash_.equal_range(h);
  for (auto it = lo; it != hi; ++it)
    if (it->second->step == step && it->second->state == state) {
      if (step == 0) last_root_ = it->second;
      return it->second;
    }
  const std::size_t size = sizeof(MemoNode) + state.bytes();
  if (bytes_ + size > max_bytes_) return nullptr;
  auto n = std::make_unique<MemoNode>();
  n->step = step;
  n->state = state;
  n->hash = h;
  MemoNode* p = n.get();
  nodes_.push_back(std::move(n));
  by_hash_.emplace(h, p);
  bytes_ += size;
  if (step == 0) last_root_ = p;
  return p;
}

bool StepMemo::add(MemoNode& at, const std::vector<DiceStream::KeyDraw>& draws,
                   const std::vector<Law>& laws, std::vector<MemoWrite> writes, MemoNode* next) {
  if (at.execute_only) return true;
  std::int32_t* slot = &at.root;
  std::size_t added = 0;
  for (const DiceStream::KeyDraw& d : draws) {
    const Law* law = d.law >= 0 ? &laws[static_cast<std::size_t>(d.law)] : nullptr;
    if (*slot == -1) {
      if (at.slots.size() + d.bound > kMaxSlots ||
          bytes_ + added + d.bound * sizeof(std::int32_t) + sizeof(MemoNode::DrawNode) >
              max_bytes_) {
        bytes_ += added;
        forget(at);
        return true;
      }
      const auto base = static_cast<std::uint32_t>(at.slots.size());
      const auto index = static_cast<std::int32_t>(at.draws.size());
      const std::ptrdiff_t offset = slot - at.slots.data();  // the slot may move as slots grow
      const bool in_slots = slot != &at.root;
      std::int32_t law_index = -1;
      if (law) {
        law_index = static_cast<std::int32_t>(at.laws.size());
        at.laws.push_back(*law);
        added += law->size() * sizeof(LawDie) + sizeof(Law);
      }
      at.draws.push_back({d.bound, base, law_index});
      at.slots.resize(at.slots.size() + d.bound, -1);
      added += d.bound * sizeof(std::int32_t) + sizeof(MemoNode::DrawNode);
      slot = in_slots ? at.slots.data() + offset : &at.root;
      *slot = index;
    } else if (*slot <= -2) {
      return false;  // a leaf where the step drew again
    }
    const MemoNode::DrawNode& dn = at.draws[static_cast<std::size_t>(*slot)];
    if (dn.bound != d.bound || d.value >= d.bound || (dn.law >= 0) != (law != nullptr))
      return false;
    if (law && at.laws[static_cast<std::size_t>(dn.law)] != *law) return false;
    slot = &at.slots[dn.base + d.value];
  }
  bytes_ += added;
  if (*slot != -1) return false;  // the step stopped where it drew before
  std::size_t leaf = sizeof(MemoLeaf);
  for (const MemoWrite& w : writes) leaf += sizeof(MemoWrite) + w.outcome_name.size();
  if (bytes_ + leaf > max_bytes_) return true;  // full: this path stays unseen (run again)
  *slot = -2 - static_cast<std::int32_t>(at.leaves.size());
  at.leaves.push_back({next, static_cast<std::uint32_t>(at.writes.size()),
                       static_cast<std::uint32_t>(writes.size())});
  for (MemoWrite& w : writes) at.writes.push_back(std::move(w));
  bytes_ += leaf;
  return true;
}

void StepMemo::forget(MemoNode& at) {
  at.execute_only = true;
  at.root = -1;
  std::vector<MemoNode::DrawNode>().swap(at.draws);
  std::vector<std::int32_t>().swap(at.slots);
  std::vector<MemoLeaf>().swap(at.leaves);
  std::vector<MemoWrite>().swap(at.writes);
  std::vector<Law>().swap(at.laws);  // bytes_ is not given back: the memo only grows
  std::vector<MemoNode::LawRun>().swap(at.runs);
  std::vector<std::uint32_t>().swap(at.law_runs);
}

}  // namespace rb
