#include "sim/survivors.hpp"

#include <algorithm>

namespace rb {

Survivors::Survivors(const ReportDef& report, const State& start) {
  if (report.survivors.empty()) return;
  counts_ = true;
  kind_ = sym(report.survivor_kind);
  where_ = report.survivor_location.empty() ? kNoEntity : start.role(sym(report.survivor_location));
  began_entities_ = start.entities.size();
  sides_ = report.sides;
  for (std::size_t si = 0; si < report.sides.size(); ++si) {
    const EntityId player = start.role(sym(report.sides[si]));
    players_.push_back(player);
    if (player == kNoEntity) continue;
    for (EntityId e = 0; e < static_cast<EntityId>(start.entities.size()); ++e) {
      const Entity& u = start.at(e);
      if (u.kind != kind_ || u.owner != player) continue;
      if (where_ != kNoEntity && u.location != where_) continue;
      const std::string type(sym_name(u.type));
      auto it = std::find_if(groups_.begin(), groups_.end(),
                             [&](const Group& g) { return g.side_index == si && g.type == type; });
      if (it == groups_.end())
        it = groups_.insert(groups_.end(), Group{report.sides[si], type, {}, si});
      it->units.push_back(e);
    }
  }
  started_ = groups_.size();
}

void Survivors::count(const State& end, std::vector<std::uint32_t>& alive) {
  alive.assign(groups_.size(), 0);
  for (std::size_t g = 0; g < started_; ++g)
    for (EntityId e : groups_[g].units) alive[g] += end.at(e).location != kReinforcements ? 1 : 0;
  for (std::size_t i = began_entities_; i < end.entities.size(); ++i) {
    const Entity& u = end.entities[i];
    if (u.kind != kind_ || u.location == kReinforcements) continue;
    if (where_ != kNoEntity && u.location != where_) continue;
    const auto side = std::find(players_.begin(), players_.end(), u.owner);
    if (u.owner == kNoEntity || side == players_.end()) continue;
    const auto si = static_cast<std::size_t>(side - players_.begin());
    const std::string_view type = sym_name(u.type);
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const Group& g) { return g.side_index == si && g.type == type; });
    if (it == groups_.end()) {
      it = groups_.insert(groups_.end(), Group{sides_[si], std::string(type), {}, si});
      alive.push_back(0);
    }
    ++alive[static_cast<std::size_t>(it - groups_.begin())];
  }
}

}  // namespace rb
