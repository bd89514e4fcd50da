// rulebench sweep (issue 31, docs/sweep.md): a shard runs the cells k with k % N == i - 1, every
// cell in exactly one shard; merged shards give the unsharded run's bytes; a bad
// starting_units value is a content error naming its file and line. Monte Carlo cells take a
// fixed number of runs in blocks; without the exact mode a shard takes blocks of a row's cells.
// The difference to the reference column has an interval from the paired runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>

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

// Two attackers against three defenders, every cell by Monte Carlo: 3 blocks of runs a cell.
SweepSpec monte_carlo_spec() {
  return read_sweep_text("mc.toml",
                         "exact = false\nprecision = 1.5\n"
                         "[[axis]]\nside = \"attacker\"\nfactions = [\"sol\", \"letnev\"]\n"
                         "[[axis]]\nside = \"defender\"\n"
                         "factions = [\"hacan\", \"jol_nar\", \"muaat\"]\n",
                         read_scenario(kRoot / "content/ti4-base/scenarios/starting_fleets.toml"));
}

}  // namespace

TEST_CASE(
    "a Monte Carlo cell's runs split into blocks over the shards; any N merges into the "
    "unsharded bytes",
    "[sweep]") {
  const SweepSpec spec = monte_carlo_spec();
  const std::uint64_t runs = sweep_runs(1.5, spec.max_runs);
  REQUIRE(runs == 3 * kSweepBlock);  // z^2 / (4 * 0.015^2) = 4268.3 runs: 3 blocks
  const nlohmann::json whole = run(spec, 1, 1);
  REQUIRE(whole["cells"].size() == 6);
  for (const auto& c : whole["cells"]) {
    CHECK(c["method"] == "monte_carlo");
    CHECK(c["runs"] == runs);
    CHECK_FALSE(c.contains("blocks"));
  }
  std::vector<nlohmann::json> three{run(spec, 1, 3), run(spec, 2, 3), run(spec, 3, 3)};
  std::map<int, std::multiset<std::uint64_t>> blocks;  // cell -> its blocks in every shard
  for (int i = 0; i < 3; ++i)
    for (const auto& c : three[static_cast<std::size_t>(i)]["cells"]) {
      const int r = c["cell"].get<int>() / 3;
      for (const auto& b : c["blocks"]) {
        CHECK((r * 3 + b.get<int>()) % 3 == i);  // row r's block b: (r * blocks + b) % N == i - 1
        blocks[c["cell"].get<int>()].insert(b.get<std::uint64_t>());
      }
    }
  REQUIRE(blocks.size() == 6);
  for (const auto& [cell, bs] : blocks) CHECK(bs == std::multiset<std::uint64_t>{0, 1, 2});
  const nlohmann::json merged = merge_sweeps({three[1], three[2], three[0]}, {"b", "c", "a"});
  CHECK(merged.dump() == whole.dump());
  CHECK(sweep_json(merged).dump() == sweep_json(whole).dump());
  CHECK(sweep_csv(merged) == sweep_csv(whole));
  CHECK(sweep_table(merged) == sweep_table(whole));
  // 2 shards of 3 blocks: row r's block b in shard (r * 3 + b) % 2 + 1, not the same for every row
  std::vector<nlohmann::json> two{run(spec, 1, 2), run(spec, 2, 2)};
  for (int i = 0; i < 2; ++i)
    for (const auto& c : two[static_cast<std::size_t>(i)]["cells"])
      for (const auto& b : c["blocks"])
        CHECK((c["cell"].get<int>() / 3 * 3 + b.get<int>()) % 2 == i);
  CHECK(merge_sweeps(two, {"a", "b"}).dump() == whole.dump());
  // a shard that lost a block of a cell
  std::vector<nlohmann::json> lost = three;
  lost[0]["cells"][0]["blocks"].erase(0);
  CHECK_THROWS_WITH(merge_sweeps(lost, {"a", "b", "c"}), Catch::Contains("of its 3 blocks"));
}

