// A counter spent in the exact mode's rounds of fire, against an enumeration of its own: the
// fixture ruleset "duel" (tests/fixtures/spend_root: a flagship with 2 dice hitting on 7 and
// Sustain Damage that may raise each die that missed by 1 for 1 token, a declared modifier with
// `spend` and the optional hook "raise_die" it replaces, against cruisers with 1 die hitting on
// 7). Two things the chain must keep (docs/exact.md, "A counter spent inside the fire chain"):
// - when the policy's answer to "use:raise_die" reads the state (the setting keep = 1: the last
//   token is kept), the answer asked once at the exchange's start does not hold for every round:
//   the chain must not spend (answer_reads_no_state, runtime/script/api_dice.cpp) and the rounds
//   run one a step, each asking the policy again;
// - when it spends (keep = 0: "yes" whatever the state), the tokens the chain's end spent are
//   taken off the player's counter (ExactEnds::apply, runtime/combat/combat.cpp): the procedure
//   reports the tokens left after the combat (the metric "tokens_left").
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

namespace {

// The duel's answers, enumerated: the outcomes, the expected rounds and the tokens left.
struct Duel {
  double attacker = 0, draw = 0, defender = 0, rounds = 0;
  std::vector<double> tokens;  // tokens[t]: the probability that t tokens are left
};

// `health` 2 (healthy), 1 (damaged) or 0 (lost), `tokens` left, `cruisers` left; the flagship
// uses the hook while it has more than `keep` tokens. Each round both sides roll: each of the
// flagship's two dice hits on 7 to 10 (0.4), misses by 1 on a 6 (0.1), else misses; when the
// policy says yes, each 6 in turn becomes a hit for 1 token while they last. Each cruiser hits
// with 0.4. The flagship sustains its first hit. A round where nobody is hit leaves the state as
// it was (no token is spent without a hit), so its chance is divided out.
Duel solve(int health, int tokens, int cruisers, int keep, int most_tokens,
           std::map<std::array<int, 3>, Duel>& memo) {
  if (health == 0 || cruisers == 0) {
    Duel o;
    (health > 0 ? o.attacker : cruisers > 0 ? o.defender : o.draw) = 1;
    o.tokens.assign(static_cast<std::size_t>(most_tokens) + 1, 0.0);
    o.tokens[static_cast<std::size_t>(tokens)] = 1;
    return o;
  }
  const std::array<int, 3> key{health, tokens, cruisers};
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  std::vector<double> hd{1.0};  // the cruisers' hits: Binomial(cruisers, 0.4)
  for (int i = 0; i < cruisers; ++i) {
    std::vector<double> next(hd.size() + 1, 0.0);
    for (std::size_t k = 0; k < hd.size(); ++k) next[k] += hd[k] * 0.6, next[k + 1] += hd[k] * 0.4;
    hd = next;
  }
  const bool uses = tokens > keep;           // the policy's answer in this state
  std::map<std::pair<int, int>, double> ha;  // the flagship's (hits, tokens left)
  for (int f1 = 1; f1 <= 10; ++f1)
    for (int f2 = 1; f2 <= 10; ++f2) {
      int hits = 0, left = tokens;
      for (int f : {f1, f2}) {
        if (f >= 7)
          ++hits;
        else if (f == 6 && uses && left > 0)
          ++hits, --left;
      }
      ha[{hits, left}] += 0.01;
    }
  const double stay = ha[{0, tokens}] * hd[0];
  Duel o;
  o.tokens.assign(static_cast<std::size_t>(most_tokens) + 1, 0.0);
  double rounds = 1;  // this round, then the rounds after it
  for (const auto& [roll, pa] : ha)
    for (std::size_t j = 0; j < hd.size(); ++j) {
      if (roll.first == 0 && j == 0) continue;  // nobody hit: the same state
      const double p = pa * hd[j];
      const int h = std::max(0, health - static_cast<int>(j));
      const int c = std::max(0, cruisers - roll.first);
      const Duel next = solve(h, roll.second, c, keep, most_tokens, memo);
      const double q = p / (1 - stay);
      o.attacker += q * next.attacker;
      o.draw += q * next.draw;
      o.defender += q * next.defender;
      for (std::size_t t = 0; t < o.tokens.size(); ++t) o.tokens[t] += q * next.tokens[t];
      if (h > 0 && c > 0) rounds += p * next.rounds;
    }
  o.rounds = rounds / (1 - stay);
  memo[key] = o;
  return o;
}

Duel solve(int tokens, int keep) {
  std::map<std::array<int, 3>, Duel> memo;
  return solve(2, tokens, 3, keep, tokens, memo);
}

Session duel_session(const std::string& scenario) {
  SessionOptions so;
  so.root = rb::testing::test_dir() / "fixtures" / "spend_root";
  return open_session(read_scenario(so.root / "scenarios" / scenario), so);
}

// Every number of the report against the enumeration's, to 1e-9.
void check_report(const nlohmann::json& r, const Duel& want) {
  CHECK(r.at("unresolved").get<double>() < 1e-12);
  CHECK(std::abs(r.at("attacker_win").get<double>() - want.attacker) < 1e-9);
  CHECK(std::abs(r.at("draw").get<double>() - want.draw) < 1e-9);
  CHECK(std::abs(r.at("defender_win").get<double>() - want.defender) < 1e-9);
  CHECK(std::abs(r.at("rounds_mean").get<double>() - want.rounds) < 1e-9);
  const nlohmann::json& left = r.at("tokens_left");
  REQUIRE(left.size() == want.tokens.size());
  double mean = 0;
  for (std::size_t t = 0; t < want.tokens.size(); ++t) {
    INFO(t << " tokens left");
    CHECK(std::abs(left[t].get<double>() - want.tokens[t]) < 1e-9);
    mean += static_cast<double>(t) * want.tokens[t];
  }
  CHECK(std::abs(r.at("tokens_left_mean").get<double>() - mean) < 1e-9);
}

// Monte Carlo at a fixed seed within four standard errors of the enumeration, with the step
// memo and without it (simulate --no-memo: the same rounds, each asking the policy at its state)
void check_monte_carlo(const Session& session, const Duel& want, bool memo = true) {
  const Simulation sim(session);
  SimOptions o;
  o.runs = 200'000;
  o.seed = 20261128;
  o.threads = 1;
  o.engine.memo = memo;
  INFO("step memo " << (memo ? "on" : "off"));
  const nlohmann::json mc = sim.report(sim.run(o), o.seed);
  const double n = static_cast<double>(o.runs);
  auto near = [&](double got, double p) {
    INFO("simulated " << got << ", enumerated " << p);
    CHECK(std::abs(got - p) <= 4.0 * std::sqrt(std::max(p * (1 - p), 1.0 / n) / n));
  };
  near(mc.at("attacker_win").get<double>(), want.attacker);
  near(mc.at("defender_win").get<double>(), want.defender);
  for (std::size_t t = 0; t < want.tokens.size(); ++t)
    near(mc.at("tokens_left")[t].get<double>(), want.tokens[t]);
}

}  // namespace

