#include "base/text.hpp"

#include <algorithm>
#include <numeric>

namespace rb {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string_view word, std::span<const std::string> candidates) {
  // close: at most max(3, half the word) edits away; a candidate that contains the word
  // ("after_roll" in "space_combat.after_roll") counts as just within that, so any candidate
  // that is really a few edits away ("depends" for "depend") wins over a mere container
  // ("optional_depends"), whatever the order of the candidates
  const std::size_t limit = std::max<std::size_t>(3, word.size() / 2);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d > limit && !word.empty() && c.find(word) != std::string::npos) d = limit;
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

std::string count_of(std::size_t n, std::string_view singular, std::string_view plural) {
  if (n == 1) return "1 " + std::string(singular);
  return std::to_string(n) + " " +
         (plural.empty() ? std::string(singular) + "s" : std::string(plural));
}

}  // namespace rb
