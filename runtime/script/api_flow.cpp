// Lua calls C++: windows and hooks, decisions, trace events and run results.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <span>

#include "base/error.hpp"
#include "base/text.hpp"
#include "exact/best.hpp"
#include "script/lua_host.hpp"

namespace rb {

int Engine::Impl::window_index(lua_State* L, int idx) {
  const Sym s = lua_sym(L, idx);
  if (s < window_by_sym.size() && window_by_sym[s] >= 0) return window_by_sym[s];
  const char* name = lua_tostring(L, idx);
  const int w = bus.find(name);
  if (w < 0) {
    std::vector<std::string> names;
    for (const auto& wd : bus.windows()) names.push_back(wd.name);
    luaL_error(L, "unknown window '%s'%s", name, did_you_mean(name, names).c_str());
  }
  if (s >= window_by_sym.size()) window_by_sym.resize(s + 64, -1);
  window_by_sym[s] = w;
  return w;
}

namespace {

std::string short_id(const std::string& id) {
  const auto p = id.find(':');
  return p == std::string::npos ? id : id.substr(p + 1);
}

std::string option_label(lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) return lua_tostring(L, idx);
  if (lua_type(L, idx) == LUA_TNUMBER) return std::to_string(lua_tointeger(L, idx));
  if (lua_istable(L, idx)) {
    for (const char* k : {"id", "name"}) {
      lua_getfield(L, idx, k);
      if (lua_type(L, -1) == LUA_TSTRING) {
        std::string s = lua_tostring(L, -1);
        lua_pop(L, 1);
        return s;
      }
      lua_pop(L, 1);
    }
  }
  std::string s = luaL_tolstring(L, idx, nullptr);
  lua_pop(L, 1);
  return s;
}

}  // namespace

// Where every player's units are, for a person about to decide: "  attacker: dreadnought 2,
// fighter 2 in Abyz; ..." (units of the ruleset's unit kind on the board).
std::string Engine::Impl::state_summary() const {
  std::map<EntityId, std::map<EntityId, std::map<std::string, int>>> by;  // owner, location, type
  const Sym unit = sym(rules.unit_kind);
  for (EntityId e = 0; static_cast<std::size_t>(e) < state->entities.size(); ++e) {
    const Entity& u = state->entities[static_cast<std::size_t>(e)];
    if (u.kind != unit || u.location == kReinforcements || !state->valid(u.owner)) continue;
    ++by[u.owner][u.location][std::string(sym_name(u.type))];
  }
  std::string out = "state:\n";
  for (const auto& [owner, places] : by) {
    out += "  " + name_of(owner) + ":";
    bool first = true;
    for (const auto& [where, types] : places) {
      std::string list;
      for (const auto& [type, n] : types)
        list += (list.empty() ? " " : ", ") + type + " " + std::to_string(n);
      out += (first ? "" : ";") + list + " in " + name_of(where);
      first = false;
    }
    out += "\n";
  }
  return by.empty() ? "state: no units on the board\n" : out;
}

// Picks an option for a decision: scripted answer, then (interactive mode) a person, then the
// policy, then the first option. Returns the chosen option's label; `reason` says
// where it came from.
std::string Engine::Impl::decide(EntityId player, const std::string& decision, int options_index,
                                 std::string& reason, const std::function<void()>& push_helps,
                                 int* first) {
  const lua_Integer n = luaL_len(L, options_index);
  if (n > kMaxOptions)
    luaL_error(L, "decision '%s' offers %I options (at most %I)", decision.c_str(), n,
               static_cast<lua_Integer>(kMaxOptions));
  if (n == 0) luaL_error(L, "decision '%s' offered no options", decision.c_str());
  std::vector<std::string> labels;
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_geti(L, options_index, i);
    labels.push_back(option_label(L, -1));
    lua_pop(L, 1);
  }
  auto index_of = [&](const std::string& label) {
    for (int i = 0; i < n; ++i)
      if (labels[static_cast<std::size_t>(i)] == label) return i + 1;
    return 0;
  };
  // the answer: option i's label; `first` gets the first option of that label
  auto answer = [&](int i) -> const std::string& {
    const std::string& label = labels[static_cast<std::size_t>(i - 1)];
    if (first) *first = index_of(label);
    return label;
  };
  // 1. scripted answers
  if (run_options && run_options->answers && !run_options->answers->empty()) {
    const std::string player_name = name_of(player);
    if (auto a = run_options->answers->take(player_name, decision)) {
      const int i = index_of(*a);
      if (!i) {
        std::string opts;
        for (const auto& l : labels) opts += (opts.empty() ? "" : ", ") + l;
        // the scenario's or test's mistake, not the script's: a plain message, no traceback
        const std::string msg = "scripted answer '" + *a + "' for " + decision + " (" +
                                player_name + ") is not one of the options: " + opts;
        push_attributed(L, 'C', msg.c_str());
        lua_error(L);
      }
      reason = "scripted";
      return answer(i);
    }
  }
  // 2. in interactive mode, the person at the terminal decides what no test scripted, having
  // seen what happened since the last question and where every unit is
  if (options.interactive && !input_ended && isatty(STDIN_FILENO)) {
    const std::string player_name = name_of(player);
    if (trace) {
      NarrativeOptions shown;
      shown.from = trace->printed;
      shown.round_windows = rules.round_windows;
      trace->print_narrative(std::cerr, shown);
      trace->printed = trace->events.size();
    }
    std::cerr << state_summary();
    if (auto i = prompt_choice_or_end(std::cin, std::cerr, player_name, decision, labels)) {
      reason = "asked at the terminal";
      return answer(static_cast<int>(*i) + 1);
    }
    input_ended = true;
    std::cerr << "(end of input: the policies decide from here)\n";
    if (tracing())
      trace->add(EventKind::note, "end_of_input",
                 "end of input at the terminal: the policies decide from here");
  }
  // 3. the player's policy: the ruleset's heuristic for this decision, given the player's
  // settings; in best play (the exact mode) the best side's decision is a choice among the
  // options instead, drawn from the step's path with the policy's own option first
  auto chosen = [&](int i, std::string why) {
    // (best play's words for the choice: the decision, then its options in the choice's order)
    std::vector<std::string> words;
    if (((exact && (exact->labels_wanted || exact->forcing)) || best_picking(player)) && i >= 1 &&
        i <= static_cast<int>(labels.size())) {
      words.push_back(decision);
      words.push_back(labels[static_cast<std::size_t>(i - 1)]);
      for (int k = 1; k < static_cast<int>(labels.size()); ++k)
        words.push_back(labels[static_cast<std::size_t>((k < i ? k : k + 1) - 1)]);
    }
    // (best play with fixed dice: the exact mode's pick for this decision, RunOptions::best_picks)
    const int k = exact ? exact->choose(player, static_cast<std::uint32_t>(n), dice.exact_path(),
                                        words.empty() ? nullptr : &words)
                        : take_best_pick(player, static_cast<std::uint32_t>(n),
                                         words.empty() ? nullptr : &words);
    if (k >= 0) {
      i = k == 0 ? i : (k < i ? k : k + 1);
      why = "best play";
    }
    reason = std::move(why);
    return answer(i);
  };
  if (policies_ref != LUA_NOREF) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, policies_ref);
    const bool has = lua_getfield(L, -1, decision.c_str()) == LUA_TFUNCTION;
    if (!has && decision.rfind("use:", 0) == 0) {
      lua_pop(L, 1);
      lua_getfield(L, -1, "use");  // one heuristic for every optional ability
    }
    if (lua_isfunction(L, -1)) {
      lua_remove(L, -2);
      push_ctx();
      lua_pushinteger(L, player);
      lua_pushvalue(L, options_index);
      lua_rawgeti(L, LUA_REGISTRYINDEX, player_policy_ref);
      if (lua_rawgeti(L, -1, player) == LUA_TNIL) lua_pop(L, 1), lua_newtable(L);
      lua_remove(L, -2);
      lua_pushstring(L, decision.c_str());
      if (push_helps)
        push_helps();  // an optional hook's "does it help" (nil when it declares none)
      else
        lua_pushnil(L);
      call(6, 2, options.hook_budget, [&] { return "policy for '" + decision + "'"; });
      int i = 0;
      if (lua_type(L, -2) == LUA_TNUMBER)
        i = static_cast<int>(lua_tointeger(L, -2));
      else if (!lua_isnil(L, -2))
        i = index_of(option_label(L, -2));
      if (i < 1 || i > n)
        luaL_error(L, "policy for '%s' chose '%s', which is not an option", decision.c_str(),
                   option_label(L, -2).c_str());
      // the policy's reason is for the trace only: not formatted when not tracing
      std::string why = tracing() && lua_type(L, -1) == LUA_TSTRING
                            ? std::string("policy: ") + lua_tostring(L, -1)
                            : "policy";
      lua_pop(L, 2);
      return chosen(i, std::move(why));
    }
    lua_pop(L, 2);
  }
  return chosen(1, "default: the first option");
}

