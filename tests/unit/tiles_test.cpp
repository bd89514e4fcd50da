// The TI4 galaxy as data (content/ti4-base/tiles.toml, content/ti4-pok/tiles.toml), loaded from
// the real packs: every tile once, every planet on a tile that exists, the anomaly and wormhole
// counts and the resource and influence totals of each pack as the two sources give them
// (content/ti4-base/README.md and content/ti4-pok/README.md, "Tiles"), and a few spot values.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "content/content.hpp"

using namespace rb;

namespace {

std::shared_ptr<const Content> load_tiles() {
  LoadRequest req;
  req.root = RB_SOURCE_DIR;
  req.packs = {"ti4-base", "ti4-pok"};
  return load_content(req);
}

// One attribute of a record, or nothing when the record does not set it.
std::optional<std::int32_t> get(const Content& c, const Record& r, std::string_view name) {
  const AttributeDef* a = c.ruleset.attribute(name);
  REQUIRE(a != nullptr);
  const auto slot = static_cast<std::size_t>(a->slot);
  if (!r.has[slot]) return std::nullopt;
  return r.attr[slot];
}
std::string symbol(const Content& c, const Record& r, std::string_view name) {
  const auto v = get(c, r, name);
  return v ? std::string(sym_name(static_cast<Sym>(*v))) : "";
}
const Record& find(const Content& c, std::string_view ref, std::string_view kind) {
  const int i = c.find_record(ref, kind);
  INFO(kind << "/" << ref);
  REQUIRE(i >= 0);
  return c.records[static_cast<std::size_t>(i)];
}

struct PackTotals {
  int systems = 0, planets = 0, resources = 0, influence = 0, homes = 0;
  std::map<std::string, int> anomalies, wormholes;
};

}  // namespace

TEST_CASE("ti4 tiles: every tile 1-82 once, 83-91 once per side, every planet on one of them",
          "[ti4][tiles]") {
  const auto c = load_tiles();
  std::map<int, int> systems_per_tile;
  std::set<int> hyperlane_tiles;
  for (const Record& r : c->records) {
    if (r.removed || sym_name(r.kind) != "system") continue;
    const auto tile = get(*c, r, "tile");
    INFO(r.id);
    REQUIRE(tile);
    ++systems_per_tile[*tile];
    // base tiles come from the base pack, Prophecy of Kings tiles from its pack
    CHECK(r.pack == (*tile <= 51 ? "ti4-base" : "ti4-pok"));
    const std::string lanes = symbol(*c, r, "hyperlanes");
    CHECK(lanes.empty() == (*tile <= 82));
    if (!lanes.empty()) hyperlane_tiles.insert(*tile);
    // "a-b c-d ...": edge pairs, 0 <= a < b <= 5
    for (std::size_t i = 0; i < lanes.size(); i += 4) {
      INFO(lanes);
      REQUIRE(i + 3 <= lanes.size());
      CHECK(lanes[i] >= '0');
      CHECK(lanes[i] < lanes[i + 2]);
      CHECK(lanes[i + 2] <= '5');
      CHECK(lanes[i + 1] == '-');
      if (i + 3 < lanes.size()) CHECK(lanes[i + 3] == ' ');
    }
  }
  for (int t = 1; t <= 91; ++t) {
    INFO("tile " << t);
    CHECK(systems_per_tile[t] == (t <= 82 ? 1 : 2));  // hyperlanes: sides A and B
  }
  CHECK(systems_per_tile.size() == 91);
  CHECK(hyperlane_tiles.size() == 9);

  int planets = 0;
  for (const Record& r : c->records) {
    if (r.removed || sym_name(r.kind) != "planet") continue;
    ++planets;
    INFO(r.id);
    const auto tile = get(*c, r, "tile");
    REQUIRE(tile);
    CHECK(*tile >= 1);
    CHECK(*tile <= 82);  // hyperlanes hold no planets
    CHECK(r.pack == (*tile <= 51 ? "ti4-base" : "ti4-pok"));
    CHECK(get(*c, r, "resources"));
    CHECK(get(*c, r, "influence"));
    const std::string trait = symbol(*c, r, "trait");
    const std::string specialty = symbol(*c, r, "specialty");
    CHECK((trait.empty() || trait == "cultural" || trait == "hazardous" || trait == "industrial"));
    CHECK((specialty.empty() || specialty == "biotic" || specialty == "cybernetic" ||
           specialty == "propulsion" || specialty == "warfare"));
    // home and Mecatol Rex planets have no trait; every other planet has one
    const Record& system = find(*c, "tile_" + std::to_string(*tile), "system");
    const bool home = get(*c, system, "home").value_or(0) != 0;
    CHECK(trait.empty() == (home || *tile == 18));
  }
  CHECK(planets == 98);
}

