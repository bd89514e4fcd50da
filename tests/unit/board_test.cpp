// The hex board: geometry (distance, rings, the spiral order of map strings, the both-ways line)
// and the board in the state (places, adjacency by hex neighbours plus links, copies).
#include <catch2/catch.hpp>

#include <algorithm>

#include "board/board.hpp"
#include "board/hex.hpp"
#include "state/state.hpp"

using namespace rb;

namespace {

std::vector<Hex> line_of(Hex a, Hex b, int side) {
  std::vector<Hex> out;
  line(a, b, side, out);
  return out;
}

std::vector<std::pair<Hex, Meet>> walk_of(Hex a, Hex b) {
  std::vector<std::pair<Hex, Meet>> out;
  SegmentWalk w(a, b);
  Hex h;
  Meet m = Meet::through;
  while (w.next(h, m)) out.emplace_back(h, m);
  return out;
}

}  // namespace

TEST_CASE("hex: distances", "[board]") {
  CHECK(distance({0, 0}, {0, 0}) == 0);
  CHECK(distance({0, 0}, {1, -1}) == 1);
  CHECK(distance({0, 0}, {3, -1}) == 3);
  CHECK(distance({0, 0}, {2, 2}) == 4);
  CHECK(distance({-2, 1}, {1, -1}) == 3);
  CHECK(distance({5, -7}, {-4, 3}) == 10);
  for (int d = 0; d < 6; ++d) CHECK(distance({4, -2}, neighbour({4, -2}, d)) == 1);
}

TEST_CASE("hex: directions are named by orientation", "[board]") {
  CHECK(kDirections[2] == Hex{0, -1});
  CHECK(direction_name(2, Orientation::flat) == "n");
  CHECK(direction_name(0, Orientation::pointy) == "e");
  CHECK(direction_of("sw", Orientation::flat) == 4);
  CHECK_FALSE(direction_of("e", Orientation::flat).has_value());
}

TEST_CASE("hex: ring k has 6k distinct hexes at distance k, each next to the one before",
          "[board]") {
  for (const SpiralOrder o :
       {SpiralOrder{2, Winding::clockwise}, SpiralOrder{4, Winding::counter_clockwise}})
    for (int k = 0; k <= 4; ++k) {
      std::vector<Hex> r;
      ring({1, -2}, k, o, r);
      REQUIRE(r.size() == static_cast<std::size_t>(k == 0 ? 1 : 6 * k));
      for (std::size_t i = 0; i < r.size(); ++i) {
        CHECK(distance({1, -2}, r[i]) == k);
        if (k > 0) CHECK(distance(r[i], r[(i + 1) % r.size()]) == 1);
        CHECK(std::count(r.begin(), r.end(), r[i]) == 1);
      }
    }
}

