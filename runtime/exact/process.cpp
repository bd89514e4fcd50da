#include "exact/process.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "exact/round_names.hpp"

namespace rb {

namespace {

// Whether option b's value beats a: ties (to rounding) keep a (as best play's trees do).
bool better(double b, double a) {
  return b > a + 1e-12 * std::abs(a);
}

bool same_entity(const Entity& x, const Entity& y) {
  return x.kind == y.kind && x.type == y.type && x.record == y.record && x.owner == y.owner &&
         x.location == y.location && x.attr == y.attr;
}

bool mine(const Entity& u, EntityId e, EntityId player) {
  return u.owner == player || e == player;
}

// One entity of a configuration hashed: a configuration's hash is the sum of its entities' (each
// with its number), so that a take's configuration is hashed by what the take changed alone.
std::uint64_t hash_entity(EntityId e, const Entity& u) {
  return entity_hash(u, static_cast<std::uint32_t>(e));
}

std::uint64_t hash_player(EntityId player) {
  return (0x632BE59BD9B4E019ull ^ static_cast<std::uint32_t>(player)) * 0x9E3779B97F4A7C15ull;
}

}  // namespace

std::uint32_t RoundNames::intern(EntityId player, Own&& own) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(own.size());
  std::uint64_t h = hash_player(player);
  for (const auto& [e, u] : own) h += hashes.emplace_back(hash_entity(e, u));
  std::uint32_t found = kNone;
  configs_with(h, [&](std::uint32_t i) {
    const Config& c = configs_[i];
    if (c.player != player || c.own.size() != own.size()) return false;
    bool same = true;
    for (std::size_t k = 0; k < own.size() && same; ++k)
      same = c.own[k].first == own[k].first && same_entity(c.own[k].second, own[k].second);
    if (same) found = i;
    return same;
  });
  if (found != kNone) return found;
  return add_config(player, std::move(own), std::move(hashes), h);
}

void RoundNames::file_config(std::uint64_t h, std::uint32_t config) {
  if (2 * (configs_used_ + 1) > config_at_.size()) {
    std::vector<ConfigSlot> old(config_at_.empty() ? 64 : 2 * config_at_.size());
    old.swap(config_at_);
    bytes_ += (config_at_.size() - old.size()) * sizeof(ConfigSlot);
    configs_used_ = 0;
    for (const ConfigSlot& slot : old)
      if (slot.config != kNone) file_config(slot.hash, slot.config);
  }
  const std::size_t mask = config_at_.size() - 1;
  std::size_t i = static_cast<std::size_t>(h ^ (h >> 32)) & mask;
  while (config_at_[i].config != kNone) i = (i + 1) & mask;
  config_at_[i] = {h, config};
  ++configs_used_;
}

std::uint32_t RoundNames::add_config(EntityId player, Own&& own,
                                     std::vector<std::uint64_t>&& hashes, std::uint64_t h) {
  const auto index = static_cast<std::uint32_t>(configs_.size());
  bytes_ += sizeof(Config) + own.size() * (sizeof(own[0]) + sizeof(std::uint64_t)) + 32;
  std::vector<EntityId> named;
  for (const auto& [e, u] : own) named.push_back(u.owner), named.push_back(u.location);
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  configs_.push_back(
      {player, std::move(own), {}, kNone, std::move(named), -1, std::move(hashes), h});
  file_config(h, index);
  return index;
}

std::uint32_t RoundNames::own(const State& s, EntityId player) {
  Own own;
  for (std::size_t e = 0; e < s.entities.size(); ++e)
    if (mine(s.entities[e], static_cast<EntityId>(e), player))
      own.emplace_back(static_cast<EntityId>(e), s.entities[e]);
  return intern(player, std::move(own));
}

