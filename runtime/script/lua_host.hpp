// script/lua_host: INTERNAL to runtime/script/. Do not include this header anywhere else: the
// rest of the runtime speaks to Lua only through script/engine.hpp (DESIGN.md, "Only
// runtime/script/ includes lua.h").
//
// Layout of the binding (after Luanti's cpp_api/lua_api split):
//   engine.cpp    C++ calls Lua: loading, sandbox, the one call gate, setup and run
//   api_state.cpp Lua calls C++: entities, attributes, roles, counters, links, modifiers
//   api_dice.cpp  Lua calls C++: rolls, pools, hit assignment
//   api_flow.cpp  Lua calls C++: windows and hooks, decisions, trace and results
//   api_board.cpp Lua calls C++: the hex board (places, neighbours, distance, rings, lines)
#pragma once

#include <pthread.h>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <lua.hpp>

#include "base/error.hpp"
#include "script/engine.hpp"

namespace rb {

struct Engine::Impl {
  Impl(std::shared_ptr<const Content> c, EngineOptions o);
  ~Impl();

  std::shared_ptr<const Content> content;
  const Ruleset& rules;
  EngineOptions options;
  lua_State* L = nullptr;
  EventBus bus;

  // Lua registry references
  int ctx_ref = LUA_NOREF;       // the ctx userdata handed to every script
  int symcache_ref = LUA_NOREF;  // string -> Sym
  int policies_ref = LUA_NOREF;  // decision name -> default policy function
  int setup_ref = LUA_NOREF;
  int player_policy_ref = LUA_NOREF;  // player entity -> policy table (scenario settings)
  int scenario_ref = LUA_NOREF;
  struct Procedure {
    std::string name;
    int ref = LUA_NOREF;                // the run function
    std::vector<std::string> outcomes;  // its report's outcomes (ctx:result checks against them)
    std::vector<Sym> outcome_syms;
  };
  std::vector<Procedure> procedures;
  const Procedure* procedure = nullptr;  // the one running
  std::vector<int> env_refs;             // one sandbox per pack, then the ruleset's

  // memory and instruction budget
  std::size_t memory = 0;
  std::int64_t instructions = 0, instruction_limit = 0;
  int counting = 0;  // nesting of counted calls (the count hook is on while > 0)
  static constexpr std::int64_t kTimeLimited = -1;  // a call under the run's time limit only
  // the run's time limit: the watchdog signals `thread` once past `deadline` (0: none)
  std::atomic<std::int64_t> deadline{0};
  std::atomic<bool> signalled{false};
  pthread_t thread{};

  // registration while loading
  bool loading = true;
  int loading_env = -1;  // index into content->packs (or packs.size() for the ruleset)
  int registration = 0;

  // the run under way
  State* state = nullptr;
  DiceStream dice;
  Trace* trace = nullptr;
  RunResult* result = nullptr;
  const RunOptions* run_options = nullptr;
  std::vector<std::unique_ptr<Pool>> pools;  // a pool keeps its address while more are added
  std::size_t pools_used = 0;
  std::deque<std::vector<Firing>> firings;  // one list per nesting depth of open()
  std::vector<int> window_by_sym;           // Sym -> window index (-1), a cache
  int depth = 0;
  // scenario line map for setup errors: "attacker.units.cruiser" -> line
  std::vector<std::pair<std::string, int>> scenario_lines;
  std::string scenario_file;
  fs::path scenario_source;  // the scenario's file, to find lines a copied table lost

  // cached symbols used by primitives
  Sym s_unit, s_player, s_active_player;
  std::vector<Sym> scope_syms;   // the ruleset's scopes
  std::vector<int> attr_by_sym;  // Sym -> attribute slot (-1: not an attribute), a cache
  std::vector<int> die_by_sym;   // Sym -> die type index, a cache

  // hook liveness of the run: which records are held, which windows have a hook that can run.
  // Recomputed when an entity is created or changes record, owner or location from off-board.
  std::vector<std::uint8_t> held, live;
  bool liveness_dirty = true;
  bool window_live(int w) {
    ensure_liveness();
    return live[static_cast<std::size_t>(w)] != 0;
  }

  // Sym of short (interned, anchored) Lua strings by their address: a direct-mapped cache
  struct SymSlot {
    const void* str = nullptr;
    Sym sym = kNoSym;
  };
  std::array<SymSlot, 1024> sym_slots{};

