#include "sim/scenario.hpp"

#include <algorithm>
#include <cstdlib>

#include "base/error.hpp"
#include "content/toml_read.hpp"

namespace rb {

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
    if (p.find('/') != std::string::npos || p.rfind('.', 0) == 0)
      p = (dir / p).lexically_normal().string();
  return s;
}

Scenario read_scenario(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw UsageError("no scenario file " + file.string());
  TomlFile f(file.string());
  Scenario s = scenario_from_table(f.root(), file.string(), file.parent_path());
  // toml++ copies no source positions, so the copy above lost the lines that ctx:reject reports;
  // move the parsed table in instead, which keeps them
  s.table = f.release();
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

Table::Table(const Session& s, EngineOptions o) : engine(s.content, o) {
  engine.setup(s.scenario.table, s.scenario.file, start, s.scenario.path);
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
