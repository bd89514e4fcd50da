// Unit tests of base/: interned symbols and the "did you mean" helpers.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include "base/symbols.hpp"
#include "base/text.hpp"

using namespace rb;

TEST_CASE("symbols: interning the same name twice gives the same symbol", "[symbols]") {
  const Sym a = sym("symbols_test.cruiser");
  const Sym b = sym(std::string("symbols_test.") + "cruiser");
  CHECK(a == b);
  CHECK(a != kNoSym);
  CHECK(sym("symbols_test.destroyer") != a);
}

TEST_CASE("symbols: the empty name is kNoSym", "[symbols]") {
  CHECK(sym("") == kNoSym);
  CHECK(sym_name(kNoSym).empty());
}

TEST_CASE("symbols: find_sym does not intern, sym_name returns the name", "[symbols]") {
  CHECK_FALSE(find_sym("symbols_test.never_interned_name").has_value());
  CHECK_FALSE(find_sym("symbols_test.never_interned_name").has_value());
  const Sym s = sym("symbols_test.found_later");
  REQUIRE(find_sym("symbols_test.found_later").has_value());
  CHECK(*find_sym("symbols_test.found_later") == s);
  CHECK(sym_name(s) == "symbols_test.found_later");
}

TEST_CASE("symbols: names stay valid while the table grows", "[symbols]") {
  const Sym first = sym("symbols_test.grow_0");
  const std::string_view name = sym_name(first);
  for (int i = 1; i < 5000; ++i) sym("symbols_test.grow_" + std::to_string(i));
  CHECK(name == "symbols_test.grow_0");
  CHECK(sym_name(sym("symbols_test.grow_4999")) == "symbols_test.grow_4999");
}

TEST_CASE("symbols: threads interning the same names agree on their symbols", "[symbols]") {
  constexpr int kThreads = 4, kNames = 2000;
  std::vector<std::vector<Sym>> seen(kThreads, std::vector<Sym>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &seen] {
      // each thread walks the names in a different order
      for (int k = 0; k < kNames; ++k) {
        const int i = (t % 2 == 0) ? k : kNames - 1 - k;
        seen[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] =
            sym("symbols_test.threaded_" + std::to_string(i));
      }
    });
  for (auto& th : threads) th.join();
  for (int i = 0; i < kNames; ++i) {
    const Sym s = seen[0][static_cast<std::size_t>(i)];
    for (int t = 1; t < kThreads; ++t)
      REQUIRE(seen[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] == s);
    REQUIRE(sym_name(s) == "symbols_test.threaded_" + std::to_string(i));
  }
}

TEST_CASE("text: edit_distance is the Levenshtein distance", "[text]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("combat", "combat") == 0);
  CHECK(edit_distance("combt", "combat") == 1);   // deletion
  CHECK(edit_distance("comabt", "combat") == 2);  // transposition counts as two
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("sitting", "kitten") == 3);  // symmetric
}

TEST_CASE("text: nearest picks the closest candidate, or nothing when none is close", "[text]") {
  const std::vector<std::string> keys{"combat", "capacity", "move", "sustain_damage"};
  CHECK(nearest("combt", keys) == "combat");
  CHECK(nearest("mvoe", keys) == "move");
  CHECK(nearest("sustain_damag", keys) == "sustain_damage");
  CHECK(nearest("zzzzzzzzzz", keys).empty());
  CHECK(nearest("combat", std::vector<std::string>{}).empty());
  // a candidate containing the word is close even when the edit distance is large
  const std::vector<std::string> windows{"space_combat.start_of_combat", "space_combat.after_roll"};
  CHECK(nearest("after_roll", windows) == "space_combat.after_roll");
}

TEST_CASE("text: a candidate one edit away wins over one that merely contains the word", "[text]") {
  // the keys of pack.toml and of a record, in the order the loaders list them
  const std::vector<std::string> pack_keys{
      "id",        "name", "version", "ruleset", "depends",    "optional_depends",
      "conflicts", "data", "scripts", "tests",   "description"};
  CHECK(nearest("depend", pack_keys) == "depends");
  CHECK(nearest("script", pack_keys) == "scripts");
  // whatever the order of the candidates
  CHECK(nearest("depend", std::vector<std::string>{"depends", "optional_depends"}) == "depends");
  CHECK(nearest("depend", std::vector<std::string>{"optional_depends", "depends"}) == "depends");
  CHECK(nearest("script", std::vector<std::string>{"scripts", "description"}) == "scripts");
  CHECK(nearest("script", std::vector<std::string>{"description", "scripts"}) == "scripts");
  // a container still wins when nothing is a few edits away
  CHECK(nearest("after_roll", std::vector<std::string>{"space_combat.after_roll", "zzz"}) ==
        "space_combat.after_roll");
}

TEST_CASE("text: did_you_mean phrases the hint", "[text]") {
  const std::vector<std::string> keys{"depends", "conflicts"};
  CHECK(did_you_mean("dependz", keys) == " (did you mean 'depends'?)");
  CHECK(did_you_mean("qqqqqqqqqqqq", keys).empty());
}
