#include "sim/simulate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/error.hpp"
#include "sim/parallel.hpp"
#include "sim/survivors.hpp"

namespace rb {

namespace {
using Counted = Survivors::Group;

// At most this many combinations are listed per side, the most likely first; the rest are
// summed as "other".
constexpr std::size_t kCombinationsShown = 20;

// Beside the report's survivors table (key S): S_units (side -> probability of ending with k
// counted units, k = 0 .. the number that began) and S_combinations (side -> [{key, left, p}],
// the most likely first, then {key: "other", p}), from the probability of each combination: the
// number left of each of `types`.
void combinations_report(
    const std::string& survivors, const std::map<std::string, std::vector<std::string>>& types,
    const std::map<std::string, std::map<std::vector<std::uint32_t>, double>>& p,
    const std::map<std::string, std::size_t>& began, const std::vector<std::string>& sides,
    nlohmann::json& j) {
  using nlohmann::json;
  json units = json::object(), combos = json::object();
  for (const std::string& side : sides) {
    units[side] = json::array();
    combos[side] = json::array();
  }
  for (const auto& [side, left] : p) {
    const auto ti = types.find(side);
    if (ti == types.end()) continue;
    const auto bi = began.find(side);
    std::vector<double> k_left((bi == began.end() ? 0 : bi->second) + 1, 0.0);
    std::vector<std::pair<std::vector<std::uint32_t>, double>> sorted(left.begin(), left.end());
    for (const auto& [counts, w] : sorted) {
      std::size_t n = 0;
      for (auto c : counts) n += c;
      if (n >= k_left.size()) k_left.resize(n + 1, 0.0);
      k_left[n] += w;
    }
    units[side] = k_left;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    json list = json::array();
    double other = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i >= kCombinationsShown) {
        other += sorted[i].second;
        continue;
      }
      std::string key;
      json named = json::object();
      for (std::size_t t = 0; t < sorted[i].first.size() && t < ti->second.size(); ++t) {
        if (sorted[i].first[t] == 0) continue;
        key += (key.empty() ? "" : ", ") + std::to_string(sorted[i].first[t]) + " " + ti->second[t];
        named[ti->second[t]] = sorted[i].first[t];
      }
      list.push_back(
          {{"key", key.empty() ? "none" : key}, {"left", named}, {"p", sorted[i].second}});
    }
    if (sorted.size() > kCombinationsShown) list.push_back({{"key", "other"}, {"p", other}});
    combos[side] = list;
  }
  j[survivors + "_units"] = units;
  j[survivors + "_combinations"] = combos;
}

// S_ends: who ends with units, jointly: side -> [P(that side alone keeps k counted units)]
// (k = 0 .. the most kept; k = 0 is 0), "none": P(no side keeps any), "several": P(two sides or
// more keep some). Together they add up to 1: a battle calculator's outcome chart.
void ends_report(const std::string& survivors, const std::vector<std::string>& sides,
                 const std::map<std::vector<std::uint32_t>, double>& ends, nlohmann::json& j) {
  using nlohmann::json;
  std::vector<std::vector<double>> alone(sides.size(), std::vector<double>(1, 0.0));
  double none = 0, several = 0;
  for (const auto& [kept, p] : ends) {
    std::size_t with = 0, who = 0;
    for (std::size_t s = 0; s < kept.size(); ++s)
      if (kept[s] > 0) ++with, who = s;
    if (with == 0) {
      none += p;
    } else if (with > 1) {
      several += p;
    } else if (who < alone.size()) {
      auto& v = alone[who];
      if (v.size() <= kept[who]) v.resize(kept[who] + 1, 0.0);
      v[kept[who]] += p;
    }
  }
  json out = json::object();
  for (std::size_t s = 0; s < sides.size(); ++s) out[sides[s]] = alone[s];
  out["none"] = none;
  out["several"] = several;
  j[survivors + "_ends"] = out;
}

}  // namespace

void Tally::merge(const Tally& o) {
  runs += o.runs;
  labels.insert(o.labels.begin(), o.labels.end());
  side_names.insert(o.side_names.begin(), o.side_names.end());
  if (outcomes.size() < o.outcomes.size()) outcomes.resize(o.outcomes.size());
  for (std::size_t i = 0; i < o.outcomes.size(); ++i) outcomes[i] += o.outcomes[i];
  for (const auto& [m, h] : o.metrics)
    for (const auto& [v, n] : h) metrics[m][v] += n;
  for (const auto& [side, types] : o.survivors)
    for (const auto& [type, counts] : types) {
      auto& mine = survivors[side][type];
      if (mine.size() < counts.size()) mine.resize(counts.size());
      for (std::size_t k = 0; k < counts.size(); ++k) mine[k] += counts[k];
    }
  for (const auto& [kept, n] : o.ends) ends[kept] += n;
  for (const auto& [side, n] : o.began) began[side] = std::max(began[side], n);
  for (const auto& [side, n] : o.began_types) began_types[side] = std::max(began_types[side], n);
  // the combinations of each side, over the union of both tallies' types (a type of created
  // units that one of them met and the other not: none of it in the other's)
  for (const auto& [side, theirs] : o.combination_types) {
    std::vector<std::string>& mine = combination_types[side];
    std::vector<std::size_t> at;
    for (const std::string& t : theirs) {
      auto it = std::find(mine.begin(), mine.end(), t);
      if (it == mine.end()) it = mine.insert(mine.end(), t);
      at.push_back(static_cast<std::size_t>(it - mine.begin()));
    }
    auto& combos = combinations[side];
    widen(combos, mine.size());
    const auto from = o.combinations.find(side);
    if (from == o.combinations.end()) continue;
    for (const auto& [left, n] : from->second) {
      std::vector<std::uint32_t> moved(mine.size(), 0);
      for (std::size_t k = 0; k < left.size() && k < at.size(); ++k) moved[at[k]] = left[k];
      combos[moved] += n;
    }
  }
}

