#include "events/events.hpp"

#include <algorithm>

#include "base/error.hpp"
#include "base/text.hpp"

namespace rb {

int EventBus::declare(WindowDef w) {
  if (window_index_.count(w.name))
    throw ContentError("", 0, "window '" + w.name + "' is declared twice");
  const int i = static_cast<int>(windows_.size());
  window_index_.emplace(w.name, i);
  windows_.push_back(std::move(w));
  by_window_.emplace_back();
  return i;
}

int EventBus::find(std::string_view name) const {
  auto it = window_index_.find(std::string(name));
  return it == window_index_.end() ? -1 : it->second;
}

int EventBus::require(std::string_view name, const std::string& file, int line) const {
  const int i = find(name);
  if (i >= 0) return i;
  std::vector<std::string> names;
  for (const auto& w : windows_) names.push_back(w.name);
  throw ContentError(file, line,
                     "unknown window '" + std::string(name) + "'" + did_you_mean(name, names));
}

int EventBus::add(HookDef h) {
  if (frozen_)
    throw ContentError(
        h.file, h.line,
        "hook '" + h.id + "' registered after loading ended (registrations are frozen)");
  if (hook_index_.count(h.id))
    throw ContentError(h.file, h.line, "hook id '" + h.id + "' is already registered");
  const int i = static_cast<int>(hooks_.size());
  hook_index_.emplace(h.id, i);
  if (h.source >= 0) {
    if (sources_.size() <= static_cast<std::size_t>(h.source))
      sources_.resize(static_cast<std::size_t>(h.source) + 1, 0);
    sources_[static_cast<std::size_t>(h.source)] = 1;
  }
  auto& list = by_window_[static_cast<std::size_t>(h.window)];
  hooks_.push_back(std::move(h));
  list.push_back(i);
  std::stable_sort(list.begin(), list.end(), [this](int a, int b) {
    const HookDef& x = hooks_[static_cast<std::size_t>(a)];
    const HookDef& y = hooks_[static_cast<std::size_t>(b)];
    if (x.priority != y.priority) return x.priority > y.priority;
    if (x.pack_order != y.pack_order) return x.pack_order < y.pack_order;
    return x.registration < y.registration;
  });
  return i;
}

bool EventBus::replace_hook(std::string_view id, int modifier) {
  if (frozen_) throw ScriptError("hooks are frozen once loading ends");
  for (HookDef& h : hooks_)
    if (h.id == id) {
      h.replaced_by = modifier;
      return true;
    }
  return false;
}

void EventBus::liveness(const State& state, std::size_t records, std::vector<std::uint8_t>& held,
                        std::vector<std::uint8_t>& live) const {
  // `held` and `live` are what the caller's last call left: when the records held are the same
  // (the common case: one step run after another from alike states), so is `live`, once the
  // hooks can no longer change
  thread_local std::vector<std::uint8_t> now;
  now.assign(records, 0);
  for (const Entity& e : state.entities)
    if (e.record >= 0 && e.location != kReinforcements) now[static_cast<std::size_t>(e.record)] = 1;
  if (frozen_ && live.size() == windows_.size() && now == held) return;
  held.swap(now);
  live.assign(windows_.size(), 0);
  for (const HookDef& h : hooks_)
    if (h.source < 0 || held[static_cast<std::size_t>(h.source)])
      live[static_cast<std::size_t>(h.window)] |=
          (h.replaced_by >= 0             ? 1
           : h.requires_counter != kNoSym ? 1 | kLiveGuarded
                                          : 1 | kLiveUnreplaced) |
          (h.requires_counter == kNoSym ? kLiveFree : 0);
}

bool EventBus::guarded_can_run(const State& state, int window,
                               const std::vector<std::uint8_t>& held, bool replaced_too) const {
  for (int hi : by_window_[static_cast<std::size_t>(window)]) {
    const HookDef& h = hooks_[static_cast<std::size_t>(hi)];
    if ((h.replaced_by >= 0 && !replaced_too) || h.requires_counter == kNoSym || h.source < 0)
      continue;
    if (!held.empty() && !held[static_cast<std::size_t>(h.source)]) continue;
    for (const Entity& e : state.entities)
      if (e.record == h.source && e.location != kReinforcements &&
          h.requirement_met(state, e.owner))
        return true;
  }
  return false;
}

void EventBus::collect(const State& state, std::span<const int> windows, EntityId active,
                       const std::vector<std::uint8_t>& held, std::vector<Firing>& out) const {
  out.clear();
  for (int w : windows) {
    for (int hi : by_window_[static_cast<std::size_t>(w)]) {
      const HookDef& h = hooks_[static_cast<std::size_t>(hi)];
      if (h.source < 0) {
        out.push_back({hi, kNoEntity, kNoEntity, -1});
        continue;
      }
      if (!held.empty() && !held[static_cast<std::size_t>(h.source)]) continue;
      // one firing per entity that carries the source (each card, each ship with the upgrade),
      // for that entity's owner
      for (EntityId e = 0; e < static_cast<EntityId>(state.entities.size()); ++e) {
        const Entity& ent = state.entities[static_cast<std::size_t>(e)];
        if (ent.record != h.source || ent.location == kReinforcements) continue;
        if (!h.requirement_met(state, ent.owner)) continue;  // requires: it cannot run now
        out.push_back({hi, ent.owner, e, state.turn_rank(ent.owner, active)});
      }
    }
  }
  if (out.size() > 1)
    std::stable_sort(out.begin(), out.end(), [this](const Firing& a, const Firing& b) {
      if (a.rank != b.rank) return a.rank < b.rank;
      const HookDef& x = hooks_[static_cast<std::size_t>(a.hook)];
      const HookDef& y = hooks_[static_cast<std::size_t>(b.hook)];
      if (x.priority != y.priority) return x.priority > y.priority;
      if (x.pack_order != y.pack_order) return x.pack_order < y.pack_order;
      return x.registration < y.registration;
    });
}

}  // namespace rb
