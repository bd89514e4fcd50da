// The script API's documentation (script/api_doc.cpp, what `rulebench types` writes as editor
// types) lists exactly what the binding registers, and the sandbox's globals are what a pack
// really has.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "fixtures.hpp"
#include "script/api_doc.hpp"

using namespace rb;
using namespace rb::testing;

TEST_CASE("api doc: every ctx and pool method the binding registers is documented, and no other",
          "[types]") {
  Engine engine(load_mini({}));
  for (const char* table : {"ctx", "pool"}) {
    const std::vector<std::string> registered = engine.api_names(table);
    REQUIRE(registered.size() > (std::string(table) == "ctx" ? 50u : 15u));
    std::vector<std::string> documented;
    for (const ApiFunction& f : api_functions())
      if (f.table == table) documented.emplace_back(f.name);
    std::sort(documented.begin(), documented.end());
    INFO(table);
    CHECK(std::adjacent_find(documented.begin(), documented.end()) == documented.end());
    for (const std::string& n : registered) {
      INFO("registered, not in script/api_doc.cpp: " << table << ":" << n);
      CHECK(std::binary_search(documented.begin(), documented.end(), n));
    }
    for (const std::string& n : documented) {
      INFO("in script/api_doc.cpp, not registered: " << table << ":" << n);
      CHECK(std::binary_search(registered.begin(), registered.end(), n));
    }
  }
  for (const ApiFunction& f : api_functions()) {
    INFO(f.table << ":" << f.name);
    CHECK_FALSE(f.doc.empty());
  }
}

TEST_CASE("api doc: the sandbox's globals are the safe ones, hook and require included",
          "[types]") {
  Engine engine(load_mini({}));
  const auto& g = engine.sandbox_globals();
  for (const char* present : {"hook", "require", "pairs", "string", "math", "table", "utf8"})
    CHECK(g.count(present));
  for (const char* absent : {"io", "os", "debug", "load", "dofile", "loadfile", "package"})
    CHECK_FALSE(g.count(absent));
  const auto& s = g.at("string");
  CHECK(std::find(s.begin(), s.end(), "format") != s.end());
  CHECK(std::find(s.begin(), s.end(), "dump") == s.end());
}
