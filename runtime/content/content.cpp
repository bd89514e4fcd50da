#include "content/content.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include <spdlog/spdlog.h>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "content/keys.hpp"
#include "content/toml_read.hpp"

namespace rb {

const AttributeDef* Ruleset::attribute(std::string_view name) const {
  for (const auto& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}
int Ruleset::die(std::string_view name) const {
  for (std::size_t i = 0; i < dice.size(); ++i)
    if (sym_name(dice[i].name) == name) return static_cast<int>(i);
  return -1;
}
bool Ruleset::has_kind(std::string_view k) const {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}
bool Ruleset::has_scope(std::string_view s) const {
  return std::find(scopes.begin(), scopes.end(), s) != scopes.end();
}
const DecisionDef* Ruleset::decision(std::string_view name) const {
  for (const auto& d : decisions)
    if (d.name == name) return &d;
  return nullptr;
}

std::optional<PackVersion> parse_pack_version(std::string_view text) {
  PackVersion v;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    long long n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 9)
      n = n * 10 + (text[i++] - '0');
    if (i == start || (i < text.size() && text[i] >= '0' && text[i] <= '9')) return std::nullopt;
    v.push_back(n);
    if (i == text.size()) return v;
    if (text[i++] != '.' || v.size() >= 8) return std::nullopt;
  }
}

int compare_versions(const PackVersion& a, const PackVersion& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const long long x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool PackRequirement::fits(const PackVersion& v) const {
  for (const VersionCondition& c : conditions) {
    const int k = compare_versions(v, c.version);
    const bool ok = c.op == ">="   ? k >= 0
                    : c.op == ">"  ? k > 0
                    : c.op == "<=" ? k <= 0
                    : c.op == "<"  ? k < 0
                                   : k == 0;
    if (!ok) return false;
  }
  return true;
}

std::optional<PackRequirement> parse_pack_requirement(std::string_view text, std::string& why) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  PackRequirement r;
  r.text = std::string(text);
  std::string_view rest = trim(text);
  std::size_t end = 0;
  while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) ||
                               rest[end] == '-' || rest[end] == '_'))
    ++end;
  r.id = std::string(rest.substr(0, end));
  if (r.id.empty()) {
    why = "it does not start with a pack id";
    return std::nullopt;
  }
  rest = trim(rest.substr(end));
  while (!rest.empty()) {
    VersionCondition c;
    for (const char* op : {">=", "<=", "==", ">", "<", "="})
      if (rest.starts_with(op)) {
        c.op = std::string(op) == "==" ? "=" : op;
        rest.remove_prefix(std::string_view(op).size());
        break;
      }
    if (c.op.empty()) {
      why = "'" + std::string(rest) + "' is not a condition on the version";
      return std::nullopt;
    }
    rest = trim(rest);
    std::size_t comma = rest.find(',');
    const std::string_view number = trim(rest.substr(0, comma));
    auto v = parse_pack_version(number);
    if (!v) {
      why = "'" + std::string(number) + "' is not a version (numbers separated by dots)";
      return std::nullopt;
    }
    c.version = *v;
    c.text = c.op + " " + std::string(number);
    r.conditions.push_back(std::move(c));
    rest = comma == std::string_view::npos ? std::string_view() : trim(rest.substr(comma + 1));
    if (comma != std::string_view::npos && rest.empty()) {
      why = "nothing follows its last ','";
      return std::nullopt;
    }
  }
  return r;
}

std::string Ruleset::scenario_list(std::string_view kind) const {
  for (const auto& [k, key] : scenario_lists)
    if (k == kind) return key;
  return "";
}

const PackInfo* Content::pack(std::string_view id) const {
  for (const auto& p : packs)
    if (p.id == id) return &p;
  return nullptr;
}

int Content::find_record(std::string_view ref, std::string_view kind) const {
  if (ref.find(':') != std::string_view::npos) {
    auto it = record_index.find(std::string(ref));
    return it == record_index.end() || records[static_cast<std::size_t>(it->second)].removed
               ? -1
               : it->second;
  }
  std::string_view k = kind, n = ref;
  if (auto slash = ref.find('/'); slash != std::string_view::npos) {
    k = ref.substr(0, slash);
    n = ref.substr(slash + 1);
  }
  // by interned names: a name never interned names no record
  const std::optional<Sym> name = find_sym(n);
  const std::optional<Sym> kind_sym = k.empty() ? std::optional<Sym>(kNoSym) : find_sym(k);
  if (!name || !kind_sym) return -1;
  const auto it = by_name.find(*name);
  if (it == by_name.end()) return -1;
  int found = -1;
  for (const int i : it->second) {
    const Record& r = records[static_cast<std::size_t>(i)];
    if (r.removed || (!k.empty() && r.kind != *kind_sym)) continue;
    if (found >= 0)
      throw ContentError("", 0,
                         "the short name '" + std::string(ref) + "' is ambiguous: it names both '" +
                             records[static_cast<std::size_t>(found)].id + "' and '" + r.id +
                             "'; write the full id");
    found = i;
  }
  return found;
}

