// rulebench: the command line of the Rulebench rules platform.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <thread>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "base/error.hpp"
#include "base/text.hpp"
#include "commands.hpp"
#include "http.hpp"

namespace {

// --rounds: the most rounds a stop may name (scripts/ti4/setup.lua's MAX_ROUNDS)
constexpr std::uint64_t kMaxRounds = 1000;
constexpr const char* kRoundsHelp =
    "stop every combat after round K: the outcome ongoing and the state then (the scenario's "
    "rounds = K; docs/ti4.md)";

// A whole number written in digits only (no sign, no exponent, no fraction) within [lo, hi]:
// "--runs -1" or "--runs 1e20" is an error, not a wrapped or truncated number.
CLI::Validator whole(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
        std::uint64_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec == std::errc::invalid_argument || p != s.data() + s.size())
          return "'" + s + "' is not a whole number (expected " + range + ")";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi)
          return "'" + s + "' is out of range (expected " + range + ")";
        return "";
      },
      "INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

// A finite number above zero.
CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
          return "'" + s + "' is not a number above zero";
        return "";
      },
      "NUMBER > 0");
}

constexpr std::uint64_t kMaxRuns = 1'000'000'000'000;  // 10^12
constexpr std::uint64_t kMaxSeed = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMaxThreads = 1024;

}  // namespace

