#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/text.hpp"
#include "content/toml_read.hpp"
#include "sim/bench.hpp"
#include "sim/compare.hpp"
#include "sim/rules_test.hpp"
#include "exact/explore.hpp"
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
  // a target that is neither a pack folder nor a known id is a usage error (exit 2), before
  // anything is checked
  std::vector<std::string> ids;
  for (const auto& [id, dir] : discover_packs(base)) ids.push_back(id);
  for (const std::string& p : targets) {
    if (is_pack_path(p)) {
      if (!fs::is_directory(p)) throw UsageError("check: no folder " + p);
      if (!fs::is_regular_file(fs::path(p) / "pack.toml"))
        throw UsageError("check: " + p + " is not a pack folder (it has no pack.toml)");
    } else if (std::find(ids.begin(), ids.end(), p) == ids.end()) {
      throw UsageError("check: no pack folder or pack id '" + p + "'" + did_you_mean(p, ids));
    }
  }
  int failed = 0;
  std::error_code ec;
  for (const std::string& p : targets) {
    try {
      LoadRequest req = base;
      req.packs = {p};
      auto content = load_content(req);
      Engine engine(content);  // loads every script: syntax, hooks, windows, sources
      std::size_t records = 0;
      for (const auto& r : content->records) records += r.removed ? 0 : 1;
      // the state guard: each scenario of the pack runs twice; a script that keeps something
      // between the runs (an upvalue, a global, a table reachable from them) is named
      int scenarios = 0;
      const PackInfo* info = content->pack(content->packs.back().id);
      for (const PackInfo& pi : content->packs)
        if (pi.id == p || pi.dir == fs::path(p) || fs::equivalent(pi.dir, fs::path(p), ec))
          info = &pi;
      if (info && fs::is_directory(info->dir / "scenarios")) {
        std::vector<fs::path> files;
        for (const auto& f : fs::directory_iterator(info->dir / "scenarios"))
          if (f.path().extension() == ".toml") files.push_back(f.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) {
          Session session = open_session(read_scenario(file), so);
          EngineOptions guarded;
          guarded.check_state = true;
          Table table(session, guarded);
          for (std::uint64_t run = 0; run < 2; ++run) {
            State state = table.start;
            RunOptions options;
            options.run = run;
            RunResult result;
            try {
              table.engine.run(session.procedure, state, options, result);
            } catch (const Error& e) {
              throw ScriptError(file.string() + ": " + e.what());
            }
          }
          ++scenarios;
        }
      }
      std::cout << fmt::format(
          "ok    {:<24} ruleset {}, {} packs loaded, {} records, {} hooks, {} scenarios run "
          "twice\n",
          p, content->ruleset.id, content->packs.size(), records, engine.bus().hooks().size(),
          scenarios);
    } catch (const Error& e) {
      ++failed;
      std::cout << fmt::format("FAIL  {}\n      {}\n", p, e.what());
    }
  }
  std::cout << fmt::format("{} packs checked, {} failed\n", targets.size(), failed);
  return failed ? 1 : 0;
}

namespace {
std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// A text as a run of words: ASCII letters and digits in lower case, every other run of ASCII
// characters one '_', with '_' at both ends ("Jol-Nar: Fragile" -> "_jol_nar_fragile_"); the bytes
// of other UTF-8 characters (Ω) are kept as they are.
std::string words(std::string_view s) {
  std::string out = "_";
  for (const unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80)
      out += static_cast<char>(c);
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (out.back() != '_')
      out += '_';
  }
  if (out.back() != '_') out += '_';
  return out;
}

