#include "commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "content/toml_read.hpp"
#include "exact/explore.hpp"
#include "sim/bench.hpp"
#include "sim/compare.hpp"
#include "sim/rules_test.hpp"
#include "sim/simulate.hpp"

namespace rb::cli {

SessionOptions Common::session() const {
  SessionOptions o;
  o.root = root.empty() ? default_root() : fs::path(root);
  for (const auto& d : pack_dirs) o.search.emplace_back(d);
  return o;
}

int check(const Common& c, const std::vector<std::string>& packs, bool json) {
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
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  for (const std::string& p : targets) {
    nlohmann::ordered_json entry;
    entry["pack"] = p;
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
      if (info) {
        // a scenario that links out of the pack is an error naming the link (base/paths)
        for (const fs::path& file :
             files_inside(info->dir, info->dir / "scenarios", ".toml", "pack", Walk::flat)) {
          Session session = open_session(read_scenario(file), so);
          EngineOptions guarded;
          guarded.check_state = true;
          Table table(session, guarded);
          Simulation(session).scenario_best();  // a [play] the report cannot give, at its line
          Trace first;
          // runs 0 and 1 in one engine, then run 0 again in a fresh one: it must repeat run 0
          // event for event (one seed gives one answer in any Lua state, as in another process)
          for (std::uint64_t run = 0; run < 3; ++run) {
            std::unique_ptr<Table> fresh;
            if (run == 2) fresh = std::make_unique<Table>(session, guarded);
            Table& in = fresh ? *fresh : table;
            State state = in.start;
            RunOptions options;
            options.run = run == 2 ? 0 : run;
            Trace trace;
            trace.enabled = run != 1;
            options.trace = &trace;
            RunResult result;
            try {
              in.engine.run(session.procedure, state, options, result);
            } catch (const Error& e) {
              throw ScriptError(file.string() + ": " + e.what());
            }
            if (run == 0) first = std::move(trace);
            if (run == 2)
              if (std::string d = Trace::first_difference(first, trace); !d.empty())
                throw ScriptError(file.string() +
                                  ": run 0 in a fresh engine did not repeat run 0 (" + d +
                                  "): something other than the seed changes the run");
          }
          ++scenarios;
        }
      }
      // luacheck over the pack's own Lua files, when it is installed
      const Lint lint = lint_scripts(engine, info ? info->scripts : std::vector<fs::path>{});
      // ctx method names and ctx:activate("id"), which would fail only when that line runs
      const std::vector<std::string> names =
          check_script_names(*content, info ? info->scripts : std::vector<fs::path>{});
      const bool ok = lint.errors.empty() && names.empty();
      failed += ok ? 0 : 1;
      entry["ok"] = ok;
      entry["ruleset"] = content->ruleset.id;
      entry["packs_loaded"] = content->packs.size();
      entry["records"] = records;
      entry["hooks"] = engine.bus().hooks().size();
      entry["scenarios_run_twice"] = scenarios;
      entry["luacheck"] = {{"ran", lint.ran}, {"errors", lint.errors}, {"warnings", lint.warnings}};
      entry["script_names"] = names;
      if (!json) {
        std::cout << fmt::format(
            "{:<5} {:<24} ruleset {}, {} loaded, {}, {}, {} run twice{}\n", ok ? "ok" : "FAIL", p,
            content->ruleset.id, count_of(content->packs.size(), "pack"),
            count_of(records, "record"), count_of(engine.bus().hooks().size(), "hook"),
            count_of(scenarios, "scenario"),
            lint.ran ? "" : " (luacheck is not installed: Lua not linted)");
        for (const auto& e : names) std::cout << "      " << e << "\n";
        for (const auto& e : lint.errors) std::cout << "      luacheck: " << e << "\n";
        for (const auto& w : lint.warnings) std::cout << "      luacheck warning: " << w << "\n";
      }
    } catch (const Error& e) {
      ++failed;
      entry["ok"] = false;
      entry["error"] = e.what();
      if (!json) std::cout << fmt::format("FAIL  {}\n      {}\n", p, e.what());
    }
    report.push_back(std::move(entry));
  }
  if (json) {
    nlohmann::ordered_json j;
    j["checked"] = targets.size();
    j["failed"] = failed;
    j["packs"] = std::move(report);
    std::cout << j.dump() << "\n";
  } else {
    std::cout << fmt::format("{} checked, {} failed\n", count_of(targets.size(), "pack"), failed);
  }
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
// With `items`, each line is an item (label, kind, attribute, value, records, rules_tests,
// named_by_a_test, untested: the ids no test names) and nothing is printed.
void list_counts(const Content& content, const SessionOptions& so,
                 nlohmann::ordered_json* items = nullptr) {
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
      if (const fs::path pack = pack_folder_of(file); !pack.empty())
        require_inside(pack, file, "pack");  // a link out of the pack is never read
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
  if (items) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      int n = 0, tested = 0;
      nlohmann::ordered_json untested = nlohmann::ordered_json::array();
      for (const Counted& x : records) {
        if (x.group != g) continue;
        ++n, tested += x.tests > 0 ? 1 : 0;
        if (x.tests == 0) untested.push_back(x.id);
      }
      items->push_back({{"label", groups[g].label},
                        {"kind", groups[g].kind},
                        {"attribute", groups[g].attribute},
                        {"value", groups[g].value},
                        {"records", n},
                        {"rules_tests", group_tests[g]},
                        {"named_by_a_test", tested},
                        {"untested", untested}});
    }
    return;
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

namespace {

// A record's attributes as "combat 7, capacity 2, sustain_damage" (the ones it sets).
std::string record_stats(const Ruleset& rules, const Record& r, nlohmann::ordered_json& json) {
  std::string out;
  for (const AttributeDef& a : rules.attributes) {
    const auto slot = static_cast<std::size_t>(a.slot);
    if (!r.has[slot]) continue;
    const std::int32_t v = r.attr[slot];
    std::string text;
    if (a.type == AttrType::boolean) {
      json[a.name] = v != 0;
      if (!v) continue;
      text = a.name;
    } else if (a.type == AttrType::symbol || a.type == AttrType::counts) {
      json[a.name] = std::string(sym_name(static_cast<Sym>(v)));
      text = a.name + " " + json[a.name].get<std::string>();
    } else {
      json[a.name] = v;
      text = a.name + " " + std::to_string(v);
    }
    out += (out.empty() ? "" : ", ") + text;
  }
  return out;
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  return s;
}

}  // namespace

int list(const Common& c, const std::string& what, const std::string& ruleset, bool json,
         const std::vector<std::string>& with_packs) {
  const SessionOptions so = c.session();
  LoadRequest req;
  req.root = so.root;
  req.search = so.search;
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  auto finish = [&] {
    if (json) std::cout << nlohmann::ordered_json{{"list", what}, {"items", items}}.dump() << "\n";
    return 0;
  };
  if (what == "packs") {
    for (const auto& [id, dir] : discover_packs(req)) {
      TomlFile f((dir / "pack.toml").string());
      const std::string rs = f.string(f.root(), "ruleset").value_or("?"),
                        version = f.string(f.root(), "version").value_or("?"),
                        name = f.string(f.root(), "name").value_or("");
      items.push_back({{"id", id},
                       {"ruleset", rs},
                       {"version", version},
                       {"name", name},
                       {"folder", dir.string()}});
      if (!json) std::cout << fmt::format("{:<20} {:<10} {:<10} {}\n", id, rs, version, name);
    }
    return finish();
  }
  req.ruleset = ruleset;
  req.all_packs = true;
  auto content = load_content(req);
  const auto all_content = content;
  // packs that change other packs' records (house rules) are left out unless named: what is
  // listed is what a scenario that does not name them sees
  std::vector<std::string> left_out;
  for (const Record& r : content->records)
    if (r.changed_by != r.pack &&
        std::find(with_packs.begin(), with_packs.end(), r.changed_by) == with_packs.end() &&
        std::find(left_out.begin(), left_out.end(), r.changed_by) == left_out.end())
      left_out.push_back(r.changed_by);
  std::sort(left_out.begin(), left_out.end());
  if (!left_out.empty()) {
    req.exclude = left_out;
    content = load_content(req);
  }
  const Ruleset& rules = content->ruleset;
  if (what == "windows") {
    Engine engine(content);
    for (std::size_t w = 0; w < engine.bus().windows().size(); ++w) {
      const auto& wd = engine.bus().windows()[w];
      int n = 0;
      for (const auto& h : engine.bus().hooks()) n += h.window == static_cast<int>(w) ? 1 : 0;
      items.push_back({{"name", wd.name}, {"hooks", n}, {"doc", wd.doc}});
      if (!json)
        std::cout << fmt::format("{:<40} {:>8}  {}\n", wd.name, count_of(n, "hook"), wd.doc);
    }
    return finish();
  }
  if (what == "decisions") {
    for (const auto& d : rules.decisions) {
      items.push_back({{"name", d.name}, {"doc", d.doc}});
      if (!json) std::cout << fmt::format("{:<40} {}\n", d.name, d.doc);
    }
    return finish();
  }
  if (what == "purposes" || what == "roles") {
    // what a [[modifier]]'s purpose and role may name (ruleset.toml)
    const bool purposes = what == "purposes";
    for (const std::string& name : purposes ? rules.purposes : rules.roles) {
      items.push_back({{"name", name}});
      if (!json) std::cout << name << "\n";
    }
    return finish();
  }
  if (what == "hooks") {
    Engine engine(content);
    for (const auto& h : engine.bus().hooks()) {
      const std::string& window = engine.bus().windows()[static_cast<std::size_t>(h.window)].name;
      items.push_back({{"id", h.id},
                       {"window", window},
                       {"source", h.source_name},
                       {"optional", h.optional},
                       {"pack", h.pack}});
      if (!json)
        std::cout << fmt::format("{:<40} {:<40} {}{}\n", h.id, window,
                                 h.source_name.empty() ? "(rule)" : h.source_name,
                                 h.optional ? " (optional)" : "");
    }
    return finish();
  }
  if (what == "counts") {
    if (rules.counts.empty())
      throw UsageError("list counts: ruleset '" + rules.id +
                       "' declares no [[counts]] in its ruleset.toml");
    // every pack of the ruleset, house rules included (their records count too)
    list_counts(*all_content, so, json ? &items : nullptr);
    return finish();
  }
  // records: "units" (the ruleset's unit kind), "cards" (the kinds a scenario side lists as
  // cards, else every kind whose name ends in "card"), or one kind ("factions", "technology")
  std::vector<std::string> kinds;
  if (what == "units") {
    // the kind that rolls and takes hits; a ruleset whose units are another kind (X-Wing's
    // ships) names it as its report's survivor_kind
    if (rules.has_kind(rules.unit_kind)) kinds = {rules.unit_kind};
    for (const auto& [proc, rep] : rules.reports)
      if (kinds.empty() && rules.has_kind(rep.survivor_kind)) kinds = {rep.survivor_kind};
  } else if (what == "cards") {
    for (const auto& [kind, key] : rules.scenario_lists)
      if (key == "cards") kinds.push_back(kind);
    if (kinds.empty())
      for (const std::string& k : rules.kinds)
        if (k.ends_with("card")) kinds.push_back(k);
  } else {
    for (const std::string& k : rules.kinds)
      if (what == k || what == k + "s" ||
          (k.ends_with('y') && what == k.substr(0, k.size() - 1) + "ies"))
        kinds.push_back(k);
    if (kinds.empty()) {
      std::vector<std::string> names{"packs", "units",    "cards", "windows", "decisions",
                                     "hooks", "purposes", "roles", "counts"};
      for (const std::string& k : rules.kinds) names.push_back(k);
      throw UsageError("list: '" + what + "' is not something to list" + did_you_mean(what, names) +
                       "; the ruleset's record kinds: " + join_names(rules.kinds));
    }
  }
  if (!json) {
    std::vector<std::string> loaded;
    for (const PackInfo& p : content->packs) loaded.push_back(p.id);
    std::cout << fmt::format(
        "{} of the ruleset {} in the packs {} (a scenario loads {} and the packs it names){}\n",
        what, rules.id, join_names(loaded), rules.base_pack.empty() ? "none" : rules.base_pack,
        left_out.empty()
            ? ""
            : "; not loaded: " + join_names(left_out) +
                  ", which change other packs' records (--pack ID shows them changed)");
  }
  const bool units = what == "units";
  for (const std::string& kind : kinds) {
    // records of other kinds that name one of these by an attribute called like the kind (a
    // unit's `faction = "x"`) are counted beside it
    const AttributeDef* by = rules.attribute(kind);
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
      auto field = [&](const char* key) {
        auto it = r.text.find(key);
        return it == r.text.end() ? std::string() : one_line(it->second);
      };
      nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
      const std::string stats = record_stats(rules, r, attributes);
      const std::string changed =
          r.changed_by != r.pack ? " (changed by " + r.changed_by + ", when it is loaded)" : "";
      nlohmann::ordered_json item{
          {"id", r.id}, {"kind", kind}, {"name", field("name")}, {"pack", r.pack}};
      if (r.changed_by != r.pack) item["changed_by"] = r.changed_by;
      item["text"] = field("text");
      item["attributes"] = attributes;
      if (!named.empty()) item["named_by"] = named;
      items.push_back(std::move(item));
      if (json) continue;
      if (units)
        std::cout << fmt::format("{:<40} {:<24} {}{}\n", r.id, field("name"), stats, changed);
      else
        std::cout << fmt::format(
            "{:<40} {:<28} {}{}{}\n", r.id, field("name"), counts.empty() ? field("text") : counts,
            counts.empty() || field("text").empty() ? "" : "  " + field("text"), changed);
    }
  }
  return finish();
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

namespace {

// What is left of each side at the end of a run: "attacker: dreadnought 2, carrier 1" (units of
// the report's survivor kind anywhere on the board), one line per side of the report.
std::string survivors_text(const Session& s, const State& state) {
  const Ruleset& r = s.content->ruleset;
  auto it = r.reports.find(s.procedure);
  if (it == r.reports.end() || it->second.sides.empty()) return "";
  const ReportDef& rep = it->second;
  const Sym kind = sym(r.has_kind(rep.survivor_kind) ? rep.survivor_kind : r.unit_kind);
  std::string out = "survivors:\n";
  for (const std::string& side : rep.sides) {
    const EntityId p = state.role(sym(side));
    if (p == kNoEntity) continue;
    std::map<std::string, int> left;
    for (const Entity& e : state.entities)
      if (e.owner == p && e.kind == kind && e.location != kReinforcements)
        ++left[std::string(sym_name(e.type))];
    std::string list;
    for (const auto& [type, n] : left)
      list += (list.empty() ? "" : ", ") + type + " " + std::to_string(n);
    const std::string name(sym_name(state.at(p).type));
    out += "  " + side + (name != side ? " (" + name + ")" : "") + ": " +
           (list.empty() ? "nothing left" : list) + "\n";
  }
  return out;
}

}  // namespace

int trace(const Common& c, const std::string& scenario_file, std::uint64_t seed, bool json,
          bool interactive, const Changes& changes, bool verbose) {
  if (interactive && !isatty(STDIN_FILENO))
    throw UsageError(
        "trace -i asks you the decisions at the terminal, but standard input is not a terminal; "
        "run it in a terminal, or script the answers in a rules test ([[answer]])");
  SessionOptions so = c.session();
  Session session = changed_session(so, scenario_file, changes);
  // the scenario's [play]: a run of the best play (trace --best SIDE --objective O); at the
  // terminal (-i) you make the decisions yourself
  if (!session.scenario.best_sides.empty() && !interactive)
    return trace_best(c, scenario_file, seed, json, changes, Simulation(session).scenario_best(),
                      session.scenario.best_objective);
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
  if (!json) {
    std::cout << describe_session(session) << "seed      " << seed << "\n";
    if (!changes.empty()) std::cout << changes.describe() << "\n";
    std::cout << "\n" << std::flush;
  }
  int code = 0;
  try {
    table.engine.run(session.procedure, state, run, result);
  } catch (const Error& e) {
    code = 2;
    if (!json) std::cerr << "error: " << e.what() << "\n";
  }
  if (json) {
    t.print_json_lines(std::cout);
  } else {
    NarrativeOptions o;
    o.verbose = verbose;
    o.from = t.printed;  // -i showed the events before each question
    o.round_windows = session.content->ruleset.round_windows;
    t.print_narrative(std::cout, o);
    if (code == 0) std::cout << "\n" << survivors_text(session, state);
    if (!verbose)
      std::cout << "(rules that showed nothing and repeated windows are left out: -v shows every "
                   "event)\n";
  }
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

namespace {

// What simulate --json ran: "scenario" (file, ruleset, procedure, its settings), "packs" (id and
// version, in load order) and "changes" (--with, --without).
void add_run_description(nlohmann::json& report, const Session& session, const Changes& changes) {
  nlohmann::json s = session_json(session);
  report["packs"] = s["packs"];
  s.erase("packs");
  report["scenario"] = std::move(s);
  report["changes"] = {{"with", changes.with}, {"without", changes.without}};
}

}  // namespace

namespace {

// The lines after the best play's report: "defender's best play (to win): 57.5% against the
// policy's 54.5%: +3.0 points"; with both sides, each side's odds and whether the rounds
// settled; then the first decisions' table (--decisions).
void print_best(const nlohmann::json& b, const std::string& side, const std::string& objective) {
  const bool metric = objective.rfind("metric:", 0) == 0;
  const std::string goal = objective == "win"        ? "to win"
                           : objective == "not_lose" ? "not to lose"
                                                     : "for " + objective;
  // a chance in %, a metric as it is
  auto value = [&](double v) {
    return metric ? fmt::format("{:.6f}", v) : fmt::format("{:.6f}%", 100 * v);
  };
  auto gain = [&](double g) {
    return metric ? fmt::format("{:+.6f}", g) : fmt::format("{:+.6f} points", 100 * g);
  };
  if (side != "both") {
    std::cout << fmt::format(
        "{}'s best play ({}): {} against the policy's {}: {} (the report above is the best "
        "play's; {} states where it decides)\n",
        side, goal, value(b["best"].get<double>()), value(b["policy"].get<double>()),
        gain(b["gain"].get<double>()), b["choice_nodes"].get<std::size_t>());
    if (b.contains("same_game") && !b["same_game"].get<bool>())
      std::cout << fmt::format(
          "warning: not a best response to the policy's game: with {0}'s decisions as choices, "
          "its policy's own options give {1}, not the policy's {2}: some rule acts otherwise when "
          "{0} chooses than when its policy does (a hook that reads ctx:by_policy; "
          "docs/exact.md, \"Best play and rules that read the policy\")\n",
          side, value(b["policy_in_graph"].get<double>()), value(b["policy"].get<double>()));
  } else {
    const std::size_t rounds = b["rounds"].get<std::size_t>();
    std::cout << fmt::format("both sides' best responses in turn ({}): {} after {} round{}; ", goal,
                             b["rounds_settled"].get<bool>() ? "settled" : "did not settle", rounds,
                             rounds == 1 ? "" : "s");
    std::cout << (b["rounds_settled"].get<bool>()
                      ? "each side's play is a best response to the other's (the report above "
                        "is this pair's)\n"
                      : "the report above is the last pair's\n");
    for (const auto& [s, v] : b["sides"].items())
      std::cout << fmt::format("  {}: {} at the pair, {} with both policies ({})\n", s,
                               value(v["pair"].get<double>()), value(v["policy"].get<double>()),
                               gain(v["pair"].get<double>() - v["policy"].get<double>()));
  }
  if (!b["settled"].get<bool>())
    std::cout << fmt::format(
        "(the values did not settle in {} sweeps: the best play is the last sweep's)\n",
        b["iterations"].get<std::size_t>());
  if (b.contains("decisions")) {
    const std::string who = side == "both" ? "the first side" : side;
    if (b["decisions"].empty())
      std::cout << who << " has no first decision with two options or more\n";
    else
      std::cout << who << "'s first decisions (the chance of each; each option's value, "
                << "best first; the margin of the best):\n";
    for (const auto& row : b["decisions"]) {
      // "2 hits (36.3%): lose 2 destroyer = lose 1 carrier, 1 destroyer 59.80%, ...": options of
      // equal value joined by "=", the best two values shown
      std::string line =
          fmt::format("  {} hit{} ({:.1f}%):", row["hits"].get<int>(),
                      row["hits"].get<int>() == 1 ? "" : "s", 100 * row["p"].get<double>());
      std::size_t groups = 0, k = 0;
      const auto& options = row["options"];
      while (k < options.size() && groups < 2) {
        const double v = options[k]["value"].get<double>();
        std::string names;
        std::size_t same = 0;
        for (; k < options.size() && std::abs(options[k]["value"].get<double>() - v) <= 1e-9; ++k)
          if (same++ < 2)
            names += (names.empty() ? "" : " = ") + options[k]["option"].get<std::string>();
        if (same > 2) names += fmt::format(" (= {} more)", same - 2);
        line += fmt::format("{} {} {}", groups++ ? "," : "", names,
                            metric ? fmt::format("{:.4f}", v) : fmt::format("{:.2f}%", 100 * v));
      }
      if (k < options.size()) line += fmt::format(" (+{} more)", options.size() - k);
      line += metric ? fmt::format(": {:+.4f}", row["margin"].get<double>())
                     : fmt::format(": {:+.2f} points", 100 * row["margin"].get<double>());
      std::cout << line << "\n";
    }
  }
}

}  // namespace

int simulate(const Common& c, const SimulateArgs& a) {
  const SessionOptions so = c.session();
  Session session = changed_session(so, a.scenario, a.changes);
  // best play: --best SIDE|both|none, else the scenario's [play] (docs/exact.md); a flag
  // overrides the file
  std::string best = a.best == "none" ? "" : a.best;
  std::string objective = a.objective;
  bool exact = a.exact;
  if (!a.best.empty()) session.scenario.best_sides.clear();
  Simulation sim(session);
  if (a.best.empty() && !session.scenario.best_sides.empty()) {
    best = sim.scenario_best();
    if (!a.objective_given) objective = session.scenario.best_objective;
    if (a.monte_carlo_asked) {
      const auto& [side, line] = session.scenario.best_sides.front();
      throw ContentError(session.scenario.file, line,
                         "[play] " + side +
                             " = \"best\": best play is the exact mode's, but --runs, "
                             "--precision and --max-runs ask for Monte Carlo: drop them (this "
                             "scenario runs in the exact mode), or give --best none to run the "
                             "policies by Monte Carlo");
    }
    exact = true;
  }
  if (!best.empty() && !exact)
    throw UsageError("--best: best play is the exact mode's; give --exact too");
  if (best.empty() && (a.objective_given || a.decisions))
    throw UsageError(std::string(a.decisions ? "--decisions" : "--objective") +
                     ": a setting of best play; give --best SIDE (or [play] in the scenario)");
  if (exact) {
    ExactRunOptions eo;
    eo.max_states = a.max_states;
    eo.max_branches = a.max_branches;
    eo.max_bytes = a.max_memory << 20;
    eo.seconds = a.max_seconds;
    nlohmann::json report;
    try {
      report = best.empty() ? sim.exact(eo) : sim.exact_best(eo, best, objective, a.decisions);
    } catch (const ExactLimit& e) {
      throw UsageError(std::string("the exact mode stopped: ") + e.what() +
                       "; use Monte Carlo instead (drop --exact)");
    }
    if (a.json) {
      add_run_description(report, session, a.changes);
      std::cout << report.dump() << "\n";
    } else {
      std::cout << describe_session(session);
      if (!a.changes.empty()) std::cout << a.changes.describe() << "\n";
      std::cout << format_report(report, sim.report_def());
      if (report.contains("best")) print_best(report["best"], best, objective);
    }
    std::cout << std::flush;
    return 0;
  }
  SimOptions o;
  o.runs = a.runs;
  o.precision = a.precision;
  o.precision_mean = a.precision_mean;
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
    add_run_description(report, session, a.changes);
    std::cout << report.dump() << "\n";
  } else {
    if (stopped)
      std::cout << fmt::format("interrupted: the partial result of the {} runs done\n", t.runs);
    std::cout << describe_session(session);
    if (!a.changes.empty()) std::cout << a.changes.describe() << "\n";
    std::cout << format_report(report, sim.report_def());
  }
  std::cout << std::flush;
  if (stopped) {
    std::cerr << fmt::format("interrupted after {} runs\n", t.runs);
    return 130;  // 128 + SIGINT, as a shell reports it
  }
  bool reached = true;
  if (a.precision > 0) {
    const double widest = sim.widest(t);
    if (!(widest < a.precision)) {
      std::cerr << fmt::format(
          "error: --precision {} not reached: the widest probability's 95% half-width is {:.6g} "
          "after {} runs, the cap (--max-runs {})\n",
          a.precision, widest, t.runs, a.max_runs);
      reached = false;
    }
  }
  if (a.precision_mean > 0) {
    const double widest = sim.widest_mean(t);
    if (!(widest < a.precision_mean)) {
      std::cerr << fmt::format(
          "error: --precision-mean {} not reached: the widest mean's 95% half-width is {:.6g} "
          "after {} runs, the cap (--max-runs {})\n",
          a.precision_mean, widest, t.runs, a.max_runs);
      reached = false;
    }
  }
  if (!reached) return 1;
  return 0;
}

int compare(const Common& c, const CompareArgs& a) {
  if (a.changes.empty())
    throw UsageError(
        "compare needs --with or --without: what arm B changes (a record, a pack or a "
        "setting), or there is nothing to compare");
  const SessionOptions so = c.session();
  // --rounds k: the setting scenario:rounds=k in both arms (arm A is the scenario with the stop)
  Changes stop;
  if (a.rounds > 0) stop.with.push_back("scenario:rounds=" + std::to_string(a.rounds));
  const Session as_written = apply_changes(open_session(read_scenario(a.scenario), so), stop, so);
  const Session changed = apply_changes(as_written, a.changes, so);
  Comparison cmp(as_written, changed);
  if (a.exact) {
    ExactRunOptions eo;
    eo.max_states = a.max_states;
    eo.max_bytes = a.max_memory << 20;
    eo.seconds = a.max_seconds;
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
      std::cout << describe_session(as_written)
                << format_exact_comparison(report, cmp.report_def());
    return 0;
  }
  CompareOptions o;
  o.runs = a.runs;
  o.seed = a.seed;
  o.threads = all_cores(a.threads);
  o.progress = progress_bar(a.json, "pairs");
  const PairTally t = cmp.run(o);
  if (o.progress) clear_progress();
  auto report = cmp.report(t, a.seed, a.changes);
  if (a.json) {
    nlohmann::json s = session_json(as_written);
    report["packs"] = s["packs"];
    s.erase("packs");
    report["scenario"] = std::move(s);
    std::cout << report.dump() << "\n";
  } else {
    std::cout << describe_session(as_written) << format_comparison(report, cmp.report_def());
  }
  return 0;
}

int trace_best(const Common& c, const std::string& scenario_file, std::uint64_t seed, bool json,
               const Changes& changes, const std::string& side, const std::string& objective) {
  SessionOptions so = c.session();
  Session session = changed_session(so, scenario_file, changes);
  const Simulation sim(session);
  ExactRunOptions o;
  o.best_walk = true;
  o.best_walk_seed = seed;
  const nlohmann::json j = sim.exact_best(o, side, objective);
  const nlohmann::json& b = j.at("best");
  if (json) {
    std::cout << nlohmann::json{{"side", b.at("side")}, {"objective", objective},
                                {"seed", seed},         {"policy", b.at("policy")},
                                {"best", b.at("best")}, {"walk", b.at("walk")}}
                     .dump()
              << "\n";
    return 0;
  }
  const bool metric = objective.rfind("metric:", 0) == 0;
  auto value = [&](double v) {
    return metric ? fmt::format("{:.4f}", v) : fmt::format("{:.2f}%", 100 * v);
  };
  std::cout << describe_session(session) << "seed      " << seed << "\n\n";
  std::cout << fmt::format("{}'s best play ({}): {} against the policy's {}\n", side, objective,
                           value(b.at("best").get<double>()), value(b.at("policy").get<double>()));
  std::cout << "one run drawn through it (exact mode): what each step lost, damaged or repaired, "
               "and at each of "
            << side << "'s decisions every option's value, the best first\n";
  int shown = 0;
  for (const auto& step : b.at("walk").at("steps")) {
    std::string changed;
    for (const auto& [who, what] : step.at("changes").items())
      if (what != "nothing")
        changed += (changed.empty() ? "" : "; ") + who + ": " + what.get<std::string>();
    if (changed.empty() && step.at("decisions").empty()) continue;
    std::cout << fmt::format("  {:>3}. {}\n", ++shown, changed.empty() ? "nothing lost" : changed);
    for (const auto& d : step.at("decisions")) {
      const auto& options = d.at("options");
      std::vector<std::size_t> order(options.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      // best first; equal values (to 1e-10) in the runtime's order, the policy's option first
      auto key = [&](std::size_t i) {
        return std::round(options[i].at("value").get<double>() * 1e10);
      };
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t x) { return key(a) > key(x); });
      std::string line;
      for (std::size_t i : order)
        line += (line.empty() ? "" : ", ") + options[i].at("option").get<std::string>() + ": " +
                value(options[i].at("value").get<double>());
      const std::size_t taken = d.at("taken").get<std::size_t>();
      std::cout << "       " << side << " decides: " << line << " (takes "
                << options[taken].at("option").get<std::string>() << ")\n";
    }
  }
  const std::string outcome = b.at("walk").at("outcome").get<std::string>();
  std::cout << "  ends" << (outcome.empty() ? "" : ": " + outcome) << "\n";
  return 0;
}

