// script/sandbox: the environments content runs in, and what content can see of the runtime.
//  - One environment per pack and one for the ruleset: base functions, copies of string, table,
//    math and utf8, print, require, hook. The runtime's own data about an environment (its
//    folder, its loaded modules, its parent) lives in C++ (Impl::sandboxes), never in a global.
//  - What packs share is seen through read-only views: a ruleset module a pack requires, ctx,
//    the string and pool metatables. A view is an empty table (or userdata) whose metatable is
//    hidden behind __metatable, so neither a write nor rawset nor setmetatable reaches the real
//    table; each pack has its own views, so a rawset on a view changes only that pack's copy.
//  - Globals are frozen once loading ends: a write raises an error naming the variable.
//  - Error attribution cannot be forged: an error the runtime has already attributed travels
//    as an object only the runtime can make, valid for the one raise that made it.
//  - The state guard of `check` and `test`: a snapshot of every table and closure a script
//    could keep something in between runs, compared before and after a run.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "script/lua_host.hpp"

namespace rb {

namespace {

// Marks the metatables of the runtime's read-only tables (views, frozen environments): rawset
// refuses a table whose metatable holds this key. Content cannot make this light userdata.
const char kReadOnlyMark = 0;
void* read_only_mark() {
  return const_cast<char*>(&kReadOnlyMark);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw ContentError(p.string(), 0, "cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shown_path(const fs::path& p) {
  std::error_code ec;
  auto rel = fs::relative(p, fs::current_path(), ec);
  if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) return rel.string();
  return p.string();
}

std::string key_text(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING:
      return lua_tostring(L, idx);
    case LUA_TNUMBER:
      return lua_isinteger(L, idx) ? std::to_string(lua_tointeger(L, idx))
                                   : std::to_string(lua_tonumber(L, idx));
    default:
      return std::string("(") + luaL_typename(L, idx) + ")";
  }
}

// ---------------------------------------------------------------- read-only views

void push_view(Engine::Impl& I, int viewer, int idx, const char* what);

// The view's metatable: [1] the real table, [2] what it is (for messages), [3] the viewer.
void view_parts(lua_State* L, int view) {
  lua_getmetatable(L, view);  // the C API sees past __metatable
  lua_rawgeti(L, -1, 1);
  lua_rawgeti(L, -2, 2);
  lua_rawgeti(L, -3, 3);
  lua_remove(L, -4);  // -3 target, -2 what, -1 viewer
}

int view_index(lua_State* L) {
  view_parts(L, 1);
  lua_pushvalue(L, 2);
  lua_gettable(L, -4);
  if (lua_istable(L, -1))
    push_view(impl(L), static_cast<int>(lua_tointeger(L, -2)), -1, lua_tostring(L, -3));
  return 1;
}

int view_newindex(lua_State* L) {
  view_parts(L, 1);
  return luaL_error(L,
                    "%s is read-only: a pack cannot change what it shares with other packs and "
                    "its ruleset (cannot set '%s')",
                    lua_tostring(L, -2), key_text(L, 2).c_str());
}

// The real table's keys in the fixed order (fixed_order.cpp), its values through the view.
int view_pairs(lua_State* L) {
  view_parts(L, 1);
  lua_pop(L, 2);
  push_fixed_order_iterator(L, -1, 1, false);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int view_len(lua_State* L) {
  view_parts(L, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, -3)));
  return 1;
}

// Replaces the table at idx with the read-only view that sandbox `viewer` has of it (anything
// else stays as it is). `what` names the table in errors ("module 'lib'").
void push_view(Engine::Impl& I, int viewer, int idx, const char* what) {
  lua_State* L = I.L;
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.sandboxes[static_cast<std::size_t>(viewer)].views);
  lua_pushvalue(L, idx);
  if (lua_rawget(L, -2) == LUA_TTABLE) {
    lua_remove(L, -2);
    lua_replace(L, idx);
    return;
  }
  lua_pop(L, 1);
  lua_createtable(L, 0, 0);  // the view
  lua_createtable(L, 3, 6);  // its metatable
  lua_pushvalue(L, idx);
  lua_rawseti(L, -2, 1);
  lua_pushstring(L, what);
  lua_rawseti(L, -2, 2);
  lua_pushinteger(L, viewer);
  lua_rawseti(L, -2, 3);
  static const luaL_Reg meta[] = {{"__index", view_index},
                                  {"__newindex", view_newindex},
                                  {"__pairs", view_pairs},
                                  {"__len", view_len},
                                  {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_pushfstring(L, "%s is read-only", what);
  lua_setfield(L, -2, "__metatable");
  lua_pushlightuserdata(L, read_only_mark());
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_setmetatable(L, -2);
  lua_pushvalue(L, idx);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);  // views[table] = view
  lua_remove(L, -2);
  lua_replace(L, idx);
}

}  // namespace

