#include "combat/combat.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <tuple>

#include "base/error.hpp"
#include "combat/assign_hits.hpp"
#include "exact/fire_chain.hpp"

namespace rb::combat {

namespace {

// A modifier that applies to a roll of `purpose` by `player`.
bool modifier_live(const Env& env, const State& s, int mi, const ModifierDef& m, EntityId player,
                   Sym purpose) {
  if (m.purpose != kNoSym && m.purpose != purpose) return false;
  if (m.role != kNoSym && s.role(m.role) != player) return false;
  if (m.activated) {
    for (const ActiveModifier& a : s.modifiers)
      if (a.modifier == mi && a.player == player) return true;
    return false;
  }
  if (m.source < 0) return true;
  if (env.held && !env.held->empty() && !(*env.held)[static_cast<std::size_t>(m.source)])
    return false;  // nobody holds it
  for (const Entity& e : s.entities)
    if (e.record == m.source && e.owner == player && e.location != kReinforcements) return true;
  return false;
}

bool modifier_fits_unit(const State& s, const ModifierDef& m, const Entity& u) {
  // a unit fits by its type ("flagship") or by its record ("arborec_flagship", "cruiser_ii")
  if (!m.units.empty() && std::find(m.units.begin(), m.units.end(), u.type) == m.units.end() &&
      std::find(m.unit_records.begin(), m.unit_records.end(), u.record) == m.unit_records.end())
    return false;
  if (!m.location.empty()) {
    if (!s.valid(u.location)) return false;
    const Entity& loc = s.at(u.location);
    for (const auto& [slot, value] : m.location)
      if (loc.attr[static_cast<std::size_t>(slot)] != value) return false;
  }
  if (m.present >= 0) {  // only modifiers that name a unit to be with pay for this scan
    for (const Entity& e : s.entities)
      if (e.record == m.present && e.owner == u.owner && e.location == u.location) return true;
    return false;
  }
  return true;
}

std::string name_of(const State& s, EntityId e) {
  if (!s.valid(e)) return e == kNoEntity ? "nobody" : "?";
  return std::string(sym_name(s.at(e).type));
}

// A unit's roll out of range (see rollers): kept out of the loop, which is the hot path.
[[gnu::noinline, gnu::cold, noreturn]] void rollers_error(const State& s, const char* call,
                                                          EntityId player, EntityId e,
                                                          std::int64_t dice, int threshold,
                                                          std::int64_t modifier,
                                                          std::int64_t total) {
  if (total <= kMaxDice || dice > kMaxDice || dice < 0)
    throw CombatError(std::string(call) + ": " + name_of(s, player) + " " + name_of(s, e) +
                      " rolls " + std::to_string(dice) + " dice hitting on " +
                      std::to_string(threshold) + " with modifier " + std::to_string(modifier) +
                      ": out of range (at most " + std::to_string(kMaxDice) +
                      " dice, values and modifiers within +-" + std::to_string(INT16_MAX) + ")");
  throw CombatError(std::string(call) + ": " + name_of(s, player) + "'s units roll more than " +
                    std::to_string(kMaxDice) + " dice at once");
}

// Whether the unit counts for a side's roll (ctx:exchange_fire: "units that roll").
bool fires(const Env& env, const Entity& u, EntityId player, EntityId location, int eligible) {
  return u.owner == player && u.location == location && u.kind == env.unit_kind &&
         (eligible < 0 || u.attr[static_cast<std::size_t>(eligible)] != 0);
}

}  // namespace

std::int64_t rollers(const Env& env, const State& s, EntityId player, EntityId location,
                     const RollSpec& spec, const char* call, std::vector<Roller>& units,
                     std::vector<int>& live) {
  const Sym purpose = spec.purpose;
  const int value = spec.value, count = spec.count, eligible = spec.eligible;

  // live modifiers for this player and purpose
  live.clear();
  const auto& mods = env.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi)
    if (modifier_live(env, s, static_cast<int>(mi), mods[mi], player, purpose))
      live.push_back(static_cast<int>(mi));

  units.clear();
  std::int64_t total = 0;
  for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e) {
    const Entity& u = s.entities[static_cast<std::size_t>(e)];
    if (u.owner != player || u.location != location || u.kind != env.unit_kind) continue;
    if (eligible >= 0 && u.attr[static_cast<std::size_t>(eligible)] == 0) continue;
    const int threshold = u.attr[static_cast<std::size_t>(value)];
    if (threshold <= 0) continue;
    std::int64_t dice = count >= 0 ? u.attr[static_cast<std::size_t>(count)] : 1, modifier = 0;
    int directed = -1, raised = -1;
    for (int k : live) {
      const ModifierDef& m = mods[static_cast<std::size_t>(k)];
      if (!modifier_fits_unit(s, m, u)) continue;
      modifier += m.delta;
      dice += m.dice;
      if (directed < 0 && !m.hits_to.empty()) directed = k;
      if (raised < 0 && m.spend != kNoSym) raised = k;
    }
    total += dice;
    if (threshold > INT16_MAX || modifier < INT16_MIN || modifier > INT16_MAX || dice < 0 ||
        dice > kMaxDice || total > kMaxDice) [[unlikely]]
      rollers_error(s, call, player, e, dice, threshold, modifier, total);
    units.push_back(
        {threshold, e, static_cast<int>(dice), static_cast<int>(modifier), directed, raised});
  }
  // ascending combat value, units of equal value in entity order (5.3); an insertion sort:
  // stable, no allocation, and the units are nearly in order already
  for (std::size_t k = 1; k < units.size(); ++k) {
    const Roller x = units[k];
    std::size_t j = k;
    for (; j > 0 && x.threshold < units[j - 1].threshold; --j) units[j] = units[j - 1];
    units[j] = x;
  }
  return total;
}

void die_modifiers(const Env& env, const State& s, EntityId player, EntityId unit, Sym purpose,
                   std::vector<int>& out) {
  out.clear();
  if (!s.valid(unit)) return;
  const auto& mods = env.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi)
    if (mods[mi].delta != 0 &&
        modifier_live(env, s, static_cast<int>(mi), mods[mi], player, purpose) &&
        modifier_fits_unit(s, mods[mi], s.at(unit)))
      out.push_back(static_cast<int>(mi));
}

void hit_distribution(const DieType& type, std::span<const Roller> units,
                      std::vector<double>& out) {
  out.assign(1, 1.0);
  for (const Roller& u : units) {
    int hitting = 0;
    for (int f = 0; f < type.sides; ++f) {
      const std::int32_t value = type.numeric() ? type.values[static_cast<std::size_t>(f)] : 0;
      hitting += u.threshold > 0 && value + u.modifier >= u.threshold ? 1 : 0;
    }
    const double p = static_cast<double>(hitting) / type.sides;
    for (int i = 0; i < u.dice; ++i) {
      out.push_back(0.0);
      for (std::size_t h = out.size() - 1; h > 0; --h) out[h] = out[h] * (1 - p) + out[h - 1] * p;
      out[0] *= 1 - p;
    }
  }
}

int directing(const Env& env, std::span<const Roller> units) {
  int by = -1;
  for (const Roller& u : units)
    if (u.directed >= 0) {
      if (by >= 0 && by != u.directed)
        throw CombatError(
            "ctx:exchange_fire: the hits of one roll are directed by two modifiers ('" +
            env.content->modifiers[static_cast<std::size_t>(by)].id + "', '" +
            env.content->modifiers[static_cast<std::size_t>(u.directed)].id + "')");
      by = u.directed;
    }
  return by;
}

namespace {

// The law of a group draw by these rollers (script/memo.hpp): each die's type and what it needs
// to hit; a die of a roller that modifier `by` directs weighs `weight`, any other 1.
void push_law(std::vector<Law>& laws, const RollSpec& spec, std::span<const Roller> units, int by,
              std::int64_t weight) {
  Law& law = laws.emplace_back();
  for (const Roller& u : units)
    for (int i = 0; i < u.dice; ++i)
      law.push_back({static_cast<std::int16_t>(spec.die), static_cast<std::int16_t>(u.threshold),
                     static_cast<std::int16_t>(u.modifier),
                     static_cast<std::uint16_t>(by >= 0 && u.directed == by ? weight : 1)});
}

// One die of roller `u`, rolled: what it needs to hit, its modifier and the face drawn.
inline Die roll_die(const DieType& type, const Roller& u, DiceStream& dice) {
  Die d;
  d.threshold = static_cast<std::int16_t>(u.threshold);
  d.modifier = static_cast<std::int16_t>(u.modifier);
  set_face(d, type, dice.roll(type));
  return d;
}

}  // namespace

