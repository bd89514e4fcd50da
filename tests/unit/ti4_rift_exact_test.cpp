// TI4 gravity rifts against their exact answer (issue 11: "gravity rift losses over a two-rift
// path against the exact value"). content/ti4-base/scenarios/gravity_rift_two.toml: a cruiser
// starts in a gravity rift and moves through a second one into the active system, its only path.
// It rolls once for each rift it moves out of or through and is destroyed on 1-3 (probability
// 0.3 each), so it is lost with probability exactly 1 - 0.7^2 = 0.51, and lost_to_rifts (the
// ships lost per run) has that mean. A fixed-seed simulation of 2 x 10^5 runs must land within
// four standard errors, 4 sqrt(0.51 x 0.49 / 2 x 10^5), about 0.0045.
#include <catch2/catch.hpp>

#include "fixtures.hpp"

#include <cmath>

#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

using namespace rb;

TEST_CASE("ti4 gravity rift: losses over a two-rift path match 1 - 0.7^2",
          "[ti4][exact][tactical]") {
  const double exact = 1.0 - 0.7 * 0.7;
  const double runs = 200'000;
  const fs::path root = RB_SOURCE_DIR;
  SessionOptions so;
  so.root = root;
  Session session =
      open_session(read_scenario(root / "content/ti4-base/scenarios/gravity_rift_two.toml"), so);
  Simulation sim(session);
  SimOptions options;
  options.runs = static_cast<std::uint64_t>(runs);
  options.seed = 20261123;
  options.threads = 2;
  const Tally tally = sim.run(options);
  REQUIRE(tally.runs == options.runs);
  const double got = sim.report(tally, options.seed).at("lost_to_rifts_mean").get<double>();
  const double tolerance = 4.0 * std::sqrt(exact * (1.0 - exact) / runs);
  INFO("simulated " << got << ", exact " << exact << ", tolerance " << tolerance);
  CHECK(std::abs(got - exact) <= tolerance);
}

TEST_CASE("exact mode: two gravity rifts lose the ship with probability 1 - 0.7^2 to 1e-9",
          "[ti4][exact][tactical][exact_mode]") {
  const nlohmann::json r =
      rb::testing::exact_report("content/ti4-base/scenarios/gravity_rift_two.toml");
  CHECK(std::abs(r.at("lost_to_rifts_mean").get<double>() - (1.0 - 0.7 * 0.7)) < 1e-9);
}
