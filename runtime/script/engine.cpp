#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <cctype>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/error.hpp"
#include "base/text.hpp"
#include "script/api_doc.hpp"
#include "script/lua_host.hpp"

namespace rb {

double RunResult::metric(std::string_view name, double fallback) const {
  const auto s = find_sym(name);
  if (!s) return fallback;
  for (const auto& [k, v] : metrics)
    if (k == *s) return v;
  return fallback;
}

namespace {

// ---------------------------------------------------------------- memory and budget

void* limited_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* I = static_cast<Engine::Impl*>(ud);
  if (ptr == nullptr) osize = 0;
  if (nsize == 0) {
    I->memory -= osize;
    std::free(ptr);
    return nullptr;
  }
  if (nsize > osize && I->memory + (nsize - osize) > I->options.memory_limit) return nullptr;
  void* p = std::realloc(ptr, nsize);
  if (p) I->memory = I->memory - osize + nsize;
  return p;
}

constexpr int kBudgetStep = 10000;
// marks kill_message as already attributed (see Engine::Impl::fail)
constexpr char kKilled = '\1';

std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// ---------------------------------------------------------------- the watchdog
// A procedure runs without a count hook (in Lua 5.4 any count hook sends every VM instruction
// through the hook machinery, a quarter of a combat's time). Its time limit is kept by a
// watchdog thread: past the deadline it signals the running thread, whose handler installs a
// hook that stops the script at its next instruction, as lua.c does for an interrupt.

thread_local Engine::Impl* running_engine = nullptr;

int watchdog_signal() {
  return SIGRTMIN + 5;
}

// Raises the run's kill message again: armed once a budget or time limit is exceeded, on every
// instruction, call and return, so that a pcall, xpcall handler or <close> handler that catches
// the error stops at its next instruction. Disarmed when the outermost call gate returns.
constexpr int kKillMask = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
void kill_hook(lua_State* L, lua_Debug*) {
  const std::string& m = impl(L).kill_message;
  lua_pushlstring(L, m.data(), m.size());
  lua_error(L);
}

void stop_hook(lua_State* L, lua_Debug*) {
  Engine::Impl& I = impl(L);
  if (I.exhausted) kill_hook(L, nullptr);
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", I.time_limit);
  I.exhaust(0,
            std::string("time limit exceeded (ran longer than ") + limit + " s: an endless loop?)");
  kill_hook(L, nullptr);
}

void on_watchdog_signal(int) {
  Engine::Impl* I = running_engine;
  if (!I) return;
  const std::int64_t deadline = I->deadline.load(std::memory_order_relaxed);
  if (deadline != 0 && now_ns() > deadline)
    lua_sethook(I->L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

class Watchdog {
 public:
  static Watchdog& get() {
    static Watchdog* w = new Watchdog();  // lives until the process exits, as its thread does
    return *w;
  }
  void add(Engine::Impl* I) {
    std::lock_guard lock(mutex_);
    engines_.push_back(I);
  }
  void remove(Engine::Impl* I) {
    std::lock_guard lock(mutex_);
    std::erase(engines_, I);
  }

 private:
  Watchdog() {
    struct sigaction sa {};
    sa.sa_handler = on_watchdog_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(watchdog_signal(), &sa, nullptr);
    std::thread([this] { loop(); }).detach();
  }
  void loop() {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::lock_guard lock(mutex_);
      const std::int64_t now = now_ns();
      for (Engine::Impl* I : engines_) {
        const std::int64_t deadline = I->deadline.load();
        if (deadline != 0 && now > deadline && !I->signalled.exchange(true))
          pthread_kill(I->thread, watchdog_signal());
      }
    }
  }
  std::mutex mutex_;
  std::vector<Engine::Impl*> engines_;
};

void budget_hook(lua_State* L, lua_Debug*) {
  Engine::Impl& I = impl(L);
  I.instructions += kBudgetStep;
  if (I.instructions > I.instruction_limit) {
    // inside a hook, level 0 is the function that runs too long
    I.exhaust(0,
              "instruction budget exceeded (a hook or procedure runs too long: an endless loop?)");
    kill_hook(L, nullptr);
  }
}

// setmetatable without finalizers: a __gc from content would run outside any budget (at a
// garbage collection or at lua_close, where a loop hangs the process) and could call a saved ctx.
int sandbox_setmetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
  if (t == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L,
                        "setmetatable: a metatable with __gc is not allowed (finalizers would run "
                        "outside the instruction budget)");
    lua_pop(L, 1);
  }
  if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
    return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// xpcall whose message handler does not run once the run is over. An error raised from a Lua
// hook (the budget, time and kill hooks) calls the message handler while hooks are still off,
// so a looping handler would never be stopped: the content's handler is skipped then.
int xpcall_handler(lua_State* L) {
  if (impl(L).exhausted) return 1;  // the kill message, as it is
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int sandbox_xpcall(lua_State* L) {
  const int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushboolean(L, 1);  // the first result
  lua_pushvalue(L, 1);    // the function to call
  lua_rotate(L, 3, 2);    // f, h, true, f, args...
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, xpcall_handler, 1);
  lua_replace(L, 2);  // f, handler, true, f, args...
  if (lua_pcall(L, n - 2, LUA_MULTRET, 2) != LUA_OK) {
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - 2;  // true, results...
}

// ---------------------------------------------------------------- bounded patterns
// Lua's pattern matcher backtracks in C, where no hook can stop it: ("a"):rep(5000) against
// ".-.-.-.-.-.-.-.-b" runs for hours. string.find/match/gmatch/gsub first estimate the worst
// case of the match and refuse a call whose estimate passes kMaxPatternWork steps. With n the
// subject's length: each variable-length item ("*", "+", "-", "%b", a back-reference) may try
// n + 1 lengths for each way the items before it matched, and each "?" two; a last "*", "+" or
// "-" item only scans (nothing after it can fail, unless the pattern ends in "$"); and the whole
// is tried at each of n + 1 starts unless the pattern begins with "^".

double pattern_work(std::string_view p, std::size_t n) {
  const double m = static_cast<double>(n) + 1;
  double work = 1, last = 1;  // the product of the items' factors before the last, the last's
  std::size_t i = 0;
  if (!p.empty() && p[0] == '^')
    i = 1;
  else
    work = m;
  bool end_anchor = false;
  auto skip_set = [&] {  // p[i] == '[': Lua's rules (a ']' right after '[' or '[^' is literal)
    ++i;
    if (i < p.size() && p[i] == '^') ++i;
    do {
      if (i >= p.size()) return;
      if (p[i++] == '%') ++i;
    } while (i < p.size() && p[i] != ']');
    ++i;
  };
  auto item = [&](double factor) { work *= last, last = factor; };
  while (i < p.size()) {
    const char c = p[i];
    if (c == '(' || c == ')') {
      ++i;
      continue;
    }
    if (c == '$' && i + 1 == p.size()) {
      end_anchor = true, ++i;
      continue;
    }
    if (c == '%' && i + 1 < p.size()) {
      const char d = p[i + 1];
      if (d == 'b') {  // a scan that can fail at its end: never only a scan
        item(m), item(1), i += 4;
        continue;
      }
      if (d == 'f') {
        i += 2;
        if (i < p.size() && p[i] == '[') skip_set();
        continue;
      }
      if (d >= '0' && d <= '9') {  // a back-reference: likewise
        item(m), item(1), i += 2;
        continue;
      }
      i += 2;
    } else if (c == '[') {
      skip_set();
    } else {
      ++i;
    }
    double factor = 1;
    if (i < p.size()) {
      if (p[i] == '*' || p[i] == '+' || p[i] == '-')
        factor = m, ++i;
      else if (p[i] == '?')
        factor = 2, ++i;
    }
    item(factor);
  }
  return end_anchor ? work * last : work + m;
}

template <int Kind>  // 0 find, 1 match, 2 gmatch, 3 gsub
int bounded_pattern(lua_State* L) {
  static const char* const names[] = {"find", "match", "gmatch", "gsub"};
  std::size_t n = 0, pn = 0;
  luaL_checklstring(L, 1, &n);
  const char* p = luaL_checklstring(L, 2, &pn);
  const bool plain = Kind == 0 && lua_toboolean(L, 4);
  if (!plain && pattern_work(std::string_view(p, pn), n) > kMaxPatternWork) {
    lua_pushlstring(L, p, std::min<std::size_t>(pn, 40));
    return luaL_error(L,
                      "string.%s: pattern '%s%s' on a subject of %d characters could backtrack for "
                      "too long (limit: about %d steps); use a simpler pattern or a shorter text",
                      names[Kind], lua_tostring(L, -1), pn > 40 ? "..." : "", static_cast<int>(n),
                      static_cast<int>(kMaxPatternWork));
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Installs the bounded pattern functions and setmetatable into the global tables that every
// sandbox copies from (and the string metatable's __index, the global string table).
void install_limits(lua_State* L) {
  lua_getglobal(L, "string");
  const lua_CFunction wrappers[] = {bounded_pattern<0>, bounded_pattern<1>, bounded_pattern<2>,
                                    bounded_pattern<3>};
  const char* const names[] = {"find", "match", "gmatch", "gsub"};
  for (int k = 0; k < 4; ++k) {
    lua_getfield(L, -1, names[k]);
    lua_pushcclosure(L, wrappers[k], 1);
    lua_setfield(L, -2, names[k]);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, sandbox_setmetatable);
  lua_setglobal(L, "setmetatable");
  lua_pushcfunction(L, sandbox_xpcall);
  lua_setglobal(L, "xpcall");
}

// The run's time limit (a procedure run, a setup, loading): the watchdog signals this thread
// once past the deadline.
class TimeLimit {
 public:
  explicit TimeLimit(Engine::Impl& I, double seconds = 0) : I_(I), outer_(running_engine) {
    I.thread = pthread_self();
    I.signalled = false;
    running_engine = &I;
    // the coarse clock is a few milliseconds behind at most, and costs a fraction of the
    // precise one
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    I.time_limit = seconds > 0 ? seconds : I.options.procedure_seconds;
    I.deadline = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec +
                 static_cast<std::int64_t>(I.time_limit * 1e9);
  }
  ~TimeLimit() {
    I_.deadline = 0;
    running_engine = outer_;
    if (I_.signalled && I_.counting == 0 && I_.gate_depth == 0) lua_sethook(I_.L, nullptr, 0, 0);
  }
  TimeLimit(const TimeLimit&) = delete;
  TimeLimit& operator=(const TimeLimit&) = delete;

 private:
  Engine::Impl& I_;
  Engine::Impl* outer_;
};

std::string display_path(const fs::path& p);

// The sandbox of the first Lua function up the stack, the one that raised the error (a C
// function such as `error` or a ctx method is called by it), found by its chunk's file: the
// sandbox whose folder holds it. -1 when none does.
int raising_sandbox(lua_State* L) {
  Engine::Impl& I = impl(L);
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    if (!lua_getinfo(L, "S", &ar)) break;
    if (ar.what[0] == 'C') continue;
    if (ar.source[0] != '@') return -1;
    const std::string_view file(ar.source + 1);
    int found = -1;
    std::size_t longest = 0;
    for (std::size_t i = 0; i < I.sandboxes.size(); ++i) {
      const std::string dir = display_path(I.sandboxes[i].dir) + "/";
      if (dir.size() > longest && file.substr(0, dir.size()) == dir)
        found = static_cast<int>(i), longest = dir.size();
    }
    return found;
  }
  return -1;
}

int message_handler(lua_State* L) {
  std::string attributed;
  switch (attributed_kind(L, 1, &attributed)) {
    case 0:
      impl(L).raised_in = raising_sandbox(L);
      break;
    case -1:  // an attributed error that content caught and raised again: now content's message
      lua_pushstring(L, attributed.c_str());
      lua_replace(L, 1);
      break;
    default:
      return 1;  // an inner gate already said everything
  }
  const char* msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  return 1;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw ContentError(p.string(), 0, "cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string display_path(const fs::path& p) {
  std::error_code ec;
  auto rel = fs::relative(p, fs::current_path(), ec);
  if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) return rel.string();
  return p.string();
}

// (the environments scripts run in: script/sandbox.cpp)

// Loads a Lua file into environment `env_ref` and runs it; leaves its first result on the stack.
void load_file(Engine::Impl& I, const fs::path& path, int env_ref) {
  lua_State* L = I.L;
  const std::string text = read_file(path);
  const std::string chunk = "@" + display_path(path);
  spdlog::debug("loading {}", display_path(path));
  if (luaL_loadbufferx(L, text.data(), text.size(), chunk.c_str(), "t") != LUA_OK) {
    std::string msg = lua_tostring(L, -1);
    lua_pop(L, 1);
    // "file:line: message" -> ContentError with the line. Lua shortens a long file name to
    // ".../tail", so look for the first ":<digits>:" instead of skipping the name's length.
    int line = 0;
    std::size_t text_at = 0;
    for (auto p = msg.find(':'); p != std::string::npos && line == 0; p = msg.find(':', p + 1)) {
      auto q = p + 1;
      while (q < msg.size() && std::isdigit(static_cast<unsigned char>(msg[q]))) ++q;
      if (q > p + 1 && q < msg.size() && msg[q] == ':')
        line = std::atoi(msg.c_str() + p + 1), text_at = q + 1;
    }
    while (text_at < msg.size() && msg[text_at] == ' ') ++text_at;
    throw ContentError(display_path(path), line, "Lua syntax error: " + msg.substr(text_at));
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, env_ref);
  lua_setupvalue(L, -2, 1);
  I.call(0, 1, "loading " + display_path(path), I.options.hook_budget);
}

// ---------------------------------------------------------------- hook registration (Lua)

HookDef read_hook(lua_State* L, Engine::Impl& I, const std::string& file, int line) {
  luaL_checktype(L, 1, LUA_TTABLE);
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const ApiField& f : hook_fields()) k.emplace_back(f.name);  // script/api_doc.cpp
    return k;
  }();
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    const char* k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      throw ContentError(file, line,
                         "unknown key '" + std::string(k) + "' in hook{}" + did_you_mean(k, keys));
  }
  const bool ruleset = I.loading_env == static_cast<int>(I.content->packs.size());
  const std::string pack =
      ruleset ? I.rules.id : I.content->packs[static_cast<std::size_t>(I.loading_env)].id;
  auto field_string = [&](const char* k, bool required) -> std::string {
    lua_getfield(L, 1, k);
    std::string s;
    if (lua_type(L, -1) == LUA_TSTRING)
      s = lua_tostring(L, -1);
    else if (!lua_isnil(L, -1))
      throw ContentError(file, line, std::string("hook '") + k + "' must be a string");
    else if (required)
      throw ContentError(file, line, std::string("hook{} needs '") + k + "'");
    lua_pop(L, 1);
    return s;
  };
  HookDef h;
  h.id = pack + ":" + field_string("id", true);
  h.window = I.bus.require(field_string("window", true), file, line);
  h.source_name = field_string("source", false);
  if (!h.source_name.empty()) h.source = I.content->require_record(h.source_name, {}, file, line);
  h.pack = pack;
  h.file = file;
  h.line = line;
  h.pack_order = I.loading_env;
  h.registration = I.registration++;
  lua_getfield(L, 1, "optional");
  h.optional = lua_toboolean(L, -1);
  lua_getfield(L, 1, "discard");
  h.discard = lua_toboolean(L, -1);
  lua_getfield(L, 1, "priority");
  h.priority = static_cast<int>(lua_tointeger(L, -1));
  lua_pop(L, 3);
  if (std::string limit = field_string("limit", false); !limit.empty()) {
    if (!I.rules.has_scope(limit))
      throw ContentError(file, line,
                         "limit '" + limit + "' is not a scope of the ruleset" +
                             did_you_mean(limit, I.rules.scopes));
    h.limit = sym(limit);
  }
  h.use_key = sym("used:" + h.id);
  lua_getfield(L, 1, "requires");
  if (!lua_isnil(L, -1)) {
    const int t = lua_gettop(L);
    auto bad = [&](const std::string& why) {
      throw ContentError(file, line,
                         "hook '" + h.id + "': 'requires' " + why +
                             " (requires = { counter = \"trade_goods\", at_least = 2 })");
    };
    if (!lua_istable(L, t)) bad("must be a table");
    if (h.source < 0) bad("needs a source: the counter is its owner's, and a rule has none");
    lua_pushnil(L);
    while (lua_next(L, t)) {
      lua_pop(L, 1);
      const char* k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
      if (std::string_view(k) != "counter" && std::string_view(k) != "at_least")
        bad("has an unknown key '" + std::string(k) + "' (keys: counter, at_least)");
    }
    lua_getfield(L, t, "counter");
    if (lua_type(L, -1) != LUA_TSTRING) bad("needs 'counter', a string");
    h.requires_counter = sym(lua_tostring(L, -1));
    lua_getfield(L, t, "at_least");
    if (!lua_isnil(L, -1)) {
      if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > INT32_MAX)
        bad("'at_least' must be a whole number from 1");
      h.requires_at_least = static_cast<std::int32_t>(lua_tointeger(L, -1));
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  lua_getfield(L, 1, "condition");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1))
      throw ContentError(file, line, "hook 'condition' must be a function");
    if (I.options.check_state) guard_hook_function(I, I.loading_env);
    h.condition = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, 1, "helps");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1)) throw ContentError(file, line, "hook 'helps' must be a function");
    if (!h.optional)
      throw ContentError(file, line,
                         "hook '" + h.id +
                             "' has 'helps' but is not optional: only a \"may\" is the "
                             "policy's to decide");
    if (I.options.check_state) guard_hook_function(I, I.loading_env);
    h.helps = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, 1, "covered");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1)) throw ContentError(file, line, "hook 'covered' must be a function");
    if (I.options.check_state) guard_hook_function(I, I.loading_env);
    h.covered = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, 1, "apply");
  if (!lua_isfunction(L, -1))
    throw ContentError(file, line, "hook '" + h.id + "' needs an 'apply' function");
  if (I.options.check_state) guard_hook_function(I, I.loading_env);
  h.apply = luaL_ref(L, LUA_REGISTRYINDEX);
  return h;
}

