// state/state: the game state as a value. Players, units, systems, planets, cards and tokens are
// all entities: a kind, a type (the record it was made from), an owner, a location and typed
// attributes, stored in flat arrays. Counters and flags hang on entities with a scope ("round",
// "combat", ...) and are cleared when the runtime ends that scope. Copy assignment reuses the
// destination's storage, so a simulation resets a run with `work = start` and no allocation.
// Entity ids are indexes and stay valid for a whole run: a destroyed unit is moved to its
// owner's reinforcements, never erased. The hex board (board/board.hpp: which entity sits at
// which hex) is part of the value; adjacency is hex neighbours on it plus links.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "base/symbols.hpp"
#include "board/board.hpp"

namespace rb {

using EntityId = std::int32_t;
inline constexpr EntityId kNoEntity = -1;
// The location of a unit that is off the board, in its owner's reinforcements.
inline constexpr EntityId kReinforcements = -2;

// The largest shipped ruleset declares 43 (units, systems, planets, tiles); every slot is copied
// with the state on each run, so keep this close to what the largest ruleset needs.
inline constexpr int kMaxAttributes = 48;

struct Entity {
  Sym kind = kNoSym;         // "player", "unit", "system", "technology", ... (ruleset kinds)
  Sym type = kNoSym;         // short name of the record it was made from ("cruiser")
  std::int32_t record = -1;  // index of that record in the loaded content, -1 for none
  EntityId owner = kNoEntity;
  EntityId location = kNoEntity;
  std::array<std::int32_t, kMaxAttributes> attr{};  // slots declared by the ruleset
};

// The canonical order of alike entities' contents (State::canonicalise): by location, then by
// attributes as bytes (any fixed total order gives one canonical state; memcmp is the cheap one).
inline bool canonical_before(EntityId la, const std::int32_t* a, EntityId lb,
                             const std::int32_t* b) {
  if (la != lb) return la < lb;
  return std::memcmp(a, b, sizeof(std::int32_t) * kMaxAttributes) < 0;
}

// An entity's hash (its fields and attributes; `seed` spreads it, a number it stands for, say):
// for tables that compare equal hashes whole.
std::uint64_t entity_hash(const Entity& u, std::uint64_t seed);

struct Counter {
  EntityId target;
  Sym key;
  Sym scope;  // cleared when this scope ends; kNoSym lasts the whole game
  std::int32_t value;
};

// A link between two entities: adjacency of systems, wormholes, ...
struct Link {
  EntityId a;
  EntityId b;
  Sym kind;
};

// A declared modifier (content/ModifierDef) switched on by an effect for a player until the
// end of a scope.
struct ActiveModifier {
  std::int32_t modifier;
  EntityId player;
  Sym scope;
};

class State {
 public:
  std::vector<Entity> entities;
  std::vector<Counter> counters;
  std::vector<Link> links;
  std::vector<ActiveModifier> modifiers;
  std::vector<std::pair<Sym, EntityId>> roles;  // "attacker" -> a player, "active_system" -> ...
  std::vector<EntityId> turn_order;             // players in turn order
  Board board;                                  // hexes and the entities placed on them

  EntityId add(const Entity& e) {
    entities.push_back(e);
    return static_cast<EntityId>(entities.size() - 1);
  }
  bool valid(EntityId e) const { return e >= 0 && e < static_cast<EntityId>(entities.size()); }
  Entity& at(EntityId e) { return entities[static_cast<std::size_t>(e)]; }
  const Entity& at(EntityId e) const { return entities[static_cast<std::size_t>(e)]; }

  EntityId role(Sym name) const {
    for (const auto& [r, e] : roles)
      if (r == name) return e;
    return kNoEntity;
  }
  void set_role(Sym name, EntityId e);

  std::int32_t counter(EntityId target, Sym key) const {
    for (const auto& c : counters)
      if (c.target == target && c.key == key) return c.value;
    return 0;
  }
  // Adds `delta` to a counter, creating it with `scope` if it does not exist.
  void add_counter(EntityId target, Sym key, std::int32_t delta, Sym scope);
  void set_counter(EntityId target, Sym key, std::int32_t value, Sym scope);

  // Ends a scope: its counters and modifiers are cleared.
  void end_scope(Sym scope);

  // Whether two entities are linked (in either direction), optionally by a kind of link.
  bool linked(EntityId a, EntityId b, Sym kind = kNoSym) const;

  // The entities adjacent to e, appended to `out` (cleared first), each once and never e: the
  // entities on the board's hexes next to e's hex when e is placed on the board (in direction
  // order; these count as links of kind "hex"), then the entities linked to e (in link order).
  // `kind` keeps only that kind of adjacency (kNoSym: all).
  void adjacent(EntityId e, Sym kind, std::vector<EntityId>& out) const;
  // Whether b is among adjacent(a, kind).
  bool is_adjacent(EntityId a, EntityId b, Sym kind = kNoSym) const;
  // What makes b adjacent to a, appended to `out` (cleared first), each kind once: "hex" when both
  // stand on neighbouring hexes, then the kind of each link between them in link order (kNoSym for
  // a link made without a kind). Empty when they are not adjacent (or a == b).
  void link_kinds(EntityId a, EntityId b, std::vector<Sym>& out) const;
  // The hex of an entity: where it is placed, else the hex of its location (a unit in a system,
  // a unit on a planet in a system), nullopt when none is on the board.
  std::optional<Hex> hex_of(EntityId e) const;

  // The player rank used to order hooks: the active player first, then in turn order.
  int turn_rank(EntityId player, EntityId active) const;

  // The exact mode's canonical form: among the entities of `kinds` that nothing refers to (no
  // entity's owner or location, counter, link, modifier, role, turn order or board cell names
  // them), those of one kind, type, record and owner are exchanged so that their locations and
  // attributes come in sorted order. Two states that differ only in which of such alike entities
  // holds which value become equal. Sound only where no value (an attribute, a counter's value)
  // holds such an entity's number: the ruleset says so (ruleset.toml `interchangeable`).
  // Returns whether it exchanged anything (false: the state was in canonical order already).
  bool canonicalise(std::span<const Sym> kinds);
  // Calls f(e) for every entity something names (an entity's owner or location, a counter's
  // target, a link's ends, a modifier's player, a role, the turn order, a board cell): what pins
  // an entity in the canonical order. An entity may come more than once.
  template <class F>
  void each_named(F&& f) const {
    for (const Entity& e : entities) f(e.owner), f(e.location);
    for (const Counter& c : counters) f(c.target);
    for (const Link& l : links) f(l.a), f(l.b);
    for (const ActiveModifier& m : modifiers) f(m.player);
    for (const auto& r : roles) f(r.second);
    for (EntityId e : turn_order) f(e);
    for (const Board::Cell& c : board.cells()) f(c.entity);
  }

  // Two states are equal when every entity, counter, link, modifier, role, the turn order and
  // the board are (in the same order: a state is compared as stored). hash() agrees with ==.
  bool operator==(const State& o) const;
  // Whether everything but the entities is equal (as == compares it).
  bool same_but_entities(const State& o) const;
  std::uint64_t hash() const;
  // Bytes held by this value (the memo of ctx:steps counts what it keeps).
  std::size_t bytes() const;
};

}  // namespace rb
