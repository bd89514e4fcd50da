// sim/scenario: a scenario file (a ruleset, a procedure, packs, and the game-specific settings
// that the ruleset's setup script reads) and a Session: the content it needs, loaded once and
// shared by every thread, each of which builds its own Engine and start state from it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include "content/content.hpp"
#include "script/engine.hpp"

namespace rb {

struct Scenario {
  std::string file;   // for messages
  fs::path path;      // the file it was read from ("" when inline)
  fs::path dir;       // packs named by path are relative to it
  toml::table table;  // the whole scenario, handed to the ruleset's setup
  std::string ruleset;
  std::string procedure;  // "" : the ruleset's first procedure
  std::vector<std::string> packs;
  // [bench] (the runtime's, not handed to setup): what `rulebench bench` compares this scenario
  // with when it is a bench case (scenarios/bench_<name>.toml of a pack)
  double bench_target = 0;                              // combats/s to reach, one thread
  std::vector<std::pair<std::string, double>> anchors;  // other tools' combats/s, by name
  double exact_target = 0;  // milliseconds the exact mode may take (bench --exact)
  std::vector<std::pair<std::string, double>> exact_anchors;  // other tools' exact times, ms
  fs::path bench_baseline;  // the same battle without abilities (empty: none)
  // [play] (the runtime's, not handed to setup): the report sides that play their best response
  // instead of their policy (exact mode only, docs/exact.md), each with the line that says so,
  // and what they maximise (simulate --best SIDE --objective O)
  std::vector<std::pair<std::string, int>> best_sides;
  std::string best_objective = "win";
  int objective_line = 0;
};

// The scenario's [play] as `simulate --best` takes it: "" when every side plays its policy, the
// side, or "both" when two do.
std::string best_play_of(const Scenario& s);
// A ContentError at [play]'s line when the scenario asks for best play: `what` ("Monte Carlo",
// "compare", ...) cannot give it.
void reject_best_play(const Scenario& s, const std::string& what);

// The form a pack folder named in a scenario or on the command line is kept in: absolute, so
// that it is never mistaken for a pack id (see is_pack_path).
std::string pack_path(const fs::path& p);

// Reads a scenario file; throws ContentError.
Scenario read_scenario(const fs::path& file);
// A scenario from a TOML table (inline in a rules test).
Scenario scenario_from_table(const toml::table& t, const std::string& file, const fs::path& dir);

struct SessionOptions {
  fs::path root;                           // the repository (scripts/, content/)
  std::vector<fs::path> search;            // more pack folders
  std::vector<std::string> extra_packs;    // packs added on the command line
  std::vector<std::string> without_packs;  // packs removed (compare)
  bool all_packs = false;                  // load every pack of the ruleset (bench)
};

struct Session {
  Scenario scenario;
  std::shared_ptr<const Content> content;
  std::string procedure;
};

Session open_session(Scenario scenario, const SessionOptions& options);

// The procedure the scenario runs: its own, or the ruleset's first when it names none (a
// ContentError naming the scenario's file when the ruleset has none).
std::string procedure_for(const Content& content, const Scenario& scenario);

// What a session runs, for people: the lines that open simulate, compare and trace ("scenario
// ...", "ruleset R (...), procedure P", "packs my-pack 0.1.0", then each setting
// of the scenario's tables as written: each side's fleet, faction, technologies, cards and
// policy), each line starting with `indent`.
std::string describe_session(const Session& s, const std::string& indent = "");
// The same for programs: {"file", "ruleset", "procedure", "packs": [{"id", "version"}],
// "settings": the scenario's table as JSON}.
nlohmann::json session_json(const Session& s);

// An Engine with the session's start state built.
struct Table {
  explicit Table(const Session& s, EngineOptions o = {});
  Engine engine;
  State start;
};

// The repository root: $RULEBENCH_ROOT, else the source folder this binary was built from.
fs::path default_root();

}  // namespace rb
