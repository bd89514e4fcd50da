// tests/fuzz: libFuzzer targets for the loaders. Each target mutates one file of a tiny fixed
// ruleset and pack (a copy of tests/fixtures/root: the "mini" ruleset, mini-base and a pack made
// from mini-cards, written into a temporary folder at start-up), loads it the way the command
// line does and, when it loads, runs the combat procedure a few times. The targets (one
// executable each: this file and a generated one-line file naming the target, rb_fuzz_target;
// tools/fuzz builds and runs them):
//   fuzz_scenario    the input is a scenario file: read_scenario, open_session, 3 runs
//   fuzz_pack        the input is content/fuzz-pack/pack.toml: load_content, Engine, 3 runs
//   fuzz_data        the input is the pack's data file (cards.toml): the same
//   fuzz_ruleset     the input is scripts/mini/ruleset.toml: the same with mini-base only
//   fuzz_rules_test  the input is a rules-test file: run_rules_test_file
// A ContentError, ScriptError or UsageError is the expected answer to a bad input. Any other
// exception is a finding (the loaders promise an error naming file and line), as is every
// crash, sanitizer report, hang (-timeout) or runaway memory (-rss_limit_mb) libFuzzer sees.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>

#include <toml++/toml.h>

#include "base/error.hpp"
#include "content/content.hpp"
#include "sim/rules_test.hpp"
#include "sim/scenario.hpp"
#include "sim/simulate.hpp"

namespace fs = std::filesystem;

namespace {

enum class Target { scenario, pack, data, ruleset, rules_test };
Target g_target = Target::scenario;

// Small limits, so a run that loops ends as an error long before libFuzzer's -timeout.
rb::EngineOptions engine_options() {
  rb::EngineOptions o;
  o.hook_budget = 2'000'000;
  o.procedure_seconds = 5;
  o.memory_limit = 64u << 20;
  return o;
}

constexpr std::string_view kPackToml = R"(id = "fuzz-pack"
name = "Fuzz pack"
version = "1.0.0"
ruleset = "mini"
depends = ["mini-base"]
data = ["cards.toml"]
)";

// The scenario the pack, data and ruleset targets run.
constexpr std::string_view kScenario = R"(ruleset = "mini"
procedure = "combat"
attacker = { units = { cruiser = 2, fighter = 1 } }
defender = { units = { dreadnought = 1, fighter = 2 } }
)";

fs::path g_root;  // the temporary copy

void write_file(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void remove_root() {
  std::error_code ec;
  if (!g_root.empty()) fs::remove_all(g_root, ec);
}

void make_root() {
  const fs::path fixtures = fs::path(RB_SOURCE_DIR) / "tests" / "fixtures" / "root";
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/rb-fuzz-XXXXXX";
  if (!mkdtemp(templ.data())) {
    std::perror("mkdtemp");
    std::abort();
  }
  g_root = templ;
  std::atexit(remove_root);
  const auto opts = fs::copy_options::recursive;
  fs::create_directories(g_root / "scripts" / "mini");
  fs::copy(fixtures / "scripts" / "mini", g_root / "scripts" / "mini", opts);
  fs::create_directories(g_root / "content" / "mini-base");
  fs::copy(fixtures / "content" / "mini-base", g_root / "content" / "mini-base", opts);
  const fs::path pack = g_root / "content" / "fuzz-pack";
  fs::create_directories(pack);
  fs::copy(fixtures / "content" / "mini-cards", pack, opts);  // cards.toml, hooks.lua
  write_file(pack / "pack.toml", kPackToml);                  // without the script
  fs::create_directories(g_root / "scenarios");
  fs::create_directories(g_root / "tests");
}

rb::SessionOptions session_options() {
  rb::SessionOptions so;
  so.root = g_root;
  return so;
}

// A few runs of a session's procedure and its report, as `simulate` does.
void run_session(const rb::Session& session) {
  rb::Simulation sim(session);
  rb::SimOptions o;
  o.runs = 3;
  o.threads = 1;
  o.engine = engine_options();
  const rb::Tally tally = sim.run(o);
  (void)sim.report(tally, o.seed);
}

// Loads packs (paths or ids) with the fixed scenario, and runs it.
void load_and_run(std::vector<std::string> packs) {
  rb::LoadRequest req;
  req.root = g_root;
  req.packs = std::move(packs);
  rb::Session session;
  session.content = rb::load_content(req);
  session.scenario =
      rb::scenario_from_table(toml::parse(kScenario), "fuzz-scenario.toml", g_root / "scenarios");
  session.procedure = session.scenario.procedure;
  run_session(session);
}

void one_input(std::string_view text) {
  switch (g_target) {
    case Target::scenario: {
      const fs::path file = g_root / "scenarios" / "fuzz.toml";
      write_file(file, text);
      run_session(rb::open_session(rb::read_scenario(file), session_options()));
      break;
    }
    case Target::pack:
      write_file(g_root / "content" / "fuzz-pack" / "pack.toml", text);
      load_and_run({(g_root / "content" / "fuzz-pack").string()});
      break;
    case Target::data:
      write_file(g_root / "content" / "fuzz-pack" / "cards.toml", text);
      load_and_run({(g_root / "content" / "fuzz-pack").string()});
      break;
    case Target::ruleset:
      write_file(g_root / "scripts" / "mini" / "ruleset.toml", text);
      load_and_run({"mini-base"});
      break;
    case Target::rules_test: {
      const fs::path file = g_root / "tests" / "fuzz_test.toml";
      write_file(file, text);
      (void)rb::run_rules_test_file(file, session_options());
      break;
    }
  }
}

}  // namespace

extern "C" const char rb_fuzz_target[];  // "scenario", "pack"... (the generated file)

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string_view name = rb_fuzz_target;
  if (name == "scenario")
    g_target = Target::scenario;
  else if (name == "pack")
    g_target = Target::pack;
  else if (name == "data")
    g_target = Target::data;
  else if (name == "ruleset")
    g_target = Target::ruleset;
  else if (name == "rules_test")
    g_target = Target::rules_test;
  else
    std::abort();
  make_root();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const rb::Error&) {
    // a clear error: what bad input should get
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not a rulebench error: %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
  return 0;
}
