// Lua calls C++: entities, attributes, roles, counters, links, modifiers, records, scenario.
#include "base/error.hpp"
#include "base/text.hpp"
#include "script/lua_host.hpp"

namespace rb {

Sym lua_sym(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  // Short strings are interned by Lua and anchored below, so their address names them for good;
  // only such strings enter the cache, so a hit needs no look at the characters, nor at the
  // type (no live object of another type can have an anchored string's address).
  const void* p = lua_topointer(L, idx);
  auto& slot = I.sym_slots[(reinterpret_cast<std::uintptr_t>(p) >> 4) & (I.sym_slots.size() - 1)];
  if (p && slot.str == p) return slot.sym;
  if (lua_type(L, idx) != LUA_TSTRING)
    luaL_error(L, "expected a name (a string), got %s", luaL_typename(L, idx));
  size_t len = 0;
  const char* str = lua_tolstring(L, idx, &len);
  const bool short_string = len <= 40;
  idx = lua_absindex(L, idx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.symcache_ref);
  lua_pushvalue(L, idx);
  Sym s;
  if (lua_rawget(L, -2) == LUA_TNUMBER) {
    s = static_cast<Sym>(lua_tointeger(L, -1));
    lua_pop(L, 2);
  } else {
    lua_pop(L, 1);
    // a name never seen before is interned for good: a script that makes a new name on every
    // call ("hits_" .. n) would grow the symbol table without end
    if (!find_sym(std::string_view(str, len)) && ++I.new_names > kMaxNewNames) {
      lua_pushlstring(L, str, std::min<std::size_t>(len, 40));
      luaL_error(L,
                 "too many different names made by scripts (more than %d, the last '%s'): a name "
                 "built anew on every call (\"x\" .. n) is kept for good; use a fixed set of names",
                 static_cast<int>(kMaxNewNames), lua_tostring(L, -1));
    }
    // the table of names is the process's (every engine of a `serve` or a `test` shares it):
    // it is bounded in names and in bytes, and a name is short
    if (!find_sym(std::string_view(str, len))) {
      if (len > kMaxNameBytes)
        luaL_error(L, "a name of %d bytes (at most %d): names are short words, not data",
                   static_cast<int>(std::min<std::size_t>(len, INT32_MAX)),
                   static_cast<int>(kMaxNameBytes));
      if (sym_count() >= kMaxSymbols || sym_bytes() + len > kMaxSymbolBytes)
        luaL_error(L,
                   "too many different names in this process (%d, %d MiB): scripts keep making "
                   "new ones; use a fixed set of names",
                   static_cast<int>(sym_count()), static_cast<int>(sym_bytes() >> 20));
    }
    s = sym(std::string_view(str, len));
    lua_pushvalue(L, idx);  // the anchor: the string stays alive, its address stays its own
    lua_pushinteger(L, s);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
  if (short_string) slot = {p, s};
  return s;
}

EntityId check_entity(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  int ok = 0;
  const lua_Integer e = lua_tointegerx(L, idx, &ok);
  if (!ok || !I.state || e < 0 || e > INT32_MAX || !I.state->valid(static_cast<EntityId>(e))) {
    lua_Debug ar;  // the api call, for the message
    const bool named = lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name;
    luaL_error(L, "%s%s%sbad argument #%d: expected an entity id, got %s", named ? "ctx:" : "",
               named ? ar.name : "", named ? ": " : "", idx - 1,
               ok ? std::to_string(e).c_str() : luaL_typename(L, idx));
  }
  return static_cast<EntityId>(e);
}

EntityId opt_entity(lua_State* L, int idx) {
  int ok = 0;
  const lua_Integer e = lua_tointegerx(L, idx, &ok);
  const State* s = impl(L).state;
  if (ok && s && e >= 0 && e <= INT32_MAX && s->valid(static_cast<EntityId>(e)))
    return static_cast<EntityId>(e);
  return lua_isnoneornil(L, idx) ? kNoEntity : check_entity(L, idx);
}

int Engine::Impl::attr_slot(lua_State* L, int idx) {
  const Sym s = lua_sym(L, idx);
  if (s < attr_by_sym.size() && attr_by_sym[s] >= 0) return attr_by_sym[s];
  size_t len = 0;
  const char* name = luaL_checklstring(L, idx, &len);
  const AttributeDef* a = rules.attribute(std::string_view(name, len));
  if (!a) {
    std::vector<std::string> names;
    for (const auto& at : rules.attributes) names.push_back(at.name);
    luaL_error(L, "unknown attribute '%s'%s", name, did_you_mean(name, names).c_str());
  }
  if (s >= attr_by_sym.size()) attr_by_sym.resize(s + 64, -1);
  attr_by_sym[s] = a->slot;
  return a->slot;
}

namespace {

State& st(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.state) luaL_error(L, "no game state here (this call needs a run or a setup)");
  return *I.state;
}

// "ctx:count": the api call running, for its errors.
std::string call_name(lua_State* L) {
  lua_Debug ar;
  if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name)
    return std::string("ctx:") + ar.name;
  return "ctx";
}

void push_attr(lua_State* L, const AttributeDef& a, std::int32_t v) {
  switch (a.type) {
    case AttrType::integer:
      lua_pushinteger(L, v);
      break;
    case AttrType::boolean:
      lua_pushboolean(L, v != 0);
      break;
    case AttrType::symbol:
      if (v == 0)
        lua_pushnil(L);
      else
        lua_pushlstring(L, sym_name(static_cast<Sym>(v)).data(),
                        sym_name(static_cast<Sym>(v)).size());
      break;
    case AttrType::counts: {  // "carrier=2 infantry=3" -> { carrier = 2, infantry = 3 }
      lua_newtable(L);
      if (v == 0) break;
      const std::string_view text = sym_name(static_cast<Sym>(v));
      std::size_t at = 0;
      while (at < text.size()) {
        std::size_t end = text.find(' ', at);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view item = text.substr(at, end - at);
        const std::size_t eq = item.find('=');
        lua_pushlstring(L, item.data(), eq);
        lua_pushinteger(L, std::stoll(std::string(item.substr(eq + 1))));
        lua_rawset(L, -3);
        at = end + 1;
      }
      break;
    }
  }
}

// An int32 value from Lua: counters and integer attributes.
std::int32_t check_int32(lua_State* L, int idx, const char* what) {
  const lua_Integer v = luaL_checkinteger(L, idx);
  if (v < INT32_MIN || v > INT32_MAX)
    luaL_error(L, "%s %I is out of range (a 32-bit integer)", what, v);
  return static_cast<std::int32_t>(v);
}

std::int32_t to_attr(lua_State* L, const AttributeDef& a, int idx) {
  switch (a.type) {
    case AttrType::integer:
      return check_int32(L, idx, ("attribute '" + a.name + "':").c_str());
    case AttrType::boolean:
      return lua_toboolean(L, idx) ? 1 : 0;
    case AttrType::symbol:
      return lua_isnil(L, idx) ? 0 : static_cast<std::int32_t>(lua_sym(L, idx));
    case AttrType::counts:
      luaL_error(L, "attribute '%s' (counts) is content's: scripts read it, not set it",
                 a.name.c_str());
  }
  return 0;
}

// ctx:create{kind=, type=, owner=, location=, name=} -> entity
int l_create(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  Entity e;
  lua_getfield(L, 2, "kind");
  const std::string kind = luaL_optstring(L, -1, "unit");
  if (!I.rules.has_kind(kind)) {
    luaL_error(L, "unknown entity kind '%s'%s", kind.c_str(),
               did_you_mean(kind, I.rules.kinds).c_str());
  }
  e.kind = sym(kind);
  lua_getfield(L, 2, "type");
  if (!lua_isnil(L, -1)) {
    const char* type = luaL_checkstring(L, -1);
    const int r = I.content->find_record(type, kind);
    if (r < 0) {
      std::vector<std::string> names;
      for (const auto& rec : I.content->records)
        if (!rec.removed && sym_name(rec.kind) == kind) names.emplace_back(sym_name(rec.name));
      luaL_error(L, "unknown %s '%s'%s", kind.c_str(), type, did_you_mean(type, names).c_str());
    }
    const Record& rec = I.content->records[static_cast<std::size_t>(r)];
    e.record = r;
    e.type = rec.name;
    e.attr = rec.attr;
  }
  lua_getfield(L, 2, "name");
  if (!lua_isnil(L, -1)) e.type = lua_sym(L, -1);
  lua_getfield(L, 2, "owner");
  e.owner = opt_entity(L, -1);
  lua_getfield(L, 2, "location");
  e.location = opt_entity(L, -1);
  lua_pop(L, 5);
  if (s.entities.size() >= kMaxEntities)
    return luaL_error(L, "ctx:create: more than %d entities in one game state",
                      static_cast<int>(kMaxEntities));
  const EntityId id = s.add(e);
  I.liveness_dirty = true;
  if (e.kind == I.s_player) {
    s.at(id).owner = id;
    s.turn_order.push_back(id);
  }
  lua_pushinteger(L, id);
  return 1;
}

int l_kind(lua_State* L) {
  const auto n = sym_name(st(L).at(check_entity(L, 2)).kind);
  lua_pushlstring(L, n.data(), n.size());
  return 1;
}
int l_type(lua_State* L) {
  const auto n = sym_name(st(L).at(check_entity(L, 2)).type);
  lua_pushlstring(L, n.data(), n.size());
  return 1;
}
int l_record_id(lua_State* L) {
  Engine::Impl& I = impl(L);
  const Entity& e = st(L).at(check_entity(L, 2));
  if (e.record < 0)
    lua_pushnil(L);
  else
    lua_pushstring(L, I.content->records[static_cast<std::size_t>(e.record)].id.c_str());
  return 1;
}
int l_owner(lua_State* L) {
  const EntityId o = st(L).at(check_entity(L, 2)).owner;
  if (o == kNoEntity)
    lua_pushnil(L);
  else
    lua_pushinteger(L, o);
  return 1;
}
int l_location(lua_State* L) {
  const EntityId o = st(L).at(check_entity(L, 2)).location;
  if (o == kNoEntity)
    lua_pushnil(L);
  else if (o == kReinforcements)
    lua_pushliteral(L, "reinforcements");
  else
    lua_pushinteger(L, o);
  return 1;
}
// ctx:move(e, location) ; location may be nil or "reinforcements"
int l_move(lua_State* L) {
  State& s = st(L);
  const EntityId e = check_entity(L, 2);
  EntityId to = kNoEntity;
  if (lua_type(L, 3) == LUA_TSTRING && std::string_view(lua_tostring(L, 3)) == "reinforcements")
    to = kReinforcements;
  else
    to = opt_entity(L, 3);
  // liveness is a function of the state: what joins the board, or a hook's source leaving it
  if ((s.at(e).location == kReinforcements) != (to == kReinforcements) &&
      (to != kReinforcements || impl(L).bus.is_source(s.at(e).record)))
    impl(L).liveness_dirty = true;
  s.at(e).location = to;
  return 0;
}
int l_set_owner(lua_State* L) {
  State& s = st(L);
  s.at(check_entity(L, 2)).owner = opt_entity(L, 3);
  impl(L).liveness_dirty = true;
  return 0;
}
int l_get(lua_State* L) {
  Engine::Impl& I = impl(L);
  const Entity& e = st(L).at(check_entity(L, 2));
  const int slot = I.attr_slot(L, 3);
  push_attr(L, I.rules.attributes[static_cast<std::size_t>(slot)],
            e.attr[static_cast<std::size_t>(slot)]);
  return 1;
}
int l_set(lua_State* L) {
  Engine::Impl& I = impl(L);
  Entity& e = st(L).at(check_entity(L, 2));
  const int slot = I.attr_slot(L, 3);
  e.attr[static_cast<std::size_t>(slot)] =
      to_attr(L, I.rules.attributes[static_cast<std::size_t>(slot)], 4);
  return 0;
}
// The entity takes the attributes a record of its kind sets; keep_name: it keeps its type name.
int take_record(lua_State* L, bool keep_name) {
  Engine::Impl& I = impl(L);
  Entity& e = st(L).at(check_entity(L, 2));
  const char* type = luaL_checkstring(L, 3);
  const int r = I.content->find_record(type, sym_name(e.kind));
  if (r < 0) return luaL_error(L, "unknown %s '%s'", std::string(sym_name(e.kind)).c_str(), type);
  const Record& rec = I.content->records[static_cast<std::size_t>(r)];
  for (std::size_t i = 0; i < static_cast<std::size_t>(kMaxAttributes); ++i)
    if (rec.has[i]) e.attr[i] = rec.attr[i];
  e.record = r;
  if (!keep_name) e.type = rec.name;
  I.liveness_dirty = true;
  return 0;
}
// ctx:set_type(e, record): the entity becomes another record of its kind, keeping owner,
// location and the attributes that record does not set (e.g. "damaged").
int l_set_type(lua_State* L) {
  return take_record(L, false);
}
// ctx:upgrade(e, record): the entity takes the attributes of another record of its kind (a unit
// upgrade technology) but keeps its type name, so "cruiser" still names a Cruiser II.
int l_upgrade(lua_State* L) {
  return take_record(L, true);
}

// Filter used by units/count: owner (nil: any), location (nil: anywhere on the board,
// "reinforcements": off it), optional attribute that must be set, optional kind (default unit).
struct Filter {
  EntityId owner = kNoEntity;
  EntityId location = kNoEntity;
  bool any_location = true;
  int attr = -1;     // must be set...
  int also[3] = {};  // ...or one of these (ctx:count(p, sys, "fighter", "ground_force"))
  int n_also = 0;
  Sym kind = kNoSym;
  Sym type = kNoSym;
  bool matches(const Entity& e) const {
    if (kind != kNoSym && e.kind != kind) return false;
    if (owner != kNoEntity && e.owner != owner) return false;
    if (any_location ? e.location == kReinforcements : e.location != location) return false;
    if (attr >= 0 && e.attr[static_cast<std::size_t>(attr)] == 0) {
      bool any = false;
      for (int i = 0; i < n_also && !any; ++i) any = e.attr[static_cast<std::size_t>(also[i])] != 0;
      if (!any) return false;
    }
    if (type != kNoSym && e.type != type) return false;
    return true;
  }
};

// The unit type named by a "type:x" filter (whose symbol is `filter`): a unit record, or the type
// of a unit in the state; else an error with the nearest unit type.
Sym check_unit_type(lua_State* L, std::string_view name, Sym filter) {
  Engine::Impl& I = impl(L);
  std::vector<std::string> names;
  for (const Record& rec : I.content->records)
    if (!rec.removed && rec.kind == I.s_unit) {
      if (sym_name(rec.name) == name) {
        if (filter >= I.type_by_sym.size()) I.type_by_sym.resize(filter + 64, kNoSym);
        return I.type_by_sym[filter] = rec.name;
      }
      names.emplace_back(sym_name(rec.name));
    }
  if (const auto t = find_sym(name); t && I.state)
    for (const Entity& e : I.state->entities)
      if (e.kind == I.s_unit && e.type == *t) return *t;
  {
    const std::string n(name);
    push_error(L, call_name(L) + ": unknown unit type '" + n + "' in filter \"type:" + n + "\"" +
                      did_you_mean(n, names));
    std::vector<std::string>().swap(names);  // nothing left to free when lua_error unwinds
  }
  lua_error(L);
  return kNoSym;
}

Filter read_filter(lua_State* L, int first) {
  Engine::Impl& I = impl(L);
  Filter f;
  f.kind = I.s_unit;
  f.owner = opt_entity(L, first);
  int is_id = 0;
  const lua_Integer at = lua_tointegerx(L, first + 1, &is_id);
  const int where = is_id ? LUA_TNUMBER : lua_type(L, first + 1);
  if (is_id && I.state && I.state->valid(static_cast<EntityId>(at)))
    f.any_location = false, f.location = static_cast<EntityId>(at);
  else if (where == LUA_TNUMBER)
    f.any_location = false, f.location = check_entity(L, first + 1);
  else if (where == LUA_TSTRING && std::string_view(lua_tostring(L, first + 1)) == "reinforcements")
    f.any_location = false, f.location = kReinforcements;
  else if (where > LUA_TNIL)
    f.any_location = false, f.location = check_entity(L, first + 1);
  if (!lua_isnoneornil(L, first + 2)) {
    // an attribute name, or "type:cruiser"; both cached by symbol after the first time
    const Sym s = lua_sym(L, first + 2);
    if (s < I.attr_by_sym.size() && I.attr_by_sym[s] >= 0) {
      f.attr = I.attr_by_sym[s];
    } else if (s < I.type_by_sym.size() && I.type_by_sym[s] != kNoSym) {
      f.type = I.type_by_sym[s];
    } else if (std::string_view name = sym_name(s); name.rfind("type:", 0) == 0) {
      f.type = check_unit_type(L, name.substr(5), s);
    } else {
      f.attr = I.attr_slot(L, first + 2);
    }
    // more attribute names: a unit with any of them counts
    for (int i = first + 3; !lua_isnoneornil(L, i); ++i) {
      if (f.attr < 0) luaL_error(L, "a \"type:\" filter takes no other filter");
      if (f.n_also == 3) luaL_error(L, "at most 4 attributes in one filter");
      f.also[f.n_also++] = I.attr_slot(L, i);
    }
  }
  return f;
}

// ctx:units(owner, location, attr) -> array of entity ids
int l_units(lua_State* L) {
  const State& s = st(L);
  const Filter f = read_filter(L, 2);
  int n = 0;  // counted first: the table is made at its size (no rehash as it grows)
  for (const Entity& e : s.entities) n += f.matches(e) ? 1 : 0;
  lua_createtable(L, n, 0);
  n = 0;
  for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e)
    if (f.matches(s.entities[static_cast<std::size_t>(e)]))
      lua_pushinteger(L, e), lua_rawseti(L, -2, ++n);
  return 1;
}
// ctx:count(owner, location, attr) -> number of units
int l_count(lua_State* L) {
  const State& s = st(L);
  const Filter f = read_filter(L, 2);
  int n = 0;
  for (const Entity& e : s.entities) n += f.matches(e) ? 1 : 0;
  lua_pushinteger(L, n);
  return 1;
}
// ctx:sum(owner, location, attr, filter) -> the sum of an integer attribute over the units that
// count(owner, location, filter) counts (capacity of a fleet, dice of a side)
int l_sum(lua_State* L) {
  Engine::Impl& I = impl(L);
  const State& s = st(L);
  const int slot = I.attr_slot(L, 4);
  lua_remove(L, 4);  // the filter takes the attribute's place for read_filter
  const Filter f = read_filter(L, 2);
  long long total = 0;
  for (const Entity& e : s.entities)
    if (f.matches(e)) total += e.attr[static_cast<std::size_t>(slot)];
  lua_pushinteger(L, total);
  return 1;
}

