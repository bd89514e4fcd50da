// sim/optimise: the best builds for a budget against a given fleet (docs/optimise.md). A spec names
// a base scenario, the side that builds, the unit types it may build and a budget (resources,
// fleet supply, capacity, a least and a most per type); every legal build is enumerated, ordered
// by promise (expected hits per round), screened by a quick Monte Carlo of a few runs each when
// there are more than it evaluates, and the best of the screen are evaluated as a sweep's cell is
// (sim/sweep.hpp: exact within the bounds, else Monte Carlo to a precision), ranked by the
// objective: P(win), P(not lose) or the expected resources of the side's surviving units.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"

namespace rb {

struct OptimiseSpec {
  std::string file;  // the spec file, for messages
  Scenario base;
  std::string side = "attacker";   // the side that builds
  std::vector<std::string> units;  // the unit types it may build (empty: every ship it may have)
  long long resources = 0;         // the budget
  long long fleet_supply = -1;     // non-fighter ships at most (-1: no limit)
  long long production = -1;       // units at most, each fighter and infantry one (-1: no limit)
  bool capacity = true;            // fighters (and ground forces) need capacity
  std::map<std::string, long long> min, max;  // per type
  std::string objective = "win";              // win | not_lose | resources_kept
  std::size_t top = 10;                       // builds printed
  double target = -1;                         // the cheapest build reaching it (< 0: none)
  std::size_t max_builds = 1'000'000;         // the most legal builds enumerated
  std::size_t evaluate = 300;                 // the most builds evaluated
  // the quick stage, when more builds are legal than `evaluate`: the most promising `screen`
  // (0: none) run screen_runs times each; the best by that estimate are evaluated
  std::size_t screen = 2000;
  std::uint64_t screen_runs = 200;
  double precision = 0.5;  // Monte Carlo: 95% half-width, in points
  std::uint64_t seed = 1;
  std::uint64_t max_runs = 10'000'000;
  std::size_t max_states = 200'000;  // the exact mode's bounds per build
  double max_seconds = 5;
};

// Reads a spec; throws ContentError naming the file and line.
OptimiseSpec read_optimise(const fs::path& file);

struct OptimiseOptions {
  int threads = 1;
  std::function<void(std::uint64_t, std::uint64_t)> progress;  // (builds done, planned)
};

// The unit types, the builds enumerated and the evaluated ones, best first
// (schemas/output/optimise.schema.json).
nlohmann::json run_optimise(const OptimiseSpec& spec, const SessionOptions& so,
                            const OptimiseOptions& o);

// The terminal's table of run_optimise's result.
std::string optimise_table(const nlohmann::json& result);

}  // namespace rb
