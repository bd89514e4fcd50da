// The folder of deliberately broken content (tests/fixtures/broken/<case>/): each case holds one
// or more packs (or, with its own scripts/ and content/, a ruleset and its packs) and an
// expect.txt with the text its error must contain. Loading must fail with a ContentError
// carrying that text: never half-succeed, never crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

std::string expected_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::vector<fs::path> pack_folders(const fs::path& dir) {
  std::vector<fs::path> packs;
  if (!fs::is_directory(dir)) return packs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "pack.toml")) packs.push_back(e.path());
  std::sort(packs.begin(), packs.end());
  return packs;
}

// Loads a case the way `rulebench check` would: the content, then an Engine (Lua scripts).
// Returns the error message, or "" when everything loaded.
std::string load_case(const fs::path& dir, bool& content_returned) {
  LoadRequest req;
  std::vector<fs::path> packs;
  if (fs::is_directory(dir / "scripts")) {  // a case with its own ruleset
    req.root = dir;
    packs = pack_folders(dir / "content");
  } else {
    req.root = fixture_root();
    req.ruleset = "mini";
    packs = pack_folders(dir);
  }
  for (const auto& p : packs) req.packs.push_back(p.string());
  std::shared_ptr<const Content> content;
  content_returned = false;
  try {
    content = load_content(req);
    content_returned = true;
    Engine engine(content);
  } catch (const ContentError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("broken packs: each case fails to load with the message in its expect.txt",
          "[content][broken]") {
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(broken_dir()))
    if (e.is_directory()) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 12);

  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    DYNAMIC_SECTION(name) {
      REQUIRE(fs::exists(dir / "expect.txt"));
      const std::string expected = expected_text(dir / "expect.txt");
      REQUIRE_FALSE(expected.empty());
      bool content_returned = false;
      std::string error;
      REQUIRE_NOTHROW(error = load_case(dir, content_returned));
      INFO("case " << name << "\n  expected: " << expected << "\n  actual:   " << error);
      REQUIRE_FALSE(error.empty());
      CHECK(contains(error, expected));
      // content errors are caught by the loader; only Lua files fail later, in the Engine
      if (!contains(name, "lua")) CHECK_FALSE(content_returned);
    }
  }
}

TEST_CASE("broken packs: TOML syntax, Lua syntax and wrong types name the file and line",
          "[content][broken]") {
  for (const char* name : {"toml_syntax", "lua_syntax", "wrong_type", "record_unknown_key"}) {
    bool returned = false;
    const std::string error = load_case(broken_dir() / name, returned);
    INFO(name << ": " << error);
    // "<file>:<line>: " with a positive line
    CHECK(std::regex_search(error, std::regex(R"(\.(toml|lua):[1-9][0-9]*: )")));
  }
}

TEST_CASE("broken packs: a broken case loads fine without its broken pack", "[content][broken]") {
  // the fixture root itself is healthy: the cases fail because of what they add
  CHECK_NOTHROW(load_mini({}));
  LoadRequest req;
  req.root = fixture_root();
  req.ruleset = "mini";
  req.packs = {(broken_dir() / "conflicting_packs" / "red").string()};
  CHECK_NOTHROW(load_content(req));
}

TEST_CASE("broken packs: Lua errors keep the whole file name and the line when paths are long",
          "[content][broken]") {
  // Lua shortens chunk names longer than 60 characters to ".../tail"
  const fs::path deep = fs::temp_directory_path() /
                        ("rulebench-tests-" + std::to_string(::getpid())) /
                        "a-folder-name-long-enough-that-lua-would-shorten-the-chunk-name";
  fs::remove_all(deep);
  for (const char* name : {"lua_syntax", "lua_hook_undeclared_window"}) {
    const fs::path from = broken_dir() / name;
    const fs::path to = deep / name;
    fs::create_directories(to);
    fs::copy(from, to, fs::copy_options::recursive);
    bool returned = false;
    const std::string error = load_case(to, returned);
    INFO(error);
    CHECK(contains(error, expected_text(from / "expect.txt")));
    CHECK(contains(error, (to / pack_folders(to).at(0).filename() / "hooks.lua").string()));
  }
  fs::remove_all(deep.parent_path());
}
