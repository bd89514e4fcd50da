// A unit test helper: two reports of the same battle (`simulate --exact --json` shape) agree on
// every number, to `tolerance`: each numeric entry and each list of numbers (outcomes, means,
// distributions) of `want`, but states, step runs and seconds (which say how it was computed).
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>

#include <nlohmann/json.hpp>

namespace rb::testing {

// Checks (CHECK/REQUIRE) each such entry of `want` against `got`'s; returns how many it compared.
inline std::size_t check_same_numbers(const nlohmann::json& got, const nlohmann::json& want,
                                      double tolerance = 1e-9) {
  std::size_t compared = 0;
  for (const auto& [key, value] : want.items()) {
    if (key == "states" || key == "step_runs" || key == "seconds") continue;
    INFO(key);
    if (value.is_number()) {
      CHECK(std::abs(got.at(key).get<double>() - value.get<double>()) < tolerance);
      ++compared;
    } else if (value.is_array() && !value.empty() && value[0].is_number()) {
      REQUIRE(got.at(key).size() == value.size());
      for (std::size_t k = 0; k < value.size(); ++k)
        CHECK(std::abs(got.at(key)[k].get<double>() - value[k].get<double>()) < tolerance);
      ++compared;
    }
  }
  return compared;
}

}  // namespace rb::testing