namespace {

// Whether the table at idx, or one it holds (4 levels, 64 tables at most), has a metatable other
// than the runtime's; `path` gets the keys that lead to it.
bool holds_metatable(lua_State* L, int idx, int depth, int& tables,
                     std::vector<std::string>& path) {
  idx = lua_absindex(L, idx);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    if (!is_read_only(L, idx)) return true;
  }
  if (depth >= 4 || ++tables > 64) return false;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -1) == LUA_TTABLE && holds_metatable(L, -1, depth + 1, tables, path)) {
      path.push_back(lua_type(L, -2) == LUA_TSTRING   ? lua_tostring(L, -2)
                     : lua_type(L, -2) == LUA_TNUMBER ? std::to_string(lua_tointeger(L, -2))
                                                      : std::string("?"));
      lua_pop(L, 2);
      return true;
    }
    lua_pop(L, 1);
  }
  return false;
}

// The procedure reads what a hook hands back in its window's arguments without an instruction
// budget: a metamethod of content's there would run unbudgeted and blame the procedure. So a
// hook hands back plain tables, or it fails here, named.
template <class Where>
void refuse_handed_metatables(lua_State* L, int args, const Where& where) {
  int tables = 0;
  std::vector<std::string> path;
  if (!holds_metatable(L, args, 0, tables, path)) return;
  std::string at = "args";
  for (auto it = path.rbegin(); it != path.rend(); ++it) at += "." + *it;
  throw ScriptError(where() + ": " + at +
                    " has a metatable: a hook hands the procedure plain tables (their "
                    "metamethods would run outside the hook's instruction budget)");
}

}  // namespace

int Engine::Impl::open_windows(const int* windows, int n, int args_index) {
  if (tracing()) {
    std::string names;
    for (int i = 0; i < n; ++i)
      names += (i ? " + " : "") + bus.windows()[static_cast<std::size_t>(windows[i])].name;
    nlohmann::json all = nlohmann::json::array();
    for (int i = 0; i < n; ++i)
      all.push_back(bus.windows()[static_cast<std::size_t>(windows[i])].name);
    const std::string& first = bus.windows()[static_cast<std::size_t>(windows[0])].name;
    // the merged window is one event in the narrative...
    trace->add(EventKind::window, "window:" + first,
               n > 1 ? "window " + names + " (one timing window)" : "window " + first,
               {{"window", first}, {"windows", all}});
    for (int i = 1; i < n; ++i) {  // ...but each name can be matched by a test
      const std::string& w = bus.windows()[static_cast<std::size_t>(windows[i])].name;
      trace->add(EventKind::window, "window:" + w, "", {{"window", w}, {"merged_with", first}});
    }
  }
  bool any = false;
  for (int i = 0; i < n; ++i) any |= window_live(windows[i]);
  if (!any) return 0;
  int ran = 0;
  const int d = depth++;
  window_opened();  // pools made in this window die with it (check_pool)
  if (static_cast<int>(firings.size()) <= d) firings.emplace_back();
  struct Depth {
    Impl& I;
    ~Depth() { --I.depth; }
  } guard{*this};
  bus.collect(*state, std::span<const int>(windows, static_cast<std::size_t>(n)),
              state->role(s_active_player), held, firings[static_cast<std::size_t>(d)]);
  for (std::size_t k = 0; k < firings[static_cast<std::size_t>(d)].size(); ++k) {
    const Firing f = firings[static_cast<std::size_t>(d)][k];
    const HookDef& h = bus.hook(f.hook);
    const std::string& wname = bus.windows()[static_cast<std::size_t>(h.window)].name;
    auto where = [&] { return "hook '" + h.id + "' (pack " + h.pack + ", window " + wname + ")"; };
    if (f.source != kNoEntity && state->at(f.source).location == kReinforcements)
      continue;  // discarded meanwhile
    // a use limit is the source's own (each copy of a card, each ship's upgrade)
    const EntityId user = f.source != kNoEntity ? f.source : f.player;
    if (h.limit != kNoSym && state->counter(user, h.use_key) > 0) continue;
    auto push_call = [&](int ref) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
      push_hook_ctx();  // read-only: the ruleset's own ctx stays out of packs' reach
      if (f.player == kNoEntity)
        lua_pushnil(L);
      else
        lua_pushinteger(L, f.player);
      if (f.source == kNoEntity)
        lua_pushnil(L);
      else
        lua_pushinteger(L, f.source);
      if (args_index)
        lua_pushvalue(L, args_index);
      else
        lua_pushnil(L);
    };
    // what the hook reads through ctx:scenario()/ctx:policy() is its pack's read-only view
    struct Viewer {
      Impl& I;
      int saved;
      ~Viewer() { I.hook_viewer = saved; }
    } viewer{*this, hook_viewer};
    hook_viewer = h.pack_order;
    if (h.condition >= 0) {
      push_call(h.condition);
      call(4, 1, options.hook_budget, [&] { return where() + " condition"; });
      const bool ok = lua_toboolean(L, -1);
      lua_pop(L, 1);
      if (args_index) refuse_handed_metatables(L, args_index, where);
      if (!ok) continue;
    }
    if (h.optional && f.player != kNoEntity) {
      lua_createtable(L, 2, 0);
      lua_pushliteral(L, "yes");
      lua_rawseti(L, -2, 1);
      lua_pushliteral(L, "no");
      lua_rawseti(L, -2, 2);
      std::string reason;
      const std::string decision = "use:" + short_id(h.id);
      // the default policy's guess whether using it helps: the hook's `helps`, run (with the
      // condition's budget and sandbox) only when the policy is the one to decide
      auto push_helps = [&] {
        if (h.helps < 0) return lua_pushnil(L);
        const int top = lua_gettop(L);
        push_call(h.helps);
        call(4, 1, options.hook_budget, [&] { return where() + " helps"; });
        if (args_index) refuse_handed_metatables(L, args_index, where);
        lua_pushboolean(L, lua_toboolean(L, -1));
        lua_replace(L, top + 1);
        lua_settop(L, top + 1);
      };
      const std::string answer = decide(f.player, decision, lua_gettop(L), reason, push_helps);
      lua_pop(L, 1);
      if (tracing())
        trace->add(EventKind::decision,
                   "decision:" + name_of(f.player) + ":" + decision + ":" + answer,
                   name_of(f.player) + " decides " + decision + ": " + answer + " (" + reason + ")",
                   {{"player", name_of(f.player)},
                    {"decision", decision},
                    {"options", {"yes", "no"}},
                    {"answer", answer},
                    {"reason", reason}});
      if (answer != "yes") continue;
    }
    if (tracing()) {
      // a rule (no player) runs; a player uses a card, technology or ability
      const bool rule = f.player == kNoEntity;
      trace->add(EventKind::hook, "hook:" + short_id(h.id) + ":" + name_of(f.player),
                 (rule ? "rule " + short_id(h.id) : name_of(f.player) + " uses " + short_id(h.id)) +
                     (h.source_name.empty() ? "" : " (" + h.source_name + ")") + " [" + h.pack +
                     "]",
                 {{"hook", h.id},
                  {"player", rule ? nlohmann::json(nullptr) : nlohmann::json(name_of(f.player))},
                  {"source",
                   h.source_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.source_name)},
                  {"window", wname},
                  {"pack", h.pack}});
    }
    ++ran;
    // the use is counted and the card discarded before the effect, so that a window the
    // effect reopens cannot fire the same card again
    if (h.limit != kNoSym) state->add_counter(user, h.use_key, 1, h.limit);
    if (h.discard && f.source != kNoEntity) {
      state->at(f.source).location = kReinforcements;
      liveness_dirty = true;  // (the card's hooks may be the last of their windows)
    }
    if (trace) ++trace->depth;
    if (h.apply >= 0) {
      push_call(h.apply);
      try {
        call(4, 0, options.hook_budget, where);
        if (args_index) refuse_handed_metatables(L, args_index, where);
      } catch (...) {
        if (trace) --trace->depth;
        throw;
      }
    } else if (h.effect >= 0) {
      const EffectDef& e = content->effects[static_cast<std::size_t>(h.effect)];
      if (e.activate >= 0) state->modifiers.push_back({e.activate, f.player, e.until});
      if (e.counter != kNoSym) state->add_counter(f.player, e.counter, e.counter_delta, e.until);
    }
    if (trace) --trace->depth;
    if (h.discard && f.source != kNoEntity) {
      if (tracing())
        trace->add(EventKind::note, "discard:" + name_of(f.player) + ":" + short_id(h.id),
                   name_of(f.player) + " discards " + h.source_name);
    }
  }
  return ran;
}

