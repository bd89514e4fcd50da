// content/toml_read: reading TOML with errors that name the file, the line and what was
// expected. Used by the content loader and by the scenario and rules-test readers.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace rb {

// How deep a value read from TOML may nest: tables, arrays, dotted keys and table headers each
// count a level. Every TOML file (packs, rulesets, scenarios, rules tests, the server's bodies)
// is read through TomlFile, which refuses a deeper value at its line.
constexpr int kMaxTomlDepth = 32;

class TomlFile {
 public:
  // Parses the file; a syntax error becomes a ContentError with file:line.
  explicit TomlFile(std::string path);
  TomlFile(std::string path, std::string_view text);  // for tests

  const std::string& path() const { return path_; }
  const toml::table& root() const { return root_; }
  // Takes the parsed table out (a copy would lose the source lines; a move keeps them).
  toml::table release() { return std::move(root_); }

  static int line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

  // Throws when `t` has a key outside `allowed`, naming the nearest allowed key.
  void expect_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                   std::string_view where) const;
  void expect_keys(const toml::table& t, const std::vector<std::string>& allowed,
                   std::string_view where) const;

  [[noreturn]] void fail(const toml::node& at, const std::string& message) const;
  [[noreturn]] void fail(int line, const std::string& message) const;

  std::optional<std::string> string(const toml::table& t, std::string_view key,
                                    bool required = false) const;
  std::optional<long long> integer(const toml::table& t, std::string_view key,
                                   bool required = false) const;
  std::optional<bool> boolean(const toml::table& t, std::string_view key) const;
  std::optional<double> number(const toml::table& t, std::string_view key) const;
  std::vector<std::string> strings(const toml::table& t, std::string_view key) const;
  const toml::table* table(const toml::table& t, std::string_view key) const;
  const toml::array* array(const toml::table& t, std::string_view key) const;
  int line_of(const toml::table& t, std::string_view key) const;

 private:
  std::string path_;
  toml::table root_;
};

// A TOML type name for messages: "a string", "an integer", ...
std::string toml_type_name(const toml::node& n);

}  // namespace rb
