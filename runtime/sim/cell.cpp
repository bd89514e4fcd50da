#include "sim/cell.hpp"

#include "base/error.hpp"
#include "exact/explore.hpp"

namespace rb {

CellAnswer answer_cell(const Simulation& sim, const CellBounds& bounds) {
  CellAnswer a;
  ExactRunOptions eo;
  eo.max_states = bounds.max_states;
  eo.seconds = bounds.max_seconds;
  try {
    a.exact = sim.exact(eo);
    return a;
  } catch (const ExactLimit&) {  // past the bounds: Monte Carlo
  } catch (const UsageError&) {  // a report the exact mode cannot give
  }
  SimOptions o;
  o.precision = bounds.precision / 100;
  o.max_runs = bounds.max_runs;
  o.seed = bounds.seed;
  o.threads = 1;
  a.tally = sim.run(o);
  return a;
}

}  // namespace rb