TEST_CASE(
    "exact mode: a policy whose answer to a spending hook reads the state is asked every round "
    "(the fire chain does not spend)",
    "[exact][exact_mode][fire_chain]") {
  const Duel keep_one = solve(3, 1);
  // the answer matters: asked once at the start (3 tokens: yes) and kept, the flagship would
  // spend its last token too
  const Duel spend_all = solve(3, 0);
  REQUIRE(keep_one.tokens[0] < 0.0025);
  REQUIRE(spend_all.tokens[0] > keep_one.tokens[0] + 0.002);
  REQUIRE(std::abs(spend_all.attacker - keep_one.attacker) > 1e-4);
  const Session session = duel_session("flagship_3_tokens_keep_1.toml");
  check_report(Simulation(session).exact(ExactRunOptions{}), keep_one);
  // the procedure's own rounds in Lua (the hook reads each die's face, the policy is asked at
  // each roll): the same numbers
  EngineOptions lua_rounds;
  lua_rounds.exchange_fire = false;
  check_report(Simulation(session).exact(ExactRunOptions{}, lua_rounds), keep_one);
  check_monte_carlo(session, keep_one);
  check_monte_carlo(session, keep_one, false);
}

TEST_CASE(
    "exact mode: the tokens the fire chain spends are taken off the player's counter (the "
    "tokens left after the combat)",
    "[exact][exact_mode][fire_chain]") {
  const Duel spend_all = solve(3, 0);
  // the tokens are spent: some runs end with fewer than 3, some with none
  REQUIRE(spend_all.tokens[3] < 0.7);
  REQUIRE(spend_all.tokens[0] > 0.004);
  const Session session = duel_session("flagship_3_tokens.toml");
  const nlohmann::json chain = Simulation(session).exact(ExactRunOptions{});
  check_report(chain, spend_all);
  EngineOptions lua_rounds;
  lua_rounds.exchange_fire = false;
  const nlohmann::json stepped = Simulation(session).exact(ExactRunOptions{}, lua_rounds);
  check_report(stepped, spend_all);
  // the chain spent them: one draw per combat, not a step per round
  CHECK(chain.at("step_runs").get<std::uint64_t>() * 4 <
        stepped.at("step_runs").get<std::uint64_t>());
  check_monte_carlo(session, spend_all);
}