Interval wilson(std::uint64_t k, std::uint64_t n) {
  if (n == 0) return {0, 1};
  const double z = 1.959963984540054, p = static_cast<double>(k) / static_cast<double>(n),
               nn = static_cast<double>(n);
  const double denom = 1 + z * z / nn;
  const double centre = (p + z * z / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Simulation::Simulation(const Session& session) : session_(session) {
  const auto& reports = session.content->ruleset.reports;
  if (auto it = reports.find(session.procedure); it != reports.end()) report_ = it->second;
}

void Simulation::run_range(Table& table, std::uint64_t seed, std::uint64_t first,
                           std::uint64_t last, Tally& out) const {
  State work;
  RunResult result;
  RunOptions options;
  options.seed = seed;
  Survivors counting(report_, table.start);
  // per report side: the tally of its combinations (the number left of each of its
  // combination_types) and this run's combination
  struct SideCombos {
    std::map<std::vector<std::uint32_t>, std::uint64_t>* tally = nullptr;
    std::vector<std::string>* types = nullptr;
    std::vector<std::uint32_t> left;
  };
  std::vector<SideCombos> sides(report_.sides.size());
  // by group: its survivors' slot and its place among its side's combination_types
  std::vector<std::vector<std::uint64_t>*> survivor_slots;
  std::vector<std::size_t> position;
  const auto add_groups = [&] {
    for (std::size_t g = survivor_slots.size(); g < counting.groups().size(); ++g) {
      const Survivors::Group& G = counting.groups()[g];
      auto& v = out.survivors[G.side][G.type];
      if (v.size() < G.units.size() + 1) v.resize(G.units.size() + 1);
      survivor_slots.push_back(&v);
      SideCombos& sc = sides[G.side_index];
      if (!sc.types) {
        sc.types = &out.combination_types[G.side];
        sc.tally = &out.combinations[G.side];
      }
      auto at = std::find(sc.types->begin(), sc.types->end(), G.type);
      if (at == sc.types->end()) {
        sc.types->push_back(G.type);
        widen(*sc.tally, sc.types->size());
        at = sc.types->end() - 1;
      }
      position.push_back(static_cast<std::size_t>(at - sc.types->begin()));
    }
  };
  add_groups();
  for (std::size_t g = 0; g < counting.started(); ++g) {
    const Survivors::Group& G = counting.groups()[g];
    out.began_types[G.side] = std::max<std::size_t>(out.began_types[G.side], position[g] + 1);
  }
  {
    std::map<std::string, std::size_t> began;
    for (std::size_t g = 0; g < counting.started(); ++g)
      began[counting.groups()[g].side] += counting.groups()[g].units.size();
    for (const auto& [side, n] : began) out.began[side] = n;
  }
  std::vector<std::uint32_t> alive_of;
  std::vector<std::uint32_t> kept(report_.sides.size());
  out.outcomes.resize(std::max(out.outcomes.size(), report_.outcomes.size()));
  // metric histograms by symbol while running; small non-negative values in a flat array
  struct MetricTally {
    Sym name;
    std::vector<std::uint64_t> small;
    std::map<long long, std::uint64_t> other;
  };
  std::vector<MetricTally> metrics;
  for (std::uint64_t i = first; i < last; ++i) {
    work = table.start;
    options.run = i;
    table.engine.run(session_.procedure, work, options, result);
    ++out.runs;
    if (result.outcome >= 0) ++out.outcomes[static_cast<std::size_t>(result.outcome)];
    for (const auto& [m, v] : result.metrics) {
      MetricTally* t = nullptr;
      for (auto& mt : metrics)
        if (mt.name == m) t = &mt;
      if (!t) t = &metrics.emplace_back(MetricTally{m, std::vector<std::uint64_t>(64), {}});
      const long long k = std::llround(v);
      if (k >= 0 && k < 64)
        ++t->small[static_cast<std::size_t>(k)];
      else
        ++t->other[k];
    }
    if (counting.empty()) continue;
    counting.count(work, alive_of);
    if (alive_of.size() > survivor_slots.size()) add_groups();
    std::fill(kept.begin(), kept.end(), 0);
    for (auto& sc : sides)
      if (sc.types) sc.left.assign(sc.types->size(), 0);
    for (std::size_t g = 0; g < alive_of.size(); ++g) {
      auto& slot = *survivor_slots[g];
      if (slot.size() <= alive_of[g]) slot.resize(alive_of[g] + 1);
      ++slot[alive_of[g]];
      const std::size_t si = counting.groups()[g].side_index;
      kept[si] += alive_of[g];
      sides[si].left[position[g]] = alive_of[g];
    }
    if (counting.started() > 0) ++out.ends[kept];
    for (auto& sc : sides) {
      if (!sc.types) continue;
      auto it = sc.tally->find(sc.left);
      if (it == sc.tally->end())
        sc.tally->emplace(sc.left, 1);
      else
        ++it->second;
    }
  }
  for (const auto& mt : metrics) {
    auto& h = out.metrics[std::string(sym_name(mt.name))];
    for (std::size_t k = 0; k < mt.small.size(); ++k)
      if (mt.small[k]) h[static_cast<long long>(k)] += mt.small[k];
    for (const auto& [k, n] : mt.other) h[k] += n;
  }
}

std::vector<int> Simulation::run_outcomes(
    std::uint64_t seed, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges,
    const std::atomic<bool>* stop) const {
  Table table(session_);
  State work;
  RunResult result;
  RunOptions options;
  options.seed = seed;
  std::vector<int> out;
  for (const auto& [first, last] : ranges)
    for (std::uint64_t i = first; i < last; ++i) {
      if (stop && i % 256 == 0 && stop->load()) return out;
      work = table.start;
      options.run = i;
      table.engine.run(session_.procedure, work, options, result);
      out.push_back(result.outcome >= 0 ? result.outcome : -1);
    }
  return out;
}

Tally Simulation::run(const SimOptions& o) const {
  reject_best_play(session_.scenario, "Monte Carlo");
  const int threads = std::max(1, o.threads);
  std::vector<std::unique_ptr<Table>> tables;
  for (int t = 0; t < threads; ++t) tables.push_back(std::make_unique<Table>(session_, o.engine));
  const auto loop_start = std::chrono::steady_clock::now();  // setup above is not timed
  Tally total;
  for (const auto& [metric, text] : tables.front()->engine.labels()) total.labels[metric] = text;
  for (const std::string& side : report_.sides) {
    const State& start = tables.front()->start;
    const EntityId p = start.role(sym(side));
    if (p != kNoEntity && std::string(sym_name(start.at(p).type)) != side)
      total.side_names[side] = std::string(sym_name(start.at(p).type));
  }
  // --precision: a first batch, then the run count the estimates so far project (5% over it, at
  // least a tenth more than done), until every asked half-width is below its bound. Run i always
  // draws from the stream (seed, i) and the projection reads integer tallies, so the runs taken
  // do not depend on --threads.
  const bool precise = o.precision > 0 || o.precision_mean > 0;
  auto reached = [&](const Tally& t) {
    return (o.precision <= 0 || widest(t) < o.precision) &&
           (o.precision_mean <= 0 || widest_mean(t) < o.precision_mean);
  };
  std::uint64_t planned = precise ? std::min<std::uint64_t>(o.max_runs, 20000) : o.runs;
  std::uint64_t done = 0;
  constexpr std::uint64_t kChunk = 2048;
  for (;;) {
    // runs [done, planned) in chunks taken by the threads in turn
    std::vector<Tally> parts(static_cast<std::size_t>(threads));
    run_chunked(
        threads, done, planned, kChunk, o.progress,
        [&](int t, std::uint64_t begin, std::uint64_t end) {
          run_range(*tables[static_cast<std::size_t>(t)], o.seed, begin, end,
                    parts[static_cast<std::size_t>(t)]);
        },
        o.stop);
    for (const auto& p : parts) total.merge(p);
    done = planned;
    if ((o.stop && o.stop->load()) || !precise || planned >= o.max_runs || reached(total)) break;
    const double need = 1.05 * runs_needed(total, o.precision, o.precision_mean);
    const double least = static_cast<double>(done) * 1.1;
    const double next = std::ceil(std::max(need, least));
    planned =
        next >= static_cast<double>(o.max_runs) ? o.max_runs : static_cast<std::uint64_t>(next);
  }
  if (o.loop_seconds)
    *o.loop_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  return total;
}

namespace {

struct Moments {
  double mean = 0, sd = 0;
};
Moments moments(const std::map<long long, std::uint64_t>& h, std::uint64_t runs) {
  Moments m;
  if (runs == 0) return m;
  long double s = 0, s2 = 0;
  for (const auto& [v, n] : h)
    s += static_cast<long double>(v) * n, s2 += static_cast<long double>(v) * v * n;
  const long double mean = s / runs;
  m.mean = static_cast<double>(mean);
  m.sd = static_cast<double>(std::sqrt(std::max<long double>(0, s2 / runs - mean * mean)));
  return m;
}

}  // namespace

nlohmann::json Simulation::report(const Tally& t, std::uint64_t seed) const {
  using nlohmann::json;
  json j = json::object();
  j["runs"] = t.runs;
  j["seed"] = seed;
  json ci = json::object();
  for (std::size_t i = 0; i < report_.outcomes.size(); ++i) {
    const std::uint64_t k = i < t.outcomes.size() ? t.outcomes[i] : 0;
    j[report_.outcomes[i]] = t.runs ? static_cast<double>(k) / static_cast<double>(t.runs) : 0.0;
    const Interval w = wilson(k, t.runs);
    ci[report_.outcomes[i]] = {w.lo, w.hi};
  }
  static const std::map<long long, std::uint64_t> empty;
  auto hist = [&](const std::string& m) -> const std::map<long long, std::uint64_t>& {
    auto it = t.metrics.find(m);
    return it == t.metrics.end() ? empty : it->second;
  };
  for (const auto& [key, metric] : report_.distributions) {
    const auto& h = hist(metric);
    const long long top = h.empty() ? 0 : std::max(0LL, h.rbegin()->first);
    json arr = json::array();
    for (long long v = 0; v <= top; ++v) {
      auto it = h.find(v);
      arr.push_back(it == h.end() || !t.runs
                        ? 0.0
                        : static_cast<double>(it->second) / static_cast<double>(t.runs));
    }
    j[key] = arr;
  }
  for (const auto& [key, metric] : report_.probabilities) {
    const auto& h = hist(metric);
    std::uint64_t k = 0;
    for (const auto& [v, n] : h) k += v != 0 ? n : 0;
    j[key] = t.runs ? static_cast<double>(k) / static_cast<double>(t.runs) : 0.0;
    const Interval w = wilson(k, t.runs);
    ci[key] = {w.lo, w.hi};
  }
  json unwritten = json::array();
  for (const auto& [key, metric] : report_.probabilities)
    if (hist(metric).empty()) unwritten.push_back(key);
  for (const auto& c : report_.conditional) {
    std::uint64_t k = 0, n = 0;
    for (const auto& [v, m] : hist(c.metric)) k += v != 0 ? m : 0;
    for (const auto& [v, m] : hist(c.given)) n += v != 0 ? m : 0;
    if (n == 0) continue;  // the condition never held: nothing to report
    j[c.key] = static_cast<double>(k) / static_cast<double>(n);
    const Interval w = wilson(k, n);
    ci[c.key] = {w.lo, w.hi};
  }
  if (!unwritten.empty()) j["unwritten"] = unwritten;
  for (const auto& [key, metric] : report_.means) {
    const Moments m = moments(hist(metric), t.runs);
    j[key] = m.mean;
    if (std::find(report_.ci95.begin(), report_.ci95.end(), key) != report_.ci95.end()) {
      const double half =
          t.runs ? 1.959963984540054 * m.sd / std::sqrt(static_cast<double>(t.runs)) : 0;
      ci[key] = {m.mean - half, m.mean + half};
    }
  }
  j["ci95"] = ci;
  if (!t.labels.empty()) j["labels"] = t.labels;
  if (!t.side_names.empty()) j["side_names"] = t.side_names;
  if (!report_.survivors.empty()) {
    json s = json::object();
    for (const auto& side : report_.sides) s[side] = json::object();
    for (const auto& [side, types] : t.survivors)
      for (const auto& [type, counts] : types) {
        // none left: every other run (a type of created units is tallied from the run that
        // first met it, in each thread)
        std::uint64_t some = 0;
        for (std::size_t k = 1; k < counts.size(); ++k) some += counts[k];
        json arr = json::array();
        for (std::size_t k = 0; k < counts.size(); ++k) {
          const std::uint64_t n = k == 0 ? t.runs - std::min(some, t.runs) : counts[k];
          arr.push_back(t.runs ? static_cast<double>(n) / static_cast<double>(t.runs) : 0.0);
        }
        s[side][type] = arr;
      }
    j[report_.survivors] = s;
    std::map<std::string, std::map<std::vector<std::uint32_t>, double>> p;
    std::map<std::string, std::vector<std::string>> types = t.combination_types;
    for (const auto& [side, combos] : t.combinations) {
      for (const auto& [left, n] : combos)
        p[side][left] = t.runs ? static_cast<double>(n) / static_cast<double>(t.runs) : 0.0;
      const auto fixed = t.began_types.find(side);
      reorder(types[side], fixed == t.began_types.end() ? 0 : fixed->second, p[side]);
    }
    combinations_report(report_.survivors, types, p, t.began, report_.sides, j);
    std::map<std::vector<std::uint32_t>, double> ends;
    for (const auto& [kept, n] : t.ends)
      ends[kept] = t.runs ? static_cast<double>(n) / static_cast<double>(t.runs) : 0.0;
    if (!ends.empty()) ends_report(report_.survivors, report_.sides, ends, j);
  }
  return j;
}

namespace {

// What tells unit `e` apart from the other units of its counted type in `s` (those in play): the
// flags (counters that target a unit) that not all of them carry alike ("galvanized", "not
// galvanized"), else the attributes whose value not all of them share ("damaged 1"); empty when
// nothing does.
std::string distinction(const std::vector<AttributeDef>& attrs, const Counted& c, const State& s,
                        EntityId e) {
  std::vector<EntityId> others;
  for (EntityId o : c.units)
    if (o != e && s.at(o).location != kReinforcements) others.push_back(o);
  const auto value_on = [&](EntityId u, Sym key) {
    for (const Counter& k : s.counters)
      if (k.target == u && k.key == key) return k.value;
    return 0;
  };
  std::set<Sym> keys;  // the flags on any of them
  for (const Counter& k : s.counters)
    if (k.value != 0 &&
        (k.target == e || std::find(others.begin(), others.end(), k.target) != others.end()))
      keys.insert(k.key);
  std::string out;
  const auto add = [&](const std::string& what) { out += (out.empty() ? "" : ", ") + what; };
  for (Sym key : keys) {
    const std::int32_t v = value_on(e, key);
    if (std::all_of(others.begin(), others.end(),
                    [&](EntityId o) { return value_on(o, key) == v; }))
      continue;
    const std::string name(sym_name(key));
    add(v == 0 ? "not " + name : v == 1 ? name : name + " " + std::to_string(v));
  }
  if (!out.empty()) return out;
  for (const AttributeDef& a : attrs) {
    const auto slot = static_cast<std::size_t>(a.slot);
    const std::int32_t v = s.at(e).attr[slot];
    if (std::any_of(others.begin(), others.end(),
                    [&](EntityId o) { return s.at(o).attr[slot] != v; }))
      add(a.name + " " + std::to_string(v));
  }
  return out;
}

// What an option of a first decision did to `side`'s counted units, from `before` to `after`:
// "lose 2 fighter, 1 carrier; damage 1 dreadnought; repair 1 dreadnought" (or "nothing"), and the
// hits it took (units lost or damaged). A unit in play in both whose attributes changed is damaged
// when one of the `damaged` attributes (Engine::damaged_attributes: what a hit assignment sets on
// a unit that sustains) went up, repaired when one went down; a change of any other attribute is
// called damage too (the runtime cannot tell what it is). The exact mode exchanges alike units
// (State::canonicalise), so a unit of `after` is first matched to one of `before` with the same
// attributes (itself first), and only the units left over are lost or changed: the fewest changes
// that lead from one to the other. With `attrs`, each unit is also told apart from the others of
// its type by what distinguishes it ("lose 1 destroyer (galvanized)"): for options that the plain
// words would give the same name.
std::pair<std::string, int> describe_option(const std::vector<Counted>& counted,
                                            const std::string& side, const State& before,
                                            const State& after, const std::vector<int>& damaged,
                                            const std::vector<AttributeDef>* attrs = nullptr) {
  std::string lost, hit, repaired;
  int hits = 0;
  const auto in_play = [](const State& s, EntityId e) {
    return s.at(e).location != kReinforcements;
  };
  for (const Counted& c : counted) {
    if (c.side != side) continue;
    // the units in play before, and after; matched[i]: the unit before that after's i-th was
    std::vector<EntityId> was, is;
    for (EntityId e : c.units) {
      if (in_play(before, e)) was.push_back(e);
      if (in_play(after, e)) is.push_back(e);
    }
    std::vector<EntityId> matched(is.size(), kNoEntity);
    std::vector<char> used(was.size(), 0);
    const auto match = [&](auto fits) {
      for (std::size_t i = 0; i < is.size(); ++i)
        for (std::size_t k = 0; k < was.size() && matched[i] == kNoEntity; ++k)
          if (!used[k] && fits(was[k], is[i])) matched[i] = was[k], used[k] = 1;
    };
    const auto same = [&](EntityId b, EntityId a) { return before.at(b).attr == after.at(a).attr; };
    match([&](EntityId b, EntityId a) { return b == a && same(b, a); });  // itself, unchanged
    match(same);                                                          // an alike one
    match([](EntityId b, EntityId a) { return b == a; });                 // itself, changed
    match([](EntityId, EntityId) { return true; });                       // another, changed
    std::map<std::string, int> l, d, r;                                   // distinction -> units
    const auto how = [&](EntityId e) { return attrs ? distinction(*attrs, c, before, e) : ""; };
    for (std::size_t k = 0; k < was.size(); ++k)
      if (!used[k]) ++l[how(was[k])], ++hits;
    for (std::size_t i = 0; i < is.size(); ++i) {
      const EntityId b = matched[i];
      if (b == kNoEntity || same(b, is[i])) continue;
      bool up = false, down = false;
      for (int slot : damaged) {
        const auto x = static_cast<std::size_t>(slot);
        up = up || after.at(is[i]).attr[x] > before.at(b).attr[x];
        down = down || after.at(is[i]).attr[x] < before.at(b).attr[x];
      }
      if (down && !up) {
        ++r[how(b)];
      } else {
        ++d[how(b)];
        ++hits;
      }
    }
    const auto words = [&](std::string& into, const std::map<std::string, int>& n) {
      for (const auto& [what, k] : n)
        into += (into.empty() ? "" : ", ") + std::to_string(k) + " " + c.type +
                (what.empty() ? "" : " (" + what + ")");
    };
    words(lost, l);
    words(hit, d);
    words(repaired, r);
  }
  std::string what = lost.empty() ? "" : "lose " + lost;
  if (!hit.empty()) what += (what.empty() ? "" : "; ") + std::string("damage ") + hit;
  if (!repaired.empty()) what += (what.empty() ? "" : "; ") + std::string("repair ") + repaired;
  return {what.empty() ? "nothing" : what, hits};
}

// Each option of decision `d` described (describe_option), and told apart where two options that
// lead to different states would get the same words. An option of one choice that changes no
// counted unit (commit ground forces, use an ability) is named by the decision's own words when
// the exploration kept them (`labels`, BestPlay::labels): "invasion.commit_ground_forces: 2".
std::vector<std::pair<std::string, int>> describe_options(
    const BestDecision& d, const std::vector<State>& states, const std::vector<Counted>& counted,
    const std::string& side, const std::vector<AttributeDef>& attrs,
    const std::vector<int>& damaged, const std::vector<std::vector<std::string>>& labels) {
  std::vector<std::pair<std::string, int>> out;
  for (const BestDecision::Option& op : d.options)
    out.push_back(describe_option(counted, side, states[d.node], states[op.to], damaged));
  bool clash = false;
  for (std::size_t i = 0; i < out.size() && !clash; ++i)
    for (std::size_t k = i + 1; k < out.size() && !clash; ++k)
      clash = out[i].first == out[k].first && d.options[i].to != d.options[k].to;
  if (clash)
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] =
          describe_option(counted, side, states[d.node], states[d.options[i].to], damaged, &attrs);
  if (d.label > 0 && d.label <= labels.size()) {
    const std::vector<std::string>& w = labels[d.label - 1];
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].first == "nothing" && d.options[i].picks.size() == 1 &&
          d.options[i].picks[0] + 1 < w.size())
        out[i].first = w[0] + ": " + w[d.options[i].picks[0] + 1];
  }
  return out;
}

