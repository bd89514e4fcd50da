// rulebench sweep SPEC.toml and rulebench merge SHARD.json... (sim/sweep.hpp, docs/sweep.md)
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "base/error.hpp"
#include "commands.hpp"
#include "sim/optimise.hpp"
#include "sim/sweep.hpp"

namespace rb::cli {

namespace {

void print(const nlohmann::json& raw, const SweepArgs& a) {
  if (a.json)
    std::cout << sweep_json(raw).dump() << "\n";
  else if (a.csv)
    std::cout << sweep_csv(raw);
  else
    std::cout << sweep_table(raw);
  std::cout << std::flush;
}

// A line on the terminal after each cell (or build): how many, the time so far and the time left.
std::function<void(std::uint64_t, std::uint64_t)> progress_line(const char* what) {
  const auto start = std::chrono::steady_clock::now();
  return [start, what](std::uint64_t done, std::uint64_t planned) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left =
        done ? secs / static_cast<double>(done) * static_cast<double>(planned - done) : 0;
    std::cerr << fmt::format("\r{} {}/{}  {:.1f}s  {:.1f}s left   ", what, done, planned, secs,
                             left)
              << std::flush;
  };
}

}  // namespace

int sweep(const Common& c, const SweepArgs& a) {
  SweepSpec spec = read_sweep(a.spec);
  if (a.precision > 0) spec.precision = a.precision;
  if (a.seed_given) spec.seed = a.seed;
  SweepOptions o;
  o.threads = a.threads > 0 ? a.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.shard = a.shard;
  o.shards = a.shards;
  if (isatty(STDERR_FILENO)) o.progress = progress_line("cell");
  const nlohmann::json raw = run_sweep(spec, c.session(), o);
  if (o.progress) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  if (a.shards > 1) {  // a shard file: the raw counts, for merge
    std::cout << raw.dump() << "\n" << std::flush;
    return 0;
  }
  print(raw, a);
  return 0;
}

int merge(const std::vector<std::string>& files, const SweepArgs& a) {
  std::vector<nlohmann::json> shards;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) throw UsageError("merge: cannot read '" + f + "'");
    try {
      shards.push_back(nlohmann::json::parse(in));
    } catch (const nlohmann::json::exception& e) {
      throw UsageError("merge: '" + f + "' is not a shard file (JSON): " + e.what());
    }
  }
  print(merge_sweeps(shards, files), a);
  return 0;
}

int optimise(const Common& c, const OptimiseArgs& a) {
  OptimiseSpec spec = read_optimise(a.spec);
  if (a.target >= 0) spec.target = a.target;
  if (a.top > 0) spec.top = a.top;
  if (a.precision > 0) spec.precision = a.precision;
  if (a.seed_given) spec.seed = a.seed;
  OptimiseOptions o;
  o.threads = a.threads > 0 ? a.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (isatty(STDERR_FILENO)) o.progress = progress_line("build");
  const nlohmann::json r = run_optimise(spec, c.session(), o);
  if (o.progress) std::cerr << "\r" << std::string(60, ' ') << "\r" << std::flush;
  if (a.json)
    std::cout << r.dump() << "\n";
  else
    std::cout << optimise_table(r);
  std::cout << std::flush;
  return 0;
}

}  // namespace rb::cli
