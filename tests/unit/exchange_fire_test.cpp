// ctx:exchange_fire runs the rounds of a space combat in C++ when no hook or decision can
// intervene. It must be the same combat as the procedure's own round, die for die: each
// scenario below is simulated with it and without it (EngineOptions::exchange_fire), and the
// reports must be byte-identical. The scenarios cover burst dice (war suns), Anti-Fighter
// Barrage (one exchange, spec.once) and fighters, a barrage that ends the combat, Sustain Damage
// under each policy, a custom hit order, upgrades, the nebula's declared modifier, a declared
// modifier whose source is lost during the rounds, one that lasts until the end of the round,
// directed hits (the L1Z1X flagship: a modifier's hits_to, doing in C++ what the hooks it
// replaces do in the procedure's rounds), modifiers that cancel hits with Sustain Damage and
// repair (Non-Euclidean Shielding, Duranium Armor, the Arc Secundus), a hook that requires
// trade goods (Munitions Reserves), and held cards whose hooks make some rounds the
// procedure's.
#include <catch2/catch.hpp>

#include <fstream>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

std::string report(const std::string& scenario_text, bool exchange_fire, bool memo = true) {
  const fs::path dir = fs::temp_directory_path() / "rulebench-exchange-fire";
  fs::create_directories(dir);
  const fs::path file = dir / "scenario.toml";
  {
    std::ofstream out(file);
    out << scenario_text;
  }
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  const Session session = open_session(read_scenario(file), so);
  const Simulation sim(session);
  SimOptions o;
  o.runs = 20000;
  o.seed = 7;
  o.threads = 1;
  o.engine.exchange_fire = exchange_fire;
  o.engine.memo = memo;
  return sim.report(sim.run(o), o.seed).dump();
}

// The step memo's size after `runs` runs of a scenario file (one engine, one thread).
struct MemoSize {
  std::size_t nodes, execute_only;
  std::size_t steps_run_late;  // the steps run, not replayed, in the second half of the runs
};
MemoSize memo_after(const char* scenario, int runs) {
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  const Session session = open_session(read_scenario(fs::path(RB_SOURCE_DIR) / scenario), so);
  Table table(session);
  std::size_t half = 0;
  for (int run = 0; run < runs; ++run) {
    if (run == runs / 2) half = table.engine.memo_steps_run();
    RunOptions o;
    o.seed = 3;
    o.run = static_cast<std::uint64_t>(run);
    State state = table.start;
    RunResult r;
    table.engine.run(session.procedure, state, o, r);
  }
  return {table.engine.memo_nodes(), table.engine.memo_execute_only(),
          table.engine.memo_steps_run() - half};
}

}  // namespace

