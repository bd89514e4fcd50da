// board/hex: hex-grid geometry, with no game in it. Owns the coordinates (axial q, r; the cube
// coordinate s = -q - r is derived), the six directions in one fixed order, distance, rings,
// spirals (a ring-order index <-> a hex, with the start direction and the winding as
// parameters) and line drawing that reports both sides of a line running along hex edges.
//
// Directions. Index d in 0..5 is the axial step kDirections[d]; each direction is the previous
// one turned 60 degrees counter-clockwise (r grows downwards, "south", as on a screen):
//   d:           0        1        2        3        4        5
//   step:     (+1, 0) (+1,-1)  (0,-1)  (-1, 0) (-1,+1)  (0,+1)
//   flat-top:    se       ne       n        nw       sw       s
//   pointy-top:  e        ne       nw       w        sw       se
// Orientation only names the directions; the geometry is the same for both.
//
// Rings and spirals. Ring k around a centre starts at centre + k * step(start) and walks the
// ring clockwise or counter-clockwise. The spiral numbers the hexes ring by ring: index 0 is the
// centre, ring k holds the indexes 1 + 3k(k-1) ... 3k(k+1).
//
// Offset coordinates (a rectangular board's column and row): rows or columns alternate, the odd
// or even ones shoved half a hex: odd_r / even_r (pointy-top, rows), odd_q / even_q (flat-top,
// columns), as in Red Blob Games' guide.
//
// Lines. line() samples the straight segment between two hex centres at distance(a, b) + 1
// evenly spaced points and rounds each to its hex, after moving both ends by a tiny nudge that
// is parallel to no hex edge (Red Blob Games' hex guide). Where a sample lands exactly between
// two hexes, nudging one way yields the hex on one side, the opposite nudge the other: a segment
// that runs along hex edges (one line has the hexes on one side, the other those on the other),
// and also one that crosses an edge at its middle (the segment passes through both hexes, each
// line has only one). SegmentWalk gives every hex the segment meets, and how, exactly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace rb {

struct Hex {
  std::int32_t q = 0;
  std::int32_t r = 0;
  constexpr std::int32_t s() const { return -q - r; }
  friend constexpr bool operator==(Hex, Hex) = default;
  constexpr Hex operator+(Hex o) const { return {q + o.q, r + o.r}; }
  constexpr Hex operator-(Hex o) const { return {q - o.q, r - o.r}; }
  constexpr Hex operator*(std::int32_t k) const { return {q * k, r * k}; }
};

inline constexpr std::array<Hex, 6> kDirections{
    {{1, 0}, {1, -1}, {0, -1}, {-1, 0}, {-1, 1}, {0, 1}}};

enum class Orientation : std::uint8_t { flat, pointy };
enum class Winding : std::uint8_t { clockwise, counter_clockwise };

// Coordinates further from the origin than this are refused by the board (content numbers
// stay far from integer overflow in every formula below).
inline constexpr std::int32_t kMaxCoordinate = 1 << 20;

constexpr Hex neighbour(Hex h, int direction) {
  return h + kDirections[static_cast<std::size_t>(((direction % 6) + 6) % 6)];
}
std::int32_t distance(Hex a, Hex b);

// The direction's name in an orientation ("n", "se", ...), and back (nullopt: not a name there).
std::string_view direction_name(int direction, Orientation o);
std::optional<int> direction_of(std::string_view name, Orientation o);

// How a spiral walks: which corner each ring starts at, and which way it turns.
struct SpiralOrder {
  int start = 2;  // a direction index: the first hex of ring k is centre + k * kDirections[start]
  Winding winding = Winding::clockwise;
};

// Ring `radius` around `centre` in spiral order, appended to `out` (radius 0: the centre).
void ring(Hex centre, std::int32_t radius, SpiralOrder order, std::vector<Hex>& out);
// The hex at a spiral index (index >= 0) and the index of a hex.
Hex spiral_hex(Hex centre, std::int64_t index, SpiralOrder order);
std::int64_t spiral_index(Hex centre, Hex h, SpiralOrder order);

enum class OffsetLayout : std::uint8_t { odd_r, even_r, odd_q, even_q };
std::optional<OffsetLayout> offset_layout(std::string_view name);
Hex from_offset(std::int32_t col, std::int32_t row, OffsetLayout layout);
void to_offset(Hex h, OffsetLayout layout, std::int32_t& col, std::int32_t& row);

// The hexes of the line from a to b, both ends included, nudged one way (side +1) or the other
// (side -1), appended to `out`. distance(a, b) + 1 hexes, each adjacent to the one before.
void line(Hex a, Hex b, int side, std::vector<Hex>& out);

// How the exact segment between two hex centres meets a hex: through some of its inside, or
// only along an edge or at a corner, the hex lying to one side. `left`: for the hex's offset
// (q, r) from the start and the segment's (dq, dr), dq * r - dr * q > 0; `right`: < 0.
enum class Meet : std::uint8_t { through, left, right };

// The hexes the straight segment between the centres of a and b meets, a and b left out, from a
// to b: each hex it passes through, and each it only touches. Whole numbers only, no allocation.
// In cube coordinates (x, y, z) = (q, r, -q-r) a hex's area is where u = x-y, v = y-z and
// w = z-x are each within 1 of its centre's. The walk goes hex to hex, leaving each where the
// first of u, v, w reaches its bound (across that edge). Where two reach it together the segment
// meets a corner: it goes on into one of the two hexes past the corner and only touches the
// other; or, when the third difference does not change along the segment, it runs along the edge
// between those two (both touched) to the corner of the hex beyond them. Per step the touched
// hexes come first, then the hex passed through.
class SegmentWalk {
 public:
  SegmentWalk(Hex a, Hex b);
  // The next hex and how the segment meets it; false when the walk has reached b.
  bool next(Hex& h, Meet& meet);

 private:
  void step();
  void emit(std::int64_t q, std::int64_t r, bool touched);
  Hex a_;
  std::int64_t dq_, dr_, du_, dv_, dw_, au_, av_, aw_;
  std::int64_t cq_ = 0, cr_ = 0;  // the hex the walk is in, relative to a
  std::int64_t steps_ = 0;
  std::array<std::pair<Hex, Meet>, 3> pending_{};
  int pending_n_ = 0, pending_i_ = 0;
};

}  // namespace rb
