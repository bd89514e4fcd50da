// tests/fuzz: fuzz_serve, a libFuzzer target for the request handling of `rulebench serve`: its
// JSON API (tools/serve/api.hpp) called in process, as the HTTP server calls it, without sockets.
// The input is a request written as text: its first line is `METHOD PATH[?QUERY]` (GET, POST or
// DELETE; the query's `key=value` pairs separated by `&`, %XX decoded), the rest is the body of a
// POST (tests/fuzz/seeds/serve/ has one for every route; tools/fuzz adds the deep ones). So it
// reaches every GET route with any query string and every POST route with any body.
//
// The API serves a temporary copy of the mini fixture ruleset and packs (tests/fixtures/root:
// scripts/mini without its `spin` procedure, which exists to meet the 60 s time limit, mini-base
// and mini-cards) with small caps: one thread, one run at once, at most 1000 runs, a sweep of
// at most 16 cells and 5 s.
//
// A finding: a crash or sanitizer report, a hang or runaway memory (libFuzzer), an exception out
// of the API, or a 500 (an exception that is not a rulebench error) as the answer or as the state
// of a run the input started. After each input its runs are cancelled and waited for.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "api.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path g_root;  // the temporary copy
std::unique_ptr<rb::serve::Api> g_api;

void remove_root() {
  g_api.reset();  // its runs end first
  std::error_code ec;
  if (!g_root.empty()) fs::remove_all(g_root, ec);
}

void make_root() {
  const fs::path fixtures = fs::path(RB_SOURCE_DIR) / "tests" / "fixtures" / "root";
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/rb-fuzz-serve-XXXXXX";
  if (!mkdtemp(templ.data())) {
    std::perror("mkdtemp");
    std::abort();
  }
  g_root = templ;
  std::atexit(remove_root);
  const auto opts = fs::copy_options::recursive;
  fs::create_directories(g_root / "scripts" / "mini");
  fs::copy(fixtures / "scripts" / "mini", g_root / "scripts" / "mini", opts);
  for (const char* pack : {"mini-base", "mini-cards"}) {
    fs::create_directories(g_root / "content" / pack);
    fs::copy(fixtures / "content" / pack, g_root / "content" / pack, opts);
  }
  // without the procedure that never ends: every input naming it would wait for the time limit
  const fs::path ruleset = g_root / "scripts" / "mini" / "ruleset.toml";
  std::ifstream in(ruleset);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  std::string s = text.str();
  const std::string spin = ", spin = \"spin.lua\"";
  const auto at = s.find(spin);
  if (at == std::string::npos) {
    std::fprintf(stderr, "fuzz_serve: no spin procedure in %s\n", ruleset.c_str());
    std::abort();
  }
  s.erase(at, spin.size());
  std::ofstream(ruleset, std::ios::trunc) << s;
  fs::remove(g_root / "scripts" / "mini" / "spin.lua");
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX and + decoded, as cpp-httplib decodes a query
std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

// the first of a repeated key, as the server keeps it
std::map<std::string, std::string> query_of(std::string_view q) {
  std::map<std::string, std::string> out;
  while (!q.empty()) {
    const auto amp = q.find('&');
    const std::string_view pair = q.substr(0, amp);
    const auto eq = pair.find('=');
    out.emplace(decode(pair.substr(0, eq)),
                eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1)));
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return out;
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz: %s\n", what.substr(0, 2000).c_str());
  std::abort();
}

void check(const rb::serve::Reply& r, std::string_view request) {
  const std::string text = r.text();  // what the server sends
  if (r.status < 200 || r.status >= 500)
    finding(std::string(request) + " answered " + std::to_string(r.status) + ": " + text);
}

void one_input(std::string_view in) {
  const auto nl = in.find('\n');
  const std::string_view line = in.substr(0, nl);
  const std::string_view body = nl == std::string_view::npos ? "" : in.substr(nl + 1);
  const auto sp = line.find(' ');
  if (sp == std::string_view::npos) return;
  const std::string_view method = line.substr(0, sp), target = line.substr(sp + 1);
  const auto q = target.find('?');
  const std::string path(target.substr(0, q));
  if (method == "GET")
    check(g_api->get(path, query_of(q == std::string_view::npos ? "" : target.substr(q + 1))),
          line);
  else if (method == "POST")
    check(g_api->post(path, body), line);
  else if (method == "DELETE")
    check(g_api->del(path), line);
  else
    return;
  // the runs it started end here; none may have failed with a 500
  g_api->stop_all();
  const rb::serve::Reply jobs = g_api->get("/api/jobs", {});
  check(jobs, "GET /api/jobs");
  for (const json& j : jobs.body["jobs"])
    if (j.contains("status") && j["status"] == 500)
      finding(std::string(line) + ": a run failed with a 500: " + j.dump());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_root();
  rb::serve::ApiOptions o;
  o.root = g_root;
  o.threads = 1;
  o.jobs = 1;
  o.max_runs = 1000;
  o.max_sweep_cells = 16;  // a sweep: a few cells, stopped after 5 s (the default is 300 s)
  o.sweep_seconds = 5;
  g_api = std::make_unique<rb::serve::Api>(o);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    one_input(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    finding(std::string("an exception out of the API: ") + e.what());
  }
  return 0;
}