TEST_CASE("exchange_fire: the C++ rounds are the procedure's rounds, run for run",
          "[exchange_fire]") {
  const char* scenarios[] = {
      // (a), (b), (c) of the bench
      "ruleset='ti4'\n[attacker]\nunits={destroyer=3}\n[defender]\nunits={cruiser=2}\n",
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=2,carrier=1,fighter=4}\n"
      "[defender]\nunits={cruiser=3,destroyer=2,carrier=1,fighter=3}\n",
      "ruleset='ti4'\npiece_limits=false\n[attacker]\nunits={war_sun=2,dreadnought=4,fighter=8}\n"
      "[defender]\nunits={dreadnought=6,cruiser=4,fighter=10}\n",
      // sustain policies, a hit order, upgrades, damaged units
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=3,fighter=2}\ndamaged={dreadnought=1}\n"
      "technologies=['fighter_ii']\npolicy={sustain='last',hit_order=['dreadnought','fighter']}\n"
      "[defender]\nunits={cruiser=4,destroyer=2}\ntechnologies=['destroyer_ii','cruiser_ii']\n"
      "policy={sustain='never'}\n",
      // the nebula's +1 for the defender (a declared modifier)
      "ruleset='ti4'\n[attacker]\nunits={cruiser=3}\n[defender]\nunits={dreadnought=1,destroyer=2}"
      "\n"
      "[system]\nanomaly='nebula'\n",
      // Anti-Fighter Barrage that can end the combat before the first round (3.1)
      "ruleset='ti4'\n[attacker]\nunits={destroyer=2}\n[defender]\nunits={fighter=2}\n",
      // held cards: their windows are live, so those rounds go back to the procedure
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=2,cruiser=2}\ncards=['morale_boost','direct_"
      "hit']\n"
      "[defender]\nunits={dreadnought=2,destroyer=3}\ncards=['shields_holding']\n"
      "technologies=['duranium_armor']\n",
      // a declared modifier whose source dies during the rounds: the C'morran N'orr's +1 to the
      // other ships is gone once the flagship is lost (its hit order loses it first), and the
      // rollers built once per exchange_fire must drop it from the next round on
      "ruleset='ti4'\n[attacker]\nfaction='sardakk_norr'\nunits={flagship=1,cruiser=3,fighter=2}\n"
      "policy={sustain='never',hit_order=['flagship','fighter','cruiser']}\n"
      "[defender]\nunits={dreadnought=2,cruiser=3,destroyer=2}\n",
      // a modifier switched on until the end of the round (Fighter Prototype, at the start of
      // combat): the C++ rounds' rollers must drop it once the first round's scope ends
      "ruleset='ti4'\n[attacker]\nunits={carrier=2,fighter=6}\ncards=['fighter_prototype']\n"
      "[defender]\nunits={cruiser=2,destroyer=3}\n",
      // directed hits (a modifier's hits_to): the L1Z1X flagship's and dreadnoughts' hits go to
      // non-fighter ships if able; in the C++ rounds the modifier does what the faction's hooks
      // do in the procedure's (bench (f), then sustain policies and more hits than ships to take)
      "ruleset='ti4'\n[attacker]\nfaction='sardakk_norr'\n"
      "units={flagship=1,dreadnought=2,cruiser=2,fighter=2}\n"
      "[defender]\nfaction='l1z1x'\nunits={flagship=1,dreadnought=2,cruiser=2,carrier=1,fighter=2}"
      "\n",
      "ruleset='ti4'\n[attacker]\nfaction='l1z1x'\nunits={flagship=1,dreadnought=3,fighter=2}\n"
      "policy={sustain='last'}\n"
      "[defender]\nunits={dreadnought=1,destroyer=1,fighter=6}\npolicy={sustain='last'}\n",
      "ruleset='ti4'\n[attacker]\nfaction='l1z1x'\nunits={flagship=1,dreadnought=2,cruiser=2}\n"
      "[defender]\nunits={war_sun=1,carrier=2,fighter=8}\npolicy={sustain='never'}\n",
      // modifiers doing hooks' work in the C++ rounds: Non-Euclidean Shielding (sustain_cancels),
      // Duranium Armor (repair after hits, sustained_flag), the Arc Secundus (repair at the start
      // of a round); bench (h), then sustain policies, hit orders and damaged units
      "ruleset='ti4'\n[attacker]\nfaction='letnev'\n"
      "units={flagship=1,dreadnought=2,cruiser=2,destroyer=1}\n"
      "technologies=['non_euclidean_shielding','duranium_armor']\n"
      "[defender]\nfaction='sardakk_norr'\nunits={flagship=1,dreadnought=3,cruiser=2,destroyer=1}"
      "\ntechnologies=['duranium_armor']\n",
      "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={flagship=1,dreadnought=3,cruiser=2}\n"
      "damaged={flagship=1,dreadnought=1}\n"
      "technologies=['non_euclidean_shielding','duranium_armor']\n"
      "policy={sustain='last',hit_order=['dreadnought','cruiser','flagship']}\n"
      "[defender]\nunits={war_sun=1,dreadnought=3,destroyer=3}\ndamaged={dreadnought=2}\n"
      "technologies=['duranium_armor']\npolicy={hit_order=['dreadnought','destroyer','war_sun']}\n",
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=4,carrier=1,fighter=3}\n"
      "technologies=['duranium_armor']\npolicy={sustain='never'}\n"
      "[defender]\nfaction='letnev'\nunits={flagship=1,dreadnought=2,destroyer=2,fighter=2}\n"
      "technologies=['non_euclidean_shielding']\n",
      // Munitions Reserves (requires 2 trade goods): round 1 is the procedure's, later ones C++
      "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={flagship=1,dreadnought=2,cruiser=3}\n"
      "trade_goods=3\ntechnologies=['non_euclidean_shielding','duranium_armor']\n"
      "[defender]\nunits={dreadnought=3,cruiser=3,destroyer=2}\n",
      // directed hits against hits a Sustain Damage cancels: those rounds are the procedure's
      "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={flagship=1,dreadnought=3,cruiser=2}\n"
      "technologies=['non_euclidean_shielding','duranium_armor']\n"
      "[defender]\nfaction='l1z1x'\nunits={flagship=1,dreadnought=2,cruiser=2,fighter=3}\n"
      "technologies=['duranium_armor']\n",
      // a counter spent on near misses (the Wrath of Kenara's trade goods, a modifier's spend):
      // while they last, then without; a policy that never uses it; the Hacan defending
      "ruleset='ti4'\n[attacker]\nfaction='hacan'\nunits={flagship=1,cruiser=5}\ntrade_goods=3\n"
      "[defender]\nfaction='muaat'\nunits={flagship=1,cruiser=5}\n",
      "ruleset='ti4'\n[attacker]\nfaction='hacan'\nunits={flagship=1,cruiser=2}\ntrade_goods=4\n"
      "policy={use={wrath_of_kenara='never'}}\n[defender]\nunits={cruiser=2,destroyer=2}\n",
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=2,destroyer=3}\n"
      "[defender]\nfaction='hacan'\nunits={flagship=1,carrier=1,fighter=3}\ntrade_goods=2\n",
      // systems to retreat to, and nobody will announce (retreat policy never): C++ rounds
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=2,carrier=1,fighter=4}\n"
      "[defender]\nunits={cruiser=3,destroyer=2,carrier=1,fighter=3}\n"
      "[system]\nadjacent=[{id='home',defender={carrier=1}},{id='rim',attacker={cruiser=1}}]\n",
      // ... and a retreat policy that may say yes: the procedure's rounds
      "ruleset='ti4'\n[attacker]\nunits={dreadnought=2,carrier=1,fighter=4}\n"
      "[defender]\nunits={cruiser=3,destroyer=2,carrier=1,fighter=3}\npolicy={retreat='when_"
      "outnumbered'}\n"
      "[system]\nadjacent=[{id='home',defender={carrier=1}}]\n",
      // a repair of the units that sustain, paid from a counter (the Dynamo, repair =
      // "sustained"): 2 trade goods a repair while they last (5: one is left over), units that
      // sustain and are lost in one assignment paid for too (the hook's window opens before the
      // losses leave); under sustain last, with Duranium Armor beside it (the Empyrean
      // defending); from an adjacent system (not the modifier's: the hook's rounds, `covered`);
      // a policy that repairs the opponent's units too, or never uses it
      "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\n"
      "units={flagship=1,dreadnought=2,cruiser=2}\ntrade_goods=5\n"
      "[defender]\nfaction='sardakk_norr'\nunits={dreadnought=3,cruiser=3,fighter=4}\n",
      "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='letnev'\n"
      "units={flagship=1,dreadnought=3,cruiser=2}\ntechnologies=['duranium_armor']\n"
      "[defender]\nfaction='empyrean'\nunits={flagship=1,dreadnought=2,destroyer=2}\n"
      "trade_goods=40\ntechnologies=['duranium_armor']\npolicy={sustain='last'}\n",
      "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\nunits={dreadnought=3}\n"
      "trade_goods=4\n[defender]\nunits={cruiser=4,destroyer=1}\n"
      "[system]\nadjacent=[{id='next',attacker={flagship=1}}]\n",
      "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\n"
      "units={flagship=1,cruiser=2}\ntrade_goods=6\npolicy={use={dynamo='always'}}\n"
      "[defender]\nunits={dreadnought=2,cruiser=2}\n",
      "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\n"
      "units={flagship=1,dreadnought=1}\ntrade_goods=6\npolicy={use={dynamo='never'}}\n"
      "[defender]\nunits={dreadnought=2,cruiser=2}\n",
      // ... and a ready planet of the Empyrean player's, whose influence the hook spends first
      // (the modifier pays trade goods alone: the hook's rounds)
      "ruleset='ti4'\npacks=['ti4-pok']\nprocedure='tactical_action'\nactive_player='e'\n"
      "activate='s'\n[[players]]\nname='e'\nfaction='empyrean'\ntrade_goods=4\n"
      "[[players]]\nname='x'\n[[systems]]\nid='s'\n"
      "units={e={flagship=1,dreadnought=1},x={dreadnought=2,cruiser=2}}\n"
      "planets=[{name='p',owner='e',influence=2}]\n",
  };
  for (const char* s : scenarios) {
    INFO(s);
    const std::string cpp = report(s, true);
    CHECK(cpp == report(s, false));
    // without the step memo a call runs every round it can; under it, one round per step
    // (spec.again): the same combats
    CHECK(cpp == report(s, true, false));
  }
}

