#include "board/board.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rb {

namespace {

bool before(Hex a, Hex b) {
  return a.r != b.r ? a.r < b.r : a.q < b.q;
}

std::string show(Hex h) {
  return "[" + std::to_string(h.q) + ", " + std::to_string(h.r) + "]";
}

}  // namespace

int Board::find(Hex h) const {
  const auto it = std::lower_bound(cells_.begin(), cells_.end(), h,
                                   [](const Cell& c, Hex x) { return before(c.hex, x); });
  return it != cells_.end() && it->hex == h ? static_cast<int>(it - cells_.begin()) : -1;
}

void Board::add(Hex h) {
  if (h.q > kMaxCoordinate || h.q < -kMaxCoordinate || h.r > kMaxCoordinate ||
      h.r < -kMaxCoordinate)
    throw std::invalid_argument("hex " + show(h) + " is off the map (coordinates go to +-" +
                                std::to_string(kMaxCoordinate) + ")");
  const auto it = std::lower_bound(cells_.begin(), cells_.end(), h,
                                   [](const Cell& c, Hex x) { return before(c.hex, x); });
  if (it != cells_.end() && it->hex == h) return;
  if (cells_.size() >= kMaxCells)
    throw std::invalid_argument("the board is full (" + std::to_string(kMaxCells) + " hexes)");
  cells_.insert(it, Cell{h, -1});
}

void Board::place(Hex h, std::int32_t entity) {
  if (entity < 0) throw std::invalid_argument("only an entity can be placed on the board");
  add(h);
  Cell& cell = cells_[static_cast<std::size_t>(find(h))];
  if (cell.entity == entity) return;
  if (cell.entity >= 0)
    throw std::invalid_argument("hex " + show(h) + " already holds entity " +
                                std::to_string(cell.entity));
  remove(entity);
  cell.entity = entity;
  if (placed_.size() <= static_cast<std::size_t>(entity))
    placed_.resize(static_cast<std::size_t>(entity) + 1);
  placed_[static_cast<std::size_t>(entity)] = h;
}

void Board::remove(std::int32_t entity) {
  const std::optional<Hex> h = hex_of(entity);
  if (!h) return;
  cells_[static_cast<std::size_t>(find(*h))].entity = -1;
  placed_[static_cast<std::size_t>(entity)].reset();
}

}  // namespace rb