bool is_read_only(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_pushlightuserdata(L, read_only_mark());
  const bool marked = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return marked;
}

void push_hook_view(Engine::Impl& I, int idx, const char* what) {
  if (I.hook_viewer >= 0 && static_cast<std::size_t>(I.hook_viewer) < I.sandboxes.size())
    push_view(I, I.hook_viewer, idx, what);
}

void push_read_only(Engine::Impl& I, int idx, const char* what) {
  const int viewer = I.hook_viewer >= 0 ? I.hook_viewer : static_cast<int>(I.sandboxes.size()) - 1;
  if (viewer >= 0 && static_cast<std::size_t>(viewer) < I.sandboxes.size())
    push_view(I, viewer, idx, what);
}

namespace {

// ---------------------------------------------------------------- require

// Loads module `name` (file `rel`.lua) for sandbox `viewer`, looking in sandbox `sb` and then
// its parent (a pack's parent is its ruleset, whose modules are loaded once, into the ruleset's
// environment, and shared: a pack sees them through read-only views). Pushes the module; false
// when no file. A file that links out of its folder is an error naming the link.
bool require_in(Engine::Impl& I, int sb, int viewer, const char* name, const std::string& rel) {
  lua_State* L = I.L;
  const Engine::Impl::Sandbox& s = I.sandboxes[static_cast<std::size_t>(sb)];
  lua_rawgeti(L, LUA_REGISTRYINDEX, s.loaded);
  if (lua_getfield(L, -1, name) == LUA_TNIL) {
    lua_pop(L, 2);
    const fs::path path = s.dir / (rel + ".lua");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      return s.parent >= 0 && require_in(I, s.parent, viewer, name, rel);
    // the file, links followed, must be in the folder (base/paths)
    std::string text, why = outside_reason(s.dir, path, s.parent >= 0 ? "pack" : "ruleset");
    if (why.empty()) {
      try {
        text = read_text(path);
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    if (!why.empty()) luaL_error(L, "require '%s': %s", name, why.c_str());
    const std::string chunk = "@" + shown_path(path);
    if (luaL_loadbufferx(L, text.data(), text.size(), chunk.c_str(), "t") != LUA_OK) lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.env);
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) lua_pop(L, 1), lua_pushboolean(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.loaded);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
  } else {
    lua_remove(L, -2);
  }
  if (sb != viewer) {
    const std::string what = "module '" + std::string(name) + "' of " + s.owner;
    push_view(I, viewer, -1, what.c_str());
  }
  return true;
}

// require inside a pack: a module of the pack, else of its ruleset (scripts/<game>/).
int sandbox_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  std::string rel = name;
  if (rel.find("..") != std::string::npos || rel.find('/') != std::string::npos)
    return luaL_error(L, "require '%s': module names are dotted names inside the pack", name);
  for (char& c : rel)
    if (c == '.') c = '/';
  const int self = static_cast<int>(lua_tointeger(L, lua_upvalueindex(1)));
  if (require_in(impl(L), self, self, name, rel)) return 1;
  return luaL_error(L, "require '%s': no file %s.lua in this pack or its ruleset", name,
                    rel.c_str());
}