TEST_CASE("exchange_fire: under the step memo each round is a step, and runs meet at its state",
          "[exchange_fire][memo]") {
  // bench (c): 2 war suns, 4 dreadnoughts, 8 fighters against 6 dreadnoughts, 4 cruisers, 10
  // fighters. A round's state is the hits each side has taken (and the round counter, capped at
  // 2): a few hundred nodes, each with a trie of one round (two rolls). Were the rounds one step,
  // its trie would branch on every round's hits one after the other (a path per combat): it
  // outgrows the trie's slots and is run every time.
  const MemoSize m = memo_after("content/ti4-base/scenarios/bench_c.toml", 20000);
  INFO("nodes " << m.nodes << ", run every time " << m.execute_only << ", steps run late "
                << m.steps_run_late);
  CHECK(m.nodes > 50);    // the rounds' states are nodes
  CHECK(m.nodes < 2000);  // states, not paths
  CHECK(m.execute_only == 0);
  // most runs are replayed: in the second 10 000 runs a step is run about 2 400 times (rare
  // rolls from states already met); as one step a round's node would run every run (10 000)
  CHECK(m.steps_run_late < 5000);
}

TEST_CASE("exchange_fire: under the step memo a roll with directed hits is one draw on both counts",
          "[exchange_fire][memo]") {
  // bench (f): the L1Z1X flagship's hits go to non-fighter ships if able (hits_to). The trie
  // branches on (other hits, directed hits) of each roll; drawn die by die, a round's trie would
  // branch on every die's face and outgrow its slots.
  const MemoSize m = memo_after("content/ti4-base/scenarios/bench_f.toml", 20000);
  INFO("nodes " << m.nodes << ", run every time " << m.execute_only << ", steps run late "
                << m.steps_run_late);
  CHECK(m.nodes > 20);
  CHECK(m.execute_only == 0);
  CHECK(m.steps_run_late < 5000);  // about 1 200 (drawn die by die: every run, 10 000)
}

