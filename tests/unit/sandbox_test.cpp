// Sandbox tests: hooks of the sandbox-pack fixture (tests/fixtures/root/content/sandbox-pack)
// misbehave when the probe procedure opens mini.probe with their id. Each misbehaviour must be a
// clear rb::ScriptError naming the hook and the window: never a hang, a crash or an escape.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

std::string probe_scenario(const std::string& probe) {
  return "probe = \"" + probe + "\"\n";
}

// Runs one probe and returns the ScriptError's message ("" when the run succeeded).
std::string probe_error(const std::string& probe, EngineOptions options = {}) {
  MiniTable table({"sandbox-pack"}, probe_scenario(probe), options);
  try {
    run_probe(table);
  } catch (const ScriptError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sandbox: a probe that is not named does nothing", "[sandbox]") {
  MiniTable table({"sandbox-pack"}, probe_scenario("nothing"));
  CHECK(run_probe(table).outcome_name == "draw");
}

TEST_CASE("sandbox: forbidden libraries and loaders are clear errors naming hook and window",
          "[sandbox]") {
  struct Case {
    const char* probe;
    const char* says;  // what Lua reports
  };
  const Case cases[] = {
      {"os_execute", "global 'os'"},
      {"io_open", "global 'io'"},
      {"load", "global 'load'"},
      {"dofile", "global 'dofile'"},
      {"require_outside", "require '../x': module names are dotted names inside the pack"},
      {"string_dump", "field 'dump'"},
      {"string_dump_method", "method 'dump'"},
      {"debug", "global 'debug'"},
      {"randomseed", "math.randomseed is not available"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.probe) {
      const std::string error = probe_error(c.probe);
      INFO(error);
      REQUIRE_FALSE(error.empty());
      CHECK(contains(error, "hook 'sandbox-pack:" + std::string(c.probe) + "'"));
      CHECK(contains(error, "window mini.probe"));
      CHECK(contains(error, "hooks.lua:"));  // the file and line of the offending call
      CHECK(contains(error, c.says));
    }
  }
}

TEST_CASE("sandbox: require loads a module from inside the pack", "[sandbox]") {
  // the ruleset has a lib/helper.lua too (answer -1): the pack's own comes first
  MiniTable table({"sandbox-pack"}, probe_scenario("require_inside"));
  CHECK(run_probe(table).metric("helper") == 42);
}

TEST_CASE("sandbox: a pack may require its ruleset's modules, and nothing else", "[sandbox]") {
  MiniTable table({"sandbox-pack"}, probe_scenario("require_ruleset"));
  CHECK(run_probe(table).metric("ruleset_lib") == 7);
  const std::string error = probe_error("require_missing");
  INFO(error);
  CHECK(contains(
      error, "require 'no_such_module': no file no_such_module.lua in this pack or its ruleset"));
}

TEST_CASE("sandbox: an endless loop in a hook stops at the instruction budget", "[sandbox]") {
  EngineOptions options;
  options.hook_budget = 200'000;
  const std::string error = probe_error("endless_loop", options);
  INFO(error);
  CHECK(contains(error, "instruction budget"));
  CHECK(contains(error, "hook 'sandbox-pack:endless_loop'"));
  CHECK(contains(error, "hooks.lua:22: instruction budget exceeded"));  // the looping line
  CHECK(contains(error, "window mini.probe"));
}

TEST_CASE("sandbox: an endless loop in a hook is stopped by the run's time limit too",
          "[sandbox]") {
  // a hook budget far larger than the run's time allows: the run's limit still holds
  EngineOptions options;
  options.hook_budget = 100'000'000'000;
  options.procedure_seconds = 0.3;
  const std::string error = probe_error("endless_loop", options);
  INFO(error);
  CHECK(contains(error, "time limit exceeded"));
  CHECK(contains(error, "hook 'sandbox-pack:endless_loop'"));
}

TEST_CASE("sandbox: an endless loop in a procedure stops at the run's time limit", "[sandbox]") {
  // procedures run without a count hook; a watchdog thread enforces their time limit
  EngineOptions options;
  options.procedure_seconds = 0.3;
  MiniTable table({}, probe_scenario("nothing"), options);
  State state = table.start;
  RunResult result;
  std::string error;
  try {
    table.engine.run("spin", state, {}, result);
  } catch (const ScriptError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(contains(error, "procedure 'spin'"));
  CHECK(contains(error, "spin.lua:5: time limit exceeded"));
  CHECK(contains(error, "ran longer than 0.3 s"));  // the limit it ran under, not 60 s
  // the engine is usable afterwards, and a normal run is not stopped
  state = table.start;
  CHECK_NOTHROW(table.engine.run("probe", state, {}, result));
}

TEST_CASE("sandbox: a memory bomb stops with an out-of-memory error, not a crash", "[sandbox]") {
  EngineOptions options;
  options.memory_limit = 32u << 20;
  MiniTable table({"sandbox-pack"}, probe_scenario("memory_bomb"), options);
  std::string error;
  try {
    run_probe(table);
  } catch (const ScriptError& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(contains(error, "out of memory"));
  CHECK(contains(error, "hook 'sandbox-pack:memory_bomb'"));
  // the engine is still usable afterwards
  State state;
  table.engine.setup(scenario("probe = 'require_inside'"), "again.toml", state);
  RunResult result;
  table.engine.run("probe", state, {}, result);
  CHECK(result.metric("helper") == 42);
}

TEST_CASE("sandbox: math.random draws from the run's dice stream", "[sandbox]") {
  MiniTable table({"sandbox-pack"}, probe_scenario("random"));
  auto draws = [&](std::uint64_t seed, std::uint64_t run) {
    RunOptions options;
    options.seed = seed;
    options.run = run;
    const RunResult r = run_probe(table, options);
    return std::vector<double>{r.metric("r1", -1), r.metric("r2", -1), r.metric("r3", -1)};
  };
  const auto first = draws(11, 2);
  for (double d : first) CHECK(d >= 0);
  CHECK(draws(11, 2) == first);  // the same seed and run: the same numbers
  // another engine (another Lua state) with the same seed and run: the same numbers again
  MiniTable other({"sandbox-pack"}, probe_scenario("random"));
  RunOptions options;
  options.seed = 11;
  options.run = 2;
  const RunResult r = run_probe(other, options);
  CHECK(std::vector<double>{r.metric("r1"), r.metric("r2"), r.metric("r3")} == first);
  CHECK(draws(11, 3) != first);  // another run index
  CHECK(draws(12, 2) != first);  // another seed
}

TEST_CASE("sandbox: hook{} called during a run fails because registrations are frozen",
          "[sandbox]") {
  MiniTable table({"sandbox-pack"}, probe_scenario("hook_during_run"));
  try {
    run_probe(table);
    FAIL("hook{} was accepted during a run");
  } catch (const Error& e) {
    INFO(e.what());
    CHECK(contains(e.what(), "frozen"));
    CHECK(contains(e.what(), "hooks.lua:"));
  }
  CHECK(table.engine.bus().hooks().size() == 16);  // the fixture's 16 probes; nothing was added
}
