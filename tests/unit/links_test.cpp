// Links out of a pack (issue 25): every file a pack loads resolves, links followed, inside the
// pack's folder (a ruleset's files inside the ruleset's), else loading fails naming the link and
// where it points; the tools never write through a link. Each case builds its hostile layout in a
// temporary folder with std::filesystem::create_symlink: a `require`d module, a scripts folder
// (linked outside, and linked to /), data files, a ruleset's files, a scenario listed by
// `rulebench serve` and run by `check` and `bench`, a rules test, and the writers `types`,
// `new pack` and `test --junit`. Built against the code before this change, every case failed
// but the control case (links that stay inside).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "api.hpp"
#include "base/error.hpp"
#include "cli_run.hpp"
#include "fixtures.hpp"
#include "sim/bench.hpp"
#include "sim/rules_test.hpp"

using namespace rb;
using namespace rb::testing;
namespace fs = std::filesystem;

namespace {

// A scratch folder: packs/ (a search folder for packs of the mini ruleset) and outside/ (what
// the hostile links point at), removed at the end.
struct Tree {
  explicit Tree(const std::string& name)
      : top(fs::temp_directory_path() / ("rulebench-links-" + std::to_string(::getpid())) / name) {
    fs::remove_all(top);
    fs::create_directories(top / "packs");
    fs::create_directories(top / "outside");
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(top, ec);
    fs::remove(top.parent_path(), ec);  // this process's folder, once empty
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  void file(const fs::path& rel, const std::string& text) const { write(top / rel, text); }
  // rel -> target (as written in the link: relative to rel's folder, or absolute)
  void link(const fs::path& rel, const fs::path& target) const {
    fs::create_directories((top / rel).parent_path());
    fs::create_symlink(target, top / rel);
  }
  // packs/ID/pack.toml for the mini ruleset, with more keys
  void pack(const std::string& id, const std::string& keys) const {
    file("packs/" + id + "/pack.toml", "id = \"" + id + "\"\nruleset = \"mini\"\n" + keys);
  }
  std::string read(const fs::path& rel) const {
    std::ifstream in(top / rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path top;
};

LoadRequest mini_request(const Tree& t, std::vector<std::string> packs) {
  LoadRequest req;
  req.root = fixture_root();
  req.search = {t.top / "packs"};
  req.ruleset = "mini";
  req.packs = std::move(packs);
  return req;
}

// Loads the content and its scripts; the error's message, "" when it loads.
std::string load_error(const LoadRequest& req) {
  try {
    Engine engine(load_content(req));
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a runtime error: ") + e.what();
  }
  return "";
}

const char* kPayload = "return { ran = true }\n";

}  // namespace

TEST_CASE("links: links that stay inside the pack load, and the pack may be reached by a link",
          "[isolation][links]") {
  Tree t("inside");
  t.pack("linked-ok", "data = [\"units.toml\"]\nscripts = [\"hooks.lua\", \"more\"]\n");
  t.file("packs/linked-ok/defs/units.toml", "[unit.scout]\ncombat = 3\n");
  t.link("packs/linked-ok/units.toml", "defs/units.toml");
  t.file("packs/linked-ok/lib/real.lua", "return { answer = 42 }\n");
  t.link("packs/linked-ok/helper.lua", "lib/real.lua");
  t.file("packs/linked-ok/hooks.lua", "assert(require(\"helper\").answer == 42)\n");
  t.file("packs/linked-ok/lib2/more.lua", "assert(require(\"helper\").answer == 42)\n");
  t.link("packs/linked-ok/more", "lib2");
  // by its id, found in the search folder
  LoadRequest req = mini_request(t, {"linked-ok"});
  CHECK(load_error(req) == "");
  // by a folder that is a link to the pack, and a search folder that is a link
  t.link("alias", "packs/linked-ok");
  req.packs = {(t.top / "alias").string()};
  req.search = {};
  CHECK(load_error(req) == "");
  t.link("packs-link", "packs");
  req = mini_request(t, {"linked-ok"});
  req.search = {t.top / "packs-link"};
  CHECK(load_error(req) == "");
  const auto content = load_content(req);
  CHECK(content->find_record("linked-ok:unit/scout") >= 0);
}

TEST_CASE("links: a module that require finds through a link out of the pack is a load error",
          "[isolation][links]") {
  Tree t("require");
  t.file("outside/payload.lua", kPayload);
  t.pack("evil-require", "scripts = [\"hooks.lua\"]\n");
  t.file("packs/evil-require/hooks.lua", "local m = require(\"outside\")\nassert(m.ran)\n");
  t.link("packs/evil-require/outside.lua", "../../outside/payload.lua");
  std::string error = load_error(mini_request(t, {"evil-require"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "outside.lua -> ../../outside/payload.lua"));

  // a module in a folder that is a link out of the pack
  t.pack("evil-require-dir", "scripts = [\"hooks.lua\"]\n");
  t.file("packs/evil-require-dir/hooks.lua", "local m = require(\"sub.payload\")\nassert(m.ran)\n");
  t.link("packs/evil-require-dir/sub", t.top / "outside");
  error = load_error(mini_request(t, {"evil-require-dir"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "sub -> " + (t.top / "outside").string()));
}

TEST_CASE("links: a scripts folder linked out of the pack, or to /, is a load error",
          "[isolation][links]") {
  Tree t("scripts");
  t.file("outside/lua/payload.lua", "hook { id = \"escaped\", window = \"mini.probe\" }\n");
  t.pack("evil-scripts", "scripts = [\"sys\"]\n");
  t.link("packs/evil-scripts/sys", t.top / "outside" / "lua");
  std::string error = load_error(mini_request(t, {"evil-scripts"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "sys -> " + (t.top / "outside" / "lua").string()));

  // `root -> /`, and a scripts entry that walks from there to the same folder
  const std::string through_root =
      "root/" + (t.top / "outside" / "lua").lexically_normal().relative_path().generic_string();
  fs::remove_all(t.top / "packs" / "evil-scripts");
  t.pack("evil-root", "scripts = [\"" + through_root + "\"]\n");
  t.link("packs/evil-root/root", "/");
  error = load_error(mini_request(t, {"evil-root"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "root -> /"));
}

TEST_CASE("links: a data file (TOML) linked out of the pack is a load error",
          "[isolation][links]") {
  Tree t("data");
  t.file("outside/units.toml", "[unit.spy]\ncombat = 1\n");
  t.pack("evil-data", "data = [\"units.toml\"]\n");
  t.link("packs/evil-data/units.toml", "../../outside/units.toml");
  std::string error = load_error(mini_request(t, {"evil-data"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "units.toml -> ../../outside/units.toml"));

  // a link in a data folder the pack lists (each pack found is read: one hostile pack at a time)
  fs::remove_all(t.top / "packs" / "evil-data");
  t.pack("evil-data-dir", "data = [\"defs\"]\n");
  t.file("packs/evil-data-dir/defs/own.toml", "[unit.own]\ncombat = 2\n");
  t.link("packs/evil-data-dir/defs/spy.toml", t.top / "outside" / "units.toml");
  error = load_error(mini_request(t, {"evil-data-dir"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "spy.toml -> " + (t.top / "outside" / "units.toml").string()));

  // the pack.toml itself
  fs::remove_all(t.top / "packs" / "evil-data-dir");
  t.file("outside/pack.toml", "id = \"evil-pack-toml\"\nruleset = \"mini\"\n");
  t.link("packs/evil-pack-toml/pack.toml", "../../outside/pack.toml");
  error = load_error(mini_request(t, {"mini-base"}));
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
  CHECK(contains(error, "pack.toml -> ../../outside/pack.toml"));
}

TEST_CASE("links: a ruleset's files resolve inside the ruleset's folder", "[isolation][links]") {
  Tree t("ruleset");
  fs::create_directories(t.top / "root" / "scripts");
  fs::create_directories(t.top / "root" / "content");
  fs::copy(fixture_root() / "scripts" / "mini", t.top / "root" / "scripts" / "mini",
           fs::copy_options::recursive);
  fs::copy(fixture_root() / "content" / "mini-base", t.top / "root" / "content" / "mini-base",
           fs::copy_options::recursive);
  LoadRequest req;
  req.root = t.top / "root";
  req.ruleset = "mini";
  REQUIRE(load_error(req) == "");

  // the setup file
  const fs::path setup = t.top / "root" / "scripts" / "mini" / "setup.lua";
  fs::rename(setup, t.top / "outside" / "setup.lua");
  fs::create_symlink("../../../outside/setup.lua", setup);
  std::string error = load_error(req);
  INFO(error);
  CHECK(contains(error, "links outside the ruleset"));
  CHECK(contains(error, "setup.lua -> ../../../outside/setup.lua"));
  fs::remove(setup);
  fs::rename(t.top / "outside" / "setup.lua", setup);
  REQUIRE(load_error(req) == "");

  // a module a pack requires from the ruleset
  const fs::path helper = t.top / "root" / "scripts" / "mini" / "lib" / "helper.lua";
  fs::rename(helper, t.top / "outside" / "helper.lua");
  fs::create_symlink(t.top / "outside" / "helper.lua", helper);
  t.pack("uses-helper", "scripts = [\"hooks.lua\"]\n");
  t.file("packs/uses-helper/hooks.lua", "assert(require(\"lib.helper\"))\n");
  req.search = {t.top / "packs"};
  req.packs = {"uses-helper"};
  error = load_error(req);
  INFO(error);
  CHECK(contains(error, "links outside the ruleset"));
  CHECK(contains(error, "helper.lua -> " + (t.top / "outside" / "helper.lua").string()));
}

TEST_CASE("links: serve's scenario list never returns a file linked out of the pack",
          "[isolation][links][serve]") {
  Tree t("serve");
  t.file("outside/secret.toml", "# SECRET the server must not show\nruleset = \"mini\"\n");
  t.pack("evil-scenarios", "");
  t.file("packs/evil-scenarios/scenarios/ok.toml", "# an honest scenario\nruleset = \"mini\"\n");
  t.link("packs/evil-scenarios/scenarios/x.toml", "../../../outside/secret.toml");
  serve::ApiOptions o;
  o.root = fixture_root();
  o.pack_dirs = {t.top / "packs"};
  o.threads = 1;
  serve::Api api(o);
  const serve::Reply r =
      api.get("/api/scenarios", {{"ruleset", "mini"}, {"packs", "evil-scenarios"}});
  INFO(r.body.dump());
  REQUIRE(r.status == 200);
  CHECK_FALSE(contains(r.body.dump(), "SECRET"));
  int ok = 0, refused = 0;
  for (const auto& s : r.body["scenarios"]) {
    if (s["file"] == "ok.toml") ++ok;
    if (s["file"] == "x.toml") {
      ++refused;
      CHECK(contains(s.value("error", ""), "links outside the pack"));
      CHECK(contains(s.value("error", ""), "x.toml -> ../../../outside/secret.toml"));
      CHECK(s.value("toml", "") == "");
    }
  }
  CHECK(ok == 1);
  CHECK(refused == 1);

  // the whole scenarios folder linked out
  t.pack("evil-scenario-dir", "");
  t.file("outside/scen/y.toml", "# SECRET too\nruleset = \"mini\"\n");
  t.link("packs/evil-scenario-dir/scenarios", t.top / "outside" / "scen");
  const serve::Reply d =
      api.get("/api/scenarios", {{"ruleset", "mini"}, {"packs", "evil-scenario-dir"}});
  INFO(d.body.dump());
  CHECK_FALSE(contains(d.body.dump(), "SECRET"));
  CHECK(contains(d.body.dump(), "links outside the pack"));
}

TEST_CASE("links: check and bench never run a scenario linked out of the pack",
          "[isolation][links]") {
  Tree t("check");
  t.file("outside/s.toml",
         "ruleset = \"mini\"\nprocedure = \"combat\"\n"
         "attacker = { units = { cruiser = 1 } }\n"
         "defender = { units = { fighter = 1 } }\n");
  t.pack("evil-check", "depends = [\"mini-base\"]\n");
  t.link("packs/evil-check/scenarios/s.toml", "../../../outside/s.toml");
  const Run r = shell("cd '" + t.top.string() + "' && timeout 120 '" + RULEBENCH_EXE +
                      "' --root '" + fixture_root().string() + "' --packs '" +
                      (t.top / "packs").string() + "' check evil-check 2>&1");
  INFO(r.out);
  CHECK(r.code != 0);
  CHECK(has(r.out, "links outside the pack"));
  CHECK(has(r.out, "s.toml -> ../../../outside/s.toml"));

  // bench finds its cases in content/*/scenarios/bench_*.toml
  fs::create_directories(t.top / "root" / "content" / "p" / "scenarios");
  t.link("root/content/p/scenarios/bench_x.toml", t.top / "outside" / "s.toml");
  std::string error;
  try {
    bench_cases(t.top / "root");
  } catch (const Error& e) {
    error = e.what();
  }
  INFO(error);
  CHECK(contains(error, "links outside the pack"));
}

TEST_CASE("links: a rules test linked out of the pack, or naming a scenario outside, fails",
          "[isolation][links]") {
  Tree t("tests");
  t.file("outside/t.toml", R"(rule = "mini 1"
dice = [7, 3]
[scenario]
ruleset = "mini"
procedure = "combat"
attacker = { units = { cruiser = 1 } }
defender = { units = { fighter = 1 } }
[expect]
outcome = "attacker_win"
)");
  t.file("outside/s.toml",
         "ruleset = \"mini\"\nprocedure = \"combat\"\n"
         "attacker = { units = { cruiser = 1 } }\n"
         "defender = { units = { fighter = 1 } }\n");
  t.pack("evil-tests", "");
  t.link("packs/evil-tests/tests/t.toml", "../../../outside/t.toml");
  t.file("packs/evil-tests/tests/climb.toml",
         "dice = [7, 3]\nscenario = \"../../../outside/s.toml\"\n"
         "[expect]\noutcome = \"attacker_win\"\n");
  SessionOptions so;
  so.root = fixture_root();
  so.search = {t.top / "packs"};
  int refused = 0;
  for (const fs::path& file : find_rules_tests({t.top / "packs" / "evil-tests" / "tests"}, so))
    for (const RulesTestResult& r : run_rules_test_file(file, so)) {
      std::string problems;
      for (const auto& p : r.problems) problems += p + "\n";
      INFO(r.file << ": " << problems);
      CHECK_FALSE(r.passed);
      if (fs::path(r.file).filename() == "t.toml") {
        CHECK(contains(problems, "t.toml -> ../../../outside/t.toml"));
        ++refused;
      }
      if (fs::path(r.file).filename() == "climb.toml") {
        CHECK(contains(problems, "outside the pack"));
        ++refused;
      }
    }
  CHECK(refused == 2);

  // the pack's whole tests folder linked out: found by discovery, refused when run
  t.pack("evil-tests-dir", "");
  t.link("packs/evil-tests-dir/tests", t.top / "outside");
  int dir_refused = 0;
  for (const fs::path& file : find_rules_tests({t.top / "packs" / "evil-tests-dir" / "tests"}, so))
    for (const RulesTestResult& r : run_rules_test_file(file, so)) {
      CHECK_FALSE(r.passed);
      if (!r.problems.empty() && contains(r.problems.front(), "links outside the pack"))
        ++dir_refused;
    }
  CHECK(dir_refused == 1);
}

TEST_CASE("links: types never writes through a pack's .luarc.json or types/ link",
          "[isolation][links][cli]") {
  Tree t("types");
  t.file("packs/mine/pack.toml", "id = \"link-types\"\nruleset = \"ti4\"\n");
  t.file("outside/victim.json", "VICTIM\n");
  t.link("packs/mine/.luarc.json", t.top / "outside" / "victim.json");
  Run r = rulebench(t.top, "types packs/mine");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, ".luarc.json is a link to " + (t.top / "outside" / "victim.json").string()));
  CHECK(t.read("outside/victim.json") == "VICTIM\n");

  fs::remove(t.top / "packs" / "mine" / ".luarc.json");
  fs::create_directories(t.top / "outside" / "types");
  t.link("packs/mine/types", "../../outside/types");
  r = rulebench(t.top, "types packs/mine");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "types is a link to ../../outside/types"));
  CHECK(fs::is_empty(t.top / "outside" / "types"));
  CHECK_FALSE(fs::exists(t.top / "packs" / "mine" / ".luarc.json"));  // nothing half-written
}

TEST_CASE("links: new pack never writes into a link", "[isolation][links][cli]") {
  Tree t("new");
  fs::create_directories(t.top / "outside" / "empty");
  t.link("mylink", t.top / "outside" / "empty");
  const Run r = rulebench(t.top, "new pack my-cards --ruleset ti4 mylink");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "mylink is a link to " + (t.top / "outside" / "empty").string()));
  CHECK(fs::is_empty(t.top / "outside" / "empty"));
}

TEST_CASE("links: test --junit never writes through a link", "[isolation][links][cli]") {
  Tree t("junit");
  t.file("t.toml", R"(rule = "Morale Boost"
dice = [6, 1, 6, 5]
[scenario]
ruleset = "ti4"
attacker = { units = { cruiser = 1 }, cards = ["morale_boost"] }
defender = { units = { dreadnought = 1 } }
[expect]
outcome = "defender_win"
)");
  t.file("outside/victim.xml", "VICTIM\n");
  t.link("report.xml", "outside/victim.xml");
  const Run r = rulebench(t.top, "test t.toml --junit report.xml");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(has(r.out, "report.xml is a link to outside/victim.xml"));
  CHECK(t.read("outside/victim.xml") == "VICTIM\n");
}