// rawset, except on the runtime's read-only tables (rawset would bypass their __newindex).
int sandbox_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (is_read_only(L, 1)) {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__metatable");
    return luaL_error(L, "rawset: %s (cannot set '%s')",
                      lua_isstring(L, -1) ? lua_tostring(L, -1) : "the table is read-only",
                      key_text(L, 2).c_str());
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int sandbox_print(lua_State* L) {
  Engine::Impl& I = impl(L);
  std::string line;
  for (int i = 1; i <= lua_gettop(L); ++i) {
    if (i > 1) line += '\t';
    refuse_address(L, i, "print");
    line += luaL_tolstring(L, i, nullptr);
    lua_pop(L, 1);
  }
  if (I.tracing()) I.trace->add(EventKind::note, "print", line);
  return 0;
}

int sandbox_random(lua_State* L) {
  Engine::Impl& I = impl(L);
  const int n = lua_gettop(L);
  if (n == 0) {
    lua_pushnumber(L, I.dice.uniform());
    return 1;
  }
  lua_Integer lo = 1, hi;
  if (n == 1)
    hi = luaL_checkinteger(L, 1);
  else
    lo = luaL_checkinteger(L, 1), hi = luaL_checkinteger(L, 2);
  luaL_argcheck(L, lo <= hi && hi - lo < 0xFFFFFFFF, n, "interval is empty or too large");
  lua_pushinteger(
      L, lo + static_cast<lua_Integer>(I.dice.below(static_cast<std::uint32_t>(hi - lo + 1))));
  return 1;
}

int sandbox_randomseed(lua_State* L) {
  return luaL_error(L,
                    "math.randomseed is not available: the runtime's dice are the only randomness");
}

void copy_fields(lua_State* L, int from, int to, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    lua_getfield(L, from, n);
    lua_setfield(L, to, n);
  }
}

// Builds a sandboxed environment for sandbox `index` and leaves it on the stack.
void push_sandbox(lua_State* L, int index) {
  lua_newtable(L);
  const int env = lua_gettop(L);
  lua_pushglobaltable(L);
  const int g = lua_gettop(L);
  copy_fields(L, g, env,
              {"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
               "rawlen", "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type",
               "xpcall", "_VERSION"});
  lua_pushcfunction(L, sandbox_rawset);
  lua_setfield(L, env, "rawset");
  lua_pushcfunction(L, sandbox_print);
  lua_setfield(L, env, "print");
  for (const char* lib : {"string", "table", "math", "utf8"}) {
    lua_newtable(L);
    lua_getfield(L, g, lib);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, -5);
    }
    lua_pop(L, 1);
    lua_setfield(L, env, lib);
  }
  lua_getfield(L, env, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  lua_getfield(L, env, "math");
  lua_pushcfunction(L, sandbox_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, sandbox_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_pushinteger(L, index);
  lua_pushcclosure(L, sandbox_require, 1);
  lua_setfield(L, env, "require");
  lua_pushvalue(L, env);
  lua_setfield(L, env, "_G");
  lua_pop(L, 1);  // global table
}

// ---------------------------------------------------------------- frozen globals

int frozen_newindex(lua_State* L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "owner");
  return luaL_error(L,
                    "global '%s' cannot be set once loading has ended (%s): scripts keep nothing "
                    "between calls; use a local, or keep it in the game state (a counter or flag)",
                    key_text(L, 2).c_str(), lua_tostring(L, -1));
}

int frozen_pairs(lua_State* L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");  // the globals
  push_fixed_order_iterator(L, -1, -1, true);
  lua_pushvalue(L, 1);  // not the globals themselves: the environment stays the only way in
  lua_pushnil(L);
  return 3;
}

// ---------------------------------------------------------------- ctx

int ctx_newindex(lua_State* L) {
  return luaL_error(L,
                    "ctx is read-only (cannot set '%s'): it is the runtime's, shared by every "
                    "pack and the ruleset",
                    key_text(L, 2).c_str());
}

void protect_metatable_of(lua_State* L, const char* what) {
  // the value whose metatable to protect is on the top of the stack
  if (lua_getmetatable(L, -1)) {
    lua_pushfstring(L, "%s is protected", what);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

// ---------------------------------------------------------------- attributed errors

struct Attributed {
  std::uint64_t serial;
  char kind;  // 'C' content error, 'S' script error
};

int attributed_tostring(lua_State* L) {
  lua_getiuservalue(L, 1, 1);
  return 1;
}

const Attributed* to_attributed(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return nullptr;
  lua_rawgeti(L, LUA_REGISTRYINDEX, impl(L).error_meta_ref);
  const bool ours = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return ours ? static_cast<const Attributed*>(lua_touserdata(L, idx)) : nullptr;
}

}  // namespace

// ---------------------------------------------------------------- the engine's side

void make_sandboxes(Engine::Impl& I) {
  lua_State* L = I.L;
  const std::size_t n = I.content->packs.size();
  I.sandboxes.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) {
    Engine::Impl::Sandbox& s = I.sandboxes[i];
    const bool ruleset = i == n;
    s.owner = ruleset ? "ruleset '" + I.rules.id + "'" : "pack '" + I.content->packs[i].id + "'";
    s.dir = ruleset ? I.rules.dir : I.content->packs[i].dir;
    s.parent = ruleset ? -1 : static_cast<int>(n);
    push_sandbox(L, static_cast<int>(i));
    s.env = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    s.loaded = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    s.views = luaL_ref(L, LUA_REGISTRYINDEX);
    I.env_refs.push_back(s.env);
  }
}