bool RoundNames::holds(std::uint32_t c, const State& s) const {
  const Config& config = configs_[c];
  std::size_t k = 0;
  for (std::size_t e = 0; e < s.entities.size(); ++e) {
    if (!mine(s.entities[e], static_cast<EntityId>(e), config.player)) continue;
    if (k == config.own.size() || config.own[k].first != static_cast<EntityId>(e) ||
        !same_entity(config.own[k].second, s.entities[e]))
      return false;
    ++k;
  }
  return k == config.own.size();
}

std::uint32_t RoundNames::rest(const State& s, EntityId a, EntityId d) {
  State& r = rest_scratch_;
  r = s;
  for (std::size_t e = 0; e < r.entities.size(); ++e)
    if (mine(r.entities[e], static_cast<EntityId>(e), a) ||
        mine(r.entities[e], static_cast<EntityId>(e), d))
      r.entities[e] = Entity{};
  const std::uint64_t h = r.hash();
  for (auto [lo, hi] = rest_at_.equal_range(h); lo != hi; ++lo)
    if (rests_[lo->second] == r) return lo->second;
  const auto index = static_cast<std::uint32_t>(rests_.size());
  bytes_ += r.bytes() + 32;
  std::vector<EntityId> named;  // what could pin an entity (State::canonicalise)
  r.each_named([&named](EntityId e) { named.push_back(e); });
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  rest_names_.push_back(std::move(named));
  rests_.push_back(r);
  rest_at_.emplace(h, index);
  next_rest.push_back(kNone);
  return index;
}

bool RoundNames::rest_is(std::uint32_t r, const State& s, EntityId a, EntityId d) const {
  const State& rest = rests_[r];
  if (rest.entities.size() != s.entities.size()) return false;
  static const Entity blank{};
  for (std::size_t e = 0; e < s.entities.size(); ++e) {
    const Entity& u = s.entities[e];
    const bool own = mine(u, static_cast<EntityId>(e), a) || mine(u, static_cast<EntityId>(e), d);
    if (std::memcmp(&rest.entities[e], own ? &blank : &u, sizeof(Entity)) != 0) return false;
  }
  return s.same_but_entities(rest);
}

bool RoundNames::names_unit(const std::vector<EntityId>& named) const {
  for (EntityId e : named)
    if (std::binary_search(units_.begin(), units_.end(), e)) return true;
  return false;
}

bool RoundNames::find_clean(std::uint32_t r, std::uint32_t a, std::uint32_t d) {
  if (unit_sides_[0] == kNoEntity) {
    for (int i = 0; i < 2; ++i) {
      const Config& c = configs_[i == 0 ? a : d];
      unit_sides_[i] = c.player, unit_counts_[i] = c.own.size();
      for (const auto& [e, u] : c.own)
        if (e != c.player) units_.push_back(e);
    }
    std::sort(units_.begin(), units_.end());
  }
  for (int i = 0; i < 2; ++i) {
    // (a configuration of another side, or with other entities: its units are not units_)
    Config& c = configs_[i == 0 ? a : d];
    if (c.player != unit_sides_[i] || c.own.size() != unit_counts_[i]) return false;
    if (c.clean < 0) c.clean = names_unit(c.names) ? 0 : 1;
    if (c.clean == 0) return false;
  }
  if (rest_clean_.size() <= r) rest_clean_.resize(static_cast<std::size_t>(r) + 1, -1);
  if (rest_clean_[r] < 0) rest_clean_[r] = names_unit(rest_names_[r]) ? 0 : 1;
  return rest_clean_[r] == 1;
}

