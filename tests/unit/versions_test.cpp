// Pack versions in depends, optional_depends and conflicts: "ti4-base >= 0.2" loads only with a
// version that fits; the failures are broken-pack cases (tests/fixtures/broken/*version*).
#include <catch2/catch.hpp>

#include <fstream>

#include <unistd.h>

#include "base/error.hpp"
#include "fixtures.hpp"

using namespace rb;
using namespace rb::testing;

namespace {

// A folder of packs for the mini ruleset: each (folder name, pack.toml text).
fs::path packs_folder(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& packs) {
  const fs::path d =
      fs::temp_directory_path() / ("rulebench-versions-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  for (const auto& [folder, text] : packs) {
    fs::create_directories(d / folder);
    std::ofstream(d / folder / "pack.toml") << text;
  }
  return d;
}

std::shared_ptr<const Content> load_from(const fs::path& d, std::vector<std::string> ids) {
  LoadRequest req;
  req.root = fixture_root();
  req.search = {d};
  req.ruleset = "mini";
  req.packs = std::move(ids);
  return load_content(req);
}

}  // namespace

TEST_CASE("versions: numbers separated by dots, compared number by number", "[content][versions]") {
  CHECK(parse_pack_version("0.1.0") == PackVersion{0, 1, 0});
  CHECK(parse_pack_version("12") == PackVersion{12});
  for (const char* bad : {"", "1.", ".1", "1..2", "1.0-beta", "v1", "1 .0", "-1"})
    CHECK_FALSE(parse_pack_version(bad));
  CHECK(compare_versions({1, 2}, {1, 2, 0}) == 0);
  CHECK(compare_versions({1, 10}, {1, 9}) > 0);  // numbers, not text
  CHECK(compare_versions({0, 2}, {0, 1, 5}) > 0);
  CHECK(compare_versions({0, 1, 9}, {0, 2}) < 0);
}

TEST_CASE("versions: a requirement is a pack id and conditions that must all hold",
          "[content][versions]") {
  std::string why;
  auto r = parse_pack_requirement("ti4-base >= 0.2, < 1", why);
  REQUIRE(r);
  CHECK(r->id == "ti4-base");
  REQUIRE(r->conditions.size() == 2);
  CHECK(r->fits({0, 2}));
  CHECK(r->fits({0, 9, 9}));
  CHECK_FALSE(r->fits({0, 1, 9}));
  CHECK_FALSE(r->fits({1}));
  auto plain = parse_pack_requirement("ti4-base", why);
  REQUIRE(plain);
  CHECK(plain->conditions.empty());
  CHECK(plain->fits({0}));
  auto eq = parse_pack_requirement("x = 1.2", why);
  REQUIRE(eq);
  CHECK(eq->fits({1, 2, 0}));
  CHECK_FALSE(eq->fits({1, 2, 1}));
  auto gt = parse_pack_requirement("x>1", why);  // spaces are optional
  REQUIRE(gt);
  CHECK_FALSE(gt->fits({1}));
  CHECK(gt->fits({1, 0, 1}));
  CHECK_FALSE(parse_pack_requirement("x >= ", why));
  CHECK_FALSE(parse_pack_requirement("x ~ 1", why));
  CHECK(contains(why, "'~ 1' is not a condition"));
  CHECK_FALSE(parse_pack_requirement("x >= 1,", why));
  CHECK_FALSE(parse_pack_requirement(">= 1", why));
}

TEST_CASE(
    "versions: a dependency whose version fits loads; a conflict with another version does "
    "not apply",
    "[content][versions]") {
  const fs::path d = packs_folder(
      "fits", {{"needy",
                "id = \"needy\"\nruleset = \"mini\"\ndepends = [\"mini-base >= 1.0, < "
                "2\"]\nconflicts = [\"rival-two < 2\"]\n"},
               {"rival-two", "id = \"rival-two\"\nruleset = \"mini\"\nversion = \"2.0\"\n"},
               {"picky",
                "id = \"picky\"\nruleset = \"mini\"\noptional_depends = [\"rival-two "
                "< 2\"]\n"}});
  auto c = load_from(d, {"needy", "rival-two"});
  CHECK(pack_ids(*c) == std::vector<std::string>{"mini-base", "needy", "rival-two"});
  // an optional dependency that is absent asks nothing; present with a version that does not
  // fit, it is an error naming both versions
  CHECK_NOTHROW(load_from(d, {"picky"}));
  try {
    load_from(d, {"picky", "rival-two"});
    FAIL("loaded");
  } catch (const ContentError& e) {
    CHECK(contains(e.what(),
                   "pack 'picky' needs rival-two < 2, but 'rival-two' here is version 2.0"));
    CHECK(contains(e.what(), "optional_depends"));
  }
  fs::remove_all(d.parent_path());
}