void freeze_sandboxes(Engine::Impl& I) {
  lua_State* L = I.L;
  for (const Engine::Impl::Sandbox& s : I.sandboxes) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.env);
    const int env = lua_gettop(L);
    lua_newtable(L);  // the globals move here; the environment stays an empty table
    const int globals = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, env)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, globals);
    }
    lua_pushnil(L);
    while (lua_next(L, globals)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_pushnil(L);
      lua_rawset(L, env);
    }
    lua_createtable(L, 0, 6);
    lua_pushvalue(L, globals);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, frozen_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, frozen_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushstring(L, s.owner.c_str());
    lua_setfield(L, -2, "owner");
    lua_pushfstring(L, "the globals of %s are read-only", s.owner.c_str());
    lua_setfield(L, -2, "__metatable");
    lua_pushlightuserdata(L, read_only_mark());
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_setmetatable(L, env);
    lua_pop(L, 2);
  }
}

void make_ctx(Engine::Impl& I) {
  lua_State* L = I.L;
  // The ruleset's ctx (procedures, setup, policies) is a plain table of the methods, so that
  // ctx:method() is one field lookup on the hot path; no pack can reach it. Hooks get another
  // ctx: an empty userdata that finds the methods through its metatable, which no content can
  // write to (rawset needs a table) nor unmask (__metatable). It costs a metatable lookup per
  // method call, in hooks only (a userdata ctx for the procedure too cost 3.7% of bench's
  // instructions).
  lua_newtable(L);
  register_state_api(L);
  register_dice_api(L);
  register_flow_api(L);
  register_board_api(L);
  lua_pushvalue(L, -1);
  I.ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newuserdatauv(L, 0, 0);
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ctx_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushliteral(L, "ctx is read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  I.hook_ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 1);
  // every string shares one metatable, every light userdata (the pools) another
  lua_pushliteral(L, "");
  protect_metatable_of(L, "the string metatable");
  lua_pushlightuserdata(L, nullptr);
  protect_metatable_of(L, "the pool metatable");
  // the metatable of attributed errors
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, attributed_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "an error raised by the runtime");
  lua_setfield(L, -2, "__metatable");
  I.error_meta_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

void push_attributed(lua_State* L, char kind, const char* message) {
  Engine::Impl& I = impl(L);
  auto* a = static_cast<Attributed*>(lua_newuserdatauv(L, sizeof(Attributed), 1));
  a->serial = ++I.error_serial;
  a->kind = kind;
  I.live_error = a->serial;
  lua_pushstring(L, message);
  lua_setiuservalue(L, -2, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.error_meta_ref);
  lua_setmetatable(L, -2);
}

int attributed_kind(lua_State* L, int idx, std::string* message) {
  const Attributed* a = to_attributed(L, idx);
  if (!a) return 0;
  if (message) {
    lua_getiuservalue(L, idx, 1);
    *message = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  Engine::Impl& I = impl(L);
  if (a->serial != I.live_error) return -1;  // raised again by content: no longer the runtime's
  return a->kind;
}

void consume_attributed(lua_State* L) {
  impl(L).live_error = 0;
}

// ---------------------------------------------------------------- the state guard

namespace {

struct Walker {
  lua_State* L;
  StateSnapshot& snap;
  std::size_t budget = 200000;  // objects: a pack that builds more is not worth walking

  std::string value_text(int idx) {
    char buf[64];
    switch (lua_type(L, idx)) {
      case LUA_TNIL:
        return "nil";
      case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? "true" : "false";
      case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return std::to_string(lua_tointeger(L, idx));
        std::snprintf(buf, sizeof buf, "%.14g", lua_tonumber(L, idx));
        return buf;
      case LUA_TSTRING: {
        std::size_t n = 0;
        const char* s = lua_tolstring(L, idx, &n);
        std::string text(s, std::min<std::size_t>(n, 40));
        return "\"" + text + (n > 40 ? "...\"" : "\"");
      }
      default:
        std::snprintf(buf, sizeof buf, "%s@%p", luaL_typename(L, idx), lua_topointer(L, idx));
        return buf;
    }
  }

  // Walks the table or function at idx (reached by `path`), recording its contents.
  void walk(int idx, const std::string& path, StateSnapshot::Style style, int depth) {
    idx = lua_absindex(L, idx);
    const int type = lua_type(L, idx);
    if (type != LUA_TTABLE && type != LUA_TFUNCTION) return;
    const void* p = lua_topointer(L, idx);
    if (snap.objects.count(p) || budget == 0 || depth > 60 || !lua_checkstack(L, 8)) return;
    --budget;
    StateSnapshot::Object& o = snap.objects[p];
    o.path = path;
    o.style = type == LUA_TFUNCTION ? StateSnapshot::Style::upvalues : style;
    if (type == LUA_TTABLE) {
      lua_pushnil(L);
      while (lua_next(L, idx)) {
        std::string key = lua_type(L, -2) == LUA_TSTRING || lua_type(L, -2) == LUA_TNUMBER
                              ? key_text(L, -2)
                              : "[" + value_text(-2) + "]";
        o.fields.emplace_back(key, value_text(-1));
        lua_pop(L, 1);
      }
      if (lua_getmetatable(L, idx)) {
        o.fields.emplace_back("(metatable)", value_text(-1));
        lua_pop(L, 1);
      }
    } else {
      for (int n = 1;; ++n) {
        const char* name = lua_getupvalue(L, idx, n);
        if (!name) break;
        std::string key = *name ? name : "#" + std::to_string(n);
        if (key != "_ENV") o.fields.emplace_back(key, value_text(-1));
        lua_pop(L, 1);
      }
    }
    std::sort(o.fields.begin(), o.fields.end());
    const std::string base = path;
    const auto my_style = o.style;
    // children: tables and functions among the values (and the metatable)
    if (type == LUA_TTABLE) {
      lua_pushnil(L);
      while (lua_next(L, idx)) {
        if (lua_istable(L, -1) || lua_isfunction(L, -1))
          walk(-1, StateSnapshot::field_path(base, my_style, key_text(L, -2)),
               StateSnapshot::Style::table, depth + 1);
        if (lua_istable(L, -2)) walk(-2, base + " (a key)", StateSnapshot::Style::table, depth + 1);
        lua_pop(L, 1);
      }
      if (lua_getmetatable(L, idx)) {
        walk(-1, base + " (metatable)", StateSnapshot::Style::table, depth + 1);
        lua_pop(L, 1);
      }
    } else {
      for (int n = 1;; ++n) {
        const char* name = lua_getupvalue(L, idx, n);
        if (!name) break;
        // a C closure's upvalues are the runtime's (the state guard's wrapper holds the hook's
        // function): what they lead to is named as if reached directly
        if (!*name)
          walk(-1, base, StateSnapshot::Style::upvalues, depth + 1);
        else if (std::string_view(name) != "_ENV")
          walk(-1, StateSnapshot::field_path(base, my_style, name), StateSnapshot::Style::table,
               depth + 1);
        lua_pop(L, 1);
      }
    }
  }

  void root_ref(int ref, const std::string& path, StateSnapshot::Style style) {
    if (ref == LUA_NOREF || ref == LUA_REFNIL || ref < 0) return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    walk(-1, path, style, 0);
    lua_pop(L, 1);
  }
};

std::string shown_value(const std::string& v) {
  const auto at = v.find('@');
  if (at == std::string::npos || v[0] == '"') return v;
  return "a " + v.substr(0, at);  // identity matters, the address says nothing to a reader
}

}  // namespace

std::string StateSnapshot::field_path(const std::string& path, Style style,
                                      const std::string& key) {
  switch (style) {
    case Style::globals:
      return path + " global '" + key + "'";
    case Style::upvalues:
      return path + " upvalue '" + key + "'";
    default:
      return path + "." + key;
  }
}

StateSnapshot snapshot_state(Engine::Impl& I) {
  StateSnapshot snap;
  lua_State* L = I.L;
  const int top = lua_gettop(L);
  Walker w{L, snap};
  using Style = StateSnapshot::Style;
  // globals first, so that a global is named as one; then what the runtime calls
  for (const Engine::Impl::Sandbox& s : I.sandboxes) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.env);
    if (lua_getmetatable(L, -1)) {  // frozen: the globals live behind __index
      lua_getfield(L, -1, "__index");
      w.walk(-1, s.owner, Style::globals, 0);
      lua_pop(L, 2);
    }
    w.walk(-1, s.owner, Style::globals, 0);  // what rawset put there
    lua_pop(L, 1);
  }
  for (const HookDef& h : I.bus.hooks()) {
    w.root_ref(h.condition, "hook '" + h.id + "' (condition)", Style::upvalues);
    w.root_ref(h.helps, "hook '" + h.id + "' (helps)", Style::upvalues);
    w.root_ref(h.covered, "hook '" + h.id + "' (covered)", Style::upvalues);
    w.root_ref(h.apply, "hook '" + h.id + "'", Style::upvalues);
  }
  for (const auto& p : I.procedures)
    w.root_ref(p.ref, "procedure '" + p.name + "'", Style::upvalues);
  w.root_ref(I.policies_ref, "the ruleset's policies", Style::table);
  w.root_ref(I.ctx_ref, "the ruleset's ctx", Style::table);
  w.root_ref(I.scenario_ref, "ctx:scenario()", Style::table);
  w.root_ref(I.player_policy_ref, "the players' policies (ctx:policy)", Style::table);
  w.root_ref(I.setup_ref, "the ruleset's setup", Style::upvalues);
  for (const Engine::Impl::Sandbox& s : I.sandboxes) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.loaded);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      w.walk(-1, "module '" + key_text(L, -2) + "' of " + s.owner, Style::table, 0);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  return snap;
}