std::uint32_t RoundNames::canonical(std::uint32_t c, std::span<const Sym> kinds) {
  if (configs_[c].canonical != kNone) return configs_[c].canonical;
  Own own = configs_[c].own;  // (in entity order)
  // State::canonicalise on these entities alone: those of one kind, type, record and owner
  // exchange their locations and attributes so that those come in sorted order
  auto less = [](const Entity& x, const Entity& y) {
    return canonical_before(x.location, x.attr.data(), y.location, y.attr.data());
  };
  std::vector<char> done(own.size(), 0);
  std::vector<std::size_t> group;
  for (std::size_t i = 0; i < own.size(); ++i) {
    const Entity& u = own[i].second;
    if (done[i] || own[i].first == configs_[c].player ||
        std::find(kinds.begin(), kinds.end(), u.kind) == kinds.end())
      continue;
    group.clear();
    for (std::size_t j = i; j < own.size(); ++j) {
      const Entity& v = own[j].second;
      if (done[j] || v.kind != u.kind || v.type != u.type || v.record != u.record ||
          v.owner != u.owner || own[j].first == configs_[c].player)
        continue;
      done[j] = 1;
      group.push_back(j);
    }
    if (group.size() < 2) continue;
    std::vector<Entity> sorted;
    for (std::size_t j : group) sorted.push_back(own[j].second);
    std::sort(sorted.begin(), sorted.end(), less);
    for (std::size_t k = 0; k < group.size(); ++k) {
      Entity& v = own[group[k]].second;
      v.location = sorted[k].location, v.attr = sorted[k].attr;
    }
  }
  const EntityId player = configs_[c].player;
  const std::uint32_t to = intern(player, std::move(own));
  configs_[c].canonical = to;
  configs_[to].canonical = to;
  return to;
}

void RoundNames::build(const Key& k, State& out) const {
  out = rests_[k.rest];
  for (const std::uint32_t c : {k.a, k.d})
    for (const auto& [e, u] : configs_[c].own) out.at(e) = u;
}