int roll_hits(const Env& env, DiceStream& dice, std::vector<Law>& laws, const RollSpec& spec,
              std::span<const Roller> units, std::int64_t total, std::vector<double>& scratch,
              int by, int* directed) {
  const DieType& type = env.die_type(spec.die);
  if (directed) *directed = 0;
  if (by >= 0 && dice.exact()) {
    // the exact mode: two draws, the hits of the dice the modifier directs and the others' (the
    // two sets of dice are independent); a draw of each count, not of which dice hit
    std::vector<Roller> own, other;
    for (const Roller& u : units) (u.directed == by ? own : other).push_back(u);
    hit_distribution(type, other, scratch);
    const int other_hits =
        static_cast<int>(dice.choose(scratch.data(), static_cast<std::uint32_t>(scratch.size())));
    hit_distribution(type, own, scratch);
    const int own_hits =
        static_cast<int>(dice.choose(scratch.data(), static_cast<std::uint32_t>(scratch.size())));
    if (directed) *directed = own_hits;
    return other_hits + own_hits;
  }
  if (by >= 0) {
    // the hits of the directing modifier's dice count apart from the others': under the step
    // memo's tape the roll is one group draw whose value is both counts, other hits + directed
    // hits * (other dice + 1), so the trie branches on the pair (a roll too big for the trie's
    // slots stays draws of single dice)
    std::int64_t own = 0;
    for (const Roller& u : units)
      if (u.directed == by) own += u.dice;
    const std::int64_t weight = total - own + 1;
    const bool group = dice.taping() && weight * (own + 1) <= kMaxGroupBound;
    if (group) {
      push_law(laws, spec, units, by, weight);
      dice.begin_group();
    }
    int hits = 0, own_hits = 0;
    try {
      for (const Roller& u : units)
        for (int i = 0; i < u.dice; ++i) {
          const Die d = roll_die(type, u, dice);
          const int hit = d.hit() ? 1 : 0;
          hits += hit;
          if (u.directed == by) own_hits += hit;
        }
    } catch (const ScriptError& e) {
      throw CombatError(e.what());
    }
    if (group)
      dice.end_group(static_cast<std::uint32_t>(weight * (own + 1)),
                     static_cast<std::uint32_t>(hits - own_hits + own_hits * weight),
                     static_cast<std::int32_t>(laws.size() - 1));
    if (directed) *directed = own_hits;
    return hits;
  }
  if (dice.exact()) {
    hit_distribution(type, units, scratch);
    return static_cast<int>(
        dice.choose(scratch.data(), static_cast<std::uint32_t>(scratch.size())));
  }
  // under the step memo's tape the roll is one group draw: the trie branches on its hits, and
  // keeps what each die needs to hit, so that a walk rolls the same dice (script/memo.hpp)
  const bool group = dice.taping();
  if (group) {
    push_law(laws, spec, units, -1, 1);
    dice.begin_group();
  }
  int hits = 0;
  try {
    for (const Roller& u : units)
      for (int i = 0; i < u.dice; ++i) {
        const Die d = roll_die(type, u, dice);
        hits += d.hit() ? 1 : 0;
      }
  } catch (const ScriptError& e) {
    throw CombatError(e.what());
  }
  if (group)
    dice.end_group(static_cast<std::uint32_t>(total + 1), static_cast<std::uint32_t>(hits),
                   static_cast<std::int32_t>(laws.size() - 1));
  return hits;
}

namespace {

// The ways a roll by these rollers falls as (hits, near misses of the rollers `by` applies to,
// counted up to `cap`), in that order, with their probabilities: each die hits, misses by at
// most `raise` or misses, and the dice are independent.
void near_miss_ways(const DieType& type, std::span<const Roller> units, int by, int raise, int cap,
                    std::vector<double>& p, std::vector<std::pair<int, int>>& ways) {
  auto near_miss = [&](const Roller& u, std::int32_t value) {
    return u.raised == by && value + u.modifier < u.threshold &&
           value + u.modifier + raise >= u.threshold;
  };
  const auto w = static_cast<std::size_t>(cap + 1);
  std::vector<double> table(w, 0.0);  // table[h * w + n]
  table[0] = 1;
  int most = 0;  // the most hits so far
  std::vector<double> next;
  for (const Roller& u : units) {
    int hitting = 0, nearing = 0;
    for (int f = 0; f < type.sides; ++f) {
      const std::int32_t value = type.numeric() ? type.values[static_cast<std::size_t>(f)] : 0;
      if (u.threshold > 0 && value + u.modifier >= u.threshold)
        ++hitting;
      else if (u.threshold > 0 && near_miss(u, value))
        ++nearing;
    }
    const double ph = static_cast<double>(hitting) / type.sides,
                 pn = static_cast<double>(nearing) / type.sides, pm = 1 - ph - pn;
    for (int i = 0; i < u.dice; ++i) {
      next.assign(static_cast<std::size_t>(most + 2) * w, 0.0);
      for (int h = 0; h <= most; ++h)
        for (int n = 0; n <= cap; ++n) {
          const double q = table[static_cast<std::size_t>(h) * w + static_cast<std::size_t>(n)];
          if (q == 0) continue;
          const auto at = [&](int hh, int nn) {
            return static_cast<std::size_t>(hh) * w + static_cast<std::size_t>(nn);
          };
          next[at(h + 1, n)] += q * ph;
          next[at(h, std::min(cap, n + 1))] += q * pn;
          next[at(h, n)] += q * pm;
        }
      table.swap(next);
      ++most;
    }
  }
  // the ways it can fall, in the order of (hits, near misses)
  p.clear(), ways.clear();
  for (std::size_t k = 0; k < table.size(); ++k)
    if (table[k] > 0) {
      p.push_back(table[k]);
      ways.emplace_back(static_cast<int>(k / w), static_cast<int>(k % w));
    }
}

}  // namespace

int roll_near_misses(const Env& env, DiceStream& dice, const RollSpec& spec,
                     std::span<const Roller> units, int by, int raise, std::int64_t spendable,
                     int& near) {
  const DieType& type = env.die_type(spec.die);
  near = 0;
  auto near_miss = [&](const Roller& u, std::int32_t value) {
    return u.raised == by && value + u.modifier < u.threshold &&
           value + u.modifier + raise >= u.threshold;
  };
  if (dice.exact()) {
    // one draw over (hits, near misses), the near misses counted up to what can be spent: each
    // die hits, misses near or misses, and the dice are independent. No roll has more near misses
    // than dice: a counter beyond them (100 trade goods) widens the table for nothing
    std::int64_t rolled = 0;
    for (const Roller& u : units) rolled += u.dice;
    const int cap =
        static_cast<int>(std::clamp<std::int64_t>(spendable, 0, std::min(rolled, kMaxDice)));
    // The draw's ways depend on the die, the rollers and the cap alone: the last ones are kept (a
    // round enumerated draw by draw rolls one side again for each way the other side fell)
    thread_local std::vector<std::int64_t> key, last;
    thread_local std::vector<double> p;
    thread_local std::vector<std::pair<int, int>> ways;
    key.assign({type.sides, type.numeric() ? 1 : 0, by, raise, cap});
    if (type.numeric()) key.insert(key.end(), type.values.begin(), type.values.end());
    for (const Roller& u : units)
      key.insert(key.end(), {u.threshold, u.modifier, u.dice, u.raised});
    if (key != last) {
      last.clear();
      near_miss_ways(type, units, by, raise, cap, p, ways);
      last = key;
    }
    const auto [hits, n] = ways[dice.choose(p.data(), static_cast<std::uint32_t>(p.size()))];
    near = n;
    return hits;
  }
  int hits = 0;
  try {
    for (const Roller& u : units)
      for (int i = 0; i < u.dice; ++i) {
        const Die d = roll_die(type, u, dice);
        if (d.hit())
          ++hits;
        else if (d.threshold > 0 && near_miss(u, d.value))
          ++near;
      }
  } catch (const ScriptError& e) {
    throw CombatError(e.what());
  }
  return hits;
}

namespace {

// whether spend is the modifier's only round effect, or a paid repair of the units that sustain
// (repair = sustained, pay): what the exact mode's chain does itself (exact_ends)
bool chained_only(const ModifierDef& m) {
  return m.sustain_cancels == 0 && m.sustained_flag == kNoSym &&
         ((m.spend != kNoSym && m.repair == ModifierDef::Repair::none) ||
          (m.spend == kNoSym && m.repair == ModifierDef::Repair::sustained && m.pay != kNoSym));
}

// A modifier that spends (spend) or pays (a repair's pay) counts while the player has some (the
// cost) of that counter and has not declined it.
bool spend_counts(const State& s, const ModifierDef& m, EntityId player, int mi,
                  std::span<const int> declined) {
  const bool declines = std::find(declined.begin(), declined.end(), mi) != declined.end();
  if (m.spend != kNoSym) return s.counter(player, m.spend) > 0 && !declines;
  if (m.repair == ModifierDef::Repair::sustained)
    return (m.pay == kNoSym || s.counter(player, m.pay) >= m.cost) && !declines;
  return true;
}

}  // namespace

bool modifier_applies(const Env& env, const State& s, int mi, EntityId player, Sym purpose) {
  return modifier_live(env, s, mi, env.content->modifiers[static_cast<std::size_t>(mi)], player,
                       purpose);
}

bool unit_fits_modifier(const State& s, const ModifierDef& m, const Entity& u) {
  return modifier_fits_unit(s, m, u);
}

void assignment_cancelling(const Env& env, const State& s, EntityId player, std::vector<int>& out) {
  out.clear();
  const auto& mods = env.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi)
    if (mods[mi].sustain_cancels > 1 && mods[mi].purpose == kNoSym &&
        modifier_live(env, s, static_cast<int>(mi), mods[mi], player, kNoSym))
      out.push_back(static_cast<int>(mi));
}

