// Helpers shared by the unit tests: the fixture root (tests/fixtures/root, with the "mini"
// ruleset and small packs) and a few shortcuts to load content and run its procedures.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include <nlohmann/json.hpp>

#include "content/content.hpp"
#include "script/engine.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

namespace rb::testing {

inline std::filesystem::path test_dir() {
  return RB_TEST_DIR;
}
inline std::filesystem::path fixture_root() {
  return test_dir() / "fixtures" / "root";
}
inline std::filesystem::path broken_dir() {
  return test_dir() / "fixtures" / "broken";
}

// Loads the mini ruleset (whose base pack is mini-base) with the given packs.
inline std::shared_ptr<const Content> load_mini(std::vector<std::string> packs) {
  LoadRequest req;
  req.root = fixture_root();
  req.ruleset = "mini";
  req.packs = std::move(packs);
  return load_content(req);
}

inline std::vector<std::string> pack_ids(const Content& c) {
  std::vector<std::string> ids;
  for (const auto& p : c.packs) ids.push_back(p.id);
  return ids;
}

inline bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// A scenario table for the mini ruleset's setup.
inline toml::table scenario(std::string_view text) {
  return toml::parse(text);
}

// An engine with its start state built from a scenario.
struct MiniTable {
  MiniTable(std::vector<std::string> packs, std::string_view scenario_text,
            EngineOptions options = {})
      : engine(load_mini(std::move(packs)), options) {
    engine.setup(scenario(scenario_text), "scenario.toml", start);
  }
  Engine engine;
  State start;
};

// Runs the probe procedure with the scenario's probe setting; returns the result.
inline RunResult run_probe(MiniTable& table, RunOptions options = {}) {
  State state = table.start;
  RunResult result;
  table.engine.run("probe", state, options, result);
  return result;
}

// Session options rooted at the repository (its packs and scripts).
inline SessionOptions repo_session_options() {
  SessionOptions so;
  so.root = RB_SOURCE_DIR;
  return so;
}

// The exact mode's report (Simulation::exact) of a repository scenario, every pack it names.
inline nlohmann::json exact_report(const std::string& scenario) {
  const SessionOptions so = repo_session_options();
  const Session session = open_session(read_scenario(so.root / scenario), so);
  return Simulation(session).exact(ExactRunOptions{});
}

// Best play with fixed dice (a rules test's [play]): `side`'s picks in the run these d10 results
// make (Simulation::best_picks), the scenario's packs the repository's.
inline RunOptions::BestPicks fixed_dice_picks(Scenario scenario, const std::string& side,
                                              std::initializer_list<int> values,
                                              const std::string& objective = "win") {
  const SessionOptions so = repo_session_options();
  const Session session = open_session(std::move(scenario), so);
  std::vector<DiceStream::Forced> dice;
  for (int v : values) {
    DiceStream::Forced f;
    f.value = v;
    dice.push_back(f);
  }
  return Simulation(session).best_picks({}, side, objective, dice);
}

}  // namespace rb::testing
