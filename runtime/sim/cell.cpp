#include "sim/cell.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "exact/explore.hpp"

namespace rb {

CellAnswer answer_cell(const Simulation& sim, const CellBounds& bounds,
                       const std::atomic<bool>* stop) {
  CellAnswer a;
  ExactRunOptions eo;
  eo.max_states = bounds.max_states;
  eo.seconds = bounds.max_seconds;
  eo.stop = stop;
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
  o.stop = stop;
  a.tally = sim.run(o);
  return a;
}

Scenario read_spec_scenario(TomlFile& f, const toml::table& t, const std::string& what) {
  const toml::node* sc = t.get("scenario");
  if (!sc) f.fail(t, what + " needs scenario = \"FILE\" or a [scenario] table");
  const std::filesystem::path dir = std::filesystem::path(f.path()).parent_path();
  if (sc->is_string()) {
    const std::filesystem::path p = dir / std::string(sc->as_string()->get());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec))
      f.fail(*sc, "no scenario file '" + p.string() + "'");
    Scenario s = read_scenario(p);
    reject_best_play(s, what);
    return s;
  }
  if (!sc->is_table())
    f.fail(*sc, "scenario is a file name or a table, not " + toml_type_name(*sc));
  Scenario s = scenario_from_table(*sc->as_table(), f.path(), dir);
  reject_best_play(s, what);
  return s;
}

void read_cell_bounds(TomlFile& f, const toml::table& t, CellBounds& b) {
  if (auto p = f.number(t, "precision")) {
    if (!(*p > 0) || !std::isfinite(*p)) f.fail(*t.get("precision"), "precision is points above 0");
    b.precision = *p;
  }
  auto whole = [&](const char* key, std::uint64_t lo,
                   std::uint64_t hi) -> std::optional<long long> {
    auto v = f.integer(t, key);
    if (v && (*v < static_cast<long long>(lo) || static_cast<std::uint64_t>(*v) > hi))
      f.fail(*t.get(key), std::string(key) + " is a whole number from " + std::to_string(lo) +
                              " to " + std::to_string(hi));
    return v;
  };
  if (auto v = whole("seed", 0, std::numeric_limits<long long>::max())) b.seed = *v;
  if (auto v = whole("max_runs", 1, 1'000'000'000'000)) b.max_runs = *v;
  if (auto v = whole("max_states", 1, 100'000'000)) b.max_states = static_cast<std::size_t>(*v);
  if (auto v = f.number(t, "max_seconds")) {
    if (!(*v > 0)) f.fail(*t.get("max_seconds"), "max_seconds is a number of seconds above 0");
    b.max_seconds = *v;
  }
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
