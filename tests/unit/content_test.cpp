// Content loader tests on the fixture root (tests/fixtures/root): the mini ruleset, load order,
// overrides and removals with provenance, short names, declarative hooks and modifiers.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

const Record& record(const Content& c, std::string_view ref, std::string_view kind = {}) {
  const int r = c.find_record(ref, kind);
  REQUIRE(r >= 0);
  return c.records[static_cast<std::size_t>(r)];
}

std::int32_t attr(const Content& c, const Record& r, std::string_view name) {
  const AttributeDef* a = c.ruleset.attribute(name);
  REQUIRE(a != nullptr);
  return r.attr[static_cast<std::size_t>(a->slot)];
}

}  // namespace

TEST_CASE("content: the mini ruleset declares its kinds, attributes, dice and windows",
          "[content]") {
  const auto c = load_mini({});
  const Ruleset& r = c->ruleset;
  CHECK(r.id == "mini");
  CHECK(r.has_kind("player"));  // implicit
  CHECK(r.has_kind("unit"));
  CHECK(r.has_scope("round"));
  REQUIRE(r.attribute("anomaly") != nullptr);
  CHECK(r.attribute("anomaly")->type == AttrType::symbol);
  REQUIRE(r.die("d10") >= 0);
  const DieType& d10 = r.dice[static_cast<std::size_t>(r.die("d10"))];
  CHECK(d10.numeric());
  CHECK(d10.labels.back() == "0");
  CHECK(d10.face_of_value(10) == 9);
  REQUIRE(r.die("attack") >= 0);
  CHECK(r.dice[static_cast<std::size_t>(r.die("attack"))].sides == 8);
  CHECK(r.windows.size() == 5);
  CHECK(r.decision("mini.retreat") != nullptr);
  // the base pack comes with the ruleset
  CHECK(pack_ids(*c) == std::vector<std::string>{"mini-base"});
  CHECK(attr(*c, record(*c, "unit/cruiser"), "combat") == 7);
}

TEST_CASE("content: packs load in dependency order, ties broken by id", "[content]") {
  // order-a depends on order-c; order-b optionally depends on order-a; order-d on the base only
  const auto c = load_mini({"order-d", "order-b", "order-a"});
  CHECK(pack_ids(*c) ==
        std::vector<std::string>{"mini-base", "order-c", "order-a", "order-b", "order-d"});
  // the order does not depend on the order the packs were asked for
  const auto again = load_mini({"order-a", "order-b", "order-d"});
  CHECK(pack_ids(*again) == pack_ids(*c));
}

TEST_CASE("content: an optional dependency orders only when it is loaded", "[content]") {
  // without order-a, order-b waits for nothing but the base and sorts by id before order-d
  const auto c = load_mini({"order-d", "order-b"});
  CHECK(pack_ids(*c) == std::vector<std::string>{"mini-base", "order-b", "order-d"});
  // a required dependency is pulled in even when not asked for
  const auto d = load_mini({"order-a"});
  CHECK(pack_ids(*d) == std::vector<std::string>{"mini-base", "order-c", "order-a"});
}

TEST_CASE("content: an override changes a record and remembers which pack changed it",
          "[content]") {
  const auto plain = load_mini({});
  const Record& before = record(*plain, "mini-base:unit/cruiser");
  CHECK(before.changed_by == "mini-base");

  const auto c = load_mini({"tweak"});
  const Record& cruiser = record(*c, "mini-base:unit/cruiser");
  CHECK(attr(*c, cruiser, "combat") == 6);
  CHECK(cruiser.text.at("name") == "Cruiser (tweaked)");
  CHECK(cruiser.pack == "mini-base");
  CHECK(cruiser.changed_by == "tweak");
  CHECK(cruiser.id == "mini-base:unit/cruiser");
  // untouched records keep their provenance
  CHECK(record(*c, "unit/fighter").changed_by == "mini-base");
}

TEST_CASE("content: a removed record is gone from lookups but remembers who removed it",
          "[content]") {
  const auto plain = load_mini({});
  CHECK(plain->find_record("action_card/boost") >= 0);
  const auto c = load_mini({"tweak"});
  CHECK(c->find_record("mini-base:action_card/boost") == -1);
  CHECK(c->find_record("action_card/boost") == -1);
  CHECK(c->find_record("boost", "action_card") == -1);
  const auto it = c->record_index.find("mini-base:action_card/boost");
  REQUIRE(it != c->record_index.end());
  const Record& removed = c->records[static_cast<std::size_t>(it->second)];
  CHECK(removed.removed);
  CHECK(removed.changed_by == "tweak");
  CHECK_THROWS_WITH(c->require_record("action_card/boost", {}, "x.toml", 3),
                    Catch::Contains("x.toml:3: unknown record 'action_card/boost'"));
}

