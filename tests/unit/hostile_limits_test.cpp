// Hostile packs (tests/fixtures/hostile/): content that tries to crash, hang or leak the runtime.
// Each attempt must end in a clear rb::ScriptError naming the hook (or the call), never a crash,
// a hang or unbounded memory. A test that could hang runs in a thread with a deadline: past it
// the test binary exits with a message, so CI fails instead of hanging.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <thread>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

std::string hostile(const std::string& pack) {
  return (test_dir() / "fixtures" / "hostile" / pack).string();
}

// Runs f in a thread; exits the process if it is not done within `seconds`.
template <class F>
auto within(double seconds, F f) {
  std::packaged_task<decltype(f())()> task(std::move(f));
  auto done = task.get_future();
  std::thread t(std::move(task));
  if (done.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::timeout) {
    std::fprintf(stderr, "hostile test still running after %.0f s: the runtime hangs\n", seconds);
    std::_Exit(3);
  }
  t.join();
  return done.get();
}

// Runs the hostile pack's probe `name` (once, or `runs` times on one engine) and returns the
// first ScriptError's message ("" when every run succeeded).
std::string probe_error(const std::string& name, EngineOptions options = {}, int runs = 1,
                        RunResult* last = nullptr) {
  return within(60, [=] {
    MiniTable table({hostile("hostile-pack")}, "probe = \"" + name + "\"\n", options);
    for (int i = 0; i < runs; ++i) {
      try {
        const RunResult r = run_probe(table);
        if (last) *last = r;
      } catch (const ScriptError& e) {
        return std::string(e.what());
      }
    }
    return std::string();
  });
}

EngineOptions small_limits() {
  EngineOptions o;
  o.hook_budget = 200'000;
  o.procedure_seconds = 1;
  return o;
}

long resident_kib() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * 4;
}

}  // namespace

TEST_CASE("hostile: the budget error cannot be caught and looped (pcall, xpcall, <close>)",
          "[hostile]") {
  for (const char* probe : {"pcall_loop", "xpcall_loop", "close_loop", "error_object_loop"}) {
    DYNAMIC_SECTION(probe) {
      const std::string error = probe_error(probe, small_limits());
      INFO(error);
      CHECK(contains(error, "instruction budget exceeded"));
      CHECK(contains(error, "hook 'hostile-pack:" + std::string(probe) + "'"));
      CHECK(contains(error, "hooks.lua:"));
    }
  }
}

TEST_CASE("hostile: the time-limit error cannot be caught and looped either", "[hostile]") {
  EngineOptions options;
  options.hook_budget = 100'000'000'000;  // far more than the time allows
  options.procedure_seconds = 0.3;
  for (const char* probe : {"pcall_loop", "xpcall_loop", "close_loop"}) {
    DYNAMIC_SECTION(probe) {
      const std::string error = probe_error(probe, options);
      INFO(error);
      CHECK(contains(error, "time limit exceeded"));
      CHECK(contains(error, "hook 'hostile-pack:" + std::string(probe) + "'"));
    }
  }
}

TEST_CASE("hostile: the engine is usable after a run that exhausted its budget", "[hostile]") {
  within(60, [] {
    MiniTable table({hostile("hostile-pack")}, "probe = \"pcall_loop\"\n", small_limits());
    CHECK_THROWS_AS(run_probe(table), ScriptError);
    State state;
    table.engine.setup(scenario("probe = 'count_type_ok'\n[attacker]\nunits = { cruiser = 2 }"),
                       "again.toml", state);
    RunResult result;
    table.engine.run("probe", state, {}, result);
    CHECK(result.metric("n") == 2);
  });
}

TEST_CASE("hostile: file-level code that catches the budget error ends loading", "[hostile]") {
  const std::string error = within(60, [] {
    EngineOptions options = small_limits();
    try {
      LoadRequest req;
      req.root = fixture_root();
      req.ruleset = "mini";
      req.packs = {hostile("hostile-load")};
      Engine engine(load_content(req), options);
    } catch (const ScriptError& e) {
      return std::string(e.what());
    }
    return std::string();
  });
  INFO(error);
  CHECK(contains(error, "loading"));
  CHECK(contains(error, "load.lua:2: instruction budget exceeded"));
}

