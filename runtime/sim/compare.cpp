#include "sim/compare.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/symbols.hpp"
#include "base/text.hpp"
#include "sim/parallel.hpp"
#include "sim/survivors.hpp"

namespace rb {

// ---------------------------------------------------------------- paired runs

void PairTally::merge(const PairTally& o) {
  runs += o.runs;
  a.merge(o.a);
  b.merge(o.b);
  if (outcome_pairs.size() < o.outcome_pairs.size()) outcome_pairs.resize(o.outcome_pairs.size());
  for (std::size_t i = 0; i < o.outcome_pairs.size(); ++i) outcome_pairs[i] += o.outcome_pairs[i];
  for (const auto& [m, h] : o.metric_pairs)
    for (const auto& [v, n] : h) metric_pairs[m][v] += n;
}

namespace {

// Tallies single runs of one arm into a Tally, as Simulation does: outcomes, metric histograms,
// and the survivors of the units the report counts (sim/survivors.hpp).
class Recorder {
 public:
  Recorder(const ReportDef& def, const State& start, Tally& out)
      : out_(out), counting_(def, start) {
    out.outcomes.resize(std::max(out.outcomes.size(), def.outcomes.size()));
    grow();
  }

  void add(const State& end, const RunResult& r) {
    ++out_.runs;
    if (r.outcome >= 0 && static_cast<std::size_t>(r.outcome) < out_.outcomes.size())
      ++out_.outcomes[static_cast<std::size_t>(r.outcome)];
    for (const auto& [m, v] : r.metrics) ++out_.metrics[std::string(sym_name(m))][std::llround(v)];
    if (counting_.empty()) return;
    counting_.count(end, alive_);
    grow();
    for (std::size_t g = 0; g < alive_.size(); ++g) {
      if (slots_[g]->size() <= alive_[g]) slots_[g]->resize(alive_[g] + 1);
      ++(*slots_[g])[alive_[g]];
    }
  }

 private:
  // a survivors' tally for each group counted so far
  void grow() {
    for (std::size_t g = slots_.size(); g < counting_.groups().size(); ++g) {
      const Survivors::Group& G = counting_.groups()[g];
      slots_.push_back(&out_.survivors[G.side][G.type]);
      if (slots_.back()->size() < G.units.size() + 1) slots_.back()->resize(G.units.size() + 1);
    }
  }