TEST_CASE("exchange_fire: a scripted retreat is announced even where the policy never retreats",
          "[exchange_fire]") {
  // an untraced run (rules tests are traced and always take the procedure's rounds): the
  // defender's scripted "yes" must reach the procedure, so the rounds cannot go to C++
  const fs::path dir = fs::temp_directory_path() / "rulebench-exchange-fire";
  fs::create_directories(dir);
  const fs::path file = dir / "scripted.toml";
  {
    std::ofstream out(file);
    out << "ruleset='ti4'\n[attacker]\nunits={cruiser=2}\n[defender]\nunits={cruiser=1}\n"
           "[system]\nadjacent=[{id='home',defender={carrier=1}}]\n";
  }
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  const Session session = open_session(read_scenario(file), so);
  Table table(session);
  for (std::uint64_t run = 0; run < 20; ++run) {
    INFO("run " << run);
    ScriptedAnswers answers;
    answers.add({"defender", "space_combat.announce_retreat", "yes"});
    RunOptions o;
    o.run = run;
    o.answers = &answers;
    State state = table.start;
    RunResult r;
    table.engine.run(session.procedure, state, o, r);
    CHECK(r.unused_answers.empty());
  }
}

TEST_CASE("exchange_fire: under the step memo each round of a ground combat is a step",
          "[exchange_fire][memo][tactical]") {
  // bench (e): a tactical action with ground combats on two planets. Its ground combat step
  // runs one round and returns "again" (scripts/ti4/invasion.lua); were both combats one step,
  // its trie would hold a path per pair of combats (some 200 000 slots after 100 000 runs).
  const MemoSize m = memo_after("content/ti4-base/scenarios/bench_e.toml", 20000);
  INFO("nodes " << m.nodes << ", run every time " << m.execute_only << ", steps run late "
                << m.steps_run_late);
  CHECK(m.execute_only == 0);
  // in the second 10 000 runs about 1 100 steps are run; one step for both combats ran about
  // 4 300 (a new path of rounds in one of them)
  CHECK(m.steps_run_late < 2500);
}