TEST_CASE("hostile: an engine whose loading throws leaves nothing behind", "[hostile]") {
  // Each failed engine used to stay on the watchdog's list (read every 20 ms after it was freed)
  // and to leak its Lua state.
  within(120, [] {
    LoadRequest req;
    req.root = fixture_root();
    req.ruleset = "mini";
    req.packs = {(broken_dir() / "lua_hook_unknown_key" / "hook-typo").string()};
    const auto content = load_content(req);  // the data loads; its hooks.lua throws
    auto attempt = [&] {
      try {
        Engine engine(content);
      } catch (const ContentError&) {
      }
    };
    for (int i = 0; i < 20; ++i) attempt();  // warm up the allocator
    const long before = resident_kib();
    for (int i = 0; i < 300; ++i) attempt();
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // the watchdog looks twice
    const long grown = resident_kib() - before;
    INFO("resident memory grew by " << grown << " KiB over 300 failed engines");
    CHECK(grown < 8 * 1024);
  });
}

TEST_CASE("hostile: pattern matching that would backtrack for hours is refused", "[hostile]") {
  for (const char* probe : {"pattern_find", "pattern_method", "pattern_gsub"}) {
    DYNAMIC_SECTION(probe) {
      const std::string error = probe_error(probe, small_limits());
      INFO(error);
      CHECK(contains(error, "could backtrack for too long"));
      CHECK(contains(error, "5000 characters"));
      CHECK(contains(error, "hook 'hostile-pack:" + std::string(probe) + "'"));
    }
  }
  RunResult r;
  CHECK(probe_error("pattern_fine", {}, 1, &r).empty());
  CHECK(r.metric("words") == 2000);
  CHECK(r.metric("value") == 7);
  CHECK(r.metric("found") == 0);
}

TEST_CASE("hostile: a decision's options are bounded, whatever their __len says", "[hostile]") {
  const std::string error = probe_error("options_len");
  INFO(error);
  CHECK(contains(error, "decision 'mini.retreat' offers 1099511627776 options (at most 10000)"));
  CHECK(contains(error, "hook 'hostile-pack:options_len'"));
}

TEST_CASE("hostile: a __gc finalizer from content is refused", "[hostile]") {
  // a looping finalizer used to hang the engine's destruction (lua_close); one that calls a
  // saved ctx ran outside any run
  for (const char* probe : {"gc_loop", "gc_ctx"}) {
    DYNAMIC_SECTION(probe) {
      const std::string error = probe_error(probe, small_limits());
      INFO(error);
      CHECK(contains(error, "a metatable with __gc is not allowed"));
      CHECK(contains(error, "hook 'hostile-pack:" + std::string(probe) + "'"));
    }
  }
}

TEST_CASE("hostile: counts and indices from Lua are checked, naming the call", "[hostile]") {
  struct Case {
    const char* probe;
    const char* says;
  };
  const Case cases[] = {
      {"roll_huge", "ctx:roll: 2147483647 dice: the number of dice must be between 0 and 100000"},
      {"roll_negative", "ctx:roll: -5 dice: the number of dice must be between 0 and 100000"},
      {"add_huge", "pool:add: 2000000000 dice"},
      {"add_like_zero", "pool:add: die 0 is not in this pool of 2 dice"},
      {"add_like_far", "pool:add: die 100000000 is not in this pool of 2 dice"},
      {"add_loop", "more than 1000000 dice rolled into pools in one run"},
      {"modify_huge", "pool:modify: the die's modifier would be 1099511627776"},
      {"threshold_huge", "ctx:roll: threshold 70000 is out of range"},
      {"entity_wrap", "ctx:get: bad argument #1: expected an entity id, got 4294967300"},
      {"entity_negative", "ctx:get: bad argument #1: expected an entity id, got -7"},
      {"counter_huge", "ctx:set_counter: value 1099511627776 is out of range"},
      {"hex_wrap", "hex coordinate 4294967302 is off the map"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.probe) {
      const std::string error = probe_error(c.probe, small_limits());
      INFO(error);
      CHECK(contains(error, c.says));
      CHECK(contains(error, "hook 'hostile-pack:" + std::string(c.probe) + "'"));
      CHECK(contains(error, "hooks.lua:"));
    }
  }
}

