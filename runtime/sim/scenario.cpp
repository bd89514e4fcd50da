#include "sim/scenario.hpp"

#include <algorithm>
#include <cstdlib>

#include "base/error.hpp"
#include "base/text.hpp"
#include "content/toml_read.hpp"

namespace rb {

std::string pack_path(const fs::path& p) {
  // absolute, so that it keeps a '/' and is never mistaken for a pack id ("./my-pack" would
  // normalise to "my-pack")
  return fs::absolute(p).lexically_normal().string();
}

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
    f.expect_keys(*b, {"target", "anchors", "exact_target", "exact_anchors"}, "[bench]");
    s.bench_target = f.number(*b, "target").value_or(0);
    s.exact_target = f.number(*b, "exact_target").value_or(0);
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
  return s;
}

Scenario read_scenario(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw UsageError("no scenario file " + file.string());
  TomlFile f(file.string());
  Scenario s = scenario_from_table(f.root(), file.string(), file.parent_path());
  // toml++ copies no source positions, so the copy above lost the lines that ctx:reject reports;
  // move the parsed table in instead, which keeps them
  s.table = f.release();
  s.table.erase("bench");  // the runtime's (scenario_from_table read it), not the ruleset's
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
  s.procedure = scenario.procedure;
  if (s.procedure.empty()) {
    if (s.content->ruleset.procedures.empty())
      throw ContentError(scenario.file, 0, "ruleset '" + scenario.ruleset + "' has no procedures");
    s.procedure = s.content->ruleset.procedures.front().first;
  }
  s.scenario = std::move(scenario);
  return s;
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

}  // namespace rb
