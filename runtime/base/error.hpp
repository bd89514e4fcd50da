// base/error: the typed errors of the runtime. Content errors are found while loading and name
// the file and line; script errors are raised by the call gate and name the pack, file:line,
// hook and window; usage errors are the command line's. Each maps to an exit code in the CLI.
#pragma once

#include <stdexcept>
#include <string>

namespace rb {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad content: TOML, unknown keys or ids, wrong types, undeclared windows, dependency problems.
struct ContentError : Error {
  ContentError(std::string file, int line, const std::string& message)
      : Error(line > 0 ? file + ":" + std::to_string(line) + ": " + message
                       : (file.empty() ? message : file + ": " + message)),
        file(std::move(file)),
        line(line) {}
  std::string file;
  int line;
};

// An error raised by, or inside, a Lua script.
struct ScriptError : Error {
  using Error::Error;
};

// A bad command line or scenario setting.
struct UsageError : Error {
  using Error::Error;
};

}  // namespace rb