TEST_CASE("hex: spiral order of the map strings: centre, then each ring from north, clockwise",
          "[board]") {
  // flat-top, start north, clockwise: a 6-player map's home slots (string positions 19, 22,
  // ..., 34) are the corners of ring 3, and ring 1 goes n, ne, se, s, sw, nw
  const SpiralOrder ti4{2, Winding::clockwise};
  CHECK(spiral_hex({0, 0}, 0, ti4) == Hex{0, 0});
  CHECK(spiral_hex({0, 0}, 1, ti4) == Hex{0, -1});  // north
  CHECK(spiral_hex({0, 0}, 2, ti4) == Hex{1, -1});  // north-east
  CHECK(spiral_hex({0, 0}, 3, ti4) == Hex{1, 0});   // south-east
  CHECK(spiral_hex({0, 0}, 6, ti4) == Hex{-1, 0});  // north-west
  CHECK(spiral_hex({0, 0}, 7, ti4) == Hex{0, -2});  // ring 2 starts north again
  CHECK(spiral_hex({0, 0}, 8, ti4) == Hex{1, -2});
  CHECK(spiral_hex({0, 0}, 18, ti4) == Hex{-1, -1});
  CHECK(spiral_hex({0, 0}, 19, ti4) == Hex{0, -3});   // home slot: north corner of ring 3
  CHECK(spiral_hex({0, 0}, 22, ti4) == Hex{3, -3});   // north-east corner
  CHECK(spiral_hex({0, 0}, 25, ti4) == Hex{3, 0});    // south-east corner
  CHECK(spiral_hex({0, 0}, 28, ti4) == Hex{0, 3});    // south
  CHECK(spiral_hex({0, 0}, 31, ti4) == Hex{-3, 3});   // south-west
  CHECK(spiral_hex({0, 0}, 34, ti4) == Hex{-3, 0});   // north-west
  CHECK(spiral_hex({0, 0}, 36, ti4) == Hex{-1, -2});  // the last of ring 3
  // another start and winding: Red Blob Games' ring order (start south-west, counter-clockwise)
  const SpiralOrder rb{4, Winding::counter_clockwise};
  CHECK(spiral_hex({0, 0}, 1, rb) == Hex{-1, 1});
  CHECK(spiral_hex({0, 0}, 2, rb) == Hex{0, 1});
  for (const SpiralOrder o : {ti4, rb})
    for (std::int64_t i = 0; i < 400; ++i) {
      CHECK(spiral_index({2, -1}, spiral_hex({2, -1}, i, o), o) == i);
    }
}

TEST_CASE("hex: a line through hex centres is the same both ways", "[board]") {
  const std::vector<Hex> straight{{0, 0}, {1, 0}, {2, 0}, {3, 0}};
  CHECK(line_of({0, 0}, {3, 0}, +1) == straight);
  CHECK(line_of({0, 0}, {3, 0}, -1) == straight);
  const std::vector<Hex> slant = line_of({0, 0}, {3, -1}, +1);
  CHECK(slant == line_of({0, 0}, {3, -1}, -1));
  CHECK(slant.size() == 4);
  CHECK(line_of({2, 2}, {2, 2}, 1) == std::vector<Hex>{{2, 2}});
}

TEST_CASE("hex: a line along hex edges yields the hexes on both sides", "[board]") {
  // (0,0) to (2,-1) runs along the edge between (1,-1) and (1,0)
  CHECK(line_of({0, 0}, {2, -1}, +1) == std::vector<Hex>{{0, 0}, {1, 0}, {2, -1}});
  CHECK(line_of({0, 0}, {2, -1}, -1) == std::vector<Hex>{{0, 0}, {1, -1}, {2, -1}});
  CHECK(line_of({0, 0}, {4, -2}, +1) ==
        std::vector<Hex>{{0, 0}, {1, 0}, {2, -1}, {3, -1}, {4, -2}});
  CHECK(line_of({0, 0}, {4, -2}, -1) ==
        std::vector<Hex>{{0, 0}, {1, -1}, {2, -1}, {3, -2}, {4, -2}});
  // edge-running lines of length 2 to 4 in all six diagonal directions: at every odd step the
  // two lines are the two different hexes flanking the edge
  const Hex diagonals[6] = {{2, -1}, {1, 1}, {-1, 2}, {-2, 1}, {-1, -1}, {1, -2}};
  for (const Hex d : diagonals)
    for (int n = 1; n <= 2; ++n) {
      const Hex from{1, 1}, to = from + d * n;
      const auto a = line_of(from, to, +1), b = line_of(from, to, -1);
      REQUIRE(a.size() == static_cast<std::size_t>(2 * n + 1));
      REQUIRE(b.size() == a.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i % 2 == 1) {
          CHECK(a[i] != b[i]);
          CHECK(distance(a[i], b[i]) == 1);
        } else {
          CHECK(a[i] == b[i]);
        }
        if (i > 0) CHECK(distance(a[i - 1], a[i]) == 1);
        if (i > 0) CHECK(distance(b[i - 1], b[i]) == 1);
      }
    }
}

