// base/text: small text helpers for error messages ("did you mean ...").
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

// Levenshtein distance between two strings.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is reasonably close.
std::string nearest(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'x'?)" or "" when nothing is close.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace rb