// `rulebench list counts`: for each [[counts]] entry of the ruleset, its records and the rules
// tests (of the ruleset's packs) whose `rule` names one of them. A test names a record when its
// rule, read as words, holds the record's name or its short id as whole words ("Jol-Nar: Fragile"
// names the faction jol_nar); where two records' names overlap, only the longer counts ("Magen
// Defense Grid Ω" does not also name "Magen Defense Grid").
void list_counts(const Content& content, const SessionOptions& so) {
  // every record is a candidate name (so a longer name of an uncounted record, "Prototype War Sun",
  // keeps a shorter counted one, "War Sun", from matching inside it); a record is counted on the
  // first line that selects it
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Counted {
    std::size_t group;
    std::string id;
    std::vector<std::string> keys;
    int tests = 0;
  };
  std::vector<Counted> records;
  const auto& groups = content.ruleset.counts;
  for (const Record& r : content.records) {
    if (r.removed) continue;
    std::size_t group = kNone;
    for (std::size_t g = 0; g < groups.size() && group == kNone; ++g) {
      const CountDef& c = groups[g];
      const AttributeDef* a =
          c.attribute.empty() ? nullptr : content.ruleset.attribute(c.attribute);
      if (sym_name(r.kind) != c.kind) continue;
      if (a &&
          !(r.has[static_cast<std::size_t>(a->slot)] &&
            r.attr[static_cast<std::size_t>(a->slot)] == static_cast<std::int32_t>(sym(c.value))))
        continue;
      group = g;
    }
    Counted x{group, r.id, {words(sym_name(r.name))}};
    if (auto it = r.text.find("name"); it != r.text.end() && words(it->second) != x.keys[0])
      x.keys.push_back(words(it->second));
    records.push_back(std::move(x));
  }
  // the rules tests of the ruleset's packs, each one's rule
  std::vector<fs::path> roots;
  for (const PackInfo& p : content.packs)
    if (fs::is_directory(p.dir / "tests")) roots.push_back(p.dir / "tests");
  std::vector<std::string> rules;
  for (const fs::path& file : find_rules_tests(roots, so)) {
    try {
      TomlFile f(file.string());
      if (const toml::array* tests = f.root().get_as<toml::array>("test")) {
        for (const toml::node& t : *tests)
          if (const toml::table* tt = t.as_table())
            rules.push_back(f.string(*tt, "rule").value_or(""));
      } else {
        rules.push_back(f.string(f.root(), "rule").value_or(""));
      }
    } catch (const Error&) {
      // a broken test file is `rulebench test`'s to report
    }
  }
  std::vector<int> group_tests(groups.size(), 0);
  struct Match {
    std::size_t record, at, len;
  };
  for (const std::string& rule : rules) {
    const std::string w = words(rule);
    std::vector<Match> found;
    for (std::size_t i = 0; i < records.size(); ++i)
      for (const std::string& k : records[i].keys)
        for (std::size_t at = w.find(k); k.size() > 2 && at != std::string::npos;
             at = w.find(k, at + 1))
          found.push_back({i, at, k.size()});
    std::vector<bool> named(records.size(), false), group_named(groups.size(), false);
    for (const Match& m : found) {
      const bool inside = std::any_of(found.begin(), found.end(), [&](const Match& o) {
        return o.len > m.len && o.at <= m.at && m.at + m.len <= o.at + o.len;
      });
      if (!inside) named[m.record] = true;
    }
    for (std::size_t i = 0; i < records.size(); ++i)
      if (named[i] && records[i].group != kNone) {
        ++records[i].tests;
        group_named[records[i].group] = true;
      }
    for (std::size_t g = 0; g < groups.size(); ++g) group_tests[g] += group_named[g] ? 1 : 0;
  }
  std::cout << fmt::format("{:<22} {:>8} {:>12} {:>16}\n", "", "records", "rules tests",
                           "named by a test");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    int n = 0, tested = 0;
    for (const Counted& x : records)
      if (x.group == g) ++n, tested += x.tests > 0 ? 1 : 0;
    std::cout << fmt::format("{:<22} {:>8} {:>12} {:>16}\n", groups[g].label, n, group_tests[g],
                             tested);
  }
  std::cout << fmt::format(
      "({} rules tests; a test counts once per line, and on every line whose "
      "records it names)\n",
      rules.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> none;
    for (const Counted& x : records)
      if (x.group == g && x.tests == 0) none.push_back(x.id);
    if (none.empty()) continue;
    std::string shown;
    for (std::size_t i = 0; i < none.size() && i < 8; ++i) shown += (i ? ", " : "") + none[i];
    if (none.size() > 8) shown += fmt::format(" and {} more", none.size() - 8);
    std::cout << fmt::format("{} no test names: {}\n", groups[g].label, shown);
  }
}
}  // namespace