int lua_register_hook(lua_State* L) {
  Engine::Impl& I = impl(L);
  lua_Debug ar;
  std::string file = "?";
  int line = 0;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar)) {
    file = ar.source[0] == '@' ? ar.source + 1 : ar.short_src;  // the whole file name
    line = ar.currentline;
  }
  if (!I.loading)
    throw ContentError(file, line, "hook{} called after loading ended: registrations are frozen");
  I.bus.add(read_hook(L, I, file, line));
  return 0;
}

}  // namespace

// ---------------------------------------------------------------- the call gate

void Engine::Impl::exhaust(int level, const std::string& message) {
  luaL_where(L, level);
  kill_message = lua_tostring(L, -1) + message;
  lua_pop(L, 1);
  exhausted = true;
  lua_sethook(L, kill_hook, kKillMask, 1);
}

void Engine::Impl::raise_exhausted() {
  kill_hook(L, nullptr);
}

int Engine::Impl::protected_call(int nargs, int nresults, std::int64_t budget) {
  const int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, message_handler);
  lua_insert(L, base);
  const std::int64_t saved_limit = instruction_limit;
  const bool counted = budget != kTimeLimited;
  if (counted) {
    // content (hooks, policies, setup, loading) is counted: a deterministic instruction budget
    instruction_limit = std::min(saved_limit > 0 ? saved_limit : INT64_MAX, instructions + budget);
    if (counting++ == 0 && !exhausted) lua_sethook(L, budget_hook, LUA_MASKCOUNT, kBudgetStep);
  }
  if (gate_depth++ == 0) killed = false;
  int status = LUA_ERRRUN;
  if (!exhausted) {
    status = lua_pcall(L, nargs, nresults, base);
  } else {  // the run is over: a C++ caller that went on does not start more content
    lua_settop(L, base);
    lua_pushlstring(L, kill_message.data(), kill_message.size());
  }
  --gate_depth;
  if (counted) {
    instruction_limit = saved_limit;
    --counting;
  }
  if (exhausted) {
    if (status == LUA_OK) {  // content caught the error and returned: it is an error still
      lua_settop(L, base);
      lua_pushlstring(L, kill_message.data(), kill_message.size());
      status = LUA_ERRRUN;
    }
    if (gate_depth == 0) {  // back in the runtime: the next call starts afresh
      exhausted = false;
      killed = true;  // (fail() still reads the kill message as the runtime's)
      lua_sethook(L, nullptr, 0, 0);
    } else {
      lua_sethook(L, kill_hook, kKillMask, 1);  // still inside content: keep raising
    }
  } else if (counted && counting == 0) {
    const std::int64_t d = deadline.load(std::memory_order_relaxed);
    if (d != 0 && now_ns() > d)
      lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);  // the run is over time
    else
      lua_sethook(L, nullptr, 0, 0);
  }
  lua_remove(L, base);
  return status;
}

