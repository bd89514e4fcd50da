#include "state/state.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>

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

void State::link_kinds(EntityId a, EntityId b, std::vector<Sym>& out) const {
  out.clear();
  if (a == b) return;
  if (!board.empty()) {
    const std::optional<Hex> ha = board.hex_of(a), hb = board.hex_of(b);
    if (ha && hb && distance(*ha, *hb) == 1) out.push_back(hex_kind());
  }
  for (const auto& l : links)
    if (((l.a == a && l.b == b) || (l.a == b && l.b == a)) &&
        std::find(out.begin(), out.end(), l.kind) == out.end())
      out.push_back(l.kind);
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

// ---------------------------------------------------------------- the state as a value

namespace {

// Every field of these is a 32-bit integer: no padding, so bytes compare and hash as values.
static_assert(std::has_unique_object_representations_v<Entity>);
static_assert(std::has_unique_object_representations_v<Counter>);
static_assert(std::has_unique_object_representations_v<Link>);
static_assert(std::has_unique_object_representations_v<ActiveModifier>);

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A 64-bit hash over runs of bytes, after wyhash's folded multiply: each 16 bytes are one
// 64x64->128-bit product of the two words (each keyed by its lane), folded to 64 bits; two lanes
// keep two products in flight. Not for adversaries: equality decides, the hash only sorts.
class Hasher {
 public:
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    std::uint64_t w[4];
    while (n >= 32) {
      std::memcpy(w, b, 32);
      lane_[0] = fold(w[0] ^ lane_[0], w[1] ^ kKey[0]);
      lane_[1] = fold(w[2] ^ lane_[1], w[3] ^ kKey[1]);
      b += 32, n -= 32;
    }
    while (n >= 16) {
      std::memcpy(w, b, 16);
      lane_[0] = fold(w[0] ^ lane_[0], w[1] ^ kKey[2]);
      b += 16, n -= 16;
    }
    std::uint64_t tail[2] = {0, 0};
    if (n) std::memcpy(tail, b, n);
    lane_[1] = fold(tail[0] ^ lane_[1], tail[1] ^ kKey[3] ^ n);
  }
  std::uint64_t done() const { return fold(lane_[0] ^ kKey[1], lane_[1] ^ kKey[2]); }

 private:
  static std::uint64_t fold(std::uint64_t a, std::uint64_t b) {
    const unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
    return static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64);
  }
  static constexpr std::uint64_t kKey[4] = {0xa0761d6478bd642full, 0xe7037ed1a0b428dbull,
                                            0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull};
  std::uint64_t lane_[2] = {0x1d8e4e27c47d124full, 0x2d358dccaa6c78a5ull};
};

template <class T>
void add_vector(Hasher& h, const std::vector<T>& v) {
  const std::uint64_t n = v.size();
  h.add(&n, sizeof n);
  if (!v.empty()) h.add(v.data(), v.size() * sizeof(T));
}

}  // namespace

std::uint64_t entity_hash(const Entity& u, std::uint64_t seed) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
  mix(seed), mix(static_cast<std::uint32_t>(u.kind)), mix(static_cast<std::uint32_t>(u.type));
  mix(static_cast<std::uint32_t>(u.record)), mix(static_cast<std::uint32_t>(u.owner));
  mix(static_cast<std::uint32_t>(u.location));
  // the attributes two at a time in two lanes (one chain of a multiply per attribute was most of
  // the time such tables took)
  static_assert(kMaxAttributes % 4 == 0);
  std::uint64_t h1 = 0x9E3779B97F4A7C15ull, h2 = 0xC2B2AE3D27D4EB4Full;
  for (std::size_t k = 0; k < kMaxAttributes; k += 4) {
    std::uint64_t w1 = 0, w2 = 0;
    std::memcpy(&w1, &u.attr[k], sizeof w1);
    std::memcpy(&w2, &u.attr[k + 2], sizeof w2);
    h1 = (h1 ^ w1) * 0xBF58476D1CE4E5B9ull, h2 = (h2 ^ w2) * 0x94D049BB133111EBull;
  }
  mix(h1 ^ (h1 >> 31)), mix(h2 ^ (h2 >> 29));
  return h ^ (h >> 29);
}

bool State::operator==(const State& o) const {
  return same_bytes(entities, o.entities) && same_but_entities(o);
}

