#include "dice/counts.hpp"

#include <limits>

namespace rb {

FaceKinds face_kinds(const DieType& type) {
  FaceKinds out;
  const auto same = [&](int a, int b) {
    const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
    return type.numeric() ? type.values[i] == type.values[j] && type.labels[i] == type.labels[j]
                          : type.faces[i] == type.faces[j];
  };
  for (int f = 0; f < type.sides; ++f) {
    std::size_t k = 0;
    while (k < out.first.size() && !same(out.first[k], f)) ++k;
    if (k == out.first.size()) out.first.push_back(f);
    out.kind.push_back(static_cast<std::uint16_t>(k));
  }
  return out;
}

std::uint64_t count_outcomes(std::int64_t n, int kinds) {
  // C(n + k - 1, k - 1) as a running product: after step i it is C(n + i, i), a whole number
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (kinds <= 1) return 1;
  unsigned __int128 c = 1;
  for (int i = 1; i < kinds; ++i) {
    c = c * static_cast<unsigned __int128>(n + i) / static_cast<unsigned>(i);
    if (c > kMax) return kMax;
  }
  return static_cast<std::uint64_t>(c);
}

std::uint32_t count_rank(const std::uint32_t* counts, int kinds, std::int64_t n) {
  // the outcomes before those with counts[i] = c, given counts[0 .. i): those with a smaller
  // counts[i], sum over x < c of the ways left - x dice fall into the j = kinds - 1 - i kinds
  // after it, which is count_outcomes(left, j + 1) - count_outcomes(left - c, j + 1)
  std::uint64_t rank = 0;
  std::int64_t left = n;
  for (int i = 0; i + 1 < kinds; ++i) {
    const std::int64_t c = counts[i];
    if (c > 0) rank += count_outcomes(left, kinds - i) - count_outcomes(left - c, kinds - i);
    left -= c;
  }
  return static_cast<std::uint32_t>(rank);
}

void draw_counts(DiceStream& dice, const FaceKinds& kinds, int sides, std::int64_t n,
                 std::uint32_t* counts, std::vector<DiceStream::Draw>* raw) {
  const auto s = static_cast<std::uint64_t>(sides);
  while (n > 0) {
    // as many dice as one 32-bit draw holds
    std::uint64_t bound = s;
    std::int64_t m = 1;
    while (m < n && bound * s <= std::numeric_limits<std::uint32_t>::max()) bound *= s, ++m;
    std::uint32_t v = dice.below(static_cast<std::uint32_t>(bound));
    if (raw) raw->push_back({static_cast<std::uint32_t>(bound), v});
    for (std::int64_t i = 0; i < m; ++i) {
      ++counts[kinds.kind[v % static_cast<std::uint32_t>(s)]];
      v /= static_cast<std::uint32_t>(s);
    }
    n -= m;
  }
}

}  // namespace rb