void Engine::Impl::fail(int status, const std::string& what) {
  // The attribution is the runtime's: an error object only it makes, raised by this call, or
  // else `what` (the call this gate made). No text content writes is taken for an attribution.
  std::string attributed;
  const int kind = attributed_kind(L, -1, &attributed);
  std::string msg = kind                             ? attributed
                    : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                     : "(error object is not a string)";
  lua_pop(L, 1);
  if (kind > 0) {
    consume_attributed(L);
    if (exhausted) kill_message = std::string(1, kKilled) + char(kind) + msg;  // raised again
    killed = false;
    if (kind == 'C') throw ContentError("", 0, msg);
    throw ScriptError(msg);
  }
  // a kill message raised again by an outer gate: only the runtime makes one, and only once
  // the run is over, when content can no longer run to forge it (the outermost gate has just
  // ended the run: `killed`)
  if ((exhausted || killed) && msg.size() > 1 && msg[0] == kKilled) {
    killed = false;
    kill_message = msg;
    if (msg[1] == 'C') throw ContentError("", 0, msg.substr(2));
    throw ScriptError(msg.substr(2));
  }
  if (status == LUA_ERRMEM)
    msg = "out of memory (the Lua state may hold " + std::to_string(options.memory_limit >> 20) +
          " MiB)";
  // An error raised by a function of another pack than the one called (its metamethod or a
  // function it handed over) is that pack's: blame it, and say which call ran its code. The
  // ruleset's library raising on a hook's behalf stays the hook's.
  const int raised = raised_in;
  raised_in = -1;
  killed = false;
  const int ruleset = static_cast<int>(sandboxes.size()) - 1;
  const int called = loading ? loading_env : hook_viewer >= 0 ? hook_viewer : ruleset;
  const std::string blame = raised >= 0 && raised != called && raised != ruleset
                                ? sandboxes[static_cast<std::size_t>(raised)].owner +
                                      " (its function, run in " + what + ")"
                                : what;
  // a limit exceeded in an inner call: outer gates raise this message again, naming this call
  if (exhausted) kill_message = std::string(1, kKilled) + "S" + blame + ": " + msg;
  throw ScriptError(blame + ": " + msg);
}