namespace {

// ctx:open(window [, window...] [, args]) -> the number of hooks that ran: opens the windows
// as one timing window.
int l_open(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.state) return luaL_error(L, "no game state here (open needs a run)");
  int n = lua_gettop(L);
  int args = 0;
  if (n >= 2 && lua_istable(L, n)) args = n--;
  int windows[16];
  int k = 0;
  for (int i = 2; i <= n && k < 16; ++i) windows[k++] = I.window_index(L, i);
  if (k == 0) return luaL_error(L, "open needs a window name");
  lua_pushinteger(L, I.open_windows(windows, k, args));
  return 1;
}

// ctx:hooked(window, ...) -> for each window, whether a hook on it can run in this run (its
// source is held, or it is a rule); a procedure builds the window's args only then
int l_hooked(lua_State* L) {
  Engine::Impl& I = impl(L);
  const int n = lua_gettop(L);
  if (n < 2) return luaL_error(L, "hooked needs a window name");
  luaL_checkstack(L, n, "too many windows");
  for (int i = 2; i <= n; ++i) {
    const int w = I.window_index(L, i);
    lua_pushboolean(L, I.state ? I.window_can_run(w) : !I.bus.empty(w));
  }
  return n - 1;
}

// ctx:decide(player, decision, options) -> the chosen option
int l_decide(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId player = check_entity(L, 2);
  const std::string decision = luaL_checkstring(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!I.rules.decision(decision) && decision.rfind("use:", 0) != 0) {
    std::vector<std::string> names;
    for (const auto& d : I.rules.decisions) names.push_back(d.name);
    return luaL_error(L, "decision '%s' is not declared in ruleset.toml%s", decision.c_str(),
                      did_you_mean(decision, names).c_str());
  }
  std::string reason;
  int first = 0;
  const std::string answer = I.decide(player, decision, 4, reason, {}, &first);
  if (I.tracing()) {
    nlohmann::json options = nlohmann::json::array();
    const lua_Integer k = std::min<lua_Integer>(luaL_len(L, 4), kMaxOptions);
    for (lua_Integer i = 1; i <= k; ++i) {
      lua_geti(L, 4, i);
      options.push_back(option_label(L, -1));
      lua_pop(L, 1);
    }
    I.trace->add(EventKind::decision,
                 "decision:" + I.name_of(player) + ":" + decision + ":" + answer,
                 I.name_of(player) + " decides " + decision + ": " + answer + " (" + reason + ")",
                 {{"player", I.name_of(player)},
                  {"decision", decision},
                  {"options", options},
                  {"answer", answer},
                  {"reason", reason}});
  }
  // the first option of the answer's label (decide labelled them all)
  lua_geti(L, 4, first);
  return 1;
}

// ctx:label(metric, text): (setup) what the report calls a metric ("site_1_held" is
// "Abyz"); the start state decides it, so it is said once, not by every run.
int l_label(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (I.result)
    return luaL_error(L, "ctx:label is for setup: a label names a metric for every run");
  const std::string metric = luaL_checkstring(L, 2);
  const std::string text = luaL_checkstring(L, 3);
  if (metric.size() > 200 || text.size() > 200)
    return luaL_error(L, "ctx:label: a metric name and its label are at most 200 bytes");
  if (I.labels.size() >= 1000) return luaL_error(L, "ctx:label: at most 1000 labels");
  for (auto& [m, t] : I.labels)
    if (m == metric) {
      t = text;
      return 0;
    }
  I.labels.emplace_back(metric, text);
  return 0;
}

// ctx:by_policy(player, decision) -> whether that decision of the player would now go to the
// ruleset's policy: no scripted answer waits for it and no person is asked at the terminal. A
// procedure may then skip what the policy's settings make idle (a retreat never announced).
int l_by_policy(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId player = check_entity(L, 2);
  const std::string decision = luaL_checkstring(L, 3);
  const bool scripted = I.run_options && I.run_options->answers &&
                        I.run_options->answers->has(I.name_of(player), decision);
  const bool asked = I.options.interactive && isatty(STDIN_FILENO);
  // best play: every decision of the best side is a choice (ctx:decide draws it)
  const bool best =
      (I.exact && I.exact->best == player && !I.exact->done) || I.best_picking(player);
  lua_pushboolean(L, !scripted && !asked && !best);
  return 1;
}

