// Lua calls C++: the hex board of the state (board/board.hpp) and hex geometry (board/hex.hpp).
// A hex is the table {q, r} (axial coordinates); where a call takes a hex it also takes an
// entity id, meaning that entity's hex (State::hex_of: where it is placed, or where its location
// is). Lists of hexes are arrays of {q, r}. Directions are names in the board's orientation
// ("n", "ne", ... for flat-top; "e", "ne", ... for pointy-top) or indexes 0..5 (board/hex.hpp).
#include <string>

#include "base/text.hpp"
#include "script/lua_host.hpp"

namespace rb {

namespace {

State& st(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.state) luaL_error(L, "no game state here (this call needs a run or a setup)");
  return *I.state;
}

std::int32_t check_coordinate(lua_State* L, int idx, int arg, const char* what) {
  int ok = 0;
  const lua_Integer v = lua_tointegerx(L, idx, &ok);
  if (!ok)
    luaL_error(L, "bad argument #%d: a hex is {q, r} with two whole numbers; its %s is %s", arg,
               what, luaL_typename(L, idx));
  // checked as the 64-bit integer Lua holds, and named whole: a cast first would wrap it
  if (v > kMaxCoordinate || v < -kMaxCoordinate)
    luaL_error(L, "bad argument #%d: hex coordinate %I is off the map (they go to +-%d)", arg,
               static_cast<LUAI_UACINT>(v), static_cast<int>(kMaxCoordinate));
  return static_cast<std::int32_t>(v);
}

// The hex at idx: {q, r}, or an entity on the board (or in a place on it).
Hex check_hex(lua_State* L, int idx) {
  const int arg = idx - 1;  // ctx is argument 0 in messages
  if (lua_istable(L, idx)) {
    lua_geti(L, idx, 1);
    lua_geti(L, idx, 2);
    const Hex h{check_coordinate(L, -2, arg, "q"), check_coordinate(L, -1, arg, "r")};
    lua_pop(L, 2);
    return h;
  }
  if (lua_isinteger(L, idx)) {
    const EntityId e = check_entity(L, idx);
    if (const std::optional<Hex> h = st(L).hex_of(e)) return *h;
    luaL_error(L, "bad argument #%d: entity %d (%s) is not on the board", arg, e,
               impl(L).name_of(e).c_str());
  }
  luaL_error(L, "bad argument #%d: expected a hex {q, r} or an entity on the board, got %s", arg,
             luaL_typename(L, idx));
  return {};
}

void push_hex(lua_State* L, Hex h) {
  lua_createtable(L, 2, 0);
  lua_pushinteger(L, h.q);
  lua_rawseti(L, -2, 1);
  lua_pushinteger(L, h.r);
  lua_rawseti(L, -2, 2);
}

void push_hexes(lua_State* L, const std::vector<Hex>& hexes) {
  lua_createtable(L, static_cast<int>(hexes.size()), 0);
  int n = 0;
  for (const Hex h : hexes) push_hex(L, h), lua_rawseti(L, -2, ++n);
}

int check_direction(lua_State* L, int idx, Orientation o) {
  const int arg = idx - 1;
  if (lua_isinteger(L, idx)) {
    const lua_Integer d = lua_tointeger(L, idx);
    if (d < 0 || d > 5) luaL_error(L, "bad argument #%d: a direction index is 0..5", arg);
    return static_cast<int>(d);
  }
  const char* name = luaL_checkstring(L, idx);
  if (const std::optional<int> d = direction_of(name, o)) return *d;
  std::vector<std::string> names;
  std::string list;
  for (int d = 0; d < 6; ++d) {
    names.emplace_back(direction_name(d, o));
    list += (d ? ", " : "") + names.back();
  }
  luaL_error(L, "bad argument #%d: '%s' is not a direction of a %s-top board (%s)%s", arg, name,
             o == Orientation::flat ? "flat" : "pointy", list.c_str(),
             did_you_mean(name, names).c_str());
  return 0;
}

// ctx:set_board{orientation = "flat" | "pointy", spiral_start = direction,
//               winding = "clockwise" | "counter_clockwise"}
int l_set_board(lua_State* L) {
  Board& b = st(L).board;
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    lua_pop(L, 1);
    const std::string key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    if (key != "orientation" && key != "spiral_start" && key != "winding")
      luaL_error(L, "set_board: unknown key '%s' (orientation, spiral_start, winding)",
                 key.c_str());
  }
  if (lua_getfield(L, 2, "orientation") != LUA_TNIL) {
    const std::string o = luaL_checkstring(L, -1);
    if (o != "flat" && o != "pointy")
      luaL_error(L, "set_board: orientation is flat or pointy, not '%s'", o.c_str());
    b.orientation = o == "flat" ? Orientation::flat : Orientation::pointy;
  }
  if (lua_getfield(L, 2, "spiral_start") != LUA_TNIL)
    b.spiral.start = check_direction(L, lua_gettop(L), b.orientation);
  if (lua_getfield(L, 2, "winding") != LUA_TNIL) {
    const std::string w = luaL_checkstring(L, -1);
    if (w != "clockwise" && w != "counter_clockwise")
      luaL_error(L, "set_board: winding is clockwise or counter_clockwise, not '%s'", w.c_str());
    b.spiral.winding = w == "clockwise" ? Winding::clockwise : Winding::counter_clockwise;
  }
  return 0;
}