bool has_round_effects(const Env& env, const State& s, EntityId player, const RollSpec& spec,
                       std::span<const int> declined, bool spend_chained) {
  const auto& mods = env.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi)
    if (mods[mi].round_effect() && !(spend_chained && chained_only(mods[mi])) &&
        modifier_live(env, s, static_cast<int>(mi), mods[mi], player, spec.purpose) &&
        spend_counts(s, mods[mi], player, static_cast<int>(mi), declined))
      return true;
  return false;
}

bool directs_hits(const Env& env, const State& s, EntityId player, EntityId location,
                  const RollSpec& spec) {
  bool any = false;
  for (const ModifierDef& m : env.content->modifiers) any = any || !m.hits_to.empty();
  if (!any) return false;
  std::vector<Roller> units;
  std::vector<int> live;
  rollers(env, s, player, location, spec, "ctx:exchange_fire", units, live);
  for (const Roller& u : units)
    if (u.directed >= 0) return true;
  return false;
}

// ---------------------------------------------------------------- the casualty queue

void Casualties::build(const Env& env, const State& s, EntityId player, EntityId location,
                       const CasualtySpec& spec, std::span<const Sym> order,
                       std::span<const int> cancelling) {
  units_.clear();
  spec_ = &spec;
  location_ = location;
  alive_ = sustain_ = first_ = 0;
  ++assignment_;
  bool keeps_differ = false;
  for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e) {
    const Entity& u = s.entities[static_cast<std::size_t>(e)];
    if (u.owner != player || u.location != location || u.kind != env.unit_kind) continue;
    if (spec.eligible >= 0 && u.attr[static_cast<std::size_t>(spec.eligible)] == 0) continue;
    if (!spec.types.empty() &&
        std::find(spec.types.begin(), spec.types.end(), u.type) == spec.types.end())
      continue;
    int r = static_cast<int>(order.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      if (order[k] == u.type) {
        r = static_cast<int>(k);
        break;
      }
    auto attr = [&](int slot) { return slot >= 0 && u.attr[static_cast<std::size_t>(slot)] != 0; };
    int cancels = 1;
    for (int k : cancelling) {
      const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(k)];
      if (m.sustain_cancels > cancels && modifier_fits_unit(s, m, u)) cancels = m.sustain_cancels;
    }
    units_.push_back({e, u.type, r, true, attr(spec.damaged), attr(spec.can_sustain),
                      attr(spec.sustain_first), 0, cancels,
                      spec.keep >= 0 ? u.attr[static_cast<std::size_t>(spec.keep)] : 0});
    if (units_.back().keep != units_.front().keep) keeps_differ = true;
  }
  // by rank, units of a rank in entity order: the first unit of a rank is the one the policy's
  // ties go to
  // (a counting sort by rank: stable, and no allocation once the buffers are warm)
  start_.assign(order.size() + 2, 0);
  for (const Unit& u : units_) ++start_[static_cast<std::size_t>(u.rank) + 1];
  for (std::size_t r = 1; r < start_.size(); ++r) start_[r] += start_[r - 1];
  sorted_.resize(units_.size());
  for (const Unit& u : units_)
    sorted_[static_cast<std::size_t>(start_[static_cast<std::size_t>(u.rank)]++)] = u;
  units_.swap(sorted_);
  // within a rank, the units with less of `keep` first (entity order among equals)
  if (keeps_differ)
    std::stable_sort(units_.begin(), units_.end(), [](const Unit& x, const Unit& y) {
      return x.rank != y.rank ? x.rank < y.rank : x.keep < y.keep;
    });
  damaged_.assign(order.size() + 1, 0);
  for (const Unit& u : units_)
    if (u.damaged) ++damaged_[static_cast<std::size_t>(u.rank)];
}

int Casualties::first_alive() const {
  while (alive_ < units_.size() && !units_[alive_].alive) ++alive_;
  return alive_ < units_.size() ? static_cast<int>(alive_) : -1;
}

// The unit the order loses next: lowest rank; then a damaged one before an undamaged one, and
// among damaged ones one that sustained in this assignment before one that did not; then the
// oldest entity.
int Casualties::next_loss(Sym type) const {
  int best = -1;
  const int start = type == kNoSym ? first_alive() : 0;
  if (start < 0) return -1;
  if (type == kNoSym && damaged_[static_cast<std::size_t>(units_[alive_].rank)] == 0)
    return start;  // no damaged unit in the lowest rank: its first unit
  for (std::size_t i = static_cast<std::size_t>(start); i < units_.size(); ++i) {
    const Unit& u = units_[i];
    if (!u.alive || (type != kNoSym && u.type != type)) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const Unit& b = units_[static_cast<std::size_t>(best)];
    if (u.rank != b.rank) break;  // past the lowest rank
    if (u.damaged && (!b.damaged || (sustained_now(u) && !sustained_now(b))))
      best = static_cast<int>(i);
  }
  return best;
}

// The unit that sustains next: the lowest-ranked undamaged unit that can (of `type`).
int Casualties::next_sustain(Sym type) const {
  if (type == kNoSym) {
    while (sustain_ < units_.size() &&
           !(units_[sustain_].alive && units_[sustain_].can && !units_[sustain_].damaged))
      ++sustain_;
    return sustain_ < units_.size() ? static_cast<int>(sustain_) : -1;
  }
  for (std::size_t i = sustain_; i < units_.size(); ++i) {
    const Unit& u = units_[i];
    if (u.alive && u.can && !u.damaged && u.type == type) return static_cast<int>(i);
  }
  return -1;
}

// sustain = "last": the lowest-ranked unit with sustain_first that can sustain, else an undamaged
// unit of rank `at_rank` (the rank the next loss comes from) that can.
int Casualties::last_sustain(int at_rank) const {
  while (first_ < units_.size() && !(units_[first_].alive && units_[first_].first &&
                                     units_[first_].can && !units_[first_].damaged))
    ++first_;
  if (first_ < units_.size()) return static_cast<int>(first_);
  const int start = first_alive();
  if (start < 0) return -1;
  for (std::size_t i = static_cast<std::size_t>(start); i < units_.size(); ++i) {
    const Unit& u = units_[i];
    if (u.rank > at_rank) break;
    if (u.alive && u.can && !u.damaged && u.rank == at_rank) return static_cast<int>(i);
  }
  return -1;
}

int Casualties::policy_target(Sustain mode, bool& sustain) const {
  const int loss = next_loss(kNoSym);
  sustain = false;
  if (loss < 0) return -1;  // nothing left to take the hit
  int sus = -1;
  if (mode == Sustain::first)
    sus = next_sustain(kNoSym);
  else if (mode == Sustain::last)
    sus = last_sustain(units_[static_cast<std::size_t>(loss)].rank);
  sustain = sus >= 0;
  return sus >= 0 ? sus : loss;
}

int Casualties::room(Sustain mode) const {
  int n = 0;
  for (const Unit& u : units_)
    if (u.alive) n += 1 + (mode != Sustain::never && u.can && !u.damaged ? u.cancels : 0);
  return n;
}

void Casualties::take(State& s, int i, bool sustain) {
  Unit& u = units_[static_cast<std::size_t>(i)];
  Entity& e = s.at(u.e);
  if (sustain) {
    if (spec_->damaged >= 0) e.attr[static_cast<std::size_t>(spec_->damaged)] = 1;
    if (!u.damaged) ++damaged_[static_cast<std::size_t>(u.rank)];
    u.damaged = true;
    u.sustained_in = assignment_;
  } else {
    e.location = kReinforcements;  // off the board now; destroyed by the caller
    if (u.damaged) --damaged_[static_cast<std::size_t>(u.rank)];
    u.alive = false;
  }
}

int assign_by_policy(State& s, Casualties& q, int hits, Sustain mode, std::vector<EntityId>& lost,
                     std::vector<EntityId>* sustaining) {
  int destroyed = 0;
  for (; hits > 0; --hits) {
    bool sustain = false;
    const int target = q.policy_target(mode, sustain);
    if (target < 0) break;
    q.take(s, target, sustain);
    if (sustain) {
      hits -= q.cancels(target) - 1;  // the hits it cancels besides this one (the loop's --hits)
      if (sustaining) sustaining->push_back(q.entity(target));
    } else {
      lost.push_back(q.entity(target));
      ++destroyed;
    }
  }
  return destroyed;
}

// ---------------------------------------------------------------- rounds of fire

namespace {

using Side = ExchangeScratch::Side;

void build_side(const Env& env, const State& s, const Exchange& x, EntityId player, Side& side) {
  side.stale = true;
  side.queue_stale = side.directed_stale = true;
  side.directed_by = -1;  // its spec is made again from this call's hit spec
  side.fire.clear();
  side.fire_alive = 0;
  for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e)
    if (fires(env, s.entities[static_cast<std::size_t>(e)], player, x.location, x.roll->eligible))
      side.fire.push_back(e);
}

