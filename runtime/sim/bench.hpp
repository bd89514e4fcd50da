// sim/bench: the fixed benchmark of the rules-testing workflow (issue 4). Three TI4 space
// combats with base units and default policies (content/ti4-base/scenarios/bench_*.toml), loaded
// with every pack of the ruleset so every hook is live, run through Simulation exactly as
// `simulate` runs them. Only the simulation loop is timed (after every thread's Engine and start
// state are built). The anchors are the published calculators' speeds on the same combats
// (shared/reference/anchors.md), and the target is the issue's: twice the fastest of them.
// A pack adds a case by shipping content/<pack>/scenarios/bench_<name>.toml (its `description`
// key describes it): such cases run after the anchored ones, with no anchor (0) and no target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"

namespace rb {

struct BenchCase {
  std::string name;         // "a"
  std::string file;         // relative to the repository root
  std::string description;  // "3 destroyers vs 2 cruisers"
  double alpha_mouse_mc;    // combats/s of alpha-mouse/ti4calc's simulator (fastest anchor)
  double pgsandstrom_mc;    // combats/s of pgsandstrom/ti4calc
  double target;            // combats/s to reach, one thread
};
const std::vector<BenchCase>& bench_cases();  // the anchored cases
// The other content/*/scenarios/bench_*.toml under root, sorted by path (name: after "bench_").
std::vector<BenchCase> pack_bench_cases(const fs::path& root);

struct BenchOptions {
  std::uint64_t runs = 0;  // per case; 0: calibrated so the whole bench takes about `seconds`
  double seconds = 10;
  int threads = 1;
  std::uint64_t seed = 1;
};

struct BenchResult {
  BenchCase bench;
  std::uint64_t runs = 0;
  double seconds = 0;                 // wall time of the simulation loop
  double rate = 0;                    // combats per second
  std::vector<std::string> left_out;  // packs not loaded: house rules that change base records
  std::vector<std::string> packs;     // loaded, in load order
  // records a loaded pack overrides or removes ("ti4-base:unit/cruiser (changed by homebrew-
  // example)"): with every pack loaded, the units may not be the base units any more
  std::vector<std::string> changed_records;
  nlohmann::json report;  // simulate's object for the runs
};

std::vector<BenchResult> run_bench(const SessionOptions& options, const BenchOptions& bench);
nlohmann::json bench_json(const std::vector<BenchResult>& results, const BenchOptions& bench);
std::string format_bench(const std::vector<BenchResult>& results, const BenchOptions& bench);

}  // namespace rb
