// Bench cases a pack declares by shipping scenarios/bench_<name>.toml (runtime/sim/bench.hpp):
// found under content/, sorted, named after "bench_", described by the scenario's description,
// and never a second copy of an anchored case.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/bench.hpp"

using namespace rb;

TEST_CASE("bench: a pack's scenarios/bench_<name>.toml is a bench case", "[bench]") {
  const auto cases = pack_bench_cases(default_root());
  const auto d = std::find_if(cases.begin(), cases.end(), [](const BenchCase& c) {
    return c.file == "content/red-alert-core/scenarios/bench_g.toml";
  });
  REQUIRE(d != cases.end());
  CHECK(d->name == "g");
  CHECK(d->description.rfind("a combat phase of six ordered units", 0) == 0);
  CHECK(d->target == 0);
  for (const BenchCase& anchored : bench_cases())
    CHECK(std::none_of(cases.begin(), cases.end(),
                       [&](const BenchCase& c) { return c.file == anchored.file; }));
  CHECK(std::is_sorted(cases.begin(), cases.end(),
                       [](const BenchCase& a, const BenchCase& b) { return a.file < b.file; }));
}
