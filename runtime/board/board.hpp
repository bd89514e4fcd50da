// board/board: a hex board as part of the game state. Owns which hexes exist (a galaxy's tile
// positions, a battlefield's hexes and the half-hexes along its sides) and which entity sits at
// each (a system, a battlefield hex): at most one entity per hex, at most one hex per entity.
// What an entity on the board means (a system, an obstruction) is the ruleset's business; the
// board only holds places. It also holds the board's orientation (which only names directions)
// and its spiral order (see board/hex.hpp), since both are game data.
//
// The board is a plain value inside State: its vectors are copied with the state, reusing the
// destination's storage, so resetting a run costs a copy of a few hundred bytes at most, and
// nothing for a game without a board. Hexes are kept sorted (by r, then q): reading order,
// and found by binary search.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "board/hex.hpp"

namespace rb {

class Board {
 public:
  struct Cell {
    Hex hex;
    std::int32_t entity = -1;  // an EntityId; -1: nobody
  };

  Orientation orientation = Orientation::flat;
  SpiralOrder spiral;

  bool empty() const { return cells_.empty(); }
  std::span<const Cell> cells() const { return cells_; }  // sorted by r, then q

  // Adds a hex that exists on the board (no-op when it does). Throws std::invalid_argument when
  // a coordinate is out of range (|q|, |r| > kMaxCoordinate) or the board is full (kMaxCells).
  void add(Hex h);
  // Places `entity` (>= 0) at h, adding h; the entity leaves the hex it was at. Throws
  // std::invalid_argument when another entity is at h.
  void place(Hex h, std::int32_t entity);
  // Takes an entity off the board (its hex stays). No-op when it is not on the board.
  void remove(std::int32_t entity);

  bool contains(Hex h) const { return find(h) >= 0; }
  std::int32_t at(Hex h) const {  // the entity at h, -1 when none
    const int i = find(h);
    return i < 0 ? -1 : cells_[static_cast<std::size_t>(i)].entity;
  }
  std::optional<Hex> hex_of(std::int32_t entity) const {
    if (entity < 0 || static_cast<std::size_t>(entity) >= placed_.size()) return std::nullopt;
    return placed_[static_cast<std::size_t>(entity)];
  }

  static constexpr std::size_t kMaxCells = 1 << 16;

  // Same hexes, same entities on them (state/state: State values are compared and hashed).
  bool operator==(const Board& o) const {
    return orientation == o.orientation && spiral.start == o.spiral.start &&
           spiral.winding == o.spiral.winding && cells_.size() == o.cells_.size() &&
           placed_ == o.placed_ &&
           std::equal(
               cells_.begin(), cells_.end(), o.cells_.begin(),
               [](const Cell& a, const Cell& b) { return a.hex == b.hex && a.entity == b.entity; });
  }
  // Feeds the board to a hash: f(pointer, bytes) for each run of plain bytes.
  template <class F>
  void hash_into(F&& f) const {
    f(cells_.data(), cells_.size() * sizeof(Cell));
    for (const auto& h : placed_) {
      const std::int64_t v = h ? (static_cast<std::int64_t>(h->q) << 32) ^ h->r : INT64_MIN;
      f(&v, sizeof v);
    }
  }

 private:
  int find(Hex h) const;  // index in cells_, -1 when absent

  std::vector<Cell> cells_;
  std::vector<std::optional<Hex>> placed_;  // entity -> its hex
};

}  // namespace rb
