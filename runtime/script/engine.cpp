#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <cctype>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "base/error.hpp"
#include "base/text.hpp"
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

void stop_hook(lua_State* L, lua_Debug*) {
  lua_sethook(L, nullptr, 0, 0);
  luaL_where(L, 0);
  lua_pushfstring(L, "time limit exceeded (the procedure ran longer than %d s: an endless loop?)",
                  static_cast<int>(impl(L).options.procedure_seconds));
  lua_concat(L, 2);
  lua_error(L);
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
    luaL_where(L, 0);  // inside a hook, level 0 is the function that runs too long
    lua_pushliteral(
        L, "instruction budget exceeded (a hook or procedure runs too long: an endless loop?)");
    lua_concat(L, 2);
    lua_error(L);
  }
}

int message_handler(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  if (msg && msg[0] == kFormatted) return 1;  // an inner gate already said everything
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

// ---------------------------------------------------------------- sandbox

int sandbox_print(lua_State* L) {
  Engine::Impl& I = impl(L);
  std::string line;
  for (int i = 1; i <= lua_gettop(L); ++i) {
    if (i > 1) line += '\t';
    line += luaL_tolstring(L, i, nullptr);
    lua_pop(L, 1);
  }
  if (I.tracing()) I.trace->add(EventKind::note, "print", line);
  return 0;
}

int sandbox_random(lua_State* L) {
  Engine::Impl& I = impl(L);
  const int n = lua_gettop(L);
  if (n == 0) {
    lua_pushnumber(L, I.dice.uniform());
    return 1;
  }
  lua_Integer lo = 1, hi;
  if (n == 1)
    hi = luaL_checkinteger(L, 1);
  else
    lo = luaL_checkinteger(L, 1), hi = luaL_checkinteger(L, 2);
  luaL_argcheck(L, lo <= hi && hi - lo < 0xFFFFFFFF, n, "interval is empty or too large");
  lua_pushinteger(
      L, lo + static_cast<lua_Integer>(I.dice.below(static_cast<std::uint32_t>(hi - lo + 1))));
  return 1;
}

int sandbox_randomseed(lua_State* L) {
  return luaL_error(L,
                    "math.randomseed is not available: the runtime's dice are the only randomness");
}

// Loads module `name` ("a.b" -> a/b.lua) into the environment at absolute index `env`: from its
// own folder, else from its __parent's (a pack's parent is the ruleset, whose modules are loaded
// once into the ruleset's environment and shared). Pushes the module; false when no file.
bool require_in(lua_State* L, int env, const char* name, const std::string& rel) {
  lua_getfield(L, env, "__loaded");
  if (lua_getfield(L, -1, name) != LUA_TNIL) {
    lua_remove(L, -2);
    return true;
  }
  lua_pop(L, 2);
  lua_getfield(L, env, "__dir");
  const fs::path path = fs::path(lua_tostring(L, -1)) / (rel + ".lua");
  lua_pop(L, 1);
  if (!fs::is_regular_file(path)) {
    if (lua_getfield(L, env, "__parent") != LUA_TTABLE) {
      lua_pop(L, 1);
      return false;
    }
    const int parent = lua_gettop(L);
    const bool found = require_in(L, parent, name, rel);
    lua_remove(L, parent);
    return found;
  }
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& e) {
    luaL_error(L, "%s", e.what());
  }
  const std::string chunk = "@" + display_path(path);
  if (luaL_loadbufferx(L, text.data(), text.size(), chunk.c_str(), "t") != LUA_OK) lua_error(L);
  lua_pushvalue(L, env);
  lua_setupvalue(L, -2, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) lua_pop(L, 1), lua_pushboolean(L, 1);
  lua_getfield(L, env, "__loaded");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  return true;
}

// require inside a pack: a module of the pack, else of its ruleset (scripts/<game>/).
int sandbox_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  std::string rel = name;
  if (rel.find("..") != std::string::npos || rel.find('/') != std::string::npos)
    return luaL_error(L, "require '%s': module names are dotted names inside the pack", name);
  for (char& c : rel)
    if (c == '.') c = '/';
  if (require_in(L, lua_upvalueindex(1), name, rel)) return 1;
  return luaL_error(L, "require '%s': no file %s.lua in this pack or its ruleset", name,
                    rel.c_str());
}

