// The rulebench subcommands. Each returns the process exit code: 0 ok, 1 a check or test
// failed, 2 a usage or content error (main turns exceptions into 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/compare.hpp"
#include "sim/scenario.hpp"

namespace rb::cli {

struct Common {
  std::string root;
  std::vector<std::string> pack_dirs;  // --packs DIR: more folders holding packs
  SessionOptions session() const;
};

int check(const Common& c, const std::vector<std::string>& packs);
int list(const Common& c, const std::string& what, const std::string& ruleset);
int trace(const Common& c, const std::string& scenario, std::uint64_t seed, bool json,
          bool interactive, const Changes& changes);

struct SimulateArgs {
  std::string scenario;
  std::uint64_t runs = 100000;
  double precision = 0;
  std::uint64_t max_runs = 100'000'000;  // the cap of --precision
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  bool json = false;
  bool no_memo = false;  // run every step of a ctx:steps procedure (no step memo)
  bool exact = false;    // the exact mode (Engine::run_exact) instead of Monte Carlo
  std::size_t max_states = 1'000'000;  // the exact mode's limit
  Changes changes;       // --with / --without: records, packs, settings (sim/compare.hpp)
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
  Changes changes;  // arm B: the scenario with these; arm A: as written
};
int compare(const Common& c, const CompareArgs& a);

struct BenchArgs {
  std::uint64_t runs = 0;  // per scenario; 0: about `seconds` in all
  double seconds = 10;
  std::uint64_t seed = 1;
  int threads = 1;
  bool json = false;
  bool exact = false;  // time the exact mode instead
};
int bench(const Common& c, const BenchArgs& a);
int test(const Common& c, const std::vector<std::string>& paths, bool verbose);

}  // namespace rb::cli
