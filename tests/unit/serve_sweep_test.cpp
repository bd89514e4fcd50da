// rulebench serve's sweep (POST /api/sweep, /api/sweep/cell; docs/page.md, "Sweep"): the cells
// of a sweep run by the server are those of `rulebench sweep` for the same spec and seed; bad
// requests are 400s naming what is wrong, before anything runs; a sweep is bounded (cells, time)
// and can be cancelled, its cells so far kept; a cell opens as its own scenario, which simulate
// answers with the cell's numbers.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "api.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"
#include "serve_test_util.hpp"
#include "sim/simulate.hpp"
#include "sim/sweep.hpp"

using namespace rb;
using namespace rb::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kRepo = RB_SOURCE_DIR;
const fs::path kBase = kRepo / "content/ti4-base/scenarios/starting_fleets.toml";

serve::ApiOptions options() {
  serve::ApiOptions o;
  o.root = kRepo;
  o.threads = 2;
  return o;
}

// Rows: three attackers; columns: two defenders' fleets in both roles. max_states = 50 sends the
// bigger battles to Monte Carlo, so both ways of answering a cell are in the grid.
const char* kSpec = R"(precision = 3
seed = 7
max_states = 50

[[axis]]
side = "attacker"
factions = ["sol", "letnev", "muaat"]

[[axis]]
side = "defender"
fleets = ["starting", { cruiser = 2 }]

[[axis]]
roles = ["as_written", "swapped"]
)";

// `rulebench sweep SPEC --json` for the spec above on the base scenario, made with the command
// line's entry points (tools/rulebench/sweep.cpp): read_sweep, run_sweep, sweep_json.
json cli_sweep(const std::string& spec_text) {
  const fs::path dir = fs::temp_directory_path() / "rb_serve_sweep_test";
  fs::create_directories(dir);
  const fs::path file = dir / "spec.toml";
  std::ofstream(file) << "scenario = \"" << kBase.string() << "\"\n" << spec_text;
  SessionOptions so;
  so.root = kRepo;
  SweepOptions o;
  o.threads = 2;
  return sweep_json(run_sweep(read_sweep(file), so, o));
}

json job(serve::Api& api, std::uint64_t id) {
  return api.get("/api/jobs/" + std::to_string(id), {}).body;
}

}  // namespace

TEST_CASE("serve: a sweep's cells are rulebench sweep's for the same spec and seed",
          "[serve][sweep]") {
  serve::Api api(options());
  const auto r =
      post(api, "/api/sweep", {{"scenario", read(kBase)}, {"spec", kSpec}, {"wait", true}});
  REQUIRE(r.status == 200);
  REQUIRE(r.body["state"] == "done");
  const json& got = r.body["result"];
  const json want = cli_sweep(kSpec);
  for (const char* key : {"outcomes", "rows", "columns", "shown", "order", "cells"})
    CHECK(got[key] == want[key]);
  CHECK(got["cells"].size() == 3 * 4);
  int exact = 0, monte_carlo = 0;
  for (const auto& c : got["cells"]) (c["method"] == "exact" ? exact : monte_carlo)++;
  CHECK(exact > 0);  // both ways are compared
  CHECK(monte_carlo > 0);
  CHECK(r.body["done"] == 12);
  CHECK(r.body["planned"] == 12);
}

