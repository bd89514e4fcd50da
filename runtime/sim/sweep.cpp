#include "sim/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "content/toml_read.hpp"
#include "exact/explore.hpp"
#include "sim/cell.hpp"
#include "sim/simulate.hpp"

namespace rb {

namespace {

using json = nlohmann::json;

// The keys an axis may have besides side and name: exactly one of them.
const std::vector<std::string> kAxisKinds = {"factions", "fleets", "technologies", "cards",
                                             "packs",    "roles",  "changes"};

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// A value that is one string or a list of strings.
std::vector<std::string> names_of(const TomlFile& f, const toml::node& v, const std::string& what) {
  std::vector<std::string> out;
  if (v.is_string()) return {std::string(v.as_string()->get())};
  if (!v.is_array())
    f.fail(v, what + " must be a name or a list of names, not " + toml_type_name(v));
  for (const toml::node& e : *v.as_array()) {
    if (!e.is_string()) f.fail(e, what + " must be a list of names, not " + toml_type_name(e));
    out.emplace_back(e.as_string()->get());
  }
  return out;
}

Axis read_axis(const TomlFile& f, const toml::table& t, int index) {
  std::vector<std::string> keys = kAxisKinds;
  keys.push_back("side");
  keys.push_back("name");
  f.expect_keys(t, keys, "[[axis]]");
  std::string kind;
  for (const auto& k : kAxisKinds)
    if (t.contains(k)) {
      if (!kind.empty())
        f.fail(t, "an [[axis]] varies one thing: '" + kind + "' or '" + k + "', not both");
      kind = k;
    }
  if (kind.empty())
    f.fail(t, "an [[axis]] needs one of: " + join(kAxisKinds, ", ") + " (a list of values)");
  const std::string side = f.string(t, "side").value_or("");
  if (side.empty() && (kind == "factions" || kind == "fleets"))
    f.fail(t, "an axis of " + kind + " names the side it sets: side = \"attacker\"");
  if (!side.empty() && (kind == "packs" || kind == "roles" || kind == "changes"))
    f.fail(*t.get("side"), "an axis of " + kind + " takes no side (write SIDE: in a change)");
  const std::string prefix = side.empty() ? "" : side + ":";
  Axis axis;
  axis.name = f.string(t, "name").value_or(side.empty() ? kind : side + " " + kind);
  const toml::node& list = *t.get(kind);
  if (!list.is_array() || list.as_array()->empty())
    f.fail(list, "'" + kind + "' in an [[axis]] must be a list of values, at least one");
  std::set<std::string> labels;  // a set: a spec from a request may list many values
  for (const toml::node& v : *list.as_array()) {
    AxisValue av;
    av.side = side;
    const std::string what = "axis " + std::to_string(index + 1) + " " + kind;
    if (kind == "factions") {
      if (!v.is_string()) f.fail(v, what + " must be faction names, not " + toml_type_name(v));
      av.label = std::string(v.as_string()->get());
      av.changes.with.push_back(prefix + "faction=" + av.label);
    } else if (kind == "fleets") {
      if (v.is_string()) {
        if (v.as_string()->get() != "starting")
          f.fail(v, what +
                        ": a fleet is \"starting\" (the faction's starting units) or a units "
                        "table ({ dreadnought = 2 }), not '" +
                        std::string(v.as_string()->get()) + "'");
        av.fleet_starting = true;
        av.label = "starting";
      } else if (v.is_table()) {
        av.units = *v.as_table();
        std::vector<std::string> parts;
        for (auto&& [k, n] : av.units) {
          if (!n.is_integer()) f.fail(n, what + ": unit counts are whole numbers");
          parts.push_back(std::to_string(n.as_integer()->get()) + " " + std::string(k.str()));
        }
        av.label = parts.empty() ? "none" : join(parts, ", ");
      } else {
        f.fail(v, what + ": a fleet is \"starting\" or a units table, not " + toml_type_name(v));
      }
    } else if (kind == "technologies" || kind == "cards" || kind == "packs") {
      const auto names = names_of(f, v, what);
      for (const auto& n : names) av.changes.with.push_back(prefix + n);
      av.label = names.empty() ? "none" : join(names, "+");
    } else if (kind == "roles") {
      const std::string r = v.is_string() ? std::string(v.as_string()->get()) : "";
      if (r != "as_written" && r != "swapped")
        f.fail(v, what +
                      ": the roles are \"as_written\" and \"swapped\" (the two sides' tables "
                      "exchanged)");
      av.swap_roles = r == "swapped";
      av.label = r;
    } else {  // changes: "SIDE:X" (a --with), or { with = [...], without = [...], label = "..." }
      if (v.is_table()) {
        const toml::table& c = *v.as_table();
        f.expect_keys(c, {"with", "without", "label"}, what);
        av.changes.with = f.strings(c, "with");
        av.changes.without = f.strings(c, "without");
        av.label = f.string(c, "label").value_or("");
      } else {
        av.changes.with = names_of(f, v, what);
      }
      if (av.label.empty()) av.label = av.changes.empty() ? "as written" : av.changes.describe();
    }
    if (!labels.insert(av.label).second) f.fail(v, what + ": the value '" + av.label + "' twice");
    axis.values.push_back(std::move(av));
  }
  return axis;
}

struct Grid {
  std::vector<std::string> rows, columns;
  std::vector<std::vector<int>> column_values;  // column -> the value index of axes 1..n
};

Grid grid_of(const SweepSpec& spec) {
  Grid g;
  for (const auto& v : spec.axes[0].values) g.rows.push_back(v.label);
  std::vector<std::vector<int>> cols{{}};
  for (std::size_t a = 1; a < spec.axes.size(); ++a) {
    std::vector<std::vector<int>> next;
    for (const auto& c : cols)
      for (std::size_t i = 0; i < spec.axes[a].values.size(); ++i) {
        next.push_back(c);
        next.back().push_back(static_cast<int>(i));
      }
    cols = std::move(next);
  }
  for (const auto& c : cols) {
    std::vector<std::string> parts;
    for (std::size_t a = 0; a < c.size(); ++a)
      parts.push_back(spec.axes[a + 1].values[static_cast<std::size_t>(c[a])].label);
    g.columns.push_back(parts.empty() ? "all" : join(parts, " / "));
  }
  g.column_values = cols;
  return g;
}

// The session of one cell: the base with every value's changes, fleets set, roles swapped last.
Session cell_session(const Session& base, const std::vector<const AxisValue*>& values,
                     const SessionOptions& so, const std::vector<std::string>& sides) {
  Changes all;
  for (const AxisValue* v : values) {
    all.with.insert(all.with.end(), v->changes.with.begin(), v->changes.with.end());
    all.without.insert(all.without.end(), v->changes.without.begin(), v->changes.without.end());
  }
  Session s = apply_changes(base, all, so);
  toml::table& root = s.scenario.table;
  bool swap = false;
  for (const AxisValue* v : values) {
    swap = swap || v->swap_roles;
    if (v->side.empty() || (!v->fleet_starting && v->units.empty())) continue;
    toml::table* side = root.get_as<toml::table>(v->side);
    if (!side)
      throw UsageError("the sweep sets " + v->side + "'s fleet, but the scenario has no [" +
                       v->side + "] table");
    side->erase("units");
    side->erase("fleet");
    if (v->fleet_starting)
      side->insert_or_assign("fleet", "starting");
    else
      side->insert_or_assign("units", v->units);
  }
  if (swap) {
    if (sides.size() != 2)
      throw UsageError("a roles axis swaps the report's two sides; this procedure's report has " +
                       std::to_string(sides.size()));
    toml::node* a = root.get(sides[0]);
    toml::node* b = root.get(sides[1]);
    if (!a || !b) throw UsageError("a roles axis swaps [" + sides[0] + "] and [" + sides[1] + "]");
    toml::table ta = *a->as_table(), tb = *b->as_table();
    root.insert_or_assign(sides[0], tb);
    root.insert_or_assign(sides[1], ta);
  }
  return s;
}

// The outcome shown in a column: `show`, or with the roles swapped the same outcome of the other
// side ("attacker_win" -> "defender_win").
int shown_outcome(const std::vector<std::string>& outcomes, const std::string& show, bool swapped,
                  const std::vector<std::string>& sides) {
  std::string name = show;
  if (swapped && sides.size() == 2) {
    const std::string& a = sides[0];
    const std::string& b = sides[1];
    if (auto at = name.find(a); at != std::string::npos)
      name = name.substr(0, at) + b + name.substr(at + a.size());
    else if (auto bt = name.find(b); bt != std::string::npos)
      name = name.substr(0, bt) + a + name.substr(bt + b.size());
  }
  const auto it = std::find(outcomes.begin(), outcomes.end(), name);
  return it == outcomes.end() ? 0 : static_cast<int>(it - outcomes.begin());
}

// The exact answer of a cell, when the spec lets the exact mode try and it answers within the
// bounds: every outcome's probability.
std::optional<json> exact_cell(const Simulation& sim, const SweepSpec& spec,
                               const std::atomic<bool>* stop) {
  if (!spec.exact) return std::nullopt;
  ExactRunOptions eo;
  eo.max_states = spec.max_states;
  eo.seconds = spec.max_seconds;
  eo.stop = stop;
  json report;
  try {
    report = sim.exact(eo);
  } catch (const ExactLimit&) {  // past the bounds: Monte Carlo
    return std::nullopt;
  } catch (const UsageError&) {  // a report the exact mode cannot give
    return std::nullopt;
  }
  json p = json::array();
  for (const auto& o : sim.report_def().outcomes) p.push_back(report.value(o, 0.0));
  return p;
}

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// The runs of the given blocks.
Ranges block_ranges(const std::vector<std::uint64_t>& blocks, std::uint64_t runs) {
  Ranges r;
  for (std::uint64_t b : blocks)
    r.emplace_back(b * kSweepBlock, std::min(runs, (b + 1) * kSweepBlock));
  return r;
}

// A cell's answer in the process: exact probabilities, or the outcome of each of its runs.
struct Answer {
  std::optional<json> p;
  std::vector<int> outcomes;
};

Answer answer(const Session& s, const SweepSpec& spec, const Ranges& ranges,
              const std::atomic<bool>* stop) {
  const Simulation sim(s);
  Answer a;
  a.p = exact_cell(sim, spec, stop);
  if (!a.p) a.outcomes = sim.run_outcomes(spec.seed, ranges, stop);
  return a;
}

// The raw cell of an answer; `ref`: the row's reference cell's answer and the outcome it shows
// (paired counts when both are Monte Carlo), none for the reference cell itself.
json raw_cell(std::size_t k, const Answer& a, std::size_t n_outcomes, int shown, const Answer* ref,
              int ref_shown) {
  json cell{{"cell", k}};
  if (a.p) {
    cell["method"] = "exact";
    cell["p"] = *a.p;
    return cell;
  }
  cell["method"] = "monte_carlo";
  cell["runs"] = a.outcomes.size();
  std::vector<std::uint64_t> counts(n_outcomes, 0);
  for (int o : a.outcomes)
    if (o >= 0 && static_cast<std::size_t>(o) < n_outcomes) ++counts[static_cast<std::size_t>(o)];
  cell["counts"] = counts;
  if (ref && !ref->p && ref->outcomes.size() == a.outcomes.size()) {
    std::uint64_t plus = 0, minus = 0;  // run i shows it here and not in the reference, and back
    for (std::size_t i = 0; i < a.outcomes.size(); ++i) {
      const bool x = a.outcomes[i] == shown, y = ref->outcomes[i] == ref_shown;
      plus += x && !y ? 1 : 0;
      minus += y && !x ? 1 : 0;
    }
    cell["paired"] = {plus, minus};
  }
  return cell;
}

// The values of cell k's axes: the row's, then the column's of each other axis.
std::vector<const AxisValue*> cell_values(const SweepSpec& spec, const Grid& g, std::size_t k) {
  const std::size_t r = k / g.columns.size(), c = k % g.columns.size();
  std::vector<const AxisValue*> values{&spec.axes[0].values[r]};
  for (std::size_t a = 0; a < g.column_values[c].size(); ++a)
    values.push_back(&spec.axes[a + 1].values[static_cast<std::size_t>(g.column_values[c][a])]);
  return values;
}

std::vector<std::string> report_sides(const Session& s) {
  if (auto it = s.content->ruleset.reports.find(s.procedure);
      it != s.content->ruleset.reports.end())
    return it->second.sides;
  return {};
}

// A spec's keys from its table; the base scenario is `base` when given, else the spec's own.
SweepSpec read_spec(TomlFile& f, std::optional<Scenario> base) {
  const toml::table& t = f.root();
  f.expect_keys(t,
                {"scenario", "axis", "show", "reference", "precision", "seed", "max_runs",
                 "max_states", "max_seconds", "exact", "description"},
                "a sweep spec");
  SweepSpec spec;
  spec.file = f.path();
  spec.base = base ? std::move(*base) : read_spec_scenario(f, t, "a sweep spec");
  const toml::array* axes = f.array(t, "axis");
  if (!axes || axes->empty()) f.fail(t, "a sweep spec needs at least one [[axis]]");
  for (const toml::node& a : *axes) {
    if (!a.is_table()) f.fail(a, "each [[axis]] must be a table");
    spec.axes.push_back(read_axis(f, *a.as_table(), static_cast<int>(spec.axes.size())));
  }
  spec.show = f.string(t, "show").value_or("");
  spec.reference = f.string(t, "reference").value_or("");
  CellBounds bounds{spec.precision, spec.seed, spec.max_runs, spec.max_states, spec.max_seconds};
  read_cell_bounds(f, t, bounds);
  spec.precision = bounds.precision, spec.seed = bounds.seed, spec.max_runs = bounds.max_runs;
  spec.max_states = bounds.max_states, spec.max_seconds = bounds.max_seconds;
  spec.exact = f.boolean(t, "exact").value_or(true);
  return spec;
}

}  // namespace

SweepSpec read_sweep(const fs::path& file) {
  TomlFile f(file.string());
  return read_spec(f, std::nullopt);
}

SweepSpec read_sweep_text(const std::string& name, std::string_view text, Scenario base) {
  TomlFile f(name, text);
  if (const toml::node* sc = f.root().get("scenario"))
    f.fail(*sc, "the base scenario is the request's scenario; a sweep spec here has no 'scenario'");
  return read_spec(f, std::move(base));
}

std::uint64_t sweep_runs(double precision, std::uint64_t max_runs) {
  const double z = 1.959963984540054, h = precision / 100;
  const double need = std::ceil(z * z / (4 * h * h));
  const double blocks = std::ceil(need / static_cast<double>(kSweepBlock));
  const double most = static_cast<double>(max_runs);
  return blocks * static_cast<double>(kSweepBlock) >= most
             ? max_runs
             : static_cast<std::uint64_t>(blocks) * kSweepBlock;
}

std::uint64_t sweep_cells(const SweepSpec& spec) {
  std::uint64_t n = 1;
  for (const Axis& a : spec.axes) {
    const std::uint64_t m = a.values.size();
    n = m != 0 && n > std::numeric_limits<std::uint64_t>::max() / m
            ? std::numeric_limits<std::uint64_t>::max()
            : n * m;
  }
  return n;
}

Session sweep_cell_session(const SweepSpec& spec, const SessionOptions& so, std::size_t k) {
  const Grid g = grid_of(spec);
  if (k >= g.rows.size() * g.columns.size())
    throw UsageError("cell " + std::to_string(k) + " is off the grid (" +
                     std::to_string(g.rows.size() * g.columns.size()) + " cells)");
  const Session base = open_session(spec.base, so);
  Session s = cell_session(base, cell_values(spec, g, k), so, report_sides(base));
  // a packs axis loads packs through the session, not the table: the table's `packs` says so too,
  // so that the cell's scenario alone loads them
  std::set<std::string> before, after;
  for (const auto& p : base.content->packs) before.insert(p.id);
  for (const auto& p : s.content->packs) after.insert(p.id);
  if (before != after) {
    toml::array packs;
    if (const toml::array* old = s.scenario.table.get_as<toml::array>("packs"))
      for (const toml::node& p : *old)
        if (!p.is_string() || after.count(std::string(p.as_string()->get()))) packs.push_back(p);
    for (const auto& id : after)
      if (!before.count(id)) packs.push_back(id);
    s.scenario.table.insert_or_assign("packs", std::move(packs));
  }
  return s;
}

json run_sweep(const SweepSpec& spec, const SessionOptions& so, const SweepOptions& o) {
  if (o.shards < 1 || o.shard < 1 || o.shard > o.shards)
    throw UsageError("--shard is i/N with 1 <= i <= N");
  const Session base = open_session(spec.base, so);
  const Simulation base_sim(base);
  const ReportDef& def = base_sim.report_def();
  const std::vector<std::string> sides = report_sides(base);
  if (def.outcomes.empty()) throw UsageError("the sweep shows an outcome; this report has none");
  const std::string show = spec.show.empty() ? def.outcomes[0] : spec.show;
  if (std::find(def.outcomes.begin(), def.outcomes.end(), show) == def.outcomes.end())
    throw UsageError(spec.file + ": show = '" + show +
                     "' is not an outcome of the report; its "
                     "outcomes: " +
                     join(def.outcomes, ", "));
  const Grid g = grid_of(spec);
  const std::string reference = spec.reference.empty() ? g.columns[0] : spec.reference;
  if (std::find(g.columns.begin(), g.columns.end(), reference) == g.columns.end())
    throw UsageError(spec.file + ": reference = '" + reference +
                     "' is not a column; the columns: " + join(g.columns, ", "));

  json raw;
  raw["sweep"] = {{"spec", fs::path(spec.file).filename().string()},
                  {"scenario", fs::path(spec.base.file).filename().string()},
                  {"show", show},
                  {"reference", reference},
                  {"precision", spec.precision},
                  {"seed", spec.seed},
                  {"max_runs", spec.max_runs},
                  {"max_states", spec.max_states},
                  {"max_seconds", spec.max_seconds},
                  {"exact", spec.exact},
                  {"runs", sweep_runs(spec.precision, spec.max_runs)}};
  raw["outcomes"] = def.outcomes;
  raw["rows"] = g.rows;
  raw["columns"] = g.columns;
  json shown = json::array();
  for (const auto& cv : g.column_values) {
    bool swapped = false;
    for (std::size_t a = 0; a < cv.size(); ++a)
      swapped = swapped != spec.axes[a + 1].values[static_cast<std::size_t>(cv[a])].swap_roles;
    shown.push_back(shown_outcome(def.outcomes, show, swapped, sides));
  }
  raw["shown"] = shown;

  // this slice: with the exact mode, the cells k with k % N == i - 1, each with all its runs;
  // without it, the blocks b of each row r with (r * blocks + b) % N == i - 1, in every cell of r
  const std::size_t C = g.columns.size();
  const std::size_t n_cells = g.rows.size() * C;
  const std::size_t ref = static_cast<std::size_t>(
      std::find(g.columns.begin(), g.columns.end(), reference) - g.columns.begin());
  const std::uint64_t runs = sweep_runs(spec.precision, spec.max_runs);
  const std::uint64_t n_blocks = (runs + kSweepBlock - 1) / kSweepBlock;
  const auto N = static_cast<std::uint64_t>(o.shards), me = static_cast<std::uint64_t>(o.shard - 1);
  std::vector<std::vector<std::uint64_t>> row_blocks(g.rows.size());
  for (std::size_t r = 0; r < g.rows.size(); ++r)
    for (std::uint64_t b = 0; b < n_blocks; ++b)
      if (spec.exact || (r * n_blocks + b) % N == me) row_blocks[r].push_back(b);
  const bool split = !spec.exact && N > 1;  // a cell's blocks may be in several shards
  std::vector<std::size_t> mine;
  for (std::size_t k = 0; k < n_cells; ++k)
    if (spec.exact ? k % N == me : !row_blocks[k / C].empty()) mine.push_back(k);
  if (o.started) o.started(raw);

  // each row's reference cell, answered once in this process by the first cell that needs it
  struct Reference {
    std::once_flag once;
    Answer answer;
  };
  std::vector<Reference> refs(g.rows.size());
  const auto session_of = [&](std::size_t k) {
    return cell_session(base, cell_values(spec, g, k), so, sides);
  };
  const auto reference_of = [&](std::size_t r) -> const Answer& {
    std::call_once(refs[r].once, [&] {
      refs[r].answer =
          answer(session_of(r * C + ref), spec, block_ranges(row_blocks[r], runs), o.stop);
    });
    return refs[r].answer;
  };
  std::vector<json> results(mine.size());
  std::mutex done_mutex;  // cell_done: one call at a time
  const auto stopped = [&] { return o.stop && o.stop->load(); };
  const std::size_t n_outcomes = def.outcomes.size();
  for_each_cell(
      mine.size(), o.threads,
      [&](std::size_t i) {
        if (stopped()) return;
        const std::size_t k = mine[i];
        const std::size_t r = k / C, c = k % C;
        const int shown_c = shown[c].get<int>(), shown_ref = shown[ref].get<int>();
        try {
          json cell;
          if (c == ref) {
            cell = raw_cell(k, reference_of(r), n_outcomes, shown_c, nullptr, 0);
          } else {
            const Answer a = answer(session_of(k), spec, block_ranges(row_blocks[r], runs), o.stop);
            // the reference's runs are needed only to pair them with this cell's
            const Answer* paired = a.p ? nullptr : &reference_of(r);
            cell = raw_cell(k, a, n_outcomes, shown_c, paired, shown_ref);
          }
          if (split && cell["method"] == "monte_carlo") cell["blocks"] = row_blocks[r];
          if (stopped()) return;  // cut short: not the cell's answer
          if (o.cell_done) {
            std::lock_guard lock(done_mutex);
            o.cell_done(cell);
          }
          results[i] = std::move(cell);
        } catch (const Error& e) {  // which cell of which spec: the scenario's message follows
          const std::string where =
              spec.file + ": the cell " + g.rows[r] + " x " + g.columns[c] + ": ";
          // a script that failed while running stays a script's error (serve: 422, not 400)
          if (dynamic_cast<const ScriptError*>(&e)) throw ScriptError(where + e.what());
          throw UsageError(where + e.what());
        }
      },
      o.progress);
  if (stopped()) {  // the cells done before the stop
    std::erase_if(results, [](const json& c) { return c.is_null(); });
    raw["interrupted"] = true;
  }
  raw["cells"] = results;
  if (o.shards > 1) raw["shard"] = {{"index", o.shard}, {"count", o.shards}};
  return raw;
}

json merge_sweeps(const std::vector<json>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw UsageError("merge needs the shard files of one sweep");
  json out = shards[0];
  out.erase("shard");
  out["cells"] = json::array();
  const std::size_t n_cells = out.at("rows").size() * out.at("columns").size();
  std::vector<json> cells(n_cells);
  std::set<int> seen_shards;
  int count = 0;
  const std::uint64_t runs = out.at("sweep").value("runs", std::uint64_t{0});
  const std::uint64_t n_blocks = (runs + kSweepBlock - 1) / kSweepBlock;
  std::vector<std::set<std::uint64_t>> blocks_seen(n_cells);
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const json& s = shards[i];
    for (const char* key : {"sweep", "outcomes", "rows", "columns", "shown"})
      if (!s.contains(key) || s[key] != shards[0][key])
        throw UsageError(names[i] + ": not a shard of the same sweep as " + names[0] + " (its '" +
                         key + "' differs)");
    const int idx = s.contains("shard") ? s["shard"].value("index", 1) : 1;
    const int cnt = s.contains("shard") ? s["shard"].value("count", 1) : 1;
    if (count == 0) count = cnt;
    if (cnt != count)
      throw UsageError(names[i] + ": a shard of " + std::to_string(cnt) + ", the others of " +
                       std::to_string(count));
    if (!seen_shards.insert(idx).second)
      throw UsageError(names[i] + ": shard " + std::to_string(idx) + " given twice");
    for (const json& c : s.at("cells")) {
      const std::size_t k = c.at("cell").get<std::size_t>();
      if (k >= n_cells)
        throw UsageError(names[i] + ": cell " + std::to_string(k) + " is off the grid");
      if (!c.contains("blocks")) {
        cells[k] = c;
        continue;
      }
      // some blocks of a Monte Carlo cell: their counts add up
      for (const json& b : c.at("blocks")) {
        const std::uint64_t block = b.get<std::uint64_t>();
        if (block >= n_blocks || !blocks_seen[k].insert(block).second)
          throw UsageError(names[i] + ": cell " + std::to_string(k) + "'s block " +
                           std::to_string(block) +
                           (block >= n_blocks ? " is past the cell's " + std::to_string(n_blocks)
                                              : " is in two shards"));
      }
      json& m = cells[k];
      if (m.is_null()) {
        m = c;
        m.erase("blocks");
        continue;
      }
      m["runs"] = m["runs"].get<std::uint64_t>() + c.at("runs").get<std::uint64_t>();
      for (std::size_t o = 0; o < m["counts"].size(); ++o)
        m["counts"][o] =
            m["counts"][o].get<std::uint64_t>() + c.at("counts")[o].get<std::uint64_t>();
      if (m.contains("paired") != c.contains("paired"))
        throw UsageError(names[i] + ": cell " + std::to_string(k) +
                         " is paired with its reference in one shard and not in another");
      if (m.contains("paired"))
        for (std::size_t j = 0; j < 2; ++j)
          m["paired"][j] =
              m["paired"][j].get<std::uint64_t>() + c["paired"][j].get<std::uint64_t>();
    }
  }
  for (std::size_t k = 0; k < n_cells; ++k)
    if (!blocks_seen[k].empty() && blocks_seen[k].size() != n_blocks)
      throw UsageError("merge: cell " + std::to_string(k) + " has " +
                       std::to_string(blocks_seen[k].size()) + " of its " +
                       std::to_string(n_blocks) + " blocks of runs");
  if (static_cast<int>(seen_shards.size()) != count) {
    std::string missing;
    for (int i = 1; i <= count; ++i)
      if (!seen_shards.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    throw UsageError("merge: shards missing: " + missing + " of " + std::to_string(count));
  }
  for (std::size_t k = 0; k < n_cells; ++k)
    if (cells[k].is_null())
      throw UsageError("merge: cell " + std::to_string(k) + " is in no shard");
  out["cells"] = cells;
  return out;
}

namespace {

struct CellView {
  std::string method;
  double value = 0, lo = 0, hi = 0;
  std::uint64_t runs = 0;
  std::vector<double> p;  // every outcome
};

CellView view(const json& raw, const json& cell, std::size_t column) {
  CellView v;
  v.method = cell.at("method");
  const std::size_t shown = raw.at("shown")[column].get<std::size_t>();
  if (v.method == "exact") {
    for (const auto& p : cell.at("p")) v.p.push_back(p.get<double>());
    v.value = v.lo = v.hi = v.p.at(shown);
  } else {
    v.runs = cell.at("runs");
    for (const auto& k : cell.at("counts"))
      v.p.push_back(
          v.runs ? static_cast<double>(k.get<std::uint64_t>()) / static_cast<double>(v.runs) : 0.0);
    v.value = v.p.at(shown);
    const Interval w = wilson(cell.at("counts")[shown].get<std::uint64_t>(), v.runs);
    v.lo = w.lo;
    v.hi = w.hi;
  }
  return v;
}

// The rows by the mean of their shown values, highest first (ties: as listed).
std::vector<std::size_t> row_order(const json& raw) {
  const std::size_t R = raw["rows"].size(), C = raw["columns"].size();
  std::vector<double> mean(R, 0);
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < C; ++c) mean[r] += view(raw, raw["cells"][r * C + c], c).value;
    mean[r] /= static_cast<double>(C);
  }
  std::vector<std::size_t> order(R);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return mean[a] > mean[b]; });
  return order;
}

