// rulebench serve's JSON API (tools/serve/api.hpp), called without HTTP: the page's numbers are
// the command line's (the same engine entry points, the same seed), bad input is a 4xx with the
// command line's message, nothing outside the content folders is read, runs are capped and can
// be cancelled. And every ruleset's form.toml loads; a broken one names its file and line. The
// HTTP server itself (http.hpp) runs in a thread on a free loopback port for what needs sockets.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "api.hpp"
#include "base/error.hpp"
#include "cli_run.hpp"
#include "content/toml_read.hpp"
#include "fixtures.hpp"
#include "form.hpp"
#include "http.hpp"
#include "serve_test_util.hpp"
#include "sim/compare.hpp"
#include "sim/simulate.hpp"

using namespace rb;
using namespace rb::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path repo() {
  return RB_SOURCE_DIR;
}

serve::ApiOptions repo_options() {
  serve::ApiOptions o;
  o.root = repo();
  o.pack_dirs = {test_dir() / "fixtures" / "serve"};
  o.threads = 2;
  return o;
}

const char* kCruisers =
    "ruleset = \"ti4\"\nprocedure = \"space_combat\"\n[attacker]\nunits = { cruiser = 2 }\n"
    "[defender]\nunits = { dreadnought = 1 }\n";

// The report `rulebench simulate FILE --runs N --seed S --json` prints, made here with the same
// entry points the command line uses.
json cli_report(const fs::path& file, std::uint64_t runs, std::uint64_t seed,
                const SessionOptions& so) {
  const Session session = open_session(read_scenario(file), so);
  Simulation sim(session);
  SimOptions o;
  o.runs = runs;
  o.seed = seed;
  o.threads = 1;
  return sim.report(sim.run(o), seed);
}

SessionOptions repo_session() {
  SessionOptions so;
  so.root = repo();
  so.search = {test_dir() / "fixtures" / "serve"};
  return so;
}

// `rulebench serve` in a thread, on a free port of `host`; stopped (and the working folder that
// serve() changes put back) when it goes out of scope.
class Server {
 public:
  explicit Server(serve::ServeOptions o) : cwd_(fs::current_path()) {
    o.api = o.api.root.empty() ? repo_options() : o.api;
    o.port = 0;
    o.stop = &stop_;
    std::promise<int> bound;
    auto port = bound.get_future();
    o.listening = [&bound](int p) { bound.set_value(p); };
    thread_ = std::thread([this, o] { status_ = serve::serve(o, out_); });
    REQUIRE(port.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    port_ = port.get();
  }
  ~Server() {
    stop();
    fs::current_path(cwd_);
  }
  int port() const { return port_; }
  std::string printed() const { return out_.str(); }  // what it printed, once it stopped
  int stop() {
    if (thread_.joinable()) {
      stop_ = true;
      thread_.join();
    }
    return status_;
  }

 private:
  fs::path cwd_;
  std::atomic<bool> stop_{false};
  std::ostringstream out_;
  int status_ = 0;
  int port_ = 0;
  std::thread thread_;
};

// A TCP connection to address:port (IPv4), or -1.
int connect_to(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Whether the server answered or closed `fd` within `seconds`: reads what it sends until it
// closes the connection (or the time is up) into `got`.
bool read_until_closed(int fd, double seconds, std::string& got) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return true;
    got.append(buf, static_cast<std::size_t>(n));
  }
}

struct HttpReply {
  bool answered = false;  // within the time given
  int status = 0;
  std::string body;
};

// One request (the whole text, headers and body) on a new connection, the answer read until the
// server closes it or `seconds` pass.
HttpReply http(const std::string& address, int port, const std::string& request,
               double seconds = 30) {
  HttpReply r;
  const int fd = connect_to(address, port);
  if (fd < 0) return r;
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string got;
  r.answered = read_until_closed(fd, seconds, got) && got.starts_with("HTTP/1.1 ");
  ::close(fd);
  if (r.answered) {
    r.status = std::stoi(got.substr(9, 3));
    const auto body = got.find("\r\n\r\n");
    if (body != std::string::npos) r.body = got.substr(body + 4);
  }
  return r;
}

std::string get_request(const std::string& path, const std::string& host) {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
}

}  // namespace

TEST_CASE("serve: simulate gives the command line's numbers for the same scenario and seed",
          "[serve]") {
  serve::Api api(repo_options());
  for (const char* name : {"content/ti4-base/scenarios/cruisers_vs_dreadnought.toml",
                           "content/ti4-base/scenarios/sardakk_vs_jol_nar.toml",
                           "content/xwing-core/scenarios/engagement_demo.toml",
                           "content/red-alert-core/scenarios/demo.toml"}) {
    DYNAMIC_SECTION(name) {
      const fs::path file = repo() / name;
      const auto r = post(api, "/api/simulate",
                          {{"scenario", read(file)}, {"runs", 3000}, {"seed", 9}, {"wait", true}});
      REQUIRE(r.status == 200);
      CHECK(r.body["state"] == "done");
      CHECK(r.body["result"] == cli_report(file, 3000, 9, repo_session()));
    }
  }
}

TEST_CASE("serve: the seed may be sent as text, beyond what JavaScript's numbers hold", "[serve]") {
  serve::Api api(repo_options());
  const auto r = post(
      api, "/api/simulate",
      {{"scenario", kCruisers}, {"runs", 500}, {"seed", "18446744073709551615"}, {"wait", true}});
  REQUIRE(r.status == 200);
  CHECK(r.body["result"]["seed"].get<std::uint64_t>() == 18446744073709551615ull);
}

TEST_CASE("serve: compare gives the command line's paired difference", "[serve]") {
  serve::Api api(repo_options());
  const auto r = post(api, "/api/compare",
                      {{"scenario", kCruisers},
                       {"with", {"attacker:morale_boost"}},
                       {"runs", 2000},
                       {"seed", 4},
                       {"wait", true}});
  REQUIRE(r.status == 200);
  TomlFile f("scenario", kCruisers);
  Scenario s = scenario_from_table(f.root(), "scenario", fs::path());
  s.table = f.release();
  const Session a = open_session(std::move(s), repo_session());
  Changes changes;
  changes.with = {"attacker:morale_boost"};
  const Session b = apply_changes(a, changes, repo_session());
  Comparison cmp(a, b);
  CompareOptions o;
  o.runs = 2000;
  o.seed = 4;
  o.threads = 1;
  CHECK(r.body["result"] == cmp.report(cmp.run(o), 4, changes));
  CHECK(r.body["result"]["difference"]["attacker_win"]["difference"].get<double>() > 0);
}

TEST_CASE("serve: the trace is the command line's, event for event", "[serve]") {
  serve::Api api(repo_options());
  const auto r = post(api, "/api/trace", {{"scenario", kCruisers}, {"seed", 3}});
  REQUIRE(r.status == 200);
  TomlFile f("scenario", kCruisers);
  Scenario s = scenario_from_table(f.root(), "scenario", fs::path());
  s.table = f.release();
  const Session session = open_session(std::move(s), repo_session());
  Table table(session);
  Trace t;
  t.enabled = true;
  RunOptions run;
  run.seed = 3;
  run.trace = &t;
  RunResult result;
  State state = table.start;
  table.engine.run(session.procedure, state, run, result);
  REQUIRE(r.body["events"].size() == t.events.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    CHECK(r.body["events"][i]["key"] == t.events[i].key);
    CHECK(r.body["events"][i]["text"] == t.events[i].text);
  }
  CHECK(r.body["outcome"] == result.outcome_name);
  CHECK(contains(r.body["narrative"].get<std::string>(), "== "));
}

