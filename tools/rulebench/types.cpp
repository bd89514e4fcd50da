// rulebench types [--ruleset ID] [--check] [DIR]: editor support written from what the runtime
// knows, never by hand.
//   DIR/types/rulebench.lua  LuaCATS annotations (lua-language-server): Ctx and Pool with every
//                            method (script/api_doc.cpp), hook{} and its fields, and the
//                            ruleset's names as enums: windows, decisions, attributes, scopes,
//                            purposes, roles, kinds, dice, outcomes and record ids
//   DIR/.luarc.json          lua-language-server's settings: Lua 5.4, the library above, no io/os
//   DIR/.luacheckrc          luacheck's settings: the globals every sandbox really has
// With no --ruleset: the ruleset of DIR's pack.toml, else every ruleset of the repository (the
// enums are then the union, each name's doc saying whose it is). --check writes nothing and
// exits 1 naming each file that is not what it would write. It never writes through a link in
// DIR (a .luarc.json or types/ that is a link is refused: a downloaded pack could hold one).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "commands.hpp"
#include "content/toml_read.hpp"
#include "script/api_doc.hpp"
#include "script/engine.hpp"

namespace rb::cli {

namespace {

// name -> its docs (one per ruleset that declares it), for one enum
using Names = std::map<std::string, std::vector<std::string>>;

struct Collected {
  std::vector<std::string> rulesets;
  Names windows, decisions, attributes, scopes, purposes, roles, kinds, dice, outcomes, records;
  std::map<std::string, std::vector<std::string>> globals;  // the sandbox's
  std::vector<std::string> ctx_methods, pool_methods;
};

void add(Names& names, const std::string& name, const std::string& ruleset, std::string doc,
         bool several) {
  if (several) doc = "[" + ruleset + "]" + (doc.empty() ? "" : " " + doc);
  auto& docs = names[name];
  if (!doc.empty() && std::find(docs.begin(), docs.end(), doc) == docs.end()) docs.push_back(doc);
}

const char* attr_type(AttrType t) {
  return t == AttrType::integer   ? "int"
         : t == AttrType::boolean ? "bool"
         : t == AttrType::counts  ? "counts"
                                  : "symbol";
}

// Which rulesets: the one named, the one of DIR's pack.toml, or every one of the repository.
std::vector<std::string> rulesets_for(const SessionOptions& so, const std::string& ruleset,
                                      const fs::path& dir) {
  if (!ruleset.empty()) return {ruleset};
  if (fs::is_regular_file(dir / "pack.toml")) {
    require_inside(dir, dir / "pack.toml", "pack");
    TomlFile f((dir / "pack.toml").string());
    return {f.string(f.root(), "ruleset", true).value()};
  }
  std::vector<std::string> ids;
  if (fs::is_directory(so.root / "scripts"))
    for (const auto& e : fs::directory_iterator(so.root / "scripts"))
      if (fs::is_regular_file(e.path() / "ruleset.toml"))
        ids.push_back(e.path().filename().string());
  std::sort(ids.begin(), ids.end());
  if (ids.empty())
    throw UsageError("types: no ruleset found under " + (so.root / "scripts").string());
  return ids;
}

Collected collect(const SessionOptions& so, const std::vector<std::string>& rulesets,
                  const fs::path& dir) {
  Collected c;
  c.rulesets = rulesets;
  const bool several = rulesets.size() > 1;
  for (const std::string& id : rulesets) {
    LoadRequest req;
    req.root = so.root;
    req.search = so.search;
    req.ruleset = id;
    req.all_packs = true;
    if (fs::is_regular_file(dir / "pack.toml")) req.packs.push_back(fs::absolute(dir).string());
    auto content = load_content(req);
    Engine engine(content);
    const Ruleset& r = content->ruleset;
    for (const auto& w : engine.bus().windows()) add(c.windows, w.name, id, w.doc, several);
    for (const auto& d : r.decisions) add(c.decisions, d.name, id, d.doc, several);
    for (const auto& a : r.attributes)
      add(c.attributes, a.name, id,
          std::string(attr_type(a.type)) + (a.doc.empty() ? "" : ": " + a.doc), several);
    for (const auto& s : r.scopes) add(c.scopes, s, id, "", several);
    for (const auto& p : r.purposes) add(c.purposes, p, id, "", several);
    for (const auto& k : r.kinds) add(c.kinds, k, id, "", several);
    for (const auto& d : r.dice) add(c.dice, std::string(sym_name(d.name)), id, "", several);
    for (const auto& role : r.roles) add(c.roles, role, id, "", several);
    for (const auto& [proc, rep] : r.reports) {
      for (const auto& side : rep.sides) add(c.roles, side, id, "", several);
      for (const auto& o : rep.outcomes) add(c.outcomes, o, id, "procedure " + proc, several);
    }
    for (const Record& rec : content->records) {
      if (rec.removed) continue;
      auto it = rec.text.find("name");
      const std::string doc = (it == rec.text.end() ? "" : it->second + ": ") + rec.id;
      const std::string kind(sym_name(rec.kind)), name(sym_name(rec.name));
      add(c.records, kind + "/" + name, id, doc, several);
      add(c.records, name, id, doc, several);
    }
    c.globals = engine.sandbox_globals();
    c.ctx_methods = engine.api_names("ctx");
    c.pool_methods = engine.api_names("pool");
  }
  return c;
}

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}

// One line of doc: newlines would end the annotation.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

void write_alias(std::ostream& out, const std::string& name, const std::string& doc,
                 const Names& names, bool open) {
  out << "\n---" << doc << "\n---@alias " << name << "\n";
  for (const auto& [n, docs] : names) {
    std::string d;
    for (const auto& x : docs) d += (d.empty() ? "" : "; ") + x;
    out << "---| " << quoted(n) << (d.empty() ? "" : " # " + one_line(d)) << "\n";
  }
  if (names.empty() || open) out << "---| string\n";
}

// "a: T, b: U?" -> [(a, T), (b, U?)], commas inside {...} (...) <...> [...] kept
std::vector<std::pair<std::string, std::string>> split_params(std::string_view params) {
  std::vector<std::pair<std::string, std::string>> out;
  int depth = 0;
  std::string cur;
  auto flush = [&] {
    const auto colon = cur.find(':');
    std::string name = cur.substr(0, colon),
                type = colon == std::string::npos ? "any" : cur.substr(colon + 1);
    auto trim = [](std::string& s) {
      while (!s.empty() && s.front() == ' ') s.erase(s.begin());
      while (!s.empty() && s.back() == ' ') s.pop_back();
    };
    trim(name), trim(type);
    if (!name.empty()) out.emplace_back(name, type);
    cur.clear();
  };
  for (char ch : params) {
    if (ch == '{' || ch == '(' || ch == '[' || ch == '<') ++depth;
    if (ch == '}' || ch == ')' || ch == ']' || ch == '>') --depth;
    if (ch == ',' && depth == 0)
      flush();
    else
      cur += ch;
  }
  flush();
  return out;
}

std::string types_lua(const Collected& c) {
  std::ostringstream out;
  std::string which;
  for (const auto& r : c.rulesets) which += (which.empty() ? "" : ", ") + r;
  out << "---@meta\n"
      << "-- Generated by `rulebench types` for the ruleset" << (c.rulesets.size() > 1 ? "s " : " ")
      << which << " and the runtime's script API\n"
      << "-- (runtime/script/api_doc.cpp). Do not edit: run `rulebench types` again after the "
         "ruleset or the packs change.\n"
      << "-- lua-language-server reads it (see .luarc.json): completion for ctx, pools and "
         "hook{}, and a warning\n"
      << "-- for a misspelt method or window.\n\n"
      << "---An entity id: a player, unit, system, planet, card...\n---@alias Entity integer\n\n"
      << "---A hex in axial coordinates {q, r}.\n---@alias HexCoord [integer, integer]\n\n"
      << "---A hex, or an entity meaning the hex it is at.\n---@alias Hex HexCoord|Entity\n";
  write_alias(out, "Window", "A timing window (`rulebench list windows`).", c.windows, false);
  write_alias(out, "Decision", "A decision a procedure asks (`rulebench list decisions`).",
              c.decisions, false);
  write_alias(out, "Attribute", "An attribute of entities and records (ruleset.toml [attributes]).",
              c.attributes, false);
  write_alias(out, "Scope", "What counters, flags, modifiers and use limits last for.", c.scopes,
              false);
  write_alias(out, "Purpose", "What a roll is for: a modifier's `purpose` names one.", c.purposes,
              false);
  write_alias(out, "Role", "A role: ctx:role(name).", c.roles, true);
  write_alias(out, "Kind", "An entity or record kind.", c.kinds, false);
  write_alias(out, "Die", "A die type (ruleset.toml [dice]).", c.dice, false);
  write_alias(out, "Outcome", "An outcome a procedure reports with ctx:result.", c.outcomes, false);
  write_alias(out, "RecordRef", "A record: its short name, kind/name or full id (pack:kind/name).",
              c.records, true);

  auto functions = [&](std::string_view table, const char* cls, const char* doc) {
    out << "\n---" << doc << "\n---@class " << cls << "\nlocal " << cls << " = {}\n";
    for (const ApiFunction& f : api_functions()) {
      if (f.table != table) continue;
      out << "\n---" << f.doc << "\n";
      std::string names;
      for (const auto& [name, type] : split_params(f.params)) {
        if (name == "...")
          out << "---@param ... " << type << "\n";
        else
          out << "---@param " << name
              << (type.ends_with('?') ? "? " + type.substr(0, type.size() - 1) : " " + type)
              << "\n";
        names += (names.empty() ? "" : ", ") + name;
      }
      if (!f.returns.empty()) out << "---@return " << f.returns << "\n";
      out << "function " << cls << ":" << f.name << "(" << names << ") end\n";
    }
  };
  functions("ctx", "Ctx",
            "What scripts ask the runtime for: the state, dice, windows, decisions, the trace "
            "(scripts/README.md, \"The ctx API\"). A hook's ctx is read-only.");
  functions("pool", "Pool",
            "A pool of dice (ctx:roll, ctx:roll_units); valid in the run and window that made it.");

  out << "\n---A hook's definition: hook { id = ..., window = ..., apply = function(ctx, player, "
         "source, args) ... end }.\n---@class HookDef\n";
  for (const ApiField& f : hook_fields())
    out << "---@field " << f.name << (f.optional ? "? " : " ") << f.type << " " << f.doc << "\n";
  out << "\n---Registers a hook on a window (at file level, while the pack loads).\n"
         "---@param def HookDef\nfunction hook(def) end\n";
  return out.str();
}

std::string luarc_json() {
  nlohmann::ordered_json j;
  j["runtime"]["version"] = "Lua 5.4";
  // what the sandbox leaves out (runtime/script/sandbox.cpp)
  for (const char* lib : {"io", "os", "debug", "package", "coroutine"})
    j["runtime"]["builtin"][lib] = "disable";
  j["workspace"]["library"] = {"types"};
  j["workspace"]["checkThirdParty"] = false;
  j["workspace"]["ignoreDir"] = {"build", "types"};
  j["diagnostics"]["globals"] = nlohmann::ordered_json::array();
  return j.dump(2) + "\n";
}

std::string luacheckrc(const Collected& c, bool repository) {
  std::ostringstream out;
  out << "-- Generated by `rulebench types`: the globals every script of a pack or ruleset really "
         "has (the\n-- sandbox of runtime/script/sandbox.cpp); do not edit. `rulebench check` "
         "and the tests run luacheck with it.\n"
      << "stds.rulebench = {\n  read_globals = {\n";
  for (const auto& [name, fields] : c.globals) {
    if (name == "_G") continue;  // the environment itself
    if (fields.empty()) {
      out << "    " << quoted(name) << ",\n";
      continue;
    }
    out << "    " << name << " = { fields = {";
    bool first = true;
    for (const std::string& field : fields) {
      // there, but always an error: the runtime's dice are the only randomness
      if (name == "math" && field == "randomseed") continue;
      out << (first ? " " : ", ") << quoted(field);
      first = false;
    }
    out << " } },\n";
  }
  out << "    \"_G\",\n  },\n}\nstd = \"rulebench\"\n"
      << "-- a hook's function takes (ctx, player, source, args) whatever it uses\n"
      << "unused_args = false\nmax_line_length = false\n";
  if (repository)
    out << "-- hostile packs of the tests break the rules on purpose; types/ declares the API\n"
        << "exclude_files = { \"build*/**\", \"tests/fixtures/**\", \"types/**\" }\n";
  else
    out << "exclude_files = { \"types/**\" }\n";
  return out.str();
}

}  // namespace

