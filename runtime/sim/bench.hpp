// sim/bench: the fixed benchmark of the rules-testing workflow (issue 4). Its cases are data: every
// content/<pack>/scenarios/bench_<name>.toml, named after "bench_", described by its
// `description`, with what it is measured against in its [bench] table (the runtime's: `target`,
// combats/s to reach on one thread, and `anchors`, other tools' speeds on the same battle), loaded
// with every pack of its ruleset so every hook is live, run through Simulation exactly as
// `simulate` runs them. Only the simulation loop is timed (after every thread's Engine and start
// state are built).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"

namespace rb {

struct BenchCase {
  std::string name;                                     // "a"
  std::string file;                                     // relative to the repository root
  std::string description;                              // "3 destroyers vs 2 cruisers"
  double target = 0;                                    // combats/s to reach, one thread (0: none)
  std::vector<std::pair<std::string, double>> anchors;  // other tools' combats/s, by name
  double exact_target = 0;                              // ms (bench --exact; 0: none)
  std::vector<std::pair<std::string, double>> exact_anchors;  // other tools' exact times, ms
  std::string baseline;  // the same battle without abilities, relative to the root ("": none)
};
// Every content/*/scenarios/bench_*.toml under root, sorted by name; with `only`, those cases
// (by name: "a"), and a UsageError naming the cases there are for a name none has.
std::vector<BenchCase> bench_cases(const fs::path& root, const std::vector<std::string>& only = {});

struct BenchOptions {
  std::uint64_t runs = 0;  // per case; 0: calibrated so the whole bench takes about `seconds`
  double seconds = 10;
  int threads = 1;
  std::uint64_t seed = 1;
  std::vector<std::string> only;  // case names (empty: every case)
};

struct BenchResult {
  BenchCase bench;
  std::uint64_t runs = 0;
  double seconds = 0;                 // wall time of the simulation loop
  double rate = 0;                    // combats per second
  double baseline_rate = 0;           // the baseline's combats per second (0: no baseline)
  std::vector<std::string> left_out;  // packs not loaded: house rules that change base records
  std::vector<std::string> packs;     // loaded, in load order
  // records a loaded pack overrides or removes ("base:unit/cruiser (changed by house-rules-
  // example)"): with every pack loaded, the units may not be the base units any more
  std::vector<std::string> changed_records;
  nlohmann::json report;  // simulate's object for the runs
  // the columns of the table: (heading, report key): the report's declared wins and draws (the
  // first side's win, the draws, the second side's win), else its first three outcomes
  std::vector<std::pair<std::string, std::string>> columns;
};

std::vector<BenchResult> run_bench(const SessionOptions& options, const BenchOptions& bench);

// bench --exact: the exact mode on every case, each timed as the median of several explorations.
struct ExactBenchResult {
  BenchCase bench;
  nlohmann::json report;  // Simulation::exact's object ("seconds": the median)
  std::string stopped;    // the limit that stopped it ("" when it finished)
  int repeats = 0;
  // bench --exact --best SIDE: SIDE's best play (Simulation::exact_best, objective win) on the
  // same case, "seconds" the median of best_repeats; or what stopped it
  nlohmann::json best;
  std::string best_stopped;
  int best_repeats = 0;
};
// `best`: also time that side's best play (attacker, defender, both; "": not).
std::vector<ExactBenchResult> run_exact_bench(const SessionOptions& options, double seconds,
                                              const std::vector<std::string>& only = {},
                                              const std::string& best = {});
nlohmann::json exact_bench_json(const std::vector<ExactBenchResult>& results);
std::string format_exact_bench(const std::vector<ExactBenchResult>& results);
nlohmann::json bench_json(const std::vector<BenchResult>& results, const BenchOptions& bench);
std::string format_bench(const std::vector<BenchResult>& results, const BenchOptions& bench);

}  // namespace rb
