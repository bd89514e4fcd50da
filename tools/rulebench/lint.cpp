// luacheck over a pack's Lua files for `rulebench check`, when luacheck is installed (Debian:
// lua-check), with the configuration `rulebench types` writes: the globals the sandbox really
// has. An undefined or written global and a syntax error fail the check (at run time they are
// errors); other warnings (an unused variable, a shadowed local) are listed. Then what luacheck
// cannot know, from the API's documentation and the loaded packs: the names of ctx methods and
// the modifier ids given to ctx:activate as a string.
#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "commands.hpp"
#include "script/api_doc.hpp"

namespace rb::cli {

namespace {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

fs::path find_luacheck() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const fs::path p = fs::path(d.empty() ? "." : d) / "luacheck";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// A token of Lua source: a name, a string literal (its text when it has no escape), or one
// character of punctuation; comments and whitespace are skipped.
struct Token {
  enum Kind { name, string, punct } kind;
  std::string text;
  int line;
  bool plain = true;  // a string literal without escapes (its text is its value)
};

// The level of a long bracket opening at s[i] ("[[", "[==["), -1 when there is none.
int long_bracket(const std::string& s, std::size_t i) {
  if (i >= s.size() || s[i] != '[') return -1;
  std::size_t j = i + 1;
  while (j < s.size() && s[j] == '=') ++j;
  return j < s.size() && s[j] == '[' ? static_cast<int>(j - i - 1) : -1;
}

std::vector<Token> lua_tokens(const std::string& s) {
  std::vector<Token> out;
  int line = 1;
  std::size_t i = 0;
  auto skip_long = [&](int level) {  // from the opening bracket to past the closing one
    i += static_cast<std::size_t>(level) + 2;
    const std::string close = "]" + std::string(static_cast<std::size_t>(level), '=') + "]";
    const std::size_t end = s.find(close, i);
    const std::size_t stop = end == std::string::npos ? s.size() : end + close.size();
    for (; i < stop; ++i) line += s[i] == '\n' ? 1 : 0;
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (s.compare(i, 2, "--") == 0) {
      i += 2;
      if (const int level = long_bracket(s, i); level >= 0) {
        skip_long(level);
      } else {
        while (i < s.size() && s[i] != '\n') ++i;
      }
    } else if (const int level = long_bracket(s, i); level >= 0) {
      const int at = line;
      const std::size_t from = i + static_cast<std::size_t>(level) + 2;
      skip_long(level);
      out.push_back({Token::string, s.substr(from, i - from), at, false});
    } else if (c == '"' || c == '\'') {
      Token t{Token::string, "", line};
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i) {
        if (s[i] == '\\') {
          t.plain = false;
          if (++i < s.size() && s[i] == '\n') ++line;
          continue;
        }
        t.text += s[i];
      }
      ++i;
      out.push_back(std::move(t));
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t from = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Token::name, s.substr(from, i - from), line});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {  // a number: not looked at
      while (i < s.size() &&
             (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
              ((s[i] == '+' || s[i] == '-') &&
               (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P'))))
        ++i;
    } else {
      out.push_back({Token::punct, std::string(1, c), line});
      ++i;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> check_script_names(const Content& content,
                                            const std::vector<fs::path>& files) {
  std::vector<std::string> methods;
  for (const ApiFunction& f : api_functions())
    if (f.table == "ctx") methods.emplace_back(f.name);
  // a modifier is activated by its id, or by its id without the pack ("pack:id")
  std::set<std::string> modifiers;
  std::vector<std::string> short_ids;
  for (const ModifierDef& m : content.modifiers) {
    modifiers.insert(m.id);
    const std::string short_id = m.id.substr(m.id.find(':') + 1);
    modifiers.insert(short_id);
    short_ids.push_back(short_id);
  }
  std::vector<std::string> problems;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<Token> t = lua_tokens(text.str());
    for (std::size_t i = 0; i + 2 < t.size(); ++i) {
      // ctx:NAME, where ctx is not a field of something else (x.ctx:NAME)
      if (t[i].kind != Token::name || t[i].text != "ctx" || t[i + 1].text != ":" ||
          t[i + 2].kind != Token::name || (i > 0 && t[i - 1].text == "."))
        continue;
      const std::string& name = t[i + 2].text;
      const std::string where = file.string() + ":" + std::to_string(t[i + 2].line) + ": ";
      if (std::find(methods.begin(), methods.end(), name) == methods.end()) {
        problems.push_back(where + "ctx:" + name + " is not a ctx method" +
                           did_you_mean(name, methods) +
                           " (rulebench types lists them, scripts/README.md says what they do)");
        continue;
      }
      if (name == "activate" && i + 4 < t.size() && t[i + 3].text == "(" &&
          t[i + 4].kind == Token::string && t[i + 4].plain && !modifiers.count(t[i + 4].text))
        problems.push_back(where + "ctx:activate(\"" + t[i + 4].text + "\"): no modifier '" +
                           t[i + 4].text + "' in this pack or the packs it loads" +
                           did_you_mean(t[i + 4].text, short_ids));
    }
  }
  return problems;
}

Lint lint_scripts(const Engine& engine, const std::vector<fs::path>& files) {
  Lint lint;
  if (files.empty()) {
    lint.ran = true;
    return lint;
  }
  const fs::path luacheck = find_luacheck();
  if (luacheck.empty()) return lint;
  const fs::path name = "rulebench-luacheck-" + std::to_string(::getpid()) + ".luacheckrc";
  const fs::path config = fs::temp_directory_path() / name;
  write_files_inside(config.parent_path(), {{name, luacheck_config(engine)}}, "check");
  std::string cmd = shell_quoted(luacheck.string()) +
                    " --no-color --codes --formatter plain --config " +
                    shell_quoted(config.string());
  for (const fs::path& f : files) cmd += " " + shell_quoted(f.string());
  cmd += " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    fs::remove(config);
    return lint;
  }
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = ::pclose(p);
  fs::remove(config);
  lint.ran = true;
  std::stringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    // "file:line:col: (W113) accessing undefined variable 'x'", "(E011) ..." for syntax
    const auto code = line.find(": (");
    const bool fails = code == std::string::npos || line.compare(code + 3, 2, "W1") == 0 ||
                       line.compare(code + 3, 1, "E") == 0;
    (fails ? lint.errors : lint.warnings).push_back(line);
  }
  if (status != 0 && lint.errors.empty() && lint.warnings.empty())
    lint.errors.push_back("luacheck failed (exit status " + std::to_string(status) + ")");
  return lint;
}

}  // namespace rb::cli
