#include "sim/optimise.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/symbols.hpp"
#include "content/toml_read.hpp"
#include "exact/explore.hpp"
#include "sim/cell.hpp"
#include "sim/simulate.hpp"

namespace rb {

namespace {

using json = nlohmann::json;

// A unit type the side may build: the generic name a scenario writes, and the numbers of the
// record the side's units of that type take (its faction's unit, a technology's upgrade).
struct UnitType {
  std::string name, record;
  long long cost = 0, per_cost = 1, capacity = 0, limit = 0, min = 0, max = -1;
  bool fighter = false, ground = false, ship = false;
  int combat = 0, dice = 0;
  bool sustain = false;
  bool needs_capacity() const { return fighter || ground; }
  bool in_fleet_supply() const { return ship && !fighter; }
  // resources to build n of it: fighters and infantry come units_per_cost for one cost
  long long cost_of(long long n) const { return (n + per_cost - 1) / per_cost * cost; }
};

struct Build {
  std::vector<long long> n;  // per type
  long long cost = 0, supply = 0, capacity_needed = 0, capacity = 0;
  double promise = 0;
  int hit_points = 0;
  std::string label;
};

std::optional<long long> int_attr(const Content& c, const Record& r, const char* name) {
  const AttributeDef* a = c.ruleset.attribute(name);
  if (!a || !r.has[static_cast<std::size_t>(a->slot)]) return std::nullopt;
  return r.attr[static_cast<std::size_t>(a->slot)];
}

std::string sym_attr(const Content& c, const Record& r, const char* name) {
  const auto v = int_attr(c, r, name);
  return v ? std::string(sym_name(static_cast<Sym>(*v))) : std::string();
}

bool is_kind(const Record& r, const char* kind) {
  return !r.removed && r.kind == sym(kind);
}

UnitType unit_type(const Content& c, const std::string& name, const std::string& faction,
                   const std::vector<std::string>& technologies, const OptimiseSpec& spec) {
  const int base = c.find_record(name, "unit");
  if (base < 0) throw UsageError(spec.file + ": unknown unit type '" + name + "'");
  const Record* rec = &c.records[static_cast<std::size_t>(base)];
  if (const std::string rep = sym_attr(c, *rec, "replaces"); !rep.empty())
    throw UsageError(spec.file + ": " + name + " is a faction's " + rep + ": write " + rep +
                     " (the side's faction gives its own)");
  if (!faction.empty())  // the faction's unit for this type
    for (const Record& r : c.records)
      if (is_kind(r, "unit") && sym_attr(c, r, "faction") == faction &&
          sym_attr(c, r, "replaces") == name)
        rec = &r;
  for (const std::string& t : technologies) {  // a unit upgrade the side owns
    const int ti = c.find_record(t, "technology");
    if (ti < 0) continue;
    const Record& tech = c.records[static_cast<std::size_t>(ti)];
    if (sym_attr(c, tech, "upgrades") != name) continue;
    const std::string to = sym_attr(c, tech, "upgrade_to");
    if (const int ui = to.empty() ? -1 : c.find_record(to, "unit"); ui >= 0)
      rec = &c.records[static_cast<std::size_t>(ui)];
  }
  UnitType u;
  u.name = name;
  u.record = std::string(sym_name(rec->name));
  u.cost = int_attr(c, *rec, "cost").value_or(0);
  u.per_cost = std::max<long long>(1, int_attr(c, *rec, "units_per_cost").value_or(1));
  u.capacity = int_attr(c, *rec, "capacity").value_or(0);
  u.limit = int_attr(c, *rec, "reinforcements").value_or(0);
  u.fighter = int_attr(c, *rec, "fighter").value_or(0) != 0;
  u.ground = int_attr(c, *rec, "ground_force").value_or(0) != 0;
  u.ship = int_attr(c, *rec, "ship").value_or(0) != 0;
  u.combat = static_cast<int>(int_attr(c, *rec, "combat").value_or(0));
  u.dice = static_cast<int>(int_attr(c, *rec, "dice").value_or(u.combat > 0 ? 1 : 0));
  u.sustain = int_attr(c, *rec, "sustain_damage").value_or(0) != 0;
  if (u.cost <= 0)
    throw UsageError(spec.file + ": " + name + " has no cost: it is placed, not built");
  return u;
}

// Every ship a side may build: the unit records with a cost that are ships, by their generic
// type (no faction's unit, no technology's upgrade), a type a technology unlocks (the war sun)
// only with that technology or a faction unit of that type (as scripts/ti4/production.lua).
std::vector<std::string> default_types(const Content& c, const std::string& faction,
                                       const std::vector<std::string>& technologies) {
  std::set<std::string> upgraded, locked, unlocked;
  for (const Record& r : c.records) {
    if (!is_kind(r, "technology")) continue;
    if (auto to = sym_attr(c, r, "upgrade_to"); !to.empty()) upgraded.insert(to);
    if (auto u = sym_attr(c, r, "unlocks"); !u.empty()) {
      locked.insert(u);
      if (std::find(technologies.begin(), technologies.end(), sym_name(r.name)) !=
          technologies.end())
        unlocked.insert(u);
    }
    (void)faction;
  }
  std::set<std::string> out;
  for (const Record& r : c.records) {
    if (!is_kind(r, "unit")) continue;
    if (!faction.empty() && sym_attr(c, r, "faction") == faction)
      if (auto rep = sym_attr(c, r, "replaces"); !rep.empty()) unlocked.insert(rep);
  }
  for (const Record& r : c.records) {
    if (!is_kind(r, "unit")) continue;
    const std::string name(sym_name(r.name));
    if (int_attr(c, r, "cost").value_or(0) <= 0 || int_attr(c, r, "ship").value_or(0) == 0)
      continue;
    if (!sym_attr(c, r, "faction").empty() || !sym_attr(c, r, "replaces").empty()) continue;
    if (upgraded.count(name) || (locked.count(name) && !unlocked.count(name))) continue;
    out.insert(name);
  }
  return {out.begin(), out.end()};
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

struct Value {
  std::string method;
  std::uint64_t runs = 0;
  double value = 0, lo = 0, hi = 0;
};

// One build answered as a sweep's cell is (sim/cell.hpp), or given `quick` (the quick stage) by
// screen_runs Monte Carlo runs on that table, its engine set up again with the build (for
// resources_kept, on a table of its own: the survivors are counted by Simulation::run).
Value evaluate(const Session& s, const OptimiseSpec& spec, const std::vector<UnitType>& types,
               Table* quick = nullptr) {
  Simulation sim(s);
  const ReportDef& def = sim.report_def();
  std::string win;
  for (const auto& [side, outcome] : def.wins)
    if (side == spec.side) win = outcome;
  std::vector<std::string> counted;  // the outcomes the objective counts
  if (spec.objective != "resources_kept") {
    counted.push_back(win);
    if (spec.objective == "not_lose")
      counted.insert(counted.end(), def.draws.begin(), def.draws.end());
  }
  auto worth = [&](const std::string& type) {  // resources of one unit of a surviving type
    for (const UnitType& u : types)
      if (u.name == type || u.record == type)
        return static_cast<double>(u.cost) / static_cast<double>(u.per_cost);
    const int i = s.content->find_record(type, "unit");
    if (i < 0) return 0.0;
    const Record& r = s.content->records[static_cast<std::size_t>(i)];
    return static_cast<double>(int_attr(*s.content, r, "cost").value_or(0)) /
           static_cast<double>(
               std::max<long long>(1, int_attr(*s.content, r, "units_per_cost").value_or(1)));
  };
  Value v;
  CellAnswer a;
  if (quick && spec.objective != "resources_kept") {  // the outcomes of runs 0 .. screen_runs - 1
    quick->engine.setup(s.scenario.table, s.scenario.file, quick->start, s.scenario.path);
    a.tally.runs = spec.screen_runs;
    a.tally.outcomes.assign(def.outcomes.size(), 0);
    State work;
    RunResult result;
    RunOptions run;
    run.seed = spec.seed;
    for (std::uint64_t i = 0; i < spec.screen_runs; ++i) {
      work = quick->start;
      run.run = i;
      quick->engine.run(s.procedure, work, run, result);
      if (result.outcome >= 0 && static_cast<std::size_t>(result.outcome) < def.outcomes.size())
        ++a.tally.outcomes[static_cast<std::size_t>(result.outcome)];
    }
  } else if (quick) {  // the survivors' resources: the whole tally
    SimOptions q;
    q.runs = spec.screen_runs;
    q.seed = spec.seed;
    a.tally = sim.run(q);
  } else {
    a = answer_cell(sim,
                    {spec.precision, spec.seed, spec.max_runs, spec.max_states, spec.max_seconds});
  }
  if (a.exact) {
    const json& r = *a.exact;
    v.method = "exact";
    if (spec.objective == "resources_kept") {
      const json& sv = r.at(def.survivors).at(spec.side);
      for (auto it = sv.begin(); it != sv.end(); ++it)
        for (std::size_t k = 0; k < it.value().size(); ++k)
          v.value += worth(it.key()) * static_cast<double>(k) * it.value()[k].get<double>();
    } else {
      for (const auto& o : counted) v.value += r.value(o, 0.0);
    }
    v.lo = v.hi = v.value;
    return v;
  }
  const Tally& t = a.tally;
  v.method = "monte_carlo";
  v.runs = t.runs;
  const double n = static_cast<double>(t.runs);
  if (spec.objective == "resources_kept") {  // each run's kept resources: mean and 95% interval
    double sum = 0, sq = 0;
    const auto& names = t.combination_types.at(spec.side);
    for (const auto& [left, runs] : t.combinations.at(spec.side)) {
      double x = 0;
      for (std::size_t i = 0; i < left.size() && i < names.size(); ++i)
        x += worth(names[i]) * left[i];
      sum += x * static_cast<double>(runs);
      sq += x * x * static_cast<double>(runs);
    }
    v.value = sum / n;
    const double sd = n > 1 ? std::sqrt(std::max(0.0, (sq - sum * sum / n) / (n - 1))) : 0;
    v.lo = v.value - 1.96 * sd / std::sqrt(n);
    v.hi = v.value + 1.96 * sd / std::sqrt(n);
  } else {
    std::uint64_t k = 0;
    for (const auto& name : counted) {
      const auto at = std::find(def.outcomes.begin(), def.outcomes.end(), name);
      const auto i = static_cast<std::size_t>(at - def.outcomes.begin());
      if (at != def.outcomes.end() && i < t.outcomes.size()) k += t.outcomes[i];
    }
    v.value = static_cast<double>(k) / n;
    const Interval w = wilson(k, t.runs);
    v.lo = w.lo;
    v.hi = w.hi;
  }
  return v;
}

}  // namespace

OptimiseSpec read_optimise(const fs::path& file) {
  TomlFile f(file.string());
  const toml::table& t = f.root();
  f.expect_keys(
      t, {"scenario",   "side",       "units",       "resources",   "fleet_supply", "production",
          "capacity",   "min",        "max",         "objective",   "top",          "target",
          "max_builds", "evaluate",   "screen",      "screen_runs", "precision",    "seed",
          "max_runs",   "max_states", "max_seconds", "description"},
      "an optimise spec");
  OptimiseSpec spec;
  spec.file = file.string();
  spec.base = read_spec_scenario(f, t, "an optimise spec");
  spec.side = f.string(t, "side").value_or("attacker");
  spec.units = f.strings(t, "units");
  auto whole = [&](const char* key, long long lo, long long hi) -> std::optional<long long> {
    auto v = f.integer(t, key);
    if (v && (*v < lo || *v > hi))
      f.fail(*t.get(key), std::string(key) + " is a whole number from " + std::to_string(lo) +
                              " to " + std::to_string(hi));
    return v;
  };
  const auto res = whole("resources", 0, 1000);
  if (!res) f.fail(t, "an optimise spec needs a budget: resources = N");
  spec.resources = *res;
  if (auto v = whole("fleet_supply", 0, 100)) spec.fleet_supply = *v;
  if (auto v = whole("production", 1, 1000)) spec.production = *v;
  if (auto v = f.boolean(t, "capacity")) spec.capacity = *v;
  for (const char* key : {"min", "max"})
    if (const toml::table* m = f.table(t, key))
      for (auto&& [k, n] : *m) {
        if (!n.is_integer() || n.as_integer()->get() < 0)
          f.fail(n,
                 std::string(key) + "." + std::string(k.str()) + " is a whole number, 0 or more");
        (std::string(key) == "min" ? spec.min : spec.max)[std::string(k.str())] =
            n.as_integer()->get();
      }
  spec.objective = f.string(t, "objective").value_or("win");
  if (spec.objective != "win" && spec.objective != "not_lose" && spec.objective != "resources_kept")
    f.fail(*t.get("objective"), "objective is \"win\", \"not_lose\" or \"resources_kept\", not '" +
                                    spec.objective + "'");
  if (auto v = whole("top", 1, 100000)) spec.top = static_cast<std::size_t>(*v);
  if (auto v = f.number(t, "target")) {
    if (!(*v >= 0) || !std::isfinite(*v)) f.fail(*t.get("target"), "target is a number, 0 or more");
    spec.target = *v;
  }
  if (auto v = whole("max_builds", 1, 100'000'000)) spec.max_builds = static_cast<std::size_t>(*v);
  if (auto v = whole("evaluate", 1, 100'000'000)) spec.evaluate = static_cast<std::size_t>(*v);
  if (auto v = whole("screen", 0, 100'000'000)) spec.screen = static_cast<std::size_t>(*v);
  if (auto v = whole("screen_runs", 1, 1'000'000))
    spec.screen_runs = static_cast<std::uint64_t>(*v);
  CellBounds bounds{spec.precision, spec.seed, spec.max_runs, spec.max_states, spec.max_seconds};
  read_cell_bounds(f, t, bounds);
  spec.precision = bounds.precision, spec.seed = bounds.seed, spec.max_runs = bounds.max_runs;
  spec.max_states = bounds.max_states, spec.max_seconds = bounds.max_seconds;
  return spec;
}

json run_optimise(const OptimiseSpec& spec, const SessionOptions& so, const OptimiseOptions& o) {
  const Session base = open_session(spec.base, so);
  const Content& c = *base.content;
  const toml::table* side = base.scenario.table.get_as<toml::table>(spec.side);
  if (!side)
    throw UsageError(spec.file + ": side = '" + spec.side + "', but the scenario has no [" +
                     spec.side + "] table");
  {
    const Simulation sim(base);
    bool has = false;
    for (const auto& [s, outcome] : sim.report_def().wins) has = has || s == spec.side;
    if (!has && spec.objective != "resources_kept")
      throw UsageError(spec.file + ": the report names no win for the side '" + spec.side + "'");
    if (spec.objective == "resources_kept" && sim.report_def().survivors.empty())
      throw UsageError(spec.file + ": resources_kept needs a report that counts survivors");
  }
  const std::string faction = side->get_as<std::string>("faction")
                                  ? side->get_as<std::string>("faction")->get()
                                  : std::string();
  std::vector<std::string> technologies;
  if (const auto* a = side->get_as<toml::array>(c.ruleset.scenario_list("technology")))
    for (const toml::node& e : *a)
      if (e.is_string()) technologies.emplace_back(e.as_string()->get());
  const bool piece_limits = !(base.scenario.table.get_as<bool>("piece_limits") &&
                              !base.scenario.table.get_as<bool>("piece_limits")->get());

  // the unit types, cheapest first
  const std::vector<std::string> names =
      spec.units.empty() ? default_types(c, faction, technologies) : spec.units;
  std::vector<UnitType> types;
  for (const auto& n : names) types.push_back(unit_type(c, n, faction, technologies, spec));
  for (const auto& [k, v] : spec.min)
    if (std::find(names.begin(), names.end(), k) == names.end())
      throw UsageError(spec.file + ": min." + k + ": not one of the unit types (" +
                       join(names, ", ") + ")");
  for (const auto& [k, v] : spec.max)
    if (std::find(names.begin(), names.end(), k) == names.end())
      throw UsageError(spec.file + ": max." + k + ": not one of the unit types (" +
                       join(names, ", ") + ")");
  std::stable_sort(types.begin(), types.end(), [](const UnitType& a, const UnitType& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.name < b.name;
  });
  for (UnitType& u : types) {
    if (auto it = spec.min.find(u.name); it != spec.min.end()) u.min = it->second;
    u.max = std::numeric_limits<long long>::max();
    if (auto it = spec.max.find(u.name); it != spec.max.end()) u.max = it->second;
    if (piece_limits && u.limit > 0) u.max = std::min(u.max, u.limit);
  }

  // every legal build: within the resources, the fleet supply and the production limit (each
  // fighter and infantry counts: the Learn to Play's Production step), the fighters within
  // capacity
  std::vector<Build> builds;
  std::vector<long long> n(types.size(), 0);
  long long produced = 0;
  std::function<void(std::size_t, long long, long long)> walk = [&](std::size_t i, long long cost,
                                                                    long long supply) {
    if (i == types.size()) {
      Build b;
      b.n = n;
      b.cost = cost;
      b.supply = supply;
      long long units = 0;
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < types.size(); ++k) {
        const UnitType& u = types[k];
        units += n[k];
        if (u.needs_capacity())
          b.capacity_needed += n[k];
        else
          b.capacity += n[k] * u.capacity;
        b.promise += static_cast<double>(n[k] * u.dice) * std::clamp(11 - u.combat, 0, 10) / 10.0;
        b.hit_points += static_cast<int>(n[k]) * (u.sustain ? 2 : 1);
        if (n[k]) parts.push_back(std::to_string(n[k]) + " " + u.name);
      }
      if (units == 0 || (spec.capacity && b.capacity_needed > b.capacity)) return;
      b.label = join(parts, ", ");
      if (builds.size() >= spec.max_builds)
        throw UsageError(spec.file + ": more than max_builds = " + std::to_string(spec.max_builds) +
                         " legal builds; name fewer unit types, set a max per type, or raise it");
      builds.push_back(std::move(b));
      return;
    }
    const UnitType& u = types[i];
    for (long long k = u.min; k <= u.max; ++k) {
      const long long c2 = cost + u.cost_of(k);
      const long long s2 = supply + (u.in_fleet_supply() ? k : 0);
      if (c2 > spec.resources) break;
      if (spec.fleet_supply >= 0 && s2 > spec.fleet_supply) break;
      if (spec.production >= 0 && produced + k > spec.production) break;
      n[i] = k;
      produced += k;
      walk(i + 1, c2, s2);
      produced -= k;
    }
    n[i] = 0;
  };
  walk(0, 0, 0);

