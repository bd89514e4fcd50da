// script/api_doc: the documentation of what scripts call, as data: every method of `ctx` and of a
// dice pool with its parameters, returns and one line of text, and the fields of `hook{}`. It is
// what `rulebench types` writes as LuaCATS annotations (the format lua-language-server reads); a
// unit test checks that it lists exactly the methods the binding registers (api_*.cpp), and
// read_hook takes its known keys from here. No Lua header: the names are plain text.
//
// Types are LuaCATS: `integer`, `string`, `boolean`, `table`, `T?` (may be nil), `A|B`, and the
// names `rulebench types` declares: Entity (an entity id), Hex ({q, r} or an entity), Pool, Ctx,
// and the ruleset's names Window, Decision, Attribute, Scope, Purpose, Role, Kind, Die,
// RecordRef (a record's short name, kind/name or full id), Outcome.
#pragma once

#include <span>
#include <string_view>

namespace rb {

struct ApiFunction {
  std::string_view table;    // "ctx" or "pool"
  std::string_view name;     // "roll_units"
  std::string_view params;   // "player: Entity, location: Entity?, spec: RollSpec"
  std::string_view returns;  // "Pool, integer" ("" for none)
  std::string_view doc;      // one or two lines
};

struct ApiField {
  std::string_view name;  // "window"
  std::string_view type;  // "Window"
  bool optional;
  std::string_view doc;
};

// Every ctx and pool method, ctx first, each table in the order the docs read best.
std::span<const ApiFunction> api_functions();
// The keys of hook{ ... } (a Lua hook's definition).
std::span<const ApiField> hook_fields();

}  // namespace rb