TEST_CASE("hex: offset coordinates of rectangular boards, both ways", "[board]") {
  // odd_r: odd rows shoved right; row 1 column 0 is the south-east neighbour of row 0 column 0
  CHECK(from_offset(0, 1, OffsetLayout::odd_r) == Hex{0, 1});
  CHECK(from_offset(0, 2, OffsetLayout::odd_r) == Hex{-1, 2});
  CHECK(from_offset(0, 1, OffsetLayout::even_r) == Hex{-1, 1});
  CHECK(from_offset(1, 0, OffsetLayout::odd_q) == Hex{1, 0});
  CHECK(from_offset(2, 0, OffsetLayout::odd_q) == Hex{2, -1});
  CHECK(from_offset(1, 0, OffsetLayout::even_q) == Hex{1, -1});
  for (const OffsetLayout o :
       {OffsetLayout::odd_r, OffsetLayout::even_r, OffsetLayout::odd_q, OffsetLayout::even_q})
    for (int row = -3; row <= 11; ++row)
      for (int col = -3; col <= 13; ++col) {
        std::int32_t c = 0, r = 0;
        to_offset(from_offset(col, row, o), o, c, r);
        CHECK((c == col && r == row));
      }
  // in odd_r, each row's hexes are neighbours left to right, and a row's hexes touch the next
  CHECK(distance(from_offset(3, 4, OffsetLayout::odd_r), from_offset(4, 4, OffsetLayout::odd_r)) ==
        1);
  CHECK(distance(from_offset(3, 4, OffsetLayout::odd_r), from_offset(3, 5, OffsetLayout::odd_r)) ==
        1);
  CHECK(distance(from_offset(3, 5, OffsetLayout::odd_r), from_offset(4, 6, OffsetLayout::odd_r)) ==
        1);
}

TEST_CASE("board: one entity per hex, one hex per entity", "[board]") {
  Board b;
  CHECK(b.empty());
  b.place({0, 0}, 3);
  b.place({0, -1}, 4);
  b.add({5, 5});
  CHECK(b.at({0, 0}) == 3);
  CHECK(b.at({5, 5}) == -1);
  CHECK(b.contains({5, 5}));
  CHECK_FALSE(b.contains({6, 5}));
  CHECK(b.hex_of(4) == Hex{0, -1});
  CHECK_FALSE(b.hex_of(7).has_value());
  CHECK_THROWS_AS(b.place({0, 0}, 4), std::invalid_argument);
  b.place({1, 0}, 3);  // moves
  CHECK(b.at({0, 0}) == -1);
  CHECK(b.hex_of(3) == Hex{1, 0});
  CHECK(b.cells().size() == 4);
  CHECK(b.cells().front().hex == Hex{0, -1});  // sorted by r, then q
  CHECK_THROWS_AS(b.add({kMaxCoordinate + 1, 0}), std::invalid_argument);
}

