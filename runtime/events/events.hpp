// events/events: timing windows and the hooks registered on them. A ruleset declares its
// windows; packs register hooks on them while loading; registrations are frozen when loading
// ends. Opening a window (or several merged into one) collects the hooks that are live (their
// source, a card, technology, faction or unit type, is held by a player on the board or in
// hand) and orders them deterministically: the active player first then turn order, then the
// hook's priority, then pack load order, then registration order. Running a hook is the script
// layer's business: this module never sees Lua.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/symbols.hpp"
#include "state/state.hpp"

namespace rb {

struct WindowDef {
  std::string name;  // "space_combat.start_of_combat"
  std::string doc;   // one line for `rulebench list windows`
};

struct HookDef {
  std::string id;            // "my-pack:morale_boost"
  int window = -1;           // index of a declared window
  std::int32_t source = -1;  // record that grants it; -1: a rule, live whenever it applies
  std::string source_name;   // "action_card/morale_boost", for the trace
  int priority = 0;          // higher runs first among one player's hooks
  int pack_order = 0;        // load order of the registering pack
  int registration = 0;      // order of registration inside the pack
  bool optional = false;     // "may": the owner's policy is asked
  Sym limit = kNoSym;        // use limit: once per this scope ("round", "combat", ...)
  Sym use_key = kNoSym;      // counter key that counts uses for the limit
  bool discard = false;      // a card discarded (moved to the discard) after use
  int condition = -1;        // script refs, owned by the script layer (-1: none)
  int helps = -1;            // an optional hook's "does it help": the default policy's guess
  int apply = -1;
  // a hook a declared modifier replaces: whether that modifier does all of this hook's work in
  // the runtime's own rounds from the state at hand (script ref, -1: it always does)
  int covered = -1;
  int effect = -1;  // a declarative effect (content) when there is no apply
  std::string pack, file;
  int line = 0;
  // a declared modifier that does this hook's work in rounds the runtime runs itself
  // (ctx:exchange_fire), -1: none; such rounds need not hand this hook's window back
  int replaced_by = -1;
  // requires: the hook runs only while its owner's counter (or flag) `requires_counter` is at
  // least `requires_at_least` (kNoSym: always); checked before its condition
  Sym requires_counter = kNoSym;
  std::int32_t requires_at_least = 1;
  bool requirement_met(const State& s, EntityId player) const {
    return requires_counter == kNoSym || s.counter(player, requires_counter) >= requires_at_least;
  }
};

// One hook about to run for one player.
struct Firing {
  int hook;
  EntityId player;  // kNoEntity for a rule that belongs to no player
  EntityId source;  // the entity that grants it (kNoEntity for a rule)
  int rank;         // the player's place in the ordering
};

class EventBus {
 public:
  // Declares a window; returns its index. Throws ContentError when already declared.
  int declare(WindowDef w);
  // The index of a declared window or -1.
  int find(std::string_view name) const;
  // Like find, but throws ContentError naming the closest declared window.
  int require(std::string_view name, const std::string& file, int line) const;

  // Registers a hook; throws ContentError when frozen or the id is taken.
  int add(HookDef h);
  // The hook (by id) whose work the modifier does in the runtime's own rounds; false: no such
  // hook. Before freeze().
  bool replace_hook(std::string_view id, int modifier);
  void freeze() { frozen_ = true; }
  bool frozen() const { return frozen_; }

  const std::vector<WindowDef>& windows() const { return windows_; }
  const std::vector<HookDef>& hooks() const { return hooks_; }
  const HookDef& hook(int i) const { return hooks_[static_cast<std::size_t>(i)]; }
  bool empty(int window) const { return by_window_[static_cast<std::size_t>(window)].empty(); }

  // Collects the live hooks of the given windows, in the order they run. `active` is the
  // active player (or kNoEntity). `held` (indexed by record, may be empty) says which records
  // anyone holds: hooks of other sources are skipped without scanning the state. `out` is
  // cleared first; no allocation once it has grown.
  void collect(const State& state, std::span<const int> windows, EntityId active,
               const std::vector<std::uint8_t>& held, std::vector<Firing>& out) const;
  void collect(const State& state, std::span<const int> windows, EntityId active,
               std::vector<Firing>& out) const {
    collect(state, windows, active, {}, out);
  }

  // Which records are held in `state` (on the board or in hand) and, from that, which windows
  // may have a hook to run (live[w] != 0), and which may have one that no declared modifier
  // replaces in the runtime's own rounds (live[w] & kLiveUnreplaced). Cheap: one pass over
  // entities and hooks.
  // A live hook that no modifier replaces but that `requires` a counter of its owner sets
  // kLiveGuarded instead: whether it can run now is guarded_can_run's. A live hook without a
  // `requires`, replaced or not, sets kLiveFree (it can run wherever its window opens).
  static constexpr std::uint8_t kLiveUnreplaced = 2, kLiveGuarded = 4, kLiveFree = 8;
  void liveness(const State& state, std::size_t records, std::vector<std::uint8_t>& held,
                std::vector<std::uint8_t>& live) const;
  // Whether a hook of the window with a `requires`, not replaced (or also replaced, with
  // `replaced_too`: where the procedure's own rounds run), has an owner holding its source who
  // meets the requirement now.
  bool guarded_can_run(const State& state, int window, const std::vector<std::uint8_t>& held,
                       bool replaced_too = false) const;
  // Whether some hook's source is this record: an entity of it leaving the board can make a
  // window dead, so liveness must be computed again (it is a function of the state).
  bool is_source(std::int32_t record) const {
    return record >= 0 && static_cast<std::size_t>(record) < sources_.size() &&
           sources_[static_cast<std::size_t>(record)] != 0;
  }

 private:
  std::vector<WindowDef> windows_;
  std::unordered_map<std::string, int> window_index_;
  std::vector<HookDef> hooks_;
  std::vector<std::uint8_t> sources_;        // by record: the source of a hook
  std::vector<std::vector<int>> by_window_;  // hook indexes, in (priority, pack, registration)
  std::unordered_map<std::string, int> hook_index_;
  bool frozen_ = false;
};

}  // namespace rb