std::uint32_t RoundNames::after(std::uint32_t c, std::size_t hits, std::size_t option,
                                const combat::RoundParts::Take& take) {
  {
    auto& by_hits = configs_[c].after;
    if (hits < by_hits.size() && option < by_hits[hits].size() && by_hits[hits][option] != kNone)
      return by_hits[hits][option];
  }
  const Config& base = configs_[c];
  const EntityId player = base.player;
  // what the take changed, by position in the configuration (its entities as the take left them,
  // a lost one in reinforcements, as ExchangeHost::destroy leaves it), in that order
  auto position = [&base](EntityId e) -> std::size_t {
    const auto it = std::lower_bound(base.own.begin(), base.own.end(), e,
                                     [](const auto& p, EntityId x) { return p.first < x; });
    return it != base.own.end() && it->first == e ? static_cast<std::size_t>(it - base.own.begin())
                                                  : base.own.size();
  };
  std::vector<std::pair<std::size_t, Entity>>& changed = after_scratch_;
  changed.clear();
  for (const auto& [e, u] : take.changed) {
    const std::size_t k = position(e);
    if (k == base.own.size() || !mine(*u, e, player)) return kNone;
    changed.emplace_back(k, *u);
  }
  for (EntityId e : take.lost) {
    const std::size_t k = position(e);
    if (k == base.own.size()) return kNone;
    auto it =
        std::find_if(changed.begin(), changed.end(), [k](const auto& p) { return p.first == k; });
    if (it == changed.end()) it = changed.emplace(changed.end(), k, base.own[k].second);
    it->second.location = kReinforcements;
  }
  std::sort(changed.begin(), changed.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  // its hash: the configuration's, each changed entity's hash exchanged for its new one
  std::uint64_t h = base.hash;
  for (const auto& [k, u] : changed) h += hash_entity(base.own[k].first, u) - base.hashes[k];
  std::uint32_t to = kNone;
  configs_with(h, [&](std::uint32_t i) {
    const Config& other = configs_[i];
    if (other.player != player || other.own.size() != base.own.size()) return false;
    bool same = true;
    std::size_t next = 0;  // the next changed entity
    for (std::size_t k = 0; k < base.own.size() && same; ++k) {
      const Entity* u = &base.own[k].second;
      if (next < changed.size() && changed[next].first == k) u = &changed[next++].second;
      same = other.own[k].first == base.own[k].first && same_entity(other.own[k].second, *u);
    }
    if (same) to = i;
    return same;
  });
  if (to == kNone) {
    Own own = base.own;
    std::vector<std::uint64_t> hashes = base.hashes;
    for (const auto& [k, u] : changed) {
      own[k].second = u;
      hashes[k] = hash_entity(own[k].first, u);
    }
    to = add_config(player, std::move(own), std::move(hashes), h);
  }
  auto& by_hits = configs_[c].after;  // (add_config may have moved configs_)
  if (by_hits.size() <= hits) by_hits.resize(hits + 1);
  if (by_hits[hits].size() <= option) by_hits[hits].resize(option + 1, kNone);
  by_hits[hits][option] = to;
  return to;
}

namespace {

std::size_t led_slot(std::uint32_t other, std::uint32_t rest, std::size_t mask) {
  const std::uint64_t h = (std::uint64_t{other} << 32 | rest) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::size_t>(h >> 32) & mask;
}

}  // namespace

std::uint32_t RoundNames::find(const Key& k, int by) const {
  const std::uint32_t c = by == 0 ? k.a : k.d, other = by == 0 ? k.d : k.a;
  const std::uint32_t rest = k.rest << 1 | (k.end ? 1u : 0u);
  const std::vector<Led>& led = led_[by == 0 ? 0 : 1];
  if (c >= led.size() || led[c].slots.empty()) return kNone;
  const std::vector<Led::Slot>& slots = led[c].slots;
  const std::size_t mask = slots.size() - 1;
  for (std::size_t i = led_slot(other, rest, mask);; i = (i + 1) & mask) {
    const Led::Slot& slot = slots[i];
    if (slot.to == kNone) return kNone;
    if (slot.other == other && slot.rest == rest) return slot.to;
  }
}

void RoundNames::file(const Key& k, std::uint32_t to, int by) {
  const std::uint32_t c = by == 0 ? k.a : k.d, other = by == 0 ? k.d : k.a;
  const std::uint32_t rest = k.rest << 1 | (k.end ? 1u : 0u);
  std::vector<Led>& led = led_[by == 0 ? 0 : 1];
  if (c >= led.size()) led.resize(static_cast<std::size_t>(c) + 1);
  Led& l = led[c];
  auto put = [](std::vector<Led::Slot>& slots, const Led::Slot& s) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = led_slot(s.other, s.rest, mask);; i = (i + 1) & mask) {
      Led::Slot& slot = slots[i];
      if (slot.to == kNone) {
        slot = s;
        return true;
      }
      if (slot.other == s.other && slot.rest == s.rest) return false;
    }
  };
  if (2 * (l.used + 1) > l.slots.size()) {
    std::vector<Led::Slot> grown(l.slots.empty() ? 8 : 2 * l.slots.size());
    for (const Led::Slot& s : l.slots)
      if (s.to != kNone) put(grown, s);
    bytes_ += (grown.size() - l.slots.size()) * sizeof(Led::Slot);
    l.slots = std::move(grown);
  }
  if (put(l.slots, {other, rest, to})) ++l.used;
}

