// The rulebench subcommands. Each returns the process exit code: 0 ok, 1 a check or test
// failed, 2 a usage or content error (main turns exceptions into 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "script/engine.hpp"
#include "sim/compare.hpp"
#include "sim/scenario.hpp"

namespace rb::cli {

struct Common {
  std::string root;
  std::vector<std::string> pack_dirs;  // --packs DIR: more folders holding packs
  SessionOptions session() const;
};

int check(const Common& c, const std::vector<std::string>& packs, bool json = false);

// luacheck over Lua files (lint.cpp), when luacheck is installed: errors (a syntax error, an
// undefined or written global) fail a check, warnings are listed.
struct Lint {
  bool ran = false;  // false: luacheck is not installed
  std::vector<std::string> errors, warnings;
};
Lint lint_scripts(const Engine& engine, const std::vector<fs::path>& files);
// What neither luacheck nor loading sees, in Lua files (lint.cpp): `ctx:NAME` calls a method the
// API documents (script/api_doc), and `ctx:activate("ID")` names a declared modifier. Each
// problem as "file:line: ..." with the nearest valid name; every one fails a check.
std::vector<std::string> check_script_names(const Content& content,
                                            const std::vector<fs::path>& files);
// The JSON Schemas of the TOML formats and .taplo.toml, as (path, text) (schema.cpp).
std::vector<std::pair<fs::path, std::string>> schema_files(const SessionOptions& so,
                                                           const std::vector<std::string>& rulesets,
                                                           const fs::path& dir, bool repository);
// The .luacheckrc `rulebench types` writes for a pack: the sandbox's globals (types.cpp).
std::string luacheck_config(const Engine& engine);
// with_packs: packs that change other packs' records, listed with their changes (left out by
// default: what is listed is what a scenario that does not name them sees)
int list(const Common& c, const std::string& what, const std::string& ruleset, bool json = false,
         const std::vector<std::string>& with_packs = {});
// verbose: every event of the narrative (rules that showed nothing, repeated windows)
int trace(const Common& c, const std::string& scenario, std::uint64_t seed, bool json,
          bool interactive, const Changes& changes, bool verbose = false);
// trace --best SIDE: one run drawn (seed) through SIDE's best play, with every option's value at
// each of its decisions
int trace_best(const Common& c, const std::string& scenario, std::uint64_t seed, bool json,
               const Changes& changes, const std::string& side, const std::string& objective);

struct SimulateArgs {
  std::string scenario;
  std::uint64_t runs = 100000;
  double precision = 0;                  // --precision: every probability's 95% half-width below it
  double precision_mean = 0;             // --precision-mean: every mean's 95% half-width below it
  std::uint64_t max_runs = 100'000'000;  // the cap of --precision and --precision-mean
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  bool json = false;
  bool no_memo = false;                // run every step of a ctx:steps procedure (no step memo)
  bool exact = false;                  // the exact mode (Engine::run_exact) instead of Monte Carlo
  std::size_t max_states = 1'000'000;  // the exact mode's limit
  std::uint64_t max_branches = 200'000;  // the exact mode's leaves of one step from one state
  std::size_t max_memory = 2048;         // the exact mode's chain, in MiB
  double max_seconds = 120;              // the exact mode's time limit
  std::string best;                      // --best SIDE|both: that side's best play (the exact mode)
  std::string objective = "win";         // --objective win|not_lose|metric:NAME|metric:-NAME
  bool decisions = false;  // --decisions: the best side's first decisions, each option's value
  Changes changes;         // --with / --without: records, packs, settings (sim/compare.hpp)
  bool monte_carlo_asked = false;  // --runs, --precision, --precision-mean or --max-runs given
  bool objective_given = false;    // --objective given (it overrides the scenario's [play])
};
int simulate(const Common& c, const SimulateArgs& a);

struct CompareArgs {
  std::string scenario;
  std::uint64_t runs = 100000;  // pairs of runs
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  bool json = false;
  bool exact = false;  // both arms in the exact mode
  std::size_t max_states = 1'000'000;
  std::size_t max_memory = 2048;  // MiB, each arm
  double max_seconds = 120;       // each arm
  Changes changes;                // arm B: the scenario with these; arm A: as written
  std::uint64_t rounds = 0;       // --rounds k: both arms stop every combat after round k
};
int compare(const Common& c, const CompareArgs& a);

// rulebench sweep SPEC.toml (sweep.cpp, sim/sweep.hpp): a grid of scenario variants
struct SweepArgs {
  std::string spec;
  double precision = 0;  // points; 0: the spec's (default 0.5)
  std::uint64_t seed = 1;
  bool seed_given = false;
  int threads = 0;            // cells at once; 0: every core
  int shard = 1, shards = 1;  // --shard i/N
  bool json = false, csv = false;
};
int sweep(const Common& c, const SweepArgs& a);
// rulebench merge SHARD.json...: the shards' cells printed as the unsharded sweep prints them
int merge(const std::vector<std::string>& files, const SweepArgs& a);
// rulebench optimise SPEC.toml (sweep.cpp, sim/optimise.hpp): the best builds for a budget
struct OptimiseArgs {
  std::string spec;
  double target = -1;    // < 0: the spec's
  std::size_t top = 0;   // 0: the spec's (default 10)
  double precision = 0;  // points; 0: the spec's (default 0.5)
  std::uint64_t seed = 1;
  bool seed_given = false;
  int threads = 0;  // builds at once; 0: every core
  bool json = false;
};
int optimise(const Common& c, const OptimiseArgs& a);

// rulebench import URL: the scenario of another tool's link (import.cpp, sim/link_import)
struct ImportArgs {
  std::string url;
  std::string output;   // "" or "-": stdout
  bool strict = false;  // a parameter not understood is an error (exit 1, nothing written)
  bool json = false;    // POST /api/import's reply: {format, place, procedure, scenario, setup,
                        // notes, unknown}
};
int import_link(const Common& c, const ImportArgs& a);

struct BenchArgs {
  std::uint64_t runs = 0;  // per scenario; 0: about `seconds` in all
  double seconds = 10;
  std::uint64_t seed = 1;
  int threads = 1;
  bool json = false;
  bool exact = false;              // time the exact mode instead
  std::string best;                // with exact: time this side's best play too ("": not)
  std::vector<std::string> cases;  // case names (empty: every case)
};
int bench(const Common& c, const BenchArgs& a);
// rules tests; json: one JSON object instead of the lines; junit: also a JUnit XML file
int test(const Common& c, const std::vector<std::string>& paths, bool verbose, bool json = false,
         const std::string& junit = {});

// rulebench new pack NAME [--ruleset ID] [DIR] (scaffold.cpp)
struct NewPackArgs {
  std::string what;             // "pack"
  std::string name;             // the pack id
  std::string ruleset = "ti4";  // whose template (scripts/<ruleset>/new_pack/)
  std::string dir;              // the pack's folder ("": ./NAME)
};
int new_pack(const Common& c, const NewPackArgs& a);

// rulebench types [--ruleset ID] [--check] [DIR] (types.cpp): types/rulebench.lua, .luarc.json
// and .luacheckrc in DIR; with check, writes nothing and returns 1 when one is out of date.
int write_types(const Common& c, const std::string& ruleset, const fs::path& dir, bool check,
                bool quiet = false);

}  // namespace rb::cli