// ctx:entities{kind=, owner=, location=, type=} -> array (any kind, general query)
int l_entities(lua_State* L) {
  const State& s = st(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  Filter f;
  lua_getfield(L, 2, "kind");
  if (!lua_isnil(L, -1)) f.kind = lua_sym(L, -1);
  lua_getfield(L, 2, "owner");
  f.owner = opt_entity(L, -1);
  lua_getfield(L, 2, "type");
  if (!lua_isnil(L, -1)) f.type = lua_sym(L, -1);
  lua_getfield(L, 2, "location");
  if (!lua_isnil(L, -1)) f.any_location = false, f.location = check_entity(L, -1);
  lua_pop(L, 4);
  lua_newtable(L);
  int n = 0;
  for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e)
    if (f.matches(s.entities[static_cast<std::size_t>(e)]))
      lua_pushinteger(L, e), lua_rawseti(L, -2, ++n);
  return 1;
}

// ctx:role(name, ...) -> the entity of each role named (nil if none)
int l_role(lua_State* L) {
  const State& s = st(L);
  const int n = lua_gettop(L);
  if (n < 2) return luaL_error(L, "role needs a name");
  luaL_checkstack(L, n, "too many roles");
  for (int i = 2; i <= n; ++i) {
    const Sym name = lua_sym(L, i);
    const EntityId e = s.role(name);
    if (e == kNoEntity) {
      // nil is an answer only for a role the game knows (set now or before, or a report's side)
      Engine::Impl& I = impl(L);
      bool known = false;
      for (const auto& [r, v] : s.roles) known |= r == name;
      const std::string_view text = sym_name(name);
      for (const std::string& r : I.role_names) known |= r == text;
      if (!known) {
        {
          std::vector<std::string> names = I.role_names;
          for (const auto& [r, v] : s.roles) names.emplace_back(sym_name(r));
          const std::string t(text);
          push_error(L, "ctx:role: unknown role '" + t + "'" + did_you_mean(t, names));
        }
        return lua_error(L);
      }
      lua_pushnil(L);
    } else {
      lua_pushinteger(L, e);
    }
  }
  return n - 1;
}
int l_set_role(lua_State* L) {
  Engine::Impl& I = impl(L);
  const Sym name = lua_sym(L, 2);
  const std::string_view text = sym_name(name);
  if (std::find(I.role_names.begin(), I.role_names.end(), text) == I.role_names.end()) {
    if (I.role_names.size() >= 1000) return luaL_error(L, "ctx:set_role: more than 1000 roles");
    I.role_names.emplace_back(text);
  }
  st(L).set_role(name, opt_entity(L, 3));
  return 0;
}
int l_players(lua_State* L) {
  const State& s = st(L);
  lua_createtable(L, static_cast<int>(s.turn_order.size()), 0);
  for (std::size_t i = 0; i < s.turn_order.size(); ++i)
    lua_pushinteger(L, s.turn_order[i]), lua_rawseti(L, -2, static_cast<int>(i + 1));
  return 1;
}