// ctx:event(key, text): a trace event of the procedure's own ("retreat:attacker:home")
// ctx:event(key, text?, fields?): a note of the script's own. fields, for programs reading the
// trace (trace --json, serve's /api/board): player and unit (entities, written by name) and path
// (a list of entities, each written as {name, q, r}, q and r null off the board). Another key is
// an error, checked when not tracing too, so a typo shows in every run.
int l_event(lua_State* L) {
  Engine::Impl& I = impl(L);
  const char* key = luaL_checkstring(L, 2);
  const char* text = luaL_optstring(L, 3, key);
  if (lua_isnoneornil(L, 4)) {
    if (I.tracing()) I.trace->add(EventKind::note, key, text);
    return 0;
  }
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!I.state) return luaL_error(L, "ctx:event: fields need a game state (a run or a setup)");
  // checked first, while only C values live (a Lua error is a longjmp: it runs no destructor)
  const auto entity = [](lua_State* L, const char* field) {
    int ok = 0;
    const lua_Integer e = lua_tointegerx(L, -1, &ok);
    if (!ok || e < 0 || e > INT32_MAX || !impl(L).state->valid(static_cast<EntityId>(e)))
      luaL_error(L, "ctx:event: fields.%s: expected an entity, got %s", field,
                 ok ? lua_tostring(L, -1) : luaL_typename(L, -1));
  };
  const char* bad = nullptr;
  lua_pushnil(L);
  while (!bad && lua_next(L, 4)) {
    const char* k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
    if (std::strcmp(k, "player") == 0 || std::strcmp(k, "unit") == 0) {
      entity(L, k);
    } else if (std::strcmp(k, "path") == 0) {
      if (!lua_istable(L, -1))
        return luaL_error(L, "ctx:event: fields.path: expected a list of entities, got %s",
                          luaL_typename(L, -1));
      const lua_Integer n = luaL_len(L, -1);
      if (n > 1000) return luaL_error(L, "ctx:event: fields.path holds %I places; at most 1000", n);
      for (lua_Integer i = 1; i <= n; ++i) {
        lua_geti(L, -1, i);
        entity(L, "path");
        lua_pop(L, 1);
      }
    } else {
      bad = k;
      break;
    }
    lua_pop(L, 1);
  }
  if (bad) {
    {
      const std::vector<std::string> known{"player", "unit", "path"};
      push_error(L, std::string("ctx:event: unknown field '") + bad + "'" +
                        did_you_mean(bad, known) + "; the fields are player, unit and path");
    }
    return lua_error(L);
  }
  if (!I.tracing()) return 0;
  const State& s = *I.state;
  const auto name_of = [&](EntityId e) { return std::string(sym_name(s.at(e).type)); };
  nlohmann::json fields = nlohmann::json::object();
  lua_pushnil(L);
  while (lua_next(L, 4)) {
    const std::string k = lua_tostring(L, -2);
    if (k == "path") {
      nlohmann::json path = nlohmann::json::array();
      const lua_Integer n = luaL_len(L, -1);
      for (lua_Integer i = 1; i <= n; ++i) {
        lua_geti(L, -1, i);
        const auto e = static_cast<EntityId>(lua_tointeger(L, -1));
        lua_pop(L, 1);
        nlohmann::json place = {{"name", name_of(e)}, {"q", nullptr}, {"r", nullptr}};
        if (const std::optional<Hex> h = s.hex_of(e)) place["q"] = h->q, place["r"] = h->r;
        path.push_back(std::move(place));
      }
      fields[k] = std::move(path);
    } else {
      fields[k] = name_of(static_cast<EntityId>(lua_tointeger(L, -1)));
    }
    lua_pop(L, 1);
  }
  I.trace->add(EventKind::note, key, text, std::move(fields));
  return 0;
}
int l_tracing(lua_State* L) {
  lua_pushboolean(L, impl(L).tracing());
  return 1;
}
// ctx:result(outcome): the run's outcome (one of the report's outcomes)
void set_metric(RunResult& r, Sym s, double v) {
  for (auto& [k, val] : r.metrics)
    if (k == s) {
      val = v;
      return;
    }
  r.metrics.emplace_back(s, v);
}

int l_result(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.result) return luaL_error(L, "result needs a run");
  const char* name = luaL_checkstring(L, 2);
  const Sym outcome = lua_sym(L, 2);
  const auto& outs = I.procedure->outcome_syms;
  I.result->outcome = -1;
  for (std::size_t i = 0; i < outs.size(); ++i)
    if (outs[i] == outcome) {
      I.result->outcome = static_cast<int>(i);
      I.result->outcome_name = I.procedure->outcomes[i];
    }
  if (I.result->outcome < 0) {
    if (!outs.empty())
      return luaL_error(L, "outcome '%s' is not one of the report's outcomes%s", name,
                        did_you_mean(name, I.procedure->outcomes).c_str());
    I.result->outcome_name = name;
  }
  if (I.memo_writes)
    I.memo_writes->push_back({kNoSym, 0, I.result->outcome, I.result->outcome_name});
  if (I.tracing())
    I.trace->add(EventKind::note, std::string("result:") + name, std::string("outcome: ") + name);
  return 0;
}
// ctx:metric(name, value): a number the simulation summarises (rounds, damage, ...)
int l_metric(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.result) return luaL_error(L, "metric needs a run");
  const Sym s = lua_sym(L, 2);
  const double v = luaL_checknumber(L, 3);
  set_metric(*I.result, s, v);
  if (I.memo_writes) I.memo_writes->push_back({s, v, -1, {}});
  return 0;
}
void add_metric(RunResult& r, Sym s, double v) {
  for (auto& [k, val] : r.metrics)
    if (k == s) {
      val += v;
      return;
    }
  r.metrics.emplace_back(s, v);
}
// ctx:add_metric(name, delta): adds to a metric (0 when the run has not written it). The exact
// mode sums what is added as an expectation, so a count that grows a round at a time need not be
// kept in the state (see scripts/README.md, "The exact mode").
int l_add_metric(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.result) return luaL_error(L, "add_metric needs a run");
  add_run_metric(I, lua_sym(L, 2), luaL_checknumber(L, 3));
  return 0;
}

// ---------------------------------------------------------------- ctx:steps and its memo

constexpr lua_Integer kMaxSteps = 256;