// At most this many rows of first decisions are shown: the likeliest.
constexpr std::size_t kDecisionRows = 12;

// The first decisions of a best side (BestPlay::decisions) as rows: [{hits, p, options: [{option,
// value}] best first, margin}], the hits taken in the round, the chance of the row, and how much
// the best option beats the next one of a lower value.
nlohmann::json decisions_table(const BestPlay& b, const std::vector<State>& states,
                               const std::vector<Counted>& counted, const std::string& side,
                               const std::vector<AttributeDef>& attrs,
                               const std::vector<int>& damaged) {
  using nlohmann::json;
  // decisions with the same hits and the same options are one row: each option's value is its
  // mean over them, weighted by their chance
  struct Row {
    int hits = 0;
    double p = 0;
    std::map<std::string, double> value;  // option -> p x value
    // the most options one of its decisions offered, and the most distinct states they led to
    // (a hit assignment offers one option per outcome: the two are equal)
    std::size_t choices = 0, outcomes = 0;
  };
  std::map<std::pair<int, std::vector<std::string>>, Row> rows;
  for (const BestDecision& d : b.decisions) {
    std::vector<std::string> whats;
    std::map<std::string, double> best_of;  // two rows of choices may do the same
    int hits = 0;
    const auto described = describe_options(d, states, counted, side, attrs, damaged, b.labels);
    for (std::size_t i = 0; i < d.options.size(); ++i) {
      const BestDecision::Option& op = d.options[i];
      const auto& [what, h] = described[i];
      hits = std::max(hits, h);
      if (!best_of.count(what)) whats.push_back(what), best_of[what] = op.value;
      best_of[what] = std::max(best_of[what], op.value);
    }
    if (best_of.size() < 2) continue;
    std::sort(whats.begin(), whats.end());
    Row& row = rows[{hits, whats}];
    row.hits = hits;
    row.p += d.p;
    std::set<std::uint32_t> to;
    for (const BestDecision::Option& op : d.options) to.insert(op.to);
    row.choices = std::max(row.choices, d.options.size());
    row.outcomes = std::max(row.outcomes, to.size());
    for (const auto& [what, v] : best_of) row.value[what] += d.p * v;
  }
  std::vector<const Row*> order;
  for (const auto& [key, row] : rows)
    if (row.p > 0) order.push_back(&row);
  // the likeliest rows, then by hits
  std::stable_sort(order.begin(), order.end(),
                   [](const Row* a, const Row* c) { return a->p > c->p; });
  if (order.size() > kDecisionRows) order.resize(kDecisionRows);
  std::stable_sort(order.begin(), order.end(),
                   [](const Row* a, const Row* c) { return a->hits < c->hits; });
  json out = json::array();
  for (const Row* row : order) {
    std::vector<std::pair<double, std::string>> opts;
    for (const auto& [what, pv] : row->value) opts.emplace_back(pv / row->p, what);
    std::stable_sort(opts.begin(), opts.end(),
                     [](const auto& a, const auto& c) { return a.first > c.first; });
    json options = json::array();
    for (const auto& [v, what] : opts) options.push_back({{"option", what}, {"value", v}});
    // the margin: the best over the next best of another value (options of equal value, such as
    // losing either of two units alike in combat, are one)
    double margin = 0;
    for (const auto& [v, what] : opts)
      if (opts[0].first - v > 1e-9) {
        margin = opts[0].first - v;
        break;
      }
    out.push_back({{"hits", row->hits},
                   {"p", row->p},
                   {"options", options},
                   {"margin", margin},
                   {"choices", row->choices},
                   {"outcomes", row->outcomes}});
  }
  return out;
}