Engine::Impl::Impl(std::shared_ptr<const Content> c, EngineOptions o)
    : content(std::move(c)), rules(content->ruleset), options(o) {
  L = lua_newstate(limited_alloc, this);
  if (!L) throw Error("cannot create a Lua state");
  *static_cast<Impl**>(lua_getextraspace(L)) = this;
  luaL_openlibs(L);
  install_fixed_order(L);  // before the sandboxes copy pairs, next, tostring and string.format
  install_limits(L);
  Watchdog::get().add(this);  // `owner` takes it off again, also when loading throws
  TimeLimit limit(*this);     // loading is under the run's time limit too
  // strings share one metatable: take string.dump away from it too
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  s_unit = sym(rules.unit_kind);
  for (const std::string& scope : rules.scopes) scope_syms.push_back(sym(scope));
  s_player = sym("player");
  s_active_player = sym("active_player");
  for (const auto& [name, report] : rules.reports)
    for (const std::string& side : report.sides) role_names.push_back(side);

  lua_newtable(L);
  symcache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  player_policy_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  spec_anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  make_ctx(*this);  // ctx, read-only, and the shared metatables, protected

  for (const auto& w : rules.windows) bus.declare(w);
  for (const HookDef& h : content->hooks) bus.add(h);  // declarative hooks from TOML

  // sandboxes: one per pack, then the ruleset's, whose modules a pack may require
  make_sandboxes(*this);
  for (int ref : env_refs) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushcfunction(L, guarded<lua_register_hook>);
    lua_setfield(L, -2, "hook");
    lua_pop(L, 1);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, env_refs.back());  // every environment is built alike
  for (const std::string& name : table_keys(L, -1)) {
    lua_getfield(L, -1, name.c_str());
    sandbox_globals[name] =
        lua_istable(L, -1) && name != "_G" ? table_keys(L, -1) : std::vector<std::string>{};
    lua_pop(L, 1);
  }
  lua_pop(L, 1);

  const int ruleset_env = env_refs.back();
  loading_env = static_cast<int>(content->packs.size());
  for (const auto& [name, path] : rules.procedures) {
    load_file(*this, path, ruleset_env);
    if (!lua_istable(L, -1))
      throw ContentError(display_path(path), 0,
                         "a procedure file must return a table with a run(ctx) function");
    lua_getfield(L, -1, "run");
    if (!lua_isfunction(L, -1))
      throw ContentError(display_path(path), 0,
                         "procedure '" + name + "' has no run(ctx) function");
    Procedure proc{name, luaL_ref(L, LUA_REGISTRYINDEX), {}, {}};
    if (auto it = rules.reports.find(name); it != rules.reports.end())
      for (const std::string& o : it->second.outcomes)
        proc.outcomes.push_back(o), proc.outcome_syms.push_back(sym(o));
    procedures.push_back(std::move(proc));
    lua_pop(L, 1);
  }
  if (!rules.setup.empty()) {
    load_file(*this, rules.setup, ruleset_env);
    if (!lua_isfunction(L, -1))
      throw ContentError(display_path(rules.setup), 0,
                         "the setup file must return a function(ctx, scenario)");
    setup_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  if (!rules.policies.empty()) {
    load_file(*this, rules.policies, ruleset_env);
    if (!lua_istable(L, -1))
      throw ContentError(display_path(rules.policies), 0,
                         "the policies file must return a table of decision -> function");
    policies_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  for (std::size_t i = 0; i < content->packs.size(); ++i) {
    loading_env = static_cast<int>(i);
    registration = 100000;  // after the pack's TOML hooks
    for (const fs::path& script : content->packs[i].scripts) {
      load_file(*this, script, env_refs[i]);
      lua_pop(L, 1);
    }
  }
  // modifiers that do hooks' work in the runtime's own rounds (replaces_hooks)
  for (std::size_t mi = 0; mi < content->modifiers.size(); ++mi) {
    const ModifierDef& m = content->modifiers[mi];
    for (const std::string& id : m.replaces_hooks)
      if (!bus.replace_hook(m.pack + ":" + id, static_cast<int>(mi)))
        throw ContentError(m.file, m.line,
                           "modifier '" + m.id + "': replaces_hooks names '" + id +
                               "', which is no hook of pack '" + m.pack + "'");
  }
  loading = false;
  freeze_sandboxes(*this);
  bus.freeze();
  spdlog::debug("ruleset {}: {} procedures, {} windows, {} hooks registered and frozen", rules.id,
                procedures.size(), bus.windows().size(), bus.hooks().size());
}

Engine::Impl::~Impl() = default;

Engine::Impl::Owner::~Owner() {
  Watchdog::get().remove(I);
  if (!I->L) return;
  // no finalizer runs content at close (sandbox_setmetatable refuses them; this is the backstop)
  I->exhausted = true;
  I->kill_message = "the Lua state is closing";
  lua_sethook(I->L, kill_hook, kKillMask, 1);
  lua_close(I->L);
  I->L = nullptr;
}

void Engine::Impl::reset_specs() {
  spec_index.clear();
  spec_slots.fill({});
  roll_specs.clear();
  casualty_specs.clear();
  orders.clear();
  exchange_specs.clear();
  lua_newtable(L);
  lua_rawseti(L, LUA_REGISTRYINDEX, spec_anchor_ref);
}

void Engine::Impl::begin_run() {
  pool_base = next_pool_base;  // handles of earlier runs stay invalid
  pools_used = 0;
  run_dice = 0;
  if (spec_index.size() > kSpecCacheKeep) reset_specs();
}

int Engine::Impl::take_best_pick(EntityId player, std::uint32_t n,
                                 const std::vector<std::string>* words) {
  if (!best_picking(player) || n < 2) return -1;
  const auto& picks = run_options->best_picks->picks;
  if (best_pick_next >= picks.size())
    throw ScriptError("best play with fixed dice: " + name_of(player) +
                      " has more decisions in this run than in the exact mode's (" +
                      std::to_string(picks.size()) + ")");
  const RunOptions::BestPicks::Pick& p = picks[best_pick_next++];
  const std::string what = "best play with fixed dice: decision " + std::to_string(best_pick_next) +
                           " of " + name_of(player);
  if (p.k >= n || p.values.size() != n)
    throw ScriptError(what + " has " + std::to_string(n) + " options here, " +
                      std::to_string(p.values.size()) + " in the exact mode's run");
  std::uint32_t k = p.k;
  if (words && words->size() == n + 1 && p.k < p.options.size()) {
    // the option with the pick's words, here
    k = n;
    std::uint32_t same = 0;
    for (std::uint32_t i = 0; i < n; ++i)
      if ((*words)[i + 1] == p.options[p.k]) k = i, ++same;
    if (k == n) throw ScriptError(what + ": no option here is '" + p.options[p.k] + "'");
    if (same > 1)
      throw ScriptError(what + ": " + std::to_string(same) + " options here are '" +
                        p.options[p.k] + "' (units of one type that differ otherwise)");
  }
  if (tracing()) {
    auto word = [&](std::size_t i) {
      return i < p.options.size() ? p.options[i] : "option " + std::to_string(i + 1);
    };
    // every option's value, the best first (equal ones in the exact mode's order)
    std::vector<std::size_t> order(p.values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::round(p.values[a] * 1e10) > std::round(p.values[b] * 1e10);
    });
    std::string values;
    for (std::size_t i : order)
      values += (values.empty() ? "" : ", ") + word(i) + ": " +
                (run_options->best_picks->percent ? fmt::format("{:.4f}%", 100 * p.values[i])
                                                  : fmt::format("{:.6f}", p.values[i]));
    const std::string name = name_of(player);
    trace->add(
        EventKind::decision, "best:" + name + ":" + p.decision + ":" + word(p.k),
        name + "'s best play (" + p.decision + "): " + values + " (takes " + word(p.k) + ")");
  }
  return static_cast<int>(k);
}