void copy_fields(lua_State* L, int from, int to, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    lua_getfield(L, from, n);
    lua_setfield(L, to, n);
  }
}

// Builds a sandboxed environment for scripts in `dir` and leaves it on the stack.
void push_sandbox(lua_State* L, const fs::path& dir) {
  lua_newtable(L);
  const int env = lua_gettop(L);
  lua_pushglobaltable(L);
  const int g = lua_gettop(L);
  copy_fields(L, g, env,
              {"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
               "rawlen", "rawset", "select", "setmetatable", "getmetatable", "tonumber", "tostring",
               "type", "xpcall", "_VERSION"});
  lua_pushcfunction(L, sandbox_print);
  lua_setfield(L, env, "print");
  for (const char* lib : {"string", "table", "math", "utf8"}) {
    lua_newtable(L);
    lua_getfield(L, g, lib);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, -5);
    }
    lua_pop(L, 1);
    lua_setfield(L, env, lib);
  }
  lua_getfield(L, env, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  lua_getfield(L, env, "math");
  lua_pushcfunction(L, sandbox_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, sandbox_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  lua_newtable(L);
  lua_setfield(L, env, "__loaded");
  lua_pushstring(L, dir.string().c_str());
  lua_setfield(L, env, "__dir");
  lua_pushvalue(L, env);
  lua_pushcclosure(L, sandbox_require, 1);
  lua_setfield(L, env, "require");
  lua_pushvalue(L, env);
  lua_setfield(L, env, "_G");
  lua_pop(L, 1);  // global table
}

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
  static const std::vector<std::string> keys{"id",    "window",   "source",  "optional",
                                             "limit", "priority", "discard", "condition",
                                             "apply", "text"};
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
  lua_getfield(L, 1, "condition");
  if (!lua_isnil(L, -1)) {
    if (!lua_isfunction(L, -1))
      throw ContentError(file, line, "hook 'condition' must be a function");
    h.condition = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, 1, "apply");
  if (!lua_isfunction(L, -1))
    throw ContentError(file, line, "hook '" + h.id + "' needs an 'apply' function");
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

int Engine::Impl::protected_call(int nargs, int nresults, std::int64_t budget) {
  const int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, message_handler);
  lua_insert(L, base);
  const std::int64_t saved_limit = instruction_limit;
  const bool counted = budget != kTimeLimited;
  if (counted) {
    // content (hooks, policies, setup, loading) is counted: a deterministic instruction budget
    instruction_limit = std::min(saved_limit > 0 ? saved_limit : INT64_MAX, instructions + budget);
    if (counting++ == 0) lua_sethook(L, budget_hook, LUA_MASKCOUNT, kBudgetStep);
  }
  const int status = lua_pcall(L, nargs, nresults, base);
  if (counted) {
    instruction_limit = saved_limit;
    if (--counting == 0) {
      const std::int64_t d = deadline.load(std::memory_order_relaxed);
      if (d != 0 && now_ns() > d)
        lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);  // the run is over time
      else
        lua_sethook(L, nullptr, 0, 0);
    }
  }
  lua_remove(L, base);
  return status;
}

void Engine::Impl::fail(int status, const std::string& what) {
  std::string msg =
      lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(error object is not a string)";
  lua_pop(L, 1);
  if (msg.size() > 1 && msg[0] == kFormatted) {
    if (msg[1] == 'C') throw ContentError("", 0, msg.substr(2));
    throw ScriptError(msg.substr(2));
  }
  if (status == LUA_ERRMEM)
    msg = "out of memory (the Lua state may hold " + std::to_string(options.memory_limit >> 20) +
          " MiB)";
  throw ScriptError(what + ": " + msg);
}