int Content::require_record(std::string_view ref, std::string_view kind, const std::string& file,
                            int line) const {
  int r;
  try {
    r = find_record(ref, kind);
  } catch (const ContentError& e) {
    throw ContentError(file, line, e.what());
  }
  if (r >= 0) return r;
  std::vector<std::string> ids;
  for (const auto& rec : records)
    if (!rec.removed && (kind.empty() || sym_name(rec.kind) == kind)) {
      // suggest in the form the reference was written: full id, kind/name or name
      if (ref.find(':') != std::string_view::npos)
        ids.push_back(rec.id);
      else if (ref.find('/') != std::string_view::npos)
        ids.push_back(std::string(sym_name(rec.kind)) + "/" + std::string(sym_name(rec.name)));
      else
        ids.emplace_back(sym_name(rec.name));
    }
  std::string what = kind.empty() ? "record" : std::string(kind);
  const std::string elsewhere = pack_declaring(*this, ref, kind);
  throw ContentError(
      file, line,
      "unknown " + what + " '" + std::string(ref) + "'" +
          (elsewhere.empty() ? did_you_mean(ref, ids)
                             : "; it is in the pack '" + elsewhere +
                                   "', which is not loaded (a pack that uses it lists it in "
                                   "depends or optional_depends)"));
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// ---------------------------------------------------------------- ruleset.toml

AttrType parse_attr_type(const TomlFile& f, const toml::node& n, const std::string& type) {
  if (type == "int") return AttrType::integer;
  if (type == "bool") return AttrType::boolean;
  if (type == "symbol") return AttrType::symbol;
  if (type == "counts") return AttrType::counts;
  f.fail(n, "attribute type '" + type + "' is not one of: int, bool, symbol, counts");
}

std::vector<std::pair<std::string, std::string>> string_pairs(const TomlFile& f,
                                                              const toml::table& t,
                                                              std::string_view key) {
  std::vector<std::pair<std::string, std::string>> out;
  if (const toml::table* m = f.table(t, key))
    for (auto&& [k, v] : *m) {
      if (!v.is_string())
        f.fail(v, "'" + std::string(key) + "." + std::string(k.str()) + "' must be a string");
      out.emplace_back(std::string(k.str()), std::string(v.as_string()->get()));
    }
  return out;
}

Ruleset load_ruleset(const fs::path& dir) {
  const fs::path file = dir / "ruleset.toml";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw ContentError(file.string(), 0, "no ruleset here (expected a ruleset.toml)");
  require_inside(dir, file, "ruleset");
  TomlFile f(file.string());
  const toml::table& t = f.root();
  f.expect_keys(t, {"id",         "name",       "base_pack",     "kinds",   "unit_kind",
                    "scopes",     "attributes", "dice",          "windows", "decisions",
                    "procedures", "setup",      "policies",      "report",  "scenario_lists",
                    "purposes",   "roles",      "round_windows", "counts",  "interchangeable"},
                "ruleset.toml");
  Ruleset r;
  r.dir = dir;
  r.id = *f.string(t, "id", true);
  r.name = f.string(t, "name").value_or(r.id);
  r.base_pack = f.string(t, "base_pack").value_or("");
  r.base_pack_line = f.line_of(t, "base_pack");
  r.kinds = f.strings(t, "kinds");
  if (auto k = f.string(t, "unit_kind")) {
    if (std::find(r.kinds.begin(), r.kinds.end(), *k) == r.kinds.end())
      f.fail(*t.get("unit_kind"), "unit_kind '" + *k + "' is not one of the declared kinds");
    r.unit_kind = *k;
  }
  if (std::find(r.kinds.begin(), r.kinds.end(), "player") == r.kinds.end())
    r.kinds.insert(r.kinds.begin(), "player");
  r.scopes = f.strings(t, "scopes");
  r.interchangeable = f.strings(t, "interchangeable");
  for (const std::string& k : r.interchangeable)
    if (std::find(r.kinds.begin(), r.kinds.end(), k) == r.kinds.end())
      f.fail(*t.get("interchangeable"),
             "interchangeable names '" + k + "', which is not one of the declared kinds");
  r.purposes = f.strings(t, "purposes");
  r.roles = f.strings(t, "roles");
  if (const toml::table* attrs = f.table(t, "attributes")) {
    for (auto&& [k, v] : *attrs) {
      AttributeDef a;
      a.name = std::string(k.str());
      if (v.is_string()) {
        a.type = parse_attr_type(f, v, std::string(v.as_string()->get()));
      } else if (v.is_table()) {
        const toml::table& at = *v.as_table();
        f.expect_keys(at, {"type", "doc", "min", "max", "values"}, "attribute '" + a.name + "'");
        a.type = parse_attr_type(f, v, f.string(at, "type", true).value());
        a.doc = f.string(at, "doc").value_or("");
        if (a.type != AttrType::integer && a.type != AttrType::counts &&
            (at.contains("min") || at.contains("max")))
          f.fail(v,
                 "attribute '" + a.name + "': 'min' and 'max' are for int and counts attributes");
        a.min = f.integer(at, "min").value_or(a.min);
        a.max = f.integer(at, "max").value_or(a.max);
        constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(),
                               hi = std::numeric_limits<std::int32_t>::max();
        if (a.min < lo || a.max > hi || a.min > a.max)
          f.fail(v, "attribute '" + a.name + "': min and max must be 32-bit integers, min <= max");
        if (at.contains("values") && a.type != AttrType::symbol)
          f.fail(v, "attribute '" + a.name + "': 'values' is for symbol attributes");
        a.values = f.strings(at, "values");
      } else {
        f.fail(v, "attribute '" + a.name +
                      "' must be a type name (\"int\", \"bool\", \"symbol\") or a table");
      }
      a.slot = static_cast<int>(r.attributes.size());
      if (a.slot >= kMaxAttributes)
        f.fail(v, "too many attributes (at most " + std::to_string(kMaxAttributes) + ")");
      r.attributes.push_back(std::move(a));
    }
  }
  if (const toml::table* dice = f.table(t, "dice")) {
    for (auto&& [k, v] : *dice) {
      if (!v.is_table()) f.fail(v, "dice." + std::string(k.str()) + " must be a table");
      const toml::table& dt = *v.as_table();
      const std::string where = "[dice." + std::string(k.str()) + "]";
      f.expect_keys(dt, {"sides", "labels", "faces"}, where);
      DieType d;
      d.name = sym(k.str());
      auto faces = f.strings(dt, "faces");
      if (!faces.empty()) {
        for (const auto& face : faces) d.faces.push_back(sym(face)), d.labels.push_back(face);
        d.sides = static_cast<int>(faces.size());
        if (dt.get("sides") && *f.integer(dt, "sides") != d.sides)
          f.fail(*dt.get("sides"), where + ": 'sides' is " +
                                       std::to_string(*f.integer(dt, "sides")) + " but " +
                                       std::to_string(d.sides) + " faces are listed");
      } else {
        auto sides = f.integer(dt, "sides", true);
        if (*sides < 2 || *sides > 1000)
          f.fail(*dt.get("sides"), where + ": 'sides' must be between 2 and 1000");
        d.sides = static_cast<int>(*sides);
        for (int i = 1; i <= d.sides; ++i)
          d.values.push_back(i), d.labels.push_back(std::to_string(i));
        auto labels = f.strings(dt, "labels");
        if (!labels.empty()) {
          if (static_cast<int>(labels.size()) != d.sides)
            f.fail(*dt.get("labels"), where + ": 'labels' must list one label for each of the " +
                                          std::to_string(d.sides) + " sides");
          d.labels = labels;
        }
      }
      r.dice.push_back(std::move(d));
    }
  }
  for (auto& [name, doc] : string_pairs(f, t, "windows")) r.windows.push_back({name, doc});
  for (auto& [name, doc] : string_pairs(f, t, "decisions")) r.decisions.push_back({name, doc});
  for (auto& [round, first] : string_pairs(f, t, "round_windows")) {
    std::vector<std::string> names;
    for (const auto& w : r.windows) names.push_back(w.name);
    for (const std::string& w : {round, first})
      if (std::find(names.begin(), names.end(), w) == names.end())
        f.fail(f.line_of(*f.table(t, "round_windows"), round),
               "round_windows names '" + w + "', which is not a declared window" +
                   did_you_mean(w, names));
    r.round_windows[round] = first;
  }
  // a file the ruleset names: inside its folder, links followed
  auto ruleset_file = [&](const std::string& path, int line) {
    if (std::string why = outside_reason(dir, dir / path, "ruleset"); !why.empty())
      f.fail(line, why);
    return dir / path;
  };
  for (auto& [name, path] : string_pairs(f, t, "procedures")) {
    const int line = f.line_of(*f.table(t, "procedures"), name);
    std::error_code ec;
    if (!fs::exists(dir / path, ec)) f.fail(line, "procedure file '" + path + "' does not exist");
    r.procedures.emplace_back(name, ruleset_file(path, line));
  }
  for (auto& [kind, key] : string_pairs(f, t, "scenario_lists")) {
    if (!r.has_kind(kind))
      f.fail(f.line_of(*f.table(t, "scenario_lists"), kind), "scenario_lists names the kind '" +
                                                                 kind + "', which is not in kinds" +
                                                                 did_you_mean(kind, r.kinds));
    r.scenario_lists.emplace_back(kind, key);
  }
  if (const toml::node* counts = t.get("counts")) {
    if (!counts->is_array()) f.fail(*counts, "'counts' must be an array of tables ([[counts]])");
    for (const toml::node& n : *counts->as_array()) {
      if (!n.is_table()) f.fail(n, "each [[counts]] entry must be a table");
      const toml::table& ct = *n.as_table();
      f.expect_keys(ct, {"label", "kind", "attribute", "value"}, "[[counts]]");
      CountDef c;
      c.label = *f.string(ct, "label", true);
      c.kind = *f.string(ct, "kind", true);
      if (!r.has_kind(c.kind))
        f.fail(*ct.get("kind"), "[[counts]] names the kind '" + c.kind +
                                    "', which is not in kinds" + did_you_mean(c.kind, r.kinds));
      c.attribute = f.string(ct, "attribute").value_or("");
      c.value = f.string(ct, "value").value_or("");
      if (c.attribute.empty() != c.value.empty())
        f.fail(ct, "[[counts]] gives an attribute and its value together, or neither");
      if (!c.attribute.empty()) {
        const AttributeDef* a = r.attribute(c.attribute);
        if (!a || a->type != AttrType::symbol)
          f.fail(*ct.get("attribute"),
                 "[[counts]]: '" + c.attribute + "' is not a declared symbol attribute");
      }
      r.counts.push_back(std::move(c));
    }
  }
  if (auto s = f.string(t, "setup")) r.setup = ruleset_file(*s, f.line_of(t, "setup"));
  if (auto p = f.string(t, "policies")) r.policies = ruleset_file(*p, f.line_of(t, "policies"));
  if (const toml::table* reports = f.table(t, "report")) {
    for (auto&& [k, v] : *reports) {
      if (!v.is_table()) f.fail(v, "report." + std::string(k.str()) + " must be a table");
      const toml::table& rt = *v.as_table();
      f.expect_keys(
          rt,
          {"outcomes", "means", "probabilities", "conditional", "distributions", "survivors",
           "survivor_kind", "survivor_location", "sides", "ci95", "wins", "draws", "only_when_any"},
          "[report." + std::string(k.str()) + "]");
      ReportDef rep;
      rep.outcomes = f.strings(rt, "outcomes");
      rep.means = string_pairs(f, rt, "means");
      rep.probabilities = string_pairs(f, rt, "probabilities");
      // conditional = { key = { metric = "...", given = "..." } }
      if (const toml::table* c = f.table(rt, "conditional"))
        for (auto&& [key, v] : *c) {
          const std::string where =
              "report." + std::string(k.str()) + ".conditional." + std::string(key.str());
          if (!v.is_table())
            f.fail(v, where + " must be a table: { metric = \"...\", given = \"...\" }");
          const toml::table& ct = *v.as_table();
          f.expect_keys(ct, {"metric", "given"}, where);
          auto metric = f.string(ct, "metric"), given = f.string(ct, "given");
          if (!metric || !given) f.fail(v, where + " needs both metric and given (0/1 metrics)");
          rep.conditional.push_back({std::string(key.str()), *metric, *given});
        }
      rep.distributions = string_pairs(f, rt, "distributions");
      rep.survivors = f.string(rt, "survivors").value_or("");
      rep.survivor_kind = f.string(rt, "survivor_kind").value_or("unit");
      rep.survivor_location = f.string(rt, "survivor_location").value_or("");
      rep.sides = f.strings(rt, "sides");
      rep.ci95 = f.strings(rt, "ci95");
      // best play's objectives: wins = { SIDE = "OUTCOME" }, draws = ["OUTCOME", ...]
      const std::string where = "report." + std::string(k.str());
      // (an outcome, or a key of `probabilities`: a 0/1 metric, for a report without outcomes)
      auto outcome_named = [&](const std::string& o) {
        if (std::find(rep.outcomes.begin(), rep.outcomes.end(), o) != rep.outcomes.end())
          return true;
        for (const auto& [key, metric] : rep.probabilities)
          if (key == o) return true;
        return false;
      };
      rep.wins = string_pairs(f, rt, "wins");
      for (const auto& [side, outcome] : rep.wins) {
        const toml::node& at = *rt.get("wins")->as_table()->get(side);
        if (std::find(rep.sides.begin(), rep.sides.end(), side) == rep.sides.end())
          f.fail(at, where + ".wins: '" + side + "' is not one of its sides");
        if (!outcome_named(outcome))
          f.fail(at, where + ".wins." + side + ": '" + outcome +
                         "' is not one of its outcomes or keys of its probabilities");
      }
      rep.draws = f.strings(rt, "draws");
      for (const std::string& o : rep.draws)
        if (!outcome_named(o))
          f.fail(*rt.get("draws"), where + ".draws: '" + o +
                                       "' is not one of its outcomes or keys of its probabilities");
      // only_when_any = ["ongoing"]: outcomes (or probabilities' keys) shown only when not 0
      rep.only_when_any = f.strings(rt, "only_when_any");
      for (const std::string& o : rep.only_when_any)
        if (!outcome_named(o) && std::none_of(rep.probabilities.begin(), rep.probabilities.end(),
                                              [&](const auto& kv) { return kv.first == o; }))
          f.fail(*rt.get("only_when_any"),
                 where + ".only_when_any: '" + o + "' is not one of its outcomes or probabilities");
      r.reports.emplace(std::string(k.str()), std::move(rep));
    }
  }
  return r;
}

// ---------------------------------------------------------------- pack.toml

std::vector<fs::path> list_files(const TomlFile& f, const toml::table& t, std::string_view key,
                                 const fs::path& dir, std::string_view ext) {
  std::vector<fs::path> out;
  for (const std::string& entry : f.strings(t, key)) {
    const fs::path p = dir / entry;
    if (entry.find("..") != std::string::npos || fs::path(entry).is_absolute())
      f.fail(f.line_of(t, key), "'" + entry + "' must be a path inside the pack");
    if (std::string why = outside_reason(dir, p, "pack"); !why.empty())
      f.fail(f.line_of(t, key), why);
    std::error_code ec;  // (a name the file system refuses: "does not exist" below)
    if (fs::is_directory(p, ec)) {
      // sorted; a file in it that links out of the pack is an error naming the link
      const auto found = files_inside(dir, p, ext, "pack", Walk::recursive);
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      out.push_back(p);
    } else {
      f.fail(f.line_of(t, key),
             "'" + entry + "' listed in '" + std::string(key) + "' does not exist in the pack");
    }
  }
  return out;
}

PackInfo read_pack(const fs::path& dir) {
  const fs::path file = dir / "pack.toml";
  std::error_code ec;  // (a name the file system refuses, too long: not a pack either)
  if (!fs::is_regular_file(file, ec))
    throw ContentError(file.string(), 0, "not a pack (expected a pack.toml)");
  require_inside(dir, file, "pack");
  TomlFile f(file.string());
  const toml::table& t = f.root();
  f.expect_keys(t, key_names(pack_keys()), "pack.toml");  // content/keys.cpp
  PackInfo p;
  p.dir = dir;
  p.id = *f.string(t, "id", true);
  for (char c : p.id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'))
      f.fail(*t.get("id"), "pack id '" + p.id + "' may hold only letters, digits, '-' and '_'");
  p.name = f.string(t, "name").value_or(p.id);
  p.version = f.string(t, "version").value_or("0");
  p.version_line = f.line_of(t, "version");
  if (!parse_pack_version(p.version))
    f.fail(p.version_line, "version '" + p.version +
                               "' is not a version: numbers separated by dots, e.g. \"1.0.0\"");
  p.ruleset = *f.string(t, "ruleset", true);
  // "base" or "base >= 0.2" (a condition on the version): the id goes in the list, the
  // whole entry in `requirements`
  auto packs = [&](std::string_view key, std::vector<std::string>& ids, int& line) {
    line = f.line_of(t, key);
    for (const std::string& entry : f.strings(t, key)) {
      std::string why;
      auto r = parse_pack_requirement(entry, why);
      if (!r) {
        // the example names the pack the entry names (its first word), else a made-up one
        std::string other = entry.substr(0, entry.find_first_of(" <>=!,"));
        if (other.empty()) other = "other-pack";
        f.fail(line, std::string(key) + " entry '" + entry + "': " + why +
                         "; expected a pack id, or a pack id and conditions on its version such "
                         "as \"" +
                         other + " >= 0.2\" or \"" + other + " >= 0.2, < 1\" (>=, >, <=, <, =)");
      }
      if (r->id == p.id)
        f.fail(line, std::string(key) + " names the pack itself ('" + r->id + "')");
      if (p.requirements.count(r->id))
        f.fail(line,
               "pack '" + r->id + "' is named twice in depends, optional_depends and conflicts");
      ids.push_back(r->id);
      p.requirements.emplace(r->id, std::move(*r));
    }
  };
  packs("depends", p.depends, p.depends_line);
  packs("optional_depends", p.optional_depends, p.optional_depends_line);
  packs("conflicts", p.conflicts, p.conflicts_line);
  p.data = list_files(f, t, "data", dir, ".toml");
  p.scripts = list_files(f, t, "scripts", dir, ".lua");
  if (auto tests = f.string(t, "tests")) {
    p.tests = dir / *tests;
    if (std::string why = outside_reason(dir, p.tests, "pack"); !why.empty())
      f.fail(f.line_of(t, "tests"), why);
  } else if (fs::is_directory(dir / "tests"))
    p.tests = dir / "tests";
  p.test_only = f.boolean(t, "test_only").value_or(false);
  p.default_on = f.boolean(t, "default_on").value_or(false);
  if (p.test_only && p.default_on)
    f.fail(f.line_of(t, "default_on"),
           "default_on: a test_only pack is not offered on the page, so it cannot start chosen");
  return p;
}

// ---------------------------------------------------------------- records

struct PendingRef {
  std::string ref, kind, file;
  int line;
  bool hook;          // the source of c.hooks[index], else of c.modifiers[index]
  std::size_t index;  // an index, not a pointer: those vectors grow while loading
};

class PackLoader {
 public:
  PackLoader(Content& c) : c_(c) {}

  void load_data(const PackInfo& pack, int pack_order, const fs::path& file) {
    TomlFile f(file.string());
    std::vector<std::string> allowed = c_.ruleset.kinds;
    for (const char* k : {"override", "remove", "modifier", "hook"}) allowed.emplace_back(k);
    f.expect_keys(f.root(), allowed,
                  file.filename().string() +
                      " (top-level keys are record kinds or override, remove, modifier, hook)");
    for (auto&& [k, v] : f.root()) {
      const std::string key(k.str());
      if (key == "override") {
        if (!v.is_table()) f.fail(v, "'override' must be a table of record ids");
        for (auto&& [id, fields] : *v.as_table()) {
          if (!fields.is_table())
            f.fail(fields, "override of '" + std::string(id.str()) + "' must be a table");
          const int r = c_.require_record(id.str(), {}, f.path(), TomlFile::line(fields));
          Record& rec = c_.records[static_cast<std::size_t>(r)];
          read_fields(f, *fields.as_table(), rec, "override of '" + rec.id + "'");
          rec.changed_by = pack.id;
        }
      } else if (key == "remove") {
        for (const std::string& id : f.strings(f.root(), "remove")) {
          const int r = c_.require_record(id, {}, f.path(), f.line_of(f.root(), "remove"));
          c_.records[static_cast<std::size_t>(r)].removed = true;
          c_.records[static_cast<std::size_t>(r)].changed_by = pack.id;
        }
      } else if (key == "modifier") {
        for_each_table(f, v, "modifier", [&](const toml::table& t) { read_modifier(f, pack, t); });
      } else if (key == "hook") {
        for_each_table(f, v, "hook",
                       [&](const toml::table& t) { read_hook(f, pack, pack_order, t); });
      } else {
        if (!v.is_table())
          f.fail(v, "'" + key + "' must be a table of records ([" + key + ".name])");
        for (auto&& [name, fields] : *v.as_table()) {
          if (!fields.is_table())
            f.fail(fields, "record '" + key + "." + std::string(name.str()) + "' must be a table");
          Record rec;
          rec.kind = sym(key);
          rec.name = sym(name.str());
          rec.pack = rec.changed_by = pack.id;
          rec.id = pack.id + ":" + key + "/" + std::string(name.str());
          rec.file = f.path();
          rec.line = TomlFile::line(fields);
          if (c_.record_index.count(rec.id))
            f.fail(fields, "record '" + rec.id + "' is defined twice in pack '" + pack.id + "'");
          read_fields(f, *fields.as_table(), rec, "[" + key + "." + std::string(name.str()) + "]");
          c_.record_index.emplace(rec.id, static_cast<int>(c_.records.size()));
          c_.by_name[rec.name].push_back(static_cast<int>(c_.records.size()));
          c_.records.push_back(std::move(rec));
        }
      }
    }
  }

  void resolve() {
    // a modifier's units: records of the ruleset's unit kind, matched at run time by the unit's
    // type (the record's short name) or by the record it was made from or upgraded to
    for (const PendingRef& u : pending_units_) {
      int r = -1;
      try {
        r = c_.find_record(u.ref, u.kind);
      } catch (const ContentError& e) {
        throw ContentError(u.file, u.line, e.what());
      }
      if (r < 0) {
        int other = -1;
        try {
          other = c_.find_record(u.ref.substr(u.ref.find('/') + 1));
        } catch (const ContentError&) {  // the same short name in two kinds: no hint
        }
        if (other >= 0 && u.ref.find(':') == std::string::npos)
          throw ContentError(
              u.file, u.line,
              "'" + u.ref + "' in the modifier's units is not a " + u.kind + ": it is " +
                  std::string(sym_name(c_.records[static_cast<std::size_t>(other)].kind)) + "/" +
                  std::string(sym_name(c_.records[static_cast<std::size_t>(other)].name)));
        r = c_.require_record(u.ref, u.kind, u.file, u.line);  // throws, naming the nearest
      }
      // by its short name (the type of the units made from it) and by the record itself (a
      // faction's unit keeps its generic type, an upgraded unit its type: they fit by record)
      c_.modifiers[u.index].units.push_back(c_.records[static_cast<std::size_t>(r)].name);
      c_.modifiers[u.index].unit_records.push_back(r);
    }
    // a counts attribute's keys are unit types: any unit record of that short name will do (two
    // packs may both have a 'cruiser': not ambiguous here)
    for (const PendingRef& p : pending_counted_) {
      const bool known = std::any_of(c_.records.begin(), c_.records.end(), [&](const Record& r) {
        return !r.removed && r.name == sym(p.ref) && sym_name(r.kind) == p.kind;
      });
      if (!known) c_.require_record(p.ref, p.kind, p.file, p.line);  // throws, naming the nearest
    }
    for (const PendingRef& p : pending_present_)
      c_.modifiers[p.index].present = c_.require_record(p.ref, p.kind, p.file, p.line);
    for (const PendingRef& p : pending_hits_to_)
      c_.modifiers[p.index].hits_to.push_back(
          c_.records[static_cast<std::size_t>(c_.require_record(p.ref, p.kind, p.file, p.line))]
              .name);
    for (const PendingRef& p : pending_)
      (p.hook ? c_.hooks[p.index].source : c_.modifiers[p.index].source) =
          c_.require_record(p.ref, p.kind, p.file, p.line);
    for (const auto& [effect, ref, file, line] : pending_activations_) {
      int found = -1;
      for (std::size_t i = 0; i < c_.modifiers.size(); ++i) {
        const std::string& id = c_.modifiers[i].id;
        if (id == ref ||
            (id.size() > ref.size() && id.compare(id.size() - ref.size(), ref.size(), ref) == 0 &&
             id[id.size() - ref.size() - 1] == ':'))
          found = static_cast<int>(i);
      }
      if (found < 0) {
        std::vector<std::string> ids;
        for (const auto& m : c_.modifiers) ids.push_back(m.id);
        throw ContentError(
            file, line, "effect activates unknown modifier '" + ref + "'" + did_you_mean(ref, ids));
      }
      c_.effects[static_cast<std::size_t>(effect)].activate = found;
    }
  }

 private:
  template <class F>
  void for_each_table(const TomlFile& f, const toml::node& v, const std::string& what, F&& fn) {
    if (!v.is_array()) f.fail(v, "'" + what + "' must be an array of tables ([[" + what + "]])");
    for (const toml::node& e : *v.as_array()) {
      if (!e.is_table()) f.fail(e, "each [[" + what + "]] must be a table");
      fn(*e.as_table());
    }
  }

  // The value of an attribute as content writes it: of the attribute's type, an int within its
  // range, a symbol among its declared values.
  static std::int32_t attribute_value(const TomlFile& f, const toml::node& v, const AttributeDef& a,
                                      const std::string& what) {
    switch (a.type) {
      case AttrType::integer: {
        if (!v.is_integer()) f.fail(v, what + " must be an integer, not " + toml_type_name(v));
        const std::int64_t n = v.as_integer()->get();
        if (n < a.min || n > a.max)
          f.fail(v, what + " is " + std::to_string(n) + ", out of range: '" + a.name + "' takes " +
                        std::to_string(a.min) + " to " + std::to_string(a.max) +
                        " (min/max in ruleset.toml)");
        return static_cast<std::int32_t>(n);
      }
      case AttrType::boolean:
        if (!v.is_boolean()) f.fail(v, what + " must be true or false, not " + toml_type_name(v));
        return v.as_boolean()->get() ? 1 : 0;
      case AttrType::symbol: {
        if (!v.is_string()) f.fail(v, what + " must be a string, not " + toml_type_name(v));
        const std::string name(v.as_string()->get());
        if (!a.values.empty() &&
            std::find(a.values.begin(), a.values.end(), name) == a.values.end()) {
          std::string list;
          for (const auto& x : a.values) list += (list.empty() ? "" : ", ") + x;
          f.fail(v, what + ": '" + name + "' is not a value of '" + a.name + "'" +
                        did_you_mean(name, a.values) + "; expected one of: " + list);
        }
        return static_cast<std::int32_t>(sym(name));
      }
      case AttrType::counts: {
        if (!v.is_table())
          f.fail(v, what +
                        " must be a table of unit types and numbers ({ carrier = 2, "
                        "infantry = 3 }), not " +
                        toml_type_name(v));
        std::string text;
        for (auto&& [k, n] : *v.as_table()) {  // toml++ keeps keys sorted
          const std::string unit(k.str());
          if (!n.is_integer() || n.as_integer()->get() < a.min || n.as_integer()->get() > a.max)
            f.fail(n, what + ": " + unit + " must be a whole number from " + std::to_string(a.min) +
                          " to " + std::to_string(a.max) + ", not " +
                          (n.is_integer() ? std::to_string(n.as_integer()->get())
                                          : toml_type_name(n)));
          text += (text.empty() ? "" : " ") + unit + "=" + std::to_string(n.as_integer()->get());
        }
        return static_cast<std::int32_t>(sym(text));
      }
    }
    return 0;
  }

  void read_fields(const TomlFile& f, const toml::table& t, Record& rec, const std::string& where) {
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key == "name" || key == "text" || key == "description") {
        if (!v.is_string()) f.fail(v, "'" + key + "' in " + where + " must be a string");
        rec.text[key] = std::string(v.as_string()->get());
        continue;
      }
      const AttributeDef* a = c_.ruleset.attribute(key);
      if (!a) {
        std::vector<std::string> names{"name", "text", "description"};
        for (const auto& at : c_.ruleset.attributes) names.push_back(at.name);
        f.fail(v, "unknown key '" + key + "' in " + where + did_you_mean(key, names) +
                      " (records take the attributes declared in ruleset.toml)");
      }
      const auto slot = static_cast<std::size_t>(a->slot);
      rec.attr[slot] = attribute_value(f, v, *a, "'" + key + "' in " + where);
      rec.has.set(slot);
      if (a->type == AttrType::counts)  // its keys name unit records (checked once all are read)
        for (auto&& [unit, n] : *v.as_table())
          pending_counted_.push_back({std::string(unit.str()), c_.ruleset.unit_kind, f.path(),
                                      TomlFile::line(n), false, 0});
    }
  }

  void read_modifier(const TomlFile& f, const PackInfo& pack, const toml::table& t) {
    f.expect_keys(t, key_names(modifier_keys()), "[[modifier]]");
    ModifierDef m;
    m.id = pack.id + ":" + *f.string(t, "id", true);
    m.pack = pack.id;
    m.file = f.path();
    m.line = TomlFile::line(t);
    m.activated = f.boolean(t, "activated").value_or(false);
    if (auto n = f.string(t, "name")) {
      m.name = *n;
    } else if (auto text = f.string(t, "text"); text && text->find(':') != std::string::npos) {
      m.name = text->substr(0, text->find(':'));
    } else {
      m.name = *f.string(t, "id", true);  // "fragile" -> "Fragile"
      std::replace(m.name.begin(), m.name.end(), '_', ' ');
      if (!m.name.empty() && m.name[0] >= 'a' && m.name[0] <= 'z')
        m.name[0] = static_cast<char>(m.name[0] - 'a' + 'A');
    }
    const std::string where = "modifier '" + m.id + "'";
    if (auto p = f.string(t, "purpose")) {
      if (c_.ruleset.purposes.empty())
        f.fail(f.line_of(t, "purpose"), where + ": purpose '" + *p +
                                            "', but the ruleset declares no purposes "
                                            "(purposes = [...] in ruleset.toml)");
      if (std::find(c_.ruleset.purposes.begin(), c_.ruleset.purposes.end(), *p) ==
          c_.ruleset.purposes.end())
        f.fail(f.line_of(t, "purpose"),
               where + ": unknown purpose '" + *p + "'" + did_you_mean(*p, c_.ruleset.purposes) +
                   "; the ruleset's purposes: " + join(c_.ruleset.purposes));
      m.purpose = sym(*p);
    }
    if (const toml::node* units = t.get("units")) {
      f.strings(t, "units");  // a string or an array of strings
      auto pend = [&](const toml::node& u) {
        pending_units_.push_back({std::string(u.as_string()->get()), c_.ruleset.unit_kind, f.path(),
                                  TomlFile::line(u), false, c_.modifiers.size()});
      };
      if (units->is_string())
        pend(*units);
      else
        for (const toml::node& u : *units->as_array()) pend(u);
    }
    if (auto r = f.string(t, "role")) {
      if (std::find(c_.ruleset.roles.begin(), c_.ruleset.roles.end(), *r) == c_.ruleset.roles.end())
        f.fail(f.line_of(t, "role"),
               where + ": unknown role '" + *r + "'" + did_you_mean(*r, c_.ruleset.roles) +
                   (c_.ruleset.roles.empty()
                        ? std::string(" (the ruleset declares no roles: roles = [...] in "
                                      "ruleset.toml)")
                        : "; the ruleset's roles: " + join(c_.ruleset.roles)));
      m.role = sym(*r);
    }
    if (const toml::table* loc = f.table(t, "location"))
      for (auto&& [k, v] : *loc) {
        const AttributeDef* a = c_.ruleset.attribute(k.str());
        if (!a) {
          std::vector<std::string> names;
          for (const auto& at : c_.ruleset.attributes) names.push_back(at.name);
          f.fail(v, "unknown attribute '" + std::string(k.str()) + "' in modifier location" +
                        did_you_mean(k.str(), names));
        }
        m.location.emplace_back(
            a->slot,
            attribute_value(f, v, *a, "location." + std::string(k.str()) + " in " + where));
      }
    auto bounded = [&](std::string_view key, std::int64_t lo, std::int64_t hi) {
      const auto n = f.integer(t, key).value_or(0);
      if (n < lo || n > hi)
        f.fail(f.line_of(t, key), where + ": '" + std::string(key) + "' is " + std::to_string(n) +
                                      ", out of range: " + std::to_string(lo) + " to " +
                                      std::to_string(hi));
      return static_cast<std::int32_t>(n);
    };
    m.delta = bounded("delta", -kModifierDeltaMax, kModifierDeltaMax);
    m.dice = bounded("dice", 0, kModifierDiceMax);
    if (const toml::node* to = t.get("hits_to")) {
      f.strings(t, "hits_to");  // a string or an array of strings
      auto pend = [&](const toml::node& u) {
        pending_hits_to_.push_back({std::string(u.as_string()->get()), c_.ruleset.unit_kind,
                                    f.path(), TomlFile::line(u), false, c_.modifiers.size()});
      };
      if (to->is_string())
        pend(*to);
      else
        for (const toml::node& u : *to->as_array()) pend(u);
    }
    if (t.get("replaces_hooks")) {
      f.strings(t, "replaces_hooks");
      const toml::node* r = t.get("replaces_hooks");
      if (r->is_string())
        m.replaces_hooks.emplace_back(r->as_string()->get());
      else
        for (const toml::node& h : *r->as_array())
          m.replaces_hooks.emplace_back(h.as_string()->get());
    }
    m.sustain_cancels = bounded("sustain_cancels", 0, kModifierDiceMax);
    if (m.sustain_cancels == 1)
      f.fail(
          f.line_of(t, "sustain_cancels"),
          where + ": 'sustain_cancels' is 1, what Sustain Damage always cancels: give 2 or more");
    if (auto r = f.string(t, "repair")) {
      static const std::vector<std::string> repairs = {"after_hits", "start_of_round", "sustained"};
      if (*r == "after_hits")
        m.repair = ModifierDef::Repair::after_hits;
      else if (*r == "start_of_round")
        m.repair = ModifierDef::Repair::start_of_round;
      else if (*r == "sustained")
        m.repair = ModifierDef::Repair::sustained;
      else
        f.fail(f.line_of(t, "repair"), where + ": unknown repair '" + *r + "'" +
                                           did_you_mean(*r, repairs) +
                                           "; one of: after_hits, start_of_round, sustained");
    }
    if (auto counter = f.string(t, "pay")) m.pay = sym(*counter);
    m.cost = bounded("cost", 0, kModifierDiceMax);
    if ((m.pay != kNoSym) != (m.cost > 0))
      f.fail(f.line_of(t, m.pay != kNoSym ? "pay" : "cost"),
             where + ": 'pay' (a counter) and 'cost' (1 to " + std::to_string(kModifierDiceMax) +
                 ") go together: give both");
    if (m.pay != kNoSym && m.repair != ModifierDef::Repair::sustained)
      f.fail(f.line_of(t, "pay"),
             where + ": 'pay' is what a repair = \"sustained\" costs: give that repair too");
    if (auto flag = f.string(t, "sustained_flag")) m.sustained_flag = sym(*flag);
    if (auto counter = f.string(t, "spend")) m.spend = sym(*counter);
    m.raise = bounded("raise", 0, kModifierDiceMax);
    if ((m.spend != kNoSym) != (m.raise > 0))
      f.fail(f.line_of(t, m.spend != kNoSym ? "spend" : "raise"),
             where + ": 'spend' (a counter) and 'raise' (1 to " + std::to_string(kModifierDiceMax) +
                 ") go together: give both");
    if (m.delta == 0 && m.dice == 0 && !t.get("hits_to") && !m.round_effect())
      f.fail(t, "modifier '" + m.id +
                    "' changes nothing: give 'delta', 'dice', 'hits_to', 'sustain_cancels', "
                    "'repair', 'sustained_flag' or 'spend'");
    c_.modifiers.push_back(std::move(m));
    if (auto u = f.string(t, "present"))
      pending_present_.push_back({*u, c_.ruleset.unit_kind, f.path(), f.line_of(t, "present"),
                                  false, c_.modifiers.size() - 1});
    if (auto s = f.string(t, "source"))
      pending_.push_back(
          {*s, "", f.path(), f.line_of(t, "source"), false, c_.modifiers.size() - 1});
  }

  void read_hook(const TomlFile& f, const PackInfo& pack, int pack_order, const toml::table& t) {
    f.expect_keys(t, key_names(toml_hook_keys()), "[[hook]]");
    HookDef h;
    h.id = pack.id + ":" + *f.string(t, "id", true);
    h.pack = pack.id;
    h.file = f.path();
    h.line = TomlFile::line(t);
    h.pack_order = pack_order;
    h.registration = registration_++;
    const std::string window = *f.string(t, "window", true);
    h.window = -1;
    window_names_.push_back({window, f.path(), f.line_of(t, "window")});
    h.optional = f.boolean(t, "optional").value_or(false);
    h.discard = f.boolean(t, "discard").value_or(false);
    h.priority = static_cast<int>(f.integer(t, "priority").value_or(0));
    if (auto l = f.string(t, "limit")) {
      if (!c_.ruleset.has_scope(*l))
        f.fail(f.line_of(t, "limit"), "limit '" + *l + "' is not a scope of the ruleset" +
                                          did_you_mean(*l, c_.ruleset.scopes));
      h.limit = sym(*l);
    }
    h.use_key = sym("used:" + h.id);
    const toml::table* e = f.table(t, "effect");
    if (!e) f.fail(t, "a [[hook]] in TOML needs an 'effect' (or write the hook in Lua)");
    f.expect_keys(*e, key_names(hook_effect_keys()), "hook effect");
    EffectDef eff;
    if (auto u = f.string(*e, "until")) {
      if (!c_.ruleset.has_scope(*u))
        f.fail(f.line_of(*e, "until"),
               "'until' must be a scope of the ruleset" + did_you_mean(*u, c_.ruleset.scopes));
      eff.until = sym(*u);
    }
    if (auto c = f.string(*e, "counter"))
      eff.counter = sym(*c),
      eff.counter_delta = static_cast<std::int32_t>(f.integer(*e, "delta").value_or(1));
    h.effect = static_cast<int>(c_.effects.size());
    if (auto a = f.string(*e, "activate"))
      pending_activations_.push_back({h.effect, *a, f.path(), f.line_of(*e, "activate")});
    c_.effects.push_back(eff);
    if (auto s = f.string(t, "source")) h.source_name = *s;
    c_.hooks.push_back(std::move(h));
    if (!c_.hooks.back().source_name.empty())
      pending_.push_back({c_.hooks.back().source_name, "", f.path(), f.line_of(t, "source"), true,
                          c_.hooks.size() - 1});
  }

 public:
  struct WindowRef {
    std::string name, file;
    int line;
  };
  std::vector<WindowRef> window_names_;

 private:
  Content& c_;
  std::vector<PendingRef> pending_;
  std::vector<PendingRef> pending_units_;  // index: the modifier
  std::vector<PendingRef> pending_present_;
  std::vector<PendingRef> pending_counted_;  // the unit types a counts attribute names
  std::vector<PendingRef>
      pending_hits_to_;  // a modifier's hits_to unit records  // a modifier's `present` unit record
  std::vector<std::tuple<int, std::string, std::string, int>> pending_activations_;
  int registration_ = 0;
};