  // in order of promise: expected hits per round, then hit points, then the cheaper
  std::vector<std::size_t> order(builds.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Build &x = builds[a], &y = builds[b];
    if (x.promise != y.promise) return x.promise > y.promise;
    if (x.hit_points != y.hit_points) return x.hit_points > y.hit_points;
    return x.cost < y.cost;
  });
  const auto session_of = [&](const Build& b) {
    Session s = base;
    toml::table* t = s.scenario.table.get_as<toml::table>(spec.side);
    toml::table units;
    for (std::size_t k = 0; k < types.size(); ++k)
      if (b.n[k]) units.insert_or_assign(types[k].name, b.n[k]);
    t->erase("fleet");
    t->insert_or_assign("units", units);
    return s;
  };
  const auto answer = [&](const Build& b, Table* quick) {
    try {
      return evaluate(session_of(b), spec, types, quick);
    } catch (const Error& e) {
      throw UsageError(spec.file + ": the build " + b.label + ": " + e.what());
    }
  };

  // the quick stage: when more builds are legal than `evaluate`, the `screen` most promising are
  // run screen_runs times each (the same dice for every build) and the best of them by that
  // estimate go on to be evaluated; promise alone misjudges what it does not count (the other
  // side's Anti-Fighter Barrage, sustain damage, the order hits are taken in)
  std::map<std::size_t, double> quick;  // build -> its quick estimate
  std::size_t screened = 0;
  if (spec.screen > 0 && order.size() > spec.evaluate) {
    screened = std::min(order.size(), spec.screen);
    order.resize(screened);
    std::vector<Value> q(screened);
    // one engine per thread for every build it screens (a Table costs more than 200 runs)
    std::mutex tables_mutex;
    std::vector<std::unique_ptr<Table>> tables;
    for_each_cell(
        screened, o.threads,
        [&](std::size_t i) {
          std::unique_ptr<Table> t;
          {
            std::lock_guard lock(tables_mutex);
            if (!tables.empty()) {
              t = std::move(tables.back());
              tables.pop_back();
            }
          }
          if (!t) t = std::make_unique<Table>(base);
          q[i] = answer(builds[order[i]], t.get());
          std::lock_guard lock(tables_mutex);
          tables.push_back(std::move(t));
        },
        o.progress);
    std::vector<std::size_t> by(screened);
    std::iota(by.begin(), by.end(), 0);
    std::stable_sort(by.begin(), by.end(),
                     [&](std::size_t a, std::size_t b) { return q[a].value > q[b].value; });
    if (by.size() > spec.evaluate) by.resize(spec.evaluate);
    std::sort(by.begin(), by.end());  // in order of promise again: the ranking's last tie-break
    std::vector<std::size_t> next;
    for (std::size_t i : by) next.push_back(order[i]);
    for (std::size_t i = 0; i < screened; ++i) quick[order[i]] = q[i].value;
    order = std::move(next);
  }
  if (order.size() > spec.evaluate) order.resize(spec.evaluate);

