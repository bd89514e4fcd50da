// Running the built rulebench (RULEBENCH_EXE) through the shell, for the command-line tests:
// the exit code and what it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

namespace rb::testing {

struct Run {
  int code = -1;
  std::string out;  // stdout and stderr
};

// Runs a shell command line, stdout and stderr together.
inline Run shell(const std::string& cmd) {
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline const std::string kExe =
    std::string("'") + RULEBENCH_EXE + "' --root '" + RB_SOURCE_DIR + "'";

// Runs `cd DIR && rulebench --root ROOT ARGS` (ARGS as shell words).
inline Run rulebench(const std::filesystem::path& dir, const std::string& args) {
  return shell("cd '" + dir.string() + "' && timeout 120 " + kExe + " " + args + " 2>&1");
}

inline void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

inline bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace rb::testing
