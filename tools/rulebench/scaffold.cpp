// rulebench new pack NAME [--ruleset ID] [DIR]: a pack folder made from the ruleset's pack
// template (scripts/<ruleset>/new_pack/: every file, its name without ".tmpl", with {{id}},
// {{name}}, {{ruleset}}, {{base_pack}}, {{base_version}} and {{prefix}} filled in), so that the
// game's own example cards and rules test come from the ruleset, not from this program. It
// never writes through a link: DIR, or a file or folder in it, that is a link is refused.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "commands.hpp"

namespace rb::cli {

namespace {

// Replaces every {{key}} of `text`; an unknown key is an error naming `where`.
std::string fill(const std::string& text, const std::map<std::string, std::string>& values,
                 const std::string& where) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string::npos) break;
    const std::size_t close = text.find("}}", open);
    if (close == std::string::npos) break;
    const std::string key = text.substr(open + 2, close - open - 2);
    auto it = values.find(key);
    if (it == values.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : values) keys.push_back(k);
      throw ContentError(where, 0,
                         "the pack template names '{{" + key + "}}', which is not one of: " +
                             fmt::format("{}", fmt::join(keys, ", ")) + did_you_mean(key, keys));
    }
    out += text.substr(at, open - at) + it->second;
    at = close + 2;
  }
  return out + text.substr(at);
}

}  // namespace

int new_pack(const Common& c, const NewPackArgs& a) {
  if (a.what != "pack")
    throw UsageError("new: '" + a.what + "' is not something to make; rulebench new pack NAME " +
                     "[--ruleset ID] [DIR] makes a pack");
  if (a.name.empty() || !std::all_of(a.name.begin(), a.name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_';
      }))
    throw UsageError("new pack: '" + a.name +
                     "' is not a pack id: letters, digits, '-' and '_' only (e.g. my-cards)");
  const SessionOptions so = c.session();
  LoadRequest req;
  req.root = so.root;
  req.search = so.search;
  const auto existing = discover_packs(req);
  if (auto it = existing.find(a.name); it != existing.end())
    throw UsageError("new pack: a pack '" + a.name + "' exists already (" + it->second.string() +
                     "); choose another id");
  req.ruleset = a.ruleset;
  const auto content = load_content(req);  // the ruleset and its base pack, checked
  const Ruleset& rules = content->ruleset;
  const fs::path templ = rules.dir / "new_pack";
  if (!fs::is_directory(templ))
    throw UsageError("new pack: the ruleset '" + rules.id + "' has no pack template (" +
                     templ.string() + "/)");
  const fs::path dir = a.dir.empty() ? fs::path(a.name) : fs::path(a.dir);
  refuse_link(dir, "new pack");  // nor a link in it: write_files_inside
  std::error_code ec;
  if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir, ec)))
    throw UsageError("new pack: " + dir.string() +
                     " exists and is not an empty folder; name another folder");

  std::map<std::string, std::string> values{{"id", a.name},
                                            {"name", a.name},
                                            {"ruleset", rules.id},
                                            {"base_pack", rules.base_pack},
                                            {"base_version", "0"}};
  std::string prefix = a.name;
  std::replace(prefix.begin(), prefix.end(), '-', '_');
  if (!prefix.empty() && std::isdigit(static_cast<unsigned char>(prefix[0]))) prefix = "p" + prefix;
  values["prefix"] = prefix;
  if (const PackInfo* base = content->pack(rules.base_pack)) values["base_version"] = base->version;

  const std::vector<fs::path> files =
      files_inside(rules.dir, templ, "", "ruleset", Walk::recursive);
  // everything is read and filled before anything is written: a bad template writes nothing
  std::vector<std::pair<fs::path, std::string>> out;
  for (const fs::path& f : files) {
    std::string rel = fs::relative(f, templ).generic_string();
    if (rel.ends_with(".tmpl")) rel.resize(rel.size() - 5);
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    out.emplace_back(fill(rel, values, f.string()), fill(text.str(), values, f.string()));
  }
  write_files_inside(dir, out, "new pack");
  std::cout << fmt::format("made the pack {} (ruleset {}, depends on {} {}) in {}/:\n", a.name,
                           rules.id, rules.base_pack, values["base_version"], dir.string());
  for (const auto& [path, text] : out) std::cout << "  " << path.generic_string() << "\n";
  const int typed = write_types(c, rules.id, dir, /*check=*/false, /*quiet=*/true);
  if (typed == 0) std::cout << "  .luarc.json, types/rulebench.lua (editor types)\n";
  std::cout << fmt::format(
      "next:\n  rulebench check {0}        its files, ids, windows and scripts\n"
      "  rulebench test {0}         its rules tests\n",
      (dir.is_absolute() || dir.string().starts_with(".") ? dir : fs::path(".") / dir).string());
  return 0;
}

}  // namespace rb::cli
