// Unit tests of dice/: die types, forced results, the per-(seed, run) random streams, pools.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <vector>

#include "base/error.hpp"
#include "dice/dice.hpp"

using namespace rb;

namespace {

// TI4's d10: faces 1..10, the tenth printed "0".
DieType d10() {
  DieType t;
  t.name = sym("d10");
  t.sides = 10;
  for (int i = 1; i <= 10; ++i) t.values.push_back(i), t.labels.push_back(std::to_string(i % 10));
  return t;
}

// X-Wing's attack die: hit x3, crit, focus x2, blank x2.
DieType attack_die() {
  DieType t;
  t.name = sym("attack");
  for (const char* f : {"hit", "hit", "hit", "crit", "focus", "focus", "blank", "blank"})
    t.faces.push_back(sym(f)), t.labels.emplace_back(f);
  t.sides = 8;
  return t;
}

DiceStream::Forced value(int v) {
  return {v, kNoSym};
}
DiceStream::Forced face(const char* f) {
  return {0, sym(f)};
}

std::vector<int> roll_n(DiceStream& s, const DieType& t, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(s.roll(t));
  return out;
}

}  // namespace

TEST_CASE("dice: the d10's face printed 0 reads 10", "[dice]") {
  const DieType t = d10();
  REQUIRE(t.numeric());
  CHECK(t.face_of_value(10) == 9);
  CHECK(t.face_of_value(0) == 9);  // named by its label
  CHECK(t.face_of_value(1) == 0);
  CHECK(t.face_of_value(11) == -1);
  Die d;
  set_face(d, t, 9);
  CHECK(d.value == 10);
  CHECK(t.labels[static_cast<std::size_t>(d.face)] == "0");
}

TEST_CASE("dice: forcing 10 and forcing the label 0 both give value 10", "[dice]") {
  const DieType t = d10();
  DiceStream s;
  s.seed(1, 0);
  s.force({value(10), value(0), face("0")}, true);
  for (int i = 0; i < 3; ++i) {
    Die d;
    set_face(d, t, s.roll(t));
    INFO("forced result #" << (i + 1));
    CHECK(d.value == 10);
  }
  CHECK(s.forced_left() == 0);
}

TEST_CASE("dice: forced results are consumed in order, then the stream is random", "[dice]") {
  const DieType t = d10();
  DiceStream s;
  s.seed(5, 0);
  s.force({value(3), value(7), value(1), value(9)}, false);
  CHECK(s.forced_left() == 4);
  std::vector<int> values;
  for (int i = 0; i < 4; ++i) values.push_back(t.values[static_cast<std::size_t>(s.roll(t))]);
  CHECK(values == std::vector<int>{3, 7, 1, 9});
  CHECK(s.forced_used() == 4);
  CHECK(s.forced_left() == 0);
  // not strict: rolling on draws from the stream
  for (int i = 0; i < 100; ++i) {
    const int f = s.roll(t);
    REQUIRE(f >= 0);
    REQUIRE(f < 10);
  }
}

TEST_CASE("dice: strict forcing errors when the forced results run out", "[dice]") {
  const DieType t = d10();
  DiceStream s;
  s.seed(1, 0);
  s.force({value(4)}, true);
  CHECK(s.roll(t) == 3);
  CHECK_THROWS_AS(s.roll(t), ScriptError);
  try {
    s.roll(t);
  } catch (const ScriptError& e) {
    CHECK_THAT(e.what(), Catch::Contains("more dice than the 1 forced results"));
  }
}

TEST_CASE("dice: a forced result the die cannot show is an error", "[dice]") {
  DiceStream s;
  s.seed(1, 0);
  SECTION("a numeric value out of range") {
    s.force({value(11)}, false);
    CHECK_THROWS_WITH(s.roll(d10()), Catch::Contains("'11', which a d10 die cannot show"));
  }
  SECTION("a face name on a faced die that has no such face") {
    s.force({face("evade")}, false);
    CHECK_THROWS_WITH(s.roll(attack_die()),
                      Catch::Contains("'evade', which a attack die cannot show"));
  }
  SECTION("a number on a faced die") {
    s.force({value(3)}, false);
    CHECK_THROWS_AS(s.roll(attack_die()), ScriptError);
  }
}