// One run drawn through the best play (BestPlay::walk) as JSON: {steps: [{changes: {SIDE: what
// its counted units lost or changed}, decisions: [{options: [{option, value}] in the runtime's
// order (the policy's first), taken}]}], outcome}.
nlohmann::json walk_json(const BestPlay& b, const std::vector<State>& states,
                         const std::vector<Counted>& counted, const std::vector<std::string>& sides,
                         const std::string& side, const std::vector<AttributeDef>& attrs,
                         const std::vector<int>& damaged) {
  using nlohmann::json;
  json steps = json::array();
  for (const BestPlay::WalkStep& w : b.walk) {
    json changes = json::object();
    for (const std::string& x : sides)
      changes[x] = describe_option(counted, x, states[w.from], states[w.to], damaged).first;
    json decisions = json::array();
    for (std::size_t k = 0; k < w.decisions.size(); ++k) {
      const BestDecision& d = w.decisions[k];
      json options = json::array();
      const auto described = describe_options(d, states, counted, side, attrs, damaged, b.labels);
      for (std::size_t i = 0; i < d.options.size(); ++i) {
        const BestDecision::Option& op = d.options[i];
        // (an option that changes no counted unit, such as a token spent, by its index)
        std::string what = described[i].first;
        if (what == "nothing" && !op.picks.empty())
          what = "option " + std::to_string(op.picks.back() + 1) + " (no unit changed)";
        options.push_back({{"option", what}, {"value", op.value}});
      }
      decisions.push_back({{"options", options}, {"taken", w.taken[k]}, {"p", d.p}});
    }
    steps.push_back({{"changes", changes}, {"decisions", decisions}});
  }
  return {{"steps", steps}, {"outcome", b.walk_outcome}};
}

}  // namespace

