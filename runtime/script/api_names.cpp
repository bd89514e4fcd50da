// What the binding registers, by name: the methods of ctx and of pools, and the globals of the
// sandboxes (rulebench types writes them as editor types and a luacheck configuration).
#include <algorithm>

#include "script/lua_host.hpp"

namespace rb {

std::vector<std::string> table_keys(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  std::vector<std::string> keys;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) keys.emplace_back(lua_tostring(L, -1));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> Engine::api_names(std::string_view table) const {
  lua_State* L = impl_->L;
  std::vector<std::string> names;
  if (table == "ctx") {
    lua_rawgeti(L, LUA_REGISTRYINDEX, impl_->ctx_ref);
    names = table_keys(L, -1);
    lua_pop(L, 1);
  } else if (table == "pool") {
    lua_pushlightuserdata(L, nullptr);  // every pool shares the light userdata metatable
    if (lua_getmetatable(L, -1)) {
      lua_getfield(L, -1, "__index");
      if (lua_istable(L, -1)) names = table_keys(L, -1);
      lua_pop(L, 2);
    }
    lua_pop(L, 1);
  }
  return names;
}

const std::map<std::string, std::vector<std::string>>& Engine::sandbox_globals() const {
  return impl_->sandbox_globals;
}

}  // namespace rb