TEST_CASE("serve: a sweep's cell opens as its scenario, which simulate answers alike",
          "[serve][sweep]") {
  serve::Api api(options());
  const json base = {{"scenario", read(kBase)}, {"spec", kSpec}};
  const auto r = post(api, "/api/sweep", [&] {
    json b = base;
    b["wait"] = true;
    return b;
  }());
  REQUIRE(r.status == 200);
  const json& cells = r.body["result"]["cells"];
  // the row letnev (1), the column "starting / swapped" (1): cell 1 * 4 + 1
  auto c = base;
  c["cell"] = 5;
  const auto opened = post(api, "/api/sweep/cell", c);
  REQUIRE(opened.status == 200);
  const std::string toml = opened.body["scenario"];
  // swapped: letnev defends, hacan (the base's defender) attacks, both with starting fleets
  CHECK(contains(toml, "[attacker]\nfaction = 'hacan'\nfleet = 'starting'"));
  CHECK(contains(toml, "[defender]\nfaction = 'letnev'\nfleet = 'starting'"));
  for (std::size_t k : {std::size_t{0}, std::size_t{5}, std::size_t{6}, std::size_t{11}}) {
    DYNAMIC_SECTION("cell " << k) {
      auto q = base;
      q["cell"] = k;
      const auto o = post(api, "/api/sweep/cell", q);
      REQUIRE(o.status == 200);
      const json& cell = cells[k];
      const std::string shown =
          r.body["result"]["outcomes"][r.body["result"]["shown"][k % 4].get<std::size_t>()];
      if (cell["method"] == "exact") {
        const auto s = post(api, "/api/simulate",
                            {{"scenario", o.body["scenario"]}, {"exact", true}, {"wait", true}});
        REQUIRE(s.status == 200);
        CHECK(s.body["result"][shown].get<double>() ==
              Approx(cell["value"].get<double>()).epsilon(1e-12));
      } else {
        const auto s = post(api, "/api/simulate",
                            {{"scenario", o.body["scenario"]},
                             {"runs", cell["runs"]},
                             {"seed", 7},
                             {"threads", 1},
                             {"wait", true}});
        REQUIRE(s.status == 200);
        CHECK(s.body["result"][shown].get<double>() == cell["value"].get<double>());
      }
    }
  }
  c["cell"] = 12;
  const auto off = post(api, "/api/sweep/cell", c);
  CHECK(off.status == 400);
  CHECK(contains(error_of(off), "cell: 12 is out of range (expected 0 to 11)"));
}

