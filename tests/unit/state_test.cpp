// Unit tests of state/: the game state is a value; counters with scopes; roles; turn order.
#include <catch2/catch.hpp>

#include "state/state.hpp"

using namespace rb;

namespace {

State two_players_and_a_cruiser() {
  State s;
  Entity player;
  player.kind = sym("player");
  const EntityId a = s.add(player), b = s.add(player);
  s.at(a).owner = a, s.at(b).owner = b;
  s.turn_order = {a, b};
  Entity cruiser;
  cruiser.kind = sym("unit");
  cruiser.type = sym("cruiser");
  cruiser.owner = a;
  cruiser.attr[0] = 7;
  s.add(cruiser);
  s.set_role(sym("attacker"), a);
  s.add_counter(a, sym("cheers"), 1, sym("round"));
  return s;
}

}  // namespace

TEST_CASE("state: a copy is a value, changing it leaves the original alone", "[state]") {
  const State original = two_players_and_a_cruiser();
  State copy = original;
  copy.at(2).attr[0] = 3;
  copy.at(2).location = kReinforcements;
  copy.add_counter(0, sym("cheers"), 5, sym("round"));
  copy.set_role(sym("attacker"), 1);
  copy.turn_order.push_back(7);
  copy.add(Entity{});

  CHECK(original.at(2).attr[0] == 7);
  CHECK(original.at(2).location == kNoEntity);
  CHECK(original.counter(0, sym("cheers")) == 1);
  CHECK(original.role(sym("attacker")) == 0);
  CHECK(original.turn_order.size() == 2);
  CHECK(original.entities.size() == 3);
  CHECK(copy.counter(0, sym("cheers")) == 6);
  CHECK(copy.role(sym("attacker")) == 1);
}

TEST_CASE("state: copy assignment reuses the destination's storage", "[state]") {
  const State start = two_players_and_a_cruiser();
  State work = start;
  // a run grows the state...
  for (int i = 0; i < 100; ++i) work.add(Entity{});
  for (int i = 0; i < 50; ++i) work.add_counter(i, sym("spent"), 1, sym("combat"));
  const auto* entities = work.entities.data();
  const auto* counters = work.counters.data();
  const auto entity_capacity = work.entities.capacity();
  // ...and resetting it for the next run keeps the grown buffers
  work = start;
  CHECK(work.entities.size() == start.entities.size());
  CHECK(work.counters.size() == start.counters.size());
  CHECK(work.entities.data() == entities);
  CHECK(work.counters.data() == counters);
  CHECK(work.entities.capacity() == entity_capacity);
  CHECK(work.at(2).attr[0] == 7);
}

TEST_CASE("state: counters add up, and set replaces value and scope", "[state]") {
  State s;
  const Sym key = sym("used"), round = sym("round");
  CHECK(s.counter(0, key) == 0);
  s.add_counter(0, key, 2, round);
  s.add_counter(0, key, 3, round);
  CHECK(s.counter(0, key) == 5);
  CHECK(s.counter(1, key) == 0);  // per target
  s.set_counter(0, key, 1, sym("game"));
  CHECK(s.counter(0, key) == 1);
  s.end_scope(round);
  CHECK(s.counter(0, key) == 1);  // its scope is now "game"
}

TEST_CASE("state: end_scope clears only that scope's counters and modifiers", "[state]") {
  State s;
  const Sym round = sym("round"), combat = sym("combat");
  s.add_counter(0, sym("a"), 1, round);
  s.add_counter(0, sym("b"), 1, combat);
  s.add_counter(1, sym("c"), 1, round);
  s.add_counter(1, sym("d"), 1, kNoSym);  // the whole game
  s.modifiers.push_back({0, 0, round});
  s.modifiers.push_back({1, 0, combat});

  s.end_scope(round);
  CHECK(s.counter(0, sym("a")) == 0);
  CHECK(s.counter(1, sym("c")) == 0);
  CHECK(s.counter(0, sym("b")) == 1);
  CHECK(s.counter(1, sym("d")) == 1);
  REQUIRE(s.modifiers.size() == 1);
  CHECK(s.modifiers[0].modifier == 1);

  s.end_scope(combat);
  CHECK(s.counter(0, sym("b")) == 0);
  CHECK(s.counter(1, sym("d")) == 1);
  CHECK(s.modifiers.empty());
}

TEST_CASE("state: roles are set, replaced and unknown roles are kNoEntity", "[state]") {
  State s;
  CHECK(s.role(sym("attacker")) == kNoEntity);
  s.set_role(sym("attacker"), 3);
  s.set_role(sym("defender"), 4);
  s.set_role(sym("attacker"), 5);
  CHECK(s.role(sym("attacker")) == 5);
  CHECK(s.role(sym("defender")) == 4);
  CHECK(s.roles.size() == 2);
}

TEST_CASE("state: turn_rank puts the active player first, then turn order", "[state]") {
  State s;
  s.turn_order = {10, 11, 12, 13};
  // active player 12: 12, 13, 10, 11
  CHECK(s.turn_rank(12, 12) == 0);
  CHECK(s.turn_rank(13, 12) == 1);
  CHECK(s.turn_rank(10, 12) == 2);
  CHECK(s.turn_rank(11, 12) == 3);
  // no active player: plain turn order
  CHECK(s.turn_rank(10, kNoEntity) == 0);
  CHECK(s.turn_rank(13, kNoEntity) == 3);
  // not a player in turn order: after everyone
  CHECK(s.turn_rank(99, 12) == 4);
}

TEST_CASE("state: links are found in either direction and by kind", "[state]") {
  State s;
  s.links.push_back({1, 2, sym("adjacent")});
  CHECK(s.linked(1, 2));
  CHECK(s.linked(2, 1));
  CHECK(s.linked(2, 1, sym("adjacent")));
  CHECK_FALSE(s.linked(2, 1, sym("wormhole")));
  CHECK_FALSE(s.linked(1, 3));
}

TEST_CASE("state: canonicalise exchanges alike units nothing refers to, and only those",
          "[state][exact]") {
  // two dreadnoughts of one player, one damaged (attr[1]); which one is damaged is all two runs
  // differ in: both become the same state
  auto with_damaged = [](int which) {
    State s;
    Entity player;
    player.kind = sym("player");
    const EntityId a = s.add(player);
    s.at(a).owner = a;
    s.turn_order = {a};
    Entity dread;
    dread.kind = sym("unit");
    dread.type = sym("dreadnought");
    dread.owner = a;
    const EntityId d1 = s.add(dread), d2 = s.add(dread);
    s.at(which == 1 ? d1 : d2).attr[1] = 1;
    return s;
  };
  const std::vector<Sym> units{sym("unit")};
  State one = with_damaged(1), two = with_damaged(2);
  REQUIRE_FALSE(one == two);
  one.canonicalise(units), two.canonicalise(units);
  CHECK(one == two);
  CHECK(one.hash() == two.hash());
  // a kind not named stays as it is
  State three = with_damaged(2);
  three.canonicalise(std::vector<Sym>{sym("system")});
  CHECK(three == with_damaged(2));
  // a unit a counter names keeps its number and its values
  // (the first dreadnought, damaged, would sort after the undamaged one)
  State four = with_damaged(1);
  four.add_counter(1, sym("sustained_this_round"), 1, sym("round"));
  four.canonicalise(units);
  CHECK(four.at(1).attr[1] == 1);
  CHECK(four.at(2).attr[1] == 0);
}