TEST_CASE("serve: a bad scenario is a 400 with the command line's message", "[serve]") {
  serve::Api api(repo_options());
  SECTION("an unknown unit, with its line and the nearest name") {
    const std::string bad = "ruleset = \"ti4\"\n[attacker]\nunits = { crusier = 2 }\n[defender]\n";
    for (const char* path : {"/api/simulate", "/api/check", "/api/trace"}) {
      json request = {{"scenario", bad}};
      if (std::string(path) == "/api/simulate") request["runs"] = 10;
      const auto r = post(api, path, request);
      CHECK(r.status == 400);
      CHECK(contains(error_of(r), "scenario:3: unknown unit 'crusier' (did you mean 'cruiser'?)"));
    }
  }
  SECTION("a number no double holds is a 400, not a 500 (fuzz_serve found it)") {
    const auto r = api.post("/api/simulate", R"({"scenario": "x", "runs": 1e400})");
    CHECK(r.status == 400);
    CHECK(contains(error_of(r), "number out of range"));
  }
  SECTION("a pack path longer than the file system takes is not a pack (fuzz_scenario)") {
    const std::string bad =
        "ruleset = \"ti4\"\npacks = [\"./" + std::string(5000, 'k') + "\"]\n[attacker]\n";
    const auto r = post(api, "/api/check", {{"scenario", bad}});
    CHECK(r.status == 400);
  }
  SECTION("a TOML syntax error") {
    const auto r = post(api, "/api/parse", {{"toml", "ruleset = \"ti4\"\n[attacker\n"}});
    CHECK(r.status == 400);
    CHECK(contains(error_of(r), "scenario:2"));
  }
  SECTION("no ruleset, or an unknown one") {
    CHECK(post(api, "/api/check", {{"scenario", "[attacker]\n"}}).status == 400);
    const auto r = post(api, "/api/check", {{"scenario", "ruleset = \"ti5\"\n"}});
    CHECK(r.status == 400);
    CHECK(contains(error_of(r), "scenario:1: no ruleset 'ti5' (did you mean 'ti4'?)"));
  }
  SECTION("an unknown pack") {
    const auto r = post(api, "/api/check",
                        {{"scenario",
                          "ruleset = \"ti4\"\npacks = [\"ti4-pox\"]\n[attacker]\n"
                          "[defender]\n"}});
    CHECK(r.status == 400);
    CHECK(contains(error_of(r), "no pack with id 'ti4-pox' (did you mean 'ti4-pok'?)"));
  }
}

TEST_CASE("serve: a bad request is a 400 naming what is wrong", "[serve]") {
  serve::Api api(repo_options());
  CHECK(contains(error_of(api.post("/api/simulate", "{not json")), "not JSON"));
  CHECK(api.post("/api/simulate", "[1, 2]").status == 400);
  auto r = post(api, "/api/simulate", {{"scenario", kCruisers}, {"rusn", 10}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "unknown key 'rusn' (did you mean 'runs'?)"));
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 0}})),
                 "out of range"));
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", -1}})),
                 "not a whole number"));
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 1e5}})),
                 "not a whole number"));
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"seed", "x1"}})),
                 "seed: 'x1' is not a whole number"));
  CHECK(post(api, "/api/simulate", {{"scenario", kCruisers}, {"precision", 0}}).status == 400);
  CHECK(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 5}, {"precision", 0.1}})
            .status == 400);
  CHECK(post(api, "/api/simulate", {{"scenario", 7}}).status == 400);
  r = post(api, "/api/compare", {{"scenario", kCruisers}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "compare needs with or without"));
  r = post(api, "/api/compare", {{"scenario", kCruisers}, {"with", {"attacker:no_such_card"}}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "no_such_card"));
  CHECK(api.get("/api/nothing", {}).status == 404);
  CHECK(api.post("/api/nothing", "{}").status == 404);
  CHECK(api.get("/api/jobs/999", {}).status == 404);
  CHECK(api.del("/api/jobs/abc").status == 404);
}

TEST_CASE("serve: a JSON body nested deeper than 64 is refused before anything walks it",
          "[serve]") {
  serve::Api api(repo_options());
  const std::string scenario = json(kCruisers).dump();
  const std::string arrays = std::string(100000, '[') + std::string(100000, ']');
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  for (const std::string& deep : {arrays, objects}) {
    for (const auto& [path, key] :
         std::vector<std::pair<std::string, std::string>>{{"/api/simulate", "runs"},
                                                          {"/api/simulate", "with"},
                                                          {"/api/simulate", "precision"},
                                                          {"/api/compare", "without"},
                                                          {"/api/trace", "seed"},
                                                          {"/api/check", "with"},
                                                          {"/api/parse", "toml"}}) {
      INFO(path << " " << key);
      const auto r =
          api.post(path, "{\"scenario\": " + scenario + ", \"" + key + "\": " + deep + "}");
      CHECK(r.status == 400);
      CHECK(contains(error_of(r), "the request body nests arrays and objects more than 64 deep"));
    }
    CHECK(api.post("/api/simulate", deep).status == 400);  // the body itself
  }
  // 64 levels are read: the value is refused for its type, described, not quoted
  const std::string deep64 = std::string(63, '[') + "1" + std::string(63, ']');
  const auto r = api.post("/api/simulate", "{\"runs\": " + deep64 + "}");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "runs: an array of 1 item is not a whole number"));
}

TEST_CASE("serve: an error quotes at most a short excerpt of what the request sent", "[serve]") {
  serve::Api api(repo_options());
  const std::string big(100000, 'x');
  const std::vector<std::pair<std::string, json>> requests = {
      {"/api/simulate", {{"scenario", kCruisers}, {"runs", big}}},
      {"/api/simulate", {{"scenario", kCruisers}, {"seed", {big, big}}}},
      {"/api/simulate", {{"scenario", kCruisers}, {big, 1}}},
      {"/api/simulate", {{"scenario", kCruisers}, {"precision", big}}},
      {"/api/trace", {{"scenario", kCruisers}, {"with", {1, big}}}},
      {"/api/trace", {{"scenario", kCruisers}, {"with", {json::array({big})}}}},
      {"/api/check", {{"scenario", kCruisers}, {"with", {big}}}},
      {"/api/compare", {{"scenario", kCruisers}, {"without", {big}}}}};
  for (const auto& [path, body] : requests) {
    const auto r = post(api, path, body);
    INFO(path << " " << error_of(r).substr(0, 300));
    CHECK(r.status == 400);
    CHECK(!error_of(r).empty());
    CHECK(error_of(r).size() < 400);
  }
  CHECK(error_of(api.post("/api/simulate", "{\"runs\": 1, \"" + big)).size() < 400);  // not JSON
  CHECK(error_of(api.post("/api/" + big, "{}")).size() < 400);
  CHECK(error_of(api.get("/api/jobs/" + big, {})).size() < 400);
  CHECK(error_of(api.get("/api/records", {{"ruleset", big}})).size() < 400);
  CHECK(error_of(api.get("/api/records", {{"ruleset", "ti4"}, {"packs", big}})).size() < 1000);
  CHECK(error_of(api.get("/api/records", {{"ruleset", "ti4"}, {"kinds", big}})).size() < 400);
  // bytes that are not UTF-8 (a query string can carry any) are sent as U+FFFD
  const auto bad = api.get("/api/records", {{"ruleset", "ti\xff"}});
  CHECK(bad.status == 400);
  CHECK(contains(bad.text(), "no ruleset 'ti\xef\xbf\xbd'"));
  // what is short is quoted whole, as before
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", "12x"}})),
                 "runs: '12x' is not a whole number"));
  CHECK(contains(error_of(post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", true}})),
                 "runs: true is not a whole number"));
}