void Engine::Impl::forget_memos() {
  reads_no_state.clear();
  for (const auto& m : steps_memos)
    for (int r : m->refs) luaL_unref(L, LUA_REGISTRYINDEX, r);
  steps_memos.clear();
}

void Engine::Impl::push_ctx() {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref);
}

Pool& Engine::Impl::new_pool() {
  if (pools_used == kMaxRunPools) {
    if (exact && exact->limit.empty())  // (a run of one step: Engine::run_exact says what it is)
      exact->limit = "one run of a step rolled more than " + std::to_string(kMaxRunPools) +
                     " pools of dice: rounds that loop inside one step never end when every die "
                     "misses (make each round a step that returns \"again\")";
    luaL_error(L, "more than %d pools of dice in one run", static_cast<int>(kMaxRunPools));
  }
  if (pools_used == pools.size()) {
    pools.push_back(std::make_unique<Pool>());
    pool_depth.push_back(0), pool_window.push_back(0);
  }
  if (window_serial.size() <= static_cast<std::size_t>(depth))
    window_serial.resize(static_cast<std::size_t>(depth) + 1);
  pool_depth[pools_used] = depth;
  pool_window[pools_used] = window_serial[static_cast<std::size_t>(depth)];
  Pool& p = *pools[pools_used++];
  p.clear();
  next_pool_base = pool_base + pools_used;
  return p;
}

