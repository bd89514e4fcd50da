// script/fixed_order: what content sees of Lua's iteration order and of addresses is the same in
// every process, so that one seed gives one answer anywhere.
//  - Lua seeds its string hash per state (from the clock and from addresses), so the order in
//    which `next` visits a table's string keys differs from one process to the next. `pairs` and
//    `next` here visit keys in a fixed order: booleans (false first), numbers (ascending),
//    strings (byte order), then light userdata (the runtime's handles, by value). A key that is
//    a table, function, thread or full userdata has no order but its address: iterating a table
//    that has one is an error naming the key's type.
//  - `tostring`, `print` and `string.format` refuse to show the address of a table, function,
//    thread or full userdata that has no __tostring.
#include <algorithm>
#include <cstring>

#include "script/lua_host.hpp"

namespace rb {

namespace {

// A key's place in the fixed order. The string's bytes stay valid while the key is anchored.
struct OrderedKey {
  int rank;  // 0 boolean, 1 number, 2 string, 3 light userdata
  bool integer;
  lua_Integer i;
  lua_Number f;
  const char* s;
  std::size_t len;
  const void* p;
  int slot;  // where the key is anchored
};

bool operator<(const OrderedKey& a, const OrderedKey& b) {
  if (a.rank != b.rank) return a.rank < b.rank;
  switch (a.rank) {
    case 0:
      return a.i < b.i;
    case 1:
      if (a.integer && b.integer) return a.i < b.i;
      return (a.integer ? static_cast<lua_Number>(a.i) : a.f) <
             (b.integer ? static_cast<lua_Number>(b.i) : b.f);
    case 2: {
      const int c = std::memcmp(a.s, b.s, std::min(a.len, b.len));
      return c != 0 ? c < 0 : a.len < b.len;
    }
    default:
      return a.p < b.p;
  }
}

// The key at idx, or an error when it has no order but its address.
OrderedKey ordered_key(lua_State* L, int idx, int slot) {
  OrderedKey k{};
  k.slot = slot;
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      k.rank = 0, k.i = lua_toboolean(L, idx);
      break;
    case LUA_TNUMBER:
      k.rank = 1, k.integer = lua_isinteger(L, idx);
      if (k.integer)
        k.i = lua_tointeger(L, idx);
      else
        k.f = lua_tonumber(L, idx);
      break;
    case LUA_TSTRING:
      k.rank = 2, k.s = lua_tolstring(L, idx, &k.len);
      break;
    case LUA_TLIGHTUSERDATA:
      k.rank = 3, k.p = lua_touserdata(L, idx);
      break;
    default:
      luaL_error(L,
                 "a table keyed by a %s has no fixed order (a %s is ordered only by its address, "
                 "which changes from process to process): keep such keys in an array",
                 luaL_typename(L, idx), luaL_typename(L, idx));
  }
  return k;
}

// Pushes an array of the keys of the table at idx, in the fixed order.
void push_sorted_keys(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  const int keys = lua_gettop(L);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    ordered_key(L, -1, 0);  // an unordered key is an error before anything is sorted
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, ++n);
  }
  // the sort's array is a userdata, so that an error (out of memory) leaks nothing
  auto* order = static_cast<OrderedKey*>(
      lua_newuserdatauv(L, sizeof(OrderedKey) * static_cast<std::size_t>(n), 0));
  for (int slot = 1; slot <= n; ++slot) {
    lua_rawgeti(L, keys, slot);
    order[slot - 1] = ordered_key(L, -1, slot);
    lua_pop(L, 1);
  }
  std::sort(order, order + n);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; ++i) {
    lua_rawgeti(L, keys, order[i].slot);
    lua_rawseti(L, -2, i + 1);
  }
  lua_replace(L, keys);
  lua_pop(L, 1);  // the sort's array
}

