// decide/decide: where the answers to decisions come from. Whenever the rules let a player
// choose, a procedure asks decide(player, decision, options). The answer comes from, in order:
// the answers a test or scenario scripted (consumed in order, per player and decision), the
// player's policy (scenario settings, then the ruleset's default heuristics), or a person at the
// terminal when interactive mode is on. The Lua side of policies lives in script/; this module
// holds the scripted answers and the terminal prompt.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace rb {

struct ScriptedAnswer {
  std::string player;    // player name ("attacker")
  std::string decision;  // "space_combat.announce_retreat"
  std::string answer;    // the option chosen, as text
};

class ScriptedAnswers {
 public:
  void add(ScriptedAnswer a) { items_.push_back(std::move(a)), used_.push_back(false); }
  // The next unused answer for this player and decision.
  std::optional<std::string> take(std::string_view player, std::string_view decision);
  bool has(std::string_view player, std::string_view decision) const;
  void reset() { used_.assign(items_.size(), false); }
  // Answers never asked for (a rules test reports them: the script did not go as expected).
  std::vector<ScriptedAnswer> unused() const;
  bool empty() const { return items_.empty(); }

 private:
  std::vector<ScriptedAnswer> items_;
  std::vector<bool> used_;
};

// Asks a person at the terminal to pick one of `options`; returns its index, nullopt at the end
// of input.
std::optional<std::size_t> prompt_choice_or_end(std::istream& in, std::ostream& out,
                                                const std::string& player,
                                                const std::string& decision,
                                                const std::vector<std::string>& options);
// The same, the first option at the end of input.
std::size_t prompt_choice(std::istream& in, std::ostream& out, const std::string& player,
                          const std::string& decision, const std::vector<std::string>& options);

}  // namespace rb
