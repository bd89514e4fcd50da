// rulebench: the command line of the Rulebench rules platform.
#include <iostream>
#include <thread>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "base/error.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace rb;
  CLI::App app{"Rulebench: rules scripting, rules tests and simulation for tabletop combat games"};
  app.require_subcommand(1);
  cli::Common common;
  app.add_option(
      "--root", common.root,
      "repository holding scripts/ and content/ (default: $RULEBENCH_ROOT or the build's source)");
  app.add_option("--packs", common.pack_dirs, "more folders that hold packs");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose,
               "diagnostics on stderr: packs in load order, scripts, hooks");

  auto* version = app.add_subcommand("version", "print the version");

  std::vector<std::string> check_packs;
  auto* check = app.add_subcommand(
      "check", "validate packs: TOML, ids, windows, scripts (all packs when none given)");
  check->add_option("pack", check_packs, "pack folders or ids");

  std::string list_what = "packs", list_ruleset = "ti4";
  auto* list = app.add_subcommand("list", "list packs, units, cards, windows, decisions or hooks");
  list->add_option("what", list_what, "packs | units | cards | windows | decisions | hooks")
      ->check(CLI::IsMember({"packs", "units", "cards", "windows", "decisions", "hooks"}));
  list->add_option("--ruleset", list_ruleset, "ruleset whose packs are listed (default ti4)");

  std::string trace_scenario;
  std::uint64_t trace_seed = 1;
  bool trace_json = false;
  Changes trace_changes;
  auto* trace = app.add_subcommand("trace", "run one combat and narrate it");
  trace->add_option("scenario", trace_scenario, "scenario file")->required();
  trace->add_option("--seed", trace_seed, "random seed");
  trace->add_flag("--json", trace_json, "JSON lines instead of the narrative");
  bool trace_interactive = false;
  trace->add_flag("-i,--interactive", trace_interactive,
                  "you make the decisions (retreats, hits, optional abilities) at the terminal");
  trace->add_option("--with", trace_changes.with,
                    "records, packs or settings to add ([SIDE:]ID, PACK, [SIDE:]PATH=VALUE)");
  trace->add_option("--without", trace_changes.without, "records, packs or settings to remove");

  cli::SimulateArgs sim;
  auto* simulate =
      app.add_subcommand("simulate", "Monte Carlo: outcome probabilities with 95% intervals");
  simulate->add_option("scenario", sim.scenario, "scenario file")->required();
  auto* runs = simulate->add_option("--runs", sim.runs, "number of runs (default 100000)");
  simulate->add_option("--precision", sim.precision, "run until every 95% half-width is below this")
      ->excludes(runs);
  simulate->add_option("--seed", sim.seed, "random seed (default 1)");
  simulate->add_option("--threads", sim.threads, "threads (default: every core)");
  simulate->add_flag("--json", sim.json, "print one JSON object");
  simulate->add_option("--with", sim.changes.with,
                       "records, packs or settings to add: [SIDE:]RECORD, PACK, [SIDE:]PATH=VALUE");
  simulate->add_option("--without", sim.changes.without, "records, packs or settings to remove");

  cli::CompareArgs cmp;
  auto* compare = app.add_subcommand(
      "compare",
      "the scenario as written (A) against it with records, packs or settings added or removed "
      "(B), "
      "on common random numbers: each arm, the paired difference with its 95% interval");
  compare->add_option("scenario", cmp.scenario, "scenario file")->required();
  compare->add_option(
      "--with", cmp.changes.with,
      "add to B: attacker:cruiser_ii (one side), morale_boost (every side), a pack id "
      "or folder, attacker:policy.sustain=last (a setting)");
  compare->add_option(
      "--without", cmp.changes.without,
      "remove from B: the same forms; a setting without =VALUE goes back to its default");
  compare->add_option("--runs", cmp.runs, "pairs of runs (default 100000)");
  compare->add_option("--seed", cmp.seed, "random seed (default 1)");
  compare->add_option("--threads", cmp.threads, "threads (default: every core)");
  compare->add_flag("--json", cmp.json, "print one JSON object");

  cli::BenchArgs bench_args;
  auto* bench = app.add_subcommand("bench",
                                   "combats per second on three fixed TI4 space combats, every "
                                   "pack loaded, against the anchors");
  bench->add_option("--runs", bench_args.runs, "runs per scenario (default: about 10 s in all)");
  bench->add_option("--seconds", bench_args.seconds,
                    "time the default runs aim at, in all (default 10)");
  bench->add_option("--threads", bench_args.threads, "threads (default 1)");
  bench->add_option("--seed", bench_args.seed, "random seed (default 1)");
  bench->add_flag("--json", bench_args.json, "print one JSON object");

  std::vector<std::string> test_paths;
  bool test_verbose = false;
  auto* test =
      app.add_subcommand("test", "run rules tests (every pack's tests when no path is given)");
  test->add_option("path", test_paths, "test files or folders");
  test->add_flag("-v,--verbose", test_verbose, "print the trace of failing tests");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  spdlog::set_pattern("%^%l%$: %v");
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  try {
    if (*version) {
      std::cout << "rulebench " << RB_VERSION << "\n";
      return 0;
    }
    if (*check) return cli::check(common, check_packs);
    if (*list) return cli::list(common, list_what, list_ruleset);
    if (*trace)
      return cli::trace(common, trace_scenario, trace_seed, trace_json, trace_interactive,
                        trace_changes);
    if (*simulate) return cli::simulate(common, sim);
    if (*compare) return cli::compare(common, cmp);
    if (*bench) return cli::bench(common, bench_args);
    if (*test) return cli::test(common, test_paths, test_verbose);
  } catch (const rb::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
