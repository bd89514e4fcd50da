// script/engine: the public face of the Lua host. An Engine loads a ruleset's procedures,
// setup and policies and every pack's scripts into one Lua state (each pack in its own sandboxed
// environment), freezes the registrations, builds start states from scenarios and runs
// procedures on states. One Engine per thread: it is not shared. The rest of the runtime and the
// tools speak to Lua only through this header; no Lua type appears here.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "content/content.hpp"
#include "decide/decide.hpp"
#include "dice/dice.hpp"
#include "events/events.hpp"
#include "exact/best.hpp"
#include "state/state.hpp"
#include "trace/trace.hpp"

namespace rb {

struct EngineOptions {
  std::int64_t hook_budget = 50'000'000;  // Lua instructions one hook, policy or setup call may use
  double procedure_seconds = 60;          // time limit of one procedure run (kept by a watchdog)
  // Lua instructions one procedure run may use, its hooks and policies included (0: none, only
  // the time limit). Tests set it to bound a procedure's work without timing it.
  std::int64_t procedure_budget = 0;
  std::size_t memory_limit = 512u << 20;  // bytes the Lua state may hold
  bool interactive = false;               // ask a person when no script or policy answers
  bool exchange_fire =
      true;  // ctx:exchange_fire runs rounds in C++ (false: it declines every round)
  // best play: a node's rounds run in C++ are put together from the round's parts, made once per
  // start (combat::round_parts; false: each draw runs the round, as tests compare)
  bool round_parts = true;
  // best play, one side, neither --decisions nor a walk: a combat whose rounds run in C++ with
  // the best side's hits its only decisions is solved as a decision process over the combat's
  // states (exact/process.hpp; false: one round a step, as tests compare)
  bool best_process = true;
  // ctx:steps remembers what each step did from each state and replays it (script/memo.hpp);
  // false: every step runs. Off anyway in a run that is traced, forced, scripted or interactive.
  bool memo = true;
  std::size_t memo_bytes =
      128u << 20;  // what the memo may keep (per engine), then it stops growing
  // check and test: compare what scripts could keep (upvalues, globals, tables reachable from
  // them) before and after each run; a change is a ScriptError naming the hook and the variable
  bool check_state = false;
};

struct RunOptions {
  std::uint64_t seed = 1;
  std::uint64_t run = 0;
  Trace* trace = nullptr;                  // null: no trace
  ScriptedAnswers* answers = nullptr;      // consumed in order (reset by the caller)
  std::vector<DiceStream::Forced> forced;  // forced dice, consumed in order
  bool strict_dice = false;                // error when the run rolls past the forced dice
  // Best play with fixed dice (a rules test's [play]): the decisions of the player with this
  // role take these options, in order (ExactResult::best_picks, found by the exact mode with
  // the same forced dice); null: none
  struct BestPicks {
    Sym role = kNoSym;
    struct Pick {
      std::uint32_t k = 0;               // the option, as the exact mode indexes it (policy first)
      std::string decision;              // its words: the decision
      std::vector<std::string> options;  // and its options in that order
      std::vector<double> values;        // each option's value
    };
    std::vector<Pick> picks;
    bool percent = true;  // the values are chances (else a metric's expectation)
  };
  const BestPicks* best_picks = nullptr;
};

struct RunResult {
  int outcome = -1;  // index into the report's outcomes, -1 if the procedure set none
  std::string outcome_name;
  std::vector<std::pair<Sym, double>> metrics;
  std::size_t forced_used = 0, forced_left = 0;
  std::vector<ScriptedAnswer> unused_answers;
  void clear() { outcome = -1, outcome_name.clear(), metrics.clear(); }
  double metric(std::string_view name, double fallback = 0) const;
};

// The exact mode (Engine::run_exact): every way a run can go, with its probability.
struct ExactRunOptions {
  std::size_t max_states = 1'000'000;            // nodes of the chain (exact/markov.hpp)
  std::size_t max_bytes = std::size_t{2} << 30;  // what the chain may take (about; 2 GiB)
  std::uint64_t max_branches = 200'000;          // leaves of one step from one node
  std::uint64_t max_step_runs = 20'000'000;
  double seconds = 600;                     // the exploration's time limit (a run's is 60 s)
  double prune = 1e-16;                     // nodes less likely than this are not expanded
  const std::atomic<bool>* stop = nullptr;  // set from another thread: stops (ExactLimit)
  // Best play (docs/exact.md): the role whose decisions are choices (kNoSym: the policy plays
  // every side) and what it maximises; with --best both, the second role and its objective too
  // (the roles then answer each other in turn, at most best_rounds rounds).
  Sym best = kNoSym;
  BestObjective best_objective;
  Sym best_second = kNoSym;
  BestObjective second_objective;
  std::size_t best_rounds = 20;
  bool best_decisions = false;  // the first side's first decisions (BestPlay::decisions)
  bool best_walk = false;       // one run drawn through the best play (BestPlay::walk)
  std::uint64_t best_walk_seed = 1;
  // Best play with fixed dice: the run these dice make, the best side taking at each decision
  // the option of highest value (ExactResult::best_picks). A decision is valued by the node its
  // step ends in, so no die of its step may come after it (an error says so).
  bool best_forced_walk = false;
  std::vector<DiceStream::Forced> best_forced;
};
struct ExactResult {
  struct Final {
    double p = 0;
    State state;  // as the run leaves it
    int outcome = -1;
    std::string outcome_name;
    std::vector<std::pair<Sym, double>> metrics;  // the last value of each metric set
  };
  std::vector<Final> finals;
  std::vector<std::pair<Sym, double>> added;  // metrics added to (ctx:add_metric): expected sums
  double unresolved = 0;     // probability of the ways not followed to their end (pruned)
  std::size_t states = 0;    // nodes of the chain
  std::uint64_t leaves = 0;  // step runs
  std::size_t cycles = 0, largest_cycle = 0;  // strongly connected sets solved as systems
  // best play (ExactRunOptions::best): the finals, added and unresolved above are its chain's;
  // a decision's `to` (and a walk step's nodes) is an index into decision_states
  std::optional<BestPlay> best;
  std::vector<State> decision_states;  // the states the first decisions start from and lead to
  // best_forced_walk: the best side's decisions in the run the forced dice make, in order
  std::vector<RunOptions::BestPicks::Pick> best_picks;
};

class Engine {
 public:
  explicit Engine(std::shared_ptr<const Content> content, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const Content& content() const;
  const EventBus& bus() const;

  // Builds `state` from a scenario (its TOML table; `file` names it in errors) by calling the
  // ruleset's setup script. Throws ContentError or ScriptError.
  // `source`, when given, is the file the table came from: a copied table has lost its lines,
  // and an error looks them up there.
  void setup(const toml::table& scenario, const std::string& file, State& state,
             const fs::path& source = {});

  // Runs a procedure on `state`, changing it. Throws ScriptError (with pack, file:line, hook
  // and window) when a script fails.
  void run(std::string_view procedure, State& state, const RunOptions& options, RunResult& result);

  // Runs a procedure on `start` in the exact mode: every draw is enumerated instead of sampled,
  // and the run is a Markov chain over (step, state) (exact/markov.hpp): each step of
  // ctx:steps is a node's move; a procedure without ctx:steps is one step. Throws UsageError for
  // what cannot be enumerated (interactive answers), ExactLimit past the limits, ScriptError.
  ExactResult run_exact(std::string_view procedure, const State& start, const ExactRunOptions& o);

  // What setup called each metric of the report (ctx:label), in the order it said so: the
  // report prints "planet_1_controlled (Abyz)".
  const std::vector<std::pair<std::string, std::string>>& labels() const;

  // The attribute slots that the hit assignments the scripts asked for so far name `damaged`
  // (ctx:assign_hits' and ctx:exchange_fire's spec): the runtime sets it to 1 on a unit that
  // sustains and to 0 on one repaired. Best play's tables read a change of one as damage or
  // repair. In the order first seen.
  const std::vector<int>& damaged_attributes() const;

  // The nodes (step, state) the step memo holds, and its bytes (tests, --json).
  std::size_t memo_nodes() const;
  std::size_t memo_execute_only() const;  // of those, the nodes run every time (too many draws)
  std::size_t memo_steps_run() const;     // the steps run from its nodes, not replayed
  std::size_t memo_bytes() const;

  // The methods the binding registers on `ctx` ("ctx") or on a dice pool ("pool"), sorted
  // (rulebench types; a test checks script/api_doc.hpp lists each).
  std::vector<std::string> api_names(std::string_view table) const;
  // The globals every script's environment holds before any script loads (the same for packs
  // and the ruleset): name -> its fields, sorted (a library's functions; none for a function).
  const std::map<std::string, std::vector<std::string>>& sandbox_globals() const;

  struct Impl;  // script/lua_host.hpp, seen only by runtime/script/

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace rb
