#include "sim/scenario.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/text.hpp"
#include "content/keys.hpp"
#include "content/toml_read.hpp"

namespace rb {

std::string pack_path(const fs::path& p) {
  // absolute, so that it keeps a '/' and is never mistaken for a pack id ("./my-pack" would
  // normalise to "my-pack")
  return fs::absolute(p).lexically_normal().string();
}

namespace {

// [play]: SIDE = "best" | "policy" for any side (checked against the procedure's report when the
// content is loaded), objective = win | not_lose | metric:NAME | metric:-NAME
void read_play(const TomlFile& f, const toml::table& play, Scenario& s) {
  for (auto&& [k, v] : play) {
    const std::string key(k.str());
    const int line =
        static_cast<int>(k.source().begin.line ? k.source().begin.line : v.source().begin.line);
    const auto* text = v.as_string();
    if (key == "objective") {
      const std::string o = text ? std::string(text->get()) : "";
      const bool metric = o.rfind("metric:", 0) == 0 && o.size() > 7 && o != "metric:-";
      if (!(o == "win" || o == "not_lose" || metric))
        f.fail(line,
               "[play] objective is one of \"win\", \"not_lose\", \"metric:NAME\", "
               "\"metric:-NAME\", not " +
                   (text ? "'" + o + "'" : toml_type_name(v)));
      s.best_objective = o;
      s.objective_line = line;
      continue;
    }
    if (!text || (text->get() != "best" && text->get() != "policy"))
      f.fail(line, "[play] " + key +
                       " is \"best\" (its best response, exact mode) or \"policy\", "
                       "not " +
                       (text ? "'" + std::string(text->get()) + "'" : toml_type_name(v)));
    if (text->get() == "best") s.best_sides.emplace_back(key, line);
  }
  if (s.objective_line && s.best_sides.empty())
    f.fail(s.objective_line,
           "[play] objective: no side plays \"best\" ([play] defender = \"best\", say)");
}

}  // namespace

Scenario scenario_from_table(const toml::table& t, const std::string& file, const fs::path& dir) {
  TomlFile f(file, "");  // only for its helpers and messages
  Scenario s;
  s.file = file;
  s.dir = dir;
  s.table = t;
  s.ruleset = f.string(t, "ruleset", true).value();
  s.procedure = f.string(t, "procedure").value_or("");
  s.packs = f.strings(t, "packs");
  for (auto& p : s.packs)
    if (looks_like_path(p)) p = pack_path(dir / p);
  if (const toml::table* b = f.table(t, "bench")) {
    f.expect_keys(*b, key_names(bench_keys()), "[bench]");
    s.bench_target = f.number(*b, "target").value_or(0);
    s.exact_target = f.number(*b, "exact_target").value_or(0);
    if (auto base = f.string(*b, "baseline")) {
      // (bench reads it: a scenario written back by the page has no folder of its own)
      s.bench_baseline = dir / *base;
    }
    if (const toml::array* anchors = f.array(*b, "anchors"))
      for (const toml::node& a : *anchors) {
        const toml::table* at = a.as_table();
        if (!at) f.fail(*b, "[bench] anchors are tables { name = \"...\", rate = N }");
        f.expect_keys(*at, {"name", "rate"}, "[bench] anchor");
        s.anchors.emplace_back(*f.string(*at, "name", true), f.number(*at, "rate").value_or(0));
      }
    if (const toml::array* anchors = f.array(*b, "exact_anchors"))
      for (const toml::node& a : *anchors) {
        const toml::table* at = a.as_table();
        if (!at) f.fail(*b, "[bench] exact_anchors are tables { name = \"...\", ms = N }");
        f.expect_keys(*at, {"name", "ms"}, "[bench] exact anchor");
        s.exact_anchors.emplace_back(*f.string(*at, "name", true), f.number(*at, "ms").value_or(0));
      }
    s.table.erase("bench");
  }
  if (const toml::table* play = f.table(t, "play")) read_play(f, *play, s);
  s.table.erase("play");
  return s;
}

std::string best_play_of(const Scenario& s) {
  if (s.best_sides.empty()) return "";
  return s.best_sides.size() == 1 ? s.best_sides.front().first : "both";
}

void reject_best_play(const Scenario& s, const std::string& what) {
  if (s.best_sides.empty()) return;
  throw ContentError(s.file, s.best_sides.front().second,
                     "[play] " + s.best_sides.front().first +
                         " = \"best\": best play is the exact mode's (simulate); " + what +
                         " plays the policies only: remove [play] or set the side to \"policy\"");
}

Scenario read_scenario(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw UsageError("no scenario file " + file.string());
  TomlFile f(file.string());
  Scenario s = scenario_from_table(f.root(), file.string(), file.parent_path());
  // toml++ copies no source positions, so the copy above lost the lines that ctx:reject reports;
  // move the parsed table in instead, which keeps them
  s.table = f.release();
  // the runtime's (scenario_from_table read them), not the ruleset's
  s.table.erase("bench");
  s.table.erase("play");
  s.path = file;
  return s;
}

Session open_session(Scenario scenario, const SessionOptions& options) {
  LoadRequest req;
  req.root = options.root;
  req.search = options.search;
  req.ruleset = scenario.ruleset;
  req.packs = scenario.packs;
  for (const auto& p : options.extra_packs)
    if (std::find(req.packs.begin(), req.packs.end(), p) == req.packs.end()) req.packs.push_back(p);
  std::erase_if(req.packs, [&](const std::string& p) {
    return std::find(options.without_packs.begin(), options.without_packs.end(), p) !=
           options.without_packs.end();
  });
  req.all_packs = options.all_packs;
  req.exclude = options.without_packs;
  Session s;
  s.content = load_content(req);
  s.procedure = procedure_for(*s.content, scenario);
  s.scenario = std::move(scenario);
  return s;
}

std::string procedure_for(const Content& content, const Scenario& scenario) {
  if (!scenario.procedure.empty()) return scenario.procedure;
  if (content.ruleset.procedures.empty())
    throw ContentError(scenario.file, 0, "ruleset '" + scenario.ruleset + "' has no procedures");
  return content.ruleset.procedures.front().first;
}

namespace {

std::string short_hook_id(const std::string& id) {
  const auto colon = id.find(':');
  return colon == std::string::npos ? id : id.substr(colon + 1);
}

// Every `policy.use` table in the scenario names optional abilities, by the id of their hook
// ("use:<id>" is the decision the runtime asks for an optional hook) or, for an ability the
// procedure itself offers, by the name of a declared decision "<procedure>.use_<ability>".
void check_policy_use(const toml::table& t, const std::string& path, const Engine& engine,
                      const std::string& file) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    const std::string here = path.empty() ? key : path + "." + key;
    if (!v.is_table()) continue;
    if (key == "use" && path.ends_with("policy")) {
      std::vector<std::string> ids;
      for (const auto& h : engine.bus().hooks())
        if (h.optional) ids.push_back(short_hook_id(h.id));
      // a procedure's own optional abilities: decisions named "<procedure>.use_<ability>"
      for (const auto& d : engine.content().ruleset.decisions) {
        const auto at = d.name.find(".use_");
        if (at != std::string::npos) ids.push_back(d.name.substr(at + 5));
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      for (auto&& [name, value] : *v.as_table()) {
        const std::string n(name.str());
        if (std::find(ids.begin(), ids.end(), n) != ids.end()) continue;
        std::string list;
        for (const auto& id : ids) list += (list.empty() ? "" : ", ") + id;
        const int line = static_cast<int>(name.source().begin.line ? name.source().begin.line
                                                                   : value.source().begin.line);
        throw ContentError(file, line,
                           here + "." + n + ": no optional ability '" + n +
                               "' in the loaded packs" + did_you_mean(n, ids) +
                               "; the optional abilities: " + (list.empty() ? "(none)" : list));
      }
      continue;
    }
    check_policy_use(*v.as_table(), here, engine, file);
  }
}

// The first line of the scenario that writes `name`, as a key or a string value; 0 when none.
int line_naming(const toml::node& n, const std::string& name) {
  int best = 0;
  auto take = [&](int line) {
    if (line > 0 && (best == 0 || line < best)) best = line;
  };
  if (const toml::table* t = n.as_table()) {
    for (auto&& [k, v] : *t) {
      if (k.str() == name) take(static_cast<int>(k.source().begin.line));
      take(line_naming(v, name));
    }
  } else if (const toml::array* a = n.as_array()) {
    for (const toml::node& e : *a) take(line_naming(e, name));
  } else if (n.is_string() && n.as_string()->get() == name) {
    take(static_cast<int>(n.source().begin.line));
  }
  return best;
}

}  // namespace