bool side_fires(const State& s, EntityId location, Side& side) {
  while (side.fire_alive < side.fire.size() &&
         s.at(side.fire[side.fire_alive]).location != location)
    ++side.fire_alive;
  return side.fire_alive < side.fire.size();
}

// The side's live modifiers with a round effect; a change in those that cancel hits makes its
// casualty queues stale (they know what each unit's Sustain Damage cancels).
void side_effects(const Env& env, const State& s, const Exchange& x, EntityId player, Side& side) {
  const std::size_t cancelling = side.cancelling.size();
  const bool had = side.effects;
  side.cancelling.clear(), side.repair_after.clear(), side.repair_start.clear();
  side.flagging.clear(), side.repair_sustained.clear();
  side.spending = -1;
  side.effects = false;
  const auto& mods = env.content->modifiers;
  const std::span<const int> declined = player == x.a ? x.declined_a : x.declined_d;
  for (std::size_t mi = 0; mi < mods.size(); ++mi) {
    const ModifierDef& m = mods[mi];
    if (!m.round_effect() ||
        !modifier_live(env, s, static_cast<int>(mi), m, player, x.roll->purpose))
      continue;
    if ((m.spend != kNoSym || m.repair == ModifierDef::Repair::sustained) &&
        std::find(declined.begin(), declined.end(), static_cast<int>(mi)) != declined.end())
      continue;
    side.effects = true;
    const int k = static_cast<int>(mi);
    if (m.sustain_cancels > 1) side.cancelling.push_back(k);
    if (m.repair == ModifierDef::Repair::after_hits) side.repair_after.push_back(k);
    if (m.repair == ModifierDef::Repair::start_of_round) side.repair_start.push_back(k);
    if (m.repair == ModifierDef::Repair::sustained) side.repair_sustained.push_back(k);
    if (m.sustained_flag != kNoSym) side.flagging.push_back(k);
    if (m.spend != kNoSym && side.spending < 0) side.spending = k;
  }
  if (had || side.cancelling.size() != cancelling) side.queue_stale = side.directed_stale = true;
}

// Repairs `e` (its damaged attribute cleared): the side's queues and, when damage is read by its
// roll, its rollers are stale.
void repair_unit(State& s, const Exchange& x, EntityId e, Side& side) {
  const int damaged = x.hits->damaged;
  s.at(e).attr[static_cast<std::size_t>(damaged)] = 0;
  side.queue_stale = side.directed_stale = true;
  if (damaged == x.roll->value || damaged == x.roll->count || damaged == x.roll->eligible)
    side.stale = true;
}

// repair = sustained: each unit of `sustained` (the side's units that used Sustain Damage in this
// assignment, in that order; its lost units still on the board, as at the windows after a unit
// sustains) that a live modifier of it applies to and that is still damaged, while the player can
// pay the modifier's cost (taken off its counter `pay`). A unit lost in the same assignment is
// repaired (and paid for) too, as those windows open before the losses leave.
void repair_sustained_units(const Env& env, State& s, const Exchange& x, EntityId player,
                            Side& side, std::span<const EntityId> sustained) {
  const int damaged = x.hits->damaged;
  if (damaged < 0) return;
  const auto& mods = env.content->modifiers;
  for (EntityId e : sustained)
    for (int k : side.repair_sustained) {
      const ModifierDef& m = mods[static_cast<std::size_t>(k)];
      const Entity& u = s.at(e);
      if (u.attr[static_cast<std::size_t>(damaged)] == 0 || !modifier_fits_unit(s, m, u)) continue;
      if (m.pay != kNoSym) {
        if (s.counter(player, m.pay) < m.cost) continue;
        for (Counter& c : s.counters)
          if (c.target == player && c.key == m.pay) c.value -= m.cost;
      }
      repair_unit(s, x, e, side);
    }
}

// repair = start_of_round: every damaged unit of `player` at the location that a live modifier
// of it applies to.
void repair_at_start(const Env& env, State& s, const Exchange& x, EntityId player, Side& side) {
  const int damaged = x.hits->damaged;
  if (damaged < 0) return;
  for (int k : side.repair_start) {
    const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(k)];
    for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e) {
      const Entity& u = s.entities[static_cast<std::size_t>(e)];
      if (u.owner == player && u.location == x.location && u.kind == env.unit_kind &&
          u.attr[static_cast<std::size_t>(damaged)] != 0 && modifier_fits_unit(s, m, u))
        repair_unit(s, x, e, side);
    }
  }
}

// repair = after_hits: for each live modifier, one damaged unit of `player` at the location that
// it applies to and that did not use Sustain Damage this round (no flag of the side's
// sustained_flag modifiers): the one its hit order loses last (the highest rank; among equals,
// the first entity).
void repair_after_hits(const Env& env, State& s, const Exchange& x, EntityId player,
                       std::span<const Sym> order, Side& side) {
  const int damaged = x.hits->damaged;
  if (damaged < 0) return;
  const auto& mods = env.content->modifiers;
  for (int k : side.repair_after) {
    const ModifierDef& m = mods[static_cast<std::size_t>(k)];
    EntityId best = kNoEntity;
    std::size_t best_rank = 0;
    for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e) {
      const Entity& u = s.entities[static_cast<std::size_t>(e)];
      if (u.owner != player || u.location != x.location || u.kind != env.unit_kind ||
          u.attr[static_cast<std::size_t>(damaged)] == 0 || !modifier_fits_unit(s, m, u))
        continue;
      bool sustained = false;
      for (int f : side.flagging)
        sustained =
            sustained || s.counter(e, mods[static_cast<std::size_t>(f)].sustained_flag) != 0;
      if (sustained) continue;
      const std::size_t rank =
          static_cast<std::size_t>(std::find(order.begin(), order.end(), u.type) - order.begin());
      if (best == kNoEntity || rank > best_rank) best = e, best_rank = rank;
    }
    if (best != kNoEntity) repair_unit(s, x, best, side);
  }
}

// The side's units that sustained in this assignment get the round flags of its sustained_flag
// modifiers that apply to them.
void flag_sustained(const Env& env, State& s, const Exchange& x, const Side& side,
                    std::span<const EntityId> sustained) {
  for (int k : side.flagging) {
    const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(k)];
    for (EntityId e : sustained)
      if (modifier_fits_unit(s, m, s.at(e))) s.set_counter(e, m.sustained_flag, 1, x.round_scope);
  }
}

// The side's rollers for this round: built again when stale, else the same less those lost.
void side_rollers(const Env& env, const State& s, const Exchange& x, EntityId player, Side& side,
                  ExchangeScratch& scratch) {
  if (side.stale) {
    side.total = rollers(env, s, player, x.location, *x.roll, "ctx:exchange_fire", side.rollers,
                         scratch.live);
    side.stale = false;
    side_effects(env, s, x, player, side);
  } else {
    std::int64_t total = 0;
    std::erase_if(side.rollers,
                  [&](const Roller& r) { return s.at(r.unit).location != x.location; });
    for (const Roller& r : side.rollers) total += r.dice;
    side.total = total;
  }
  side.directing = directing(env, side.rollers);
}

// The side takes `hits`, of which `directed` go first to the types the modifier `directing`
// names, if able (as many as those units can take); its losses are destroyed (host). Returns
// whether a loss or a sustained hit may change what rolls (a modifier's source or companion lost,
// damage read by the roll).
bool side_takes(const Env& env, State& s, const Exchange& x, EntityId player,
                std::span<const Sym> order, Side& side, int hits, int directed, int directing,
                Sustain mode, ExchangeHost& host, ExchangeScratch& scratch) {
  std::vector<EntityId>& lost = scratch.lost;
  lost.clear();
  std::vector<EntityId>* sustained =
      side.flagging.empty() && side.repair_sustained.empty() ? nullptr : &scratch.sustained;
  if (sustained) sustained->clear();
  int destroyed = 0;
  if (directed > 0 && directing >= 0) {
    if (side.directed_by != directing || side.directed_from != x.hits) {
      side.directed_spec = *x.hits;
      side.directed_spec.types =
          env.content->modifiers[static_cast<std::size_t>(directing)].hits_to;
      side.directed_by = directing, side.directed_from = x.hits;
      side.directed_stale = true;
    }
    if (side.directed_stale) {
      side.directed_queue.build(env, s, player, x.location, side.directed_spec, order,
                                side.cancelling);
      side.directed_stale = false;
    }
    const int n = std::min({directed, hits, side.directed_queue.room(mode)});
    if (n > 0) {
      side.directed_queue.begin_assignment();
      destroyed += assign_by_policy(s, side.directed_queue, n, mode, lost, sustained);
      hits -= n;
      side.queue_stale = true;
    }
  }
  if (hits > 0) {
    if (side.queue_stale) {
      side.queue.build(env, s, player, x.location, *x.hits, order, side.cancelling);
      side.queue_stale = false;
    }
    side.queue.begin_assignment();
    const AskOutcome* whole = player == x.a ? x.whole_a : x.whole_d;
    if (whole && whole->choose) {
      // best play: one choice among the distinct outcomes, the policy's first (as
      // choose_casualties makes it for ctx:assign_hits)
      std::vector<AssignmentOutcome> made;
      const std::vector<AssignmentOutcome>* kept = nullptr;
      if (whole->by_hits) {
        auto& by = *whole->by_hits;
        if (by.size() <= static_cast<std::size_t>(hits))
          by.resize(static_cast<std::size_t>(hits) + 1);
        std::vector<AssignmentOutcome>& at = by[static_cast<std::size_t>(hits)];
        if (at.empty()) at = assignment_outcomes(s, side.queue, hits, mode, whole->interchangeable);
        kept = &at;
      } else {
        made = assignment_outcomes(s, side.queue, hits, mode, whole->interchangeable);
      }
      const std::vector<AssignmentOutcome>& outcomes = kept ? *kept : made;
      const std::size_t k = whole->choose(outcomes.size());
      for (const auto& [i, sustain] : outcomes[k < outcomes.size() ? k : 0].takes) {
        side.queue.take(s, i, sustain);
        if (!sustain)
          lost.push_back(side.queue.entity(i)), ++destroyed;
        else if (sustained)
          sustained->push_back(side.queue.entity(i));
      }
    } else {
      destroyed += assign_by_policy(s, side.queue, hits, mode, lost, sustained);
    }
    side.directed_stale = true;
  }
  if (sustained && !sustained->empty() && !side.flagging.empty())
    flag_sustained(env, s, x, side, *sustained);
  const int damaged = x.hits->damaged;
  (void)destroyed;
  bool changes = damaged >= 0 && (damaged == x.roll->value || damaged == x.roll->count ||
                                  damaged == x.roll->eligible);
  // the units lost stay on the board until the windows after a unit sustains have opened
  for (EntityId e : lost) s.at(e).location = x.location;
  if (sustained && !sustained->empty() && !side.repair_sustained.empty())
    repair_sustained_units(env, s, x, player, side, *sustained);
  for (EntityId e : lost) {
    Entity& u = s.at(e);
    if (damaged >= 0) u.attr[static_cast<std::size_t>(damaged)] = 0;
    if (std::binary_search(scratch.modifier_records.begin(), scratch.modifier_records.end(),
                           u.record))
      changes = true;
    host.destroy(e);
  }
  return changes;
}

