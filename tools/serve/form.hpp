// serve/form: a ruleset's form.toml (scripts/<ruleset>/form.toml), which tells the page how to
// build a scenario form: for each procedure its sides and groups of fields, each field one key of
// the scenario with its type (a record, a list of records, counts with +/- buttons, a choice ...)
// and where its choices come from (a record kind, an attribute's declared values). Nothing here
// names a game: the form is content of the ruleset. scripts/README.md, "form.toml", documents it.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "content/content.hpp"

namespace rb::serve {

// The form of a ruleset as JSON {"procedures": {...}, "groups": {...}}, checked against the
// ruleset (kinds, attributes, procedures, groups); null when the ruleset has no form.toml.
// Throws ContentError naming the file, line and what was expected.
nlohmann::json read_form(const Ruleset& ruleset);

}  // namespace rb::serve