TEST_CASE("board: adjacency is hex neighbours of placed entities plus links, each once",
          "[board]") {
  State s;
  for (int i = 0; i < 6; ++i) s.add(Entity{});
  // 0 at the centre, 1 north of it, 2 two steps away, 3 linked to 0 and also its neighbour,
  // 5 is a unit located in 1
  s.board.place({0, 0}, 0);
  s.board.place({0, -1}, 1);
  s.board.place({0, 2}, 2);
  s.board.place({1, 0}, 3);
  s.at(5).location = 1;
  s.links.push_back({0, 3, sym("wormhole")});
  s.links.push_back({0, 4, sym("wormhole")});
  std::vector<EntityId> adj;
  s.adjacent(0, kNoSym, adj);
  CHECK(adj == std::vector<EntityId>{3, 1, 4});  // directions 0 (se), 2 (n); then links
  s.adjacent(0, sym("hex"), adj);
  CHECK(adj == std::vector<EntityId>{3, 1});
  s.adjacent(0, sym("wormhole"), adj);
  CHECK(adj == std::vector<EntityId>{3, 4});
  CHECK(s.is_adjacent(0, 1));
  CHECK(s.is_adjacent(4, 0));
  CHECK_FALSE(s.is_adjacent(0, 2));
  CHECK_FALSE(s.is_adjacent(0, 0));
  // what makes two entities adjacent: the hex first, then each link kind once
  std::vector<Sym> kinds;
  s.links.push_back({3, 0, sym("wormhole")});
  s.links.push_back({0, 4, kNoSym});
  s.link_kinds(0, 3, kinds);
  CHECK(kinds == std::vector<Sym>{sym("hex"), sym("wormhole")});
  s.link_kinds(4, 0, kinds);
  CHECK(kinds == std::vector<Sym>{sym("wormhole"), kNoSym});
  s.link_kinds(0, 2, kinds);
  CHECK(kinds.empty());
  s.link_kinds(0, 0, kinds);
  CHECK(kinds.empty());
  s.links.resize(2);
  CHECK(s.hex_of(5) == Hex{0, -1});  // through its location
  CHECK_FALSE(s.hex_of(4).has_value());
  // the board is part of the state's value
  State copy;
  copy = s;
  s.board.place({3, 3}, 4);
  CHECK_FALSE(copy.board.hex_of(4).has_value());
  copy = s;
  CHECK(copy.board.hex_of(4) == Hex{3, 3});
}

// --- the TI4 galaxy from data (scripts/ti4/galaxy.lua), on the fixture tiles of
// tests/fixtures/galaxy/galaxy-fixture

#include <set>

#include "base/error.hpp"
#include "content/content.hpp"
#include "fixtures.hpp"
#include "script/engine.hpp"

namespace {

std::shared_ptr<const Content> load_galaxy_fixture() {
  LoadRequest req;
  req.root = RB_SOURCE_DIR;
  req.search = {rb::testing::test_dir() / "fixtures" / "galaxy"};
  req.ruleset = "ti4";
  req.packs = {"galaxy-fixture"};
  return load_content(req);
}

constexpr std::string_view kSides = R"(
[attacker]
units = { cruiser = 1 }
[defender]
units = { destroyer = 1 }
)";

struct Galaxy {
  explicit Galaxy(std::string_view top, std::string_view system = "[system]\ntile = 18\n")
      : content(load_galaxy_fixture()), engine(content) {
    const std::string text = std::string(top) + "\n" + std::string(kSides) + std::string(system);
    engine.setup(toml::parse(text), "scenario.toml", state);
  }
  int tile_of(EntityId e) const {
    return state.at(e).attr[static_cast<std::size_t>(content->ruleset.attribute("tile")->slot)];
  }
  EntityId system(int tile) const {
    for (EntityId e = 0; e < static_cast<EntityId>(state.entities.size()); ++e)
      if (sym_name(state.at(e).kind) == "system" && state.board.hex_of(e) && tile_of(e) == tile)
        return e;
    FAIL("no system of tile " << tile);
    return kNoEntity;
  }
  std::set<int> adjacent_tiles(int tile, std::string_view kind = {}) const {
    std::vector<EntityId> adj;
    state.adjacent(system(tile), kind.empty() ? kNoSym : sym(kind), adj);
    std::set<int> out;
    for (EntityId e : adj) out.insert(tile_of(e));
    return out;
  }
  std::shared_ptr<const Content> content;
  Engine engine;
  State state;
};

