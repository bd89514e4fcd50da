// content/keys: the keys of the TOML formats the runtime reads, with their JSON type and one
// line of documentation. The loaders take their known keys from here (an unknown key is an
// error naming the nearest), and `rulebench types` writes JSON Schemas from the same lists, so
// an editor that validates TOML against them (taplo) knows exactly what the loader does.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

struct KeySpec {
  std::string_view name;
  // a JSON Schema type ("string", "integer", "number", "boolean", "array", "object"), "strings"
  // (a string or an array of strings), "string_array", or "" for anything
  std::string_view type;
  std::string_view doc;
};

std::span<const KeySpec> pack_keys();         // pack.toml
std::span<const KeySpec> modifier_keys();     // [[modifier]] of a data file
std::span<const KeySpec> toml_hook_keys();    // [[hook]] of a data file
std::span<const KeySpec> hook_effect_keys();  // a [[hook]]'s effect = { ... }
std::span<const KeySpec> record_text_keys();  // free text of a record (besides attributes)
std::span<const KeySpec> rules_test_keys();   // a rules test (a file, or each [[test]])
std::span<const KeySpec> test_file_keys();    // a file of [[test]] entries
std::span<const KeySpec> expect_keys();       // a rules test's [expect]
std::span<const KeySpec> answer_keys();       // a rules test's [[answer]]
std::span<const KeySpec> scenario_keys();     // what the runtime reads of a scenario
std::span<const KeySpec> bench_keys();        // a scenario's [bench]

// The names, for TomlFile::expect_keys.
std::vector<std::string> key_names(std::span<const KeySpec> keys);

}  // namespace rb