std::size_t reference_column(const json& raw) {
  const auto& cols = raw["columns"];
  for (std::size_t c = 0; c < cols.size(); ++c)
    if (cols[c] == raw["sweep"]["reference"]) return c;
  return 0;
}

// The difference of cell (r, c) to its row's reference cell, with its 95% interval: exact when
// both cells are; one of them Monte Carlo: its Wilson interval moved by the other's exact value;
// both: from the paired runs (run i of both draws from the same dice stream), the variance of the
// per-run difference, not the sum of the two variances.
struct Difference {
  double d = 0, lo = 0, hi = 0;
};

Difference difference(const json& raw, std::size_t r, std::size_t c, std::size_t ref) {
  if (c == ref) return {};
  const std::size_t C = raw["columns"].size();
  const json& cell = raw["cells"][r * C + c];
  const CellView v = view(raw, cell, c), rv = view(raw, raw["cells"][r * C + ref], ref);
  Difference d{v.value - rv.value, v.lo - rv.hi, v.hi - rv.lo};
  if (v.method == "monte_carlo" && rv.method == "monte_carlo") {
    const double n = static_cast<double>(v.runs);
    double var = v.value * (1 - v.value) + rv.value * (1 - rv.value);  // unpaired, if ever
    if (cell.contains("paired") && v.runs > 0) {
      const double plus = cell["paired"][0].get<double>() / n;
      const double minus = cell["paired"][1].get<double>() / n;
      var = std::max(0.0, plus + minus - (plus - minus) * (plus - minus));
    }
    const double half = n > 0 ? 1.959963984540054 * std::sqrt(var / n) : 0;
    d.lo = d.d - half;
    d.hi = d.d + half;
  }
  return d;
}

}  // namespace