int bench(const Common& c, const BenchArgs& a) {
  if (!a.best.empty() && !a.exact) throw UsageError("bench --best needs --exact");
  if (a.exact) {
    const auto results = run_exact_bench(c.session(), a.seconds, a.cases, a.best);
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
  o.only = a.cases;
  const auto results = run_bench(c.session(), o);
  if (a.json)
    std::cout << bench_json(results, o).dump() << "\n";
  else
    std::cout << format_bench(results, o);
  return 0;
}

namespace {

std::string xml_escaped(const std::string& s) {
  std::string out;
  for (char ch : s) switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
          out += '?';
        else
          out += ch;
    }
  return out;
}

// The end of a failed test's narrative, so that its writer sees where the run went without -v.
void print_trace_tail(const std::string& narrative, std::size_t lines = 15) {
  std::vector<std::string_view> all;
  for (std::size_t at = 0; at < narrative.size();) {
    const std::size_t end = std::min(narrative.find('\n', at), narrative.size());
    all.emplace_back(narrative.data() + at, end - at);
    at = end + 1;
  }
  if (all.empty()) return;
  const std::size_t from = all.size() > lines ? all.size() - lines : 0;
  std::cout << "      trace, "
            << (from ? "its last " + std::to_string(lines) + " lines" : "all of it")
            << (from ? " (-v shows all " + std::to_string(all.size()) + ")" : "") << ":\n";
  for (std::size_t i = from; i < all.size(); ++i) std::cout << "      | " << all[i] << "\n";
}

// A JUnit XML report (what CI systems read): one <testsuite> per test file, one <testcase> per
// rules test, a <failure> with every problem for a test that failed.
template <class Suites>
void write_junit(const std::string& path, const Suites& suites) {
  std::size_t tests = 0, failures = 0;
  double seconds = 0;
  for (const auto& s : suites) {
    tests += s.results.size();
    seconds += s.seconds;
    for (const auto& r : s.results) failures += r.passed ? 0 : 1;
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << fmt::format(
             "<testsuites name=\"rulebench test\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n",
             tests, failures, seconds);
  for (const auto& s : suites) {
    std::size_t f = 0;
    for (const auto& r : s.results) f += r.passed ? 0 : 1;
    out << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{:.3f}\">\n",
                       xml_escaped(s.file), s.results.size(), f, s.seconds);
    for (const auto& r : s.results) {
      out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"",
                         xml_escaped(s.file), xml_escaped(r.name), xml_escaped(r.file));
      if (r.passed) {
        out << "/>\n";
        continue;
      }
      std::string text;
      for (const auto& p : r.problems) text += p + "\n";
      out << ">\n      <failure message=\""
          << xml_escaped(r.problems.empty() ? "failed" : r.problems.front()) << "\">"
          << xml_escaped(text + r.trace) << "</failure>\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  // never through a link at FILE (a checkout could plant one): refused (base/paths)
  const fs::path file(path);
  write_files_inside(file.has_parent_path() ? file.parent_path() : fs::path("."),
                     {{file.filename(), out.str()}}, "test --junit");
}

}  // namespace

int test(const Common& c, const std::vector<std::string>& paths, bool verbose, bool json,
         const std::string& junit) {
  SessionOptions so = c.session();
  std::vector<fs::path> ps(paths.begin(), paths.end());
  // tests inside a pack outside the search path (rulebench test my-pack/): that pack is found
  for (const fs::path& p : ps)
    if (fs::path d = pack_folder_of(p); !d.empty()) so.search.push_back(d);
  const std::vector<fs::path> files = find_rules_tests(ps, so);
  if (files.empty()) {
    std::string where;
    for (const auto& p : ps) where += (where.empty() ? "" : ", ") + p.string();
    if (where.empty()) where = "the packs under " + (so.root / "content").string();
    std::cout << "no tests found in " << where << "\n";
    return 1;
  }
  int passed = 0, failed = 0;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  struct Suite {
    std::string file;
    double seconds = 0;
    std::vector<RulesTestResult> results;
  };
  std::vector<Suite> suites;
  for (const fs::path& file : files) {
    const auto start = std::chrono::steady_clock::now();
    Suite suite{file.string(), 0, run_rules_test_file(file, so)};
    suite.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const RulesTestResult& r : suite.results) {
      (r.passed ? passed : failed) += 1;
      tests.push_back(
          {{"name", r.name}, {"file", r.file}, {"passed", r.passed}, {"problems", r.problems}});
      if (json) continue;
      if (r.passed) {
        std::cout << "ok    " << r.name << "\n";
      } else {
        std::cout << "FAIL  " << r.name << "  (" << r.file << ")\n";
        for (const auto& p : r.problems) std::cout << "      " << p << "\n";
        if (verbose)
          std::cout << r.trace;
        else
          print_trace_tail(r.trace);
      }
    }
    suites.push_back(std::move(suite));
  }
  if (!junit.empty()) write_junit(junit, suites);
  if (json) {
    nlohmann::ordered_json j;
    j["passed"] = passed;
    j["failed"] = failed;
    j["tests"] = std::move(tests);
    std::cout << j.dump() << "\n";
  } else {
    std::cout << passed << " passed, " << failed << " failed\n";
  }
  return failed ? 1 : 0;
}

}  // namespace rb::cli