// ctx:place(e, hex): e sits at the hex (which joins the board); nil takes e off the board
int l_place(lua_State* L) {
  State& s = st(L);
  const EntityId e = check_entity(L, 2);
  if (lua_isnoneornil(L, 3))
    s.board.remove(e);
  else
    s.board.place(check_hex(L, 3), e);
  return 0;
}
// ctx:add_hex(hex): the hex exists on the board, with nothing placed on it
int l_add_hex(lua_State* L) {
  st(L).board.add(check_hex(L, 2));
  return 0;
}
// ctx:on_board(hex) -> whether the hex exists on the board (an entity: whether it has a hex)
int l_on_board(lua_State* L) {
  const State& s = st(L);
  if (lua_isinteger(L, 2))
    lua_pushboolean(L, s.hex_of(check_entity(L, 2)).has_value());
  else
    lua_pushboolean(L, s.board.contains(check_hex(L, 2)));
  return 1;
}
// ctx:at_hex(hex) -> the entity placed there, or nil
int l_at_hex(lua_State* L) {
  const EntityId e = st(L).board.at(check_hex(L, 2));
  if (e < 0)
    lua_pushnil(L);
  else
    lua_pushinteger(L, e);
  return 1;
}
// ctx:hex(e) -> e's hex {q, r} (where it is placed, or where its location is), or nil
int l_hex(lua_State* L) {
  if (const std::optional<Hex> h = st(L).hex_of(check_entity(L, 2)))
    push_hex(L, *h);
  else
    lua_pushnil(L);
  return 1;
}
// ctx:hexes() -> every hex of the board, by r then q
int l_hexes(lua_State* L) {
  const auto cells = st(L).board.cells();
  lua_createtable(L, static_cast<int>(cells.size()), 0);
  int n = 0;
  for (const Board::Cell& c : cells) push_hex(L, c.hex), lua_rawseti(L, -2, ++n);
  return 1;
}
// ctx:hex_neighbours(hex, on_board) -> the six neighbours in direction order (only those on the
// board when on_board is true)
int l_hex_neighbours(lua_State* L) {
  const State& s = st(L);
  const Hex h = check_hex(L, 2);
  const bool only_on_board = lua_toboolean(L, 3);
  std::vector<Hex>& out = impl(L).scratch_hexes;
  out.clear();
  for (int d = 0; d < 6; ++d)
    if (!only_on_board || s.board.contains(neighbour(h, d))) out.push_back(neighbour(h, d));
  push_hexes(L, out);
  return 1;
}
// ctx:hex_neighbour(hex, direction) -> the neighbour that way
int l_hex_neighbour(lua_State* L) {
  const State& s = st(L);
  const Hex h = check_hex(L, 2);
  push_hex(L, neighbour(h, check_direction(L, 3, s.board.orientation)));
  return 1;
}
// ctx:hex_distance(a, b) -> steps between two hexes
int l_hex_distance(lua_State* L) {
  lua_pushinteger(L, distance(check_hex(L, 2), check_hex(L, 3)));
  return 1;
}