bool State::same_but_entities(const State& o) const {
  return same_bytes(counters, o.counters) && same_bytes(links, o.links) &&
         same_bytes(modifiers, o.modifiers) && roles == o.roles && turn_order == o.turn_order &&
         board == o.board;
}

bool State::canonicalise(std::span<const Sym> kinds) {
  if (kinds.empty()) return false;
  const std::size_t n = entities.size();
  thread_local std::vector<char> pinned;
  thread_local std::vector<EntityId> ids;
  thread_local std::vector<std::pair<EntityId, std::array<std::int32_t, kMaxAttributes>>> values;
  auto group = [&](EntityId i) {
    const Entity& e = at(i);
    return std::tie(e.kind, e.type, e.record, e.owner);
  };
  // alike entities are ordered by what they hold (canonical_before)
  using Content = std::pair<EntityId, std::array<std::int32_t, kMaxAttributes>>;
  const auto less = canonical_before;
  auto by_group = [&] {  // alike entities together, each group in the order of its numbers
    std::stable_sort(ids.begin(), ids.end(),
                     [&](EntityId a, EntityId b) { return group(a) < group(b); });
  };
  // the common case: every group already in order (so is every part of it): nothing to exchange,
  // and no need to find what refers to what. Checked in entity order, each entity against the
  // last one of its group (groups are few), without sorting.
  thread_local std::vector<EntityId> last;  // the last entity seen of each group
  last.clear();
  bool sorted = true;
  for (std::size_t i = 0; i < n && sorted; ++i) {
    if (std::find(kinds.begin(), kinds.end(), entities[i].kind) == kinds.end()) continue;
    const auto e = static_cast<EntityId>(i);
    auto it =
        std::find_if(last.begin(), last.end(), [&](EntityId l) { return group(l) == group(e); });
    if (it == last.end()) {
      last.push_back(e);
    } else {
      const Entity &x = at(e), &y = at(*it);
      sorted = !less(x.location, x.attr.data(), y.location, y.attr.data());
      *it = e;
    }
  }
  if (sorted) return false;
  ids.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (std::find(kinds.begin(), kinds.end(), entities[i].kind) != kinds.end())
      ids.push_back(static_cast<EntityId>(i));
  by_group();
  pinned.assign(n, 0);
  auto pin = [&](EntityId e) {
    if (valid(e)) pinned[static_cast<std::size_t>(e)] = 1;
  };
  each_named(pin);
  std::erase_if(ids, [&](EntityId e) { return pinned[static_cast<std::size_t>(e)] != 0; });
  bool exchanged = false;
  for (std::size_t lo = 0; lo < ids.size();) {
    std::size_t hi = lo + 1;
    while (hi < ids.size() && group(ids[hi]) == group(ids[lo])) ++hi;
    if (hi - lo > 1) {
      values.clear();
      for (std::size_t k = lo; k < hi; ++k)
        values.emplace_back(at(ids[k]).location, at(ids[k]).attr);
      std::sort(values.begin(), values.end(), [&](const Content& a, const Content& b) {
        return less(a.first, a.second.data(), b.first, b.second.data());
      });
      for (std::size_t k = lo; k < hi; ++k) {
        Entity& e = at(ids[k]);
        if (e.location == values[k - lo].first && e.attr == values[k - lo].second) continue;
        e.location = values[k - lo].first, e.attr = values[k - lo].second;
        exchanged = true;
      }
    }
    lo = hi;
  }
  return exchanged;
}

std::uint64_t State::hash() const {
  Hasher h;
  add_vector(h, entities);
  add_vector(h, counters);
  add_vector(h, links);
  add_vector(h, modifiers);
  for (const auto& [r, e] : roles) {
    const std::int32_t v[2] = {static_cast<std::int32_t>(r), e};
    h.add(v, sizeof v);
  }
  add_vector(h, turn_order);
  board.hash_into([&](const void* p, std::size_t n) { h.add(p, n); });
  return h.done();
}

std::size_t State::bytes() const {
  return sizeof(State) + entities.capacity() * sizeof(Entity) +
         counters.capacity() * sizeof(Counter) + links.capacity() * sizeof(Link) +
         modifiers.capacity() * sizeof(ActiveModifier) + roles.capacity() * sizeof(roles[0]) +
         turn_order.capacity() * sizeof(EntityId) + board.cells().size() * sizeof(Board::Cell) * 2;
}

}  // namespace rb
