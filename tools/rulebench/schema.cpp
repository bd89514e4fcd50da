// JSON Schemas (draft 7) of the TOML formats, written by `rulebench types` beside the editor
// types: schemas/pack.schema.json, rules_test.schema.json, scenario.schema.json and one
// data.<ruleset>.schema.json per ruleset, from the loader's own lists of keys (content/keys.hpp)
// and the ruleset's declarations (record kinds, attributes with their types, ranges and values,
// purposes, roles, scopes, windows); and .taplo.toml, which tells taplo (a TOML language server)
// which schema each file follows. A scenario's keys beyond ruleset, procedure, packs and bench
// are the ruleset's setup script's to check: the scenario schema leaves them open.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "content/keys.hpp"

namespace rb::cli {

namespace {

using Json = nlohmann::ordered_json;

Json type_of(std::string_view type) {
  if (type == "strings")
    return {
        {"anyOf", {{{"type", "string"}}, {{"type", "array"}, {"items", {{"type", "string"}}}}}}};
  if (type == "string_array") return {{"type", "array"}, {"items", {{"type", "string"}}}};
  if (type.empty()) return Json::object();
  return {{"type", std::string(type)}};
}

Json object_of(std::span<const KeySpec> keys, bool closed = true) {
  Json props = Json::object();
  for (const KeySpec& k : keys) {
    Json p = type_of(k.type);
    p["description"] = std::string(k.doc);
    props[std::string(k.name)] = std::move(p);
  }
  Json o{{"type", "object"}, {"properties", props}};
  if (closed) o["additionalProperties"] = false;
  return o;
}

Json names(const std::vector<std::string>& v) {
  return {{"type", "string"}, {"enum", v}};
}

Json schema(const std::string& id, const std::string& title, Json body) {
  Json j{{"$schema", "http://json-schema.org/draft-07/schema#"}, {"$id", id}, {"title", title}};
  for (auto& [k, v] : body.items()) j[k] = v;
  return j;
}

Json pack_schema() {
  Json o = object_of(pack_keys());
  o["required"] = {"id", "ruleset"};
  o["properties"]["id"]["pattern"] = "^[A-Za-z0-9_-]+$";
  o["properties"]["version"]["pattern"] = "^[0-9]+(\\.[0-9]+)*$";
  return schema("pack.schema.json", "Rulebench pack.toml", o);
}

Json rules_test_schema() {
  Json test = object_of(rules_test_keys());
  test["properties"]["expect"] = object_of(expect_keys());
  test["properties"]["expect"]["description"] = "What must happen.";
  Json answer = object_of(answer_keys());
  answer["required"] = {"player", "decision", "answer"};
  test["properties"]["answer"]["items"] = answer;
  test["properties"]["scenario"]["anyOf"] = {{{"type", "string"}},
                                             {{"$ref", "scenario.schema.json"}}};
  test["properties"]["dice"]["items"] = {{"type", {"integer", "string"}}};
  Json file = object_of(test_file_keys());
  file["properties"]["test"]["items"] = test;
  file["properties"]["scenario"] = {{"$ref", "scenario.schema.json"}};
  file["required"] = {"test"};
  Json single = test;
  single["required"] = {"expect"};
  return schema(
      "rules_test.schema.json", "Rulebench rules test",
      {{"description", "A rules test, or a file of [[test]] entries."}, {"oneOf", {single, file}}});
}

Json scenario_schema() {
  Json o = object_of(scenario_keys(), false);
  Json bench = object_of(bench_keys());
  bench["properties"]["anchors"]["items"] = {
      {"type", "object"},
      {"properties", {{"name", {{"type", "string"}}}, {"rate", {{"type", "number"}}}}},
      {"additionalProperties", false}};
  bench["properties"]["exact_anchors"]["items"] = {
      {"type", "object"},
      {"properties", {{"name", {{"type", "string"}}}, {"ms", {{"type", "number"}}}}},
      {"additionalProperties", false}};
  o["properties"]["bench"] = bench;
  o["properties"]["play"]["properties"] = {
      {"objective",
       {{"type", "string"},
        {"pattern", "^(win|not_lose|metric:-?[^-].*)$"},
        {"description", "What the best sides maximise (default win)."}}}};
  o["properties"]["play"]["additionalProperties"] = {
      {"enum", {"best", "policy"}},
      {"description", "A side of the procedure's report: its best response, or its policy."}};
  o["required"] = {"ruleset"};
  o["description"] =
      "A scenario: the runtime reads ruleset, procedure, packs, bench and play; every other key is "
      "the "
      "ruleset's setup script's, which rejects an unknown one with its line.";
  return schema("scenario.schema.json", "Rulebench scenario", o);
}

Json attribute_schema(const AttributeDef& a) {
  Json j;
  if (a.type == AttrType::integer) {
    j = {{"type", "integer"}, {"minimum", a.min}, {"maximum", a.max}};
  } else if (a.type == AttrType::boolean) {
    j = {{"type", "boolean"}};
  } else if (a.type == AttrType::counts) {
    j = {{"type", "object"},
         {"additionalProperties", {{"type", "integer"}, {"minimum", a.min}, {"maximum", a.max}}}};
  } else {
    j = {{"type", "string"}};
    if (!a.values.empty()) j["enum"] = a.values;
  }
  if (!a.doc.empty()) j["description"] = a.doc;
  return j;
}

Json data_schema(const Content& c) {
  const Ruleset& r = c.ruleset;
  Json record{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
  for (const KeySpec& k : record_text_keys())
    record["properties"][std::string(k.name)] = {{"type", "string"},
                                                 {"description", std::string(k.doc)}};
  for (const AttributeDef& a : r.attributes) record["properties"][a.name] = attribute_schema(a);
  Json defs{{"record", record}};
  Json props = Json::object();
  for (const std::string& kind : r.kinds)
    props[kind] = {{"type", "object"},
                   {"description", "Records of the kind " + kind + ": [" + kind + ".name]"},
                   {"additionalProperties", {{"$ref", "#/definitions/record"}}}};
  Json override_record = record;  // the same fields, changing another pack's record
  props["override"] = {{"type", "object"},
                       {"description", "Changes to other packs' records, by full id."},
                       {"additionalProperties", override_record}};
  props["remove"] = {{"type", "array"},
                     {"items", {{"type", "string"}}},
                     {"description", "Records of other packs taken out, by id."}};
  Json modifier = object_of(modifier_keys());
  modifier["required"] = {"id"};
  if (!r.purposes.empty()) modifier["properties"]["purpose"]["enum"] = r.purposes;
  if (!r.roles.empty()) modifier["properties"]["role"]["enum"] = r.roles;
  modifier["properties"]["delta"]["minimum"] = -kModifierDeltaMax;
  modifier["properties"]["delta"]["maximum"] = kModifierDeltaMax;
  modifier["properties"]["dice"]["minimum"] = 0;
  modifier["properties"]["dice"]["maximum"] = kModifierDiceMax;
  Json location{
      {"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
  for (const AttributeDef& a : r.attributes) location["properties"][a.name] = attribute_schema(a);
  modifier["properties"]["location"] = location;
  props["modifier"] = {{"type", "array"}, {"items", modifier}};
  Json hook = object_of(toml_hook_keys());
  hook["required"] = {"id", "window", "effect"};
  std::vector<std::string> windows;
  for (const auto& w : r.windows) windows.push_back(w.name);
  hook["properties"]["window"] = names(windows);
  if (!r.scopes.empty()) hook["properties"]["limit"]["enum"] = r.scopes;
  Json effect = object_of(hook_effect_keys());
  if (!r.scopes.empty()) effect["properties"]["until"]["enum"] = r.scopes;
  hook["properties"]["effect"] = effect;
  props["hook"] = {{"type", "array"}, {"items", hook}};
  return schema("data." + r.id + ".schema.json", "Rulebench data file of the " + r.id + " ruleset",
                {{"type", "object"},
                 {"properties", props},
                 {"additionalProperties", false},
                 {"definitions", defs}});
}

std::string taplo(const std::vector<std::pair<std::string, std::vector<std::string>>>& rules) {
  std::string out =
      "# Generated by `rulebench types`: which JSON Schema (schemas/) each TOML file follows, for\n"
      "# taplo and the editors that use it. Do not edit.\n";
  for (const auto& [schema, globs] : rules) {
    out += "\n[[rule]]\ninclude = [";
    for (std::size_t i = 0; i < globs.size(); ++i)
      out += (i ? ", " : "") + nlohmann::json(globs[i]).dump();
    out += "]\n[rule.schema]\npath = " + nlohmann::json("./schemas/" + schema).dump() + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::pair<fs::path, std::string>> schema_files(const SessionOptions& so,
                                                           const std::vector<std::string>& rulesets,
                                                           const fs::path& dir, bool repository) {
  std::vector<std::pair<fs::path, std::string>> files;
  auto add = [&](const std::string& name, const Json& j) {
    files.emplace_back(dir / "schemas" / name, j.dump(2) + "\n");
  };
  add("pack.schema.json", pack_schema());
  add("rules_test.schema.json", rules_test_schema());
  add("scenario.schema.json", scenario_schema());
  std::vector<std::pair<std::string, std::vector<std::string>>> rules;
  rules.push_back({"pack.schema.json", {repository ? "content/*/pack.toml" : "pack.toml"}});
  rules.push_back(
      {"rules_test.schema.json", {repository ? "content/*/tests/**/*.toml" : "tests/**/*.toml"}});
  rules.push_back(
      {"scenario.schema.json", {repository ? "content/*/scenarios/*.toml" : "scenarios/*.toml"}});
  for (const std::string& id : rulesets) {
    LoadRequest req;
    req.root = so.root;
    req.search = so.search;
    req.ruleset = id;
    req.all_packs = true;
    if (!repository && fs::is_regular_file(dir / "pack.toml"))
      req.packs.push_back(fs::absolute(dir).string());
    const auto content = load_content(req);
    add("data." + id + ".schema.json", data_schema(*content));
    std::vector<std::string> globs;
    for (const PackInfo& p : content->packs) {
      std::error_code ec;
      const fs::path base = repository ? fs::relative(p.dir, so.root, ec) : fs::path();
      if (!repository && !fs::equivalent(p.dir, dir, ec)) continue;
      if (repository && (ec || base.empty() || base.begin()->string() != "content")) continue;
      for (const fs::path& f : p.data) {
        const fs::path rel = fs::relative(f, p.dir, ec);
        globs.push_back((base / rel).generic_string());
      }
    }
    std::sort(globs.begin(), globs.end());
    if (!globs.empty()) rules.push_back({"data." + id + ".schema.json", globs});
  }
  files.emplace_back(dir / ".taplo.toml", taplo(rules));
  return files;
}

}  // namespace rb::cli