constexpr lua_Integer kMaxRadius = 1000;  // rings and lines built for content stay small

// ctx:hex_ring(centre, radius) -> the hexes at that distance, in the board's spiral order
int l_hex_ring(lua_State* L) {
  const State& s = st(L);
  const Hex c = check_hex(L, 2);
  const lua_Integer radius = luaL_checkinteger(L, 3);
  if (radius < 0 || radius > kMaxRadius)
    luaL_error(L, "bad argument #2: a ring's radius is 0..%d", static_cast<int>(kMaxRadius));
  std::vector<Hex>& out = impl(L).scratch_hexes;
  out.clear();
  ring(c, static_cast<std::int32_t>(radius), s.board.spiral, out);
  push_hexes(L, out);
  return 1;
}
// ctx:hex_spiral(index, centre) -> the hex at a spiral index (0: the centre, default {0, 0})
int l_hex_spiral(lua_State* L) {
  const State& s = st(L);
  const lua_Integer index = luaL_checkinteger(L, 2);
  constexpr lua_Integer kMaxIndex = 3 * kMaxRadius * (kMaxRadius + 1);
  if (index < 0 || index > kMaxIndex)
    luaL_error(L, "bad argument #1: a spiral index is 0..%d", static_cast<int>(kMaxIndex));
  const Hex c = lua_isnoneornil(L, 3) ? Hex{} : check_hex(L, 3);
  push_hex(L, spiral_hex(c, index, s.board.spiral));
  return 1;
}
// ctx:spiral_index(hex, centre) -> its index in the board's spiral order around the centre
int l_spiral_index(lua_State* L) {
  const State& s = st(L);
  const Hex h = check_hex(L, 2);
  const Hex c = lua_isnoneornil(L, 3) ? Hex{} : check_hex(L, 3);
  lua_pushinteger(L, spiral_index(c, h, s.board.spiral));
  return 1;
}
// ctx:hex_line(a, b) -> two lists of hexes from a to b, both ends included: the line sampled
// once per hex step, nudged one way and the other. They differ where a sample lands exactly
// between two hexes: a line along hex edges (one list has the hexes on one side, the other
// those on the other side), and also a line that crosses an edge at its middle (the segment
// passes through both hexes, each list has only one). For every hex the segment meets, see
// ctx:hex_sight.
int l_hex_line(lua_State* L) {
  const Hex a = check_hex(L, 2), b = check_hex(L, 3);
  if (distance(a, b) > kMaxRadius)
    luaL_error(L, "hex_line: the hexes are %d apart; lines go to %d", distance(a, b),
               static_cast<int>(kMaxRadius));
  Engine::Impl& I = impl(L);
  I.scratch_hexes.clear();
  I.scratch_hexes2.clear();
  line(a, b, +1, I.scratch_hexes);
  line(a, b, -1, I.scratch_hexes2);
  push_hexes(L, I.scratch_hexes);
  push_hexes(L, I.scratch_hexes2);
  return 2;
}

