// Bench cases are data: every scenarios/bench_<name>.toml of a pack (runtime/sim/bench.hpp),
// found under content/, sorted by name, described by the scenario's description, measured
// against its [bench] table.
#include <catch2/catch.hpp>

#include <algorithm>

#include "base/error.hpp"
#include "sim/bench.hpp"

using namespace rb;

TEST_CASE("bench: a pack's scenarios/bench_<name>.toml is a bench case", "[bench]") {
  const auto cases = bench_cases(default_root());
  const auto g = std::find_if(cases.begin(), cases.end(), [](const BenchCase& c) {
    return c.file == "content/red-alert-core/scenarios/bench_g.toml";
  });
  REQUIRE(g != cases.end());
  CHECK(g->name == "g");
  CHECK(g->description.rfind("a combat phase of six ordered units", 0) == 0);
  CHECK(g->target == 0);
  CHECK(g->anchors.empty());
  CHECK(std::is_sorted(cases.begin(), cases.end(),
                       [](const BenchCase& a, const BenchCase& b) { return a.name < b.name; }));
}

TEST_CASE("bench: a case's target and anchors come from its [bench] table", "[bench]") {
  const auto cases = bench_cases(default_root());
  const auto a =
      std::find_if(cases.begin(), cases.end(), [](const BenchCase& c) { return c.name == "a"; });
  REQUIRE(a != cases.end());
  CHECK(a->description == "3 destroyers vs 2 cruisers");
  CHECK(a->target == 600e3);
  REQUIRE(a->anchors.size() == 2);
  CHECK(a->anchors[1].second == 307e3);
  // the runtime's table: the ruleset's setup never sees it
  const Scenario s = read_scenario(default_root() / a->file);
  CHECK_FALSE(s.table.contains("bench"));
}

TEST_CASE("bench: cases chosen by name run in the order given; an unknown name is refused",
          "[bench]") {
  const auto picked = bench_cases(default_root(), {"c", "a"});
  REQUIRE(picked.size() == 2);
  CHECK(picked[0].name == "c");
  CHECK(picked[1].name == "a");
  try {
    bench_cases(default_root(), {"zz"});
    FAIL("an unknown case was accepted");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("no bench case 'zz' (the cases: a, b, c") == 0);
  }
}
