#include "content/toml_read.hpp"

#include <fstream>
#include <sstream>

#include "base/error.hpp"
#include "base/text.hpp"

namespace rb {

namespace {

// Refuses a key of more than kMaxTomlDepth dotted parts before the TOML library sees it: the
// library nests a table per part with one stack frame each, and caps nested values (arrays,
// inline tables) at 256 but not dotted keys or table headers. The scan skips strings and
// comments and counts the dots between two of `= , [ ] { }` or a line's end.
void refuse_deep_keys(const std::string& path, std::string_view text) {
  int line = 1, dots = 0;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto starts = [&](std::string_view s) { return text.substr(i, s.size()) == s; };
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      dots = 0;
      ++i;
    } else if (c == '#') {
      while (i < n && text[i] != '\n') ++i;
    } else if (starts("\"\"\"") || starts("\'\'\'")) {  // a multi-line string
      const std::string_view close = text.substr(i, 3);
      const bool basic = c == '"';
      i += 3;
      while (i < n && !starts(close)) {
        if (text[i] == '\n') ++line;
        i += (basic && text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ? 2 : 1;
      }
      i += 3;
    } else if (c == '"' || c == '\'') {  // a one-line string
      ++i;
      while (i < n && text[i] != c && text[i] != '\n')
        i += (c == '"' && text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ? 2 : 1;
      if (i < n && text[i] == c) ++i;
    } else {
      if (c == '.' && ++dots >= kMaxTomlDepth)
        throw ContentError(path, line,
                           "a dotted key or table header of more than " +
                               std::to_string(kMaxTomlDepth) +
                               " parts: a value may nest at most that deep");
      if (c == '=' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}') dots = 0;
      ++i;
    }
  }
}

// Refuses a value nested deeper than kMaxTomlDepth tables and arrays, at its line, so that no
// reader of a parsed file (the Lua table a scenario becomes, the JSON the server writes) walks
// an unbounded depth. The library's own caps bound this recursion.
void refuse_deep_values(const std::string& path, const toml::node& node, int depth) {
  if (depth > kMaxTomlDepth)
    throw ContentError(
        path, static_cast<int>(node.source().begin.line),
        "a value nested more than " + std::to_string(kMaxTomlDepth) + " tables or arrays deep");
  if (const toml::table* t = node.as_table())
    for (auto&& [k, v] : *t) refuse_deep_values(path, v, depth + 1);
  else if (const toml::array* a = node.as_array())
    for (const toml::node& v : *a) refuse_deep_values(path, v, depth + 1);
}

toml::table parse_text(const std::string& path, std::string_view text) {
  refuse_deep_keys(path, text);
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    throw ContentError(path, static_cast<int>(e.source().begin.line),
                       "TOML syntax error: " + std::string(e.description()));
  }
  refuse_deep_values(path, root, 0);
  return root;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ContentError(path, 0, "cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TomlFile::TomlFile(std::string path)
    : path_(std::move(path)), root_(parse_text(path_, read_all(path_))) {}
TomlFile::TomlFile(std::string path, std::string_view text)
    : path_(std::move(path)), root_(parse_text(path_, text)) {}

std::string toml_type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date or time";
  }
}

void TomlFile::fail(const toml::node& at, const std::string& message) const {
  fail(line(at), message);
}
void TomlFile::fail(int line, const std::string& message) const {
  throw ContentError(path_, line, message);
}

void TomlFile::expect_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                           std::string_view where) const {
  expect_keys(t, std::vector<std::string>(allowed.begin(), allowed.end()), where);
}

void TomlFile::expect_keys(const toml::table& t, const std::vector<std::string>& allowed,
                           std::string_view where) const {
  for (auto&& [k, v] : t) {
    bool ok = false;
    for (const auto& a : allowed) ok |= (a == k.str());
    if (ok) continue;
    std::string msg = "unknown key '" + std::string(k.str()) + "' in " + std::string(where);
    std::string hint = did_you_mean(k.str(), allowed);
    if (!hint.empty())
      msg += hint;
    else {
      msg += "; expected one of:";
      for (const auto& a : allowed) msg += " " + a;
    }
    fail(static_cast<int>(k.source().begin.line ? k.source().begin.line : v.source().begin.line),
         msg);
  }
}

int TomlFile::line_of(const toml::table& t, std::string_view key) const {
  if (const toml::node* n = t.get(key)) return line(*n);
  return line(t);
}

std::optional<std::string> TomlFile::string(const toml::table& t, std::string_view key,
                                            bool required) const {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) fail(t, "missing key '" + std::string(key) + "' (expected a string)");
    return std::nullopt;
  }
  if (!n->is_string())
    fail(*n, "'" + std::string(key) + "' must be a string, not " + toml_type_name(*n));
  return std::string(n->as_string()->get());
}

std::optional<long long> TomlFile::integer(const toml::table& t, std::string_view key,
                                           bool required) const {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) fail(t, "missing key '" + std::string(key) + "' (expected an integer)");
    return std::nullopt;
  }
  if (!n->is_integer())
    fail(*n, "'" + std::string(key) + "' must be an integer, not " + toml_type_name(*n));
  return static_cast<long long>(n->as_integer()->get());
}

std::optional<bool> TomlFile::boolean(const toml::table& t, std::string_view key) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (!n->is_boolean())
    fail(*n, "'" + std::string(key) + "' must be true or false, not " + toml_type_name(*n));
  return bool(n->as_boolean()->get());
}

std::optional<double> TomlFile::number(const toml::table& t, std::string_view key) const {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  if (n->is_integer()) return static_cast<double>(n->as_integer()->get());
  if (!n->is_floating_point())
    fail(*n, "'" + std::string(key) + "' must be a number, not " + toml_type_name(*n));
  return double(n->as_floating_point()->get());
}

std::vector<std::string> TomlFile::strings(const toml::table& t, std::string_view key) const {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  if (n->is_string()) return {std::string(n->as_string()->get())};
  if (!n->is_array())
    fail(*n, "'" + std::string(key) + "' must be an array of strings, not " + toml_type_name(*n));
  for (const toml::node& e : *n->as_array()) {
    if (!e.is_string())
      fail(e, "'" + std::string(key) + "' must hold strings, not " + toml_type_name(e));
    out.emplace_back(e.as_string()->get());
  }
  return out;
}

const toml::table* TomlFile::table(const toml::table& t, std::string_view key) const {
  const toml::node* n = t.get(key);
  if (!n) return nullptr;
  if (!n->is_table())
    fail(*n, "'" + std::string(key) + "' must be a table, not " + toml_type_name(*n));
  return n->as_table();
}

const toml::array* TomlFile::array(const toml::table& t, std::string_view key) const {
  const toml::node* n = t.get(key);
  if (!n) return nullptr;
  if (!n->is_array())
    fail(*n, "'" + std::string(key) + "' must be an array, not " + toml_type_name(*n));
  return n->as_array();
}

}  // namespace rb