Sym opt_scope(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return kNoSym;
  Engine::Impl& I = impl(L);
  const Sym scope = lua_sym(L, idx);
  if (std::find(I.scope_syms.begin(), I.scope_syms.end(), scope) == I.scope_syms.end()) {
    const char* s = lua_tostring(L, idx);
    luaL_error(L, "'%s' is not a scope of the ruleset%s", s,
               did_you_mean(s, I.rules.scopes).c_str());
  }
  return scope;
}
int l_counter(lua_State* L) {
  lua_pushinteger(L, st(L).counter(check_entity(L, 2), lua_sym(L, 3)));
  return 1;
}
int l_add_counter(lua_State* L) {
  st(L).add_counter(check_entity(L, 2), lua_sym(L, 3),
                    lua_isnoneornil(L, 4) ? 1 : check_int32(L, 4, "ctx:add_counter: delta"),
                    opt_scope(L, 5));
  return 0;
}
int l_set_counter(lua_State* L) {
  st(L).set_counter(check_entity(L, 2), lua_sym(L, 3), check_int32(L, 4, "ctx:set_counter: value"),
                    opt_scope(L, 5));
  return 0;
}
int l_flag(lua_State* L) {
  lua_pushboolean(L, st(L).counter(check_entity(L, 2), lua_sym(L, 3)) != 0);
  return 1;
}
int l_set_flag(lua_State* L) {
  st(L).set_counter(check_entity(L, 2), lua_sym(L, 3), 1, opt_scope(L, 4));
  return 0;
}
// ctx:end_scope(scope, ...): the counters, flags and modifiers of each scope named end
int l_end_scope(lua_State* L) {
  const int n = lua_gettop(L);
  if (n < 2) return luaL_error(L, "end_scope needs a scope");
  for (int i = 2; i <= n; ++i) {
    const Sym scope = opt_scope(L, i);
    if (scope == kNoSym) return luaL_error(L, "end_scope needs a scope");
    st(L).end_scope(scope);
  }
  return 0;
}