json sweep_cell_json(const json& raw, const json& cell) {
  const std::size_t C = raw.at("columns").size();
  const std::size_t k = cell.at("cell").get<std::size_t>();
  const CellView v = view(raw, cell, k % C);
  json out = cell;
  out["row"] = k / C;
  out["column"] = k % C;
  out["value"] = v.value;
  out["ci95"] = {v.lo, v.hi};
  return out;
}

json sweep_json(const json& raw) {
  json out = raw;
  const std::size_t C = raw["columns"].size();
  const std::size_t ref = reference_column(raw);
  json cells = json::array();
  for (std::size_t k = 0; k < raw["cells"].size(); ++k) {
    json cell = sweep_cell_json(raw, raw["cells"][k]);
    const std::size_t r = k / C;
    const Difference d = difference(raw, r, k % C, ref);
    cell["difference"] = d.d;
    cell["difference_ci95"] = {d.lo, d.hi};
    cells.push_back(cell);
  }
  out["cells"] = cells;
  out["order"] = row_order(raw);
  return out;
}

std::string sweep_csv(const json& raw) {
  std::ostringstream out;
  auto quote = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  out << "row,column,method,runs,value,ci95_lo,ci95_hi,difference,difference_lo,difference_hi";
  for (const auto& o : raw["outcomes"]) out << "," << quote(o.get<std::string>());
  out << "\n";
  const std::size_t C = raw["columns"].size();
  const std::size_t ref = reference_column(raw);
  for (std::size_t r : row_order(raw))
    for (std::size_t c = 0; c < C; ++c) {
      const CellView v = view(raw, raw["cells"][r * C + c], c);
      const Difference d = difference(raw, r, c, ref);
      out << quote(raw["rows"][r]) << "," << quote(raw["columns"][c]) << "," << v.method << ","
          << v.runs << ","
          << fmt::format("{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g}", v.value, v.lo, v.hi,
                         d.d, d.lo, d.hi);
      for (double p : v.p) out << fmt::format(",{:.17g}", p);
      out << "\n";
    }
  return out.str();
}

