// sim/link_import: another tool's link (a URL whose query parameters carry a whole battle) made
// into a scenario. The mapping is data: a pack declares an import format in its import/ folder
// (import/<name>.toml: the hosts, the parameter patterns, the places and the value names, each
// naming the records it grants); files of several packs with the same format name are one format.
// The importer is generic: it matches parameters, looks their names up, applies the grants to a
// side or the scenario, and fills the place's scenario template. Every parameter it does not
// understand (or that the place does not use) is named in `problems`, never dropped silently.
// scripts/README.md ("Import formats") describes a format file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace rb {

namespace fs = std::filesystem;

// A link's query parameters after percent-decoding ('+' is a space), in order.
struct LinkParams {
  std::string host;
  std::vector<std::pair<std::string, std::string>> params;
};

inline constexpr std::size_t kMaxLinkBytes = 64 * 1024;
inline constexpr std::size_t kMaxLinkParams = 1000;

// Parses "https://host/path?k=v&..." (the scheme may be left out; a #fragment is ignored).
// Throws UsageError naming what is wrong: no host, a bad %-escape (and where), too long.
LinkParams parse_link(std::string_view url);

// A parameter the import did not understand or did not use, and why.
struct ImportProblem {
  std::string param, value, why;
};

struct ImportResult {
  std::string format, title, place, procedure;
  std::vector<std::string> format_files;  // the files the format was read from
  toml::table scenario;
  std::string toml;                     // the scenario as TOML text, with a header comment
  std::vector<ImportProblem> problems;  // parameters not understood or not used
  std::vector<std::string> notes;       // what the scenario sets that the link did not say
};

struct ImportOptions {
  fs::path root;                 // the repository: scripts/ and content/
  std::vector<fs::path> search;  // more folders that hold packs
};

// The scenario of a link. Throws UsageError for a link no format reads (naming the hosts known)
// and ContentError for a bad format file (its file and line).
ImportResult import_link(std::string_view url, const ImportOptions& options);

// Every import format the packs declare, read and checked (each record it names exists): the
// format names. Throws ContentError for the first bad file.
std::vector<std::string> check_import_formats(const ImportOptions& options);

// "problem: why" lines, for the command line and messages.
std::string describe(const ImportProblem& p);

}  // namespace rb
