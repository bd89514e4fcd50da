// rulebench sweep (issue 31, docs/sweep.md): a shard runs the cells k with k % N == i - 1, every
// cell in exactly one shard; merged shards give the unsharded run's bytes; a bad
// starting_units value is a content error naming its file and line.
#include <catch2/catch.hpp>

#include <fstream>

#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/sweep.hpp"

using namespace rb;

namespace {

const fs::path kRoot = RB_SOURCE_DIR;

nlohmann::json run(const SweepSpec& spec, int shard, int shards) {
  SweepOptions o;
  o.threads = 2;
  o.shard = shard;
  o.shards = shards;
  return run_sweep(spec, rb::testing::repo_session_options(), o);
}

}  // namespace

TEST_CASE("a sweep's shards hold each cell once and merge into the unsharded bytes", "[sweep]") {
  const SweepSpec spec = read_sweep(kRoot / "content/ti4-base/sweeps/small.toml");
  const nlohmann::json whole = run(spec, 1, 1);
  const std::size_t cells = whole["cells"].size();
  REQUIRE(cells == 3 * 8);
  std::vector<nlohmann::json> shards{run(spec, 1, 3), run(spec, 2, 3), run(spec, 3, 3)};
  std::size_t seen = 0;
  for (int i = 0; i < 3; ++i) {
    CHECK(shards[static_cast<std::size_t>(i)]["shard"]["index"] == i + 1);
    for (const auto& c : shards[static_cast<std::size_t>(i)]["cells"]) {
      CHECK(c["cell"].get<int>() % 3 == i);  // the slice: k % N == i - 1
      ++seen;
    }
  }
  CHECK(seen == cells);
  const nlohmann::json merged = merge_sweeps({shards[2], shards[0], shards[1]}, {"c", "a", "b"});
  CHECK(sweep_json(merged).dump() == sweep_json(whole).dump());
  CHECK(sweep_csv(merged) == sweep_csv(whole));
  CHECK(sweep_table(merged) == sweep_table(whole));
  CHECK_THROWS_WITH(merge_sweeps({shards[0], shards[1]}, {"a", "b"}),
                    Catch::Contains("shards missing: 3 of 3"));
}

TEST_CASE("starting_units: a number out of range is an error naming the file and line",
          "[sweep][content]") {
  const fs::path dir = fs::temp_directory_path() / "rb_sweep_test_pack";
  fs::remove_all(dir);
  fs::create_directories(dir / "factions");
  std::ofstream(dir / "pack.toml")
      << "id = \"bad-start\"\nname = \"Bad\"\nversion = \"0.1.0\"\nruleset = \"ti4\"\n"
         "depends = [\"ti4-base\"]\ndata = [\"factions\"]\n";
  std::ofstream(dir / "factions" / "f.toml")
      << "[faction.bad]\nname = \"Bad\"\nstarting_units = { carrier = 2, infantry = 99 }\n";
  SessionOptions so = rb::testing::repo_session_options();
  so.search.push_back(dir);
  Scenario s = scenario_from_table(toml::parse("ruleset = \"ti4\"\npacks = [\"bad-start\"]\n"
                                               "attacker = {}\ndefender = {}\n"),
                                   "inline", kRoot);
  CHECK_THROWS_WITH(open_session(s, so),
                    Catch::Contains("f.toml:3") && Catch::Contains("infantry must be a whole "
                                                                   "number from 0 to 12, not 99"));
  fs::remove_all(dir);
}
