// sim/link_import: another tool's link read into a scenario. The link's percent-encoding and
// limits; a format read from a pack's import/ folder (the mini fixture's minilink, the TI4 packs'
// ti4battle); every parameter not understood named; POST /api/import's hostile input a 4xx with a
// clear message, never a crash. (tests/ti4battle/check_import.py checks every ti4battle name.)
#include <catch2/catch.hpp>

#include "api.hpp"
#include "base/error.hpp"
#include "fixtures.hpp"
#include "sim/link_import.hpp"

using namespace rb;
using namespace rb::testing;
using nlohmann::json;

namespace {

ImportOptions mini() {
  ImportOptions o;
  o.root = fixture_root();
  return o;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("link import: percent-encoding, '+', the fragment, the scheme and port", "[import]") {
  const LinkParams l =
      parse_link("  HTTPS://Mini.Example:8080/x/?a%2Db=S%C3%B6l+1&&c=&d#attacker-unit-x=9\n");
  CHECK(l.host == "mini.example");
  REQUIRE(l.params.size() == 3);
  CHECK(l.params[0] == std::make_pair(std::string("a-b"), std::string("S\xC3\xB6l 1")));
  CHECK(l.params[1] == std::make_pair(std::string("c"), std::string()));
  CHECK(l.params[2] == std::make_pair(std::string("d"), std::string()));
  CHECK(parse_link("mini.example?x=1").host == "mini.example");
}

TEST_CASE("link import: a bad link is a UsageError saying what is wrong", "[import]") {
  CHECK(contains(message_of([] { parse_link("https://mini.example/?a=%G1"); }), "bad %-escape"));
  CHECK(contains(message_of([] { parse_link("https://mini.example/?a=1%2"); }), "bad %-escape"));
  CHECK(contains(message_of([] { parse_link("ftp://mini.example/?a=1"); }), "not a web link"));
  CHECK(contains(message_of([] { parse_link("https:///?a=1"); }), "names no host"));
  CHECK(contains(message_of([] { parse_link(std::string(kMaxLinkBytes + 1, 'a')); }), "at most"));
  std::string many = "https://mini.example/?";
  for (std::size_t i = 0; i <= kMaxLinkParams; ++i) many += "a=1&";
  CHECK(contains(message_of([&] { parse_link(many); }), "parameters"));
}

TEST_CASE("link import: a pack's format makes the scenario and names what it did not understand",
          "[import]") {
  const ImportResult r = import_link(
      "https://mini.example/?attacker-unit-cruiser=2&defender-unit-dreadnought=1"
      "&attacker-unit-cruiserr=1&attacker-effect-Sustain%20Twice=1&attacker-unit-fighter=x&zz=1",
      mini());
  CHECK(r.format == "minilink");
  CHECK(r.procedure == "combat");
  CHECK(r.scenario["attacker"]["units"]["cruiser"].value_or(0) == 2);
  CHECK(r.scenario["defender"]["units"]["dreadnought"].value_or(0) == 1);
  std::map<std::string, std::string> why;
  for (const auto& p : r.problems) why[p.param] = p.why;
  CHECK(contains(why["attacker-unit-cruiserr"], "did you mean 'cruiser'"));
  CHECK(contains(why["attacker-effect-Sustain Twice"], "not supported"));
  CHECK(contains(why["attacker-unit-fighter"], "whole number"));
  CHECK(contains(why["zz"], "not a parameter"));
  // the TOML reads back as the same table, and names the problems in its header
  const toml::table back = toml::parse(r.toml);
  CHECK(back == r.scenario);
  CHECK(contains(r.toml, "# not understood: zz=1"));
}

TEST_CASE("link import: another host is refused, naming the hosts known", "[import]") {
  CHECK(contains(message_of([] { import_link("https://ti4battle.com/?a=1", mini()); }),
                 "the hosts known: mini.example"));
}

TEST_CASE("link import: every format of the repository's packs reads, every record it names exists",
          "[import]") {
  ImportOptions o;
  o.root = RB_SOURCE_DIR;
  const auto names = check_import_formats(o);
  CHECK(std::find(names.begin(), names.end(), "ti4battle") != names.end());
}

TEST_CASE("serve: POST /api/import answers the scenario; hostile input is a 4xx",
          "[import][serve]") {
  serve::ApiOptions ao;
  ao.root = RB_SOURCE_DIR;
  serve::Api api(ao);
  const serve::Reply ok = api.post(
      "/api/import",
      json{{"url",
            "https://ti4battle.com/?attacker-unit-dreadnought=2&attacker-effect-Duranium%20Armor=1"
            "&defender-faction=Sardakk+N%27orr&defender-unit-cruiser=3&defender-x=1"}}
          .dump());
  REQUIRE(ok.status == 200);
  CHECK(ok.body["setup"]["attacker"]["technologies"] == json::array({"duranium_armor"}));
  CHECK(ok.body["setup"]["defender"]["faction"] == "sardakk_norr");
  CHECK(ok.body["unknown"].size() == 1);
  CHECK(ok.body["unknown"][0]["param"] == "defender-x");
  struct Bad {
    std::string body;
    int status;
    std::string says;
  };
  for (const Bad& b : std::vector<Bad>{
           {R"({"url": 5})", 400, "url, the link, is required"},
           {R"({})", 400, "url, the link, is required"},
           {R"({"url": "x", "runs": 1})", 400, "runs"},
           {json{{"url", std::string(kMaxLinkBytes + 1, 'a')}}.dump(), 413, "at most"},
           {R"({"url": "https://ti4battle.com/?a=%zz"})", 400, "bad %-escape"},
           {R"({"url": "https://example.org/?a=1"})", 400, "the hosts known"},
           {R"({"url": "https://ti4battle.com/?attacker-unit-cruiser=99999999999999999999999"})",
            200, ""},
       }) {
    const serve::Reply r = api.post("/api/import", b.body);
    INFO(b.body.substr(0, 80));
    CHECK(r.status == b.status);
    if (!b.says.empty()) CHECK(contains(r.body.value("error", ""), b.says));
  }
}
