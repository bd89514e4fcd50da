#include "decide/decide.hpp"

#include <iostream>
#include <string>

namespace rb {

std::optional<std::string> ScriptedAnswers::take(std::string_view player,
                                                 std::string_view decision) {
  for (std::size_t i = 0; i < items_.size(); ++i)
    if (!used_[i] && items_[i].player == player && items_[i].decision == decision) {
      used_[i] = true;
      return items_[i].answer;
    }
  return std::nullopt;
}

bool ScriptedAnswers::has(std::string_view player, std::string_view decision) const {
  for (std::size_t i = 0; i < items_.size(); ++i)
    if (!used_[i] && items_[i].player == player && items_[i].decision == decision) return true;
  return false;
}

std::vector<ScriptedAnswer> ScriptedAnswers::unused() const {
  std::vector<ScriptedAnswer> out;
  for (std::size_t i = 0; i < items_.size(); ++i)
    if (!used_[i]) out.push_back(items_[i]);
  return out;
}

std::size_t prompt_choice(std::istream& in, std::ostream& out, const std::string& player,
                          const std::string& decision, const std::vector<std::string>& options) {
  return prompt_choice_or_end(in, out, player, decision, options).value_or(0);
}

std::optional<std::size_t> prompt_choice_or_end(std::istream& in, std::ostream& out,
                                                const std::string& player,
                                                const std::string& decision,
                                                const std::vector<std::string>& options) {
  for (;;) {
    out << player << ", " << decision << ":\n";
    for (std::size_t i = 0; i < options.size(); ++i)
      out << "  " << (i + 1) << ") " << options[i] << '\n';
    out << "> " << std::flush;
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;  // end of input
    try {
      const std::size_t n = std::stoul(line);
      if (n >= 1 && n <= options.size()) return n - 1;
    } catch (const std::exception&) {
      for (std::size_t i = 0; i < options.size(); ++i)
        if (options[i] == line) return i;
    }
    out << "choose a number from 1 to " << options.size() << '\n';
  }
}

}  // namespace rb