std::string Engine::Impl::name_of(EntityId e) const {
  if (!state || !state->valid(e)) return e == kNoEntity ? "nobody" : "?";
  return std::string(sym_name(state->at(e).type));
}

// The state guard: a run must leave what scripts could keep as it found it.
static void check_kept_state(Engine::Impl& I, const StateSnapshot& before,
                             const std::string& procedure) {
  const std::vector<std::string> changes = state_changes(before, snapshot_state(I));
  if (changes.empty()) return;
  std::string msg = "a script keeps state between runs (procedure '" + procedure +
                    "'; scripts keep nothing between calls: keep what must be remembered in the "
                    "game state, as counters or flags):";
  for (std::size_t i = 0; i < changes.size() && i < 10; ++i) msg += "\n  " + changes[i];
  if (changes.size() > 10) msg += "\n  and " + std::to_string(changes.size() - 10) + " more";
  throw ScriptError(msg);
}

// ---------------------------------------------------------------- Engine

Engine::Engine(std::shared_ptr<const Content> content, EngineOptions options)
    : impl_(std::make_unique<Impl>(std::move(content), options)) {}
Engine::~Engine() = default;

const Content& Engine::content() const {
  return *impl_->content;
}
const EventBus& Engine::bus() const {
  return impl_->bus;
}

