// sim/simulate: Monte Carlo over a session. Run i draws from the dice stream (seed, i), so the
// result does not depend on how runs are spread over threads; every tally is an integer (counts
// and histograms), so merging is exact and the output is byte-identical whatever --threads is.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"

namespace rb {

struct SimOptions {
  std::uint64_t runs = 100000;
  // > 0: run until every reported probability's 95% half-width (outcomes and the report's
  // probabilities) is below it
  double precision = 0;
  // > 0: run until every reported mean's 95% half-width (the means with an interval) is below it
  double precision_mean = 0;
  std::uint64_t max_runs = 100'000'000;
  std::uint64_t seed = 1;
  int threads = 1;
  // Called from the coordinating thread with (runs done, runs planned) a few times a second.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  double* loop_seconds = nullptr;  // out: wall time of the runs, after every thread's setup
  // When set (by a signal handler), no new chunk of runs starts: run() returns the tally of the
  // runs done so far (whole chunks, so not a prefix of the run indices).
  const std::atomic<bool>* stop = nullptr;
  EngineOptions engine;  // for every thread's engine
};

// Integer tallies of many runs.
struct Tally {
  std::uint64_t runs = 0;
  std::vector<std::uint64_t> outcomes;                                // by report outcome
  std::map<std::string, std::map<long long, std::uint64_t>> metrics;  // metric -> value -> runs
  // side -> unit type -> number surviving -> runs
  std::map<std::string, std::map<std::string, std::vector<std::uint64_t>>> survivors;
  // side -> the number left of each counted type (in combination_types' order) -> runs: what
  // the report's units_left and combinations_left are read from
  std::map<std::string, std::map<std::vector<std::uint32_t>, std::uint64_t>> combinations;
  std::map<std::string, std::vector<std::string>> combination_types;  // side -> counted types
  // side -> the units counted at the start, and how many of its combination_types they make up
  // (the first ones: the others are types of units created during runs, sim/survivors.hpp)
  std::map<std::string, std::size_t> began, began_types;
  // the counted units each report side keeps, every type together (in the report's order) ->
  // runs: who ends with units, jointly (the report's S_ends)
  std::map<std::vector<std::uint32_t>, std::uint64_t> ends;
  std::map<std::string, std::string> labels;  // metric -> what setup called it (ctx:label)
  // report side (a role) -> the name of the player who has it, when that is another name
  // ("first_player" -> "rebel"): the report says whose survivors they are
  std::map<std::string, std::string> side_names;
  void merge(const Tally& o);
};

struct Interval {
  double lo, hi;
};
// Wilson score interval for k successes in n trials, 95%.
Interval wilson(std::uint64_t k, std::uint64_t n);

class Simulation {
 public:
  explicit Simulation(const Session& session);
  Tally run(const SimOptions& options) const;
  // The report of a tally: the JSON object of the ruleset's report definition.
  nlohmann::json report(const Tally& t, std::uint64_t seed) const;
  // The exact mode (Engine::run_exact): the same report, its numbers exact, "method": "exact"
  // and no intervals; with "states" (nodes of the chain), "step_runs" and "unresolved" (the
  // probability of the ways not followed to their end, 0 unless some were pruned). Throws
  // ExactLimit past the options' limits.
  // `repeats` > 1: the exploration is run that many times and "seconds" is the median (bench).
  nlohmann::json exact(const ExactRunOptions& o, const EngineOptions& engine = {},
                       int repeats = 1) const;
  // Best play (docs/exact.md): the exact mode with `side`'s decisions chosen to maximise its
  // objective ("win": the chance of its win, the report's `wins`; "not_lose": of its win or a
  // draw, `draws`; "metric:NAME": the expectation of a mean of the report, "metric:-NAME" its
  // opposite) against the other sides' policies; `side` "both": the report's two sides answer
  // each other in turn (the second side's objective is its own win, or the metric's opposite).
  // The best play's report, with "best" = {side, objective, policy, best, gain, gain_points,
  // settled, iterations, choice_nodes[, sides, rounds, rounds_settled, round_values][,
  // decisions]} and "policy" the policy's report (exact). Throws UsageError when the report
  // declares no win for `side`, or no such mean.
  nlohmann::json exact_best(const ExactRunOptions& o, const std::string& side,
                            const std::string& objective, bool decisions = false) const;
  // Best play with fixed dice (a rules test's [play]): the decisions of `side` (one side) in the
  // run the forced dice make, each the option of highest value for `objective` given the dice
  // before it (ExactRunOptions::best_forced_walk), for RunOptions::best_picks.
  RunOptions::BestPicks best_picks(const ExactRunOptions& o, const std::string& side,
                                   const std::string& objective,
                                   const std::vector<DiceStream::Forced>& forced) const;
  // The scenario's [play] (best_play_of) checked against the report: a ContentError at its line
  // for a side the report does not have, "both" with a report of other than two sides, or an
  // objective the report cannot give.
  std::string scenario_best() const;
  BestObjective best_objective(const std::string& side, const std::string& objective, bool negate,
                               std::function<double(const nlohmann::json&)>* of_report) const;
  // The largest 95% half-width among the reported probabilities (outcomes and the report's
  // probabilities), and among the reported means with an interval.
  double widest(const Tally& t) const;
  double widest_mean(const Tally& t) const;
  // The number of runs the tally's estimates say --precision and --precision-mean need: for a
  // probability p (estimated as (k+2)/(n+4), so a count of 0 still asks for runs) z^2 p(1-p)/P^2,
  // for a mean of standard deviation sd (z sd/M)^2; the largest of them, 0 when neither is set.
  double runs_needed(const Tally& t, double precision, double precision_mean) const;
  const Session& session() const { return session_; }
  const ReportDef& report_def() const { return report_; }
  // The outcome of each run of the ranges [first, last), in order, on one thread (the report's
  // outcome index, -1 for none): what a sweep pairs along a row, run i drawing from the stream
  // (seed, i) in every cell. When `stop` is set it returns early, with the runs done.
  std::vector<int> run_outcomes(std::uint64_t seed,
                                const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges,
                                const std::atomic<bool>* stop = nullptr) const;

 private:
  void for_each_estimate(const Tally& t, const std::function<void(std::uint64_t)>& probability,
                         const std::function<void(double)>& mean_sd) const;
  void run_range(Table& table, std::uint64_t seed, std::uint64_t first, std::uint64_t last,
                 Tally& out) const;
  const Session& session_;
  ReportDef report_;
};

// A readable summary: probabilities with intervals, means, survivor bar charts.
std::string format_report(const nlohmann::json& report, const ReportDef& def);

}  // namespace rb