Table::Table(const Session& s, EngineOptions o) : engine(s.content, o) {
  try {
    engine.setup(s.scenario.table, s.scenario.file, start, s.scenario.path);
  } catch (const ContentError& e) {
    // a short name the scenario writes that two packs define (Content::find_record): the error
    // knows no file; it is the scenario's, at the line that writes the name
    const std::string what = e.what(), head = "the short name '";
    const auto end = what.find("' is ambiguous");
    if (!e.file.empty() || what.rfind(head, 0) != 0 || end == std::string::npos) throw;
    const std::string name = what.substr(head.size(), end - head.size());
    throw ContentError(s.scenario.file, line_naming(s.scenario.table, name), what);
  }
  check_policy_use(s.scenario.table, "", engine, s.scenario.file);
}

fs::path default_root() {
  if (const char* r = std::getenv("RULEBENCH_ROOT"); r && *r) return r;
#ifdef RB_SOURCE_DIR
  return RB_SOURCE_DIR;
#else
  return fs::current_path();
#endif
}

namespace {

// A TOML value on one line: "cruiser 2, dreadnought 1" for a table of numbers, "a, b" for a
// list, {k = v} inside lists.
std::string value_text(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    std::string out;
    for (auto&& [k, v] : *t) {
      std::string item = std::string(k.str());
      if (v.is_table() || v.is_array())
        item += " (" + value_text(v) + ")";
      else if (v.is_boolean())
        item += v.as_boolean()->get() ? "" : " false";
      else
        item += " " + value_text(v);
      out += (out.empty() ? "" : ", ") + item;
    }
    return out;
  }
  if (const auto* a = n.as_array()) {
    std::string out;
    for (const toml::node& e : *a)
      out += (out.empty() ? "" : ", ") + (e.is_table() ? "{" + value_text(e) + "}" : value_text(e));
    return "[" + out + "]";
  }
  if (const auto* s = n.as_string()) return std::string(s->get());
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) return fmt::format("{}", f->get());
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  return "?";
}