// The state guard around one call of a hook's function (check_state): the globals of its pack
// and what the function reaches must be as they were when it returns. Upvalues: [1] the
// function, [2] its sandbox.
int guarded_hook_call(lua_State* L) {
  Engine::Impl& I = impl(L);
  const auto& s = I.sandboxes[static_cast<std::size_t>(lua_tointeger(L, lua_upvalueindex(2)))];
  auto snapshot = [&] {
    StateSnapshot snap;
    Walker w{L, snap};
    lua_rawgeti(L, LUA_REGISTRYINDEX, s.env);
    if (lua_getmetatable(L, -1)) {
      lua_getfield(L, -1, "__index");
      w.walk(-1, s.owner, StateSnapshot::Style::globals, 0);
      lua_pop(L, 2);
    }
    w.walk(-1, s.owner, StateSnapshot::Style::globals, 0);
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    w.walk(-1, "the hook's", StateSnapshot::Style::upvalues, 0);
    lua_pop(L, 1);
    return snap;
  };
  const StateSnapshot before = snapshot();
  const int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  const std::vector<std::string> changes = state_changes(before, snapshot());
  if (!changes.empty()) {
    std::string msg =
        "keeps state between calls (scripts keep nothing between calls: keep what "
        "must be remembered in the game state, as counters or flags): ";
    for (std::size_t i = 0; i < changes.size() && i < 5; ++i) msg += (i ? "; " : "") + changes[i];
    if (changes.size() > 5) msg += "; and " + std::to_string(changes.size() - 5) + " more";
    return luaL_error(L, "%s", msg.c_str());
  }
  return lua_gettop(L);
}