nlohmann::json Simulation::exact(const ExactRunOptions& o, const EngineOptions& engine,
                                 int repeats) const {
  using nlohmann::json;
  Table table(session_, engine);
  std::vector<double> times;
  ExactResult r;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto start = std::chrono::steady_clock::now();
    r = table.engine.run_exact(session_.procedure, table.start, o);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const double seconds = times[times.size() / 2];
  json j = json::object();
  j["method"] = "exact";
  j["states"] = r.states;
  j["step_runs"] = r.leaves;
  j["unresolved"] = r.unresolved;
  j["seconds"] = seconds;
  // the units of the start that best play's tables describe
  std::vector<Counted> counted = Survivors(report_, table.start).groups();
  if (r.best) {
    j["best_play"] = {{"value", r.best->value},
                      {"choice_nodes", r.best->choice_nodes},
                      {"iterations", r.best->iterations},
                      {"settled", r.best->settled}};
    if (o.best_second == kNoSym) j["best_play"]["policy_in_graph"] = r.best->policy_in_graph;
    if (o.best_second != kNoSym)
      j["best_play"].update({{"rounds", r.best->rounds},
                             {"rounds_settled", r.best->rounds_settled},
                             {"round_values", r.best->round_values},
                             {"pair_values", r.best->pair_values}});
    // what the hit assignments of the run mark a unit that sustains with (damage or repair)
    const std::vector<int>& damaged = table.engine.damaged_attributes();
    if (o.best_decisions)
      j["best_play"]["decisions"] =
          decisions_table(*r.best, r.decision_states, counted, std::string(sym_name(o.best)),
                          session_.content->ruleset.attributes, damaged);
    if (o.best_walk)
      j["best_play"]["walk"] =
          walk_json(*r.best, r.decision_states, counted, report_.sides,
                    std::string(sym_name(o.best)), session_.content->ruleset.attributes, damaged);
  }
  std::vector<double> outcomes(report_.outcomes.size(), 0.0);
  std::map<std::string, std::map<long long, double>> hist;  // set metrics: value -> probability
  Survivors counting(report_, table.start);
  std::vector<std::vector<std::uint32_t>> alive_at(r.finals.size());
  for (std::size_t i = 0; i < r.finals.size(); ++i) {
    const ExactResult::Final& f = r.finals[i];
    if (f.outcome >= 0 && static_cast<std::size_t>(f.outcome) < outcomes.size())
      outcomes[static_cast<std::size_t>(f.outcome)] += f.p;
    for (const auto& [m, v] : f.metrics) hist[std::string(sym_name(m))][std::llround(v)] += f.p;
    if (!counting.empty()) counting.count(f.state, alive_at[i]);
  }
  // each side's types: those of the start in its order, then those of created units by name
  const auto& gs = counting.groups();
  std::vector<std::size_t> order(gs.size());
  for (std::size_t g = 0; g < gs.size(); ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const bool cx = x >= counting.started(), cy = y >= counting.started();
    return cx != cy ? cy : cx && gs[x].type < gs[y].type;
  });
  std::map<std::string, std::vector<std::string>> combo_types;
  std::map<std::string, std::size_t> began;
  std::vector<std::size_t> position(gs.size());
  for (std::size_t g : order) {
    position[g] = combo_types[gs[g].side].size();
    combo_types[gs[g].side].push_back(gs[g].type);
    began[gs[g].side] += gs[g].units.size();
  }
  std::vector<std::vector<double>> alive(gs.size());
  for (std::size_t g = 0; g < gs.size(); ++g) alive[g].assign(gs[g].units.size() + 1, 0.0);
  std::map<std::string, std::map<std::vector<std::uint32_t>, double>> combos;
  std::map<std::vector<std::uint32_t>, double> ends;
  for (std::size_t i = 0; i < r.finals.size() && !counting.empty(); ++i) {
    const double p = r.finals[i].p;
    std::map<std::string, std::vector<std::uint32_t>> left;
    for (const auto& [side, types] : combo_types) left[side].assign(types.size(), 0);
    std::vector<std::uint32_t> kept(report_.sides.size(), 0);
    for (std::size_t g = 0; g < gs.size(); ++g) {
      const std::uint32_t n = g < alive_at[i].size() ? alive_at[i][g] : 0;
      if (alive[g].size() <= n) alive[g].resize(n + 1, 0.0);
      alive[g][n] += p;
      left[gs[g].side][position[g]] = n;
      kept[gs[g].side_index] += n;
    }
    for (const auto& [side, l] : left) combos[side][l] += p;
    if (counting.started() > 0) ends[kept] += p;
  }
  std::map<std::string, double> added;
  for (const auto& [m, v] : r.added) added[std::string(sym_name(m))] += v;
  for (std::size_t i = 0; i < report_.outcomes.size(); ++i) j[report_.outcomes[i]] = outcomes[i];
  static const std::map<long long, double> empty;
  auto histogram = [&](const std::string& m) -> const std::map<long long, double>& {
    auto it = hist.find(m);
    return it == hist.end() ? empty : it->second;
  };
  // a metric added to round by round (rounds) has its mean here, not its distribution: the
  // distribution is left out and named in means_only (Monte Carlo gives it)
  json means_only = json::array();
  for (const auto& [key, metric] : report_.distributions) {
    if (added.count(metric)) {
      means_only.push_back(key);
      continue;
    }
    const auto& h = histogram(metric);
    const long long top = h.empty() ? 0 : std::max(0LL, h.rbegin()->first);
    json arr = json::array();
    for (long long v = 0; v <= top; ++v) {
      auto it = h.find(v);
      // a sum of path probabilities can pass 1 by a rounding (1.0000000000000002)
      arr.push_back(it == h.end() ? 0.0 : std::min(1.0, it->second));
    }
    j[key] = arr;
  }
  json unwritten = json::array();
  for (const auto& [key, metric] : report_.probabilities) {
    double p = 0;
    for (const auto& [v, w] : histogram(metric)) p += v != 0 ? w : 0;
    j[key] = p;
    if (histogram(metric).empty()) unwritten.push_back(key);
  }
  if (!unwritten.empty()) j["unwritten"] = unwritten;
  if (!means_only.empty()) j["means_only"] = means_only;
  for (const auto& c : report_.conditional) {
    double both = 0, given = 0;
    for (const auto& [v, w] : histogram(c.metric)) both += v != 0 ? w : 0;
    for (const auto& [v, w] : histogram(c.given)) given += v != 0 ? w : 0;
    if (given > 0) j[c.key] = both / given;
  }
  for (const auto& [key, metric] : report_.means) {
    double m = 0;
    for (const auto& [v, w] : histogram(metric)) m += static_cast<double>(v) * w;
    if (auto it = added.find(metric); it != added.end()) m += it->second;
    j[key] = m;
  }
  j["ci95"] = json::object();
  const auto labels = table.engine.labels();
  if (!labels.empty()) {
    json l = json::object();
    for (const auto& [metric, text] : labels) l[metric] = text;
    j["labels"] = l;
  }
  if (!report_.survivors.empty()) {
    json sv = json::object();
    for (const auto& side : report_.sides) sv[side] = json::object();
    for (std::size_t g = 0; g < gs.size(); ++g) sv[gs[g].side][gs[g].type] = alive[g];
    j[report_.survivors] = sv;
    combinations_report(report_.survivors, combo_types, combos, began, report_.sides, j);
    if (!ends.empty()) ends_report(report_.survivors, report_.sides, ends, j);
  }
  return j;
}