// ctx:hex_sight(a, b, obstructs, ...) -> true, or false and what blocks: whether the straight
// segment between the centres of hexes a and b is clear (SegmentWalk, board/hex.hpp: every hex
// it passes through or only touches, a and b left out). Only a hex that holds an entity, or is
// off the board, can obstruct: obstructs(e, ...) is called for it (e: the entity there, nil off
// the board; the call's own `...` passed on) and returns what obstructs there, or nil. A hex
// passed through that obstructs blocks: false, what, its hex. Hexes only touched (along an
// edge, at a corner) block only when there are obstructions on both sides of the segment:
// false, what, hex (the first on the left), what2, hex2 (the first on the right); once a side
// has one, the hexes touched on that side are not asked about. No table is made unless blocked.
int l_hex_sight(lua_State* L) {
  const Hex a = check_hex(L, 2), b = check_hex(L, 3);
  luaL_checktype(L, 4, LUA_TFUNCTION);
  const int top = lua_gettop(L);
  luaL_checkstack(L, top + 4, "hex_sight");
  lua_pushnil(L);  // top + 1: what obstructs on the left
  lua_pushnil(L);  // top + 2: on the right
  Hex where[2]{};
  SegmentWalk walk(a, b);
  Hex h;
  Meet meet = Meet::through;
  while (walk.next(h, meet)) {
    const int side = meet == Meet::left ? 0 : 1;
    if (meet != Meet::through && !lua_isnil(L, top + 1 + side)) continue;
    const Board& board = st(L).board;  // (obstructs may change the state)
    const EntityId e = board.at(h);
    if (e < 0 && board.contains(h)) continue;  // an empty hex on the board
    lua_pushvalue(L, 4);
    if (e >= 0)
      lua_pushinteger(L, e);
    else
      lua_pushnil(L);
    for (int i = 5; i <= top; ++i) lua_pushvalue(L, i);
    lua_call(L, top - 3, 1);
    if (!lua_toboolean(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    if (meet == Meet::through) {
      lua_pushboolean(L, 0);
      lua_insert(L, -2);
      push_hex(L, h);
      return 3;
    }
    lua_replace(L, top + 1 + side);
    where[side] = h;
  }
  if (lua_isnil(L, top + 1) || lua_isnil(L, top + 2)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushvalue(L, top + 1);
  push_hex(L, where[0]);
  lua_pushvalue(L, top + 2);
  push_hex(L, where[1]);
  return 5;
}

OffsetLayout check_layout(lua_State* L, int idx) {
  const char* name = luaL_checkstring(L, idx);
  if (const std::optional<OffsetLayout> o = offset_layout(name)) return *o;
  luaL_error(L, "bad argument #%d: offset layout is odd_r, even_r, odd_q or even_q, not '%s'",
             idx - 1, name);
  return OffsetLayout::odd_r;
}
// ctx:offset_hex(col, row, layout) -> the hex of a rectangular board's column and row
int l_offset_hex(lua_State* L) {
  const std::int32_t col = check_coordinate(L, 2, 1, "column");
  const std::int32_t row = check_coordinate(L, 3, 2, "row");
  push_hex(L, from_offset(col, row, check_layout(L, 4)));
  return 1;
}
// ctx:hex_offset(hex, layout) -> col, row
int l_hex_offset(lua_State* L) {
  std::int32_t col = 0, row = 0;
  to_offset(check_hex(L, 2), check_layout(L, 3), col, row);
  lua_pushinteger(L, col);
  lua_pushinteger(L, row);
  return 2;
}

}  // namespace

void register_board_api(lua_State* L) {
  static const luaL_Reg api[] = {{"set_board", guarded<l_set_board>},
                                 {"place", guarded<l_place>},
                                 {"add_hex", guarded<l_add_hex>},
                                 {"on_board", guarded<l_on_board>},
                                 {"at_hex", guarded<l_at_hex>},
                                 {"hex", guarded<l_hex>},
                                 {"hexes", guarded<l_hexes>},
                                 {"hex_neighbours", guarded<l_hex_neighbours>},
                                 {"hex_neighbour", guarded<l_hex_neighbour>},
                                 {"hex_distance", guarded<l_hex_distance>},
                                 {"hex_ring", guarded<l_hex_ring>},
                                 {"hex_spiral", guarded<l_hex_spiral>},
                                 {"spiral_index", guarded<l_spiral_index>},
                                 {"hex_line", guarded<l_hex_line>},
                                 {"hex_sight", guarded<l_hex_sight>},
                                 {"offset_hex", guarded<l_offset_hex>},
                                 {"hex_offset", guarded<l_hex_offset>},
                                 {nullptr, nullptr}};
  luaL_setfuncs(L, api, 0);
}

}  // namespace rb
