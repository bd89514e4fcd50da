// sim/cell: one scenario answered as a grid's cell is (sweep, optimise): exactly when the exact
// mode answers within its bounds, else by Monte Carlo on one seed until every probability's 95%
// half-width is below the precision. Both ways are the runtime's own (Simulation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

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

CellAnswer answer_cell(const Simulation& sim, const CellBounds& bounds);

}  // namespace rb