bool CombatProcess::finish() {
  const std::size_t n = rounds.size();
  const std::vector<Move>& ms = *moves;
  const std::vector<Roll>& rs = *rolls;
  if (row_of.empty() && rows == 0) {
    // rows not given (a process made by hand): rolls share a row where they read the same moves
    std::unordered_map<std::uint32_t, std::uint32_t> row_at;  // a row's first move -> its number
    std::uint32_t base = 0;
    for (Round& round : rounds) {
      round.base = base, round.rows_first = static_cast<std::uint32_t>(state_rows.size());
      for (std::uint32_t r = round.first; r < round.first + round.count; ++r) {
        const auto [at, added] = row_at.emplace(rs[r].first, rows);
        if (added) row_moves.emplace_back(rs[r].first, rs[r].count), ++rows;
        row_of.push_back(at->second);
        const auto listed = state_rows.begin() + round.rows_first;
        if (std::find(listed, state_rows.end(), at->second) == state_rows.end())
          state_rows.push_back(at->second);
      }
      round.rows_count = static_cast<std::uint32_t>(state_rows.size()) - round.rows_first;
      base += round.count;
    }
  }
  // ordered over states and rows: a state leads to its distinct rows, a row to its moves' states
  // (each row's moves once, however many states read it); a row is done when every state that
  // reads it is, a state when every row that leads to it is
  std::vector<std::uint32_t> row_in(rows, 0), into(n, 0);
  for (const std::uint32_t row : state_rows) ++row_in[row];
  for (const auto& [first, count] : row_moves)
    for (std::uint32_t m = first; m < first + count; ++m)
      if (!ms[m].end) ++into[local[ms[m].to]];
  order.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (into[i] == 0) order.push_back(static_cast<std::uint32_t>(i));
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Round& round = rounds[order[k]];
    for (std::uint32_t r = round.rows_first; r < round.rows_first + round.rows_count; ++r) {
      const std::uint32_t row = state_rows[r];
      if (--row_in[row] != 0) continue;
      const auto [first, count] = row_moves[row];
      for (std::uint32_t m = first; m < first + count; ++m)
        if (!ms[m].end && --into[local[ms[m].to]] == 0) order.push_back(local[ms[m].to]);
    }
  }
  // (a row that leads back to a state that reads it, a choice that comes back: no order)
  return order.size() == n && (n == 0 || order[0] == 0);
}

std::vector<double> CombatProcess::values(std::span<const double> end_values, double round_reward,
                                          bool maximise, std::vector<std::uint32_t>* choice) const {
  const std::vector<Roll>& rs = *rolls;
  const std::vector<Move>& ms = *moves;
  std::vector<double> V(rounds.size(), 0.0);
  if (choice) choice->assign(rs.size(), 0);
  auto worth = [&](const Move& m) {
    return m.end ? end_values[local_end[m.to]] : round_reward + V[local[m.to]];
  };
  // a row's best option and its worth, found once (its moves lead to later states in `order`
  // than every state that reads it, so they are valued when it is first read)
  std::vector<double> row_worth(maximise ? rows : 0);
  std::vector<std::uint32_t> row_pick(maximise ? rows : 0, kNone);
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::uint32_t i = order[k];
    const Round& round = rounds[i];
    double sum = 0;
    for (std::uint32_t r = round.first; r < round.first + round.count; ++r) {
      const Roll& roll = rs[r];
      double pick;
      std::uint32_t picked = 0;
      if (maximise && roll.count > 1) {
        const std::uint32_t row = row_of[round.base + (r - round.first)];
        if (row_pick[row] == kNone) {
          double best = worth(ms[roll.first]);
          std::uint32_t at = 0;
          for (std::uint32_t o = 1; o < roll.count; ++o) {
            const double w = worth(ms[roll.first + o]);
            if (better(w, best)) best = w, at = o;
          }
          row_worth[row] = best, row_pick[row] = at;
        }
        pick = row_worth[row], picked = row_pick[row];
      } else {
        pick = worth(ms[roll.first]);
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
  const std::vector<Roll>& rs = *rolls;
  const std::vector<Move>& ms = *moves;
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
      const Roll& roll = rs[k];
      const Move& m = ms[roll.first + choice[k]];
      const double q = roll.p;
      if (m.end) {
        const std::uint32_t e = local_end[m.to];
        p_end[e] += out_p * q, rounds_end[e] += out_r * q;
      } else {
        const std::uint32_t to = local[m.to];
        p[to] += out_p * q, r[to] += (out_r + out_p) * q;  // a new round begins
      }
    }
  }
  for (std::uint32_t e = 0; e < ends; ++e)
    if (p_end[e] > 0) rounds_end[e] /= p_end[e];
}

}  // namespace rb