int write_types(const Common& common, const std::string& ruleset, const fs::path& dir_in,
                bool check, bool quiet) {
  const SessionOptions so = common.session();
  const fs::path dir = dir_in.empty() ? fs::path(".") : dir_in;
  if (!check && !fs::exists(dir)) {  // a folder that does not exist yet is made
    std::error_code made;
    fs::create_directories(dir, made);
    if (made)
      throw UsageError("types: cannot make the folder " + dir.string() + ": " + made.message());
  }
  if (!fs::is_directory(dir)) throw UsageError("types: no folder " + dir.string());
  const Collected c = collect(so, rulesets_for(so, ruleset, dir), dir);
  std::error_code ec;
  const bool repository = fs::equivalent(dir, so.root, ec);
  std::vector<std::pair<fs::path, std::string>> files{
      {dir / "types" / "rulebench.lua", types_lua(c)},
      {dir / ".luarc.json", luarc_json()},
      {dir / ".luacheckrc", luacheckrc(c, repository)}};
  for (auto& f : schema_files(so, c.rulesets, dir, repository)) files.push_back(std::move(f));
  if (check) {
    int stale = 0;
    for (const auto& [path, text] : files) {
      std::ifstream in(path, std::ios::binary);
      std::stringstream now;
      now << in.rdbuf();
      if (!in || now.str() != text) {
        ++stale;
        std::cout << "out of date: " << path.string() << "\n";
      }
    }
    if (stale)
      std::cout << fmt::format(
          "{} generated file{} not current: run `rulebench types{}{}` and commit the result\n",
          stale, stale == 1 ? " is" : "s are", ruleset.empty() ? "" : " --ruleset " + ruleset,
          " " + dir.string());
    else if (!quiet)
      std::cout << "types, schemas, .luarc.json, .luacheckrc and .taplo.toml are current\n";
    return stale ? 1 : 0;
  }
  // never through a link in DIR (a downloaded pack could hold one): refused before anything
  // is written (base/paths)
  std::vector<std::pair<fs::path, std::string>> relative;
  for (const auto& [path, text] : files) relative.emplace_back(path.lexically_relative(dir), text);
  write_files_inside(dir, relative, "types");
  if (!quiet)
    for (const auto& [path, text] : files) std::cout << "wrote " << path.string() << "\n";
  return 0;
}

std::string luacheck_config(const Engine& engine) {
  Collected c;
  c.globals = engine.sandbox_globals();
  return luacheckrc(c, false);
}

}  // namespace rb::cli