int l_link(lua_State* L) {
  State& s = st(L);
  const EntityId a = check_entity(L, 2), b = check_entity(L, 3);
  if (s.links.size() >= kMaxLinks)
    return luaL_error(L, "ctx:link: more than %d links in one game state",
                      static_cast<int>(kMaxLinks));
  s.links.push_back({a, b, lua_isnoneornil(L, 4) ? kNoSym : lua_sym(L, 4)});
  return 0;
}
int l_linked(lua_State* L) {
  lua_pushboolean(L, st(L).linked(check_entity(L, 2), check_entity(L, 3),
                                  lua_isnoneornil(L, 4) ? kNoSym : lua_sym(L, 4)));
  return 1;
}
// ctx:adjacent(e, kind) -> the entities adjacent to e, each once: its hex neighbours on the board
// (kind "hex"), then the entities linked to it, in link order (State::adjacent)
int l_adjacent(lua_State* L) {
  Engine::Impl& I = impl(L);
  const State& s = st(L);
  s.adjacent(check_entity(L, 2), lua_isnoneornil(L, 3) ? kNoSym : lua_sym(L, 3),
             I.scratch_adjacent);
  lua_createtable(L, static_cast<int>(I.scratch_adjacent.size()), 0);
  int n = 0;
  for (const EntityId x : I.scratch_adjacent) lua_pushinteger(L, x), lua_rawseti(L, -2, ++n);
  return 1;
}
// ctx:link_kinds(a, b) -> what makes b adjacent to a, each kind once: "hex" (neighbouring hexes),
// then the kind of each link between them in link order ("" for a link made without a kind)
int l_link_kinds(lua_State* L) {
  std::vector<Sym> kinds;
  st(L).link_kinds(check_entity(L, 2), check_entity(L, 3), kinds);
  lua_createtable(L, static_cast<int>(kinds.size()), 0);
  int n = 0;
  for (const Sym k : kinds) {
    const std::string_view name = k == kNoSym ? std::string_view() : sym_name(k);
    lua_pushlstring(L, name.data(), name.size());
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}
// ctx:is_adjacent(a, b, kind) -> whether b is among ctx:adjacent(a, kind)
int l_is_adjacent(lua_State* L) {
  lua_pushboolean(L, st(L).is_adjacent(check_entity(L, 2), check_entity(L, 3),
                                       lua_isnoneornil(L, 4) ? kNoSym : lua_sym(L, 4)));
  return 1;
}

// ctx:activate(modifier_id, player, scope): switches a declared modifier on for a player.
int l_activate(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  const char* id = luaL_checkstring(L, 2);
  const std::string_view want(id);
  int found = -1;
  for (std::size_t i = 0; i < I.content->modifiers.size(); ++i) {
    const std::string& m = I.content->modifiers[i].id;
    if (m == want ||
        (m.size() > want.size() && m.compare(m.size() - want.size(), want.size(), want) == 0 &&
         m[m.size() - want.size() - 1] == ':'))
      found = static_cast<int>(i);
  }
  if (found < 0) return luaL_error(L, "unknown modifier '%s'", id);
  s.modifiers.push_back({found, check_entity(L, 3), opt_scope(L, 4)});
  return 0;
}

// ctx:record(ref) -> {id=, kind=, name=, <attributes>..., text fields}
int l_record(lua_State* L) {
  Engine::Impl& I = impl(L);
  const char* ref = luaL_checkstring(L, 2);
  const char* kind = luaL_optstring(L, 3, "");
  const int r = I.content->find_record(ref, kind);
  if (r < 0) {
    // setup looked for it: ctx:reject may name the pack that has it
    if (I.in_setup && I.setup_misses.size() < 64) I.setup_misses.emplace_back(ref, kind);
    lua_pushnil(L);
    return 1;
  }
  // built once per engine (content does not change while it runs), then handed out read-only
  if (I.record_cache_ref == LUA_NOREF) {
    lua_newtable(L);
    I.record_cache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.record_cache_ref);
  if (lua_rawgeti(L, -1, r + 1) == LUA_TTABLE) {
    lua_remove(L, -2);
    push_read_only(I, -1, "a record (ctx:record)");
    return 1;
  }
  lua_pop(L, 1);
  const Record& rec = I.content->records[static_cast<std::size_t>(r)];
  lua_newtable(L);
  lua_pushstring(L, rec.id.c_str());
  lua_setfield(L, -2, "id");
  lua_pushstring(L, std::string(sym_name(rec.kind)).c_str());
  lua_setfield(L, -2, "kind");
  lua_pushstring(L, std::string(sym_name(rec.name)).c_str());
  lua_setfield(L, -2, "type");
  lua_pushstring(L, rec.changed_by.c_str());
  lua_setfield(L, -2, "changed_by");
  for (const auto& a : I.rules.attributes)
    if (rec.has[static_cast<std::size_t>(a.slot)]) {
      push_attr(L, a, rec.attr[static_cast<std::size_t>(a.slot)]);
      lua_setfield(L, -2, a.name.c_str());
    }
  for (const auto& [k, v] : rec.text) lua_pushstring(L, v.c_str()), lua_setfield(L, -2, k.c_str());
  lua_pushvalue(L, -1);
  lua_rawseti(L, -3, r + 1);
  lua_remove(L, -2);
  push_read_only(I, -1, "a record (ctx:record)");
  return 1;
}
// ctx:records(kind) -> array of short names of the loaded records of that kind
int l_records(lua_State* L) {
  Engine::Impl& I = impl(L);
  const Sym kind = lua_sym(L, 2);
  lua_newtable(L);
  int n = 0;
  for (const Record& rec : I.content->records)
    if (!rec.removed && rec.kind == kind) {
      lua_pushstring(L, std::string(sym_name(rec.name)).c_str());
      lua_rawseti(L, -2, ++n);
    }
  return 1;
}

// For a rejected scenario value that names a record setup looked for and did not find ('nomad'):
// the installed pack that has it, which the scenario does not load ("" when none).
std::string installed_elsewhere(const Engine::Impl& I, const std::string& msg) {
  for (const auto& [name, kind] : I.setup_misses) {
    if (msg.find("'" + name + "'") == std::string::npos) continue;
    const std::string pack = pack_declaring(*I.content, name, kind);
    if (!pack.empty())
      return "; '" + name + "' is in the pack '" + pack +
             "', which this scenario does not load (add packs = [\"" + pack + "\"])";
  }
  return "";
}

// ctx:reject(path, message): a scenario value is wrong. Raises a content error with the line of
// that key in the scenario file ("attacker.units.cruizer").
int l_reject(lua_State* L) {
  Engine::Impl& I = impl(L);
  const std::string path = luaL_checkstring(L, 2);
  const std::string msg = luaL_checkstring(L, 3);
  int line = 0;
  for (const auto& [p, l] : I.scenario_lines)
    if (p == path) line = l;
  for (std::string q = path; line == 0 && q.find('.') != std::string::npos;) {
    q = q.substr(0, q.rfind('.'));
    for (const auto& [p, l] : I.scenario_lines)
      if (p == q) line = l;
  }
  if (line == 0 && !I.scenario_source.empty()) {
    // the table was copied (a compare arm): find the key in the file itself
    try {
      const toml::table file = toml::parse_file(I.scenario_source.string());
      const toml::node* n = &file;
      for (std::string q = path; n && !q.empty();) {
        const std::string key = q.substr(0, q.find('.'));
        q = q.find('.') == std::string::npos ? "" : q.substr(q.find('.') + 1);
        const toml::node* next = n->is_table() ? n->as_table()->get(key) : nullptr;
        if (!next) break;
        n = next;
        line = static_cast<int>(n->source().begin.line);
      }
    } catch (const std::exception&) {
    }
  }
  const ContentError e(I.scenario_file, line, msg + installed_elsewhere(I, msg));
  push_attributed(L, 'C', e.what());
  return lua_error(L);
}

// ctx:set_policy(player, table) / ctx:policy(player) -> the player's policy settings
int l_set_policy(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId p = check_entity(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.player_policy_ref);
  lua_pushvalue(L, 3);
  lua_rawseti(L, -2, p);
  I.reads_no_state.clear();  // what a policy reads may change with the settings
  return 0;
}
int l_policy(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId p = check_entity(L, 2);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.player_policy_ref);
  if (lua_rawgeti(L, -1, p) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  push_hook_view(I, -1, "ctx:policy()");
  return 1;
}
int l_scenario(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (I.scenario_ref == LUA_NOREF)
    lua_pushnil(L);
  else
    lua_rawgeti(L, LUA_REGISTRYINDEX, I.scenario_ref);
  push_hook_view(I, -1, "ctx:scenario()");
  return 1;
}
int l_name(lua_State* L) {
  const auto n = sym_name(st(L).at(check_entity(L, 2)).type);
  lua_pushlstring(L, n.data(), n.size());
  return 1;
}

}  // namespace