Engine::Impl::Impl(std::shared_ptr<const Content> c, EngineOptions o)
    : content(std::move(c)), rules(content->ruleset), options(o) {
  L = lua_newstate(limited_alloc, this);
  if (!L) throw Error("cannot create a Lua state");
  *static_cast<Impl**>(lua_getextraspace(L)) = this;
  luaL_openlibs(L);
  Watchdog::get().add(this);
  // strings share one metatable: take string.dump away from it too
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  s_unit = sym(rules.unit_kind);
  for (const std::string& scope : rules.scopes) scope_syms.push_back(sym(scope));
  s_player = sym("player");
  s_active_player = sym("active_player");

  lua_newtable(L);
  symcache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  player_policy_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  spec_anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  // ctx: one table holding the api functions, so that ctx:method() is a plain field lookup
  lua_newtable(L);
  register_state_api(L);
  register_dice_api(L);
  register_flow_api(L);
  register_board_api(L);
  ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  for (const auto& w : rules.windows) bus.declare(w);
  for (const HookDef& h : content->hooks) bus.add(h);  // declarative hooks from TOML

  // sandboxes: one per pack, then the ruleset's, whose modules a pack may require
  push_sandbox(L, rules.dir);
  const int ruleset_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  for (const auto& p : content->packs) {
    push_sandbox(L, p.dir);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ruleset_ref);
    lua_setfield(L, -2, "__parent");
    env_refs.push_back(luaL_ref(L, LUA_REGISTRYINDEX));
  }
  env_refs.push_back(ruleset_ref);
  for (int ref : env_refs) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushcfunction(L, guarded<lua_register_hook>);
    lua_setfield(L, -2, "hook");
    lua_pop(L, 1);
  }

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
  loading = false;
  bus.freeze();
  spdlog::debug("ruleset {}: {} procedures, {} windows, {} hooks registered and frozen", rules.id,
                procedures.size(), bus.windows().size(), bus.hooks().size());
}

Engine::Impl::~Impl() {
  Watchdog::get().remove(this);
  if (L) lua_close(L);
}

void Engine::Impl::push_ctx() {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref);
}

Pool& Engine::Impl::new_pool() {
  if (pools_used == pools.size()) pools.push_back(std::make_unique<Pool>());
  Pool& p = *pools[pools_used++];
  p.clear();
  return p;
}

std::string Engine::Impl::name_of(EntityId e) const {
  if (!state || !state->valid(e)) return e == kNoEntity ? "nobody" : "?";
  return std::string(sym_name(state->at(e).type));
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
  state = State();
  I.state = &state;
  I.liveness_dirty = true;
  I.trace = nullptr;
  I.dice.seed(0, 0);
  I.scenario_file = file;
  I.scenario_source = source;
  I.scenario_lines.clear();
  lua_newtable(L);
  lua_rawseti(L, LUA_REGISTRYINDEX, I.player_policy_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.setup_ref);
  I.push_ctx();
  push_toml(L, scenario, "", I.scenario_lines);
  lua_pushvalue(L, -1);
  if (I.scenario_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, I.scenario_ref);
  I.scenario_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  I.call(2, 0, "setup of " + file, I.options.hook_budget);  // ctx:reject() raises a ContentError
  I.state = nullptr;
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
  I.pools_used = 0;
  I.depth = 0;
  I.liveness_dirty = true;
  I.dice.seed(options.seed, options.run);
  if (!options.forced.empty() || options.strict_dice)
    I.dice.force(options.forced, options.strict_dice);
  result.clear();
  // the time limit of this run, kept by the watchdog
  I.thread = pthread_self();
  I.signalled = false;
  Engine::Impl* outer = running_engine;
  running_engine = &I;
  // the coarse clock is a few milliseconds behind at most, and costs a fraction of the precise one
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  I.deadline = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec +
               static_cast<std::int64_t>(I.options.procedure_seconds * 1e9);
  struct Reset {
    Impl& I;
    Engine::Impl* outer;
    ~Reset() {
      I.deadline = 0;
      running_engine = outer;
      if (I.signalled && I.counting == 0) lua_sethook(I.L, nullptr, 0, 0);
      I.state = nullptr, I.result = nullptr, I.run_options = nullptr, I.trace = nullptr;
    }
  } reset{I, outer};
  lua_State* L = I.L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, proc->ref);
  I.push_ctx();
  try {
    I.call(1, 0, Impl::kTimeLimited, [&] { return "procedure '" + std::string(procedure) + "'"; });
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
}

}  // namespace rb