namespace {

// One run of a scenario with forced dice and no trace (the C++ rounds run when nothing can
// intervene): its outcome, its rounds and the state it leaves.
struct Pinned {
  std::string outcome;
  double rounds;
  State end;
  int damaged = -1;  // the damaged attribute's slot
};
Pinned run_forced(const std::string& scenario_text, const std::vector<int>& dice, bool cpp) {
  const fs::path dir = fs::temp_directory_path() / "rulebench-exchange-fire";
  fs::create_directories(dir);
  const fs::path file = dir / "pinned.toml";
  {
    std::ofstream out(file);
    out << scenario_text;
  }
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  const Session session = open_session(read_scenario(file), so);
  EngineOptions eo;
  eo.exchange_fire = cpp;
  Table table(session, eo);
  RunOptions o;
  for (int d : dice) {
    DiceStream::Forced f;
    f.value = d;
    o.forced.push_back(f);
  }
  o.strict_dice = true;
  Pinned p{"", 0, table.start};
  p.damaged = session.content->ruleset.attribute("damaged")->slot;
  RunResult r;
  table.engine.run(session.procedure, p.end, o, r);
  p.outcome = r.outcome_name;
  p.rounds = r.metric("rounds");
  return p;
}

}  // namespace

// The rules tests of the abilities these modifiers replace in the C++ rounds, with their fixed
// dice: a rules test traces, so its rounds are the procedure's; here nothing traces, so the
// rounds after the first are C++, and they must give the same outcome, rounds and end state.
TEST_CASE("exchange_fire: declared modifiers give the hooks' fixed-dice outcomes",
          "[exchange_fire]") {
  struct Case {
    const char* rule;
    const char* scenario;
    std::vector<int> dice;
    const char* outcome;
    double rounds;
  };
  const Case cases[] = {
      // content/ti4-base/tests/factions/letnev.toml
      {"Non-Euclidean Shielding: each Sustain Damage cancels 2 hits",
       "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={dreadnought=2}\n"
       "technologies=['non_euclidean_shielding']\n[defender]\nunits={cruiser=3}\n",
       {1, 1, 7, 7, 7, 5, 5, 1, 1, 1, 5, 1, 1},
       "attacker_win",
       3},
      {"Non-Euclidean Shielding under sustain last",
       "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={dreadnought=2,cruiser=1}\n"
       "technologies=['non_euclidean_shielding']\npolicy={sustain='last'}\n"
       "[defender]\nunits={cruiser=3}\n",
       {1, 1, 1, 7, 7, 7, 5, 5, 1, 1, 1, 5, 1, 1},
       "attacker_win",
       3},
      {"Arc Secundus: repaired at the start of every round",
       "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={flagship=1}\ndamaged={flagship=1}\n"
       "[defender]\nunits={cruiser=1}\n",
       {1, 1, 7, 1, 1, 7, 5, 1, 1},
       "attacker_win",
       3},
      {"Arc Secundus: not repaired after the last round (it ends damaged)",
       "ruleset='ti4'\n[attacker]\nfaction='letnev'\nunits={flagship=1}\n"
       "[defender]\nunits={cruiser=1}\n",
       {5, 1, 7},
       "attacker_win",
       1},
      // content/ti4-base/tests/factions/hacan.toml
      {"Wrath of Kenara: its 1 trade good goes to the die that missed by 1",
       "ruleset='ti4'\n[attacker]\nfaction='hacan'\nunits={flagship=1}\ntrade_goods=1\n"
       "[defender]\nunits={cruiser=2}\n",
       {1, 6, 1, 1, 7, 7, 1},
       "attacker_win",
       2},
      {"Wrath of Kenara: no trade goods, no +1",
       "ruleset='ti4'\n[attacker]\nfaction='hacan'\nunits={flagship=1}\n"
       "[defender]\nunits={cruiser=2}\n",
       {6, 1, 1, 1, 7, 7, 1, 1},
       "attacker_win",
       2},
      // content/ti4-base/tests/cards/duranium_armor.toml
      {"Duranium Armor: not the unit that sustained this round",
       "ruleset='ti4'\n[attacker]\nunits={dreadnought=1}\ntechnologies=['duranium_armor']\n"
       "[defender]\nunits={cruiser=2}\n",
       {1, 7, 1, 1, 7, 1},
       "defender_win",
       2},
      {"Duranium Armor: repairs a unit that came in damaged",
       "ruleset='ti4'\n[attacker]\nunits={dreadnought=1}\ndamaged={dreadnought=1}\n"
       "technologies=['duranium_armor']\n[defender]\nunits={cruiser=2}\n",
       {1, 1, 1, 5, 7, 1, 5, 1},
       "attacker_win",
       3},
  };
  for (const Case& c : cases) {
    INFO(c.rule);
    const Pinned cpp = run_forced(c.scenario, c.dice, true);
    const Pinned lua = run_forced(c.scenario, c.dice, false);
    CHECK(cpp.outcome == c.outcome);
    CHECK(cpp.rounds == c.rounds);
    CHECK(lua.outcome == c.outcome);
    CHECK(lua.rounds == c.rounds);
    CHECK(cpp.end == lua.end);
  }
}

