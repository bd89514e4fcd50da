// luacheck over a pack's Lua files for `rulebench check`, when luacheck is installed (Debian:
// lua-check), with the configuration `rulebench types` writes: the globals the sandbox really
// has. An undefined or written global and a syntax error fail the check (at run time they are
// errors); other warnings (an unused variable, a shadowed local) are listed.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/paths.hpp"
#include "commands.hpp"

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

}  // namespace

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