TEST_CASE("serve: a request reads nothing outside the content folders", "[serve]") {
  serve::Api api(repo_options());
  const std::string ti4 = "ruleset = \"ti4\"\n[attacker]\n[defender]\n";
  SECTION("a ruleset is a folder name under scripts/") {
    for (const char* rs : {"../content", "../../etc", "/etc", "ti4/../ti4"}) {
      const auto r =
          post(api, "/api/check", {{"scenario", "ruleset = \"" + std::string(rs) + "\"\n"}});
      CHECK(r.status == 400);
      CHECK(contains(error_of(r), "no ruleset"));
      const auto q = api.get("/api/records", {{"ruleset", rs}});
      CHECK(q.status == 400);
    }
  }
  SECTION("a pack is an id, never a folder") {
    for (const char* p : {"../content/ti4-pok", "/tmp", "./ti4-pok", "tests/fixtures/serve"}) {
      const auto r = post(api, "/api/check",
                          {{"scenario", "ruleset = \"ti4\"\npacks = [\"" + std::string(p) +
                                            "\"]\n[attacker]\n[defender]\n"}});
      CHECK(r.status == 400);
      CHECK(contains(error_of(r), "packs:"));
      CHECK(api.get("/api/records", {{"ruleset", "ti4"}, {"packs", p}}).status == 400);
      CHECK(post(api, "/api/compare", {{"scenario", ti4}, {"with", {p}}}).status == 400);
      CHECK(post(api, "/api/simulate", {{"scenario", ti4}, {"without", {p}}}).status == 400);
    }
  }
  SECTION("a change that names a folder is refused before anything reads it") {
    for (const char* c : {"/etc", "~/x", "attacker:../x", ".hidden", "a\\b"}) {
      const auto r = post(api, "/api/trace", {{"scenario", ti4}, {"with", {c}}});
      CHECK(r.status == 400);
      CHECK(contains(error_of(r), "names a folder"));
    }
  }
  SECTION("homebrew packs are found in the folders serve was given") {
    const auto r = api.get("/api/records",
                           {{"ruleset", "ti4"}, {"packs", "boarding-party"}, {"kinds", "unit"}});
    REQUIRE(r.status == 200);
    bool lancer = false;
    for (const auto& rec : r.body["records"]) {
      CHECK(rec["kind"] == "unit");
      lancer |= rec["name"] == "lancer" && rec["pack"] == "boarding-party";
    }
    CHECK(lancer);
    const auto packs = api.get("/api/packs", {});
    bool homebrew = false;
    for (const auto& p : packs.body["packs"])
      homebrew |= p["id"] == "boarding-party" && p["origin"] == "homebrew";
    CHECK(homebrew);
  }
}

TEST_CASE("serve: runs are capped, refused beyond the jobs allowed, and cancelled", "[serve]") {
  auto o = repo_options();
  o.jobs = 1;
  o.max_runs = 50'000'000;
  o.threads = 1;
  serve::Api api(o);
  auto r = post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 60'000'000}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "above this server's cap (serve --max-runs 50000000)"));
  r = post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 50'000'000}});
  REQUIRE(r.status == 202);
  const auto id = r.body["job"].get<std::uint64_t>();
  const auto busy = post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 10}});
  CHECK(busy.status == 429);
  CHECK(contains(error_of(busy), "serve --jobs 1"));
  // progress is reported while it runs
  std::uint64_t done = 0;
  for (int i = 0; i < 400 && done == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    done = api.get("/api/jobs/" + std::to_string(id), {}).body["done"].get<std::uint64_t>();
  }
  CHECK(done > 0);
  const auto cancelled = api.del("/api/jobs/" + std::to_string(id));
  REQUIRE(cancelled.status == 200);
  CHECK(cancelled.body["state"] == "cancelled");
  const auto& result = cancelled.body["result"];
  CHECK(result["interrupted"] == true);
  CHECK(result["runs"].get<std::uint64_t>() > 0);
  CHECK(result["runs"].get<std::uint64_t>() < 50'000'000);
  // the partial result is a report of the runs done: its probabilities add up
  CHECK(result["attacker_win"].get<double>() + result["draw"].get<double>() +
            result["defender_win"].get<double>() ==
        Approx(1.0));
  // a slot is free again
  CHECK(
      post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 10}, {"wait", true}}).status ==
      200);
  // threads above the server's are cut to its number; the result does not depend on them
  const auto a = post(api, "/api/simulate",
                      {{"scenario", kCruisers}, {"runs", 3000}, {"threads", 64}, {"wait", true}});
  CHECK(a.status == 200);
  CHECK(post(api, "/api/simulate", {{"scenario", kCruisers}, {"threads", 2000}}).status == 400);
}

TEST_CASE("serve: trace and check run content, so they count against --jobs like runs", "[serve]") {
  auto o = repo_options();
  o.jobs = 1;
  o.threads = 1;
  serve::Api api(o);
  auto r = post(api, "/api/simulate", {{"scenario", kCruisers}, {"runs", 9'000'000}});
  REQUIRE(r.status == 202);
  const auto id = r.body["job"].get<std::uint64_t>();
  for (const char* path : {"/api/trace", "/api/check", "/api/simulate", "/api/compare"}) {
    INFO(path);
    r = post(api, path, {{"scenario", kCruisers}, {"with", {"attacker:morale_boost"}}});
    CHECK(r.status == 429);
    CHECK(contains(error_of(r), "the most this server runs at once (serve --jobs 1)"));
  }
  CHECK(api.post("/api/parse", json{{"toml", kCruisers}}.dump()).status == 200);  // runs nothing
  CHECK(api.get("/api/jobs/" + std::to_string(id), {}).status == 200);
  REQUIRE(api.del("/api/jobs/" + std::to_string(id)).status == 200);
  CHECK(post(api, "/api/trace", {{"scenario", kCruisers}}).status == 200);
  CHECK(post(api, "/api/check", {{"scenario", kCruisers}}).status == 200);
}

