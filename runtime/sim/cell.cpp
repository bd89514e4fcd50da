#include "sim/cell.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

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

void for_each_cell(std::size_t n, int threads, const std::function<void(std::size_t)>& job,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex m;
  std::exception_ptr failure;
  auto work = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= n) return;
      {
        std::lock_guard lock(m);
        if (failure) return;
      }
      try {
        job(i);
      } catch (...) {
        std::lock_guard lock(m);
        if (!failure) failure = std::current_exception();
        return;
      }
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard lock(m);
        progress(d, n);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace rb