  std::vector<Value> values(order.size());
  for_each_cell(
      order.size(), o.threads,
      [&](std::size_t i) { values[i] = answer(builds[order[i]], nullptr); }, o.progress);

  // best first: the value, then the cheaper, then as enumerated (values within 1e-12 are equal:
  // two builds that fight alike differ by rounding only)
  std::vector<std::size_t> rank(order.size());
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
    if (std::abs(values[a].value - values[b].value) > 1e-12)
      return values[a].value > values[b].value;
    return builds[order[a]].cost < builds[order[b]].cost;
  });

  json out;
  out["optimise"] = {{"spec", fs::path(spec.file).filename().string()},
                     {"scenario", fs::path(spec.base.file).filename().string()},
                     {"side", spec.side},
                     {"objective", spec.objective},
                     {"resources", spec.resources},
                     {"fleet_supply", spec.fleet_supply >= 0 ? json(spec.fleet_supply) : json()},
                     {"production", spec.production >= 0 ? json(spec.production) : json()},
                     {"capacity", spec.capacity},
                     {"top", spec.top},
                     {"target", spec.target >= 0 ? json(spec.target) : json()},
                     {"max_builds", spec.max_builds},
                     {"evaluate", spec.evaluate},
                     {"screen", spec.screen},
                     {"screen_runs", spec.screen_runs},
                     {"precision", spec.precision},
                     {"seed", spec.seed},
                     {"max_runs", spec.max_runs},
                     {"max_states", spec.max_states},
                     {"max_seconds", spec.max_seconds}};
  json ut = json::array();
  for (const UnitType& u : types)
    ut.push_back({{"type", u.name},
                  {"record", u.record},
                  {"cost", u.cost},
                  {"units_per_cost", u.per_cost},
                  {"capacity", u.capacity},
                  {"needs_capacity", u.needs_capacity()},
                  {"fleet_supply", u.in_fleet_supply()},
                  {"min", u.min},
                  {"max", u.max == std::numeric_limits<long long>::max() ? json() : json(u.max)}});
  out["units"] = ut;
  out["enumerated"] = builds.size();
  out["screened"] = screened;
  out["evaluated"] = order.size();
  json bs = json::array();
  std::optional<std::size_t> cheapest;
  for (std::size_t r = 0; r < rank.size(); ++r) {
    const Build& b = builds[order[rank[r]]];
    const Value& v = values[rank[r]];
    json units = json::object();
    for (std::size_t k = 0; k < types.size(); ++k)
      if (b.n[k]) units[types[k].name] = b.n[k];
    json e{{"label", b.label},       {"units", units},
           {"cost", b.cost},         {"fleet_supply", b.supply},
           {"capacity", b.capacity}, {"capacity_needed", b.capacity_needed},
           {"promise", b.promise},   {"method", v.method},
           {"value", v.value},       {"ci95", {v.lo, v.hi}}};
    if (v.method == "monte_carlo") e["runs"] = v.runs;
    if (auto it = quick.find(order[rank[r]]); it != quick.end()) e["screen_value"] = it->second;
    bs.push_back(e);
    if (spec.target >= 0 && v.value >= spec.target &&
        (!cheapest || b.cost < bs[*cheapest]["cost"].get<long long>()))
      cheapest = r;
  }
  out["builds"] = bs;
  out["target_build"] = cheapest ? json(*cheapest) : json();
  return out;
}