  Tally& out_;
  Survivors counting_;
  std::vector<std::vector<std::uint64_t>*> slots_;  // by group: its survivors' tally
  std::vector<std::uint32_t> alive_;
};

long long metric_value(const RunResult& r, Sym m) {
  double v = 0;
  for (const auto& [name, x] : r.metrics)
    if (name == m) v = x;
  return std::llround(v);
}

constexpr double kZ95 = 1.959963984540054;

// Paired difference of x over runs, from joint counts of (x in A, x in B).
struct Paired {
  long double n = 0, sa = 0, sb = 0, s2 = 0;
  void add(long double xa, long double xb, std::uint64_t count) {
    const long double c = static_cast<long double>(count);
    n += c, sa += c * xa, sb += c * xb, s2 += c * (xb - xa) * (xb - xa);
  }
  Difference result(std::string key, bool probability) const {
    Difference d;
    d.key = std::move(key);
    d.probability = probability;
    if (n <= 0) return d;
    const long double s1 = sb - sa;  // exact: sums of integers
    d.a = static_cast<double>(sa / n);
    d.b = static_cast<double>(sb / n);
    d.diff = static_cast<double>(s1 / n);
    const long double var = n > 1 ? std::max<long double>(0, (s2 - s1 * s1 / n) / (n - 1)) : 0;
    const double half = kZ95 * static_cast<double>(std::sqrt(var / n));
    d.lo = d.diff - half;
    d.hi = d.diff + half;
    d.significant = d.lo > 0 || d.hi < 0;
    return d;
  }
};

std::string signed_points(double diff) {
  const double p = 100 * diff;
  return std::abs(p) < 0.1 && p != 0 ? fmt::format("{:+.2f}", p) : fmt::format("{:+.1f}", p);
}

}  // namespace

Comparison::Comparison(const Session& a, const Session& b) : a_(a), b_(b) {
  if (a.content->ruleset.id != b.content->ruleset.id || a.procedure != b.procedure)
    throw UsageError("compare: both arms must run the same ruleset and procedure");
  reject_best_play(a.scenario, "compare");
  std::set<std::string> names;
  const ReportDef& def = a_.report_def();
  for (const auto& [key, metric] : def.means) names.insert(metric);
  for (const auto& [key, metric] : def.probabilities) names.insert(metric);
  pair_metrics_.assign(names.begin(), names.end());
}

void Comparison::run_range(Table& ta, Table& tb, std::uint64_t seed, std::uint64_t first,
                           std::uint64_t last, PairTally& out) const {
  const ReportDef& def = a_.report_def();
  Recorder record_a(def, ta.start, out.a), record_b(def, tb.start, out.b);
  const std::size_t k = def.outcomes.size() + 1;
  if (out.outcome_pairs.size() < k * k) out.outcome_pairs.resize(k * k);
  std::vector<Sym> metric_syms;
  std::vector<std::map<std::pair<long long, long long>, std::uint64_t>*> metric_slots;
  for (const auto& m : pair_metrics_) {
    metric_syms.push_back(sym(m));
    metric_slots.push_back(&out.metric_pairs[m]);
  }
  auto index = [k](int outcome) {
    return outcome >= 0 && static_cast<std::size_t>(outcome) + 1 < k
               ? static_cast<std::size_t>(outcome) + 1
               : std::size_t{0};
  };
  State work_a, work_b;
  RunResult ra, rb;
  RunOptions options;
  options.seed = seed;
  const std::string& procedure = a_.session().procedure;
  for (std::uint64_t i = first; i < last; ++i) {
    options.run = i;  // both arms: the dice stream (seed, i)
    work_a = ta.start;
    ta.engine.run(procedure, work_a, options, ra);
    record_a.add(work_a, ra);
    work_b = tb.start;
    tb.engine.run(procedure, work_b, options, rb);
    record_b.add(work_b, rb);
    ++out.runs;
    ++out.outcome_pairs[index(ra.outcome) * k + index(rb.outcome)];
    for (std::size_t m = 0; m < metric_syms.size(); ++m)
      ++(*metric_slots[m])[{metric_value(ra, metric_syms[m]), metric_value(rb, metric_syms[m])}];
  }
}

PairTally Comparison::run(const CompareOptions& o) const {
  const int threads = std::max(1, o.threads);
  std::vector<std::unique_ptr<Table>> tables_a, tables_b;
  for (int t = 0; t < threads; ++t) {
    tables_a.push_back(std::make_unique<Table>(a_.session()));
    tables_b.push_back(std::make_unique<Table>(b_.session()));
  }
  constexpr std::uint64_t kChunk = 1024;
  const std::uint64_t planned = o.runs;
  std::vector<PairTally> parts(static_cast<std::size_t>(threads));
  run_chunked(
      threads, 0, planned, kChunk, o.progress,
      [&](int t, std::uint64_t begin, std::uint64_t end) {
        const auto ti = static_cast<std::size_t>(t);
        run_range(*tables_a[ti], *tables_b[ti], o.seed, begin, end, parts[ti]);
      },
      o.stop);
  PairTally total;
  for (const auto& p : parts) total.merge(p);
  return total;
}

std::vector<Difference> Comparison::differences(const PairTally& t) const {
  const ReportDef& def = a_.report_def();
  std::vector<Difference> out;
  const std::size_t k = def.outcomes.size() + 1;
  for (std::size_t o = 0; o < def.outcomes.size(); ++o) {
    Paired p;
    for (std::size_t ia = 0; ia < k; ++ia)
      for (std::size_t ib = 0; ib < k; ++ib) {
        const std::size_t at = ia * k + ib;
        const std::uint64_t n = at < t.outcome_pairs.size() ? t.outcome_pairs[at] : 0;
        if (n) p.add(ia == o + 1 ? 1 : 0, ib == o + 1 ? 1 : 0, n);
      }
    out.push_back(p.result(def.outcomes[o], true));
  }
  auto pairs_of = [&](const std::string& metric)
      -> const std::map<std::pair<long long, long long>, std::uint64_t>& {
    static const std::map<std::pair<long long, long long>, std::uint64_t> none;
    auto it = t.metric_pairs.find(metric);
    return it == t.metric_pairs.end() ? none : it->second;
  };
  for (const auto& [key, metric] : def.probabilities) {
    Paired p;
    for (const auto& [v, n] : pairs_of(metric)) p.add(v.first != 0, v.second != 0, n);
    out.push_back(p.result(key, true));
  }
  for (const auto& [key, metric] : def.means) {
    Paired p;
    for (const auto& [v, n] : pairs_of(metric))
      p.add(static_cast<long double>(v.first), static_cast<long double>(v.second), n);
    out.push_back(p.result(key, false));
  }
  return out;
}

std::string describe_difference(const Difference& d, const ReportDef& def) {
  std::string subject = d.key;
  for (const auto& side : def.sides)
    if (d.key.rfind(side + "_", 0) == 0) subject = "for the " + side;
  std::string amount;
  if (d.probability) {
    amount = signed_points(d.diff) + " points";
    amount = subject.rfind("for the ", 0) == 0 ? amount + " " + subject : subject + " " + amount;
  } else {
    amount = fmt::format("{} {:+.3f}", d.key, d.diff);
  }
  if (d.diff == 0 && d.lo == 0 && d.hi == 0)
    return "no difference " + (subject == d.key ? "in " + d.key : subject) +
           ": exactly 0, the change altered no run's " + d.key;
  const auto bound = [&](double x) {
    return d.probability ? signed_points(x) : fmt::format("{:+.3f}", x);
  };
  return fmt::format("{}, {} (95% interval {} .. {})", amount,
                     d.significant ? "significant" : "not significant", bound(d.lo), bound(d.hi));
}

nlohmann::json Comparison::report(const PairTally& t, std::uint64_t seed,
                                  const Changes& changes) const {
  using nlohmann::json;
  json j = json::object();
  j["runs"] = t.runs;
  j["seed"] = seed;
  j["changes"] = {{"with", changes.with}, {"without", changes.without}};
  j["a"] = a_.report(t.a, seed);
  j["b"] = b_.report(t.b, seed);
  json diff = json::object();
  const auto ds = differences(t);
  for (const Difference& d : ds)
    diff[d.key] = {{"a", d.a},
                   {"b", d.b},
                   {"difference", d.diff},
                   {"ci95", {d.lo, d.hi}},
                   {"significant", d.significant}};
  j["difference"] = diff;
  std::uint64_t same = 0;
  const std::size_t k = a_.report_def().outcomes.size() + 1;
  for (std::size_t i = 0; i < k && i * k + i < t.outcome_pairs.size(); ++i)
    same += t.outcome_pairs[i * k + i];
  j["changed_outcome"] =
      t.runs ? static_cast<double>(t.runs - same) / static_cast<double>(t.runs) : 0.0;
  // how many runs the change altered: their outcome (when the report has outcomes), each metric
  json changed = json::object();
  if (!a_.report_def().outcomes.empty()) changed["outcome"] = t.runs - same;
  for (const auto& [metric, pairs] : t.metric_pairs) {
    std::uint64_t n = 0;
    for (const auto& [ab, runs] : pairs) n += ab.first != ab.second ? runs : 0;
    changed[metric] = n;
  }
  j["changed_runs"] = changed;
  j["summary"] = ds.empty() ? std::string("no outcomes to compare")
                            : describe_difference(ds.front(), a_.report_def());
  return j;
}

std::string format_comparison(const nlohmann::json& j, const ReportDef& def) {
  std::ostringstream out;
  std::vector<std::string> with = j["changes"]["with"], without = j["changes"]["without"];
  Changes ch{with, without};
  out << fmt::format(
      "{} paired runs, seed {} (common random numbers: run i of both arms rolls "
      "the same dice)\n",
      j["runs"].get<std::uint64_t>(), j["seed"].get<std::uint64_t>());
  out << "  A  as written\n";
  out << "  B  " << ch.describe() << "\n\n";
  out << fmt::format("  {:<14} {:>26}  {:>26}  {:>34}\n", "", "A  [95%]", "B  [95%]",
                     "B - A  [95%]");
  const auto pct = [](double p) { return fmt::format("{:.2f}%", 100 * p); };
  const auto pts = [](double p) { return fmt::format("{:+.2f}", 100 * p); };
  const auto arm = [&](const nlohmann::json& r, const std::string& key, bool probability) {
    const double v = r[key].get<double>();
    std::string s = probability ? pct(v) : fmt::format("{:.4f}", v);
    if (r["ci95"].contains(key)) {
      const auto& ci = r["ci95"][key];
      const double lo = ci[0].get<double>(), hi = ci[1].get<double>();
      s += probability ? fmt::format(" [{} .. {}]", pct(lo), pct(hi))
                       : fmt::format(" [{:.3f} .. {:.3f}]", lo, hi);
    }
    return s;
  };
  auto row = [&](const std::string& key, bool probability) {
    const auto& d = j["difference"][key];
    const double diff = d["difference"].get<double>(), lo = d["ci95"][0].get<double>(),
                 hi = d["ci95"][1].get<double>();
    const std::string delta = probability
                                  ? fmt::format("{} pts [{} .. {}]", pts(diff), pts(lo), pts(hi))
                                  : fmt::format("{:+.4f} [{:+.3f} .. {:+.3f}]", diff, lo, hi);
    out << fmt::format("  {:<14} {:>26}  {:>26}  {:>34}  {}\n", key, arm(j["a"], key, probability),
                       arm(j["b"], key, probability), delta,
                       d["significant"].get<bool>()      ? "significant"
                       : diff == 0 && lo == 0 && hi == 0 ? "no difference"
                                                         : "not significant");
  };
  for (const auto& o : def.outcomes) row(o, true);
  for (const auto& [key, metric] : def.probabilities) row(key, true);
  for (const auto& [key, metric] : def.means) row(key, false);
  // how many runs it altered: the outcome, or (a report without outcomes) its first mean, as a
  // count, so that a few runs in millions do not read "0.00%" above a significant difference
  const auto& changed = j["changed_runs"];
  std::string what = "the outcome", key = "outcome";
  if (!changed.contains(key)) {  // the first mean that differs significantly, else the first
    std::string first;
    for (const auto& [mean, metric] : def.means)
      if (changed.contains(metric)) {
        if (first.empty()) first = metric;
        if (j["difference"].contains(mean) && j["difference"][mean]["significant"].get<bool>()) {
          first = metric;
          break;
        }
      }
    if (!first.empty()) what = key = first;
  }
  if (changed.contains(key)) {
    const std::uint64_t n = changed[key].get<std::uint64_t>(),
                        runs = j["runs"].get<std::uint64_t>();
    const double share = runs ? static_cast<double>(n) / static_cast<double>(runs) : 0;
    out << fmt::format("\n  the change altered {} of {} of {} runs ({})\n", what, n, runs,
                       n == 0           ? std::string("none")
                       : share < 0.0001 ? fmt::format("{:.2g}%", 100 * share)
                                        : pct(share));
  } else {
    out << "\n";
  }
  out << "  " << j["summary"].get<std::string>() << "\n";
  return out.str();
}

nlohmann::json exact_comparison(const Session& a, const Session& b, const Changes& changes,
                                const ExactRunOptions& o) {
  using nlohmann::json;
  const Simulation sa(a), sb(b);
  json j = json::object();
  j["method"] = "exact";
  j["changes"] = {{"with", changes.with}, {"without", changes.without}};
  j["a"] = sa.exact(o);
  j["b"] = sb.exact(o);
  json diff = json::object();
  const ReportDef& def = sa.report_def();
  auto add = [&](const std::string& key) {
    const double va = j["a"][key].get<double>(), vb = j["b"][key].get<double>();
    diff[key] = {{"a", va}, {"b", vb}, {"difference", vb - va}};
  };
  for (const auto& k : def.outcomes) add(k);
  for (const auto& [k, m] : def.probabilities) add(k);
  for (const auto& [k, m] : def.means) add(k);
  j["difference"] = diff;
  return j;
}

std::string format_exact_comparison(const nlohmann::json& j, const ReportDef& def) {
  std::ostringstream out;
  std::vector<std::string> with = j["changes"]["with"], without = j["changes"]["without"];
  const Changes ch{with, without};
  out << fmt::format("exact (A: {} states, B: {} states)\n", j["a"]["states"].get<std::size_t>(),
                     j["b"]["states"].get<std::size_t>());
  out << "  A  as written\n";
  out << "  B  " << ch.describe() << "\n\n";
  out << fmt::format("  {:<14} {:>14}  {:>14}  {:>16}\n", "", "A", "B", "B - A");
  auto row = [&](const std::string& key, bool probability) {
    const auto& d = j["difference"][key];
    const double va = d["a"].get<double>(), vb = d["b"].get<double>(),
                 dv = d["difference"].get<double>();
    if (probability)
      out << fmt::format("  {:<14} {:>13.6f}%  {:>13.6f}%  {:>+12.6f} pts\n", key, 100 * va,
                         100 * vb, 100 * dv);
    else
      out << fmt::format("  {:<14} {:>14.6f}  {:>14.6f}  {:>+16.6f}\n", key, va, vb, dv);
  };
  for (const auto& o : def.outcomes) row(o, true);
  for (const auto& [key, metric] : def.probabilities) row(key, true);
  for (const auto& [key, metric] : def.means) row(key, false);
  return out.str();
}

}  // namespace rb
