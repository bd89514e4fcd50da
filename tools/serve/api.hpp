// serve/api: the JSON API of `rulebench serve`, without HTTP (http.cpp puts it behind
// cpp-httplib; the unit tests call it directly). It runs the command line's engine entry points
// (sim/: open_session, apply_changes, Simulation, Comparison, Table and Engine::run with a
// Trace) on scenarios sent as TOML text, so the page and `rulebench simulate` give the same
// numbers for the same scenario and seed.
//
//   GET    /api/rulesets                     rulesets: kinds, attributes, reports, scenario
//                                            lists and the form (form.toml)
//   GET    /api/packs                        every pack found (content/ and --packs folders)
//   GET    /api/records?ruleset=R&packs=A,B  the records those packs declare (&kinds=K1,K2)
//   GET    /api/scenarios?ruleset=R&packs=.. the loaded packs' example scenarios, as TOML
//   POST   /api/parse     {toml}             a scenario's TOML as JSON (the page's "load")
//   POST   /api/check     {scenario}         loads and sets up the scenario, runs nothing
//   POST   /api/simulate  {scenario, runs | precision [max_runs] | exact [max_states, max_seconds,
//                          max_memory, fallback | best, objective, decisions], seed, threads, with,
//                          without}   best: a side's best play (simulate --exact --best), the
//                                     exact mode only
//   POST   /api/compare   {scenario, with, without, runs, seed, threads}
//                                            both start a run: 202 {"job": id}; "wait": true
//                                            answers with the finished job instead
//   POST   /api/sweep     {scenario, spec, threads}  a grid of variants of the scenario
//                                            (sim/sweep: spec is a sweep spec's TOML without
//                                            `scenario`), a job like simulate's; while it runs
//                                            the job's `partial` holds the cells done
//   POST   /api/sweep/cell {scenario, spec, cell}  cell k's scenario as TOML (the page opens it)
//   GET    /api/jobs/ID                      progress (done, planned), then result or error
//   DELETE /api/jobs/ID                      cancel: the runs done so far are the result
//   POST   /api/trace     {scenario, seed, with, without}   one run, narrated
//   POST   /api/board     {scenario, seed, with, without}   the hex board after the setup: each
//                                            hex with its entity and what is inside it (by
//                                            kind, name, owner, count and the ruleset's
//                                            attributes), the roles and players; with a seed,
//                                            the moves one run made (trace events with a path)
//
// Errors are {"error": message} with a 4xx status: 400 a bad request, scenario or pack (the
// message the command line prints, the scenario's file being "scenario"), 404 an unknown path or
// job, 413 too large, 422 a script failed while running, 429 too many runs, traces and checks at
// once (--jobs). A request names packs by id (those found in content/ and the --packs folders),
// never by path, and a ruleset by its folder under scripts/, so nothing outside the content
// folders is read. A body nests at most 64 deep, and an error quotes at most 60 bytes of a value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario.hpp"
#include "sim/sweep.hpp"

namespace rb::serve {

struct ApiOptions {
  fs::path root;                    // the repository: scripts/ and content/
  std::vector<fs::path> pack_dirs;  // --packs: more folders holding packs (homebrew)
  int threads = 0;                  // threads one run may use (0: every core)
  // What runs content at once (a run of simulate or compare, a trace, a check, the loading of a
  // run's scenario); more is refused (429)
  int jobs = 2;
  std::uint64_t max_runs = 10'000'000;  // the most runs (or pairs) one request may ask for
  std::size_t max_scenario_bytes = 256 * 1024;
  std::size_t keep_finished = 32;  // finished runs kept for GET /api/jobs/ID
  std::size_t max_trace_events = 200'000;
  std::uint64_t max_sweep_cells = 2500;  // the most cells one sweep may have (25 x 25 x 2 fits)
  double sweep_seconds = 300;            // a sweep still running then stops, its cells so far kept
};

struct Reply {
  int status = 200;
  nlohmann::json body;
  // The body as sent: JSON text, where bytes that are not UTF-8 (a query string's, a script's
  // note in a trace) become U+FFFD instead of an exception.
  std::string text() const;
};

class Api {
 public:
  explicit Api(ApiOptions options);
  ~Api();  // cancels every run and waits for it
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  Reply get(std::string_view path, const std::map<std::string, std::string>& query);
  Reply post(std::string_view path, std::string_view body);
  Reply del(std::string_view path);

  // Cancels every run (it stops after the runs in progress).
  void cancel_all();
  // Cancels every run and waits for them (the server's shutdown).
  void stop_all();

  const ApiOptions& options() const { return options_; }

  struct Job;  // api.cpp
  class Slot;  // api.cpp: one of the --jobs places

 private:
  SessionOptions session_options() const;
  std::map<std::string, fs::path> packs() const;  // id -> folder
  std::vector<std::string> rulesets() const;
  Session prepare(const nlohmann::json& request, bool with_changes) const;
  // The content a request loads, kept while none of its files changes (api.cpp, ContentCache):
  // the page asks for an answer at every click, and loading the packs was most of its time.
  std::shared_ptr<const Content> content_for(const LoadRequest& req) const;
  Session open_cached(Scenario s) const;

  Reply rulesets_reply() const;
  Reply packs_reply() const;
  Reply records_reply(const std::map<std::string, std::string>& query) const;
  Reply scenarios_reply(const std::map<std::string, std::string>& query) const;
  Reply parse_reply(const nlohmann::json& request) const;
  Reply check_reply(const nlohmann::json& request);
  Reply trace_reply(const nlohmann::json& request);
  Reply board_reply(const nlohmann::json& request);
  Reply start_run(const std::string& kind, const nlohmann::json& request);
  SweepSpec sweep_spec(const nlohmann::json& request) const;
  Reply start_sweep(const nlohmann::json& request);
  Reply sweep_cell_reply(const nlohmann::json& request);
  Reply job_reply(std::uint64_t id, bool cancel);
  Reply jobs_reply();
  nlohmann::json job_json(Job& job) const;
  int run_threads(const nlohmann::json& request) const;
  std::size_t running_jobs();  // under mutex_
  void forget_finished();      // under mutex_: the oldest finished jobs beyond keep_finished
  std::size_t busy();          // under mutex_: running jobs and the slots of requests

  ApiOptions options_;
  std::mutex mutex_;  // guards jobs_, next_job_ and working_
  std::map<std::uint64_t, std::shared_ptr<Job>> jobs_;
  std::uint64_t next_job_ = 1;
  std::size_t working_ = 0;  // requests that run content in their own thread (Slot)
  struct ContentCache;       // api.cpp
  std::unique_ptr<ContentCache> cache_;
};

}  // namespace rb::serve
