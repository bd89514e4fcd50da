#include "sim/rules_test.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "content/keys.hpp"
#include "content/toml_read.hpp"
#include "dice/dice.hpp"
#include "exact/explore.hpp"
#include "sim/simulate.hpp"
#include "trace/trace.hpp"

namespace rb {

namespace {

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// The roll of a die event, as the trace's fields say it: "defender's cruiser, combat roll (a d10)".
std::string die_roll_of(const TraceEvent& e) {
  auto field = [&](const char* k) {
    const auto it = e.fields.find(k);
    return it != e.fields.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string player = field("player"), unit = field("unit"), purpose = field("purpose");
  std::string s = player.empty() ? "a die" : player + "'s";
  if (!unit.empty()) s += " " + unit;
  s += std::string(unit.empty() && player.empty() ? "" : ",") + " " +
       (purpose.empty() ? std::string("roll") : purpose + " roll");
  if (e.kind == EventKind::reroll) s += " (a reroll)";
  return s + " (a " + field("die") + ")";
}

// The problem of a strict run that rolled more dice than the test forced. `upto` is the same run
// made again with the dice past the forced ones random: the first of those is named, and `upto`
// keeps the events before it (the trace shown with the failure).
std::string forced_dice_ran_out(const std::string& error, std::size_t forced, Trace& upto) {
  std::string which;
  std::size_t dice = 0;
  for (std::size_t i = 0; i < upto.events.size(); ++i) {
    const TraceEvent& e = upto.events[i];
    if (e.kind != EventKind::roll && e.kind != EventKind::reroll) continue;
    if (++dice <= forced) continue;
    which = ": die " + std::to_string(dice) + " is " + die_roll_of(e);
    upto.events.resize(i);
    break;
  }
  // where it was rolled: the text before the message, without the Lua traceback
  std::string where = error.substr(0, error.find(kForcedDiceRunOut));
  while (!where.empty() && (where.back() == ' ' || where.back() == ':')) where.pop_back();
  return "dice: the test forces " + std::to_string(forced) + " result(s), and the run rolls more" +
         which + (where.empty() ? "" : " (rolled in " + where + ")") +
         "; the trace below ends before it";
}

std::string node_text(const toml::node& n) {
  if (n.is_string()) return std::string(n.as_string()->get());
  if (n.is_integer()) return std::to_string(n.as_integer()->get());
  if (n.is_boolean()) return n.as_boolean()->get() ? "yes" : "no";
  if (n.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : *n.as_array()) parts.push_back(node_text(e));
    return join(parts, ",");
  }
  return "?";
}

// Why an expected trace key could match no event key, or "" when it could. Event keys are
// colon-separated segments, none empty, with no spaces; a segment that lists (a hit assignment:
// "cruiser,sustain:dreadnought") neither starts nor ends with a comma nor has an empty item.
std::string malformed_key(const std::string& k) {
  if (k.empty()) return "it is empty";
  if (k.find_first_of(" \t\n") != std::string::npos) return "event keys have no spaces";
  if (k.front() == ':' || k.back() == ':' || k.find("::") != std::string::npos)
    return "it has an empty ':' segment (a key matches the same key or that key followed by ':')";
  if (k.front() == ',' || k.back() == ',' || k.find(",,") != std::string::npos ||
      k.find(":,") != std::string::npos || k.find(",:") != std::string::npos)
    return "a list in an event key has no empty item and does not start or end with ','";
  return "";
}

const std::vector<std::string> kTestKeys = key_names(rules_test_keys());  // content/keys.cpp

RulesTestResult run_one(const TomlFile& f, const toml::table& t, const toml::table* shared_scenario,
                        const SessionOptions& options) {
  RulesTestResult r;
  r.file = f.path();
  f.expect_keys(t, kTestKeys, "a rules test");
  const std::string rule = f.string(t, "rule").value_or("");
  r.name = f.string(t, "name").value_or(rule.empty() ? fs::path(f.path()).stem().string() : rule);
  if (!rule.empty() && r.name.rfind(rule, 0) != 0) r.name = rule + ": " + r.name;

  // the scenario
  const fs::path dir = fs::path(f.path()).parent_path();
  Scenario scenario;
  if (const toml::node* s = t.get("scenario"); s && s->is_string()) {
    // a test in a pack reads a scenario of that pack only
    const fs::path file = dir / std::string(s->as_string()->get());
    if (const fs::path pack = pack_folder_of(f.path()); !pack.empty())
      if (std::string why = outside_reason(pack, file, "pack"); !why.empty()) f.fail(*s, why);
    scenario = read_scenario(file);
  } else if (s && s->is_table()) {
    scenario = scenario_from_table(*s->as_table(), f.path(), dir);
  } else if (shared_scenario) {
    scenario = scenario_from_table(*shared_scenario, f.path(), dir);
  } else {
    f.fail(t, "a rules test needs a scenario: a [scenario] table or scenario = \"file.toml\"");
  }
  // [play] SIDE = "best": the side's decisions are its best play's, given the fixed dice before
  // each (one side; docs/exact.md, "Best play with fixed dice")
  const std::string best_side = best_play_of(scenario);
  if (best_side == "both")
    throw ContentError(scenario.file, scenario.best_sides.front().second,
                       "[play]: a rules test plays one side's best play with fixed dice, not "
                       "both sides'");
  const std::string best_objective = scenario.best_objective;
  SessionOptions so = options;
  for (const auto& p : f.strings(t, "packs")) so.extra_packs.push_back(p);

  // forced dice and scripted answers
  RunOptions run;
  run.seed = static_cast<std::uint64_t>(f.integer(t, "seed").value_or(1));
  if (const toml::array* dice = f.array(t, "dice")) {
    for (const toml::node& d : *dice) {
      DiceStream::Forced forced;
      if (d.is_integer())
        forced.value = static_cast<std::int32_t>(d.as_integer()->get());
      else if (d.is_string())
        forced.face = sym(std::string_view(d.as_string()->get()));
      else
        f.fail(d, "forced dice are numbers (numeric dice) or face names (faced dice)");
      run.forced.push_back(forced);
    }
    run.strict_dice = f.boolean(t, "strict_dice").value_or(true);
  }
  ScriptedAnswers answers;
  if (const toml::node* a = t.get("answer")) {
    if (!a->is_array()) f.fail(*a, "'answer' must be an array of tables ([[answer]])");
    for (const toml::node& e : *a->as_array()) {
      if (!e.is_table()) f.fail(e, "each [[answer]] must be a table");
      const toml::table& at = *e.as_table();
      f.expect_keys(at, key_names(answer_keys()), "[[answer]]");
      const toml::node* value = at.get("answer");
      if (!value) f.fail(at, "[[answer]] needs 'answer'");
      answers.add({f.string(at, "player", true).value(), f.string(at, "decision", true).value(),
                   node_text(*value)});
    }
  }
  run.answers = &answers;

  const toml::table* expect = f.table(t, "expect");
  if (!expect)
    f.fail(t, "a rules test needs an [expect] table: a test that expects nothing cannot fail");
  f.expect_keys(*expect, key_names(expect_keys()), "[expect]");
  const auto want_error = f.string(*expect, "error");
  // a trace expectation that no event key can match would make its assertion vacuous
  for (const char* list : {"trace", "not_trace"})
    if (const toml::array* keys = f.array(*expect, list))
      for (const toml::node& k : *keys)
        if (k.is_string())
          if (auto why = malformed_key(std::string(k.as_string()->get())); !why.empty())
            f.fail(k, std::string(list) + " entry '" + std::string(k.as_string()->get()) +
                          "' can never match an event key: " + why);
  if (const toml::table* counts = f.table(*expect, "trace_count"))
    for (auto&& [key, n] : *counts)
      if (auto why = malformed_key(std::string(key.str())); !why.empty())
        f.fail(n, "trace_count key '" + std::string(key.str()) +
                      "' can never match an event key: " + why);

  Trace trace;
  trace.enabled = true;
  run.trace = &trace;
  RunResult result;
  State state;
  std::string error;
  std::unique_ptr<Table> table;
  std::optional<Session> session;
  RunOptions::BestPicks best_picks;
  const ScriptedAnswers fresh_answers = answers;  // for the runs again
  // the state guard: a run must leave what scripts could keep as it found it
  EngineOptions engine_options;
  engine_options.check_state = true;
  try {
    session = open_session(std::move(scenario), so);
    table = std::make_unique<Table>(*session, engine_options);
    if (!best_side.empty()) {
      // the exact mode finds the side's picks in the run the dice make; the runs below take them
      try {
        ExactRunOptions eo;
        eo.seconds = 60;  // (a battle too big for the exact mode stops in a minute, not ten)
        best_picks = Simulation(*session).best_picks(eo, best_side, best_objective, run.forced);
      } catch (const ExactLimit& e) {
        throw UsageError(std::string("best play with fixed dice: the exact mode stopped: ") +
                         e.what());
      }
      run.best_picks = &best_picks;
    }
    state = table->start;
    table->engine.run(session->procedure, state, run, result);
  } catch (const Error& e) {
    error = e.what();
  }
  // The test runs again twice, and each must repeat the first run: in the same engine (scripts
  // keep nothing between runs), then in a fresh one (one seed gives one answer in any Lua state,
  // as in another process).
  auto again = [&](Table& in, const char* which) {
    ScriptedAnswers again_answers = fresh_answers;
    Trace again_trace;
    again_trace.enabled = true;
    RunOptions options = run;
    options.trace = &again_trace;
    options.answers = &again_answers;
    State again_state = in.start;
    RunResult again_result;
    std::string differs;
    try {
      in.engine.run(session->procedure, again_state, options, again_result);
      if (again_result.outcome_name != result.outcome_name)
        differs = "outcome " + result.outcome_name + ", then " + again_result.outcome_name;
      else if (again_result.metrics != result.metrics)
        differs = "different metrics";
      else
        differs = Trace::first_difference(trace, again_trace);
    } catch (const Error& e) {
      differs = "it failed: " + std::string(e.what());
    }
    if (!differs.empty())
      r.problems.push_back(std::string("the test's run ") + which + " did not repeat its first (" +
                           differs + ")");
  };
  if (error.empty() && table) {
    again(*table, "again in the same engine");
    if (r.problems.empty()) {
      std::unique_ptr<Table> fresh;
      try {
        fresh = std::make_unique<Table>(*session, engine_options);
      } catch (const Error& e) {
        r.problems.push_back("a fresh engine failed to load: " + std::string(e.what()));
      }
      if (fresh) again(*fresh, "in a fresh engine");
    }
  }
  // too few forced dice: which die was one too many, and the trace up to it
  std::string ran_out;
  if (run.strict_dice && table && error.find(kForcedDiceRunOut) != std::string::npos) {
    Trace upto;
    upto.enabled = true;
    ScriptedAnswers upto_answers = fresh_answers;
    RunOptions options = run;
    options.strict_dice = false;
    options.trace = &upto;
    options.answers = &upto_answers;
    State upto_state = table->start;
    RunResult upto_result;
    try {
      table->engine.run(session->procedure, upto_state, options, upto_result);
    } catch (const Error&) {
      // a later error does not matter: the events up to the die are the first run's
    }
    ran_out = forced_dice_ran_out(error, run.forced.size(), upto);
    trace = std::move(upto);
  }
  std::ostringstream narrative;
  trace.print_narrative(narrative);
  r.trace = narrative.str();

  auto problem = [&](std::string p) { r.problems.push_back(std::move(p)); };
  if (want_error) {
    if (error.empty())
      problem("expected an error containing '" + *want_error + "', but the run ended normally");
    else if (error.find(*want_error) == std::string::npos)
      problem("expected an error containing '" + *want_error + "'\n      actual error: " + error);
  } else if (!ran_out.empty()) {
    problem(ran_out);
  } else if (!error.empty()) {
    problem("error: " + error);
  }
  if (error.empty() && table) {
    if (auto outcome = f.string(*expect, "outcome"); outcome && *outcome != result.outcome_name)
      problem("outcome: expected " + *outcome + ", actual " +
              (result.outcome_name.empty() ? "(none)" : result.outcome_name));
    if (const toml::table* metrics = f.table(*expect, "metrics"))
      for (auto&& [k, v] : *metrics) {
        if (!v.is_integer() && !v.is_floating_point()) f.fail(v, "expected metrics are numbers");
        const double want = v.is_integer() ? static_cast<double>(v.as_integer()->get())
                                           : v.as_floating_point()->get();
        const double got = result.metric(k.str(), -1e300);
        if (got != want)
          problem("metric " + std::string(k.str()) + ": expected " + node_text(v) + ", actual " +
                  (got == -1e300 ? std::string("(not set)") : std::to_string(got)));
      }
    if (const toml::table* surv = f.table(*expect, "survivors"))
      for (auto&& [side, types] : *surv) {
        if (!types.is_table())
          f.fail(types, "survivors." + std::string(side.str()) + " must be a table of unit counts");
        const EntityId player = state.role(sym(side.str()));
        if (player == kNoEntity) {
          problem("survivors: no player with role '" + std::string(side.str()) + "'");
          continue;
        }
        std::map<std::string, long long> actual;
        for (const Entity& e :
             table->start.entities)  // every type the side started with counts, 0 or more
          if (e.owner == player && e.kind == sym(table->engine.content().ruleset.unit_kind))
            actual[std::string(sym_name(e.type))] = 0;
        for (const Entity& e : state.entities)
          if (e.owner == player && e.kind == sym(table->engine.content().ruleset.unit_kind) &&
              e.location != kReinforcements)
            ++actual[std::string(sym_name(e.type))];
        std::map<std::string, long long> wanted;
        for (auto&& [type, n] : *types.as_table()) {
          if (!n.is_integer()) f.fail(n, "survivor counts are integers");
          wanted[std::string(type.str())] = n.as_integer()->get();
        }
        for (const auto& [type, n] : actual)
          if (!wanted.count(type)) wanted[type] = 0;
        for (const auto& [type, n] : wanted)
          if (actual[type] != n)
            problem("survivors " + std::string(side.str()) + " " + type + ": expected " +
                    std::to_string(n) + ", actual " + std::to_string(actual[type]));
      }
  }
  // trace expectations: in order as a subsequence; not_trace: never
  const auto want_trace = f.strings(*expect, "trace");
  std::size_t at = 0;
  for (const auto& ev : trace.events)
    if (at < want_trace.size() && Trace::matches(ev.key, want_trace[at])) ++at;
  if (at < want_trace.size()) {
    const bool anywhere =
        std::any_of(trace.events.begin(), trace.events.end(),
                    [&](const TraceEvent& e) { return Trace::matches(e.key, want_trace[at]); });
    problem("trace: expected '" + want_trace[at] + "'" +
            (at ? " after '" + want_trace[at - 1] + "'" : "") +
            (anywhere ? " (it appears, but earlier)" : " (it never appears)"));
  }
  for (const auto& no : f.strings(*expect, "not_trace"))
    for (const auto& ev : trace.events)
      if (Trace::matches(ev.key, no)) {
        problem("trace: '" + ev.key + "' appears, but the test says it must not");
        break;
      }
  // trace_count: how many events match each key, exactly
  if (const toml::node* counts = expect->get("trace_count")) {
    if (!counts->is_table())
      f.fail(*counts, "trace_count must be a table of event keys and counts");
    for (auto&& [key, n] : *counts->as_table()) {
      if (!n.is_integer()) f.fail(n, "trace_count values are integers");
      const std::string want(key.str());
      long long seen = 0;
      for (const auto& ev : trace.events) seen += Trace::matches(ev.key, want) ? 1 : 0;
      if (seen != n.as_integer()->get())
        problem("trace: '" + std::string(key.str()) + "' appears " + std::to_string(seen) +
                " time(s), expected " + std::to_string(n.as_integer()->get()));
    }
  }
  if (error.empty() || want_error) {
    if (result.forced_left > 0)
      problem("dice: " + std::to_string(result.forced_left) +
              " forced result(s) were never rolled");
    for (const auto& a : answers.unused())
      problem("answer never asked for: " + a.player + " " + a.decision + " = " + a.answer);
  }
  r.passed = r.problems.empty();
  return r;
}

bool looks_like_test(const fs::path& p) {
  try {
    TomlFile f(p.string());
    return f.root().contains("expect") || f.root().contains("test");
  } catch (const ContentError&) {
    return true;  // a broken test file is reported by running it
  }
}

}  // namespace

std::vector<RulesTestResult> run_rules_test_file(const fs::path& file,
                                                 const SessionOptions& options) {
  std::vector<RulesTestResult> out;
  try {
    // a test file in a pack (or the folder named, a link out of it) resolves inside the pack
    if (const fs::path pack = pack_folder_of(file); !pack.empty())
      require_inside(pack, file, "pack");
    TomlFile f(file.string());
    if (const toml::node* tests = f.root().get("test")) {
      f.expect_keys(f.root(), key_names(test_file_keys()), "a file of [[test]] entries");
      const toml::table* shared = f.table(f.root(), "scenario");
      if (!tests->is_array()) f.fail(*tests, "'test' must be an array of tables ([[test]])");
      for (const toml::node& t : *tests->as_array()) {
        if (!t.is_table()) f.fail(t, "each [[test]] must be a table");
        out.push_back(run_one(f, *t.as_table(), shared, options));
      }
    } else {
      out.push_back(run_one(f, f.root(), nullptr, options));
    }
  } catch (const Error& e) {
    RulesTestResult r;
    r.file = file.string();
    r.name = file.stem().string();
    r.problems.push_back(std::string("cannot run: ") + e.what());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<fs::path> find_rules_tests(const std::vector<fs::path>& paths,
                                       const SessionOptions& options) {
  std::vector<fs::path> roots = paths;
  if (roots.empty()) {
    LoadRequest req;
    req.root = options.root;
    req.search = options.search;
    for (const auto& [id, dir] : discover_packs(req))
      if (fs::is_directory(dir / "tests")) roots.push_back(dir / "tests");
  }
  std::vector<fs::path> files;
  for (const fs::path& p : roots) {
    // in a pack, what links out of it is listed unread: run_rules_test_file reports it as a
    // test that cannot run (outside any pack the files are the user's own, wherever they are)
    const fs::path pack = pack_folder_of(p);
    const fs::path root = pack.empty() ? fs::path("/") : pack;
    if (fs::is_regular_file(p) || !outside_reason(root, p, "pack").empty()) {
      files.push_back(p);
    } else if (fs::is_directory(p)) {
      std::vector<fs::path> found;  // first the files that link out of the pack
      for (const fs::path& file : files_inside(root, p, ".toml", "pack", Walk::recursive, &found))
        if (looks_like_test(file)) found.push_back(file);
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      throw UsageError("no test file or folder " + p.string());
    }
  }
  return files;
}

}  // namespace rb
