// rulebench import: a battle from another tool's link, written as a scenario (sim/link_import).
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/paths.hpp"
#include "commands.hpp"
#include "sim/link_import.hpp"
#include "toml_json.hpp"

namespace rb::cli {

int import_link(const Common& c, const ImportArgs& a) {
  const SessionOptions so = c.session();
  ImportOptions o;
  o.root = so.root;
  o.search = so.search;
  const ImportResult r = rb::import_link(a.url, o);
  for (const auto& p : r.problems)
    std::cerr << (a.strict ? "error: " : "warning: ") << "not understood: " << describe(p) << "\n";
  if (a.strict && !r.problems.empty()) {
    std::cerr << "error: " << r.problems.size()
              << " parameter(s) of the link not understood (--strict); nothing written\n";
    return 1;
  }
  std::string text = r.toml;
  if (a.json) {
    nlohmann::json unknown = nlohmann::json::array();
    for (const auto& p : r.problems)
      unknown.push_back({{"param", p.param}, {"value", p.value}, {"why", p.why}});
    nlohmann::json j = {{"format", r.format},
                        {"place", r.place},
                        {"procedure", r.procedure},
                        {"scenario", r.toml},
                        {"setup", serve::toml_to_json(r.scenario)},
                        {"notes", r.notes},
                        {"unknown", unknown}};
    text = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (a.output.empty() || a.output == "-") {
    std::cout << text;
  } else {
    // never through a link at FILE (base/paths)
    const fs::path file(a.output);
    write_files_inside(file.has_parent_path() ? file.parent_path() : fs::path("."),
                       {{file.filename(), text}}, "import");
    std::cerr << "wrote " << a.output << " (" << r.format << ", " << r.place << ": " << r.procedure
              << ")\n";
  }
  return 0;
}

}  // namespace rb::cli