std::string sweep_table(const json& raw) {
  std::ostringstream out;
  const std::size_t C = raw["columns"].size();
  const std::size_t ref = reference_column(raw);
  const json& sw = raw["sweep"];
  out << fmt::format(
      "sweep {} on {}: P({}) in points; a cell is 'value ±half-width' (Monte Carlo, 95%) or "
      "'value =' (exact), then its difference to the column '{}' (± its 95% half-width from the "
      "paired runs, none when exact)\n",
      sw["spec"].get<std::string>(), sw["scenario"].get<std::string>(),
      sw["show"].get<std::string>(), sw["reference"].get<std::string>());
  std::size_t w0 = 4;
  for (const auto& r : raw["rows"]) w0 = std::max(w0, r.get<std::string>().size());
  std::vector<std::size_t> width(C, 22);
  for (std::size_t c = 0; c < C; ++c)
    width[c] = std::max(width[c], raw["columns"][c].get<std::string>().size());
  out << fmt::format("{:<{}}", "", w0);
  for (std::size_t c = 0; c < C; ++c)
    out << "  " << fmt::format("{:>{}}", raw["columns"][c].get<std::string>(), width[c]);
  out << "\n";
  std::size_t exact = 0, total = 0;
  for (std::size_t r : row_order(raw)) {
    out << fmt::format("{:<{}}", raw["rows"][r].get<std::string>(), w0);
    for (std::size_t c = 0; c < C; ++c) {
      const CellView v = view(raw, raw["cells"][r * C + c], c);
      ++total;
      std::string text;
      if (v.method == "exact") {
        ++exact;
        text = fmt::format("{:.1f} =", 100 * v.value);
      } else {
        text = fmt::format("{:.1f} ±{:.1f}", 100 * v.value, 50 * (v.hi - v.lo));
      }
      if (c != ref) {
        const Difference d = difference(raw, r, c, ref);
        const double p = std::round(1000 * d.d) / 10;  // points, no "-0.0"
        text += d.hi > d.lo
                    ? fmt::format(" ({:+.1f} ±{:.1f})", p == 0 ? 0.0 : p, 50 * (d.hi - d.lo))
                    : fmt::format(" ({:+.1f})", p == 0 ? 0.0 : p);
      }
      out << "  " << fmt::format("{:>{}}", text, width[c]);
    }
    out << "\n";
  }
  out << fmt::format("{} cells: {} exact, {} Monte Carlo (seed {}, precision {} points)\n", total,
                     exact, total - exact, sw["seed"].get<std::uint64_t>(),
                     sw["precision"].get<double>());
  return out.str();
}

}  // namespace rb
