// sim/survivors: the units a report counts as survivors (its `survivors` table,
// docs/command-line.md): each report side's entities of the report's survivor_kind, by type. The
// units of the start state (at the report's survivor_location, if it names one) count while they
// are in play, wherever they end (a ship that retreated survived); a unit created during the run (a
// card that places a ship in the middle of a combat) counts when it is in play at the end, at that
// location if the report names one. Its type makes a group of its own when no unit of that type
// began: the groups of the start come first, in the start's order, then the others as they appear.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "content/content.hpp"
#include "state/state.hpp"

namespace rb {

class Survivors {
 public:
  struct Group {
    std::string side, type;
    std::vector<EntityId> units;  // at the start
    std::size_t side_index = 0;   // in the report's sides
  };

  Survivors(const ReportDef& report, const State& start);

  bool empty() const { return !counts_; }
  const std::vector<Group>& groups() const { return groups_; }
  // the groups of the start (units.size() > 0): the first ones
  std::size_t started() const { return started_; }
  // The number in play of each group at `end` (alive[g]); a created unit of a type no group has
  // adds a group (alive grows with it).
  void count(const State& end, std::vector<std::uint32_t>& alive);

 private:
  bool counts_ = false;
  Sym kind_ = kNoSym;
  EntityId where_ = kNoEntity;
  std::size_t began_entities_ = 0;
  std::vector<EntityId> players_;  // by report side
  std::vector<std::string> sides_;
  std::vector<Group> groups_;
  std::size_t started_ = 0;
};

// The number left of each type, for a side's combinations: the groups' `types` in the order the
// counting found them, where a combination's k-th number is the k-th type's. `widen` pads every
// combination to `n` types (a type added after them: none of it), `reorder` puts the types found
// after the first `fixed` in the order of their names, so that runs that found them in another
// order give one table.
template <class N>
void widen(std::map<std::vector<std::uint32_t>, N>& combos, std::size_t n) {
  if (combos.empty() || combos.begin()->first.size() >= n) return;
  std::map<std::vector<std::uint32_t>, N> out;
  for (auto& [k, v] : combos) {
    std::vector<std::uint32_t> wide = k;
    wide.resize(n, 0);
    out[std::move(wide)] += v;
  }
  combos = std::move(out);
}

template <class N>
void reorder(std::vector<std::string>& types, std::size_t fixed,
             std::map<std::vector<std::uint32_t>, N>& combos) {
  widen(combos, types.size());
  std::vector<std::size_t> order(types.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin() + static_cast<std::ptrdiff_t>(std::min(fixed, order.size())), order.end(),
            [&](std::size_t a, std::size_t b) { return types[a] < types[b]; });
  std::vector<std::string> sorted;
  for (std::size_t i : order) sorted.push_back(types[i]);
  if (sorted == types) return;
  std::map<std::vector<std::uint32_t>, N> out;
  for (auto& [k, v] : combos) {
    std::vector<std::uint32_t> moved(order.size(), 0);
    for (std::size_t i = 0; i < order.size() && order[i] < k.size(); ++i) moved[i] = k[order[i]];
    out[std::move(moved)] += v;
  }
  types = std::move(sorted);
  combos = std::move(out);
}

}  // namespace rb