TEST_CASE("serve: a trace in progress holds its place and stops at the run's limits", "[serve]") {
  serve::ApiOptions o;
  o.root = fixture_root();
  o.pack_dirs = {test_dir() / "fixtures" / "hostile"};
  o.threads = 1;
  o.jobs = 1;
  serve::Api api(o);
  // a hook that loops until its instruction budget stops it
  const std::string loop =
      "ruleset = \"mini\"\nprocedure = \"probe\"\npacks = [\"hostile-pack\"]\n"
      "probe = \"pcall_loop\"\n[attacker]\nunits = { cruiser = 1 }\n";
  serve::Reply trace;
  std::thread t([&] { trace = post(api, "/api/trace", {{"scenario", loop}}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto run = post(api, "/api/simulate", {{"scenario", loop}, {"runs", 1}});
  t.join();
  CHECK(run.status == 429);
  CHECK(contains(error_of(run), "serve --jobs 1"));
  CHECK(trace.status == 422);
  CHECK(contains(error_of(trace), "hostile-pack:pcall_loop"));
  // the place is free again
  CHECK(post(api, "/api/check", {{"scenario", loop}}).status == 200);
}

TEST_CASE("serve: a script that fails while running is a 422 with its message", "[serve]") {
  serve::ApiOptions o;
  o.root = fixture_root();
  o.pack_dirs = {test_dir() / "fixtures" / "hostile"};
  o.threads = 1;
  serve::Api api(o);
  const std::string probe =
      "ruleset = \"mini\"\nprocedure = \"probe\"\npacks = [\"hostile-pack\"]\n"
      "probe = \"roll_negative\"\n[attacker]\nunits = { cruiser = 1 }\n";
  const auto sim = post(api, "/api/simulate", {{"scenario", probe}, {"runs", 5}, {"wait", true}});
  CHECK(sim.status == 422);
  CHECK(sim.body["state"] == "error");
  CHECK(contains(sim.body["error"].get<std::string>(), "hook 'hostile-pack:roll_negative'"));
  const auto trace = post(api, "/api/trace", {{"scenario", probe}});
  CHECK(trace.status == 422);
  CHECK(contains(error_of(trace), "hook 'hostile-pack:roll_negative'"));
  CHECK(trace.body.contains("events"));
}

TEST_CASE("serve: parse turns a scenario's TOML into JSON, integers kept", "[serve]") {
  serve::Api api(repo_options());
  const auto r = post(api, "/api/parse", {{"toml", kCruisers}});
  REQUIRE(r.status == 200);
  CHECK(r.body["scenario"]["attacker"]["units"]["cruiser"] == 2);
  CHECK(r.body["scenario"]["attacker"]["units"]["cruiser"].is_number_integer());
  CHECK(r.body["scenario"]["ruleset"] == "ti4");
}

TEST_CASE("serve: every ruleset of the repository has a form that loads", "[serve]") {
  serve::Api api(repo_options());
  const auto r = api.get("/api/rulesets", {});
  REQUIRE(r.status == 200);
  REQUIRE(r.body["rulesets"].size() >= 3);
  for (const auto& rs : r.body["rulesets"]) {
    INFO(rs["id"]);
    CHECK_FALSE(rs.contains("error"));
    CHECK_FALSE(rs.contains("form_error"));
    CHECK(rs["form"].is_object());
    CHECK_FALSE(rs["form"]["procedures"].empty());
  }
  const auto ex = api.get("/api/scenarios", {{"ruleset", "xwing"}});
  REQUIRE(ex.status == 200);
  CHECK_FALSE(ex.body["scenarios"].empty());
  for (const auto& s : ex.body["scenarios"]) CHECK(s["pack"] == "xwing-core");
}

TEST_CASE("serve: a broken form.toml names its file, line and what was expected", "[serve]") {
  LoadRequest req;
  req.root = repo();
  req.ruleset = "ti4";
  Ruleset rs = load_content(req)->ruleset;
  const fs::path dir = fs::temp_directory_path() / "rb-serve-form-test";
  fs::create_directories(dir);
  rs.dir = dir;
  auto error_of_form = [&](const std::string& text) {
    std::ofstream(dir / "form.toml") << text;
    try {
      serve::read_form(rs);
    } catch (const ContentError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string side =
      "[procedure.space_combat]\nsides = [\"attacker\"]\nside_group = \"side\"\n";
  CHECK(contains(error_of_form(side + "[[group.side]]\nkey = \"units\"\ntype = \"counts\"\n"
                                      "kind = \"unti\"\n"),
                 "form.toml:7: group.side field 'units': 'unti' is not a record kind of ruleset "
                 "'ti4' (did you mean 'unit'?)"));
  CHECK(contains(error_of_form(side + "[[group.side]]\nkey = \"units\"\ntype = \"count\"\n"),
                 "form.toml:6: group.side field 'units': unknown type 'count' (did you mean "
                 "'counts'?)"));
  CHECK(contains(error_of_form(side + "[[group.side]]\nkey = \"units\"\ntype = \"counts\"\n"
                                      "kind = \"unit\"\nwhere = [\"shipp\"]\n"),
                 "no attribute 'shipp' in ruleset 'ti4' (did you mean 'ship'?)"));
  CHECK(contains(error_of_form(side + "[[group.side]]\nkey = \"faction\"\ntype = \"record\"\n"
                                      "kind = \"faction\"\ncolour = 1\n"),
                 "form.toml:8: unknown key 'colour'"));
  CHECK(contains(error_of_form("[procedure.space_combat]\nsides = [\"attacker\"]\n"
                               "side_group = \"sied\"\n[[group.side]]\nkey = \"x\"\ntype = "
                               "\"text\"\n"),
                 "no group 'sied' (did you mean 'side'?)"));
  CHECK(contains(error_of_form("[procedure.space_combt]\n"),
                 "'space_combt' is not a procedure of ruleset 'ti4' (did you mean "
                 "'space_combat'?)"));
  CHECK(contains(error_of_form("[[group.a]]\nkey = \"x\"\ntype = \"rows\"\nfields = \"b\"\n"
                               "[[group.b]]\nkey = \"y\"\ntype = \"rows\"\nfields = \"a\"\n"),
                 "its rows lead back to group 'a' (a -> b -> a)"));
  CHECK(contains(error_of_form("[[group.a]]\nkey = \"s\"\ntype = \"choice\"\n"
                               "attribute = \"combat\"\n"),
                 "attribute 'combat' declares no values"));
  CHECK(contains(error_of_form("[[group.a]]\nkey = \"technologies\"\ntype = \"records\"\n"
                               "kind = \"technology\"\nsame = \"faction\"\n"),
                 "needs an earlier field of this group with key 'faction'"));
  CHECK(error_of_form(side + "[[group.side]]\nkey = \"faction\"\ntype = \"record\"\n"
                             "kind = \"faction\"\n")
            .empty());
  fs::remove_all(dir);
}

TEST_CASE("serve: exact gives the command line's exact report and comparison", "[serve]") {
  serve::Api api(repo_options());
  const fs::path file = repo() / "content/ti4-base/scenarios/bench_a.toml";
  auto r = post(api, "/api/simulate", {{"scenario", read(file)}, {"exact", true}, {"wait", true}});
  REQUIRE(r.status == 200);
  json got = r.body["result"];
  const Session session = open_session(read_scenario(file), repo_session());
  json want = Simulation(session).exact(ExactRunOptions{});
  CHECK(got["method"] == "exact");
  got.erase("seconds"), want.erase("seconds");  // the exploration's time
  CHECK(got == want);

  r = post(api, "/api/compare",
           {{"scenario", read(file)},
            {"with", {"attacker:morale_boost"}},
            {"exact", true},
            {"wait", true}});
  REQUIRE(r.status == 200);
  got = r.body["result"];
  Changes changes;
  changes.with = {"attacker:morale_boost"};
  const Session b = apply_changes(session, changes, repo_session());
  want = exact_comparison(session, b, changes, ExactRunOptions{});
  CHECK(got["method"] == "exact");
  CHECK(got["difference"] == want["difference"]);
  CHECK(got["difference"]["attacker_win"]["difference"].get<double>() > 0);
}

TEST_CASE("serve: exact's errors: runs with exact, a state budget without it, a budget passed",
          "[serve]") {
  serve::Api api(repo_options());
  const std::string bench_a = read(repo() / "content/ti4-base/scenarios/bench_a.toml");
  auto r = post(api, "/api/simulate", {{"scenario", bench_a}, {"exact", true}, {"runs", 10}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "runs: the exact mode has no runs"));
  r = post(api, "/api/simulate", {{"scenario", bench_a}, {"max_states", 10}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "give exact = true too"));
  r = post(api, "/api/simulate", {{"scenario", bench_a}, {"exact", "yes"}});
  CHECK(r.status == 400);
  r = post(api, "/api/simulate",
           {{"scenario", bench_a}, {"exact", true}, {"max_states", 5}, {"wait", true}});
  CHECK(r.status == 422);
  CHECK(contains(error_of(r), "the exact mode stopped: the exact mode's chain passed 5 states"));
}

TEST_CASE("serve: exact with fallback: past its bound the job answers by Monte Carlo, saying so",
          "[serve]") {
  serve::Api api(repo_options());
  const std::string bench_a = read(repo() / "content/ti4-base/scenarios/bench_a.toml");
  auto r = post(api, "/api/simulate", {{"scenario", bench_a}, {"fallback", true}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "fallback: a bound of the exact mode; give exact = true too"));
  r = post(api, "/api/simulate", {{"scenario", bench_a}, {"exact", true}, {"max_seconds", 0}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "max_seconds: 0 is not a number from 0.01 to 120"));
  r = post(api, "/api/simulate",
           {{"scenario", bench_a},
            {"exact", true},
            {"max_states", 5},
            {"fallback", true},
            {"wait", true}});
  REQUIRE(r.status == 200);
  const json& got = r.body["result"];
  CHECK_FALSE(got.contains("method"));  // (Monte Carlo)
  CHECK(got["runs"] == 100000);
  CHECK(contains(got["exact_stopped"].get<std::string>(),
                 "the exact mode stopped: the exact mode's chain passed 5 states"));
  // within its bounds the answer is exact, and says nothing of a fallback
  r = post(api, "/api/simulate",
           {{"scenario", bench_a}, {"exact", true}, {"fallback", true}, {"wait", true}});
  REQUIRE(r.status == 200);
  CHECK(r.body["result"]["method"] == "exact");
  CHECK_FALSE(r.body["result"].contains("exact_stopped"));
}

TEST_CASE("serve: an exact exploration is cancelled at its next step run", "[serve]") {
  serve::Api api(repo_options());
  // a Red Alert combat phase: tens of seconds of exploration
  const std::string phase = read(repo() / "content/red-alert-core/scenarios/bench_g.toml");
  auto r = post(api, "/api/simulate", {{"scenario", phase}, {"exact", true}});
  REQUIRE(r.status == 202);
  const auto id = r.body["job"].get<std::uint64_t>();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  const auto cancelled = api.del("/api/jobs/" + std::to_string(id));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(cancelled.status == 422);
  CHECK(contains(error_of(cancelled), "the exact mode was cancelled"));
  CHECK(waited < 5);
}

// The numbers of a report that are not times (the explorations' "seconds")
json without_seconds(json r) {
  r.erase("seconds");
  if (r.contains("policy")) r["policy"].erase("seconds");
  return r;
}

TEST_CASE("serve: best play gives simulate --exact --best's numbers, the decisions table too",
          "[serve][best]") {
  serve::Api api(repo_options());
  // 2 cruisers and a carrier against the same: the default order loses the cruisers first, best
  // play the carrier (docs/exact.md, +8.5 points for either side)
  const fs::path file = test_dir() / "fixtures/exact/best_play_carrier.toml";
  auto r = post(api, "/api/simulate",
                {{"scenario", read(file)},
                 {"exact", true},
                 {"best", "defender"},
                 {"decisions", true},
                 {"wait", true}});
  REQUIRE(r.status == 200);
  const json got = r.body["result"];
  // the command line's JSON, by the command line itself
  const Run cli = rulebench(
      test_dir(), "simulate '" + file.string() + "' --exact --best defender --decisions --json");
  REQUIRE(cli.code == 0);
  const json want = json::parse(cli.out);
  CHECK(got["best"] == want["best"]);
  CHECK(got["best"]["side"] == "defender");
  CHECK(got["best"]["gain_points"].get<double>() > 1);  // it gains: the check can fail
  CHECK(got["best"]["decisions"].size() > 0);
  for (const char* outcome : {"attacker_win", "defender_win", "draw"}) {
    CHECK(got[outcome] == want[outcome]);
    CHECK(got["policy"][outcome] == want["policy"][outcome]);
  }
  // the whole report is the entry point's (simulate's --exact --best) for both sides and not_lose
  r = post(api, "/api/simulate",
           {{"scenario", read(file)},
            {"exact", true},
            {"best", "both"},
            {"objective", "not_lose"},
            {"wait", true}});
  REQUIRE(r.status == 200);
  const Session session = open_session(read_scenario(file), repo_session());
  const json both = Simulation(session).exact_best(ExactRunOptions{}, "both", "not_lose", false);
  CHECK(without_seconds(r.body["result"]) == without_seconds(both));
  CHECK(r.body["result"]["best"]["sides"].size() == 2);
}

TEST_CASE("serve: best play's bad requests are 400s naming the field; past a bound, no fallback",
          "[serve][best]") {
  serve::Api api(repo_options());
  const std::string carrier = read(test_dir() / "fixtures/exact/best_play_carrier.toml");
  auto bad = [&](json body, const std::string& says, int status = 400) {
    if (!body.contains("scenario")) body["scenario"] = carrier;
    body["wait"] = true;
    const auto r = post(api, "/api/simulate", body);
    CHECK(r.status == status);
    CHECK(contains(error_of(r), says));
  };
  bad({{"best", "defender"}}, "best: best play is answered by the exact mode only");
  bad({{"best", "defender"}, {"runs", 1000}}, "best: best play is answered by the exact mode only");
  bad({{"best", "defender"}, {"exact", true}, {"fallback", true}},
      "fallback: best play has no Monte Carlo fallback");
  bad({{"best", "nobody"}, {"exact", true}},
      "best: 'nobody' is not a side of the report of 'space_combat': attacker, defender, or both");
  bad({{"best", 2}, {"exact", true}}, "best: 2 is not a side of the report");
  bad({{"best", ""}, {"exact", true}}, "best: '' is not a side of the report");
  bad({{"best", "attacker"}, {"exact", true}, {"objective", "lose"}},
      "objective: 'lose' is not one of: win, not_lose, metric:NAME, metric:-NAME");
  bad({{"best", "attacker"}, {"exact", true}, {"objective", "metric:nosuch"}},
      "objective: 'metric:nosuch': the report of 'space_combat' has no mean or probability "
      "'nosuch'");
  bad({{"best", "attacker"}, {"exact", true}, {"objective", 1}}, "objective: 1 is not one of");
  bad({{"exact", true}, {"objective", "win"}}, "objective: a setting of best play; give best too");
  bad({{"exact", true}, {"decisions", true}}, "decisions: a setting of best play; give best too");
  bad({{"best", "attacker"}, {"exact", true}, {"decisions", "yes"}}, "decisions: true or false");
  bad({{"exact", true}, {"max_memory", 0}}, "max_memory: 0 is out of range (expected 1 to 2048)");
  bad({{"exact", true}, {"max_memory", 4096}},
      "max_memory: 4096 is out of range (expected 1 to 2048)");
  bad({{"max_memory", 100}}, "max_memory: a bound of the exact mode; give exact = true too");
  // X-Wing's report declares no wins: best play there maximises a metric
  bad({{"scenario", read(test_dir() / "fixtures/exact/best_play_xwing_lock_focus.toml")},
       {"best", "attacker"},
       {"exact", true}},
      "objective: best play: the report of 'attack' declares no win for 'attacker'");
  // compare has no best play
  auto r = post(api, "/api/compare",
                {{"scenario", carrier},
                 {"with", {"attacker:morale_boost"}},
                 {"exact", true},
                 {"best", "attacker"}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "compare: unknown key 'best'"));
  // past a bound the job says so, and that best play has no Monte Carlo answer
  bad({{"best", "defender"}, {"exact", true}, {"max_states", 5}},
      "the exact mode stopped: the exact mode's chain passed 5 states", 422);
  bad({{"best", "defender"}, {"exact", true}, {"max_states", 5}},
      "best play has no Monte Carlo fallback", 422);
}

TEST_CASE("serve: the server answers on its port and stops when asked", "[serve]") {
  const fs::path cwd = fs::current_path();
  {
    Server server({});
    const std::string host = "127.0.0.1:" + std::to_string(server.port());
    const auto r = http("127.0.0.1", server.port(), get_request("/api/packs", host));
    REQUIRE(r.answered);
    CHECK(r.status == 200);
    CHECK(contains(r.body, "boarding-party"));
  }
  CHECK(fs::current_path() == cwd);
}

TEST_CASE("serve --host other than 127.0.0.1 still answers only the Host names on its list",
          "[serve]") {
  serve::ServeOptions o;
  o.host = "127.0.0.2";  // loopback, but not the default address
  Server server(o);
  const std::string p = ":" + std::to_string(server.port());
  for (const std::string& host : {"127.0.0.2" + p, "localhost" + p, "LocalHost" + p}) {
    INFO(host);
    const auto r = http("127.0.0.2", server.port(), get_request("/api/packs", host));
    CHECK(r.status == 200);
  }
  // a name another site controls (DNS rebinding), the right name with another port, no Host
  for (const std::string& host :
       std::vector<std::string>{"evil.example" + p, "evil.example", "127.0.0.2", "127.0.0.2:1",
                                "localhost.evil.example" + p, ""}) {
    INFO(host);
    const auto r = http("127.0.0.2", server.port(), get_request("/api/packs", host));
    CHECK(r.status == 403);
    CHECK(contains(r.body, "this server answers requests for Host 127.0.0.2" + p));
  }
}

TEST_CASE("serve: the Host allowlist of each address the server can listen on", "[serve]") {
  const auto list = [](const std::string& host, std::vector<std::string> allow = {}) {
    return serve::host_allowlist(host, 8080, allow, "mybox").names;
  };
  using names = std::vector<std::string>;
  CHECK(list("127.0.0.1") == names{"127.0.0.1", "localhost", "[::1]"});
  CHECK(list("127.0.0.2") == names{"127.0.0.2", "localhost", "127.0.0.1", "[::1]"});
  CHECK(list("::1") == names{"[::1]", "localhost", "127.0.0.1"});
  CHECK(list("LocalHost") == names{"localhost", "127.0.0.1", "[::1]"});
  // every address: this machine's names; others only by --allow-host
  CHECK(list("0.0.0.0") == names{"localhost", "127.0.0.1", "[::1]", "mybox"});
  CHECK(list("::", {"rb.lan", "192.168.1.5", "FE80::1"}) ==
        names{"localhost", "127.0.0.1", "[::1]", "mybox", "rb.lan", "192.168.1.5", "[fe80::1]"});
  CHECK(list("192.168.1.5") == names{"192.168.1.5", "mybox"});
  CHECK(list("rb.lan") == names{"rb.lan", "mybox"});
  const auto any = serve::host_allowlist("0.0.0.0", 8080, {"rb.lan"}, "mybox");
  CHECK(any.accepts("rb.lan:8080"));
  CHECK(any.accepts("RB.LAN:8080"));
  CHECK(any.accepts("mybox:8080"));
  CHECK(any.accepts("[::1]:8080"));
  CHECK_FALSE(any.accepts("rb.lan"));  // the port is part of it (80 would be left out)
  CHECK_FALSE(any.accepts("rb.lan:80"));
  CHECK_FALSE(any.accepts("0.0.0.0:8080"));
  CHECK_FALSE(any.accepts("192.168.1.5:8080"));
  CHECK_FALSE(any.accepts("evil.example:8080"));
  CHECK_FALSE(any.accepts(""));
  CHECK(serve::host_allowlist("127.0.0.1", 80, {}, "").accepts("localhost"));
  CHECK(serve::host_allowlist("127.0.0.1", 80, {}, "").accepts("localhost:80"));
  CHECK(serve::host_allowlist("0.0.0.0", 8080, {"[FE80::1]"}, "").accepts("[fe80::1]:8080"));
  for (const char* bad : {"", "rb.lan:8080", "http://rb.lan", "a b", "[rb.lan]", "[::1]:80"}) {
    INFO(bad);
    CHECK_THROWS_AS(serve::host_allowlist("0.0.0.0", 8080, {bad}, ""), UsageError);
  }
}

TEST_CASE("serve --allow-host adds a name, and the startup lines say who is answered", "[serve]") {
  serve::ServeOptions o;
  o.host = "127.0.0.2";
  o.allow_hosts = {"rb.test"};
  Server server(o);
  const std::string p = ":" + std::to_string(server.port());
  CHECK(http("127.0.0.2", server.port(), get_request("/api/packs", "rb.test" + p)).status == 200);
  CHECK(http("127.0.0.2", server.port(), get_request("/api/packs", "evil.test" + p)).status == 403);
  server.stop();
  CHECK(contains(server.printed(), "rulebench serve: http://127.0.0.2" + p + "/"));
  CHECK(contains(server.printed(),
                 "listening on 127.0.0.2 (this machine only); answers requests for Host "
                 "127.0.0.2" +
                     p + ", localhost" + p + ", 127.0.0.1" + p + ", [::1]" + p + ", rb.test" + p));
}

TEST_CASE(
    "serve: slow clients cannot hold the server: a request has a deadline for its headers "
    "and body, and the page is still answered",
    "[serve]") {
  serve::ServeOptions o;
  o.request_seconds = 1.5;
  Server server(o);
  const int port = server.port();
  const std::string host = "127.0.0.1:" + std::to_string(port);
  // four connections send their headers a byte every 100 ms (slowloris); two send their headers
  // at once and then their body a byte at a time
  std::string headers = "GET /api/packs HTTP/1.1\r\nHost: " + host + "\r\n";
  for (int i = 0; i < 100; ++i) headers += "X-Slow: " + std::to_string(i) + "\r\n";
  const std::string post_head = "POST /api/parse HTTP/1.1\r\nHost: " + host +
                                "\r\nContent-Type: application/json\r\nContent-Length: "
                                "5000\r\n\r\n";
  const std::string body = "{\"toml\": \"" + std::string(4985, ' ') + "\"}";
  struct Slow {
    int fd;
    std::string text;
    std::size_t sent = 0;
    double ended = -1;  // seconds after the start when the server answered or closed it
  };
  std::vector<Slow> slow;
  for (int i = 0; i < 4; ++i) slow.push_back({connect_to("127.0.0.1", port), headers});
  for (int i = 0; i < 2; ++i) {
    slow.push_back({connect_to("127.0.0.1", port), body});
    ::send(slow.back().fd, post_head.data(), post_head.size(), MSG_NOSIGNAL);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::atomic<bool> all_ended{false};
  std::thread trickle([&] {
    while (seconds() < 6) {
      bool any = false;
      for (Slow& s : slow) {
        if (s.ended >= 0) continue;
        pollfd p{s.fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) {  // an answer (408) or the end of the connection
          s.ended = seconds();
          continue;
        }
        any = true;
        if (s.sent < s.text.size()) ::send(s.fd, &s.text[s.sent++], 1, MSG_NOSIGNAL);
      }
      if (!any) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    all_ended = true;
  });
  // while they trickle, the page's own requests are answered at once
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < 3; ++i) {
    const auto r = http("127.0.0.1", port, get_request("/api/jobs", host), 2);
    CHECK(r.answered);
    CHECK(r.status == 200);
  }
  trickle.join();
  for (Slow& s : slow) {
    INFO(s.text.substr(0, 20) << ": ended after " << s.ended << " s");
    CHECK(s.ended >= 1.0);
    CHECK(s.ended < 3.5);  // 1.5 s, and the time to see it
    std::string got;
    read_until_closed(s.fd, 1, got);
    // cut in its line or headers: closed (no answer) or a 408; in its body: a 408
    if (!got.empty() || s.text == body) {
      CHECK(got.starts_with("HTTP/1.1 408"));
      CHECK(contains(got, "the request (its headers and body) did not arrive within 1.5 s"));
    }
    ::close(s.fd);
  }
}

TEST_CASE("serve: a request's line and headers are bounded in bytes, not only its body",
          "[serve]") {
  Server server({});
  const int fd = connect_to("127.0.0.1", server.port());
  // a request line that never ends, sent as fast as the server takes it: it is cut after 2 MB
  // and 64 KB, long before the 10 s deadline
  const auto start = std::chrono::steady_clock::now();
  const std::string chunk(64 << 10, 'a');
  ::send(fd, "GET /", 5, MSG_NOSIGNAL);
  std::size_t sent = 0;
  while (sent < (64u << 20) && std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN) break;  // the server closed the connection
    if (n > 0) sent += static_cast<std::size_t>(n);
  }
  std::string got;
  CHECK(read_until_closed(fd, 5, got));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(sent < (16u << 20));  // what the kernel's buffers took besides
  ::close(fd);
}

// POST /api/board: the Learn to Play tactical action's galaxy as the page draws it
TEST_CASE("serve: board gives every hex of the map with its system, contents and the roles",
          "[serve][board]") {
  serve::Api api(repo_options());
  const std::string ltp = read(repo() / "content/ti4-base/scenarios/learn_to_play_action.toml");
  const auto r = post(api, "/api/board", {{"scenario", ltp}});
  REQUIRE(r.status == 200);
  CHECK(r.body["orientation"] == "flat");
  CHECK(r.body["players"] == json::array({"sol", "letnev"}));
  CHECK_FALSE(r.body.contains("moves"));  // no seed: no run
  // every tile of the map string (-1: no tile) is a hex with a system on it
  TomlFile maps((repo() / "content/ti4-base/maps.toml").string());
  std::istringstream text(
      maps.root()["map"]["learn_to_play_6p"]["text"].value<std::string>().value());
  // the centre (18 unless the string starts with {N}, the centre's tile) and the rings' tiles
  std::size_t tiles = text.peek() == '{' ? 0 : 1;
  for (std::string t; text >> t;) tiles += t != "-1";
  REQUIRE(r.body["hexes"].size() == tiles);
  const auto by_tile = [&](int tile) {
    for (const json& h : r.body["hexes"])
      if (h["entity"].is_object() && h["entity"]["attributes"].value("tile", 0) == tile) return h;
    return json();
  };
  for (const json& h : r.body["hexes"]) CHECK(h["entity"]["kind"] == "system");
  CHECK(by_tile(18)["q"] == 0);  // Mecatol Rex in the centre
  CHECK(by_tile(18)["r"] == 0);
  // 38 (Abyz / Fria): the Letnev destroyer in space, the planets with owners and ground forces
  const json abyz_fria = by_tile(38);
  REQUIRE(abyz_fria.is_object());
  CHECK(abyz_fria["entity"]["title"].get<std::string>().find("Abyz") != std::string::npos);
  std::map<std::string, json> inside;
  for (const json& c : abyz_fria["entity"]["contents"])
    inside[c["name"].get<std::string>() + "/" + c["owner"].dump()] = c;
  CHECK(inside["destroyer/\"letnev\""]["count"] == 1);
  const json& abyz = inside["abyz/\"letnev\""];
  REQUIRE(abyz.is_object());
  CHECK(abyz["kind"] == "planet");
  std::map<std::string, int> on_abyz;
  for (const json& u : abyz["contents"]) on_abyz[u["name"]] = u["count"];
  CHECK(on_abyz == std::map<std::string, int>{{"infantry", 1}, {"pds", 1}});
  CHECK(inside["fria/\"sol\""]["contents"][0]["name"] == "space_dock");
  // 19 (Wellon): Sol's fleet, the two infantry as one item of count 2
  std::map<std::string, int> at_wellon;
  const json wellon = by_tile(19);
  for (const json& c : wellon["entity"]["contents"])
    if (c["kind"] == "unit") at_wellon[c["name"]] = c["count"];
  CHECK(at_wellon ==
        std::map<std::string, int>{{"carrier", 1}, {"dreadnought", 1}, {"infantry", 2}});
  // the active system is 38's hex
  CHECK(r.body["roles"]["active_system"]["q"] == abyz_fria["q"]);
  CHECK(r.body["roles"]["active_system"]["r"] == abyz_fria["r"]);
  CHECK(r.body["roles"]["active_player"]["name"] == "sol");
}

TEST_CASE("serve: board with a seed gives the moves the run made, as paths of hexes",
          "[serve][board]") {
  serve::Api api(repo_options());
  const std::string ltp = read(repo() / "content/ti4-base/scenarios/learn_to_play_action.toml");
  const auto r = post(api, "/api/board", {{"scenario", ltp}, {"seed", 1}});
  REQUIRE(r.status == 200);
  CHECK(r.body["seed"] == 1);
  CHECK_FALSE(r.body["outcome"].get<std::string>().empty());
  const json& moves = r.body["moves"];
  REQUIRE(moves.size() == 2);  // the carrier and the dreadnought, from Wellon (19) into 38
  std::set<std::string> units;
  for (const json& m : moves) {
    CHECK(m["player"] == "sol");
    units.insert(m["unit"].get<std::string>());
    REQUIRE(m["path"].size() == 2);
    CHECK(m["path"][0]["name"] == "tile_19");
    CHECK(m["path"][1]["q"] == r.body["roles"]["active_system"]["q"]);
    CHECK(m["path"][1]["r"] == r.body["roles"]["active_system"]["r"]);
    CHECK(m["key"].get<std::string>().starts_with("move:sol:"));
  }
  CHECK(units == std::set<std::string>{"carrier", "dreadnought"});
}

TEST_CASE("serve: board refuses bad input with a 400 naming what is wrong", "[serve][board]") {
  serve::Api api(repo_options());
  const std::string ltp = read(repo() / "content/ti4-base/scenarios/learn_to_play_action.toml");
  auto r = post(api, "/api/board", json::object());
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "scenario: the scenario's TOML text is required"));
  r = post(api, "/api/board", {{"scenario", ltp}, {"seeds", 1}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "board: unknown key 'seeds' (did you mean 'seed'?)"));
  r = post(api, "/api/board", {{"scenario", ltp}, {"seed", "one"}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "seed: 'one' is not a whole number"));
  r = api.post("/api/board", "{\"scenario\": ");
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "the request body is not JSON"));
  // a system the map does not have: the setup's message, with its line
  std::string off_map = ltp;
  off_map.replace(off_map.find("activate = 38"), 13, "activate = 99");
  r = post(api, "/api/board", {{"scenario", off_map}});
  CHECK(r.status == 400);
  CHECK(contains(error_of(r), "scenario:13: tile 99 is not on the map"));
  // a game without a board: no hexes, not an error
  r = post(api, "/api/board", {{"scenario", kCruisers}});
  CHECK(r.status == 200);
  CHECK(r.body["hexes"].empty());
}

TEST_CASE("serve: rulesets lists each report's conditional probabilities", "[serve][board]") {
  serve::Api api(repo_options());
  const auto r = api.get("/api/rulesets", {});
  REQUIRE(r.status == 200);
  json ti4;
  for (const json& rs : r.body["rulesets"])
    if (rs["id"] == "ti4") ti4 = rs;
  const json& conditional = ti4["reports"]["tactical_action"]["conditional"];
  REQUIRE(conditional.size() == 3);
  CHECK(conditional[0] == json{{"key", "planet_1_controlled_if_space_combat_won"},
                               {"metric", "planet_1_controlled_and_won"},
                               {"given", "space_combat_won"}});
  CHECK(ti4["reports"]["space_combat"]["conditional"].empty());
}

// Issue 28: the page opens with the packs that say default_on and does not offer test_only ones.
TEST_CASE("serve: /api/packs says which packs are test-only and which the page starts with",
          "[serve]") {
  serve::Api api(repo_options());
  const auto r = api.get("/api/packs", {});
  REQUIRE(r.status == 200);
  std::map<std::string, json> by_id;
  for (const auto& p : r.body["packs"]) by_id[p["id"]] = p;
  CHECK(by_id.at("ti4-test-kit")["test_only"] == true);
  CHECK(by_id.at("ti4-test-kit")["default_on"] == false);
  CHECK(by_id.at("ti4-pok")["default_on"] == true);
  CHECK(by_id.at("ti4-pok")["test_only"] == false);
  CHECK(by_id.at("boarding-party")["test_only"] == false);
  // and the ruleset it opens on (form.toml opens_first): TI4, the flagship
  const auto rs = api.get("/api/rulesets", {});
  REQUIRE(rs.status == 200);
  for (const auto& r : rs.body["rulesets"]) CHECK(r["form"]["opens_first"] == (r["id"] == "ti4"));
}

TEST_CASE("serve: a pack cannot be test-only and on by default; the keys are true or false",
          "[serve]") {
  const fs::path dir = fs::temp_directory_path() / "rb-serve-pack-flags" / "flags";
  fs::create_directories(dir);
  auto error_of_pack = [&](const std::string& more) {
    std::ofstream(dir / "pack.toml") << "id = \"flags\"\nversion = \"1.0.0\"\nruleset = \"ti4\"\n"
                                     << more;
    try {
      LoadRequest req;
      req.root = repo();
      req.ruleset = "ti4";
      req.packs = {dir.string()};
      load_content(req);
    } catch (const ContentError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of_pack("test_only = true\n").empty());
  CHECK(error_of_pack("default_on = true\n").empty());
  CHECK(contains(error_of_pack("test_only = true\ndefault_on = true\n"),
                 "pack.toml:5: default_on: a test_only pack is not offered on the page"));
  CHECK(contains(error_of_pack("test_only = \"yes\"\n"), "'test_only' must be true or false"));
  fs::remove_all(dir.parent_path());
}

TEST_CASE("serve: form.toml's unit rows (shown_as, upgrade, stats) are checked", "[serve]") {
  LoadRequest req;
  req.root = repo();
  req.ruleset = "ti4";
  Ruleset rs = load_content(req)->ruleset;
  const fs::path dir = fs::temp_directory_path() / "rb-serve-form-rows-test";
  fs::create_directories(dir);
  rs.dir = dir;
  auto error_of_form = [&](const std::string& more) {
    std::ofstream(dir / "form.toml")
        << "[[group.side]]\nkey = \"faction\"\ntype = \"record\"\nkind = \"faction\"\n"
           "[[group.side]]\nkey = \"units\"\ntype = \"counts\"\nkind = \"unit\"\n"
        << more;
    try {
      serve::read_form(rs);
    } catch (const ContentError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of_form("shown_as = { by = \"replaces\", same = \"faction\" }\n").empty());
  CHECK(contains(error_of_form("shown_as = { by = \"replace\" }\n"),
                 "no attribute 'replace' in ruleset 'ti4' (did you mean 'replaces'?)"));
  CHECK(contains(error_of_form("shown_as = { by = \"replaces\", same = \"ship\" }\n"),
                 "needs an earlier field of this group with key 'ship'"));
  CHECK(contains(error_of_form("upgrade = { key = \"technologies\", kind = \"technolgy\", by = "
                               "\"upgrades\", to = \"upgrade_to\" }\n"),
                 "'technolgy' is not a record kind of ruleset 'ti4'"));
  CHECK(contains(error_of_form("stats = [{ label = \"SD\" }]\n"), "give value or flag"));
  CHECK(contains(
      error_of_form("stats = [{ label = \"AFB\", value = \"afb\", dise = \"afb_dice\" }]\n"),
      "unknown key 'dise'"));
  const json ok = serve::read_form([&] {
    std::ofstream(dir / "form.toml")
        << "opens_first = true\n[[group.side]]\nkey = \"units\"\ntype = \"counts\"\nkind = "
           "\"unit\"\nstats = [{ label = \"combat\", value = \"combat\", dice = \"dice\" }, "
           "{ label = \"SD\", flag = \"sustain_damage\", title = \"Sustain Damage\" }]\n";
    return rs;
  }());
  CHECK(ok["opens_first"] == true);
  CHECK(ok["groups"]["side"][0]["stats"][1] ==
        json{{"label", "SD"}, {"flag", "sustain_damage"}, {"title", "Sustain Damage"}});
  fs::remove_all(dir);
}

// The page asks for an answer at every click: the server keeps loaded content, and loads it again
// when a file of its packs changes (a homebrew pack edited while serve runs).
TEST_CASE("serve: kept content is loaded again when a pack's file changes", "[serve]") {
  const fs::path packs = fs::temp_directory_path() / "rb-serve-cache-test";
  fs::remove_all(packs);
  fs::create_directories(packs);
  fs::copy(test_dir() / "fixtures" / "serve" / "boarding-party", packs / "boarding-party",
           fs::copy_options::recursive);
  serve::ApiOptions o = repo_options();
  o.pack_dirs = {packs};
  serve::Api api(o);
  const std::string scenario =
      "ruleset = \"ti4\"\nprocedure = \"space_combat\"\npacks = [\"boarding-party\"]\n"
      "[attacker]\nunits = { lancer = 1 }\n[defender]\nunits = { cruiser = 1 }\n";
  auto attacker_win = [&] {
    const auto r =
        post(api, "/api/simulate", {{"scenario", scenario}, {"exact", true}, {"wait", true}});
    REQUIRE(r.status == 200);
    return r.body["result"]["attacker_win"].get<double>();
  };
  const double before = attacker_win();
  CHECK(attacker_win() == before);  // kept: the same answer
  const fs::path units = packs / "boarding-party" / "boarding_party.toml";
  std::string text = read(units);
  const auto at = text.find("combat = 8");
  REQUIRE(at != std::string::npos);
  text.replace(at, 10, "combat = 2");  // a far better gun
  std::ofstream(units) << text;
  CHECK(attacker_win() > before + 0.1);  // about 0.43 before, 0.60 after
  fs::remove_all(packs);
}