TEST_CASE("dice: faced dice are forced by face name and counted by face", "[dice]") {
  const DieType t = attack_die();
  const std::vector<DieType> types{d10(), t};
  DiceStream s;
  s.seed(1, 0);
  s.force({face("crit"), face("hit"), face("blank"), face("hit"), face("focus")}, true);
  Pool pool;
  for (int i = 0; i < 5; ++i) {
    Die d;
    d.type = 1;
    set_face(d, t, s.roll(t));
    pool.dice.push_back(d);
  }
  CHECK(pool.count(types, sym("hit")) == 2);
  CHECK(pool.count(types, sym("crit")) == 1);
  CHECK(pool.count(types, sym("focus")) == 1);
  CHECK(pool.count(types, sym("blank")) == 1);
  CHECK(pool.count(types, sym("evade")) == 0);
  pool.dice[1].cancelled = true;  // a cancelled hit no longer counts
  CHECK(pool.count(types, sym("hit")) == 1);
}

TEST_CASE("dice: random faced rolls follow the face counts", "[dice]") {
  const DieType t = attack_die();
  DiceStream s;
  s.seed(42, 0);
  int hits = 0, crits = 0;
  constexpr int kRolls = 80000;
  for (int i = 0; i < kRolls; ++i) {
    const Sym f = t.faces[static_cast<std::size_t>(s.roll(t))];
    hits += f == sym("hit"), crits += f == sym("crit");
  }
  // 3/8 and 1/8, within about 5 standard deviations
  CHECK(std::abs(hits - kRolls * 3 / 8) < 700);
  CHECK(std::abs(crits - kRolls / 8) < 470);
}

TEST_CASE("dice: the same (seed, run) gives the same stream, another run another", "[dice]") {
  const DieType t = d10();
  DiceStream a, b, c, d;
  a.seed(7, 3);
  b.seed(7, 3);
  c.seed(7, 4);
  d.seed(8, 3);
  const auto ra = roll_n(a, t, 50), rb = roll_n(b, t, 50), rc = roll_n(c, t, 50),
             rd = roll_n(d, t, 50);
  CHECK(ra == rb);
  CHECK(ra != rc);
  CHECK(ra != rd);
  // re-seeding restarts the stream and drops forced results
  a.force({value(1)}, true);
  a.seed(7, 3);
  CHECK(a.forced_left() == 0);
  CHECK(roll_n(a, t, 50) == ra);
}

TEST_CASE("dice: hits count dice whose value plus modifier reach the threshold", "[dice]") {
  const DieType t = d10();
  Pool pool;
  auto add = [&](int v, int threshold, int modifier) {
    Die d;
    set_face(d, t, t.face_of_value(v));
    d.threshold = static_cast<std::int16_t>(threshold);
    d.modifier = static_cast<std::int16_t>(modifier);
    pool.dice.push_back(d);
  };
  add(7, 7, 0);   // hit
  add(6, 7, 0);   // miss
  add(6, 7, 1);   // hit with +1
  add(10, 0, 0);  // no threshold: never a hit
  add(9, 9, -1);  // miss with -1
  CHECK(pool.hits() == 2);
  pool.dice[0].cancelled = true;
  CHECK(pool.hits() == 1);
  CHECK(pool.size() == 5);
}

TEST_CASE("dice: a replayed draw asked with another bound marks the step memo's tape diverged",
          "[dice][memo]") {
  // the tape hands back draws made while walking the memo; a step that asks for a d6 where its
  // walk drew a d10 is not a function of its state and dice (a value kept between calls)
  const std::vector<DiceStream::Draw> raw{{10, 7}, {10, 3}};
  std::vector<DiceStream::KeyDraw> key;
  DiceStream s;
  s.seed(1, 0);
  s.start_tape(&raw, 2, &key);
  CHECK(s.below(10) == 7);  // the same bound: the same value
  CHECK(s.below(6) == 3);   // another bound: the value folded into it, and noticed
  CHECK(s.diverged());      // (every replayed draw was handed out: only the bound says so)
  s.stop_tape();
  // a tape whose replayed draws keep their bounds does not diverge
  key.clear();
  s.start_tape(&raw, 2, &key);
  s.below(10), s.below(10);
  CHECK_FALSE(s.diverged());
  CHECK(key.size() == 2);
  s.stop_tape();
}

TEST_CASE("dice: one run of a step draws at most ExactPath::kMaxDraws times", "[dice][exact]") {
  // issue 27: a step whose loop every miss prolongs drew forever on its first way
  ExactPath path;
  for (std::size_t i = 0; i < ExactPath::kMaxDraws; ++i) path.draw(2);
  CHECK_FALSE(path.overflowed());
  CHECK_THROWS_WITH(path.draw(2), Catch::Contains("drew more than 100000 dice"));
  CHECK(path.overflowed());
  path.clear();
  CHECK_FALSE(path.overflowed());
}