// A side's objective (docs/exact.md, "Best play"): "win", "not_lose", or "metric:NAME" (a mean
// or a probability of the report, by its key or its metric: its expectation) maximised;
// "metric:-NAME" minimised.
// `negate`: the other side of a game where the first maximises the metric. `of_report` gets how to
// read the objective's value off a report.
BestObjective Simulation::best_objective(
    const std::string& side, const std::string& objective, bool negate,
    std::function<double(const nlohmann::json&)>* of_report) const {
  BestObjective b;
  if (objective.rfind("metric:", 0) == 0) {
    std::string name = objective.substr(7);
    double sign = negate ? -1 : 1;
    if (!name.empty() && name[0] == '-') sign = -sign, name = name.substr(1);
    // a mean, or a probability (its 0/1 metric's expectation: the chance, such as taking a
    // planet in a tactical action)
    std::string key, metric, keys;
    for (const auto* table : {&report_.means, &report_.probabilities})
      for (const auto& [k, m] : *table) {
        keys += (keys.empty() ? "" : ", ") + k;
        if (key.empty() && (k == name || m == name)) key = k, metric = m;
      }
    if (key.empty())
      throw UsageError("--objective '" + objective + "': the report of '" + session_.procedure +
                       "' has no mean or probability '" + name + "'" +
                       (keys.empty() ? " (it has none)" : " (it has: " + keys + ")"));
    b.metrics.emplace_back(sym(metric), sign);
    if (of_report)
      *of_report = [key, sign](const nlohmann::json& r) {
        return r.contains(key) ? sign * r.at(key).get<double>() : 0.0;
      };
    return b;
  }
  if (objective != "win" && objective != "not_lose")
    throw UsageError("--objective '" + objective +
                     "' is not one of: win, not_lose, metric:NAME, metric:-NAME");
  // the value of ending in each outcome: 1 for the side's win (and, not_lose, for a draw)
  b.outcomes.assign(report_.outcomes.size(), 0.0);
  std::vector<std::string> counted;
  for (const auto& [s, outcome] : report_.wins)
    if (s == side) counted.push_back(outcome);
  if (counted.empty())
    throw UsageError("best play: the report of '" + session_.procedure + "' declares no win for '" +
                     side + "' (its ruleset's [report." + session_.procedure +
                     "] wins = { SIDE = \"OUTCOME\" }); a metric objective (metric:NAME) needs "
                     "none");
  if (objective == "not_lose")
    counted.insert(counted.end(), report_.draws.begin(), report_.draws.end());
  for (std::size_t i = 0; i < report_.outcomes.size(); ++i)
    if (std::find(counted.begin(), counted.end(), report_.outcomes[i]) != counted.end())
      b.outcomes[i] = 1;
  // a key of the report's probabilities (its 0/1 metric): the metric's expectation, its chance
  std::vector<std::string> keys;
  for (const auto& [key, metric] : report_.probabilities)
    if (std::find(counted.begin(), counted.end(), key) != counted.end())
      b.metrics.emplace_back(sym(metric), 1.0), keys.push_back(key);
  if (of_report)
    *of_report = [outcomes = report_.outcomes, values = b.outcomes, keys](const nlohmann::json& r) {
      double v = 0;
      for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (values[i] > 0 && r.contains(outcomes[i]))
          v += values[i] * r.at(outcomes[i]).get<double>();
      for (const std::string& k : keys)
        if (r.contains(k)) v += r.at(k).get<double>();
      return v;
    };
  return b;
}

