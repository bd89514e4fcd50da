// sim/compare: a scenario against a variant of it (the variant is a scenario change,
// sim/changes.hpp).
//
// A comparison runs both arms on common random numbers: run i of arm A and run i of arm B draw
// from the same dice stream (seed, i) and run back to back on one thread; every pair of outcomes
// is tallied as integers, so the paired difference has a tight interval, a change that alters
// nothing gives a difference of exactly zero, and the result does not depend on the thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/changes.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

namespace rb {

struct CompareOptions {
  std::uint64_t runs = 100000;  // pairs of runs
  std::uint64_t seed = 1;
  int threads = 1;
  std::function<void(std::uint64_t, std::uint64_t)> progress;  // (pairs done, planned)
  // When set, no new chunk of pairs starts: run() returns the pairs done so far (rulebench serve's
  // cancel button).
  const std::atomic<bool>* stop = nullptr;
};

// Integer tallies of paired runs: each arm's own tally, and the joint counts of what run i gave
// in arm A and in arm B.
struct PairTally {
  std::uint64_t runs = 0;
  Tally a, b;
  // outcome pairs: index (outcome_a + 1) * (outcomes + 1) + (outcome_b + 1), -1 for none
  std::vector<std::uint64_t> outcome_pairs;
  // metric -> (rounded value in A, in B) -> runs
  std::map<std::string, std::map<std::pair<long long, long long>, std::uint64_t>> metric_pairs;
  void merge(const PairTally& o);
};

// One reported quantity in both arms and their paired difference (B - A) with its 95% interval
// (normal approximation of the mean of the per-run differences).
struct Difference {
  std::string key;
  bool probability = true;  // an outcome or 0/1 metric (else a mean)
  double a = 0, b = 0, diff = 0, lo = 0, hi = 0;
  bool significant = false;  // the interval excludes zero
};

class Comparison {
 public:
  // Both sessions must be of the same ruleset and procedure.
  Comparison(const Session& a, const Session& b);
  PairTally run(const CompareOptions& options) const;
  std::vector<Difference> differences(const PairTally& t) const;
  // {"runs", "seed", "changes": {"with", "without"}, "a": report, "b": report,
  //  "difference": {key: {"a", "b", "difference", "ci95": [lo, hi], "significant"}},
  //  "changed_outcome": share of runs whose outcome differs, "summary": sentence}
  nlohmann::json report(const PairTally& t, std::uint64_t seed, const Changes& changes) const;
  const ReportDef& report_def() const { return a_.report_def(); }

 private:
  void run_range(Table& ta, Table& tb, std::uint64_t seed, std::uint64_t first, std::uint64_t last,
                 PairTally& out) const;
  Simulation a_, b_;
  std::vector<std::string> pair_metrics_;  // metrics named by the report, sorted
};

// The exact mode's comparison: both arms computed exactly (Simulation::exact), and for every
// outcome, probability and mean of the report the exact difference B - A (no interval).
// {"method": "exact", "changes", "a": report, "b": report, "difference": {key: {"a", "b",
// "difference"}}}
nlohmann::json exact_comparison(const Session& a, const Session& b, const Changes& changes,
                                const ExactRunOptions& o);
std::string format_exact_comparison(const nlohmann::json& report, const ReportDef& def);

// The plain sentence for a difference: "+6.20 points for the attacker, significant".
std::string describe_difference(const Difference& d, const ReportDef& def);

// A readable table of both arms and the differences.
std::string format_comparison(const nlohmann::json& report, const ReportDef& def);

}  // namespace rb