void guard_hook_function(Engine::Impl& I, int sandbox) {
  lua_pushinteger(I.L, sandbox);
  lua_pushcclosure(I.L, guarded_hook_call, 2);
}

std::vector<std::string> state_changes(const StateSnapshot& before, const StateSnapshot& after) {
  std::vector<std::string> changes;
  for (const auto& entry : before.objects) {
    const auto& o = entry.second;  // a named reference: clang 14 cannot capture a binding
    const auto it = after.objects.find(entry.first);
    if (it == after.objects.end()) continue;  // unreachable now: its holder's change says why
    const auto& now = it->second.fields;
    std::size_t i = 0, j = 0;
    auto report = [&](const std::string& key, const std::string& was, const std::string& is) {
      changes.push_back(StateSnapshot::field_path(o.path, o.style, key) + " changed from " +
                        shown_value(was) + " to " + shown_value(is));
    };
    while (i < o.fields.size() || j < now.size()) {
      if (j == now.size() || (i < o.fields.size() && o.fields[i].first < now[j].first)) {
        report(o.fields[i].first, o.fields[i].second, "nil");
        ++i;
      } else if (i == o.fields.size() || now[j].first < o.fields[i].first) {
        report(now[j].first, "nil", now[j].second);
        ++j;
      } else {
        if (o.fields[i].second != now[j].second)
          report(o.fields[i].first, o.fields[i].second, now[j].second);
        ++i, ++j;
      }
    }
  }
  std::sort(changes.begin(), changes.end());
  return changes;
}

}  // namespace rb
