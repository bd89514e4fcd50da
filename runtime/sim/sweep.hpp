// sim/sweep: a grid of variants of one scenario (docs/sweep.md). A spec names a base scenario and
// axes (factions, fleets, technologies, cards, packs, roles, any --with change); the first axis
// makes the rows, the cross product of the others the columns. Every cell is answered exactly when
// the exact mode can within the spec's bounds, else by Monte Carlo to a stated precision, every
// cell on the same seed (common random numbers along a row and a column).
//
// A cell's result is counts (the runs and the runs of each outcome) or exact probabilities, never
// rates; the outputs are computed from them alone, so the cells of shards (--shard i/N: the cells
// k with k % N == i - 1) merge into exactly the bytes of the unsharded run. A Monte Carlo cell
// takes a fixed number of runs, in blocks of kSweepBlock (sweep_runs); with `exact = false` every
// cell is Monte Carlo and the unit a shard takes is a row's block (docs/sweep.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/changes.hpp"
#include "sim/scenario.hpp"

namespace rb {

// One value of an axis: what it changes in the base scenario, and its label.
struct AxisValue {
  std::string label;
  Changes changes;              // --with / --without forms
  std::string side;             // fleets: the side whose units it sets
  toml::table units;            // fleets: a units table (empty: none)
  bool fleet_starting = false;  // fleets: fleet = "starting"
  bool swap_roles = false;      // roles: the two sides' tables swapped
};

struct Axis {
  std::string name;  // for people: "attacker faction"
  std::vector<AxisValue> values;
};

struct SweepSpec {
  std::string file;  // the spec file, for messages
  Scenario base;
  std::vector<Axis> axes;  // the first: rows; the others: columns
  std::string show;        // the outcome shown ("" : the report's first)
  std::string reference;   // the reference column's label ("" : the first column)
  double precision = 0.5;  // Monte Carlo: every probability's 95% half-width, in points
  std::uint64_t seed = 1;
  std::uint64_t max_runs = 10'000'000;
  std::size_t max_states = 200'000;  // the exact mode's bounds per cell
  double max_seconds = 5;
  bool exact = true;  // false: every cell by Monte Carlo, without trying the exact mode
};

// A Monte Carlo cell's runs come in blocks of this many (the last one shorter at max_runs).
inline constexpr std::uint64_t kSweepBlock = 2048;
// The runs of every Monte Carlo cell: the fewest whole blocks that put any probability's 95%
// half-width below `precision` points (the widest is at p = 1/2: z^2 / (4 P^2) runs), at most
// max_runs. Fixed before any run, so a cell's runs split into shards the same way for any N.
std::uint64_t sweep_runs(double precision, std::uint64_t max_runs);

// Reads a spec; throws ContentError naming the file and line.
SweepSpec read_sweep(const fs::path& file);
// A spec's text whose base scenario is given (rulebench serve: the request's scenario); a
// `scenario` key in the text is an error. `name` names the text in messages.
SweepSpec read_sweep_text(const std::string& name, std::string_view text, Scenario base);

// The number of cells the spec's grid has (the product of its axes' sizes), without making the
// grid; past 2^64 it stays at the largest value.
std::uint64_t sweep_cells(const SweepSpec& spec);

struct SweepOptions {
  int threads = 1;            // cells at once
  int shard = 1, shards = 1;  // this run's slice: cells k with k % shards == shard - 1
  // (cells done, cells planned), from the coordinating thread
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // When set from another thread (serve's cancel), no cell starts and the cells in progress are
  // dropped: the result holds the cells done before it, and "interrupted": true.
  const std::atomic<bool>* stop = nullptr;
  // serve's heat map, cell by cell: the result without cells, before the first cell runs; then
  // each cell's raw result as it is done (one call at a time).
  std::function<void(const nlohmann::json&)> started, cell_done;
};

// The grid's cells: labels, and for each cell of the slice its raw result
// {"cell": k, "method": "exact", "p": [p per outcome]} or
// {"cell": k, "method": "monte_carlo", "runs": n, "counts": [runs per outcome], "paired":
// [n_plus, n_minus]} (paired: when the row's reference cell is Monte Carlo too, the runs i whose
// shown outcome happened in this cell and not in the reference's, and the other way round).
// A shard of an `exact = false` sweep holds some blocks of a cell: its entry adds "blocks".
// With shards > 1 it is a shard file ("shard": {"index", "count"}), which merge_sweeps reads.
nlohmann::json run_sweep(const SweepSpec& spec, const SessionOptions& so, const SweepOptions& o);

// The shard files of one sweep as the unsharded run's raw result (every cell once; throws
// UsageError naming what is missing, doubled or from another sweep).
nlohmann::json merge_sweeps(const std::vector<nlohmann::json>& shards,
                            const std::vector<std::string>& names);

// The session of cell k (row-major) of the spec's grid: the base with the cell's changes; what
// run_sweep answers for that cell (serve opens a cell as a battle on the page from it).
Session sweep_cell_session(const SweepSpec& spec, const SessionOptions& so, std::size_t k);

// One raw cell with what the outputs compute from it alone: its row and column, the shown
// value and its 95% interval (equal ends when exact). Needs the raw result's `columns` and
// `shown`; the difference to the reference column needs that cell too (sweep_json).
nlohmann::json sweep_cell_json(const nlohmann::json& raw, const nlohmann::json& cell);

// The outputs of a raw result with every cell: the JSON (schemas/sweep.schema.json), CSV and
// the terminal's table.
nlohmann::json sweep_json(const nlohmann::json& raw);
std::string sweep_csv(const nlohmann::json& raw);
std::string sweep_table(const nlohmann::json& raw);

}  // namespace rb