std::string setup_error(std::string_view top, std::string_view system = "[system]\ntile = 18\n") {
  try {
    Galaxy g(top, system);
  } catch (const ContentError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("galaxy: the Learn to Play 6-player map by name: Mecatol Rex and the ring-1 tiles",
          "[board][galaxy]") {
  const Galaxy g("map = 'learn_to_play_6p'");
  CHECK(g.state.role(sym("active_system")) == g.system(18));
  CHECK(g.state.board.hex_of(g.system(18)) == Hex{0, 0});
  // the map string's first six tiles are ring 1: Mecatol Rex is adjacent to exactly those
  CHECK(g.adjacent_tiles(18) == std::set<int>{22, 44, 19, 42, 24, 45});
  CHECK(g.state.board.hex_of(g.system(22)) == Hex{0, -1});  // position 1: north
  CHECK(g.state.board.hex_of(g.system(26)) == Hex{-2, 1});  // position 16
  CHECK(g.state.board.cells().size() == 37);                // 31 tiles and 6 home slots
  // Lodor carries its planet, with the planet record's values
  std::vector<EntityId> planets;
  for (EntityId e = 0; e < static_cast<EntityId>(g.state.entities.size()); ++e)
    if (g.state.at(e).location == g.system(26)) planets.push_back(e);
  REQUIRE(planets.size() == 1);
  CHECK(sym_name(g.state.at(planets[0]).type) == "fx_lodor");
  CHECK(g.state.at(planets[0])
            .attr[static_cast<std::size_t>(g.content->ruleset.attribute("resources")->slot)] == 3);
}

TEST_CASE("galaxy: identical wormholes are adjacent (alpha with alpha, beta with beta)",
          "[board][galaxy]") {
  const Galaxy g("map = 'learn_to_play_6p'");
  // Lodor (26, alpha) at position 16 and 39 (alpha) at position 10 are 4 hexes apart
  CHECK(distance(*g.state.board.hex_of(g.system(26)), *g.state.board.hex_of(g.system(39))) == 4);
  CHECK(g.adjacent_tiles(26, "wormhole") == std::set<int>{39});
  CHECK(g.adjacent_tiles(39).count(26) == 1);
  CHECK(g.adjacent_tiles(25, "wormhole") == std::set<int>{40});  // Quann and 40: beta
  CHECK(g.adjacent_tiles(26).count(40) == 0);                    // alpha is not beta
  CHECK(g.state.is_adjacent(g.system(40), g.system(25)));
}

TEST_CASE("galaxy: a map string with its own centre and gaps, systems by coordinates",
          "[board][galaxy]") {
  const Galaxy a("map = '{26} 19 -1 -1 39 -1 -1'", "[system]\nhex = [0, 0]\n");
  CHECK(a.state.board.cells().size() == 3);
  CHECK(a.state.board.hex_of(a.system(26)) == Hex{0, 0});
  CHECK(a.state.board.hex_of(a.system(39)) == Hex{0, 1});  // position 4: south
  CHECK(a.adjacent_tiles(26) == std::set<int>{19, 39});
  CHECK(a.adjacent_tiles(26, "hex") == std::set<int>{19, 39});

  const Galaxy b(
      "systems = [{ tile = 26, hex = [0, 0] }, { tile = 19, hex = [1, -1] }, "
      "{ tile = 39, hex = [3, 0] }, { tile = 0, hex = [-1, 0] }]",
      "[system]\ntile = 26\n");
  CHECK(b.state.role(sym("active_system")) == b.system(26));
  CHECK(b.adjacent_tiles(26, "hex") == std::set<int>{19, 0});
  CHECK(b.adjacent_tiles(26) == std::set<int>{19, 0, 39});
}

TEST_CASE("galaxy: a space combat runs in a map's system", "[board][galaxy]") {
  Galaxy g("map = 'learn_to_play_6p'", "[system]\ntile = 26\n");
  State run = g.state;
  RunResult result;
  g.engine.run("space_combat", run, RunOptions{}, result);
  CHECK(result.outcome >= 0);
}

TEST_CASE("galaxy: bad maps are rejected with their line", "[board][galaxy]") {
  CHECK(rb::testing::contains(setup_error("map = '22 99'"), "scenario.toml:1: tile 99 is not"));
  // a hyperlane (83A2) is read; its tile comes with Prophecy of Kings, not loaded here
  CHECK(rb::testing::contains(setup_error("map = '22 83A2'"), "tile 83 is not defined"));
  CHECK(rb::testing::contains(setup_error("map = '22 83A9'"), "a hyperlane's rotation is 0 to 5"));
  CHECK(rb::testing::contains(setup_error("map = 'learn_to_play'"),
                              "unknown map 'learn_to_play'; known: learn_to_play_6p"));
  CHECK(
      rb::testing::contains(setup_error("map = '22 44'", "[system]\n"), "names the active system"));
  CHECK(rb::testing::contains(setup_error("map = '22 44'", "[system]\ntile = 26\n"),
                              "tile 26 is not on the map"));
  CHECK(rb::testing::contains(setup_error("systems = [{ tile = 26, hex = [0, 0] }, "
                                          "{ tile = 19, hex = [0, 0] }]"),
                              "two tiles at hex [0, 0]"));
  CHECK(rb::testing::contains(setup_error("", "[system]\ntile = 26\n"), "has no map"));
}

TEST_CASE("galaxy: a map places a system tile once; numbers it cannot read are errors at its line",
          "[board][galaxy]") {
  // the same system tile twice (it made two systems that the path search crossed as one tile)
  CHECK(rb::testing::contains(
      setup_error("map = '22 44 22'"),
      "scenario.toml:1: map: tile 22 is at position 1 and again at position 3"));
  CHECK(rb::testing::contains(
      setup_error("map = '{22} 44 22'"),
      "scenario.toml:1: map: tile 22 is at position 0 and again at position 2"));
  CHECK(rb::testing::contains(
      setup_error("systems = [{ tile = 26, hex = [0, 0] }, { tile = 26, hex = [1, 0] }]"),
      "scenario.toml:1: tile 26 is placed by systems.1 and again by systems.2"));
  // home slots and no-tile hexes repeat, and so do hyperlane tiles (tests/hyperlanes.toml)
  CHECK(setup_error("map = '22 0 0 -1 -1 44'", "[system]\ntile = 22\n") == "no error");
  // a number too large for an integer, in the centre or as a hyperlane's tile, named whole
  CHECK(rb::testing::contains(setup_error("map = '{99999999999999999999} 22'"),
                              "scenario.toml:1: map: '{99999999999999999999}': the centre tile"));
  CHECK(rb::testing::contains(setup_error("map = '22 99999999999999999999A'"),
                              "scenario.toml:1: map: '99999999999999999999A' at position 2"));
  CHECK(rb::testing::contains(setup_error("map = '{-2} 22'"), "scenario.toml:1: map: '{-2}'"));
  // -0 is not a home slot (0) nor no tile (-1)
  CHECK(rb::testing::contains(setup_error("map = '22 -0 44'"),
                              "scenario.toml:1: map: '-0' at position 2 is not a tile number"));
}

TEST_CASE("hex: the segment walk meets every hex the segment does, and says how", "[board]") {
  using M = std::vector<std::pair<Hex, Meet>>;
  // along a direction: through each hex between, nothing touched; the ends left out
  CHECK(walk_of({0, 0}, {3, 0}) == M{{{1, 0}, Meet::through}, {{2, 0}, Meet::through}});
  CHECK(walk_of({0, 0}, {1, 0}).empty());
  CHECK(walk_of({2, 2}, {2, 2}).empty());
  // along the edge between two hexes (a diagonal): both only touched, one on each side
  // (dq * r - dr * q > 0: left); hex_line's two lines have one each
  CHECK(walk_of({0, 0}, {1, 1}) == M{{{1, 0}, Meet::right}, {{0, 1}, Meet::left}});
  CHECK(walk_of({1, 1}, {0, 0}) == M{{{0, 1}, Meet::right}, {{1, 0}, Meet::left}});
  CHECK(walk_of({0, 0}, {2, -1}) == M{{{1, 0}, Meet::left}, {{1, -1}, Meet::right}});
  // through two corners: on into one hex past each, the other touched at the corner only
  CHECK(walk_of({0, 0}, {5, -1}) == M{{{1, 0}, Meet::through},
                                      {{2, -1}, Meet::right},
                                      {{2, 0}, Meet::through},
                                      {{3, -1}, Meet::through},
                                      {{3, 0}, Meet::left},
                                      {{4, -1}, Meet::through}});
  // a walk and its reverse meet the same hexes
  for (const Hex b : {Hex{5, -1}, Hex{4, 2}, Hex{-3, 5}, Hex{6, -3}, Hex{-2, -2}}) {
    std::vector<Hex> there, back;
    for (const auto& [h, m] : walk_of({0, 0}, b)) there.push_back(h);
    for (const auto& [h, m] : walk_of(b, {0, 0})) back.push_back(h);
    std::sort(there.begin(), there.end(),
              [](Hex x, Hex y) { return x.q != y.q ? x.q < y.q : x.r < y.r; });
    std::sort(back.begin(), back.end(),
              [](Hex x, Hex y) { return x.q != y.q ? x.q < y.q : x.r < y.r; });
    CHECK(there == back);
  }
}

TEST_CASE("galaxy: the board through ctx (a hook of the fixture pack reads it)",
          "[board][galaxy]") {
  // Lodor (26) at [-2, 1] in the Learn to Play map: six hex neighbours and 39 by its alpha
  Galaxy g("map = 'learn_to_play_6p'", "[system]\ntile = 26\n");
  State run = g.state;
  RunResult r;
  g.engine.run("space_combat", run, RunOptions{}, r);
  CHECK(r.metric("adjacent") == 7);
  CHECK(r.metric("adjacent_hex") == 6);
  CHECK(r.metric("adjacent_wormhole") == 1);
  CHECK(r.metric("is_adjacent_wormhole") == 1);
  CHECK(r.metric("is_adjacent_centre") == 0);
  CHECK(r.metric("q") == -2);
  CHECK(r.metric("r") == 1);
  CHECK(r.metric("unit_r") == 1);
  CHECK(r.metric("spiral_index") == 16);
  CHECK(r.metric("at_hex_is_sys") == 1);
  CHECK(r.metric("distance_to_centre") == 2);
  CHECK(r.metric("ring3") == 18);
  CHECK(r.metric("neighbours_on_board") == 3);  // a home slot on the rim: 3 of 6 exist
  CHECK(r.metric("north_r") == -1);
  CHECK(r.metric("line_a_r") == 0);
  CHECK(r.metric("line_b_r") == -1);
  // ctx:hex_sight: a system obstructs
  CHECK(r.metric("sight_blocked") == 1);
  CHECK(r.metric("sight_what") == 1);
  CHECK(r.metric("sight_at_r") == -1);
  CHECK(r.metric("sight_sides") == 1);
  CHECK(r.metric("sight_left_q") == 0);
  CHECK(r.metric("sight_right_q") == 1);
  CHECK(r.metric("sight_one_side") == 1);
  CHECK(r.metric("sight_clear") == 1);
  CHECK(r.metric("sight_off_board") == 1);
}

TEST_CASE("red alert: a column past 32 bits is an error at the scenario's line, named whole",
          "[board]") {
  // 4294967302 is 2^32 + 6: cut to 32 bits it was "hex coordinate 6" from inside the board call
  LoadRequest req;
  req.root = RB_SOURCE_DIR;
  req.ruleset = "red_alert";
  Engine engine(load_content(req));
  State state;
  const std::string text =
      "attacker = { units = [{ name = 'a', type = 'cruiser', hex = [6, 6] }] }\n"
      "defender = { units = [{ name = 't', type = 'cruiser', hex = [4294967302, 4] }] }\n"
      "combat = { attacker = 'a', target = 't' }\n";
  std::string error = "no error";
  try {
    engine.setup(toml::parse(text), "scenario.toml", state);
  } catch (const ContentError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(rb::testing::contains(
      error,
      "scenario.toml:2: defender.units.1.hex [4294967302, 4] is not a hex of the battlefield"));
}