TEST_CASE("ti4 tiles: anomaly and wormhole counts, homes and resource totals per pack",
          "[ti4][tiles]") {
  const auto c = load_tiles();
  std::map<std::string, PackTotals> packs;
  for (const Record& r : c->records) {
    if (r.removed) continue;
    PackTotals& p = packs[r.pack];
    if (sym_name(r.kind) == "system") {
      ++p.systems;
      if (get(*c, r, "home").value_or(0)) ++p.homes;
      if (const std::string a = symbol(*c, r, "anomaly"); !a.empty()) ++p.anomalies[a];
      for (const char* key : {"wormhole", "wormhole_2", "wormhole_3"})
        if (const std::string w = symbol(*c, r, key); !w.empty()) ++p.wormholes[w];
    } else if (sym_name(r.kind) == "planet") {
      ++p.planets;
      p.resources += get(*c, r, "resources").value_or(0);
      p.influence += get(*c, r, "influence").value_or(0);
    }
  }
  using Counts = std::map<std::string, int>;
  const PackTotals& base = packs["ti4-base"];
  CHECK(base.systems == 51);
  CHECK(base.homes == 17);  // 1-16 and 51 (Creuss); 17, the Creuss Gate, is not a home system
  CHECK(base.planets == 59);
  CHECK(base.resources == 110);
  CHECK(base.influence == 93);
  CHECK(base.anomalies ==
        Counts{{"asteroid_field", 2}, {"gravity_rift", 1}, {"nebula", 1}, {"supernova", 1}});
  CHECK(base.wormholes == Counts{{"alpha", 2}, {"beta", 2}, {"delta", 2}});

  const PackTotals& pok = packs["ti4-pok"];
  CHECK(pok.systems == 31 + 18);  // 52-82, and 83-91 with two sides each
  CHECK(pok.homes == 7);          // 52-58
  CHECK(pok.planets == 39);
  CHECK(pok.resources == 68);
  CHECK(pok.influence == 61);
  // nebulae: 56 (the Empyrean home) and 68; supernovae: 80 and 81 (the Muaat hero's)
  CHECK(pok.anomalies ==
        Counts{{"asteroid_field", 1}, {"gravity_rift", 1}, {"nebula", 2}, {"supernova", 2}});
  // alpha: 79 and the active nexus; beta: 64 and the active nexus; gamma: the nexus (82)
  CHECK(pok.wormholes == Counts{{"alpha", 2}, {"beta", 2}, {"gamma", 1}});
}

TEST_CASE("ti4 tiles: spot values", "[ti4][tiles]") {
  const auto c = load_tiles();
  auto planet = [&](std::string_view id, int tile, int res, int inf, std::string_view trait,
                    std::string_view specialty, bool legendary) {
    const Record& p = find(*c, id, "planet");
    INFO(p.id);
    CHECK(get(*c, p, "tile") == tile);
    CHECK(get(*c, p, "resources") == res);
    CHECK(get(*c, p, "influence") == inf);
    CHECK(symbol(*c, p, "trait") == trait);
    CHECK(symbol(*c, p, "specialty") == specialty);
    CHECK((get(*c, p, "legendary").value_or(0) != 0) == legendary);
  };
  planet("mecatol_rex", 18, 1, 6, "", "", false);
  planet("maaluuk", 9, 0, 2, "", "", false);  // the known data error elsewhere: not 2/0
  planet("lodor", 26, 3, 1, "cultural", "", false);
  planet("wellon", 19, 1, 2, "industrial", "cybernetic", false);
  planet("meer", 37, 0, 4, "hazardous", "warfare", false);
  planet("hope_s_end", 66, 3, 0, "hazardous", "", true);
  planet("primor", 65, 2, 1, "cultural", "", true);
  planet("mallice", 82, 0, 3, "cultural", "", true);
  planet("cormund", 67, 2, 0, "hazardous", "", false);
  planet("cealdri", 73, 0, 2, "cultural", "cybernetic", false);
  planet("0_0_0", 6, 5, 0, "", "", false);

  auto system = [&](std::string_view id) -> const Record& { return find(*c, id, "system"); };
  CHECK(symbol(*c, system("tile_26"), "wormhole") == "alpha");
  CHECK(symbol(*c, system("tile_25"), "wormhole") == "beta");
  CHECK(symbol(*c, system("tile_17"), "wormhole") == "delta");
  CHECK_FALSE(get(*c, system("tile_17"), "home"));
  CHECK(symbol(*c, system("tile_51"), "wormhole") == "delta");
  CHECK(get(*c, system("tile_51"), "off_map") == 1);
  CHECK(symbol(*c, system("tile_67"), "anomaly") == "gravity_rift");
  CHECK(symbol(*c, system("tile_68"), "anomaly") == "nebula");
  CHECK(symbol(*c, system("tile_81"), "anomaly") == "supernova");
  CHECK(symbol(*c, system("tile_79"), "anomaly") == "asteroid_field");
  CHECK(symbol(*c, system("tile_79"), "wormhole") == "alpha");
  CHECK(symbol(*c, system("tile_82"), "wormhole") == "gamma");  // inactive side: gamma only
  CHECK(symbol(*c, system("tile_82"), "wormhole_2") == "alpha");
  CHECK(symbol(*c, system("tile_82"), "wormhole_3") == "beta");
  CHECK(symbol(*c, system("tile_18"), "wormhole").empty());
  CHECK(symbol(*c, system("tile_83a"), "hyperlanes") == "1-4");
  CHECK(symbol(*c, system("tile_87a"), "hyperlanes") == "0-2 2-4 2-5");
  CHECK(symbol(*c, system("tile_91b"), "hyperlanes") == "0-2 0-3");
}
