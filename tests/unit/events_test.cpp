// Unit tests of events/: declared windows, hook registration and the deterministic order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "events/events.hpp"

using namespace rb;

namespace {

EventBus bus_with_windows() {
  EventBus bus;
  bus.declare({"space_combat.start_of_combat", "Start of combat."});
  bus.declare({"space_combat.start_of_round", "Start of each round."});
  bus.declare({"space_combat.after_roll", "After rolling."});
  return bus;
}

HookDef hook(std::string id, int window, int source, int priority, int pack, int registration) {
  HookDef h;
  h.id = std::move(id);
  h.window = window;
  h.source = source;
  h.priority = priority;
  h.pack_order = pack;
  h.registration = registration;
  h.file = "hooks.lua";
  h.line = 1;
  return h;
}

struct Table {
  State state;
  EntityId p0, p1, p2;
  Table() {
    Entity player;
    player.kind = sym("player");
    p0 = state.add(player), p1 = state.add(player), p2 = state.add(player);
    for (EntityId p : {p0, p1, p2}) state.at(p).owner = p;
    state.turn_order = {p0, p1, p2};
  }
  EntityId give(EntityId player, int record) {
    Entity card;
    card.kind = sym("action_card");
    card.record = record;
    card.owner = player;
    return state.add(card);
  }
};

// "id@player" for each firing, in order.
std::vector<std::string> order(const EventBus& bus, const Table& t, std::vector<int> windows,
                               EntityId active) {
  std::vector<Firing> out;
  bus.collect(t.state, windows, active, out);
  std::vector<std::string> names;
  for (const Firing& f : out)
    names.push_back(bus.hook(f.hook).id + "@" +
                    (f.player == kNoEntity ? std::string("rule") : std::to_string(f.player)));
  return names;
}

}  // namespace

TEST_CASE("events: declared windows are found, a second declaration is an error", "[events]") {
  EventBus bus = bus_with_windows();
  CHECK(bus.find("space_combat.after_roll") == 2);
  CHECK(bus.find("space_combat.nowhere") == -1);
  CHECK(bus.windows().size() == 3);
  CHECK_THROWS_WITH(bus.declare({"space_combat.after_roll", ""}),
                    Catch::Contains("declared twice"));
}

TEST_CASE("events: require names the nearest declared window", "[events]") {
  const EventBus bus = bus_with_windows();
  CHECK(bus.require("space_combat.start_of_round", "x.lua", 3) == 1);
  try {
    bus.require("space_combat.start_of_rund", "cards/boost.lua", 12);
    FAIL("require accepted an undeclared window");
  } catch (const ContentError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cards/boost.lua:12:"));
    CHECK_THAT(e.what(), Catch::Contains("unknown window 'space_combat.start_of_rund'"));
    CHECK_THAT(e.what(), Catch::Contains("did you mean 'space_combat.start_of_round'"));
    CHECK(e.line == 12);
  }
}

TEST_CASE("events: a window with no hooks is empty, hook ids are unique", "[events]") {
  EventBus bus = bus_with_windows();
  CHECK(bus.empty(0));
  bus.add(hook("p:a", 0, -1, 0, 0, 0));
  CHECK_FALSE(bus.empty(0));
  CHECK(bus.empty(1));
  CHECK_THROWS_WITH(bus.add(hook("p:a", 1, -1, 0, 0, 1)), Catch::Contains("already registered"));
}

TEST_CASE("events: a frozen bus rejects new hooks", "[events]") {
  EventBus bus = bus_with_windows();
  bus.add(hook("p:early", 0, -1, 0, 0, 0));
  bus.freeze();
  CHECK(bus.frozen());
  CHECK_THROWS_AS(bus.add(hook("p:late", 0, -1, 0, 0, 1)), ContentError);
  CHECK_THROWS_WITH(bus.add(hook("p:late", 0, -1, 0, 0, 1)), Catch::Contains("frozen"));
  CHECK(bus.hooks().size() == 1);
}

TEST_CASE("events: hooks run active player first, then turn order, priority, pack, registration",
          "[events]") {
  EventBus bus = bus_with_windows();
  const int w = 2;
  // registered in an order unlike the one they run in
  bus.add(hook("pack1:d", w, 4, 0, 1, 0));
  bus.add(hook("pack0:c", w, 3, 0, 0, 1));
  bus.add(hook("pack1:b", w, 2, 5, 1, 1));
  bus.add(hook("pack0:a", w, 1, 0, 0, 0));
  Table t;
  for (int record : {1, 2, 3, 4}) t.give(t.p1, record);
  t.give(t.p2, 2);
  t.give(t.p0, 1);
  const auto p = [](EntityId e) { return std::to_string(e); };
  // active player p1, then p2, then p0 (turn order wraps around)
  CHECK(order(bus, t, {w}, t.p1) == std::vector<std::string>{
                                        "pack1:b@" + p(t.p1),  // priority 5 first
                                        "pack0:a@" + p(t.p1),  // pack 0, registration 0
                                        "pack0:c@" + p(t.p1),  // pack 0, registration 1
                                        "pack1:d@" + p(t.p1),  // pack 1
                                        "pack1:b@" + p(t.p2),  // next in turn order
                                        "pack0:a@" + p(t.p0),  // last
                                    });
  // another active player changes who goes first, not the order among one player's hooks
  CHECK(order(bus, t, {w}, t.p0) ==
        std::vector<std::string>{"pack0:a@" + p(t.p0), "pack1:b@" + p(t.p1), "pack0:a@" + p(t.p1),
                                 "pack0:c@" + p(t.p1), "pack1:d@" + p(t.p1), "pack1:b@" + p(t.p2)});
}

TEST_CASE("events: a rule hook runs once, a source fires once per entity that carries it",
          "[events]") {
  EventBus bus = bus_with_windows();
  bus.add(hook("base:rule", 0, -1, 0, 0, 0));
  bus.add(hook("cards:boost", 0, 7, 0, 1, 0));
  Table t;
  const EntityId first = t.give(t.p2, 7);
  const EntityId second = t.give(t.p2, 7);  // two copies: two firings, each with its own source
  const EntityId discarded = t.give(t.p0, 7);
  t.state.at(discarded).location = kReinforcements;  // not live
  const auto fired = order(bus, t, {0}, t.p0);
  const std::string p2 = std::to_string(t.p2);
  CHECK(fired ==
        std::vector<std::string>{"base:rule@rule", "cards:boost@" + p2, "cards:boost@" + p2});
  std::vector<Firing> out;
  bus.collect(t.state, std::vector<int>{0}, t.p0, out);
  REQUIRE(out.size() == 3);
  CHECK(out[1].source == first);
  CHECK(out[2].source == second);
}

TEST_CASE("events: merged windows collect the hooks of both, in one order", "[events]") {
  EventBus bus = bus_with_windows();
  bus.add(hook("p:combat_start", 0, -1, 0, 0, 0));
  bus.add(hook("p:round_start", 1, -1, 3, 0, 1));
  bus.add(hook("p:after_roll", 2, -1, 9, 0, 2));
  Table t;
  CHECK(order(bus, t, {0}, t.p0) == std::vector<std::string>{"p:combat_start@rule"});
  // opened as one: the round-start hook's priority puts it first; the third window is not open
  CHECK(order(bus, t, {0, 1}, t.p0) ==
        std::vector<std::string>{"p:round_start@rule", "p:combat_start@rule"});
  CHECK(order(bus, t, {1, 0}, t.p0) ==
        std::vector<std::string>{"p:round_start@rule", "p:combat_start@rule"});
}