TEST_CASE("hostile: a side whose modifiers add more dice than a roll may have is an error",
          "[hostile]") {
  const std::string error = within(60, [] {
    LoadRequest req;
    req.root = fixture_root();
    req.ruleset = "mini";
    req.packs = {hostile("hostile-dice")};
    Engine engine(load_content(req));
    State state;
    engine.setup(
        scenario("[attacker]\nunits = { cruiser = 1000 }\n[defender]\nunits = { fighter = 1 }"),
        "scenario.toml", state);
    RunResult result;
    try {
      engine.run("combat", state, {}, result);
    } catch (const ScriptError& e) {
      return std::string(e.what());
    }
    return std::string();
  });
  INFO(error);
  CHECK(contains(error, "roll more than 100000 dice at once"));
  CHECK(contains(error, "procedure 'combat'"));
}

TEST_CASE("hostile: unknown names at run time are errors with the nearest name", "[hostile]") {
  const std::string type = probe_error("count_type_typo");
  INFO(type);
  CHECK(contains(type, "ctx:count: unknown unit type 'dreadnaught'"));
  CHECK(contains(type, "did you mean 'dreadnought'"));
  const std::string role = probe_error("role_typo");
  INFO(role);
  CHECK(contains(role, "ctx:role: unknown role 'attackr'"));
  CHECK(contains(role, "did you mean 'attacker'"));
  // a known type still counts
  within(60, [] {
    MiniTable table({hostile("hostile-pack")},
                    "probe = 'count_type_ok'\n[attacker]\nunits = { cruiser = 3 }");
    CHECK(run_probe(table).metric("n") == 3);
  });
}

TEST_CASE("hostile: a pool handle kept from an earlier run or a closed window is refused",
          "[hostile]") {
  const std::string run = probe_error("saved_pool", {}, 2);
  INFO(run);
  CHECK(contains(run, "size: this pool of dice is from an earlier run"));
  CHECK(contains(run, "hook 'hostile-pack:saved_pool'"));
  const std::string window = probe_error("window_pool");
  INFO(window);
  CHECK(contains(window, "size: this pool of dice was made in a window that has closed"));
  CHECK(contains(window, "hook 'hostile-pack:window_pool'"));
}

TEST_CASE("hostile: spec tables written inline keep memory flat over many runs", "[hostile]") {
  // 20 new spec tables a run, 3000 runs: each used to be anchored for good (60000 tables)
  EngineOptions options;
  options.memory_limit = 8u << 20;
  const std::string error = within(120, [&] {
    MiniTable table({hostile("hostile-pack")},
                    "probe = 'inline_specs'\n[attacker]\nunits = { cruiser = 2 }", options);
    for (int i = 0; i < 3000; ++i) {
      try {
        run_probe(table);
      } catch (const ScriptError& e) {
        return std::string(e.what());
      }
    }
    return std::string();
  });
  INFO(error);
  CHECK(error.empty());
  // within one run, the number of spec tables is a limit with an error naming the hook
  const std::string loop = probe_error("inline_specs_loop");
  INFO(loop);
  CHECK(contains(loop, "more than 10000 different spec tables in one run"));
  CHECK(contains(loop, "hook 'hostile-pack:inline_specs_loop'"));
}

TEST_CASE("hostile: a new name on every call is an error naming the hook", "[hostile]") {
  const std::string error = probe_error("new_names");
  INFO(error);
  CHECK(contains(error, "too many different names made by scripts (more than 100000"));
  CHECK(contains(error, "hook 'hostile-pack:new_names'"));
}

TEST_CASE("hostile: a side of 1000 units rolls 1000 dice (no silent cap)", "[hostile]") {
  RunResult r;
  within(60, [&] {
    MiniTable table({hostile("hostile-pack")},
                    "probe = 'big_side'\n[attacker]\nunits = { cruiser = 1000 }");
    r = run_probe(table);
  });
  CHECK(r.metric("dice") == 1000);
}

TEST_CASE("hostile: a scenario that asks setup for 2^63-1 units stops at the entity limit",
          "[hostile]") {
  const std::string error = within(60, [] {
    try {
      MiniTable table({}, "[attacker]\nunits = { cruiser = 9223372036854775807 }");
    } catch (const ScriptError& e) {
      return std::string(e.what());
    }
    return std::string();
  });
  INFO(error);
  CHECK(contains(error, "setup of scenario.toml"));
  CHECK(contains(error, "ctx:create: more than 100000 entities in one game state"));
}