std::string optimise_table(const json& r) {
  std::ostringstream out;
  const json& o = r["optimise"];
  const std::string objective = o["objective"];
  const bool points = objective != "resources_kept";
  auto show = [&](double x) {
    return points ? fmt::format("{:.1f}", 100 * x) : fmt::format("{:.2f}", x);
  };
  out << fmt::format("optimise {} on {}: {} builds with {} resources{}{}{}; objective {} ({})\n",
                     o["spec"].get<std::string>(), o["scenario"].get<std::string>(),
                     o["side"].get<std::string>(), o["resources"].get<long long>(),
                     o["fleet_supply"].is_null()
                         ? std::string()
                         : fmt::format(", fleet supply {}", o["fleet_supply"].get<long long>()),
                     o.value("production", json()).is_null()
                         ? std::string()
                         : fmt::format(", production {}", o["production"].get<long long>()),
                     o["capacity"].get<bool>() ? ", fighters within capacity" : "", objective,
                     points ? "in points; 'value =' exact, 'value ±half-width' Monte Carlo 95%"
                            : "expected resources kept");
  std::size_t exact = 0;
  for (const auto& b : r["builds"]) exact += b["method"] == "exact";
  const std::size_t screened = r.value("screened", std::size_t{0});
  out << fmt::format(
      "{} legal builds, {}{} evaluated ({} exact, {} Monte Carlo){}\n",
      r["enumerated"].get<std::size_t>(),
      screened ? fmt::format("the {} most promising by hits per round screened by Monte Carlo "
                             "({} runs each), ",
                             screened, o["screen_runs"].get<std::uint64_t>())
               : std::string(),
      r["evaluated"].get<std::size_t>(), exact, r["builds"].size() - exact,
      r["evaluated"] == r["enumerated"] ? ""
      : screened                        ? ", the best of the screen"
                                        : ", the most promising by hits per round");
  auto cell = [&](const json& b) {
    const double v = b["value"], lo = b["ci95"][0], hi = b["ci95"][1];
    return b["method"] == "exact" ? show(v) + " =" : show(v) + " ±" + show((hi - lo) / 2);
  };
  out << fmt::format("{:>4}  {:>12}  {:>4}  {:>6}  {}\n", "rank", "value", "cost", "supply",
                     "build");
  const std::size_t top = std::min<std::size_t>(o["top"].get<std::size_t>(), r["builds"].size());
  for (std::size_t i = 0; i < top; ++i) {
    const json& b = r["builds"][i];
    out << fmt::format("{:>4}  {:>12}  {:>4}  {:>6}  {}\n", i + 1, cell(b),
                       b["cost"].get<long long>(), b["fleet_supply"].get<long long>(),
                       b["label"].get<std::string>());
  }
  if (!o["target"].is_null()) {
    const double t = o["target"];
    if (r["target_build"].is_null()) {
      out << fmt::format("no evaluated build reaches {}\n", show(t));
    } else {
      const json& b = r["builds"][r["target_build"].get<std::size_t>()];
      out << fmt::format("the cheapest build reaching {}: {} (cost {}, value {})\n", show(t),
                         b["label"].get<std::string>(), b["cost"].get<long long>(), cell(b));
    }
  }
  return out.str();
}

}  // namespace rb