TEST_CASE("serve: a bad sweep request is a 400 naming what is wrong, before anything runs",
          "[serve][sweep]") {
  auto o = options();
  o.max_sweep_cells = 100;
  serve::Api api(o);
  const std::string base = read(kBase);
  auto sweep = [&](const json& spec) {
    return post(api, "/api/sweep", {{"scenario", base}, {"spec", spec}, {"wait", true}});
  };
  auto r = post(api, "/api/sweep", {{"scenario", base}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec: the sweep's axes and settings are required"));
  r = sweep(42);
  CHECK(r.status == 400);
  r = post(api, "/api/sweep", {{"scenario", base}, {"spec", kSpec}, {"runs", 5}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "sweep: unknown key 'runs'"));
  r = sweep("scenario = \"/etc/passwd\"\n[[axis]]\nroles = [\"swapped\"]\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec:1: the base scenario is the request's scenario"));
  r = sweep("[[axis]]\nside = \"attacker\"\nfactions = [\"sol\"\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec:"));
  r = sweep("[[axis]]\nside = \"attacker\"\nfactions = []\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec:3: 'factions' in an [[axis]] must be a list of values"));
  r = sweep("[[axis]]\npacks = [\"../../etc\"]\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "names a folder"));
  r = sweep("max_runs = 20000000\n[[axis]]\nroles = [\"swapped\"]\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "max_runs = 20000000 is above this server's cap"));
  r = sweep("max_seconds = 1000\n[[axis]]\nroles = [\"swapped\"]\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "max_seconds = 1000 is above this server's 120"));
  // cells past the cap, counted before the grid is made: 10^20 cells are refused at once
  std::string huge;
  for (int a = 0; a < 20; ++a) {
    huge += "[[axis]]\nchanges = [";
    for (int v = 0; v < 10; ++v)
      huge += "{ label = \"" + std::to_string(v) +
              "\", with = [\"attacker:policy.x=" + std::to_string(v) + "\"] }, ";
    huge += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  r = sweep(huge);
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec: more than 2^64 cells; this server runs at most 100"));
  r = sweep("[[axis]]\nside = \"attacker\"\nfactions = [" + [] {
    std::string s;
    for (int i = 0; i < 101; ++i) s += "\"f" + std::to_string(i) + "\", ";
    return s;
  }() + "]\n");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "spec: 101 cells; this server runs at most 100"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  // a cell the engine refuses: the job's error names the cell, a 400
  r = sweep("[[axis]]\nside = \"attacker\"\nfactions = [\"sol\", \"nosuch\"]\n");
  CHECK(r.status == 400);
  CHECK(r.body["state"] == "error");
  CHECK(contains(error_of(r), "the cell nosuch x all"));
  // the base scenario's errors are the scenario's
  r = post(api, "/api/sweep",
           {{"scenario", "ruleset = \"ti4\"\n[attacker]\nunits = { crusier = 2 }\n[defender]\n"},
            {"spec", kSpec}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "scenario:"));
}

TEST_CASE("serve: a sweep shows its cells while it runs, is cancelled, and stops at its time cap",
          "[serve][sweep]") {
  auto o = options();
  o.threads = 1;
  o.sweep_seconds = 1.5;
  serve::Api api(o);
  // Monte Carlo cells to a fine precision: slow enough to be seen running
  const std::string slow =
      "precision = 0.3\nmax_states = 1\n[[axis]]\nside = \"attacker\"\n"
      "factions = [\"sol\", \"letnev\", \"muaat\", \"hacan\", \"jol_nar\", \"arborec\"]\n"
      "[[axis]]\nroles = [\"as_written\", \"swapped\"]\n";
  auto r = post(api, "/api/sweep", {{"scenario", read(kBase)}, {"spec", slow}});
  REQUIRE(r.status == 202);
  const auto id = r.body["job"].get<std::uint64_t>();
  CHECK(r.body["planned"] == 12);
  // the rows and columns are there at once, then the cells as they are done
  json j;
  for (int i = 0; i < 400; ++i) {
    j = job(api, id);
    if (j["state"] != "running" || (j.contains("partial") && !j["partial"]["cells"].empty())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(j["state"] == "running");
  CHECK(j["partial"]["columns"] == json::array({"as_written", "swapped"}));
  const json first = j["partial"]["cells"][0];
  CHECK(first.contains("value"));
  CHECK(first.contains("ci95"));
  const auto cancelled = api.del("/api/jobs/" + std::to_string(id));
  REQUIRE(cancelled.status == 200);
  CHECK(cancelled.body["state"] == "cancelled");
  CHECK(cancelled.body["result"]["interrupted"] == true);
  CHECK(cancelled.body["result"]["cells"].size() < 12);
  CHECK(cancelled.body["result"]["cells"][0] == first);
  // the time cap: the sweep stops by itself, saying so, with its cells so far (cells to 0.05
  // points: about 36 times the runs of the ones above, past the cap on an idle machine too)
  std::string slower = slow;
  slower.replace(slower.find("precision = 0.3"), 15, "precision = 0.05");
  const auto t0 = std::chrono::steady_clock::now();
  r = post(api, "/api/sweep", {{"scenario", read(kBase)}, {"spec", slower}, {"wait", true}});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.status == 200);
  CHECK(r.body["state"] == "cancelled");
  CHECK(contains(r.body["result"]["warning"].get<std::string>(),
                 "the sweep stopped at this server's time cap (1.5 s)"));
  CHECK(secs < 30);
}

TEST_CASE("serve: a script that fails in a sweep's cell is a 422 naming the cell, as in simulate",
          "[serve][sweep]") {
  serve::ApiOptions o;
  o.root = fixture_root();
  o.threads = 1;
  serve::Api api(o);
  // the mini ruleset's combat fails in the exact mode (its roll writes a new spec table on
  // every call, past the engine's limit): a script's error, which simulate reports as a 422
  const std::string mini =
      "ruleset = \"mini\"\nprocedure = \"combat\"\npacks = [\"mini-base\"]\n"
      "attacker = { units = { cruiser = 2, fighter = 1 } }\n"
      "defender = { units = { dreadnought = 1 } }\n";
  const auto sim =
      post(api, "/api/simulate", {{"scenario", mini}, {"exact", true}, {"wait", true}});
  REQUIRE(sim.status == 422);
  const auto r = post(api, "/api/sweep",
                      {{"scenario", mini},
                       {"spec", "[[axis]]\nchanges = [{ label = \"one\" }]\n"},
                       {"wait", true}});
  INFO(error_of(r));
  CHECK(r.status == 422);
  CHECK(r.body["state"] == "error");
  CHECK(contains(error_of(r), "spec: the cell one x all: "));
  CHECK(contains(error_of(r), "more than 10000 different spec tables"));
}
