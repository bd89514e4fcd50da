// sim/rules_test: rules tests. A test file (TOML) holds one test, or several as [[test]], each a
// scenario (inline [scenario] or scenario = "file"), forced dice, scripted answers and
// expectations: the outcome, surviving units, metrics, trace events that must appear (in order)
// or must not appear, or an error that must be raised. Every forced die must be used and every
// scripted answer asked for, so a test cannot pass by not reaching what it meant to check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/scenario.hpp"

namespace rb {

struct RulesTestResult {
  std::string file;
  std::string name;  // rule id and sentence
  bool passed = false;
  std::vector<std::string> problems;  // expected against actual, one line each
  std::string trace;                  // the narrative, kept for failures
};

// Runs every test in a file.
std::vector<RulesTestResult> run_rules_test_file(const fs::path& file,
                                                 const SessionOptions& options);

// Test files under the paths (files or folders, recursively: *.toml with a [expect] table or
// [[test]] entries). With no paths: the tests folder of every pack under root/content. In a pack,
// a file or folder that links out of it is listed unread, and run_rules_test_file reports it as
// a test that cannot run; a test's `scenario = "file.toml"` must be in its pack too.
std::vector<fs::path> find_rules_tests(const std::vector<fs::path>& paths,
                                       const SessionOptions& options);

}  // namespace rb