// A round ended and the combat goes on: the caller's window at the round's end (a side its
// hooks left with nothing to fire: round_ended), then the next round begins: the round scope
// ends and the counter counts it (round_done).
ExchangeResult round_end(const Env& env, State& s, const Exchange& x, ExchangeHost& host, Side& a,
                         Side& d) {
  if (host.round_windows && host.round_ends()) {  // a hook may have changed any unit
    build_side(env, s, x, x.a, a);
    build_side(env, s, x, x.d, d);
    // a hook there left a side with nothing to fire: no next round; the procedure ends the
    // combat (its round's end has opened)
    if (!(side_fires(s, x.location, a) && side_fires(s, x.location, d)))
      return ExchangeResult::round_ended;
  }
  host.round_begins();
  const std::size_t modifiers = s.modifiers.size();
  s.end_scope(x.round_scope);
  if (s.modifiers.size() != modifiers) a.stale = d.stale = true;  // "until the end of the round"
  const std::int32_t next = s.counter(x.location, x.counter) + 1;
  if (x.cap < 0 || next <= x.cap) s.set_counter(x.location, x.counter, next, x.counter_scope);
  return ExchangeResult::round_done;
}

// The exact mode runs one round (x.one_round) from one start once for every draw of its dice:
// the sides' rollers and round effects, read before any draw, are the same each time. The last
// start's are kept (per thread) and given back when the start and the call are the same.
struct StartRollers {
  struct Kept {
    std::vector<Roller> rollers;
    std::int64_t total = 0;
    std::vector<int> cancelling, repair_after, repair_start, flagging, repair_sustained;
    int spending = -1;
    bool effects = false;
  };
  const Content* content = nullptr;
  const RollSpec* roll = nullptr;
  EntityId location = kNoEntity, a = kNoEntity, d = kNoEntity;
  std::vector<int> declined_a, declined_d;
  State start;
  Kept kept[2];
  bool valid = false;

  bool same(const Env& env, const State& s, const Exchange& x) const {
    return valid && content == env.content && roll == x.roll && location == x.location &&
           a == x.a && d == x.d && std::ranges::equal(declined_a, x.declined_a) &&
           std::ranges::equal(declined_d, x.declined_d) && start == s;
  }
  void keep(const Env& env, const State& s, const Exchange& x, const ExchangeScratch& scratch) {
    content = env.content, roll = x.roll, location = x.location, a = x.a, d = x.d;
    declined_a.assign(x.declined_a.begin(), x.declined_a.end());
    declined_d.assign(x.declined_d.begin(), x.declined_d.end());
    start = s;
    for (int i = 0; i < 2; ++i) {
      const ExchangeScratch::Side& side = scratch.side[i];
      kept[i] = {side.rollers,          side.total,        side.cancelling,
                 side.repair_after,     side.repair_start, side.flagging,
                 side.repair_sustained, side.spending,     side.effects};
    }
    valid = true;
  }
  void give_back(ExchangeScratch& scratch) const {
    for (int i = 0; i < 2; ++i) {
      ExchangeScratch::Side& side = scratch.side[i];
      const Kept& k = kept[i];
      side.rollers = k.rollers, side.total = k.total;
      side.cancelling = k.cancelling, side.repair_after = k.repair_after;
      side.repair_start = k.repair_start, side.flagging = k.flagging;
      side.repair_sustained = k.repair_sustained;
      side.spending = k.spending, side.effects = k.effects;
      side.stale = false;
    }
  }
};

// The records whose loss can change a modifier (its source, the unit it must be with), sorted.
void collect_modifier_records(const Env& env, std::vector<std::int32_t>& records) {
  records.clear();
  for (const ModifierDef& m : env.content->modifiers) {
    if (m.source >= 0) records.push_back(m.source);
    if (m.present >= 0) records.push_back(m.present);
  }
  std::sort(records.begin(), records.end());
}

}  // namespace

ExchangeResult exchange_fire(const Env& env, DiceStream& dice, std::vector<Law>& laws, State& s,
                             const Exchange& x, ExchangeHost& host, ExchangeScratch& scratch) {
  collect_modifier_records(env, scratch.modifier_records);
  Side& a = scratch.side[0];
  Side& d = scratch.side[1];
  build_side(env, s, x, x.a, a);
  build_side(env, s, x, x.d, d);
  thread_local StartRollers start_rollers;
  bool first = dice.exact() && x.one_round;  // a round the exact mode enumerates
  for (;;) {
    if (host.time_up()) return ExchangeResult::time_up;
    if (host.can_intervene()) return ExchangeResult::handed_back;
    // a round after the first (the counter past 1): the caller's start-of-round window; a side
    // its hooks left without units that roll ends the combat before the rolls
    if (host.round_windows && !x.once && x.counter != kNoSym &&
        s.counter(x.location, x.counter) > 1 && host.round_starts()) {
      build_side(env, s, x, x.a, a);
      build_side(env, s, x, x.d, d);
      if (!(side_fires(s, x.location, a) && side_fires(s, x.location, d)))
        return ExchangeResult::over;
    }
    const bool kept = first && start_rollers.same(env, s, x);
    if (kept) start_rollers.give_back(scratch);
    side_rollers(env, s, x, x.a, a, scratch);
    side_rollers(env, s, x, x.d, d, scratch);
    if (first && !kept) start_rollers.keep(env, s, x, scratch);
    first = false;
    // the exact mode's chain knows a side's hits so far, not which dice made them: directed
    // hits run one round a call (x.one_round), each roll two draws (roll_hits)
    if (dice.exact() && !x.one_round && (a.directing >= 0 || d.directing >= 0))
      return ExchangeResult::handed_back;
    if (a.effects || d.effects) {
      // modifiers that do hooks' work in these rounds (sustain_cancels, repair): in the exact
      // mode one round a call (its losses depend on more than the hits taken so far), and not
      // where directed hits meet hits a Sustain Damage cancels
      if (dice.exact() && !x.one_round) return ExchangeResult::handed_back;
      if ((a.directing >= 0 && !d.cancelling.empty()) ||
          (d.directing >= 0 && !a.cancelling.empty()))
        return ExchangeResult::handed_back;
      // the start of a round after the first (the first round's start is the caller's: the
      // counter is 1 there); without a counter these rounds cannot tell, and hand it back
      if (!x.once && (!a.repair_start.empty() || !d.repair_start.empty())) {
        if (x.counter == kNoSym) return ExchangeResult::handed_back;
        if (s.counter(x.location, x.counter) > 1) {
          repair_at_start(env, s, x, x.a, a);
          repair_at_start(env, s, x, x.d, d);
          if (a.stale) side_rollers(env, s, x, x.a, a, scratch);
          if (d.stale) side_rollers(env, s, x, x.d, d, scratch);
        }
      }
    }
    // hits a counter is spent on (spend) and directed hits are not counted together
    if ((a.spending >= 0 && a.directing >= 0) || (d.spending >= 0 && d.directing >= 0))
      return ExchangeResult::handed_back;
    int directed_a = 0, directed_d = 0;
    const int by_a = a.directing, by_d = d.directing;
    // a side's roll, then what it spends to raise near misses (as the hook it replaces does
    // right after that player's roll)
    auto roll_side = [&](EntityId player, Side& side, int by, int& directed) {
      if (side.spending < 0)
        return roll_hits(env, dice, laws, *x.roll, side.rollers, side.total, scratch.distribution,
                         by, &directed);
      const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(side.spending)];
      const std::int32_t have = s.counter(player, m.spend);
      int near = 0;
      const int hits =
          roll_near_misses(env, dice, *x.roll, side.rollers, side.spending, m.raise, have, near);
      const int spent = std::min(near, std::max(have, 0));
      if (spent > 0)
        for (Counter& c : s.counters)
          if (c.target == player && c.key == m.spend) c.value -= spent;
      return hits + spent;
    };
    const int hits_a = roll_side(x.a, a, by_a, directed_a);
    const int hits_d = roll_side(x.d, d, by_d, directed_d);
    bool changed = false;
    if (hits_d > 0)
      changed |= side_takes(env, s, x, x.a, x.order_a, a, hits_d, directed_d, by_d, x.sustain_a,
                            host, scratch);
    if (hits_a > 0)
      changed |= side_takes(env, s, x, x.d, x.order_d, d, hits_a, directed_a, by_a, x.sustain_d,
                            host, scratch);
    // after hits are assigned (a repair of one's own units: the order of the sides is moot)
    if (!x.once) {
      if (!a.repair_after.empty()) repair_after_hits(env, s, x, x.a, x.order_a, a);
      if (!d.repair_after.empty()) repair_after_hits(env, s, x, x.d, x.order_d, d);
    }
    if (changed) a.stale = d.stale = true;
    const bool ongoing = side_fires(s, x.location, a) && side_fires(s, x.location, d);
    if (!ongoing || x.once) return ongoing ? ExchangeResult::ongoing : ExchangeResult::over;
    if (x.one_round && host.round_windows && host.defers_end) return ExchangeResult::round_ending;
    const ExchangeResult end = round_end(env, s, x, host, a, d);
    if (end == ExchangeResult::round_ended || x.one_round) return end;
  }
}

