// dice/counts: a roll of alike dice counted by kind of face (faces that read the same are one
// kind: an attack die's three hit faces). When a script reads only how many dice show each face,
// the roll is a draw of those counts: one uniform draw of a face vector for up to m dice at once
// (sides^m < 2^32: twelve six-sided dice), so every face vector is as likely as when rolling die
// by die, and the step memo keys the roll by the rank of its counts among the C(n+k-1, k-1) ways
// n dice fall into k kinds (7 776 face vectors of five d6 are 252 counts). The exact mode draws
// the multinomial's outcomes (script/api_dice.cpp, roll_alike).
#pragma once

#include <cstdint>
#include <vector>

#include "dice/dice.hpp"

namespace rb {

// The kinds of face of a die type: kind[f] is face f's, first[k] the first face of kind k
// (numbered in the order of the faces). Numeric faces are one kind when value and label agree;
// faced ones when their names do.
struct FaceKinds {
  std::vector<std::uint16_t> kind;
  std::vector<int> first;
};
FaceKinds face_kinds(const DieType& type);

// The ways n dice fall into k kinds, C(n+k-1, k-1); saturates at UINT64_MAX.
std::uint64_t count_outcomes(std::int64_t n, int kinds);
// The rank of counts[0 .. kinds) (they sum to n) among those ways: by counts[0] ascending, then
// counts[1], and so on. Only for count_outcomes(n, kinds) < 2^32.
std::uint32_t count_rank(const std::uint32_t* counts, int kinds, std::int64_t n);

// Rolls n dice of `sides` faces, adding each to counts[kinds.kind[face]] (counts zeroed by the
// caller): a draw below(sides^m) for each m dice, its digits the faces. `raw` gets each draw
// (bound, value) when not null (the memo's walk draws as the roll did).
void draw_counts(DiceStream& dice, const FaceKinds& kinds, int sides, std::int64_t n,
                 std::uint32_t* counts, std::vector<DiceStream::Draw>* raw = nullptr);

// The step memo's law (dice/dice.hpp, LawDie) of a roll counted by face: one LawDie whose
// threshold is kByFace, `weight` dice of `type`; the group's value is the rank of their counts.
inline constexpr std::int16_t kByFace = -1;
inline bool by_face(const Law& law) {
  return law.size() == 1 && law.front().threshold == kByFace;
}

}  // namespace rb