namespace {

void push_toml(lua_State* L, const toml::node& n, const std::string& path,
               std::vector<std::pair<std::string, int>>& lines) {
  lines.emplace_back(path, static_cast<int>(n.source().begin.line));
  // one table a level: the depth is bounded when the file is read (kMaxTomlDepth), and the
  // stack is checked all the same, for a table built by other means
  luaL_checkstack(L, 3, "a scenario value nested too deep");
  if (n.is_table()) {
    lua_newtable(L);
    for (auto&& [k, v] : *n.as_table()) {
      push_toml(L, v, path.empty() ? std::string(k.str()) : path + "." + std::string(k.str()),
                lines);
      lua_setfield(L, -2, std::string(k.str()).c_str());
    }
  } else if (n.is_array()) {
    lua_newtable(L);
    int i = 1;
    for (const toml::node& v : *n.as_array()) {
      push_toml(L, v, path + "." + std::to_string(i), lines);
      lua_rawseti(L, -2, i++);
    }
  } else if (n.is_string()) {
    lua_pushstring(L, std::string(n.as_string()->get()).c_str());
  } else if (n.is_integer()) {
    lua_pushinteger(L, n.as_integer()->get());
  } else if (n.is_floating_point()) {
    lua_pushnumber(L, n.as_floating_point()->get());
  } else if (n.is_boolean()) {
    lua_pushboolean(L, n.as_boolean()->get());
  } else {
    lua_pushnil(L);
  }
}

}  // namespace

void Engine::setup(const toml::table& scenario, const std::string& file, State& state,
                   const fs::path& source) {
  Impl& I = *impl_;
  if (I.setup_ref == LUA_NOREF)
    throw ContentError(
        file, 0, "ruleset '" + I.rules.id + "' has no setup script, so it cannot read scenarios");
  lua_State* L = I.L;
  TimeLimit limit(I);  // setup is under the run's time limit too
  I.begin_run();
  I.forget_memos();  // a new start state, scenario and policies
  I.labels.clear();
  state = State();
  I.state = &state;
  I.liveness_dirty = true;
  I.trace = nullptr;
  I.dice.seed(0, 0);
  I.scenario_file = file;
  I.scenario_source = source;
  I.scenario_lines.clear();
  I.live_error = 0;
  lua_newtable(L);
  lua_rawseti(L, LUA_REGISTRYINDEX, I.player_policy_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.setup_ref);
  I.push_ctx();
  push_toml(L, scenario, "", I.scenario_lines);
  lua_pushvalue(L, -1);
  if (I.scenario_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, I.scenario_ref);
  I.scenario_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  // while setup runs, ctx:record remembers what it did not find (for ctx:reject's message)
  struct InSetup {
    Impl& I;
    explicit InSetup(Impl& i) : I(i) {
      I.in_setup = true;
      I.setup_misses.clear();
    }
    ~InSetup() { I.in_setup = false; }
  } in_setup(I);
  I.call(2, 0, "setup of " + file, I.options.hook_budget);  // ctx:reject() raises a ContentError
  I.state = nullptr;
}

const std::vector<std::pair<std::string, std::string>>& Engine::labels() const {
  return impl_->labels;
}
const std::vector<int>& Engine::damaged_attributes() const {
  return impl_->damaged_attributes;
}

std::size_t Engine::memo_nodes() const {
  std::size_t n = 0;
  for (const auto& m : impl_->steps_memos) n += m->memo.nodes();
  return n;
}

std::size_t Engine::memo_execute_only() const {
  std::size_t n = 0;
  for (const auto& m : impl_->steps_memos) n += m->memo.execute_only();
  return n;
}

std::size_t Engine::memo_steps_run() const {
  std::size_t n = 0;
  for (const auto& m : impl_->steps_memos) n += m->memo.steps_run();
  return n;
}

std::size_t Engine::memo_bytes() const {
  std::size_t n = 0;
  for (const auto& m : impl_->steps_memos) n += m->memo.bytes();
  return n;
}

void Engine::run(std::string_view procedure, State& state, const RunOptions& options,
                 RunResult& result) {
  Impl& I = *impl_;
  const Impl::Procedure* proc = nullptr;
  for (const auto& p : I.procedures)
    if (p.name == procedure) proc = &p;
  if (!proc) {
    std::vector<std::string> names;
    for (const auto& p : I.procedures) names.push_back(p.name);
    throw UsageError("ruleset '" + I.rules.id + "' has no procedure '" + std::string(procedure) +
                     "'" + did_you_mean(procedure, names));
  }
  I.state = &state;
  I.trace = options.trace;
  I.result = &result;
  I.run_options = &options;
  I.procedure = proc;
  I.begin_run();
  I.depth = 0;
  I.liveness_dirty = true;
  I.dice.seed(options.seed, options.run);
  I.live_error = 0;  // an error object kept from an earlier run is no longer the runtime's
  // the step memo replays what it saw: only where a run is a function of its state and its
  // stream (no trace to write, no forced dice, no scripted or interactive answers, no check)
  I.memo_run = I.options.memo && !(options.trace && options.trace->enabled) &&
               options.forced.empty() && !options.strict_dice &&
               !(options.answers && !options.answers->empty()) && !I.options.interactive &&
               !I.options.check_state;
  if (!options.forced.empty() || options.strict_dice)
    I.dice.force(options.forced, options.strict_dice);
  I.best_pick_next = 0;
  result.clear();
  // the time limit of this run, kept by the watchdog
  TimeLimit limit(I);
  struct Reset {
    Impl& I;
    ~Reset() { I.state = nullptr, I.result = nullptr, I.run_options = nullptr, I.trace = nullptr; }
  } reset{I};
  lua_State* L = I.L;
  std::optional<StateSnapshot> before;
  if (I.options.check_state) before = snapshot_state(I);
  lua_rawgeti(L, LUA_REGISTRYINDEX, proc->ref);
  I.push_ctx();
  try {
    I.call(1, 0, I.options.procedure_budget > 0 ? I.options.procedure_budget : Impl::kTimeLimited,
           [&] { return "procedure '" + std::string(procedure) + "'"; });
  } catch (const Error& e) {
    if (I.tracing()) I.trace->add(EventKind::error, "error", e.what());
    result.forced_used = I.dice.forced_used();
    result.forced_left = I.dice.forced_left();
    throw;
  }
  result.forced_used = I.dice.forced_used();
  result.forced_left = I.dice.forced_left();
  if (options.answers) result.unused_answers = options.answers->unused();
  if (lua_gettop(L) != 0) lua_settop(L, 0);
  if (before) check_kept_state(I, *before, std::string(procedure));
}

