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

// "1 pack", "3 packs", "0 packs"; `plural` when the word does not just take an s ("1 die", "2
// dice").
std::string count_of(std::size_t n, std::string_view singular, std::string_view plural = {});

}  // namespace rb
