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
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(3, word.size() / 2) + 1;
  for (const auto& c : candidates) {
    std::size_t d = edit_distance(word, c);
    // a candidate that contains the word, or the word's last dotted part, is close too
    if (d >= best_distance && !word.empty() && c.find(word) != std::string::npos)
      d = best_distance - 1;
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : " (did you mean '" + n + "'?)";
}

}  // namespace rb