int list(const Common& c, const std::string& what, const std::string& ruleset) {
  const SessionOptions so = c.session();
  LoadRequest req;
  req.root = so.root;
  req.search = so.search;
  if (what == "packs") {
    for (const auto& [id, dir] : discover_packs(req)) {
      TomlFile f((dir / "pack.toml").string());
      std::cout << fmt::format(
          "{:<20} {:<8} {:<10} {}\n", id, f.string(f.root(), "ruleset").value_or("?"),
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
    for (const auto& d : content->ruleset.decisions)
      std::cout << fmt::format("{:<40} {}\n", d.name, d.doc);
  } else if (what == "hooks") {
    Engine engine(content);
    for (const auto& h : engine.bus().hooks())
      std::cout << fmt::format("{:<40} {:<40} {}{}\n", h.id,
                               engine.bus().windows()[static_cast<std::size_t>(h.window)].name,
                               h.source_name.empty() ? "(rule)" : h.source_name,
                               h.optional ? " (optional)" : "");
  } else if (what == "counts") {
    if (content->ruleset.counts.empty())
      throw UsageError("list counts: ruleset '" + content->ruleset.id +
                       "' declares no [[counts]] in its ruleset.toml");
    list_counts(*content, so);
  } else if (what != "units" && what != "cards") {
    // the records of one kind: "factions", "technologies" or "faction"
    std::string kind;
    for (const std::string& k : content->ruleset.kinds)
      if (what == k || what == k + "s" ||
          (k.ends_with('y') && what == k.substr(0, k.size() - 1) + "ies"))
        kind = k;
    if (kind.empty()) {
      std::vector<std::string> names{"packs",     "units", "cards", "windows",
                                     "decisions", "hooks", "counts"};
      for (const std::string& k : content->ruleset.kinds) names.push_back(k);
      throw UsageError("list: '" + what + "' is not something to list" + did_you_mean(what, names) +
                       "; the ruleset's record kinds: " + join_names(content->ruleset.kinds));
    }
    // records of other kinds that name one of these by an attribute called like the kind (a
    // unit's `faction = "x"`) are counted beside it
    const AttributeDef* by = content->ruleset.attribute(kind);
    for (const auto& r : content->records) {
      if (r.removed || sym_name(r.kind) != kind) continue;
      std::map<std::string, int> named;
      if (by && by->type == AttrType::symbol)
        for (const auto& o : content->records)
          if (!o.removed && o.has[static_cast<std::size_t>(by->slot)] &&
              o.attr[static_cast<std::size_t>(by->slot)] == static_cast<std::int32_t>(r.name))
            ++named[std::string(sym_name(o.kind))];
      std::string counts;
      for (const auto& [k, n] : named)
        counts += (counts.empty() ? "" : ", ") + fmt::format("{} {}", n, k);
      auto it = r.text.find("name");
      std::cout << fmt::format("{:<40} {:<28} {}{}\n", r.id, it == r.text.end() ? "" : it->second,
                               counts,
                               r.changed_by != r.pack ? " (changed by " + r.changed_by + ")" : "");
    }
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

namespace {

// The session of a scenario file, changed by --with/--without.
Session changed_session(const SessionOptions& so, const std::string& file, const Changes& changes) {
  Session base = open_session(read_scenario(file), so);
  if (changes.empty()) return base;  // moved, not copied: a copy of a TOML table loses its lines
  return apply_changes(base, changes, so);
}

// A progress bar with rate and time left on stderr, when stderr is a terminal and stdout is not
// --json; otherwise none.
std::function<void(std::uint64_t, std::uint64_t)> progress_bar(bool json, const char* unit) {
  if (json || !isatty(STDERR_FILENO)) return {};
  const auto start = std::chrono::steady_clock::now();
  return [start, unit](std::uint64_t done, std::uint64_t planned) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
    const double left = rate > 0 ? static_cast<double>(planned - done) / rate : 0;
    const int width = 30, filled = planned ? static_cast<int>(width * done / planned) : 0;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar += std::string(static_cast<std::size_t>(width - filled), '.');
    std::cerr << fmt::format("\r[{}] {}/{}  {:.0f} {}/s  {:.1f}s left ", bar, done, planned, rate,
                             unit, left)
              << std::flush;
  };
}

void clear_progress() {
  std::cerr << "\r" << std::string(79, ' ') << "\r" << std::flush;
}

int all_cores(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int trace(const Common& c, const std::string& scenario_file, std::uint64_t seed, bool json,
          bool interactive, const Changes& changes) {
  SessionOptions so = c.session();
  Session session = changed_session(so, scenario_file, changes);
  EngineOptions engine;
  engine.interactive = interactive;  // decisions no script answers are asked at the terminal
  Table table(session, engine);
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
  if (json)
    t.print_json_lines(std::cout);
  else
    t.print_narrative(std::cout);
  return code;
}

namespace {

std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);  // set from a signal handler

extern "C" void on_interrupt(int) {
  interrupted = true;
}

// SIGINT stops the runs (the runs in progress finish their chunk) while it is alive.
struct InterruptScope {
  InterruptScope() {
    interrupted = false;
    previous = std::signal(SIGINT, on_interrupt);
  }
  ~InterruptScope() { std::signal(SIGINT, previous); }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  void (*previous)(int) = SIG_DFL;
};

}  // namespace

int simulate(const Common& c, const SimulateArgs& a) {
  const SessionOptions so = c.session();
  const Session session = changed_session(so, a.scenario, a.changes);
  Simulation sim(session);
  if (a.exact) {
    ExactRunOptions eo;
    eo.max_states = a.max_states;
    nlohmann::json report;
    try {
      report = sim.exact(eo);
    } catch (const ExactLimit& e) {
      throw UsageError(std::string("the exact mode stopped: ") + e.what() +
                       "; use Monte Carlo instead (drop --exact)");
    }
    if (a.json) {
      std::cout << report.dump() << "\n";
    } else {
      if (!a.changes.empty()) std::cout << a.changes.describe() << "\n";
      std::cout << format_report(report, sim.report_def());
    }
    std::cout << std::flush;
    return 0;
  }
  SimOptions o;
  o.runs = a.runs;
  o.precision = a.precision;
  o.max_runs = a.max_runs;
  o.seed = a.seed;
  o.threads = all_cores(a.threads);
  o.engine.memo = !a.no_memo;
  o.progress = progress_bar(a.json, "runs");
  InterruptScope scope;
  o.stop = &interrupted;
  const Tally t = sim.run(o);
  if (o.progress) clear_progress();
  const bool stopped = interrupted.load();
  auto report = sim.report(t, a.seed);
  if (stopped) report["interrupted"] = true;
  if (a.json) {
    std::cout << report.dump() << "\n";
  } else {
    if (stopped)
      std::cout << fmt::format("interrupted: the partial result of the {} runs done\n", t.runs);
    if (!a.changes.empty()) std::cout << a.changes.describe() << "\n";
    std::cout << format_report(report, sim.report_def());
  }
  std::cout << std::flush;
  if (stopped) {
    std::cerr << fmt::format("interrupted after {} runs\n", t.runs);
    return 130;  // 128 + SIGINT, as a shell reports it
  }
  if (a.precision > 0) {
    const double widest = sim.widest(t);
    if (!(widest < a.precision)) {
      std::cerr << fmt::format(
          "error: --precision {} not reached: the widest 95% half-width is {:.6g} after {} runs, "
          "the cap (--max-runs {})\n",
          a.precision, widest, t.runs, a.max_runs);
      return 1;
    }
  }
  return 0;
}

int compare(const Common& c, const CompareArgs& a) {
  if (a.changes.empty())
    throw UsageError(
        "compare needs --with or --without: what arm B changes (a record, a pack or a "
        "setting), or there is nothing to compare");
  const SessionOptions so = c.session();
  const Session as_written = open_session(read_scenario(a.scenario), so);
  const Session changed = apply_changes(as_written, a.changes, so);
  Comparison cmp(as_written, changed);
  if (a.exact) {
    ExactRunOptions eo;
    eo.max_states = a.max_states;
    nlohmann::json report;
    try {
      report = exact_comparison(as_written, changed, a.changes, eo);
    } catch (const ExactLimit& e) {
      throw UsageError(std::string("the exact mode stopped: ") + e.what() +
                       "; use Monte Carlo instead (drop --exact)");
    }
    if (a.json)
      std::cout << report.dump() << "\n";
    else
      std::cout << format_exact_comparison(report, cmp.report_def());
    return 0;
  }
  CompareOptions o;
  o.runs = a.runs;
  o.seed = a.seed;
  o.threads = all_cores(a.threads);
  o.progress = progress_bar(a.json, "pairs");
  const PairTally t = cmp.run(o);
  if (o.progress) clear_progress();
  const auto report = cmp.report(t, a.seed, a.changes);
  if (a.json)
    std::cout << report.dump() << "\n";
  else
    std::cout << format_comparison(report, cmp.report_def());
  return 0;
}

int bench(const Common& c, const BenchArgs& a) {
  if (a.exact) {
    const auto results = run_exact_bench(c.session(), a.seconds);
    if (a.json)
      std::cout << exact_bench_json(results).dump() << "\n";
    else
      std::cout << format_exact_bench(results);
    return 0;
  }
  BenchOptions o;
  o.runs = a.runs;
  o.seconds = a.seconds;
  o.seed = a.seed;
  o.threads = std::max(1, a.threads);
  const auto results = run_bench(c.session(), o);
  if (a.json)
    std::cout << bench_json(results, o).dump() << "\n";
  else
    std::cout << format_bench(results, o);
  return 0;
}

int test(const Common& c, const std::vector<std::string>& paths, bool verbose) {
  SessionOptions so = c.session();
  std::vector<fs::path> ps(paths.begin(), paths.end());
  // tests inside a pack outside the search path (rulebench test my-pack/): that pack is found
  for (const fs::path& p : ps) {
    std::error_code ec;
    for (fs::path d = fs::absolute(p, ec).lexically_normal(); !d.empty(); d = d.parent_path()) {
      if (fs::is_regular_file(d / "pack.toml", ec)) {
        so.search.push_back(d);
        break;
      }
      if (d == d.parent_path()) break;
    }
  }
  const std::vector<fs::path> files = find_rules_tests(ps, so);
  if (files.empty()) {
    std::string where;
    for (const auto& p : ps) where += (where.empty() ? "" : ", ") + p.string();
    if (where.empty()) where = "the packs under " + (so.root / "content").string();
    std::cout << "no tests found in " << where << "\n";
    return 1;
  }
  int passed = 0, failed = 0;
  for (const fs::path& file : files) {
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