ExchangeResult end_round(const Env& env, State& s, const Exchange& x, ExchangeHost& host,
                         ExchangeScratch& scratch) {
  collect_modifier_records(env, scratch.modifier_records);
  return round_end(env, s, x, host, scratch.side[0], scratch.side[1]);
}

// ---------------------------------------------------------------- best play's round in parts

namespace {

bool same_entity(const Entity& x, const Entity& y) {
  return x.kind == y.kind && x.type == y.type && x.record == y.record && x.owner == y.owner &&
         x.location == y.location && x.attr == y.attr;
}

}  // namespace

const Entity* EntityPool::keep(const Entity& e) {
  const std::uint64_t h = entity_hash(e, 0);
  for (auto [lo, hi] = at_.equal_range(h); lo != hi; ++lo)
    if (same_entity(*lo->second, e)) return lo->second;
  const Entity* kept = &kept_.emplace_back(e);
  at_.emplace(h, kept);
  return kept;
}

bool round_parts(const Env& env, State& s, const Exchange& x, ExchangeHost& host,
                 ExchangeScratch& scratch, RoundParts& out, RoundPartsCache* cache) {
  if (x.once || !x.one_round || host.time_up() || host.can_intervene()) return false;
  // (takes made before point into the parts' pool: made again here)
  if (!cache) out.entities.clear();
  EntityPool& pool = cache ? cache->entities : out.entities;
  // the state as it was (s is changed while a side's takes are made, and given back): copied
  // only when some side's takes are made here, not found in the cache
  State start;
  bool copied = false;
  collect_modifier_records(env, scratch.modifier_records);
  // the caller's names of the sides' own entities and the rest: a roll and takes kept by name
  const bool named = cache && cache->rest_name != RoundPartsCache::kNoName &&
                     cache->own_name[0] != RoundPartsCache::kNoName &&
                     cache->own_name[1] != RoundPartsCache::kNoName;
  auto roll_name = [&](int i) {
    return std::uint64_t{cache->own_name[i]} << 32 | cache->rest_name;
  };
  bool built[2] = {false, false};  // the side's scratch built from s (build_side, side_rollers)
  auto build = [&](int i) {
    Side& side = scratch.side[i];
    const EntityId player = i == 0 ? x.a : x.d;
    build_side(env, s, x, player, side);
    side_rollers(env, s, x, player, side, scratch);
    built[i] = true;
    return !(side.directing >= 0 || side.effects || side.spending >= 0);
  };
  try {
    for (int i = 0; i < 2; ++i) {
      if (named) {
        const auto it = cache->roll_by_name.find(roll_name(i));
        if (it != cache->roll_by_name.end()) {
          out.side[i].roll = it->second;
          continue;
        }
      }
      if (!build(i)) return false;
      hit_distribution(env.die_type(x.roll->die), scratch.side[i].rollers, out.side[i].roll);
      if (named) cache->roll_by_name.emplace(roll_name(i), out.side[i].roll);
    }
    auto fires_now = [&](const Side& side) {
      for (EntityId e : side.fire)
        if (s.at(e).location == x.location) return true;
      return false;
    };
    for (int i = 0; i < 2; ++i) {
      Side& side = scratch.side[i];
      const EntityId player = i == 0 ? x.a : x.d;
      const AskOutcome* whole = i == 0 ? x.whole_a : x.whole_d;
      const std::span<const Sym> order = i == 0 ? x.order_a : x.order_d;
      const Sustain mode = i == 0 ? x.sustain_a : x.sustain_d;
      auto& takes = out.side[i].takes;
      out.side[i].kept = nullptr;
      // the side's own entities (its units, itself) and the rows: its takes, if made before
      if (named) {
        // (rows for as many hits as the other side can roll, or more)
        const auto it = cache->entry_by_name.find(cache->own_name[i]);
        if (it != cache->entry_by_name.end() &&
            cache->entries[it->second].takes.size() >= out.side[1 - i].roll.size()) {
          out.side[i].kept = &cache->entries[it->second].takes;
          continue;
        }
      }
      if (!built[i] && !build(i)) {
        if (copied) s = start;
        return false;
      }
      if (!copied) start = s, copied = true;
      takes.assign(out.side[1 - i].roll.size(), {});
      takes[0].push_back({{}, {}, fires_now(side), 0});
      // the first take of each id: (hits, option)
      std::vector<std::pair<std::size_t, std::size_t>> distinct{{0, 0}};
      // (the pool keeps equal entities once: equal takes point at the same ones)
      auto same_take = [](const RoundParts::Take& p, const RoundParts::Take& q) {
        return p.fires == q.fires && p.lost == q.lost && p.changed == q.changed;
      };
      auto take_hash = [](const RoundParts::Take& t) {
        std::uint64_t h = 0xcbf29ce484222325ull ^ (t.fires ? 1u : 0u);
        auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
        for (EntityId e : t.lost) mix(static_cast<std::uint32_t>(e));
        mix(0xFFFFFFFFull);
        for (const auto& [e, u] : t.changed)
          mix(static_cast<std::uint32_t>(e)), mix(reinterpret_cast<std::uintptr_t>(u));
        return h;
      };
      std::unordered_multimap<std::uint64_t, std::uint32_t> distinct_at;  // hash -> id
      distinct_at.emplace(take_hash(takes[0][0]), 0);
      // the outcomes of an assignment of k hits, made once for every option of the row (the
      // side's units start from `start` at each: the caller's outcomes if it keeps them)
      std::vector<std::vector<AssignmentOutcome>> outcomes;
      // the side's casualty queue from `start`, built once: each take starts from a copy
      side.queue.build(env, s, player, x.location, *x.hits, order, side.cancelling);
      const Casualties queue = side.queue;
      if (whole && whole->choose && takes.size() > 1) {
        // every number of hits's outcomes from one search, where it can (else each is searched
        // when its row is made)
        side.queue.begin_assignment();
        assignment_outcomes_upto(s, side.queue, static_cast<int>(takes.size()) - 1, mode,
                                 whole->interchangeable,
                                 whole->by_hits ? *whole->by_hits : outcomes);
      }
      for (std::size_t k = 1; k < takes.size(); ++k) {
        std::size_t n = 1;
        for (std::size_t o = 0; o < n; ++o) {
          side.queue = queue;
          side.queue_stale = false, side.directed_stale = true;
          Exchange y = x;
          AskOutcome forced;
          if (whole && whole->choose) {
            forced.interchangeable = whole->interchangeable;
            forced.by_hits = whole->by_hits ? whole->by_hits : &outcomes;
            forced.choose = [&n, o](std::size_t m) {
              n = std::max<std::size_t>(m, 1);
              return o;
            };
            (i == 0 ? y.whole_a : y.whole_d) = &forced;
          }
          side_takes(env, s, y, player, order, side, static_cast<int>(k), 0, -1, mode, host,
                     scratch);
          RoundParts::Take t;
          t.lost = scratch.lost;
          t.fires = fires_now(side);
          // nothing but those entities changed (no entity made, nothing else)
          if (s.entities.size() != start.entities.size()) {
            s = start;
            return false;
          }
          for (std::size_t e = 0; e < s.entities.size(); ++e)
            if (!same_entity(s.entities[e], start.entities[e])) {
              t.changed.emplace_back(static_cast<EntityId>(e), pool.keep(s.entities[e]));
              s.entities[e] = start.entities[e];
            }
          if (!s.same_but_entities(start)) {
            s = start;
            return false;
          }
          t.id = static_cast<std::uint32_t>(distinct.size());
          const std::uint64_t h = take_hash(t);
          for (auto [lo, hi] = distinct_at.equal_range(h); lo != hi; ++lo) {
            const auto [dk, dno] = distinct[lo->second];
            if (same_take(takes[dk][dno], t)) {
              t.id = lo->second;
              break;
            }
          }
          takes[k].push_back(std::move(t));
          if (takes[k].back().id == distinct.size()) {
            distinct_at.emplace(h, static_cast<std::uint32_t>(distinct.size()));
            distinct.emplace_back(k, takes[k].size() - 1);
          }
        }
      }
      if (named) {
        for (auto& row : takes) {  // (kept for the run)
          row.shrink_to_fit();
          for (RoundParts::Take& t : row) t.changed.shrink_to_fit();
        }
        cache->entry_by_name[cache->own_name[i]] = cache->entries.size();
        cache->entries.push_back({std::move(takes)});
        out.side[i].kept = &cache->entries.back().takes;
      }
    }
  } catch (const CombatError&) {
    if (copied) s = start;
    return false;  // the round run by exchange_fire raises it
  }
  if (copied) s = start;
  return true;
}