std::vector<std::string> pack_ids(const std::map<std::string, PackInfo>& available) {
  std::vector<std::string> ids;
  for (const auto& [id, _] : available) ids.push_back(id);
  return ids;
}

std::string searched(const LoadRequest& request) {
  std::string s = (request.root / "content").string();
  for (const auto& d : request.search) s += ", " + d.string();
  return s;
}

}  // namespace

bool looks_like_path(std::string_view p) {
  return p.find('/') != std::string_view::npos || p.find('\\') != std::string_view::npos ||
         p.starts_with('.');
}

fs::path pack_folder_of(const fs::path& path) {
  std::error_code ec;
  for (fs::path d = fs::absolute(path, ec).lexically_normal(); !d.empty(); d = d.parent_path()) {
    if (fs::is_regular_file(d / "pack.toml", ec)) return d;  // an error (a file's "folder"): no
    if (d == d.parent_path()) break;
  }
  return {};
}

bool is_pack_path(std::string_view p) {
  if (looks_like_path(p)) return true;
  std::error_code ec;
  return !p.empty() && fs::is_regular_file(fs::path(p) / "pack.toml", ec);
}

std::map<std::string, fs::path> discover_packs(const LoadRequest& request) {
  std::map<std::string, fs::path> found;
  std::vector<fs::path> dirs{request.root / "content"};
  dirs.insert(dirs.end(), request.search.begin(), request.search.end());
  for (const fs::path& d : dirs) {
    if (!fs::is_directory(d)) continue;
    std::vector<fs::path> subs;
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_directory() && fs::exists(e.path() / "pack.toml")) subs.push_back(e.path());
    if (fs::exists(d / "pack.toml")) subs.push_back(d);
    std::sort(subs.begin(), subs.end());
    for (const auto& s : subs) {
      require_inside(s, s / "pack.toml", "pack");
      TomlFile f((s / "pack.toml").string());
      auto id = f.string(f.root(), "id", true);
      if (auto it = found.find(*id);
          it != found.end() && fs::weakly_canonical(it->second) != fs::weakly_canonical(s))
        throw ContentError((s / "pack.toml").string(), 0,
                           "pack id '" + *id + "' is also used by " + it->second.string());
      found.emplace(*id, s);
    }
  }
  return found;
}