// Runs step i (list at stack index 2) on the current state. Returns the step to run next: i
// again when the step returned "again" (a round that goes on), else i + 1.
int call_step(lua_State* L, Engine::Impl& I, int i) {
  lua_rawgeti(L, 2, i + 1);
  I.push_ctx();
  lua_call(L, 1, 1);
  const bool again =
      lua_type(L, -1) == LUA_TSTRING && std::strcmp(lua_tostring(L, -1), "again") == 0;
  if (!again && !lua_isnil(L, -1)) {
    luaL_error(L,
               "ctx:steps: step %d returned %s; a step returns nothing, or \"again\" to run again",
               i + 1, luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  return again ? i : i + 1;
}

void apply(Engine::Impl& I, std::span<const MemoWrite> writes) {
  for (const MemoWrite& w : writes) {
    if (w.name != kNoSym && w.add) {
      add_metric(*I.result, w.name, w.value);
    } else if (w.name != kNoSym) {
      set_metric(*I.result, w.name, w.value);
    } else {
      I.result->outcome = w.outcome;
      I.result->outcome_name = w.outcome_name;
    }
  }
}

// The memo of this list of step functions (their identities, anchored while the memo lives).
StepMemo& memo_of(lua_State* L, Engine::Impl& I, int n) {
  for (const auto& m : I.steps_memos) {
    if (static_cast<int>(m->fns.size()) != n) continue;
    bool same = true;
    for (int i = 0; i < n && same; ++i) {
      lua_rawgeti(L, 2, i + 1);
      same = lua_topointer(L, -1) == m->fns[static_cast<std::size_t>(i)];
      lua_pop(L, 1);
    }
    if (same) return m->memo;
  }
  if (I.steps_memos.size() >= 16) I.forget_memos();  // a procedure that makes new steps each run
  std::size_t used = 0;
  for (const auto& other : I.steps_memos) used += other->memo.bytes();
  auto m = std::make_unique<Engine::Impl::Steps>(
      I.options.memo_bytes > used ? I.options.memo_bytes - used : 0);
  for (int i = 0; i < n; ++i) {
    lua_rawgeti(L, 2, i + 1);
    m->fns.push_back(lua_topointer(L, -1));
    m->refs.push_back(luaL_ref(L, LUA_REGISTRYINDEX));
  }
  I.steps_memos.push_back(std::move(m));
  return I.steps_memos.back()->memo;
}

ExactLeaf leaf_of_writes(Engine::Impl::Exact& X);
ExactLeaf run_exact_step_in_lua(lua_State* L, Engine::Impl& I, int list, int step, ExactPath& path,
                                State& state);

// The exact mode (Engine::run_exact): the leaves of step `step` from `state`, each run once with
// its draws from `path`; what it writes is captured (I.exact->writes). `fn` is the stack index of
// the step list (ctx:steps), or 0 for the procedure run as one step (its function at index 1).

ExactLeaf run_exact_step(lua_State* L, Engine::Impl& I, int list, int step, ExactPath& path,
                         State& state) {
  Engine::Impl::Exact& X = *I.exact;
  // best play: a leaf whose draws before the round of the node's fan are those of the run that
  // made it (the path kept them: it is longer than that), and whose round goes on, is that round
  // alone (Exact::Fan)
  Engine::Impl::Exact::Fan& fan = X.fan;
  if (path.size() <= fan.at || fan.step != step) fan.valid = false;
  if (path.size() == 0) fan.ends.clear();  // a node's first leaf: its ends are its own
  int next = step;
  std::uint64_t same = 0;
  if (fan.valid && replay_best_round(I, path, state, next, same)) {
    ExactLeaf leaf = leaf_of_writes(X);
    leaf.next_step = next;
    leaf.same = same;
    leaf.replayed = true;
    ++X.replayed;
    return leaf;
  }
  path.rewind();  // (a round replayed that did not go on: the step runs from its first draw)
  fan.pending = false;
  ExactLeaf leaf = run_exact_step_in_lua(L, I, list, step, path, state);
  // the step returned "again" at once after its round: it drew, wrote and changed nothing after
  if (fan.pending && fan.round_done && leaf.next_step == step && path.used() == fan.end &&
      path.size() == fan.end && X.writes.size() == fan.writes_after &&
      X.choices.size() == fan.choices_after && state == fan.after) {
    fan.valid = true;
    fan.step = step;
    leaf.same = fan.same(false);  // the leaves that replay the same pair of takes lead here
  }
  // the round ended the combat and the step drew and chose nothing after it: what it did is kept
  // for the node's other leaves whose round puts the same takes together (Exact::Fan::ends)
  if (fan.pending && fan.ids_known && fan.result == combat::ExchangeResult::over && fan.at == 0 &&
      path.used() == fan.end && path.size() == fan.end && X.choices.size() == fan.choices_after &&
      X.writes.size() >= fan.writes_after && fan.ends.size() < 1024) {
    Engine::Impl::Exact::Fan::End e;
    e.parts = fan.parts_made;
    e.ids[0] = fan.ids[0], e.ids[1] = fan.ids[1];
    e.final = state;
    e.writes.assign(X.writes.begin() + static_cast<std::ptrdiff_t>(fan.writes_after),
                    X.writes.end());
    e.next_step = leaf.next_step;
    fan.ends.push_back(std::move(e));
    leaf.same = fan.same(true);
  }
  return leaf;
}

ExactLeaf run_exact_step_in_lua(lua_State* L, Engine::Impl& I, int list, int step, ExactPath& path,
                                State& state) {
  Engine::Impl::Exact& X = *I.exact;
  State* const saved = I.state;
  RunResult* const saved_result = I.result;
  RunResult scratch;
  struct Restore {
    Engine::Impl& I;
    State* s;
    RunResult* r;
    ~Restore() { I.state = s, I.result = r, I.memo_writes = nullptr, I.dice.stop_exact(); }
  } restore{I, saved, saved_result};
  I.state = &state;
  I.result = &scratch;
  I.liveness_dirty = true;
  I.begin_run();  // each run of a step is a run: fresh pools and limits
  X.writes.clear();
  X.choices.clear();
  X.round_draw = {};
  I.memo_writes = &X.writes;
  if (!X.forcing) I.dice.start_exact(&path);  // (forcing: the dice are forced, the path chooses)
  X.path = &path;
  ExactLeaf leaf;
  if (list > 0) {
    leaf.next_step = call_step(L, I, step);
  } else {
    lua_pushvalue(L, 1);
    I.push_ctx();
    lua_call(L, 1, 0);
    leaf.next_step = 1;
  }
  const int next = leaf.next_step;
  leaf = leaf_of_writes(X);
  leaf.next_step = next;
  // The step's only draw was a round's end (ctx:exchange_fire, one round in C++), and it
  // returned "again" at once: nothing written nor changed after the draw. spec.again's promise
  // (the step returns "again" when the round does) makes every other end that goes on lead the
  // same way, from the state that round left: explore files them without running the step.
  const Engine::Impl::Exact::RoundDraw& rd = X.round_draw;
  if (rd.fire && list > 0 && !X.best.any() && rd.at == 0 && path.used() == 1 &&
      leaf.next_step == step && X.writes.size() == rd.writes &&
      rd.fire->result[rd.k] == combat::ExchangeResult::round_done &&
      state == rd.fire->round[rd.k]) {
    const Engine::Impl::Exact::Fire& f = *rd.fire;
    leaf.siblings.p = f.p.data();
    leaf.siblings.n = static_cast<std::uint32_t>(f.p.size());
    for (std::uint32_t j = rd.k + 1; j < leaf.siblings.n; ++j)
      if (f.result[j] == combat::ExchangeResult::round_done && f.p[j] > 0)
        leaf.siblings.ends.emplace_back(j, &f.round[j]);
  }
  return leaf;
}

// What the step just run wrote (X.writes) and chose (X.choices), as its leaf.
ExactLeaf leaf_of_writes(Engine::Impl::Exact& X) {
  ExactLeaf leaf;
  for (const MemoWrite& w : X.writes) {
    if (w.name == kNoSym) {
      leaf.outcome = w.outcome, leaf.outcome_name = w.outcome_name;
      continue;
    }
    auto& list_of = w.add ? leaf.adds : leaf.sets;
    auto& other = w.add ? leaf.sets : leaf.adds;
    for (const auto& o : other)
      if (o.first == w.name)
        throw ScriptError("metric '" + std::string(sym_name(w.name)) +
                          "' is both set (ctx:metric) and added to (ctx:add_metric) in one step; "
                          "the exact mode needs one or the other");
    bool found = false;
    for (auto& [m, v] : list_of)
      if (m == w.name) v = w.add ? v + w.value : w.value, found = true;
    if (!found) list_of.emplace_back(w.name, w.value);
  }
  std::sort(leaf.adds.begin(), leaf.adds.end());
  leaf.choices = X.choices;
  return leaf;
}

// The value of a node's tree of draws below depth `d` for leaves [lo, hi) (they share their
// draws before d): a chance draw weighs its groups by their chance, a choice of the first side
// takes its best group, a leaf is worth what it adds (the objective's weights) plus its node's
// value `V`. (Best play with fixed dice, for a decision before its step's dice.)
double tree_value(const std::vector<ExactTreeLeaf>& leaves, std::size_t lo, std::size_t hi,
                  std::size_t d, const std::vector<double>& V, const BestObjective& objective) {
  constexpr std::uint32_t kFlags =
      ExactTreeLeaf::kChoice | ExactTreeLeaf::kSecond | ExactTreeLeaf::kProcess;
  if (leaves[lo].draws.size() <= d) {  // (a step draws the same way after the same draws: one)
    const ExactTreeLeaf& l = leaves[lo];
    double v = l.to < V.size() ? V[l.to] : 0;
    for (const auto& [m, weight] : objective.metrics)
      for (const auto& [k, value] : l.adds)
        if (k == m) v += weight * value;
    return v;
  }
  const bool choice = (leaves[lo].draws[d] & ExactTreeLeaf::kChoice) &&
                      !(leaves[lo].draws[d] & ExactTreeLeaf::kSecond);
  double best = -1e300, sum = 0, weight = 0;
  for (std::size_t i = lo; i < hi;) {
    std::size_t j = i + 1;
    while (j < hi && leaves[j].draws.size() > d &&
           (leaves[j].draws[d] & ~kFlags) == (leaves[i].draws[d] & ~kFlags))
      ++j;
    const double v = tree_value(leaves, i, j, d + 1, V, objective);
    if (choice) {
      best = std::max(best, v);
    } else {
      double p = 0;
      for (std::size_t k = i; k < j; ++k) p += leaves[k].p;
      sum += p * v, weight += p;
    }
    i = j;
  }
  return choice ? best : (weight > 0 ? sum / weight : 0);
}

// Best play with fixed dice (ExactRunOptions::best_forced_walk), once best play has valued every
// node (`V`, the first side's): the run the forced dice make. From the start, each node's step
// runs with the dice left once for every sequence of the side's choices in it (the path holds
// the choices alone, walked like an odometer), each run worth what it adds (the objective's
// weights) plus the value of the node it ends in. The side's decisions in the step are taken in
// turn, each the option of highest value (ties: the lowest, the policy's): a decision after which
// the step rolls no die is worth the best run that takes it; one before any die of its step is
// worth its expectation over those dice, from the node's tree of draws (`trees`, kept by the
// exploration from the same state); one with dice on both sides is an error (the dice do not
// say which of the tree's draws came before it). The picks, with every option's value, go to
// X.picks.
void forced_walk(lua_State* L, Engine::Impl& I, int list, int n, const ExactChain& chain,
                 const std::vector<double>& V, const BestObjective& objective,
                 const std::vector<Sym>& interchangeable, const std::vector<ExactTree>& trees) {
  Engine::Impl::Exact& X = *I.exact;
  const std::vector<DiceStream::Forced>& dice = X.options.best_forced;
  struct Off {
    Engine::Impl::Exact& X;
    DiceStream& d;
    ~Off() { X.forcing = false, X.forced_dice = nullptr, d.force({}, false); }
  } off{X, I.dice};
  struct Run {
    std::vector<std::uint32_t> picks;
    std::vector<std::size_t> dice_before;  // by pick: the step's dice rolled before it
    std::vector<std::vector<std::string>> words;
    std::size_t used = 0;
    std::uint32_t to = 0;
    double value = 0;
  };
  std::unordered_map<std::uint32_t, std::size_t> tree_of;
  for (std::size_t t = 0; t < trees.size(); ++t) tree_of.emplace(trees[t].node, t);
  constexpr std::uint32_t kFlags =
      ExactTreeLeaf::kChoice | ExactTreeLeaf::kSecond | ExactTreeLeaf::kProcess;
  std::size_t at = 0;  // forced dice used so far
  std::uint32_t v = 0;
  for (std::size_t walked = 0; walked < 100'000; ++walked) {
    const ExactNode& node = chain.at(v);
    if (node.step >= n) return;
    const std::string where = "best play with fixed dice, step " + std::to_string(node.step + 1);
    std::vector<Run> runs;
    ExactPath path;
    path.clear();
    do {
      path.rewind();
      State work = node.state;
      I.dice.force({dice.begin() + static_cast<std::ptrdiff_t>(at), dice.end()}, true);
      X.forcing = true, X.forced_dice = &I.dice;
      X.pick_dice.clear(), X.pick_words.clear();
      const ExactLeaf leaf = run_exact_step_in_lua(L, I, list, node.step, path, work);
      X.forcing = false;
      if (path.size() != leaf.choices.size())
        throw ScriptError(where +
                          ": the step drew something besides the dice and the side's "
                          "choices (math.random): fixed dice cannot say what it drew");
      Run r;
      for (std::size_t i = 0; i < path.size(); ++i) r.picks.push_back(path.value(i));
      r.dice_before = X.pick_dice;
      r.words = X.pick_words;
      r.used = I.dice.forced_used();
      ExactWrites w = node.writes;
      for (const auto& [m, value] : leaf.sets) w.set(m, value);
      if (leaf.outcome >= 0) w.outcome = leaf.outcome, w.outcome_name = leaf.outcome_name;
      work.canonicalise(interchangeable);
      const std::int64_t to = chain.find(leaf.next_step, work, w);
      if (to < 0 || static_cast<std::size_t>(to) >= V.size())
        throw ScriptError(where +
                          ": the forced dice lead to a state the exact mode did not "
                          "reach (or left unexpanded, below --prune)");
      r.to = static_cast<std::uint32_t>(to);
      r.value = V[r.to];
      for (const auto& [m, weight] : objective.metrics)
        for (const auto& [a, value] : leaf.adds)
          if (a == m) r.value += weight * value;
      runs.push_back(std::move(r));
    } while (path.advance());
    // the side's decisions in turn: `taken` the picks so far
    std::vector<std::uint32_t> taken;
    auto follows = [&](const Run& r) {
      return r.picks.size() >= taken.size() &&
             std::equal(taken.begin(), taken.end(), r.picks.begin());
    };
    for (;;) {
      const std::size_t j = taken.size();
      const Run* first = nullptr;
      bool dice_after = false;
      for (const Run& r : runs)
        if (follows(r) && r.picks.size() > j) {
          if (!first) first = &r;
          dice_after = dice_after || r.used > r.dice_before[j];
        }
      if (!first) break;
      RunOptions::BestPicks::Pick p;
      if (j < first->words.size() && !first->words[j].empty()) {
        p.decision = first->words[j].front();
        p.options.assign(first->words[j].begin() + 1, first->words[j].end());
      }
      const std::string what = p.decision.empty() ? std::string() : " '" + p.decision + "'";
      if (!dice_after) {
        // each option's value: the best run that takes it
        for (const Run& r : runs) {
          if (!follows(r) || r.picks.size() <= j) continue;
          const std::uint32_t k = r.picks[j];
          if (p.values.size() <= k) p.values.resize(k + 1, -1e300);
          p.values[k] = std::max(p.values[k], r.value);
        }
      } else {
        if (first->dice_before[j] > 0)
          throw ScriptError(where + ": the side's decision" + what +
                            " comes after some of its step's dice and before others, so the "
                            "fixed dice cannot say which of the step's draws led to it (fixed "
                            "dice value a decision after all the dice of its step, or before "
                            "any)");
        // before any die of the step: its expectation over them, from the node's tree (its
        // leaves whose draws begin with the picks so far, all choices)
        const auto t = tree_of.find(v);
        if (t == tree_of.end()) throw ScriptError(where + ": no tree of draws for the decision");
        const std::vector<ExactTreeLeaf>& leaves = trees[t->second].leaves;
        auto leads = [&](const ExactTreeLeaf& l) {
          if (l.draws.size() <= j) return false;
          for (std::size_t i = 0; i <= j; ++i)
            if (!(l.draws[i] & ExactTreeLeaf::kChoice)) return false;
          for (std::size_t i = 0; i < j; ++i)
            if ((l.draws[i] & ~kFlags) != taken[i]) return false;
          return true;
        };
        for (std::size_t i = 0; i < leaves.size();) {
          if (!leads(leaves[i])) {
            ++i;
            continue;
          }
          const std::uint32_t k = leaves[i].draws[j] & ~kFlags;
          std::size_t e = i + 1;
          while (e < leaves.size() && leads(leaves[e]) && (leaves[e].draws[j] & ~kFlags) == k) ++e;
          if (p.values.size() <= k) p.values.resize(k + 1, -1e300);
          p.values[k] = tree_value(leaves, i, e, j + 1, V, objective);
          i = e;
        }
      }
      std::uint32_t k = 0;
      for (std::uint32_t i = 1; i < p.values.size(); ++i)
        if (p.values[i] > p.values[k] + 1e-12) k = i;
      p.k = k;
      taken.push_back(k);
      X.picks.push_back(std::move(p));
    }
    const Run* done = nullptr;
    for (const Run& r : runs)
      if (r.picks == taken) done = &r;
    if (!done) throw ScriptError(where + ": no run took the picks");
    at += done->used;
    v = done->to;
  }
}

// The exact mode over `n` steps (list at stack index `list`, 0: the procedure as one step),
// from the current state and what the run has written so far: the chain and its solution.
void explore_exact(lua_State* L, Engine::Impl& I, int list, int n) {
  Engine::Impl::Exact& X = *I.exact;
  ExactWrites root;
  for (const auto& [m, v] : I.result->metrics) root.set(m, v);
  root.outcome = I.result->outcome, root.outcome_name = I.result->outcome_name;
  ExactChain chain;
  chain.node(0, *I.state, root);
  ExploreOptions eo;
  eo.max_states = X.options.max_states;
  eo.max_bytes = X.options.max_bytes;
  eo.max_branches = X.options.max_branches;
  eo.max_leaves = X.options.max_step_runs;
  eo.prune = X.options.prune;
  eo.stop = X.options.stop;
  eo.other_bytes = &X.fire_bytes;
  for (const std::string& k : I.rules.interchangeable) eo.interchangeable.push_back(sym(k));
  X.trees.clear();
  if (X.best.any()) eo.trees = &X.trees;
  // best play's words for its choices, where a walk or the first decisions will show them
  X.labels_wanted = X.best.any() && (X.options.best_walk || X.options.best_decisions);
  X.labels.clear(), X.label_at.clear();
  eo.expanding = &X.expanding;
  ExploreStats stats;
  explore(
      chain, n, eo,
      [&](int step, ExactPath& path, State& state) {
        ExactLeaf leaf;
        try {
          leaf = run_exact_step(L, I, list, step, path, state);
        } catch (...) {  // (a Lua error too: it unwinds as a C++ exception, thrown again)
          if (path.overflowed())
            throw ExactLimit("one run of step " + std::to_string(step + 1) + " drew more than " +
                             std::to_string(ExactPath::kMaxDraws) +
                             " dice: rounds that loop inside one step never end when every "
                             "die misses (make each round a step that returns \"again\")");
          throw;
        }
        // the procedure as one step called ctx:steps, which explored the run: this exploration
        // stops here and keeps what that one found (X.chain, X.solution)
        if (list == 0 && X.done) leaf.stop = true;
        return leaf;
      },
      stats);
  if (list == 0 && X.done) return;
  if (X.best.any()) {
    // best play: the chain's edges become the best options' (exact/best.hpp)
    std::vector<BestObjective> sides{X.options.best_objective};
    if (X.best.second != kNoEntity) sides.push_back(X.options.second_objective);
    BestOptions bo;
    bo.max_rounds = X.options.best_rounds;
    bo.want_decisions = X.options.best_decisions;
    bo.want_walk = X.options.best_walk;
    bo.walk_seed = X.options.best_walk_seed;
    bo.want_values = X.options.best_forced_walk;
    for (const auto& p : X.processes) bo.processes.push_back(p->ok ? &p->process : nullptr);
    if (X.labels_wanted)
      bo.label = [&X](std::uint32_t node, std::span<const std::uint32_t> prefix) -> std::uint32_t {
        const auto it = X.label_at.find(Engine::Impl::Exact::label_key(node, prefix));
        return it == X.label_at.end() ? 0 : it->second;
      };
    X.best_result = best_play(chain, X.trees, n, sides, bo);
    if (X.options.best_forced_walk) {
      if (X.best.second != kNoEntity)
        throw UsageError("best play with fixed dice is for one side (not both)");
      forced_walk(L, I, list, n, chain, X.best_result->values, sides[0], eo.interchangeable,
                  X.trees);
      X.best_result->values.clear();
    }
    X.best_result->labels = std::move(X.labels);
    X.label_at.clear();
    X.trees.clear();
  }
  X.solution = chain.solve(n);
  X.chain = std::move(chain);
  X.steps = n;
  X.stats.leaves += stats.leaves - stats.filed, X.stats.pruned += stats.pruned;
  X.stats.replayed += stats.replayed;
}

// Whether a die of a group draw hits on face `f`, as set_face reads the face.
bool die_hits(const DieType& t, const LawDie& x, std::uint32_t f) {
  const std::int32_t value = t.numeric() ? t.values[f] : 0;
  return x.threshold > 0 && value + x.modifier >= x.threshold;
}

// The runs of the laws `at` gained since the last call (MemoNode::LawRun).
void compile_laws(const Engine::Impl& I, MemoNode& at) {
  if (at.law_runs.empty()) at.law_runs.push_back(0);
  for (std::size_t l = at.law_runs.size() - 1; l < at.laws.size(); ++l) {
    const std::size_t start = at.runs.size();
    // (a roll counted by face has no runs: the walk draws its counts)
    bool fits = !by_face(at.laws[l]);
    for (const LawDie& x : at.laws[l]) {
      if (!fits) break;
      const DieType& t = I.die_type(x.type);
      if (t.sides > 64) {
        fits = false;
        break;
      }
      MemoNode::LawRun run{static_cast<std::uint32_t>(t.sides), 1, x.weight, 0};
      for (std::uint32_t f = 0; f < run.sides; ++f)
        if (die_hits(t, x, f)) run.hits |= std::uint64_t{1} << f;
      if (at.runs.size() > start && at.runs.back().sides == run.sides &&
          at.runs.back().hits == run.hits && at.runs.back().weight == run.weight)
        ++at.runs.back().count;
      else
        at.runs.push_back(run);
    }
    if (!fits) at.runs.resize(start);  // rolled die by die
    at.law_runs.push_back(static_cast<std::uint32_t>(at.runs.size()));
  }
}

// ctx:steps(list): runs the functions of `list` in order, each as step(ctx). Each step must be a
// function of the state and the dice alone (what one step tells the next goes through the
// state): the runtime may then replay a step it already ran from the same state instead of
// running it again (script/memo.hpp), with the same results. A step that returns "again" runs
// again (the rounds of a combat): the state it left is where the next run of it starts.
int l_steps(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.state || !I.result) return luaL_error(L, "ctx:steps needs a run");
  if (I.depth != 0 || (I.memo_writes && !(I.exact && I.exact->root)))
    return luaL_error(L, "ctx:steps is for a procedure, not for a hook or inside another step");
  luaL_checktype(L, 2, LUA_TTABLE);
  const lua_Integer len = luaL_len(L, 2);
  if (len < 0 || len > kMaxSteps)
    return luaL_error(L, "ctx:steps takes at most %d steps", static_cast<int>(kMaxSteps));
  const int n = static_cast<int>(len);
  for (int i = 0; i < n; ++i) {
    if (lua_rawgeti(L, 2, i + 1) != LUA_TFUNCTION)
      return luaL_error(L, "ctx:steps: step %d is not a function", i + 1);
    lua_pop(L, 1);
  }
  lua_settop(L, 2);
  if (I.exact) {
    // the procedure was being explored as one step: ctx:steps takes over, from where the run is
    Engine::Impl::Exact& X = *I.exact;
    if (!X.root || X.done) return luaL_error(L, "ctx:steps: one list of steps per run");
    X.root = false;
    // what the procedure wrote before ctx:steps is part of the start
    for (const MemoWrite& w : X.writes) {
      if (w.name == kNoSym)
        I.result->outcome = w.outcome, I.result->outcome_name = w.outcome_name;
      else if (w.add)
        add_metric(*I.result, w.name, w.value);
      else
        set_metric(*I.result, w.name, w.value);
    }
    I.dice.stop_exact();
    I.memo_writes = nullptr;
    try {
      explore_exact(L, I, 2, n);
    } catch (const ExactLimit& e) {
      X.limit = e.what();  // Engine::run_exact throws it again as what it is
      throw;
    }
    X.done = true;
    X.closed.close();  // what the procedure does after ctx:steps does not count: no dice
    I.dice.start_exact(&X.closed);
    return 0;
  }
  if (!I.memo_run) {
    for (int i = 0; i < n;) i = call_step(L, I, i);
    return 0;
  }
  StepMemo& memo = memo_of(L, I, n);
  State& state = *I.state;
  struct Off {  // a step that raises leaves no tape running and no writes captured
    Engine::Impl& I;
    ~Off() { I.dice.stop_tape(), I.memo_writes = nullptr; }
  } off{I};
  std::vector<MemoWrite> writes;
  MemoNode* at = memo.node(0, state);
  bool current = true;  // `state` holds at->state (else the walk is ahead of it)
  for (int i = 0; i < n;) {
    if (!at) {  // the memo is full: run the rest
      i = call_step(L, I, i);
      continue;
    }
    i = at->step;
    if (i >= n) break;
    std::vector<DiceStream::Draw>& raw = I.memo_raw;
    std::vector<DiceStream::KeyDraw>& key = I.memo_key;
    raw.clear(), key.clear(), I.memo_laws.clear();
    if (!at->execute_only) {
      // walk the trie, drawing as the step would: a plain draw, or a group's dice whose hits
      // pick the branch
      std::int32_t slot = at->root;
      while (slot >= 0) {
        const MemoNode::DrawNode d = at->draws[static_cast<std::size_t>(slot)];
        std::uint32_t v = 0;
        if (d.law < 0) {
          v = I.dice.below(d.bound);
          raw.push_back({d.bound, v});
        } else if (const Law& lw = at->laws[static_cast<std::size_t>(d.law)]; by_face(lw)) {
          // a roll counted by face: its counts drawn as the roll draws them, the branch their rank
          const LawDie& x = lw.front();
          const FaceKinds& kinds = I.classes_of(x.type, x.modifier);
          std::vector<std::uint32_t>& counts = I.face_counts;
          counts.assign(kinds.first.size(), 0);
          draw_counts(I.dice, kinds, I.die_type(x.type).sides, x.weight, counts.data(), &raw);
          v = count_rank(counts.data(), static_cast<int>(counts.size()), x.weight);
        } else {
          const auto law = static_cast<std::size_t>(d.law);
          if (law + 1 >= at->law_runs.size()) compile_laws(I, *at);
          const std::uint32_t from = at->law_runs[law], to = at->law_runs[law + 1];
          if (from < to) {
            for (std::uint32_t r = from; r < to; ++r) {
              const MemoNode::LawRun run = at->runs[r];
              for (std::uint32_t k = 0; k < run.count; ++k) {
                const std::uint32_t f = I.dice.below(run.sides);
                raw.push_back({run.sides, f});
                v += static_cast<std::uint32_t>((run.hits >> f) & 1u) * run.weight;
              }
            }
          } else {
            for (const LawDie& x : at->laws[law]) {
              const DieType& t = I.die_type(x.type);
              const auto sides = static_cast<std::uint32_t>(t.sides);
              const std::uint32_t f = I.dice.below(sides);
              raw.push_back({sides, f});
              v += die_hits(t, x, f) ? x.weight : 0;
            }
          }
        }
        slot = at->slots[d.base + v];
      }
      if (slot <= -2) {
        const MemoLeaf& leaf = at->leaves[static_cast<std::size_t>(-2 - slot)];
        if (leaf.next) {
          apply(I, std::span<const MemoWrite>(at->writes.data() + leaf.writes, leaf.count));
          at = leaf.next;
          current = false;
          continue;
        }
        // the memo was full when this leaf was made: run the step again, its draws replayed,
        // and go on without the memo
        if (!current) state = at->state, I.liveness_dirty = true;
        I.dice.start_tape(&raw, raw.size(), &key);
        i = call_step(L, I, i);
        I.dice.stop_tape();
        at = nullptr;
        continue;
      }
    }
    // run the step: from at's state, its drawn prefix first
    if (!current) state = at->state, I.liveness_dirty = true;
    MemoNode& from = *at;
    int next = i + 1;
    memo.count_step_run();
    if (from.execute_only) {
      next = call_step(L, I, i);
    } else {
      writes.clear();
      I.memo_writes = &writes;
      I.dice.start_tape(&raw, raw.size(), &key);
      next = call_step(L, I, i);
      I.dice.stop_tape();
      I.memo_writes = nullptr;
      if (I.dice.diverged())
        return luaL_error(L,
                          "ctx:steps: step %d drew other dice from the same state and draws: it "
                          "depends on something outside the state (a value kept between calls?)",
                          i + 1);
    }
    at = memo.node(next, state);
    current = true;
    if (!from.execute_only) {
      if (I.dice.tainted()) {
        memo.forget(from);
      } else if (!memo.add(from, key, I.memo_laws, writes, at)) {
        return luaL_error(L,
                          "ctx:steps: step %d did not do what it did before from the same state "
                          "and draws: it depends on something outside the state",
                          i + 1);
      }
    }
    i = next;
  }
  if (at && !current) state = at->state, I.liveness_dirty = true;
  return 0;
}

}  // namespace