TEST_CASE("content: short names resolve, an ambiguous one is an error, full ids always work",
          "[content]") {
  const auto c = load_mini({"rival"});
  CHECK(record(*c, "unit/fighter").id == "mini-base:unit/fighter");
  CHECK(record(*c, "fighter", "unit").id == "mini-base:unit/fighter");
  CHECK_THROWS_AS(c->find_record("unit/cruiser"), ContentError);
  CHECK_THROWS_WITH(c->find_record("cruiser", "unit"),
                    Catch::Contains("ambiguous") && Catch::Contains("mini-base:unit/cruiser") &&
                        Catch::Contains("rival:unit/cruiser") && Catch::Contains("full id"));
  CHECK_THROWS_WITH(c->require_record("unit/cruiser", {}, "cards.lua", 9),
                    Catch::Contains("cards.lua:9:") && Catch::Contains("ambiguous"));
  CHECK(attr(*c, record(*c, "mini-base:unit/cruiser"), "combat") == 7);
  CHECK(attr(*c, record(*c, "rival:unit/cruiser"), "combat") == 4);
  CHECK(c->find_record("rival:unit/fighter") == -1);
}

TEST_CASE("content: an unknown record names the closest one", "[content]") {
  const auto c = load_mini({});
  CHECK(c->find_record("unit/crusier") == -1);
  CHECK_THROWS_WITH(
      c->require_record("crusier", "unit", "s.toml", 2),
      Catch::Contains("unknown unit 'crusier'") && Catch::Contains("did you mean 'cruiser'"));
  CHECK_THROWS_WITH(c->require_record("unit/crusier", {}, "s.toml", 2),
                    Catch::Contains("did you mean 'unit/cruiser'"));
  CHECK_THROWS_WITH(c->require_record("mini-base:unit/crusier", {}, "s.toml", 2),
                    Catch::Contains("did you mean 'mini-base:unit/cruiser'"));
}

TEST_CASE("content: every modifier and declarative hook gets its source resolved", "[content]") {
  // three modifiers and three hooks in one file each name a source card: each must resolve to
  // its own card (the loader keeps pointers to them until the end of loading)
  const auto c = load_mini({"mini-cards"});
  REQUIRE(c->modifiers.size() == 3);
  REQUIRE(c->hooks.size() == 3);
  const char* cards[] = {"action_card/rally", "action_card/drill", "action_card/volley"};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("modifier " << c->modifiers[i].id << ", hook " << c->hooks[i].id);
    const int card = c->find_record(cards[i]);
    REQUIRE(card >= 0);
    CHECK(c->modifiers[i].source == card);
    CHECK(c->hooks[i].source == card);
  }
  CHECK(c->modifiers[0].id == "mini-cards:rally_bonus");
  CHECK(c->modifiers[1].delta == 2);
  CHECK(c->modifiers[2].dice == 1);
  CHECK(c->ruleset.windows[static_cast<std::size_t>(c->hooks[0].window)].name ==
        "mini.start_of_round");
  CHECK(c->hooks[0].limit == sym("round"));
}

TEST_CASE("content: packs are found under root/content and in search folders", "[content]") {
  LoadRequest req;
  req.root = fixture_root();
  req.search = {broken_dir() / "conflicting_packs"};
  const auto found = discover_packs(req);
  CHECK(found.count("mini-base") == 1);
  CHECK(found.count("sandbox-pack") == 1);
  CHECK(found.count("red") == 1);
  CHECK(found.count("blue") == 1);
  // a pack can also be named by its folder
  req.search.clear();
  req.packs = {(fixture_root() / "content" / "tweak").string()};
  const auto c = load_content(req);
  CHECK(pack_ids(*c) == std::vector<std::string>{"mini-base", "tweak"});
}

TEST_CASE("content: an unknown pack id names the closest pack", "[content]") {
  CHECK_THROWS_WITH(load_mini({"tweek"}), Catch::Contains("no pack with id 'tweek'") &&
                                              Catch::Contains("did you mean 'tweak'"));
}