std::string pack_declaring(const Content& content, std::string_view ref, std::string_view kind) {
  if (content.root.empty()) return "";
  // "pack:kind/name", "kind/name" or "name" (of `kind`)
  std::string_view in_pack, k = kind, n = ref;
  if (auto colon = n.find(':'); colon != std::string_view::npos) {
    in_pack = n.substr(0, colon);
    n = n.substr(colon + 1);
  }
  if (auto slash = n.find('/'); slash != std::string_view::npos) {
    k = n.substr(0, slash);
    n = n.substr(slash + 1);
  }
  try {
    LoadRequest installed;
    installed.root = content.root;
    installed.search = content.search;
    for (const auto& [id, dir] : discover_packs(installed)) {
      if (content.pack(id) || (!in_pack.empty() && id != in_pack)) continue;
      const PackInfo info = read_pack(dir);
      if (info.ruleset != content.ruleset.id) continue;
      // its records are the tables [kind.name] of its data files
      for (const fs::path& file : info.data) {
        const TomlFile f(file.string());
        for (auto&& [key, value] : f.root()) {
          const std::string_view record_kind = key.str();
          if (!value.is_table() || !content.ruleset.has_kind(record_kind) ||
              (!k.empty() && record_kind != k))
            continue;
          if (value.as_table()->contains(n)) return id;
        }
      }
    }
  } catch (const std::exception&) {  // a pack that does not read: no hint
  }
  return "";
}

