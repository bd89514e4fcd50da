#include "sim/bench.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "exact/explore.hpp"
#include "sim/simulate.hpp"

namespace rb {

std::vector<BenchCase> bench_cases(const fs::path& root, const std::vector<std::string>& only) {
  std::vector<BenchCase> out;
  std::error_code ec;
  for (const auto& pack : fs::directory_iterator(root / "content", ec)) {
    // a scenario that links out of its pack is an error naming the link (base/paths)
    for (const fs::path& file :
         files_inside(pack.path(), pack.path() / "scenarios", ".toml", "pack", Walk::flat)) {
      const std::string stem = file.stem().string();
      if (stem.rfind("bench_", 0) != 0) continue;
      const Scenario sc = read_scenario(file);
      BenchCase c;
      c.name = stem.substr(6);
      c.file = fs::relative(file, root, ec).generic_string();
      c.description = sc.table["description"].value<std::string>().value_or(c.file);
      c.target = sc.bench_target;
      c.anchors = sc.anchors;
      c.exact_target = sc.exact_target;
      c.exact_anchors = sc.exact_anchors;
      if (!sc.bench_baseline.empty()) {
        if (!fs::is_regular_file(sc.bench_baseline, ec))
          throw ContentError(file.string(), 0,
                             "[bench] baseline '" + sc.bench_baseline.filename().string() +
                                 "': no such scenario file next to this one");
        c.baseline = fs::relative(sc.bench_baseline, root, ec).generic_string();
      }
      out.push_back(std::move(c));
    }
  }
  // the same order on every machine
  std::sort(out.begin(), out.end(), [](const BenchCase& a, const BenchCase& b) {
    return std::tie(a.name, a.file) < std::tie(b.name, b.file);
  });
  if (only.empty()) return out;
  std::vector<BenchCase> picked;
  for (const std::string& name : only) {
    bool found = false;
    for (const BenchCase& c : out)
      if (c.name == name) picked.push_back(c), found = true;
    if (!found) {
      std::string names;
      for (const BenchCase& c : out) names += (names.empty() ? "" : ", ") + c.name;
      throw UsageError("no bench case '" + name + "' (the cases: " + names + ")");
    }
  }
  return picked;
}

namespace {

// n rounded to two significant figures, at least `floor`.
std::uint64_t round_runs(double n, std::uint64_t floor) {
  if (n <= static_cast<double>(floor)) return floor;
  const double scale = std::pow(10.0, std::floor(std::log10(n)) - 1);
  return static_cast<std::uint64_t>(std::round(n / scale) * scale);
}

std::string rate_text(double r) {
  return r >= 1e6 ? fmt::format("{:.2f}M", r / 1e6) : fmt::format("{:.1f}k", r / 1e3);
}

// The outcome columns of the table: each side's win ("attacker win") around the draws, as the
// report declares them; a report without sides shows its first three outcomes.
std::vector<std::pair<std::string, std::string>> outcome_columns(const ReportDef& def) {
  std::vector<std::pair<std::string, std::string>> cols;
  if (def.wins.empty()) {
    for (std::size_t i = 0; i < def.outcomes.size() && i < 3; ++i)
      cols.emplace_back(def.outcomes[i], def.outcomes[i]);
    return cols;
  }
  cols.emplace_back(def.wins.front().first + " wins", def.wins.front().second);
  for (const std::string& d : def.draws) cols.emplace_back(d, d);
  for (std::size_t i = 1; i < def.wins.size(); ++i)
    cols.emplace_back(def.wins[i].first + " wins", def.wins[i].second);
  return cols;
}

}  // namespace

std::vector<BenchResult> run_bench(const SessionOptions& options, const BenchOptions& bench) {
  SessionOptions so = options;
  so.all_packs = true;  // every pack of the ruleset: all hooks live
  const std::vector<BenchCase> cases = bench_cases(so.root, bench.only);
  if (cases.empty()) throw UsageError("no bench cases: no content/*/scenarios/bench_*.toml");
  std::vector<BenchResult> out;
  // house rules are left out: a pack that changes or removes another pack's records (the
  // homebrew example's heavy cruiser) would make these combats something else than base units
  {
    const Session all = open_session(read_scenario(so.root / cases.front().file), so);
    for (const Record& rec : all.content->records)
      if ((rec.removed || rec.changed_by != rec.pack) &&
          std::find(so.without_packs.begin(), so.without_packs.end(), rec.changed_by) ==
              so.without_packs.end())
        so.without_packs.push_back(rec.changed_by);
  }
  for (const BenchCase& c : cases) {
    const Session session = open_session(read_scenario(so.root / c.file), so);
    const Simulation sim(session);
    SimOptions o;
    o.seed = bench.seed;
    o.threads = std::max(1, bench.threads);
    o.runs = bench.runs;
    if (o.runs == 0) {  // calibrate: a short timed run, then enough runs for this case's share
      double secs = 0;
      o.runs = 5000;
      o.loop_seconds = &secs;
      sim.run(o);
      const double rate = secs > 0 ? static_cast<double>(o.runs) / secs : 1e6;
      o.runs = round_runs(rate * bench.seconds / static_cast<double>(cases.size()), 10000);
    }
    BenchResult r;
    r.bench = c;
    o.loop_seconds = &r.seconds;
    const Tally t = sim.run(o);
    r.runs = t.runs;
    r.rate = r.seconds > 0 ? static_cast<double>(t.runs) / r.seconds : 0;
    for (const auto& p : session.content->packs) r.packs.push_back(p.id);
    r.left_out = so.without_packs;
    for (const Record& rec : session.content->records)
      if (rec.removed || (!rec.changed_by.empty() && rec.changed_by != rec.pack))
        r.changed_records.push_back(rec.id + (rec.removed ? " (removed by " : " (changed by ") +
                                    rec.changed_by + ")");
    r.report = sim.report(t, bench.seed);
    r.columns = outcome_columns(sim.report_def());
    if (!c.baseline.empty()) {  // the same fleets without abilities, as many runs
      const Session base = open_session(read_scenario(so.root / c.baseline), so);
      const Simulation base_sim(base);
      double secs = 0;
      o.loop_seconds = &secs;
      const Tally bt = base_sim.run(o);
      r.baseline_rate = secs > 0 ? static_cast<double>(bt.runs) / secs : 0;
    }
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json bench_json(const std::vector<BenchResult>& results, const BenchOptions& bench) {
  using nlohmann::json;
  json j = json::object();
  j["threads"] = std::max(1, bench.threads);
  j["seed"] = bench.seed;
  j["packs"] = results.empty() ? json::array() : json(results.front().packs);
  j["changed_records"] = results.empty() ? json::array() : json(results.front().changed_records);
  j["left_out"] = results.empty() ? json::array() : json(results.front().left_out);
  json cases = json::array();
  for (const BenchResult& r : results) {
    json c = json::object();
    c["name"] = r.bench.name;
    c["scenario"] = r.bench.file;
    c["description"] = r.bench.description;
    c["runs"] = r.runs;
    c["seconds"] = r.seconds;
    c["combats_per_second"] = r.rate;
    c["target"] = r.bench.target;
    c["anchors"] = json::object();
    for (const auto& [name, rate] : r.bench.anchors) c["anchors"][name] = rate;
    c["of_target"] = r.bench.target > 0 ? json(r.rate / r.bench.target) : json(nullptr);
    if (!r.bench.baseline.empty() && r.baseline_rate > 0 && r.rate > 0)
      c["baseline"] = {{"scenario", r.bench.baseline},
                       {"combats_per_second", r.baseline_rate},
                       {"slowdown", r.baseline_rate / r.rate}};
    c["result"] = r.report;
    cases.push_back(c);
  }
  j["cases"] = cases;
  return j;
}

std::string format_bench(const std::vector<BenchResult>& results, const BenchOptions& bench) {
  std::ostringstream out;
  const int threads = std::max(1, bench.threads);
  out << fmt::format("rulebench bench: {} thread{}, seed {}, packs loaded: {}\n", threads,
                     threads == 1 ? "" : "s", bench.seed,
                     results.empty() ? std::string("-")
                                     : fmt::format("{}", fmt::join(results.front().packs, ", ")));
  out << fmt::format("  {:<3} {:>9} {:>8} {:>11} {:>9} {:>8}   {}\n", "", "runs", "seconds",
                     "combats/s", "target", "reached", "outcomes");
  for (const BenchResult& r : results) {
    const auto& j = r.report;
    std::string outcomes;
    for (const auto& [heading, key] : r.columns)
      if (j.contains(key) && j[key].is_number())
        outcomes += fmt::format("{}{} {:.2f}%", outcomes.empty() ? "" : ", ", heading,
                                100 * j[key].get<double>());
    const bool anchored = r.bench.target > 0;
    out << fmt::format(
        "  ({}) {:>9} {:>8.2f} {:>11} {:>9} {:>8}   {}\n", r.bench.name, r.runs, r.seconds,
        rate_text(r.rate), anchored ? rate_text(r.bench.target) : std::string("-"),
        anchored ? fmt::format("{:.0f}%", 100 * r.rate / r.bench.target) : std::string("-"),
        outcomes.empty() ? std::string("-") : outcomes);
  }
  if (threads > 1) out << "  (the targets are for one thread)\n";
  if (!results.empty() && !results.front().left_out.empty())
    out << fmt::format(
        "  left out: {} (house rules: they change base records, and the bench is base units)\n",
        fmt::join(results.front().left_out, ", "));
  if (!results.empty() && !results.front().changed_records.empty())
    out << fmt::format(
        "  note: with every pack loaded, these records are not the base game's: {}\n",
        fmt::join(results.front().changed_records, ", "));
  out << "\n";
  for (const BenchResult& r : results)
    out << fmt::format("  ({}) {}\n", r.bench.name, r.bench.description);
  // the cases with a baseline: the same battle without abilities
  for (const BenchResult& r : results)
    if (r.baseline_rate > 0 && r.rate > 0)
      out << fmt::format("  ({}) {:.2f}x the time of the same fleets without abilities ({}: {})\n",
                         r.bench.name, r.baseline_rate / r.rate, r.bench.baseline,
                         rate_text(r.baseline_rate));
  // the anchors: a row per tool, a column per case that has any (from the cases' [bench])
  std::vector<const BenchCase*> anchored;
  std::vector<std::string> tools;
  for (const BenchResult& r : results) {
    if (!r.bench.anchors.empty()) anchored.push_back(&r.bench);
    for (const auto& a : r.bench.anchors)
      if (std::find(tools.begin(), tools.end(), a.first) == tools.end()) tools.push_back(a.first);
  }
  if (!anchored.empty()) {
    out << "\n  anchors, one thread, same machine class (the cases' [bench] tables):\n";
    out << fmt::format("  {:<44}", "");
    for (const BenchCase* c : anchored) out << fmt::format(" {:>9}", "(" + c->name + ")");
    out << "\n";
    auto row = [&](const std::string& label, auto value) {
      out << fmt::format("  {:<44}", label);
      for (const BenchCase* c : anchored) out << fmt::format(" {:>9}", value(*c));
      out << "\n";
    };
    for (const std::string& tool : tools)
      row(tool, [&](const BenchCase& c) {
        for (const auto& [name, rate] : c.anchors)
          if (name == tool) return rate_text(rate);
        return std::string("-");
      });
    row("target",
        [](const BenchCase& c) { return c.target > 0 ? rate_text(c.target) : std::string("-"); });
  }
  return out.str();
}

std::vector<ExactBenchResult> run_exact_bench(const SessionOptions& options, double seconds,
                                              const std::vector<std::string>& only,
                                              const std::string& best) {
  SessionOptions so = options;
  so.all_packs = true;
  const std::vector<BenchCase> cases = bench_cases(so.root, only);
  if (cases.empty()) throw UsageError("no bench cases: no content/*/scenarios/bench_*.toml");
  {
    const Session all = open_session(read_scenario(so.root / cases.front().file), so);
    for (const Record& rec : all.content->records)
      if ((rec.removed || rec.changed_by != rec.pack) &&
          std::find(so.without_packs.begin(), so.without_packs.end(), rec.changed_by) ==
              so.without_packs.end())
        so.without_packs.push_back(rec.changed_by);
  }
  std::vector<ExactBenchResult> out;
  for (const BenchCase& c : cases) {
    const Session session = open_session(read_scenario(so.root / c.file), so);
    const Simulation sim(session);
    ExactBenchResult r;
    r.bench = c;
    ExactRunOptions eo;
    try {
      // one exploration to learn its time, then the median of enough for this case's share
      const double once = sim.exact(eo).at("seconds").get<double>();
      const double share = seconds / static_cast<double>(cases.size());
      r.repeats = static_cast<int>(std::clamp(share / std::max(once, 1e-6), 3.0, 1000.0));
      r.report = sim.exact(eo, {}, r.repeats);
    } catch (const ExactLimit& e) {
      r.stopped = e.what();
    } catch (const Error& e) {
      r.stopped = e.what();
    }
    if (!best.empty()) {
      // best play: as many explorations as fit the case's share (at least one), the median
      try {
        std::vector<double> times;
        const double share = seconds / static_cast<double>(cases.size());
        double spent = 0;
        ExactRunOptions beo = eo;
        beo.seconds = 60;  // (a case best play cannot answer stops in a minute, not ten)
        while (times.empty() || (spent < share && times.size() < 100)) {
          r.best = sim.exact_best(beo, best, "win");
          times.push_back(r.best.at("seconds").get<double>());
          spent += times.back();
        }
        std::sort(times.begin(), times.end());
        r.best["seconds"] = times[times.size() / 2];
        r.best_repeats = static_cast<int>(times.size());
      } catch (const ExactLimit& e) {
        r.best_stopped = e.what();
      } catch (const Error& e) {
        r.best_stopped = e.what();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json exact_bench_json(const std::vector<ExactBenchResult>& results) {
  using nlohmann::json;
  json cases = json::array();
  for (const ExactBenchResult& r : results) {
    json c = json::object();
    c["name"] = r.bench.name;
    c["scenario"] = r.bench.file;
    c["description"] = r.bench.description;
    if (!r.stopped.empty()) {
      c["stopped"] = r.stopped;
    } else {
      c["ms"] = 1000 * r.report["seconds"].get<double>();
      c["repeats"] = r.repeats;
      c["states"] = r.report["states"];
      c["report"] = r.report;
    }
    if (!r.best_stopped.empty()) {
      c["best"] = {{"stopped", r.best_stopped}};
    } else if (!r.best.is_null()) {
      const json& b = r.best.at("best");
      c["best"] = {{"side", b.at("side")},
                   {"ms", 1000 * r.best.at("seconds").get<double>()},
                   {"repeats", r.best_repeats},
                   {"states", r.best.at("states")},
                   {"step_runs", r.best.at("step_runs")},
                   {"policy", b.at("policy")},
                   {"best", b.at("best")},
                   {"gain_points", b.at("gain_points")}};
      // how many times the plain exact mode's time best play takes
      if (r.stopped.empty() && r.report.at("seconds").get<double>() > 0)
        c["best"]["ratio"] =
            r.best.at("seconds").get<double>() / r.report.at("seconds").get<double>();
    }
    if (r.bench.exact_target > 0) c["target_ms"] = r.bench.exact_target;
    c["anchors_ms"] = json::object();
    for (const auto& [name, ms] : r.bench.exact_anchors) c["anchors_ms"][name] = ms;
    cases.push_back(c);
  }
  return json{{"method", "exact"}, {"cases", cases}};
}

std::string format_exact_bench(const std::vector<ExactBenchResult>& results) {
  std::ostringstream out;
  out << "rulebench bench --exact: the exact mode on each case, one thread, every pack loaded\n";
  out << fmt::format("  {:>5} {:>8} {:>12} {:>10} {:>8}   {}\n", "", "states", "ms (median)",
                     "target", "reached", "anchors");
  for (const ExactBenchResult& r : results) {
    if (!r.stopped.empty()) {
      out << fmt::format("  {:>5} stopped: {}\n", "(" + r.bench.name + ")", r.stopped);
      continue;
    }
    const double ms = 1000 * r.report["seconds"].get<double>();
    std::string anchors;
    for (const auto& [name, a] : r.bench.exact_anchors)
      anchors += fmt::format("{}{}: {:.3f} ms", anchors.empty() ? "" : "; ", name, a);
    out << fmt::format(
        "  {:>5} {:>8} {:>12.3f} {:>10} {:>8}   {}\n", "(" + r.bench.name + ")",
        r.report["states"].get<std::size_t>(), ms,
        r.bench.exact_target > 0 ? fmt::format("{:.2f} ms", r.bench.exact_target) : "-",
        r.bench.exact_target > 0 ? fmt::format("{:.0f}%", 100 * r.bench.exact_target / ms) : "-",
        anchors);
  }
  bool any_best = false;
  for (const ExactBenchResult& r : results)
    any_best = any_best || !r.best.is_null() || !r.best_stopped.empty();
  if (any_best) {
    out << "\n  best play (to win) beside the plain exact mode:\n";
    out << fmt::format("  {:>5} {:>9} {:>8} {:>11} {:>12} {:>9}   {}\n", "", "side", "states",
                       "step runs", "ms (median)", "ratio", "policy -> best");
    for (const ExactBenchResult& r : results) {
      const std::string name = "(" + r.bench.name + ")";
      if (!r.best_stopped.empty()) {
        out << fmt::format("  {:>5} stopped: {}\n", name, r.best_stopped);
        continue;
      }
      if (r.best.is_null()) continue;
      const auto& b = r.best.at("best");
      const double ms = 1000 * r.best.at("seconds").get<double>();
      double gain = b.at("gain_points").get<double>();
      if (std::abs(gain) < 5e-5) gain = 0;  // (not "-0.0000": a difference in the last bits)
      const std::string ratio =
          r.stopped.empty() && r.report.at("seconds").get<double>() > 0
              ? fmt::format("{:.0f}x", r.best.at("seconds").get<double>() /
                                           r.report.at("seconds").get<double>())
              : "-";
      out << fmt::format(
          "  {:>5} {:>9} {:>8} {:>11} {:>12.3f} {:>9}   {:.4f}% -> {:.4f}% ({:+.4f} points)\n",
          name, b.at("side").get<std::string>(), r.best.at("states").get<std::size_t>(),
          r.best.at("step_runs").get<std::uint64_t>(), ms, ratio,
          100 * b.at("policy").get<double>(), 100 * b.at("best").get<double>(), gain);
    }
  }
  out << "\n";
  for (const ExactBenchResult& r : results)
    out << fmt::format("  ({}) {}\n", r.bench.name, r.bench.description);
  return out.str();
}

}  // namespace rb
