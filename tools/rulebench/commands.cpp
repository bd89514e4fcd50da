#include "commands.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/rules_test.hpp"
#include "content/toml_read.hpp"
#include "sim/simulate.hpp"

namespace rb::cli {

SessionOptions Common::session() const {
  SessionOptions o;
  o.root = root.empty() ? default_root() : fs::path(root);
  for (const auto& d : pack_dirs) o.search.emplace_back(d);
  return o;
}

int check(const Common& c, const std::vector<std::string>& packs) {
  const SessionOptions so = c.session();
  LoadRequest base;
  base.root = so.root;
  base.search = so.search;
  std::vector<std::string> targets = packs;
  if (targets.empty())
    for (const auto& [id, dir] : discover_packs(base)) targets.push_back(id);
  int failed = 0;
  for (const std::string& p : targets) {
    try {
      LoadRequest req = base;
      req.packs = {p};
      auto content = load_content(req);
      Engine engine(content);  // loads every script: syntax, hooks, windows, sources
      std::size_t records = 0;
      for (const auto& r : content->records) records += r.removed ? 0 : 1;
      std::cout << fmt::format("ok    {:<24} ruleset {}, {} packs loaded, {} records, {} hooks\n", p, content->ruleset.id,
                               content->packs.size(), records, engine.bus().hooks().size());
    } catch (const Error& e) {
      ++failed;
      std::cout << fmt::format("FAIL  {}\n      {}\n", p, e.what());
    }
  }
  std::cout << fmt::format("{} packs checked, {} failed\n", targets.size(), failed);
  return failed ? 1 : 0;
}

int list(const Common& c, const std::string& what, const std::string& ruleset) {
  const SessionOptions so = c.session();
  LoadRequest req;
  req.root = so.root;
  req.search = so.search;
  if (what == "packs") {
    for (const auto& [id, dir] : discover_packs(req)) {
      TomlFile f((dir / "pack.toml").string());
      std::cout << fmt::format("{:<20} {:<8} {:<10} {}\n", id, f.string(f.root(), "ruleset").value_or("?"),
                               f.string(f.root(), "version").value_or("?"), f.string(f.root(), "name").value_or(""));
    }
    return 0;
  }
  req.ruleset = ruleset;
  req.all_packs = true;
  auto content = load_content(req);
  if (what == "windows") {
    Engine engine(content);
    for (std::size_t w = 0; w < engine.bus().windows().size(); ++w) {
      const auto& wd = engine.bus().windows()[w];
      int n = 0;
      for (const auto& h : engine.bus().hooks()) n += h.window == static_cast<int>(w) ? 1 : 0;
      std::cout << fmt::format("{:<40} {:>3} hooks  {}\n", wd.name, n, wd.doc);
    }
  } else if (what == "decisions") {
    for (const auto& d : content->ruleset.decisions) std::cout << fmt::format("{:<40} {}\n", d.name, d.doc);
  } else if (what == "hooks") {
    Engine engine(content);
    for (const auto& h : engine.bus().hooks())
      std::cout << fmt::format("{:<40} {:<40} {}{}\n", h.id, engine.bus().windows()[static_cast<std::size_t>(h.window)].name,
                               h.source_name.empty() ? "(rule)" : h.source_name, h.optional ? " (optional)" : "");
  } else {
    for (const auto& r : content->records) {
      if (r.removed) continue;
      const bool unit = sym_name(r.kind) == "unit";
      if ((what == "units") != unit) continue;
      auto it = r.text.find("name");
      std::cout << fmt::format("{:<40} {:<24} {}\n", r.id, it == r.text.end() ? "" : it->second,
                               r.changed_by != r.pack ? "(changed by " + r.changed_by + ")" : "");
    }
  }
  return 0;
}

int trace(const Common& c, const std::string& scenario_file, std::uint64_t seed, bool json, const std::vector<std::string>& with) {
  SessionOptions so = c.session();
  so.extra_packs = with;
  Session session = open_session(read_scenario(scenario_file), so);
  Table table(session);
  Trace t;
  t.enabled = true;
  RunOptions run;
  run.seed = seed;
  run.trace = &t;
  RunResult result;
  State state = table.start;
  int code = 0;
  try {
    table.engine.run(session.procedure, state, run, result);
  } catch (const Error& e) {
    code = 2;
    if (!json) std::cerr << "error: " << e.what() << "\n";
  }
  if (json) t.print_json_lines(std::cout);
  else t.print_narrative(std::cout);
  return code;
}

int simulate(const Common& c, const SimulateArgs& a) {
  SessionOptions so = c.session();
  so.extra_packs = a.with;
  Session session = open_session(read_scenario(a.scenario), so);
  Simulation sim(session);
  SimOptions o;
  o.runs = a.runs;
  o.precision = a.precision;
  o.seed = a.seed;
  o.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto start = std::chrono::steady_clock::now();
  if (!a.json && isatty(STDERR_FILENO)) {
    o.progress = [start](std::uint64_t done, std::uint64_t planned) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
      const double left = rate > 0 ? static_cast<double>(planned - done) / rate : 0;
      const int width = 30, filled = planned ? static_cast<int>(width * done / planned) : 0;
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar += std::string(static_cast<std::size_t>(width - filled), '.');
      std::cerr << fmt::format("\r[{}] {}/{}  {:.0f} runs/s  {:.1f}s left ", bar, done, planned, rate, left) << std::flush;
    };
  }
  const Tally t = sim.run(o);
  if (o.progress) std::cerr << "\r" << std::string(79, ' ') << "\r";
  const auto report = sim.report(t, a.seed);
  if (a.json) std::cout << report.dump() << "\n";
  else std::cout << format_report(report, sim.report_def());
  return 0;
}

int test(const Common& c, const std::vector<std::string>& paths, bool verbose) {
  const SessionOptions so = c.session();
  std::vector<fs::path> ps(paths.begin(), paths.end());
  int passed = 0, failed = 0;
  for (const fs::path& file : find_rules_tests(ps, so)) {
    for (const RulesTestResult& r : run_rules_test_file(file, so)) {
      if (r.passed) {
        ++passed;
        std::cout << "ok    " << r.name << "\n";
      } else {
        ++failed;
        std::cout << "FAIL  " << r.name << "  (" << r.file << ")\n";
        for (const auto& p : r.problems) std::cout << "      " << p << "\n";
        if (verbose) std::cout << r.trace;
      }
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}

}  // namespace rb::cli