std::string Simulation::scenario_best() const {
  const Scenario& sc = session_.scenario;
  const std::string best = best_play_of(sc);
  if (best.empty()) return best;
  std::string sides;
  for (const auto& s : report_.sides) sides += (sides.empty() ? "" : ", ") + s;
  for (const auto& [side, line] : sc.best_sides)
    if (std::find(report_.sides.begin(), report_.sides.end(), side) == report_.sides.end())
      throw ContentError(sc.file, line,
                         "[play] " + side + ": not a side of the report of '" + session_.procedure +
                             "'" + (sides.empty() ? " (it has none)" : "; its sides: " + sides));
  if (best == "both" && report_.sides.size() != 2)
    throw ContentError(sc.file, sc.best_sides[1].second,
                       "[play]: best play for more than one side is both sides of a report of "
                       "two answering each other; the report of '" +
                           session_.procedure + "' has " + sides);
  try {
    for (const auto& [side, line] : sc.best_sides)
      best_objective(side, sc.best_objective, side != report_.sides.front() && best == "both",
                     nullptr);
  } catch (const UsageError& e) {
    std::string m = e.what();
    const std::string flag = "--objective ";
    if (m.rfind(flag, 0) == 0) m = m.substr(flag.size());
    throw ContentError(sc.file, sc.objective_line ? sc.objective_line : sc.best_sides[0].second,
                       "[play] objective: " + m);
  }
  return best;
}

nlohmann::json Simulation::exact_best(const ExactRunOptions& o, const std::string& side,
                                      const std::string& objective, bool decisions) const {
  std::string sides;
  for (const auto& s : report_.sides) sides += (sides.empty() ? "" : ", ") + s;
  const bool both = side == "both";
  if (both && report_.sides.size() != 2)
    throw UsageError("--best both: the report of '" + session_.procedure +
                     "' needs two sides (it has " + (sides.empty() ? std::string("none") : sides) +
                     ")");
  if (!both && std::find(report_.sides.begin(), report_.sides.end(), side) == report_.sides.end())
    throw UsageError("--best '" + side + "' is not a side of the report of '" + session_.procedure +
                     "'" + (sides.empty() ? " (it has none)" : ": " + sides + ", or both"));
  const std::string first = both ? report_.sides[0] : side;
  std::function<double(const nlohmann::json&)> value_of, second_of;
  ExactRunOptions bo = o;
  bo.best = sym(first);
  bo.best_objective = best_objective(first, objective, false, &value_of);
  bo.best_decisions = decisions;
  if (both) {
    bo.best_second = sym(report_.sides[1]);
    bo.second_objective = best_objective(report_.sides[1], objective, true, &second_of);
  }
  const nlohmann::json policy = exact(o);
  nlohmann::json j = exact(bo);
  const double p = value_of(policy), b = value_of(j);
  const nlohmann::json& play = j.at("best_play");
  j["best"] = {{"side", side},
               {"objective", objective},
               {"policy", p},
               {"best", b},
               {"gain", b - p},
               {"gain_points", 100 * (b - p)},
               {"settled", play.at("settled")},
               {"iterations", play.at("iterations")},
               {"choice_nodes", play.at("choice_nodes")}};
  if (both) {
    // each side's value under the policies and at the last pair, from its own point of view
    const double p2 = second_of(policy), b2 = second_of(j);
    j["best"]["sides"] = {{report_.sides[0], {{"policy", p}, {"pair", b}}},
                          {report_.sides[1], {{"policy", p2}, {"pair", b2}}}};
    j["best"]["rounds"] = play.at("rounds");
    j["best"]["rounds_settled"] = play.at("rounds_settled");
    j["best"]["round_values"] = play.at("round_values");
  }
  if (!both) {
    // the graph of choices with the policy's own options must be the policy's game: where it is
    // not, a rule acts otherwise when the side chooses (a hook that reads ctx:by_policy), and
    // the best play is a best response to another game
    const double in_graph = play.at("policy_in_graph").get<double>();
    const bool same = std::abs(in_graph - p) <= 1e-9 * std::max(1.0, std::abs(p));
    j["best"]["policy_in_graph"] = in_graph;
    j["best"]["same_game"] = same;
  }
  if (play.contains("decisions")) j["best"]["decisions"] = play.at("decisions");
  if (play.contains("walk")) j["best"]["walk"] = play.at("walk");
  j["policy"] = policy;
  return j;
}

RunOptions::BestPicks Simulation::best_picks(const ExactRunOptions& o, const std::string& side,
                                             const std::string& objective,
                                             const std::vector<DiceStream::Forced>& forced) const {
  if (std::find(report_.sides.begin(), report_.sides.end(), side) == report_.sides.end())
    throw UsageError("best play with fixed dice: '" + side + "' is not a side of the report of '" +
                     session_.procedure + "'");
  ExactRunOptions bo = o;
  bo.best = sym(side);
  bo.best_objective = best_objective(side, objective, false, nullptr);
  bo.best_forced_walk = true;
  bo.best_forced = forced;
  Table table(session_, {});
  ExactResult r = table.engine.run_exact(session_.procedure, table.start, bo);
  RunOptions::BestPicks picks;
  picks.role = sym(side);
  picks.picks = std::move(r.best_picks);
  // chances in %: a win objective, or a metric objective on a probability of the report
  picks.percent = objective.rfind("metric:", 0) != 0;
  for (const auto& [key, metric] : report_.probabilities)
    if (objective == "metric:" + key || objective == "metric:" + metric) picks.percent = true;
  return picks;
}

namespace {
constexpr double kZ95 = 1.959963984540054;
std::uint64_t nonzero_runs(const std::map<long long, std::uint64_t>& h) {
  std::uint64_t k = 0;
  for (const auto& [v, n] : h) k += v != 0 ? n : 0;
  return k;
}
}  // namespace

// The reported probabilities (outcome counts, then the report's 0/1 metrics) as (k, n) pairs,
// and the means with an interval as their moments: what widest, widest_mean and runs_needed read.
void Simulation::for_each_estimate(const Tally& t,
                                   const std::function<void(std::uint64_t)>& probability,
                                   const std::function<void(double)>& mean_sd) const {
  static const std::map<long long, std::uint64_t> empty;
  auto hist = [&](const std::string& m) -> const std::map<long long, std::uint64_t>& {
    auto it = t.metrics.find(m);
    return it == t.metrics.end() ? empty : it->second;
  };
  for (std::size_t i = 0; i < report_.outcomes.size(); ++i)
    probability(i < t.outcomes.size() ? t.outcomes[i] : 0);
  for (const auto& [key, metric] : report_.probabilities) probability(nonzero_runs(hist(metric)));
  for (const auto& [key, metric] : report_.means)
    if (std::find(report_.ci95.begin(), report_.ci95.end(), key) != report_.ci95.end())
      mean_sd(moments(hist(metric), t.runs).sd);
}