// The Dynamo (content/ti4-pok/factions/empyrean): a declared modifier with repair = "sustained",
// pay = "trade_goods", cost = 2 does the hook's work in the C++ rounds. Fixed dice, nothing
// traces: the rounds are C++ (the pack's rules tests trace, so theirs are the procedure's), and
// the outcome, rounds, trade goods left and damage must be those of the procedure's rounds with
// the hook.
TEST_CASE("exchange_fire: the Dynamo's repair paid from trade goods, and one not affordable",
          "[exchange_fire]") {
  auto unit = [](const Pinned& p, const char* type, EntityId owner) -> const Entity* {
    for (const Entity& e : p.end.entities)
      if (e.owner == owner && e.type == sym(type) && e.location != kReinforcements) return &e;
    return nullptr;
  };
  {
    INFO(
        "Dynamo: the flagship sustains and is repaired (2 trade goods); then with none left it "
        "stays damaged (content/ti4-pok/tests/factions/empyrean.toml)");
    // round 1: flagship 1, 1 | cruiser 7 (sustained, repaired) | round 2: 1, 1 | 7 (sustained,
    // not repaired) | round 3: 5, 1 | 1
    const char* scenario =
        "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\nunits={flagship=1}\n"
        "trade_goods=2\n[defender]\nunits={cruiser=1}\n";
    const std::vector<int> dice = {1, 1, 7, 1, 1, 7, 5, 1, 1};
    const Pinned cpp = run_forced(scenario, dice, true);
    const Pinned lua = run_forced(scenario, dice, false);
    CHECK(cpp.outcome == "attacker_win");
    CHECK(cpp.rounds == 3);
    const EntityId attacker = cpp.end.role(sym("attacker"));
    CHECK(cpp.end.counter(attacker, sym("trade_goods")) == 0);
    const Entity* flagship = unit(cpp, "flagship", attacker);
    REQUIRE(flagship);
    CHECK(flagship->attr[static_cast<std::size_t>(cpp.damaged)] == 1);
    CHECK(lua.outcome == cpp.outcome);
    CHECK(lua.rounds == cpp.rounds);
    CHECK(cpp.end == lua.end);
  }
  {
    INFO(
        "Dynamo: two units sustain in one round, 2 trade goods: the first repaired (the "
        "dreadnought, the first to sustain), the second not affordable");
    // round 1: flagship 1, 1, dreadnought 1 | cruisers 7, 7 (both sustain) | round 2: 5, 5, 5 |
    // 1, 1
    const char* scenario =
        "ruleset='ti4'\npacks=['ti4-pok']\n[attacker]\nfaction='empyrean'\n"
        "units={flagship=1,dreadnought=1}\ntrade_goods=2\n[defender]\nunits={cruiser=2}\n";
    const std::vector<int> dice = {1, 1, 1, 7, 7, 5, 5, 5, 1, 1};
    const Pinned cpp = run_forced(scenario, dice, true);
    const Pinned lua = run_forced(scenario, dice, false);
    CHECK(cpp.outcome == "attacker_win");
    CHECK(cpp.rounds == 2);
    const EntityId attacker = cpp.end.role(sym("attacker"));
    CHECK(cpp.end.counter(attacker, sym("trade_goods")) == 0);
    const Entity* flagship = unit(cpp, "flagship", attacker);
    const Entity* dreadnought = unit(cpp, "dreadnought", attacker);
    REQUIRE(flagship);
    REQUIRE(dreadnought);
    CHECK(dreadnought->attr[static_cast<std::size_t>(cpp.damaged)] == 0);
    CHECK(flagship->attr[static_cast<std::size_t>(cpp.damaged)] == 1);
    CHECK(lua.outcome == cpp.outcome);
    CHECK(lua.rounds == cpp.rounds);
    CHECK(cpp.end == lua.end);
  }
}