TEST_CASE(
    "the difference to the reference column: an interval from the paired runs, exact when "
    "both cells are",
    "[sweep]") {
  const SweepSpec spec = monte_carlo_spec();
  const nlohmann::json out = sweep_json(run(spec, 1, 1));
  const std::uint64_t runs = sweep_runs(1.5, spec.max_runs);
  // run i of both cells, by the engine alone: row 1 (letnev), column 2 (muaat) against the
  // reference column 0 (hacan); the outcome shown is attacker_win
  const SessionOptions so = rb::testing::repo_session_options();
  const Session cell = sweep_cell_session(spec, so, 5), reference = sweep_cell_session(spec, so, 3);
  Table tc(cell), tr(reference);
  const auto& outcomes = out["outcomes"];
  const int win = static_cast<int>(std::find(outcomes.begin(), outcomes.end(), "attacker_win") -
                                   outcomes.begin());
  std::vector<double> d;
  double x_sum = 0, y_sum = 0;
  for (std::uint64_t i = 0; i < runs; ++i) {
    RunOptions ro;
    ro.seed = spec.seed;
    ro.run = i;
    RunResult a, b;
    State sa = tc.start, sb = tr.start;
    tc.engine.run(cell.procedure, sa, ro, a);
    tr.engine.run(reference.procedure, sb, ro, b);
    const double x = a.outcome == win ? 1 : 0, y = b.outcome == win ? 1 : 0;
    x_sum += x, y_sum += y;
    d.push_back(x - y);
  }
  const double n = static_cast<double>(runs);
  double mean = 0, var = 0;
  for (double v : d) mean += v / n;
  for (double v : d) var += (v - mean) * (v - mean) / n;
  const double half = 1.959963984540054 * std::sqrt(var / n);
  const auto& c = out["cells"][5];
  REQUIRE(c["method"] == "monte_carlo");
  CHECK(c["value"].get<double>() == Approx(x_sum / n).margin(1e-12));
  CHECK(c["difference"].get<double>() == Approx(mean).margin(1e-12));
  CHECK(c["difference_ci95"][0].get<double>() == Approx(mean - half).margin(1e-12));
  CHECK(c["difference_ci95"][1].get<double>() == Approx(mean + half).margin(1e-12));
  // not the sum of the two variances: common dice make the paired interval narrower
  const double px = x_sum / n, py = y_sum / n;
  const double unpaired = 1.959963984540054 * std::sqrt((px * (1 - px) + py * (1 - py)) / n);
  CHECK(half < unpaired);
  CHECK(out["cells"][3]["difference_ci95"] == nlohmann::json::array({0.0, 0.0}));

  // with the exact mode (small.toml: max_states = 50 leaves some cells to Monte Carlo), the
  // reference a column exact in one row only: both exact, the difference is exact; one Monte
  // Carlo, its own interval moved by the exact value
  SweepSpec with_exact = read_sweep(kRoot / "content/ti4-base/sweeps/small.toml");
  with_exact.reference = "starting / jol_nar / as_written";
  const nlohmann::json small = sweep_json(run(with_exact, 1, 1));
  const std::size_t C = small["columns"].size(), ref = 2;
  REQUIRE(small["columns"][ref] == with_exact.reference);
  int exact_pairs = 0, mixed = 0;
  for (const auto& k : small["cells"]) {
    const auto& r = small["cells"][k["row"].get<std::size_t>() * C + ref];
    const double dd = k["difference"].get<double>();
    if (k["method"] == "exact" && r["method"] == "exact") {
      ++exact_pairs;
      CHECK(k["difference_ci95"] == nlohmann::json::array({dd, dd}));
    } else if (k["method"] == "monte_carlo" && r["method"] == "exact") {
      ++mixed;
      CHECK(k["difference_ci95"][0].get<double>() ==
            Approx(k["ci95"][0].get<double>() - r["value"].get<double>()).margin(1e-15));
      CHECK(k["difference_ci95"][1].get<double>() ==
            Approx(k["ci95"][1].get<double>() - r["value"].get<double>()).margin(1e-15));
    }
  }
  CHECK(exact_pairs > 0);
  CHECK(mixed > 0);
}

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