nlohmann::json toml_to_json(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (auto&& [k, v] : *t) j[std::string(k.str())] = toml_to_json(v);
    return j;
  }
  if (const auto* a = n.as_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (const toml::node& e : *a) j.push_back(toml_to_json(e));
    return j;
  }
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* i = n.as_integer()) return i->get();
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* b = n.as_boolean()) return b->get();
  return std::string(toml_type_name(n));  // dates and times: named, not read
}

}  // namespace

std::string describe_session(const Session& s, const std::string& indent) {
  std::string out;
  const toml::table& t = s.scenario.table;
  std::string file = s.scenario.file;
  if (auto d = t["description"].value<std::string>()) file += "  (" + *d + ")";
  out += indent + "scenario  " + file + "\n";
  const Ruleset& r = s.content->ruleset;
  out += indent + "ruleset   " + r.id + (r.name != r.id ? " (" + r.name + ")" : "") +
         ", procedure " + s.procedure + "\n";
  std::string packs;
  for (const PackInfo& p : s.content->packs)
    packs += (packs.empty() ? "" : ", ") + p.id + " " + p.version;
  out += indent + "packs     " + packs + "\n";
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "ruleset" || key == "procedure" || key == "packs" || key == "description" ||
        key == "name")
      continue;
    if (const auto* a = v.as_array(); a && !a->empty() && a->front().is_table()) {
      std::size_t i = 0;
      for (const toml::node& e : *a) {
        // an entry that names itself ([[players]] name = "sol") is called by its name
        std::string name = key + " " + std::to_string(++i);
        if (auto n = e.as_table()->get("name"); n && n->is_string())
          name = std::string(n->as_string()->get());
        else if (auto id = e.as_table()->get("id"); id && id->is_string())
          name = key + " " + std::string(id->as_string()->get());
        out += indent + fmt::format("{:<9} {}\n", name, value_text(e));
      }
      continue;
    }
    out += indent + fmt::format("{:<9} {}\n", key, value_text(v));
  }
  return out;
}

nlohmann::json session_json(const Session& s) {
  nlohmann::json j;
  j["file"] = s.scenario.file;
  j["ruleset"] = s.content->ruleset.id;
  j["procedure"] = s.procedure;
  j["packs"] = nlohmann::json::array();
  for (const PackInfo& p : s.content->packs)
    j["packs"].push_back({{"id", p.id}, {"version", p.version}});
  j["settings"] = toml_to_json(s.scenario.table);
  return j;
}

}  // namespace rb