double Simulation::widest(const Tally& t) const {
  double w = 0;
  for_each_estimate(
      t,
      [&](std::uint64_t k) {
        const Interval i = wilson(k, t.runs);
        w = std::max(w, (i.hi - i.lo) / 2);
      },
      [](double) {});
  return w;
}

double Simulation::widest_mean(const Tally& t) const {
  double w = 0;
  const double n = static_cast<double>(t.runs);
  for_each_estimate(
      t, [](std::uint64_t) {},
      [&](double sd) { w = std::max(w, t.runs ? kZ95 * sd / std::sqrt(n) : 0.0); });
  return w;
}

double Simulation::runs_needed(const Tally& t, double precision, double precision_mean) const {
  double need = 0;
  const double n = static_cast<double>(t.runs);
  for_each_estimate(
      t,
      [&](std::uint64_t k) {
        if (precision <= 0) return;
        const double p = (static_cast<double>(k) + 2) / (n + 4);
        need = std::max(need, kZ95 * kZ95 * p * (1 - p) / (precision * precision));
      },
      [&](double sd) {
        if (precision_mean <= 0) return;
        need = std::max(need, (kZ95 * sd / precision_mean) * (kZ95 * sd / precision_mean));
      });
  return need;
}

std::string format_report(const nlohmann::json& j, const ReportDef& def) {
  std::ostringstream out;
  const bool exact = j.contains("method") && j["method"] == "exact";
  if (exact)
    out << fmt::format("exact: {} states, {} step runs, {:.3f} ms{}\n",
                       j["states"].get<std::size_t>(), j["step_runs"].get<std::uint64_t>(),
                       1000 * j["seconds"].get<double>(),
                       j["unresolved"].get<double>() > 0
                           ? fmt::format(" ({:.3g} of the probability not followed to its end)",
                                         j["unresolved"].get<double>())
                           : "");
  else
    out << fmt::format("{} runs, seed {}\n", j["runs"].get<std::uint64_t>(),
                       j["seed"].get<std::uint64_t>());
  auto pct = [](double p) { return fmt::format("{:6.2f}%", 100 * p); };
  auto bar = [](double p, int width) {
    const int n = static_cast<int>(std::lround(p * width));
    std::string b;
    for (int i = 0; i < n; ++i) b += "\u2588";
    return b + std::string(static_cast<std::size_t>(width - n), ' ');
  };
  // an outcome or probability shown only when some run ends in it ("ongoing": a combat stopped
  // after round k)
  auto hidden = [&](const std::string& key) {
    return j[key].get<double>() <= 0 &&
           std::find(def.only_when_any.begin(), def.only_when_any.end(), key) !=
               def.only_when_any.end();
  };
  for (const auto& o : def.outcomes) {
    const double p = j[o].get<double>();
    if (hidden(o)) continue;
    if (exact) {
      out << fmt::format("  {:<14} {:.6f}%  {}\n", o, 100 * p, bar(p, 30));
      continue;
    }
    const auto& ci = j["ci95"][o];
    out << fmt::format("  {:<14} {}  [{} .. {}]  {}\n", o, pct(p), pct(ci[0].get<double>()),
                       pct(ci[1].get<double>()), bar(p, 30));
  }
  auto label = [&](const std::string& key, const std::string& metric) {
    if (j.contains("labels") && j["labels"].contains(metric))
      return key + " (" + j["labels"][metric].get<std::string>() + ")";
    return key;
  };
  auto unwritten = [&](const std::string& key) {
    if (!j.contains("unwritten")) return false;
    for (const auto& u : j["unwritten"])
      if (u == key) return true;
    return false;
  };
  // a probability no run wrote (a planet the map does not have) is left out of the text
  auto probability = [&](const std::string& key, const std::string& shown) {
    if (exact) {
      out << fmt::format("  {:<14} {:.6f}%\n", shown, 100 * j[key].get<double>());
      return;
    }
    const auto& ci = j["ci95"][key];
    out << fmt::format("  {:<14} {}  [{} .. {}]\n", shown, pct(j[key].get<double>()),
                       pct(ci[0].get<double>()), pct(ci[1].get<double>()));
  };
  for (const auto& [key, metric] : def.probabilities)
    if (!unwritten(key) && !hidden(key)) probability(key, label(key, metric));
  // P(metric | given): only when the condition held in some runs and not in all of them
  for (const auto& c : def.conditional) {
    if (!j.contains(c.key)) continue;
    bool always = false;  // the condition held in every run: the line would repeat another
    for (const auto& [key, metric] : def.probabilities)
      if (metric == c.given && j[key].get<double>() > 1 - 1e-12) always = true;
    if (!always) probability(c.key, label(c.key, c.metric));
  }
  for (const auto& [key, metric] : def.means) {
    out << fmt::format("  {:<14} {:.4f}", key, j[key].get<double>());
    if (j["ci95"].contains(key))
      out << fmt::format("  [{:.4f} .. {:.4f}]", j["ci95"][key][0].get<double>(),
                         j["ci95"][key][1].get<double>());
    out << '\n';
  }
  for (const auto& [key, metric] : def.distributions) {
    if (!j.contains(key)) {  // means_only: the exact mode gives its mean
      out << "  " << key
          << ": its mean only in the exact mode (Monte Carlo gives the distribution)\n";
      continue;
    }
    out << "  " << key << ":\n";
    const auto& arr = j[key];
    for (std::size_t k = 0; k < arr.size(); ++k)
      out << fmt::format("    {:>3}  {}  {}\n", k, pct(arr[k].get<double>()),
                         bar(arr[k].get<double>(), 30));
  }
  if (!def.survivors.empty() && j.contains(def.survivors)) {
    out << "  " << def.survivors << " (probability of ending with k units):\n";
    for (const auto& [side, types] : j[def.survivors].items())
      for (const auto& [type, arr] : types.items()) {
        const bool named = j.contains("side_names") && j["side_names"].contains(side);
        out << fmt::format(
            "    {} {}:\n",
            named ? j["side_names"][side].get<std::string>() + " (" + side + ")" : side, type);
        for (std::size_t k = 0; k < arr.size(); ++k)
          out << fmt::format("      {:>2}  {}  {}\n", k, pct(arr[k].get<double>()),
                             bar(arr[k].get<double>(), 24));
      }
  }
  if (const std::string units = def.survivors + "_units";
      !def.survivors.empty() && j.contains(units)) {
    out << "  " << units << " (probability of ending with k units, all types):\n";
    for (const auto& [side, arr] : j[units].items()) {
      out << "    " << side << ":\n";
      for (std::size_t k = 0; k < arr.size(); ++k)
        out << fmt::format("      {:>2}  {}  {}\n", k, pct(arr[k].get<double>()),
                           bar(arr[k].get<double>(), 24));
    }
  }
  if (const std::string combos = def.survivors + "_combinations";
      !def.survivors.empty() && j.contains(combos)) {
    out << "  " << combos << " (the most likely first):\n";
    for (const auto& [side, list] : j[combos].items()) {
      out << "    " << side << ":\n";
      for (const auto& c : list)
        out << fmt::format("      {}  {}\n", pct(c["p"].get<double>()),
                           c["key"].get<std::string>());
    }
  }
  return out.str();
}

}  // namespace rb