ExchangeResult play_round_parts(const RoundParts& parts, DiceStream& dice, State& s,
                                const Exchange& x, ExchangeHost& host, std::uint32_t* ids) {
  if (host.time_up()) return ExchangeResult::time_up;
  const RoundParts::Side& a = parts.side[0];
  const RoundParts::Side& d = parts.side[1];
  const std::uint32_t hits_a =
      dice.choose(a.roll.data(), static_cast<std::uint32_t>(a.roll.size()));
  const std::uint32_t hits_d =
      dice.choose(d.roll.data(), static_cast<std::uint32_t>(d.roll.size()));
  // a takes d's hits, then d takes a's, each a choice of its chooser's (as side_takes asks it)
  auto pick = [&](const RoundParts::Side& side, std::uint32_t hits, const AskOutcome* whole) {
    const std::size_t n = side.row(hits).size();
    std::size_t k = 0;
    if (hits > 0 && whole && whole->choose) k = whole->choose(n);
    return k < n ? k : 0;
  };
  const std::size_t option_a = pick(a, hits_d, x.whole_a);
  const std::size_t option_d = pick(d, hits_a, x.whole_d);
  return put_round_parts(parts, s, x, host, hits_a, hits_d, option_a, option_d, ids);
}

ExchangeResult put_round_parts(const RoundParts& parts, State& s, const Exchange& x,
                               ExchangeHost& host, std::uint32_t hits_a, std::uint32_t hits_d,
                               std::size_t option_a, std::size_t option_d, std::uint32_t* ids) {
  auto take = [&](const RoundParts::Side& side, std::uint32_t hits, std::size_t k) {
    const RoundParts::Take& t = side.row(hits)[k];
    for (const auto& [e, u] : t.changed) s.at(e) = *u;
    for (EntityId e : t.lost) host.destroy(e);
    return &t;
  };
  const RoundParts::Take* ta = take(parts.side[0], hits_d, option_a);
  const RoundParts::Take* td = take(parts.side[1], hits_a, option_d);
  if (ids) ids[0] = ta->id, ids[1] = td->id;
  const bool fires_a = ta->fires, fires_d = td->fires;
  if (!(fires_a && fires_d)) return ExchangeResult::over;
  host.round_begins();
  s.end_scope(x.round_scope);
  const std::int32_t next = s.counter(x.location, x.counter) + 1;
  if (x.cap < 0 || next <= x.cap) s.set_counter(x.location, x.counter, next, x.counter_scope);
  return ExchangeResult::round_done;
}

// ---------------------------------------------------------------- the exact mode

namespace {

// One assignment of `hits` by the policy, its losses destroyed as ctx:assign_hits destroys them
// when no window can run a hook. Returns the units destroyed plus those that sustained.
int assign_plain(const Env& env, State& s, EntityId player, EntityId location, int hits,
                 const CasualtySpec& spec, std::span<const Sym> order, Sustain mode, Casualties& q,
                 std::vector<EntityId>& lost, std::vector<EntityId>& sustaining) {
  q.build(env, s, player, location, spec, order);
  lost.clear(), sustaining.clear();
  const int destroyed = assign_by_policy(s, q, hits, mode, lost, &sustaining);
  for (EntityId e : lost) {
    Entity& u = s.at(e);
    if (spec.damaged >= 0) u.attr[static_cast<std::size_t>(spec.damaged)] = 0;
    u.location = kReinforcements;
  }
  return destroyed + static_cast<int>(sustaining.size());
}

// The modifier a side's roll spends a counter by in exchange_fire's rounds (side_effects'
// spending): the first live one with a round effect, not declined, that has spend; -1: none.
int spending_modifier(const Env& env, const State& s, EntityId player, Sym purpose,
                      std::span<const int> declined) {
  const auto& mods = env.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi) {
    const ModifierDef& m = mods[mi];
    if (!m.round_effect() || m.spend == kNoSym ||
        std::find(declined.begin(), declined.end(), static_cast<int>(mi)) != declined.end() ||
        !modifier_live(env, s, static_cast<int>(mi), m, player, purpose))
      continue;
    return static_cast<int>(mi);
  }
  return -1;
}

// The modifier that repairs a side's units that sustain, paid from a counter (repair =
// sustained with pay), live and not declined: -1 none, -2 more than one.
int repairing_modifier(const Env& env, const State& s, EntityId player, Sym purpose,
                       std::span<const int> declined) {
  const auto& mods = env.content->modifiers;
  int found = -1;
  for (std::size_t mi = 0; mi < mods.size(); ++mi) {
    const ModifierDef& m = mods[mi];
    if (m.repair != ModifierDef::Repair::sustained ||
        std::find(declined.begin(), declined.end(), static_cast<int>(mi)) != declined.end() ||
        !modifier_live(env, s, static_cast<int>(mi), m, player, purpose))
      continue;
    if (found >= 0) return -2;
    found = static_cast<int>(mi);
  }
  return found;
}

// A side that repairs its units that sustain (FireSide::takes): from each of its states `at` (after
// k hits, one at a time, as the chain takes them), the round that brings it `hits` hits, assigned
// at once by the policy, then the repairs of modifier `by` for as many of its units that sustained
// as it pays for (0 up to all), as exchange_fire's rounds do them (repair_sustained_units): the
// state it leaves, as one of `at` (from k on). False when one is none of them: the chain cannot
// hold that side.
bool repair_takes(const Env& env, std::span<const State> at, const Exchange& x, EntityId p,
                  std::span<const Sym> order, Sustain mode, int by, int most_hits,
                  std::vector<std::vector<std::vector<int>>>& takes) {
  const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(by)];
  const int damaged = x.hits->damaged;
  Casualties q;
  std::vector<EntityId> lost, sustaining, repaired;
  takes.assign(at.size(), {});
  for (std::size_t k = 0; k < at.size(); ++k) {
    takes[k].assign(static_cast<std::size_t>(most_hits) + 1, {});
    takes[k][0] = {static_cast<int>(k)};
    for (int h = 1; h <= most_hits; ++h) {
      State t = at[k];
      q.build(env, t, p, x.location, *x.hits, order);
      q.begin_assignment();
      lost.clear(), sustaining.clear(), repaired.clear();
      assign_by_policy(t, q, h, mode, lost, &sustaining);
      // at the windows after a unit sustains the units lost are still on the board
      for (EntityId e : lost) t.at(e).location = x.location;
      for (EntityId e : sustaining)
        if (damaged >= 0 && t.at(e).attr[static_cast<std::size_t>(damaged)] != 0 &&
            modifier_live(env, t, by, m, p, x.roll->purpose) && modifier_fits_unit(t, m, t.at(e)))
          repaired.push_back(e);
      for (std::size_t r = 0; r <= repaired.size(); ++r) {
        State u = t;
        for (std::size_t i = 0; i < r; ++i)
          u.at(repaired[i]).attr[static_cast<std::size_t>(damaged)] = 0;
        for (EntityId e : lost) {
          Entity& v = u.at(e);
          if (damaged >= 0) v.attr[static_cast<std::size_t>(damaged)] = 0;
          v.location = kReinforcements;
        }
        std::size_t j = k;
        while (j < at.size() && !(at[j] == u)) ++j;
        if (j == at.size()) return false;
        takes[k][static_cast<std::size_t>(h)].push_back(static_cast<int>(j));
      }
    }
  }
  return true;
}

}  // namespace