  // Spec tables (roll and hit-assignment specs, hit orders) are parsed once and found again by
  // their address; the tables are anchored in the registry so that address stays theirs.
  struct RollSpec {
    Sym purpose = kNoSym;
    int die = 0, value = 0, count = -1, eligible = -1;
  };
  struct CasualtySpec {
    int eligible = -1, can_sustain = -1, damaged = -1, destroyed_window = -1, sustained_window = -1;
    std::string decision;
    std::vector<Sym> types;
  };
  std::unordered_map<const void*, int> spec_index;  // table address -> index in its list
  std::deque<RollSpec> roll_specs;  // deques: references stay valid while hooks add more
  std::deque<CasualtySpec> casualty_specs;
  std::deque<std::vector<Sym>> orders;
  struct ExchangeSpec {
    const RollSpec* roll = nullptr;
    const CasualtySpec* hits = nullptr;
    std::vector<int> windows;  // if any of these can run a hook, the round is the procedure's
    Sym counter = kNoSym, counter_scope = kNoSym, round_scope = kNoSym;
    bool once = false;  // one exchange (a first-round step such as Anti-Fighter Barrage)
  };
  std::deque<ExchangeSpec> exchange_specs;
  int spec_anchor_ref = LUA_NOREF;
  // Index of the parsed spec at idx, parsing (and anchoring) it the first time.
  struct SpecSlot {
    const void* table = nullptr;
    int index = -1;
  };
  std::array<SpecSlot, 64> spec_slots{};  // a direct-mapped cache in front of spec_index
  template <class Parse>
  int cached_spec(lua_State* L, int idx, Parse&& parse) {
    const void* p = lua_topointer(L, idx);
    SpecSlot& slot = spec_slots[(reinterpret_cast<std::uintptr_t>(p) >> 4) & 63];
    if (slot.table == p) return slot.index;
    if (auto it = spec_index.find(p); it != spec_index.end()) {
      slot = {p, it->second};
      return it->second;
    }
    const int top = lua_gettop(L);
    const int i = parse();
    lua_settop(L, top);
    lua_rawgeti(L, LUA_REGISTRYINDEX, spec_anchor_ref);
    lua_pushvalue(L, idx);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    spec_index.emplace(p, i);
    return i;
  }
  void ensure_liveness() {
    if (liveness_dirty)
      bus.liveness(*state, content->records.size(), held, live), liveness_dirty = false;
  }

  // scratch space reused by primitives, so that a run allocates nothing once warm
  std::vector<EntityId> scratch_units, scratch_lost, scratch_sustaining, scratch_adjacent;
  std::vector<Hex> scratch_hexes, scratch_hexes2;
  std::vector<int> scratch_rank;

  // --- the call gate: the function and its arguments are on the stack. Throws ScriptError
  // (or ContentError) whose message starts with what(): built only when the call fails.
  template <class What>
  void call(int nargs, int nresults, std::int64_t budget, What&& what) {
    if (const int status = protected_call(nargs, nresults, budget); status != LUA_OK)
      fail(status, what());
  }
  void call(int nargs, int nresults, const std::string& what, std::int64_t budget) {
    call(nargs, nresults, budget, [&] { return what; });
  }
  int protected_call(int nargs, int nresults, std::int64_t budget);
  [[noreturn]] void fail(int status, const std::string& what);

  // helpers shared by the api files
  bool tracing() const { return trace && trace->enabled; }
  std::string name_of(EntityId e) const;  // player name or unit type, for the trace
  Pool& new_pool();
  int window_index(lua_State* L, int idx);
  int attr_slot(lua_State* L, int idx);
  const DieType& die_type(int i) const { return rules.dice[static_cast<std::size_t>(i)]; }
  int open_windows(const int* windows, int n, int args_index);  // returns the hooks that ran
  std::string decide(EntityId player, const std::string& decision, int options_index,
                     std::string& reason);
  void destroy(EntityId e, int window);
  void push_ctx();
};

// The Impl of the Lua state (stored in its extra space).
inline Engine::Impl& impl(lua_State* L) {
  return **static_cast<Engine::Impl**>(lua_getextraspace(L));
}

// Interned symbol of the string at idx (cached in a Lua table: no lock after the first time).
Sym lua_sym(lua_State* L, int idx);

// Registration of the api tables (methods of ctx and of pools).
void register_state_api(lua_State* L);
void register_dice_api(lua_State* L);
void register_flow_api(lua_State* L);
void register_board_api(lua_State* L);

// Wraps an api function so that a C++ exception becomes a Lua error with its message.
// Marks an error message as already formatted (by an inner call gate, or as a content error):
// "\x01S<message>" is a script error, "\x01C<message>" a content error. The gate passes it on.
inline constexpr char kFormatted = '\x01';

template <lua_CFunction F>
int guarded(lua_State* L) {
  try {
    return F(L);
  } catch (const ContentError& e) {
    lua_pushfstring(L, "%cC%s", kFormatted, e.what());
  } catch (const ScriptError& e) {
    lua_pushfstring(L, "%cS%s", kFormatted, e.what());
  } catch (const std::exception& e) {
    lua_pushstring(L, e.what());
  }
  return lua_error(L);
}

// Checked argument helpers.
EntityId check_entity(lua_State* L, int idx);
EntityId opt_entity(lua_State* L, int idx);  // nil -> kNoEntity
Pool& check_pool(lua_State* L, int idx);

}  // namespace rb