int main(int argc, char** argv) {
  using namespace rb;
  CLI::App app{"Rulebench: rules scripting, rules tests and simulation for tabletop combat games"};
  app.require_subcommand(1);
  cli::Common common;
  app.add_option(
      "--root", common.root,
      "repository holding scripts/ and content/ (default: $RULEBENCH_ROOT or the build's source)");
  app.add_option("--packs", common.pack_dirs,
                 "more folders that hold packs (each a pack folder or a folder of pack folders; "
                 "repeatable)");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose,
               "diagnostics on stderr: packs in load order, scripts, hooks");

  auto* version = app.add_subcommand("version", "print the version");

  std::vector<std::string> check_packs;
  auto* check = app.add_subcommand(
      "check", "validate packs: TOML, ids, windows, scripts (all packs when none given)");
  check->add_option("pack", check_packs, "pack folders or ids");
  bool check_json = false;
  check->add_flag("--json", check_json, "print one JSON object");

  std::string list_what = "packs", list_ruleset = "ti4";
  auto* list = app.add_subcommand(
      "list",
      "list packs, units, cards, windows, decisions, hooks, purposes, roles, counts or the "
      "records of a kind");
  list->add_option("what", list_what,
                   "packs | units | cards | windows | decisions | hooks | purposes (what rolls "
                   "are for: a modifier's purpose) | roles (a modifier's role) | counts (records "
                   "and the rules tests naming them) | a record kind of the ruleset, singular or "
                   "plural (factions, technologies, ...)");
  list->add_option("--ruleset", list_ruleset, "ruleset whose packs are listed (default ti4)");
  bool list_json = false;
  list->add_flag("--json", list_json, "print one JSON object");
  std::vector<std::string> list_packs;
  list->add_option("--pack", list_packs,
                   "also a pack that changes other packs' records (a house rule), left out "
                   "otherwise (repeatable)");

  std::string trace_scenario;
  std::uint64_t trace_seed = 1;
  bool trace_json = false;
  Changes trace_changes;
  auto* trace = app.add_subcommand("trace", "run one combat and narrate it");
  trace->add_option("scenario", trace_scenario, "scenario file")->required();
  trace->add_option("--seed", trace_seed, "random seed")->check(whole(0, kMaxSeed));
  trace->add_flag("--json", trace_json, "JSON lines instead of the narrative");
  bool trace_interactive = false;
  trace->add_flag("-i,--interactive", trace_interactive,
                  "you make the decisions (retreats, hits, optional abilities) at the terminal");
  trace->add_option("--with", trace_changes.with,
                    "records, packs or settings to add ([SIDE:]ID, PACK, [SIDE:]PATH=VALUE)");
  trace->add_option("--without", trace_changes.without, "records, packs or settings to remove");
  // --rounds k: the scenario's rounds = k (every combat stops after round k: outcome ongoing)
  std::uint64_t trace_rounds = 0;
  trace->add_option("--rounds", trace_rounds, kRoundsHelp)->check(whole(1, kMaxRounds));
  bool trace_verbose = false;
  trace->add_flag("-v,--verbose", trace_verbose,
                  "every event: also the rules that showed nothing and each repeated window");
  std::string trace_best, trace_objective = "win";
  auto* trace_best_opt =
      trace
          ->add_option("--best", trace_best,
                       "one run (drawn with --seed) of SIDE's best play (exact mode, "
                       "docs/exact.md): what each step lost, damaged or repaired, and at "
                       "each of SIDE's decisions every option's value")
          ->type_name("SIDE");
  trace
      ->add_option("--objective", trace_objective,
                   "what --best maximises: win (default), not_lose, metric:NAME, metric:-NAME")
      ->check([](const std::string& v) {
        return v == "win" || v == "not_lose" || (v.rfind("metric:", 0) == 0 && v.size() > 7)
                   ? std::string()
                   : std::string("not one of: win, not_lose, metric:NAME, metric:-NAME");
      })
      ->needs(trace_best_opt);

  cli::SimulateArgs sim;
  auto* simulate =
      app.add_subcommand("simulate", "Monte Carlo: outcome probabilities with 95% intervals");
  simulate->add_option("scenario", sim.scenario, "scenario file")->required();
  auto* runs = simulate->add_option("--runs", sim.runs, "number of runs (default 100000)")
                   ->check(whole(1, kMaxRuns));
  auto* precision =
      simulate
          ->add_option("--precision", sim.precision,
                       "run until every probability's 95% half-width (outcomes, the report's "
                       "probabilities) is below this; the runs are projected from the variance "
                       "seen (exit 1 if --max-runs stops it first)")
          ->check(positive())
          ->excludes(runs);
  auto* precision_mean =
      simulate
          ->add_option("--precision-mean", sim.precision_mean,
                       "run until every mean's 95% half-width (rounds, ...) is below this, in "
                       "the mean's own unit (exit 1 if --max-runs stops it first)")
          ->check(positive())
          ->excludes(runs);
  auto* max_runs =
      simulate
          ->add_option("--max-runs", sim.max_runs,
                       "the most runs --precision or --precision-mean may take (default 10^8)")
          ->check(whole(1, kMaxRuns));
  simulate->add_option("--seed", sim.seed, "random seed (default 1)")->check(whole(0, kMaxSeed));
  simulate->add_option("--threads", sim.threads, "threads (default: every core)")
      ->check(whole(1, kMaxThreads));
  simulate->add_flag("--json", sim.json, "print one JSON object");
  auto* exact_flag = simulate->add_flag(
      "--exact", sim.exact,
      "exact probabilities: every roll enumerated, the run solved as a Markov chain");
  exact_flag->excludes(runs)->excludes(precision)->excludes(precision_mean);
  simulate
      ->add_option("--max-states", sim.max_states,
                   "the most states the exact mode may explore (default 10^6)")
      ->check(whole(1, 100'000'000))
      ->needs(exact_flag);
  simulate
      ->add_option("--max-memory", sim.max_memory,
                   "the most MiB the exact mode's states may take (default 2048)")
      ->check(whole(1, 1 << 20))
      ->needs(exact_flag);
  simulate
      ->add_option("--max-branches", sim.max_branches,
                   "the most leaves one step may have from one state in the exact mode (default "
                   "200000; best play's choices multiply them)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40))
      ->needs(exact_flag);
  simulate
      ->add_option("--max-seconds", sim.max_seconds,
                   "the exact mode's time limit; past it, it stops and says so (default 120)")
      ->check(CLI::Range(0.01, 86400.0))
      ->needs(exact_flag);
  simulate->add_option("--best", sim.best,
                       "SIDE's best play against the others' policies: its decisions "
                       "chosen to maximise --objective; both: the two sides answer each "
                       "other in turn until neither changes (exact mode; docs/exact.md); "
                       "none: every side plays its policy, whatever the scenario's "
                       "[play] says");
  auto* objective =
      simulate
          ->add_option(
              "--objective", sim.objective,
              "what --best maximises: win (the side's win, default), not_lose (its win "
              "or a draw), metric:NAME (the expectation of a mean of the report, by its key "
              "or metric) or metric:-NAME (its opposite)")
          ->check([](const std::string& v) {
            return v == "win" || v == "not_lose" || (v.rfind("metric:", 0) == 0 && v.size() > 7)
                       ? std::string()
                       : std::string("not one of: win, not_lose, metric:NAME, metric:-NAME");
          });
  simulate->add_flag("--decisions", sim.decisions,
                     "with --best (or the scenario's [play]): a table of the (first) best side's "
                     "first decisions, each option's value and the best one's margin");
  simulate->add_flag("--no-memo", sim.no_memo,
                     "run every step of every run (the step memo replays steps; same numbers)");
  simulate->add_option("--with", sim.changes.with,
                       "records, packs or settings to add: [SIDE:]RECORD, PACK, [SIDE:]PATH=VALUE");
  simulate->add_option("--without", sim.changes.without, "records, packs or settings to remove");
  std::uint64_t sim_rounds = 0;
  simulate->add_option("--rounds", sim_rounds, kRoundsHelp)->check(whole(1, kMaxRounds));

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
  compare->add_option("--runs", cmp.runs, "pairs of runs (default 100000)")
      ->check(whole(1, kMaxRuns));
  compare->add_option("--seed", cmp.seed, "random seed (default 1)")->check(whole(0, kMaxSeed));
  compare->add_option("--threads", cmp.threads, "threads (default: every core)")
      ->check(whole(1, kMaxThreads));
  compare->add_flag("--json", cmp.json, "print one JSON object");
  compare->add_option("--rounds", cmp.rounds, kRoundsHelp + std::string(", in both arms"))
      ->check(whole(1, kMaxRounds));
  auto* cmp_exact = compare->add_flag(
      "--exact", cmp.exact,
      "both arms exact: the exact difference, no interval (see simulate --exact)");
  compare
      ->add_option("--max-states", cmp.max_states,
                   "the most states the exact mode may explore in each arm (default 10^6)")
      ->check(whole(1, 100'000'000))
      ->needs(cmp_exact);
  compare
      ->add_option("--max-memory", cmp.max_memory,
                   "the most MiB the exact mode's states may take in each arm (default 2048)")
      ->check(whole(1, 1 << 20))
      ->needs(cmp_exact);
  compare
      ->add_option("--max-seconds", cmp.max_seconds,
                   "the exact mode's time limit in each arm (default 120)")
      ->check(CLI::Range(0.01, 86400.0))
      ->needs(cmp_exact);

  cli::SweepArgs sweep_args;
  std::string shard_text;
  auto* sweep = app.add_subcommand(
      "sweep",
      "a grid of variants of a scenario (docs/sweep.md): each cell exact when the exact mode "
      "answers within the spec's bounds, else Monte Carlo to a precision");
  sweep->add_option("spec", sweep_args.spec, "the sweep spec (TOML)")->required();
  sweep
      ->add_option("--precision", sweep_args.precision,
                   "Monte Carlo cells: every probability's 95% half-width, in points (default "
                   "the spec's, else 0.5)")
      ->check(positive());
  auto* sweep_seed =
      sweep->add_option("--seed", sweep_args.seed, "random seed (default the spec's, else 1)")
          ->check(whole(0, kMaxSeed));
  sweep->add_option("--threads", sweep_args.threads, "cells at once (default: every core)")
      ->check(whole(1, kMaxThreads));
  sweep->add_option("--shard", shard_text,
                    "i/N: only the cells k with k % N == i-1, written as counts (a shard file for "
                    "merge)");
  auto* sweep_json_flag = sweep->add_flag("--json", sweep_args.json, "print one JSON object");
  sweep->add_flag("--csv", sweep_args.csv, "print CSV, a line per cell")->excludes(sweep_json_flag);
  std::vector<std::string> merge_files;
  cli::SweepArgs merge_args;
  auto* merge = app.add_subcommand(
      "merge",
      "the shard files of a sweep (--shard i/N) printed as the unsharded sweep prints them");
  merge->add_option("shards", merge_files, "shard files")->required();
  auto* merge_json = merge->add_flag("--json", merge_args.json, "print one JSON object");
  merge->add_flag("--csv", merge_args.csv, "print CSV")->excludes(merge_json);

  cli::OptimiseArgs opt_args;
  auto* optimise = app.add_subcommand(
      "optimise",
      "the best builds for a budget against a given fleet (docs/optimise.md): every legal build "
      "enumerated, the most promising evaluated exactly where the exact mode answers, else by "
      "Monte Carlo");
  optimise->add_option("spec", opt_args.spec, "the optimise spec (TOML)")->required();
  optimise
      ->add_option("--target", opt_args.target,
                   "print the cheapest build whose value reaches it (a probability 0..1, or "
                   "resources for resources_kept)")
      ->check(CLI::Range(0.0, 1e9));
  optimise->add_option("--top", opt_args.top, "builds printed (default the spec's, else 10)")
      ->check(whole(1, 100000));
  optimise
      ->add_option("--precision", opt_args.precision,
                   "Monte Carlo builds: every probability's 95% half-width, in points (default "
                   "the spec's, else 0.5)")
      ->check(positive());
  auto* opt_seed =
      optimise->add_option("--seed", opt_args.seed, "random seed (default the spec's, else 1)")
          ->check(whole(0, kMaxSeed));
  optimise->add_option("--threads", opt_args.threads, "builds at once (default: every core)")
      ->check(whole(1, kMaxThreads));
  optimise->add_flag("--json", opt_args.json, "print one JSON object");

  cli::BenchArgs bench_args;
  auto* bench = app.add_subcommand("bench",
                                   "runs per second on the bench cases the rulesets' scenarios "
                                   "declare ([bench] tables), every pack loaded, against their "
                                   "anchors");
  bench->add_option("--runs", bench_args.runs, "runs per scenario (default: about 10 s in all)")
      ->check(whole(1, kMaxRuns));
  bench
      ->add_option("--seconds", bench_args.seconds,
                   "time the default runs aim at, in all (default 10)")
      ->check(positive());
  bench->add_option("--threads", bench_args.threads, "threads (default 1)")
      ->check(whole(1, kMaxThreads));
  bench->add_option("--seed", bench_args.seed, "random seed (default 1)")
      ->check(whole(0, kMaxSeed));
  bench->add_flag("--exact", bench_args.exact,
                  "time the exact mode on each case (the median of several explorations)");
  bench
      ->add_option("--best", bench_args.best,
                   "with --exact: also time SIDE's best play (attacker, defender, both; to win) "
                   "on each case, and its ratio to the plain exact mode")
      ->type_name("SIDE");
  bench->add_flag("--json", bench_args.json, "print one JSON object");
  bench->add_option("cases", bench_args.cases,
                    "the cases to run, by name (bench a b c); default: every case");

  std::vector<std::string> test_paths;
  bool test_verbose = false;
  auto* test =
      app.add_subcommand("test", "run rules tests (every pack's tests when no path is given)");
  test->add_option("path", test_paths, "test files or folders");
  test->add_flag("-v,--verbose", test_verbose, "print the trace of failing tests");
  bool test_json = false;
  std::string test_junit;
  test->add_flag("--json", test_json, "print one JSON object (each test, passed or its problems)");
  test->add_option("--junit", test_junit, "also write a JUnit XML report to FILE (for CI systems)");

  cli::NewPackArgs new_args;
  auto* make =
      app.add_subcommand("new", "make a pack: rulebench new pack NAME [--ruleset ID] [DIR]");
  make->add_option("what", new_args.what, "what to make: pack")->required();
  make->add_option("name", new_args.name, "the pack's id (letters, digits, '-' and '_')")
      ->required();
  make->add_option("dir", new_args.dir, "its folder (default ./NAME; must not exist or be empty)");
  make->add_option("--ruleset", new_args.ruleset,
                   "the ruleset whose pack template it is made from (default ti4)");

  std::string types_ruleset, types_dir;
  bool types_check = false;
  auto* types = app.add_subcommand(
      "types", "editor support: LuaCATS types for ctx, pools and hook{}, .luarc.json, .luacheckrc");
  types->add_option("dir", types_dir,
                    "where to write them (default .; made when missing): a pack folder, or "
                    "the repository");
  types->add_option("--ruleset", types_ruleset,
                    "whose names (default: DIR's pack's ruleset, else every ruleset)");
  types->add_flag("--check", types_check,
                  "write nothing; exit 1 naming each generated file that is not current");

  cli::ImportArgs import_args;
  auto* import_cmd = app.add_subcommand(
      "import",
      "a battle from another tool's link (a pack's import format: ti4battle.com) as a scenario");
  import_cmd->add_option("url", import_args.url, "the link, quoted")->required();
  import_cmd->add_option("-o,--output", import_args.output,
                         "write the scenario TOML to FILE (default: stdout)");
  import_cmd->add_flag("--strict", import_args.strict,
                       "a parameter not understood is an error (exit 1), not a warning");
  import_cmd->add_flag("--json", import_args.json,
                       "print {format, place, procedure, scenario, notes, unknown}");

  serve::ServeOptions serve_options;
  std::vector<std::string> serve_packs;
  auto* serve = app.add_subcommand(
      "serve", "a local web page: set up a battle by clicking, simulate, compare, trace");
  serve->add_option("--port", serve_options.port, "port (default 8080; 0: any free port)")
      ->check(whole(0, 65535));
  serve->add_option("--host", serve_options.host,
                    "address to listen on (default 127.0.0.1: this machine only)");
  serve->add_option("--allow-host", serve_options.allow_hosts,
                    "a name (or address) the Host header may carry besides the address listened "
                    "on (repeatable; needed behind --host 0.0.0.0)");
  serve->add_option("--packs", serve_packs,
                    "more folders that hold packs, shown on the page (homebrew; repeatable)");
  serve
      ->add_option("--threads", serve_options.api.threads,
                   "threads one run may use (default: every core)")
      ->check(whole(1, kMaxThreads));
  serve
      ->add_option("--jobs", serve_options.api.jobs,
                   "runs, traces and checks at once (default 2); more are refused (429)")
      ->check(whole(1, 64));
  serve
      ->add_option("--max-runs", serve_options.api.max_runs,
                   "the most runs one request may ask for (default 10^7)")
      ->check(whole(1, kMaxRuns));

  // an unknown command is named (CLI11 would only say that a subcommand is required)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--root" || a == "--packs") {
      ++i;  // its value
      continue;
    }
    if (a.starts_with("-")) continue;
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), a) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      std::cerr << "error: unknown command '" << a << "'" << did_you_mean(a, names)
                << "; the commands: " << list << "\n";
      return 2;
    }
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (max_runs->count() && !precision->count() && !precision_mean->count()) {
    std::cerr << "error: --max-runs is the cap of --precision or --precision-mean; give one of "
                 "them too\n";
    return 2;
  }
  spdlog::set_pattern("%^%l%$: %v");
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  try {
    if (*version) {
      std::cout << "rulebench " << RB_VERSION << "\n";
      return 0;
    }
    if (*check) return cli::check(common, check_packs, check_json);
    if (*list) return cli::list(common, list_what, list_ruleset, list_json, list_packs);
    // --rounds k is the setting scenario:rounds=k (a ruleset whose scenarios have no rounds key
    // rejects it in its setup)
    auto with_rounds = [](Changes& changes, std::uint64_t k) {
      if (k > 0) changes.with.push_back("scenario:rounds=" + std::to_string(k));
    };
    with_rounds(trace_changes, trace_rounds);
    with_rounds(sim.changes, sim_rounds);
    if (*trace && !trace_best.empty())
      return cli::trace_best(common, trace_scenario, trace_seed, trace_json, trace_changes,
                             trace_best, trace_objective);
    if (*trace)
      return cli::trace(common, trace_scenario, trace_seed, trace_json, trace_interactive,
                        trace_changes, trace_verbose);
    if (*simulate) {
      // the scenario's [play] may ask for best play: a Monte Carlo option then is an error
      sim.monte_carlo_asked = runs->count() > 0 || precision->count() > 0 ||
                              precision_mean->count() > 0 || max_runs->count() > 0;
      sim.objective_given = objective->count() > 0;
      return cli::simulate(common, sim);
    }
    if (*compare) return cli::compare(common, cmp);
    if (*sweep) {
      sweep_args.seed_given = sweep_seed->count() > 0;
      if (!shard_text.empty()) {
        const auto slash = shard_text.find('/');
        int i = 0, n = 0;
        try {
          if (slash == std::string::npos) throw std::invalid_argument("");
          std::size_t u = 0, v = 0;
          i = std::stoi(shard_text.substr(0, slash), &u);
          n = std::stoi(shard_text.substr(slash + 1), &v);
          if (u != slash || v != shard_text.size() - slash - 1) throw std::invalid_argument("");
        } catch (const std::exception&) {
          i = n = 0;
        }
        if (n < 1 || i < 1 || i > n) {
          std::cerr << "error: --shard is i/N with 1 <= i <= N (e.g. --shard 2/4), not '"
                    << shard_text << "'\n";
          return 2;
        }
        sweep_args.shard = i;
        sweep_args.shards = n;
      }
      return cli::sweep(common, sweep_args);
    }
    if (*merge) return cli::merge(merge_files, merge_args);
    if (*optimise) {
      opt_args.seed_given = opt_seed->count() > 0;
      return cli::optimise(common, opt_args);
    }
    if (*bench) return cli::bench(common, bench_args);
    if (*test) return cli::test(common, test_paths, test_verbose, test_json, test_junit);
    if (*make) return cli::new_pack(common, new_args);
    if (*import_cmd) return cli::import_link(common, import_args);
    if (*types) return cli::write_types(common, types_ruleset, types_dir, types_check);
    if (*serve) {
      const SessionOptions so = common.session();
      serve_options.api.root = so.root;
      serve_options.api.pack_dirs = so.search;
      for (const auto& d : serve_packs) serve_options.api.pack_dirs.emplace_back(d);
      return serve::serve(serve_options, std::cout);
    }
  } catch (const rb::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
