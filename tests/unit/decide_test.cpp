// Unit tests of decide/: scripted answers and the terminal prompt.
#include <catch2/catch.hpp>

#include <sstream>

#include "decide/decide.hpp"

using namespace rb;

TEST_CASE("decide: scripted answers are taken in order, per player and decision", "[decide]") {
  ScriptedAnswers answers;
  CHECK(answers.empty());
  answers.add({"defender", "retreat", "no"});
  answers.add({"attacker", "retreat", "yes"});
  answers.add({"defender", "retreat", "yes"});
  answers.add({"defender", "assign_hits", "fighter"});
  CHECK_FALSE(answers.empty());

  CHECK(answers.has("defender", "retreat"));
  CHECK(answers.take("defender", "retreat") == "no");
  CHECK(answers.take("defender", "retreat") == "yes");
  CHECK_FALSE(answers.take("defender", "retreat").has_value());
  CHECK_FALSE(answers.has("defender", "retreat"));
  CHECK(answers.take("attacker", "retreat") == "yes");
  CHECK_FALSE(answers.take("attacker", "assign_hits").has_value());
}

TEST_CASE("decide: unused() lists the answers never asked for, reset() restores them", "[decide]") {
  ScriptedAnswers answers;
  answers.add({"defender", "retreat", "yes"});
  answers.add({"attacker", "use:morale_boost", "no"});
  CHECK(answers.take("defender", "retreat") == "yes");
  auto unused = answers.unused();
  REQUIRE(unused.size() == 1);
  CHECK(unused[0].player == "attacker");
  CHECK(unused[0].decision == "use:morale_boost");
  CHECK(unused[0].answer == "no");
  answers.reset();
  CHECK(answers.unused().size() == 2);
  CHECK(answers.take("defender", "retreat") == "yes");
}

TEST_CASE("decide: the prompt accepts a number or an option's name, and re-asks otherwise",
          "[decide]") {
  const std::vector<std::string> options{"stay", "retreat", "surrender"};
  std::ostringstream out;
  SECTION("a number") {
    std::istringstream in("2\n");
    CHECK(prompt_choice(in, out, "defender", "retreat", options) == 1);
    CHECK_THAT(out.str(), Catch::Contains("defender, retreat:"));
    CHECK_THAT(out.str(), Catch::Contains("3) surrender"));
  }
  SECTION("bad input, then a name") {
    std::istringstream in("7\nflee\nsurrender\n");
    CHECK(prompt_choice(in, out, "defender", "retreat", options) == 2);
    CHECK_THAT(out.str(), Catch::Contains("choose a number from 1 to 3"));
  }
  SECTION("end of input picks the first option") {
    std::istringstream in("");
    CHECK(prompt_choice(in, out, "defender", "retreat", options) == 0);
  }
}
