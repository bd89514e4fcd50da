// sim/cell: one scenario answered as a grid's cell is (sweep, optimise): exactly when the exact
// mode answers within its bounds, else by Monte Carlo on one seed until every probability's 95%
// half-width is below the precision. Both ways are the runtime's own (Simulation).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "content/toml_read.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

namespace rb {

struct CellBounds {
  double precision = 0.5;  // Monte Carlo: every probability's 95% half-width, in points
  std::uint64_t seed = 1;
  std::uint64_t max_runs = 10'000'000;
  std::size_t max_states = 200'000;  // the exact mode's bounds
  double max_seconds = 5;
};

struct CellAnswer {
  std::optional<nlohmann::json> exact;  // the exact report, when the exact mode answered
  Tally tally;                          // else the Monte Carlo runs (one thread)
};

// `stop`, when set from another thread, ends the exploration or the runs early (serve's cancel);
// the answer is then partial and the caller drops it.
CellAnswer answer_cell(const Simulation& sim, const CellBounds& bounds,
                       const std::atomic<bool>* stop = nullptr);

// A spec's base scenario (sweep, optimise): scenario = "FILE" (relative to the spec) or a
// [scenario] table; `what` names the spec in messages ("a sweep spec").
Scenario read_spec_scenario(TomlFile& f, const toml::table& t, const std::string& what);
// A spec's keys precision, seed, max_runs, max_states and max_seconds, where given, into `b`.
void read_cell_bounds(TomlFile& f, const toml::table& t, CellBounds& b);

// Runs job(0) .. job(n - 1) on `threads` threads (the caller's among them), each index once;
// progress(done, n), if given, after each (one at a time). The first exception a job throws is
// thrown again once every thread has stopped (the others take no new index after it).
void for_each_cell(std::size_t n, int threads, const std::function<void(std::size_t)>& job,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress);

}  // namespace rb