void add_run_metric(Engine::Impl& I, Sym metric, double delta) {
  add_metric(*I.result, metric, delta);
  if (I.memo_writes) I.memo_writes->push_back({metric, delta, -1, {}, true});
}

// The exact mode's root (Engine::run_exact calls it through the call gate with the procedure's
// function): the procedure is explored as one step, unless it calls ctx:steps, which then
// explores its steps (l_steps) and ends this exploration.
int exact_root(lua_State* L) {
  Engine::Impl& I = impl(L);
  try {
    explore_exact(L, I, 0, 1);
  } catch (const ExactLimit& e) {
    I.exact->limit = e.what();
  }
  return 0;
}

void register_flow_api(lua_State* L) {
  static const luaL_Reg api[] = {
      {"open", guarded<l_open>},     {"hooked", guarded<l_hooked>},
      {"decide", guarded<l_decide>}, {"by_policy", guarded<l_by_policy>},
      {"label", guarded<l_label>},   {"event", guarded<l_event>},
      {"tracing", l_tracing},        {"result", guarded<l_result>},
      {"metric", guarded<l_metric>}, {"add_metric", guarded<l_add_metric>},
      {"steps", guarded<l_steps>},   {nullptr, nullptr}};
  luaL_setfuncs(L, api, 0);
}

}  // namespace rb