void register_state_api(lua_State* L) {
  static const luaL_Reg api[] = {{"create", guarded<l_create>},
                                 {"kind", guarded<l_kind>},
                                 {"type", guarded<l_type>},
                                 {"record_id", guarded<l_record_id>},
                                 {"owner", guarded<l_owner>},
                                 {"location", guarded<l_location>},
                                 {"move", guarded<l_move>},
                                 {"set_owner", guarded<l_set_owner>},
                                 {"get", guarded<l_get>},
                                 {"set", guarded<l_set>},
                                 {"set_type", guarded<l_set_type>},
                                 {"upgrade", guarded<l_upgrade>},
                                 {"units", guarded<l_units>},
                                 {"count", guarded<l_count>},
                                 {"sum", guarded<l_sum>},
                                 {"entities", guarded<l_entities>},
                                 {"role", guarded<l_role>},
                                 {"set_role", guarded<l_set_role>},
                                 {"players", guarded<l_players>},
                                 {"counter", guarded<l_counter>},
                                 {"add_counter", guarded<l_add_counter>},
                                 {"set_counter", guarded<l_set_counter>},
                                 {"flag", guarded<l_flag>},
                                 {"set_flag", guarded<l_set_flag>},
                                 {"end_scope", guarded<l_end_scope>},
                                 {"link", guarded<l_link>},
                                 {"linked", guarded<l_linked>},
                                 {"adjacent", guarded<l_adjacent>},
                                 {"link_kinds", guarded<l_link_kinds>},
                                 {"is_adjacent", guarded<l_is_adjacent>},
                                 {"activate", guarded<l_activate>},
                                 {"record", guarded<l_record>},
                                 {"records", guarded<l_records>},
                                 {"reject", l_reject},
                                 {"set_policy", guarded<l_set_policy>},
                                 {"policy", guarded<l_policy>},
                                 {"scenario", guarded<l_scenario>},
                                 {"name", guarded<l_name>},
                                 {nullptr, nullptr}};
  luaL_setfuncs(L, api, 0);
}

}  // namespace rb