ExactResult Engine::run_exact(std::string_view procedure, const State& start,
                              const ExactRunOptions& o) {
  Impl& I = *impl_;
  const Impl::Procedure* proc = nullptr;
  for (const auto& p : I.procedures)
    if (p.name == procedure) proc = &p;
  if (!proc)
    throw UsageError("ruleset '" + I.rules.id + "' has no procedure '" + std::string(procedure) +
                     "'");
  if (I.options.interactive)
    throw UsageError("the exact mode enumerates every run: interactive decisions are refused");
  auto best_role = [&](Sym role) {
    const EntityId p = role == kNoSym ? kNoEntity : start.role(role);
    if (role != kNoSym && p == kNoEntity)
      throw UsageError("best play: the start state has no player in the role '" +
                       std::string(sym_name(role)) + "'");
    return p;
  };
  const EntityId best = best_role(o.best), second = best_role(o.best_second);
  State state = start;
  RunResult result;
  RunOptions options;
  I.state = &state;
  I.trace = nullptr;
  I.result = &result;
  I.run_options = &options;
  I.procedure = proc;
  I.begin_run();
  I.depth = 0;
  I.liveness_dirty = true;
  I.dice.seed(1, 0);
  I.live_error = 0;
  I.memo_run = false;
  I.exact = std::make_unique<Impl::Exact>();
  I.exact->options = o;
  I.exact->best = {best, second};
  TimeLimit limit(I, o.seconds);  // an exploration is many runs: its own limit
  struct Reset {
    Impl& I;
    ~Reset() {
      I.state = nullptr, I.result = nullptr, I.run_options = nullptr, I.trace = nullptr;
      I.memo_writes = nullptr;
      I.dice.stop_exact();
      I.exact.reset();
    }
  } reset{I};
  lua_State* L = I.L;
  lua_pushcfunction(L, guarded<exact_root>);
  lua_rawgeti(L, LUA_REGISTRYINDEX, proc->ref);
  try {
    I.call(1, 0, Impl::kTimeLimited,
           [&] { return "procedure '" + std::string(procedure) + "' (exact mode)"; });
  } catch (const Error&) {
    if (!I.exact->limit.empty()) throw ExactLimit(I.exact->limit);
    // past the deadline (the watchdog's signal, or a call gate that saw the time first)
    if (const std::int64_t d = I.deadline.load(); I.signalled.load() || (d != 0 && now_ns() > d))
      throw ExactLimit("the exact mode ran past its time limit of " +
                       fmt::format("{:g}", o.seconds) + " s");
    throw;
  }
  if (lua_gettop(L) != 0) lua_settop(L, 0);
  Impl::Exact& X = *I.exact;
  if (!X.limit.empty()) throw ExactLimit(X.limit);
  ExactResult r;
  const ExactChain& chain = X.chain;
  for (std::uint32_t i = 0; i < chain.size(); ++i) {
    const ExactNode& n = chain.at(i);
    const double p = X.solution.reach[i];
    if (n.step != X.steps || !(p > 0)) continue;
    r.finals.push_back({p, n.state, n.writes.outcome, n.writes.outcome_name, n.writes.sets});
  }
  r.added = X.solution.added;
  r.unresolved = X.solution.unresolved;
  r.states = chain.size();
  r.leaves =
      X.stats.leaves - X.stats.replayed;  // the steps run (best play files some leaves without)
  r.cycles = X.solution.sets;
  r.largest_cycle = X.solution.largest_set;
  r.best = X.best_result;
  r.best_picks = std::move(X.picks);
  if (r.best) {
    // the first decisions' states, by index into decision_states; their chance from the start
    std::unordered_map<std::uint32_t, std::uint32_t> index;
    auto state_of = [&](std::uint32_t node) {
      auto [it, added] = index.emplace(node, static_cast<std::uint32_t>(r.decision_states.size()));
      if (added) r.decision_states.push_back(chain.at(node).state);
      return it->second;
    };
    for (BestDecision& d : r.best->decisions) {
      d.p *= d.node < X.solution.reach.size() ? X.solution.reach[d.node] : 0;
      d.node = state_of(d.node);
      for (BestDecision::Option& op : d.options) op.to = state_of(op.to);
    }
    for (BestPlay::WalkStep& w : r.best->walk) {
      w.from = state_of(w.from), w.to = state_of(w.to);
      for (BestDecision& d : w.decisions) {
        d.node = state_of(d.node);
        for (BestDecision::Option& op : d.options) op.to = state_of(op.to);
      }
    }
  }
  return r;
}

}  // namespace rb
