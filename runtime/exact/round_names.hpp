// exact/round_names: the names of best play's rounds' states (docs/exact.md, "The best side's
// combat as a decision process"): a state as its two sides' own entities and the rest of it, each
// an index, so that a round's next state is found without being built (RoundNames, below).
// Implemented in exact/process.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "combat/combat.hpp"
#include "state/state.hpp"

namespace rb {

// The names of the rounds' states of one call's combats (the graph the caller builds the processes
// over), so that a round's next state is found without being built. A state is the two sides'
// own entities (each side's configuration: the player and the entities it owns, by number) and
// the rest of it (every other entity, with those blanked, and the counters, modifiers, links,
// roles, turn order and board), each an index; a side's take (combat::RoundParts::Take) changes
// its own entities alone, so the configuration after a take is a function of the one before
// (after(), made once each), and the rest after a round that goes on is a function of the rest
// before (the round's scope ended, the counter counted: next_rest). Equal names are equal states
// before their canonical order (State::canonicalise), so the caller builds a state (copy, put
// together, canonical order, hash) only for a name not seen: find() gives the state a name
// already led to. Knows nothing of Lua or of the game.
class RoundNames {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct Key {
    std::uint32_t a = 0, d = 0, rest = 0, end = 0;  // end: an end of the combat (else a round's)
    bool operator==(const Key&) const = default;
  };

  // The configuration of `player` in `s` (its index, made if new).
  std::uint32_t own(const State& s, EntityId player);
  // Whether `s`'s entities of configuration c's player are c's (the caller checks what it built).
  bool holds(std::uint32_t c, const State& s) const;
  // The rest of `s` beside the configurations of `a` and `d` (its index, made if new).
  std::uint32_t rest(const State& s, EntityId a, EntityId d);
  // Whether the rest of `s` beside a's and d's configurations is rest r (compared, not interned:
  // no copy, no hash).
  bool rest_is(std::uint32_t r, const State& s, EntityId a, EntityId d) const;
  // Configuration c after the take made for `hits` taken, option `option` (made once): its
  // changed entities as the take left them, its lost ones in reinforcements (as
  // ExchangeHost::destroy leaves them). kNone when the take changes an entity that is not c's or
  // gives one away (the caller then keeps the whole states).
  std::uint32_t after(std::uint32_t c, std::size_t hits, std::size_t option,
                      const combat::RoundParts::Take& take);
  // Configuration c in canonical order (State::canonicalise's, among its entities of `kinds`:
  // alike units exchange their locations and attributes so that those come sorted), made once.
  // It is the state's canonical order only where nothing pins those units (clean()).
  std::uint32_t canonical(std::uint32_t c, std::span<const Sym> kinds);
  // Whether nothing in rest r, configuration a or configuration d names a unit of either side
  // (an owner, a location, a counter's target, a link, a modifier, a role, the turn order, the
  // board): then the canonical order exchanges alike units of a side within its configuration
  // alone, and a state named by two canonical configurations and a canonical rest is canonical.
  // (Each flag is found once: a side's configurations hold the same entities, its own.)
  bool clean(std::uint32_t r, std::uint32_t a, std::uint32_t d) {
    // (the flags already found: asked for every move)
    if (r < rest_clean_.size() && rest_clean_[r] == 1 && configs_[a].clean == 1 &&
        configs_[d].clean == 1 && configs_[a].player == unit_sides_[0] &&
        configs_[d].player == unit_sides_[1])
      return true;
    return find_clean(r, a, d);
  }
  // The rest after a round that goes on, by the rest before (kNone: not known yet; the caller
  // sets it from the first state it builds, and checks it on the next ones).
  std::vector<std::uint32_t> next_rest;

  // The state a name led to (kNone: none yet), and filing one (a name filed again keeps its
  // first state). The names are kept in one small table per configuration of side `by` (0: a,
  // 1: d): a caller that looks up many names with one configuration of that side in a row (the
  // best side's option against each roll of the other) finds them in one table, not across a
  // big one.
  std::uint32_t find(const Key& k, int by = 0) const;
  void file(const Key& k, std::uint32_t to, int by = 0);

  // The state a round's name (a, d, rest) names: the rest with the two configurations' entities.
  void build(const Key& k, State& out) const;

  std::size_t bytes() const { return bytes_; }

  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = (std::uint64_t{k.a} << 32 | k.d) * 0x9E3779B97F4A7C15ull;
      h ^= (std::uint64_t{k.rest} << 1 | k.end) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h * 0xBF58476D1CE4E5B9ull ^ (h >> 31));
    }
  };

 private:
  using Own = std::vector<std::pair<EntityId, Entity>>;
  struct Config {
    EntityId player = kNoEntity;
    Own own;
    std::vector<std::vector<std::uint32_t>> after;  // by hits, by option (kNone: not made)
    std::uint32_t canonical = kNone;                // (canonical(): kNone: not made)
    std::vector<EntityId> names;        // the entities its units' owners and locations name, sorted
    std::int8_t clean = -1;             // names no unit of either side (-1: not known yet)
    std::vector<std::uint64_t> hashes;  // each entity's (by position), and the configuration's
    std::uint64_t hash = 0;
  };
  std::uint32_t add_config(EntityId player, Own&& own, std::vector<std::uint64_t>&& hashes,
                           std::uint64_t h);
  std::vector<std::pair<std::size_t, Entity>> after_scratch_;
  // whether a sorted list of entities names a unit of either side (units_)
  bool names_unit(const std::vector<EntityId>& named) const;
  std::vector<std::vector<EntityId>> rest_names_;  // by rest: the entities it names, sorted
  std::vector<std::int8_t> rest_clean_;            // by rest (-1: not known yet)
  // the two sides' units (their configurations' entities but the players), sorted; the sides
  // they are of (set by the first clean())
  std::vector<EntityId> units_;
  EntityId unit_sides_[2] = {kNoEntity, kNoEntity};
  std::size_t unit_counts_[2] = {0, 0};
  std::uint32_t intern(EntityId player, Own&& own);
  std::vector<Config> configs_;
  // the configurations by hash: open addressing (a power of two slots, at most half used), the
  // configurations of one hash found in the slots after it until an empty one
  struct ConfigSlot {
    std::uint64_t hash = 0;
    std::uint32_t config = kNone;  // kNone: empty
  };
  std::vector<ConfigSlot> config_at_;
  std::size_t configs_used_ = 0;
  // Calls f(config) for each configuration filed under hash h until f returns true.
  template <class F>
  void configs_with(std::uint64_t h, F&& f) const {
    if (config_at_.empty()) return;
    const std::size_t mask = config_at_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>(h ^ (h >> 32)) & mask;; i = (i + 1) & mask) {
      const ConfigSlot& slot = config_at_[i];
      if (slot.config == kNone) return;
      if (slot.hash == h && f(slot.config)) return;
    }
  }
  void file_config(std::uint64_t h, std::uint32_t config);
  bool find_clean(std::uint32_t r, std::uint32_t a, std::uint32_t d);
  std::vector<State> rests_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> rest_at_;
  // the names filed, by side `by`'s configuration: (the other side's configuration, the rest and
  // the end) -> the state, open addressing (a power of two slots, at most half of them used)
  struct Led {
    struct Slot {
      std::uint32_t other = 0, rest = 0, to = kNone;  // rest: the rest << 1 | end; to kNone: empty
    };
    std::vector<Slot> slots;
    std::uint32_t used = 0;
  };
  std::vector<Led> led_[2];
  std::size_t bytes_ = 0;
  State rest_scratch_;
};

}  // namespace rb
