// serve/toml_json: a TOML document as JSON, for the page (which edits scenarios as JSON and
// writes them back as TOML itself). Integers stay integers, floats floats; dates and times become
// their TOML text.
#pragma once

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

namespace rb::serve {

nlohmann::json toml_to_json(const toml::node& n);

}  // namespace rb::serve