std::shared_ptr<const Content> load_content(const LoadRequest& request) {
  auto content = std::make_shared<Content>();
  Content& c = *content;
  c.root = request.root;
  c.search = request.search;
  std::map<std::string, PackInfo> available;
  for (const auto& [id, dir] : discover_packs(request)) available.emplace(id, read_pack(dir));

  // the packs asked for: ids, or folders (which may be outside the search path)
  std::vector<std::string> wanted;
  for (const std::string& p : request.packs) {
    if (is_pack_path(p)) {
      PackInfo info = read_pack(fs::path(p));
      if (auto it = available.find(info.id);
          it != available.end() &&
          fs::weakly_canonical(it->second.dir) != fs::weakly_canonical(info.dir))
        throw ContentError((fs::path(p) / "pack.toml").string(), 0,
                           "pack id '" + info.id + "' is also used by " + it->second.dir.string());
      wanted.push_back(info.id);
      available.insert_or_assign(info.id, std::move(info));
    } else {
      if (!available.count(p)) {
        throw ContentError("", 0,
                           "no pack with id '" + p + "'" + did_you_mean(p, pack_ids(available)) +
                               " (searched " + searched(request) + ")");
      }
      wanted.push_back(p);
    }
  }
  std::string ruleset_id = request.ruleset;
  if (ruleset_id.empty() && !wanted.empty()) ruleset_id = available.at(wanted.front()).ruleset;
  if (ruleset_id.empty()) throw UsageError("no ruleset: name one, or a pack");
  const fs::path ruleset_dir = request.root / "scripts" / ruleset_id;
  std::error_code dir_ec;  // (a ruleset name the file system refuses: no such ruleset)
  if (!fs::is_directory(ruleset_dir, dir_ec))
    throw ContentError(
        "", 0,
        "no ruleset '" + ruleset_id + "' (expected " + ruleset_dir.string() + "/ruleset.toml)");
  c.ruleset = load_ruleset(ruleset_dir);
  if (c.ruleset.id != ruleset_id)
    throw ContentError(
        (ruleset_dir / "ruleset.toml").string(), 0,
        "ruleset id '" + c.ruleset.id + "' does not match its folder '" + ruleset_id + "'");
  if (!c.ruleset.base_pack.empty()) {
    if (!available.count(c.ruleset.base_pack))
      throw ContentError((ruleset_dir / "ruleset.toml").string(), c.ruleset.base_pack_line,
                         "base_pack '" + c.ruleset.base_pack + "' is not a pack found" +
                             did_you_mean(c.ruleset.base_pack, pack_ids(available)) +
                             " (searched " + searched(request) + ")");
    wanted.insert(wanted.begin(), c.ruleset.base_pack);
  }
  if (request.all_packs)
    for (const auto& [id, p] : available)
      if (p.ruleset == ruleset_id &&
          std::find(request.exclude.begin(), request.exclude.end(), id) == request.exclude.end())
        wanted.push_back(id);

  // the closure over required dependencies
  std::map<std::string, const PackInfo*> chosen;
  std::vector<std::string> todo(wanted.rbegin(), wanted.rend());
  while (!todo.empty()) {
    std::string id = todo.back();
    todo.pop_back();
    if (chosen.count(id)) continue;
    const PackInfo& p = available.at(id);
    if (p.ruleset != ruleset_id)
      throw ContentError(
          (p.dir / "pack.toml").string(), 0,
          "pack '" + id + "' is for ruleset '" + p.ruleset + "', not '" + ruleset_id + "'");
    chosen.emplace(id, &p);
    for (const std::string& d : p.depends) {
      if (!available.count(d))
        throw ContentError((p.dir / "pack.toml").string(), p.depends_line,
                           "pack '" + id + "' depends on '" + p.requirements.at(d).text +
                               "', which is missing" + did_you_mean(d, pack_ids(available)) +
                               " (searched " + searched(request) + ")");
      todo.push_back(d);
    }
  }
  // versions: what each pack asks of the packs it names, against the versions loaded
  auto version_of = [&](const std::string& id) {
    return *parse_pack_version(available.at(id).version);
  };
  auto describe = [&](const std::string& id) {
    const PackInfo& q = *chosen.at(id);
    return "'" + id + "' here is version " + q.version + " (" + (q.dir / "pack.toml").string() +
           ")";
  };
  for (const auto& [id, p] : chosen) {
    const std::string file = (p->dir / "pack.toml").string();
    for (const auto& [list, line] : {std::pair{&p->depends, p->depends_line},
                                     {&p->optional_depends, p->optional_depends_line}})
      for (const std::string& d : *list) {
        if (!chosen.count(d)) continue;
        const PackRequirement& r = p->requirements.at(d);
        if (!r.fits(version_of(d)))
          throw ContentError(file, line,
                             "pack '" + id + "' needs " + r.text + ", but " + describe(d) +
                                 ": use a version of '" + d +
                                 "' that fits, or change the "
                                 "condition in " +
                                 (list == &p->depends ? "depends" : "optional_depends"));
      }
    for (const std::string& x : p->conflicts)
      if (chosen.count(x) && p->requirements.at(x).fits(version_of(x)))
        throw ContentError(file, p->conflicts_line,
                           "pack '" + id + "' conflicts with " +
                               (p->requirements.at(x).conditions.empty()
                                    ? "'" + x + "'"
                                    : "'" + p->requirements.at(x).text + "' and " + describe(x)) +
                               "; load only one of them");
  }

  // topological order, ties broken by id (std::set keeps the ready packs sorted)
  std::map<std::string, std::set<std::string>> after;  // pack -> the packs it waits for
  for (const auto& [id, p] : chosen) {
    after[id];
    for (const auto& d : p->depends) after[id].insert(d);
    for (const auto& d : p->optional_depends)
      if (chosen.count(d)) after[id].insert(d);
  }
  std::set<std::string> ready;
  for (const auto& [id, deps] : after)
    if (deps.empty()) ready.insert(id);
  while (!ready.empty()) {
    const std::string id = *ready.begin();
    ready.erase(ready.begin());
    c.packs.push_back(*chosen.at(id));
    for (auto& [other, deps] : after)
      if (deps.erase(id) && deps.empty()) ready.insert(other);
  }
  if (c.packs.size() != chosen.size()) {
    std::string cycle;
    for (const auto& [id, deps] : after)
      if (!deps.empty()) cycle += (cycle.empty() ? "" : ", ") + id;
    throw ContentError("", 0, "dependency cycle among packs: " + cycle);
  }

  for (std::size_t i = 0; i < c.packs.size(); ++i)
    spdlog::debug("pack {} of {}: {} {} ({}), from {}", i + 1, c.packs.size(), c.packs[i].id,
                  c.packs[i].version, c.packs[i].name, c.packs[i].dir.string());
  PackLoader loader(c);
  for (std::size_t i = 0; i < c.packs.size(); ++i)
    for (const fs::path& file : c.packs[i].data)
      loader.load_data(c.packs[i], static_cast<int>(i), file);
  loader.resolve();
  // windows named by declarative hooks must be declared
  EventBus check;
  for (const auto& w : c.ruleset.windows) check.declare(w);
  for (std::size_t i = 0; i < c.hooks.size(); ++i) {
    const auto& ref = loader.window_names_[i];
    c.hooks[i].window = check.require(ref.name, ref.file, ref.line);
  }
  return content;
}

}  // namespace rb