// The iterator pairs returns: upvalues the table (or the view whose values to read), the sorted
// keys, the position, and whether to read values raw. A key whose value has become nil since the
// iteration began is skipped, as `next` skips it.
int ordered_step(lua_State* L) {
  const bool raw = lua_toboolean(L, lua_upvalueindex(4));
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3));
  for (;;) {
    ++pos;
    if (lua_rawgeti(L, lua_upvalueindex(2), pos) == LUA_TNIL) {
      lua_pushinteger(L, pos);
      lua_replace(L, lua_upvalueindex(3));
      return 0;
    }
    lua_pushvalue(L, -1);
    if (raw)
      lua_rawget(L, lua_upvalueindex(1));
    else
      lua_gettable(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) break;
    lua_pop(L, 2);
  }
  lua_pushinteger(L, pos);
  lua_replace(L, lua_upvalueindex(3));
  return 2;
}

int fixed_pairs(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {  // a view, or a frozen environment
    lua_pushvalue(L, 1);
    lua_call(L, 1, 3);
    return 3;
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  push_fixed_order_iterator(L, 1, 1, true);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// next(t, k): the key after k in the fixed order, and its value; one pass over the table.
int fixed_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  const bool first = lua_isnil(L, 2);
  const OrderedKey after = first ? OrderedKey{} : ordered_key(L, 2, 0);
  lua_pushnil(L);  // 3: the best key so far, anchored here
  OrderedKey best{};
  bool found = false;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    const OrderedKey k = ordered_key(L, -1, 0);
    if ((first || after < k) && (!found || k < best)) {
      lua_pushvalue(L, -1);
      lua_replace(L, 3);
      best = ordered_key(L, 3, 0);
      found = true;
    }
  }
  if (!found) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 3);
  lua_rawget(L, 1);
  return 2;
}

// Whether the value at idx would show its address in tostring: a table, function, thread or
// full userdata without __tostring.
bool shows_address(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TTABLE:
    case LUA_TFUNCTION:
    case LUA_TUSERDATA:
    case LUA_TTHREAD:
      if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);
        return false;
      }
      return true;
    default:
      return false;
  }
}

int fixed_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  refuse_address(L, 1, "tostring");
  luaL_tolstring(L, 1, nullptr);
  return 1;
}

// string.format, refusing %p and an argument that would show its address; the library's
// format is upvalue 1.
int fixed_format(lua_State* L) {
  std::size_t len = 0;
  const char* f = luaL_checklstring(L, 1, &len);
  for (std::size_t i = 0; i + 1 < len; ++i)
    if (f[i] == '%') {
      std::size_t j = i + 1;
      while (j < len && std::strchr("-+ #0123456789.", f[j])) ++j;
      if (j < len && f[j] == 'p')
        return luaL_error(L,
                          "string.format: '%%p' shows an address, which changes from process to "
                          "process (one seed would give two answers)");
      i = j;
    }
  for (int i = 2; i <= lua_gettop(L); ++i) refuse_address(L, i, "string.format");
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

}  // namespace

void refuse_address(lua_State* L, int idx, const char* what) {
  if (shows_address(L, idx))
    luaL_error(L,
               "%s of a %s would show its address, which changes from process to process (one "
               "seed would give two answers): give it a __tostring, or name it yourself",
               what, luaL_typename(L, idx));
}

void push_fixed_order_iterator(lua_State* L, int keys_of, int values_of, bool raw) {
  keys_of = lua_absindex(L, keys_of);
  values_of = lua_absindex(L, values_of);
  lua_pushvalue(L, values_of);
  push_sorted_keys(L, keys_of);
  lua_pushinteger(L, 0);
  lua_pushboolean(L, raw);
  lua_pushcclosure(L, ordered_step, 4);
}

void install_fixed_order(lua_State* L) {
  lua_pushcfunction(L, fixed_pairs);
  lua_setglobal(L, "pairs");
  lua_pushcfunction(L, fixed_next);
  lua_setglobal(L, "next");
  lua_pushcfunction(L, fixed_tostring);
  lua_setglobal(L, "tostring");
  // the string metatable's __index is the global string table: ("%p"):format() goes here too
  lua_getglobal(L, "string");
  lua_getfield(L, -1, "format");
  lua_pushcclosure(L, fixed_format, 1);
  lua_setfield(L, -2, "format");
  lua_pop(L, 1);
}

}  // namespace rb