ExactEnds exact_ends(const Env& env, const State& s, const Exchange& x) {
  const Env plain{env.content, env.dice, nullptr, env.unit_kind};  // held: per state, unknown
  Casualties q;
  std::vector<EntityId> lost, sustaining;
  std::vector<Roller> units;
  std::vector<int> live;
  const DieType& type = env.die_type(x.roll->die);
  ExactEnds out;
  out.location = x.location;
  out.counter = x.counter, out.counter_scope = x.counter_scope, out.round_scope = x.round_scope;
  out.damaged = x.hits->damaged;
  auto fires_from = [&](const State& t, EntityId p) {
    for (const Entity& u : t.entities)
      if (fires(env, u, p, x.location, x.roll->eligible)) return true;
    return false;
  };
  // the chance of each number of hits of `units`: that of the previous call when they roll the
  // same dice the same way (a hit sustained changes no roll), else computed (hit_distribution,
  // whose sums depend only on each roller's threshold, modifier and dice, in order)
  auto distribution = [&](std::vector<Roller>& before, std::vector<std::vector<double>>& into) {
    const bool same =
        !into.empty() && before.size() == units.size() &&
        std::equal(
            units.begin(), units.end(), before.begin(), [](const Roller& u, const Roller& v) {
              return u.threshold == v.threshold && u.modifier == v.modifier && u.dice == v.dice;
            });
    if (same) {
      into.push_back(into.back());
      return;
    }
    into.emplace_back();
    hit_distribution(type, units, into.back());
    before = units;
  };
  // each side after 0, 1, 2 ... hits, one at a time: its roll (in the first round, and in later
  // ones, once the round scope has ended), whether it still fires, and what each hit changed
  // a side that spends a counter on near misses (spending_modifier at the start, with some of
  // its counter): its rolls as (hits, near misses) too, by the modifier each state spends by; all
  // must spend the same counter (else `unsupported`)
  std::vector<double> way_p;
  std::vector<std::pair<int, int>> ways;
  auto near_ways = [&](const State& t, EntityId p, std::span<const int> declined, Sym& counter,
                       std::vector<std::vector<FireSide::Way>>& out_ways) {
    out_ways.emplace_back();
    const int by = spending_modifier(plain, t, p, x.roll->purpose, declined);
    std::int64_t rolled = 0;
    for (const Roller& u : units) rolled += u.dice;
    int raise = 0;
    if (by >= 0) {
      const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(by)];
      if (m.spend != counter) out.unsupported = true;
      raise = m.raise;
    }
    near_miss_ways(type, units, by, raise,
                   by >= 0 ? static_cast<int>(std::min<std::int64_t>(rolled, kMaxDice)) : 0, way_p,
                   ways);
    for (std::size_t i = 0; i < ways.size(); ++i)
      out_ways.back().push_back({ways[i].first, ways[i].second, way_p[i]});
  };
  // the states of a side that repairs, after 0, 1, 2 ... hits, and its modifier
  std::vector<State> states_a, states_d;
  int repairing_a = -1, repairing_d = -1;
  auto side = [&](EntityId p, std::span<const Sym> order, Sustain mode, ExactEnds::Side& changes) {
    FireSide fire;
    State t = s, later = s;
    later.end_scope(x.round_scope);
    // the round scope's end changes nothing in the state: the later rounds' side is the first
    // round's, hit for hit (the same functions of the same state)
    const bool alike = later == s;
    std::vector<Roller> first_before, later_before;
    changes.upto.push_back(0);
    const std::span<const int> declined = p == x.a ? x.declined_a : x.declined_d;
    bool repairs = false;  // a side that repairs its units that sustain (FireSide::takes)
    if (x.spend_chained) {
      const int by = spending_modifier(plain, s, p, x.roll->purpose, declined);
      if (by >= 0) {
        const Sym counter = env.content->modifiers[static_cast<std::size_t>(by)].spend;
        if (s.counter(p, counter) > 0)
          changes.spend = counter, fire.spendable = s.counter(p, counter);
      }
      const int rep = repairing_modifier(plain, s, p, x.roll->purpose, declined);
      if (rep >= 0) {
        const ModifierDef& m = env.content->modifiers[static_cast<std::size_t>(rep)];
        if (m.pay == kNoSym) {
          out.unsupported = true;  // (a free repair is a round effect: one round a call)
        } else if (s.counter(p, m.pay) >= m.cost) {
          // (one counter a side: not both spending on near misses and paying for repairs)
          if (changes.spend != kNoSym) out.unsupported = true;
          changes.spend = m.pay, fire.spendable = s.counter(p, m.pay);
          fire.repair_cost = m.cost;
          repairs = true;
          (p == x.a ? repairing_a : repairing_d) = rep;
        }
      } else if (rep == -2) {
        out.unsupported = true;
      }
    }
    std::vector<State>& at = p == x.a ? states_a : states_d;
    for (;;) {
      if (repairs) at.push_back(t);
      rollers(plain, t, p, x.location, *x.roll, "ctx:exchange_fire", units, live);
      distribution(first_before, fire.first);
      if (changes.spend != kNoSym && !repairs)
        near_ways(t, p, declined, changes.spend, fire.near_first);
      fire.fires.push_back(fires_from(t, p) ? 1 : 0);
      if (alike && changes.spend == kNoSym) {
        fire.hits.push_back(fire.first.back());
      } else {
        rollers(plain, later, p, x.location, *x.roll, "ctx:exchange_fire", units, live);
        distribution(later_before, fire.hits);
        if (changes.spend != kNoSym && !repairs)
          near_ways(later, p, declined, changes.spend, fire.near);
        assign_plain(plain, later, p, x.location, 1, *x.hits, order, mode, q, lost, sustaining);
      }
      const int took =
          assign_plain(plain, t, p, x.location, 1, *x.hits, order, mode, q, lost, sustaining);
      if (took == 0) break;  // nothing left that can take a hit
      for (const auto* touched : {&sustaining, &lost})
        for (EntityId e : *touched) {
          const Entity& u = t.at(e);
          changes.changes.push_back(
              {e, u.location,
               out.damaged >= 0 ? u.attr[static_cast<std::size_t>(out.damaged)] : 0});
        }
      changes.upto.push_back(static_cast<std::uint32_t>(changes.changes.size()));
    }
    return fire;
  };
  FireSide fa = side(x.a, x.order_a, x.sustain_a, out.a);
  FireSide fd = side(x.d, x.order_d, x.sustain_d, out.d);
  // the most hits a side's roll brings the other in a round (near misses spent included)
  auto most_hits = [](const FireSide& f) {
    std::size_t most = 1;
    for (const auto* rolls : {&f.hits, &f.first})
      for (const auto& r : *rolls) most = std::max(most, r.size());
    int n = static_cast<int>(most) - 1;
    for (const auto* ways : {&f.near, &f.near_first})
      for (const auto& roll : *ways)
        for (const FireSide::Way& w : roll) n = std::max(n, w.hits + w.near);
    return n;
  };
  if (!out.unsupported && repairing_a >= 0 &&
      !repair_takes(plain, states_a, x, x.a, x.order_a, x.sustain_a, repairing_a, most_hits(fd),
                    fa.takes))
    out.unsupported = true;
  if (!out.unsupported && repairing_d >= 0 &&
      !repair_takes(plain, states_d, x, x.d, x.order_d, x.sustain_d, repairing_d, most_hits(fa),
                    fd.takes))
    out.unsupported = true;
  FireChainOptions fo;
  fo.counter = x.counter != kNoSym ? s.counter(x.location, x.counter) : 0;
  fo.cap = x.cap;
  double unresolved = 0;
  out.player_a = x.a, out.player_d = x.d;
  if (out.unsupported) return out;
  for (const FireEnd& e : fire_chain(fa, fd, fo, unresolved))
    out.ends.push_back({e.p, e.rounds, e.ka, e.kd, static_cast<std::int32_t>(e.counter), e.several,
                        e.spent_a, e.spent_d});
  if (out.ends.empty() && (fa.spendable > 0 || fd.spendable > 0)) {
    out.unsupported = true;  // the spent counters made too many states
    return out;
  }
  if (out.ends.empty())
    throw ScriptError("ctx:exchange_fire: the exact mode found no end to the rounds");
  return out;
}

void ExactEnds::apply(State& s, std::size_t k) const {
  const End& e = ends[k];
  for (const Side* side : {&a, &d}) {
    const int hits = side == &a ? e.ka : e.kd;
    const std::uint32_t n = side->upto[static_cast<std::size_t>(hits)];
    for (std::uint32_t i = 0; i < n; ++i) {
      const Change& c = side->changes[i];
      Entity& u = s.at(c.e);
      u.location = c.location;
      if (damaged >= 0) u.attr[static_cast<std::size_t>(damaged)] = c.damaged;
    }
  }
  if (e.several) s.end_scope(round_scope);
  if (counter != kNoSym) s.set_counter(location, counter, e.counter, counter_scope);
  // what each side spent, as exchange_fire's rounds take it off
  for (const auto& [side, player, spent] :
       {std::tuple{&a, player_a, e.spent_a}, std::tuple{&d, player_d, e.spent_d}})
    if (spent > 0)
      for (Counter& c : s.counters)
        if (c.target == player && c.key == side->spend) c.value -= static_cast<std::int32_t>(spent);
}

}  // namespace rb::combat
