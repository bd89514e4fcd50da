#include "state/state.hpp"

#include <algorithm>

namespace rb {

void State::set_role(Sym name, EntityId e) {
  for (auto& [r, v] : roles)
    if (r == name) {
      v = e;
      return;
    }
  roles.emplace_back(name, e);
}

void State::add_counter(EntityId target, Sym key, std::int32_t delta, Sym scope) {
  for (auto& c : counters)
    if (c.target == target && c.key == key) {
      c.value += delta;
      return;
    }
  counters.push_back({target, key, scope, delta});
}

void State::set_counter(EntityId target, Sym key, std::int32_t value, Sym scope) {
  for (auto& c : counters)
    if (c.target == target && c.key == key) {
      c.value = value;
      c.scope = scope;
      return;
    }
  counters.push_back({target, key, scope, value});
}

void State::end_scope(Sym scope) {
  std::erase_if(counters, [scope](const Counter& c) { return c.scope == scope; });
  std::erase_if(modifiers, [scope](const ActiveModifier& m) { return m.scope == scope; });
}

bool State::linked(EntityId a, EntityId b, Sym kind) const {
  for (const auto& l : links)
    if ((kind == kNoSym || l.kind == kind) && ((l.a == a && l.b == b) || (l.a == b && l.b == a)))
      return true;
  return false;
}

namespace {
Sym hex_kind() {
  static const Sym s = sym("hex");
  return s;
}
}  // namespace

void State::adjacent(EntityId e, Sym kind, std::vector<EntityId>& out) const {
  out.clear();
  auto add = [&](EntityId x) {
    if (x != e && x >= 0 && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  };
  if (!board.empty() && (kind == kNoSym || kind == hex_kind()))
    if (const std::optional<Hex> h = board.hex_of(e))
      for (int d = 0; d < 6; ++d) add(board.at(neighbour(*h, d)));
  for (const auto& l : links) {
    if (kind != kNoSym && l.kind != kind) continue;
    if (l.a == e)
      add(l.b);
    else if (l.b == e)
      add(l.a);
  }
}

bool State::is_adjacent(EntityId a, EntityId b, Sym kind) const {
  if (a == b) return false;
  if (!board.empty() && (kind == kNoSym || kind == hex_kind())) {
    const std::optional<Hex> ha = board.hex_of(a), hb = board.hex_of(b);
    if (ha && hb && distance(*ha, *hb) == 1) return true;
  }
  return linked(a, b, kind);
}

std::optional<Hex> State::hex_of(EntityId e) const {
  if (board.empty()) return std::nullopt;
  // a location chain is short; the bound only guards against a cycle
  for (std::size_t steps = 0; valid(e) && steps <= entities.size(); ++steps) {
    if (const std::optional<Hex> h = board.hex_of(e)) return h;
    e = at(e).location;
  }
  return std::nullopt;
}

int State::turn_rank(EntityId player, EntityId active) const {
  const int n = static_cast<int>(turn_order.size());
  int start = 0, pos = -1;
  for (int i = 0; i < n; ++i) {
    if (turn_order[static_cast<std::size_t>(i)] == active) start = i;
    if (turn_order[static_cast<std::size_t>(i)] == player) pos = i;
  }
  if (pos < 0) return n;  // not a player in turn order: after everyone
  return (pos - start + n) % n;
}

}  // namespace rb
