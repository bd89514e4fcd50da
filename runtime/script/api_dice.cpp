// Lua calls C++: rolls, pools (light userdata with methods), hit assignment.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include <unistd.h>

#include "base/error.hpp"
#include "base/text.hpp"
#include "combat/assign_hits.hpp"
#include "combat/combat.hpp"
#include "decide/decide.hpp"
#include "script/lua_host.hpp"

namespace rb {

// The name the running api function was called by ("add"), for its errors.
static const char* call_name(lua_State* L) {
  lua_Debug ar;
  if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name) return ar.name;
  return "?";
}

void push_pool(lua_State* L, const Pool& pool) {
  Engine::Impl& I = impl(L);
  std::size_t i = I.pools_used - 1;
  while (i > 0 && I.pools[i].get() != &pool) --i;  // the newest pool, nearly always
  lua_pushlightuserdata(L, reinterpret_cast<void*>(static_cast<std::uintptr_t>(I.pool_base + i)));
}

Pool& check_pool(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) {
    const auto serial =
        static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(lua_touserdata(L, idx)));
    const std::uint64_t i = serial - I.pool_base;
    if (serial >= I.pool_base && i < I.pools_used) {
      const int d = I.pool_depth[i];
      if (I.depth >= d && I.window_serial[static_cast<std::size_t>(d)] == I.pool_window[i])
        return *I.pools[i];
      luaL_error(L,
                 "%s: this pool of dice was made in a window that has closed: a pool handle kept "
                 "from an earlier call cannot be used (scripts keep nothing between calls)",
                 call_name(L));
    }
    if (serial > 0 && serial < I.pool_base)
      luaL_error(L,
                 "%s: this pool of dice is from an earlier run: a pool handle kept between runs "
                 "cannot be used (scripts keep nothing between calls)",
                 call_name(L));
  }
  luaL_error(L, "%s: bad argument #%d: expected a pool of dice from this run, got %s", call_name(L),
             idx, luaL_typename(L, idx));
  return *I.pools[0];  // unreachable
}

namespace {

// A count of dice from Lua (ctx:roll, pool:add): an integer in 0..kMaxDice.
int check_dice_count(lua_State* L, int idx, const char* call) {
  int ok = 0;
  const lua_Integer n = lua_tointegerx(L, idx, &ok);
  if (!ok)
    luaL_error(L, "%s: the number of dice must be an integer, got %s", call,
               lua_type(L, idx) == LUA_TNUMBER ? lua_tostring(L, idx) : luaL_typename(L, idx));
  if (n < 0 || n > kMaxDice)
    luaL_error(L, "%s: %I dice: the number of dice must be between 0 and %I", call, n,
               static_cast<lua_Integer>(kMaxDice));
  return static_cast<int>(n);
}

// Room in the run and in the pool for n more dice.
void reserve_dice(lua_State* L, const Pool& pool, std::int64_t n, const char* call) {
  Engine::Impl& I = impl(L);
  if (static_cast<std::int64_t>(pool.dice.size()) + n > kMaxDice)
    luaL_error(L, "%s: a pool may hold at most %I dice (this one would hold %I)", call,
               static_cast<lua_Integer>(kMaxDice),
               static_cast<lua_Integer>(static_cast<std::int64_t>(pool.dice.size()) + n));
  if (I.run_dice + n > kMaxRunDice)
    luaL_error(L, "%s: more than %I dice rolled into pools in one run", call,
               static_cast<lua_Integer>(kMaxRunDice));
  I.run_dice += n;
}

// An integer argument that must fit [lo, hi].
lua_Integer check_range(lua_State* L, int idx, lua_Integer lo, lua_Integer hi, const char* what,
                        const char* call) {
  const lua_Integer v = luaL_checkinteger(L, idx);
  if (v < lo || v > hi) luaL_error(L, "%s: %s %I is out of range (%I..%I)", call, what, v, lo, hi);
  return v;
}

State& st(lua_State* L) {
  Engine::Impl& I = impl(L);
  if (!I.state) luaL_error(L, "no game state here (this call needs a run)");
  return *I.state;
}

int die_index(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  const Sym s = lua_sym(L, idx);
  if (s < I.die_by_sym.size() && I.die_by_sym[s] >= 0) return I.die_by_sym[s];
  const char* name = luaL_checkstring(L, idx);
  const int d = I.rules.die(name);
  if (d < 0) {
    std::vector<std::string> names;
    for (const auto& t : I.rules.dice) names.emplace_back(sym_name(t.name));
    luaL_error(L, "unknown die type '%s'%s", name, did_you_mean(name, names).c_str());
  }
  if (s >= I.die_by_sym.size()) I.die_by_sym.resize(s + 64, -1);
  I.die_by_sym[s] = d;
  return d;
}

std::string face_label(const DieType& t, const Die& d) {
  return t.labels[static_cast<std::size_t>(d.face)];
}

// What the trace shows of a die: its face, or for a die of a class of faces no script has read
// (ctx:roll's faces) the class, its faces' labels joined by "/" ("circle/square").
std::string shown_label(Engine::Impl& I, const Die& d) {
  const DieType& t = I.die_type(d.type);
  if (!d.lazy || d.classes == 0) return face_label(t, d);
  const FaceKinds& classes = I.classes_of(d.type, d.classes);
  const std::uint16_t c = classes.kind[static_cast<std::size_t>(d.face)];
  std::string out;
  for (int f = 0; f < t.sides; ++f) {
    const auto i = static_cast<std::size_t>(f);
    if (classes.kind[i] != c) continue;
    const std::string& l = t.labels[i];
    if (out.empty() || ("/" + out + "/").find("/" + l + "/") == std::string::npos)
      out += (out.empty() ? "" : "/") + l;
  }
  return out;
}

combat::Env combat_env(Engine::Impl& I);

// What changed a die's value, for the trace: the declared modifiers that apply to its unit's roll
// (by their names, as {delta, by}), then a change no declared modifier explains (pool:modify)
// with no name.
nlohmann::json die_modifiers(Engine::Impl& I, const Die& d) {
  std::vector<int> mods;
  if (I.state && d.unit != kNoEntity)
    combat::die_modifiers(combat_env(I), *I.state, d.player, d.unit, d.purpose, mods);
  nlohmann::json out = nlohmann::json::array();
  int named = 0;
  for (int k : mods) {
    const ModifierDef& m = I.content->modifiers[static_cast<std::size_t>(k)];
    out.push_back({{"delta", m.delta}, {"by", m.name}});
    named += m.delta;
  }
  if (d.modifier != named) out.push_back({{"delta", d.modifier - named}, {"by", ""}});
  return out;
}

// A die's event: "attacker's cruiser rolls 10 (combat, hits on 6 = 7 - 1: +1 Morale Boost): hit",
// with its fields (player, unit, die, purpose, face, value, threshold, hit, modifiers). A numeric
// die is shown by its value (the d10's 0 face reads 10); the key keeps the face's label.
void trace_die(Engine::Impl& I, const Die& d, const char* verb) {
  const DieType& t = I.die_type(d.type);
  const std::string player = I.name_of(d.player),
                    unit = d.unit == kNoEntity ? "-" : I.name_of(d.unit);
  const std::string label = shown_label(I, d);
  std::string key = std::string(verb) + ":" + player + ":" + std::string(sym_name(d.purpose)) +
                    ":" + unit + ":" + label;
  const std::string shown = t.numeric() ? std::to_string(d.value) : label;
  std::string text = player + (d.unit == kNoEntity ? "" : "'s " + unit) +
                     (std::string(verb) == "roll" ? " rolls " : " rerolls to ") + shown;
  nlohmann::json fields = {
      {"player", d.player == kNoEntity ? nlohmann::json() : nlohmann::json(player)},
      {"unit", d.unit == kNoEntity ? nlohmann::json() : nlohmann::json(unit)},
      {"die", std::string(sym_name(t.name))},
      {"face", label}};
  if (d.purpose != kNoSym) fields["purpose"] = std::string(sym_name(d.purpose));
  if (t.numeric()) fields["value"] = d.value;
  if (d.threshold > 0) {
    key += d.hit() ? ":hit" : ":miss";
    const nlohmann::json mods = die_modifiers(I, d);
    std::string changes;
    for (const auto& m : mods) {
      const int delta = m["delta"].get<int>();
      const std::string by = m["by"].get<std::string>();
      changes += (changes.empty() ? ": " : ", ") + std::string(delta > 0 ? "+" : "") +
                 std::to_string(delta) + (by.empty() ? "" : " " + by);
    }
    // a die hits when its value plus its modifiers reaches the threshold: the trace says the
    // value it needs, and how the modifiers moved it from the threshold ("hits on 5 = 7 - 2: +1
    // Nebula, +1 Unrelenting")
    std::string needs = std::to_string(d.threshold - d.modifier);
    if (!changes.empty())
      needs += " = " + std::to_string(d.threshold) +
               (d.modifier == 0 ? std::string()
                                : (d.modifier > 0 ? " - " : " + ") +
                                      std::to_string(d.modifier > 0 ? d.modifier : -d.modifier));
    text += " (" + std::string(sym_name(d.purpose)) + ", hits on " + needs + changes +
            "): " + (d.hit() ? "hit" : "miss");
    fields["threshold"] = d.threshold;
    fields["hit"] = d.hit();
    fields["modifiers"] = mods;
  }
  I.trace->add(std::string(verb) == "roll" ? EventKind::roll : EventKind::reroll, key, text,
               std::move(fields));
}

// The faces of a numeric die that hit (or miss) against its threshold and modifier.
bool face_hits(const DieType& t, const Die& d, int f) {
  return d.threshold > 0 && t.values[static_cast<std::size_t>(f)] + d.modifier >= d.threshold;
}

// The exact mode rolls a die that has a threshold in two draws: whether it hits now, and its face
// among those only if a script reads it (resolve_face). A roll no script reads faces of then
// branches two ways per die, not ten.
bool roll_lazy(Engine::Impl& I, Die& d, const DieType& t) {
  if (!I.dice.exact() || !t.numeric() || d.threshold <= 0) return false;
  int hitting = 0, first_hit = -1, first_miss = -1;
  for (int f = 0; f < t.sides; ++f) {
    if (face_hits(t, d, f)) {
      ++hitting;
      if (first_hit < 0) first_hit = f;
    } else if (first_miss < 0) {
      first_miss = f;
    }
  }
  const double p = static_cast<double>(hitting) / t.sides;
  const double probs[2] = {1 - p, p};
  const bool hit = I.dice.choose(probs, 2) == 1;
  set_face(d, t, hit ? first_hit : first_miss);
  d.lazy = true;
  return true;
}

void roll_die(Engine::Impl& I, Die& d, const DieType& t) {
  int face = -1;
  d.lazy = false;
  try {
    if (roll_lazy(I, d, t)) return;
    face = I.dice.roll(t);
  } catch (const ScriptError& e) {
    // raised as a plain Lua error, so that the call gate names the hook, window and file:line
    luaL_where(I.L, 1);
    lua_pushstring(I.L, e.what());
    lua_concat(I.L, 2);
  }
  if (face < 0) lua_error(I.L);
  set_face(d, t, face);
}
void roll_die(Engine::Impl& I, Die& d) {
  roll_die(I, d, I.die_type(d.type));
}

// A lazy die gets its face: uniformly among the faces of its kind (hit or miss: roll_lazy), or
// of its class (ctx:roll's faces: roll_by_face). The exact mode branches once per face that reads
// differently, weighted by how many faces read so.
void resolve_face(Engine::Impl& I, Die& d) {
  if (!d.lazy) return;
  d.lazy = false;
  const DieType& t = I.die_type(d.type);
  if (d.classes != 0) {
    const FaceKinds& classes = I.classes_of(d.type, d.classes);
    const FaceKinds& kinds = I.kinds_of(d.type);
    const std::uint16_t c = classes.kind[static_cast<std::size_t>(d.face)];
    std::vector<int> faces;  // the class's faces; in the exact mode, the first of each kind
    std::vector<double> p;
    for (int f = 0; f < t.sides; ++f) {
      if (classes.kind[static_cast<std::size_t>(f)] != c) continue;
      std::size_t k = 0;
      if (I.dice.exact())
        while (k < faces.size() && kinds.kind[static_cast<std::size_t>(faces[k])] !=
                                       kinds.kind[static_cast<std::size_t>(f)])
          ++k;
      else
        k = faces.size();
      if (k == faces.size()) faces.push_back(f), p.push_back(0);
      p[k] += 1;
    }
    std::uint32_t i = 0;
    if (I.dice.exact()) {
      double sum = 0;
      for (double x : p) sum += x;
      for (double& x : p) x /= sum;
      i = I.dice.choose(p.data(), static_cast<std::uint32_t>(p.size()));
    } else {
      i = I.dice.below(static_cast<std::uint32_t>(faces.size()));
    }
    set_face(d, t, faces[i]);
    return;
  }
  const bool hit = face_hits(t, d, d.face);
  std::vector<int> faces;
  for (int f = 0; f < t.sides; ++f)
    if (face_hits(t, d, f) == hit) faces.push_back(f);
  const std::vector<double> p(faces.size(), 1.0 / static_cast<double>(faces.size()));
  set_face(d, t, faces[I.dice.choose(p.data(), static_cast<std::uint32_t>(p.size()))]);
}

// Appends n dice like `proto` (same type, owner, threshold, modifier) to the pool. The dice of
// such a roll are alike, so the exact mode draws how many show each kind of face (a multinomial,
// as one binomial draw per kind) rather than each die in turn: 4 dice of 4 kinds of face are 35
// ways, not 256. Their order in the pool is then by kind of face. With a threshold, the kinds are
// hit and miss, and each face is drawn when a script reads it (resolve_face). With `classes`
// (ctx:roll's faces, its id in proto.classes) the kinds are those classes.
void roll_alike(Engine::Impl& I, Pool& pool, const Die& proto, int n,
                const Engine::Impl::FaceClasses* classes = nullptr) {
  const DieType& t = I.die_type(proto.type);
  if (!I.dice.exact() || (n <= 1 && !classes)) {
    for (int i = 0; i < n; ++i) {
      Die d = proto;
      roll_die(I, d, t);
      pool.dice.push_back(d);
      if (I.tracing()) trace_die(I, d, "roll");
    }
    return;
  }
  // the kinds of face: their first face and probability
  std::vector<int> first;
  std::vector<double> p;
  const bool lazy = t.numeric() && proto.threshold > 0;
  if (classes) {
    first = classes->kinds.first;
    p.assign(first.size(), 0);
    for (int f = 0; f < t.sides; ++f)
      p[classes->kinds.kind[static_cast<std::size_t>(f)]] += 1.0 / t.sides;
  }
  for (int f = 0; f < t.sides && !classes; ++f) {
    std::size_t k = 0;
    for (; k < first.size(); ++k) {
      const int g = first[k];
      const bool same =
          lazy ? face_hits(t, proto, g) == face_hits(t, proto, f)
          : t.numeric()
              ? t.values[static_cast<std::size_t>(g)] == t.values[static_cast<std::size_t>(f)] &&
                    t.labels[static_cast<std::size_t>(g)] == t.labels[static_cast<std::size_t>(f)]
              : t.faces[static_cast<std::size_t>(g)] == t.faces[static_cast<std::size_t>(f)];
      if (same) break;
    }
    if (k == first.size()) first.push_back(f), p.push_back(0);
    p[k] += 1.0 / t.sides;
  }
  int left = n;
  double rest = 1;
  std::vector<double> binomial;
  for (std::size_t k = 0; k < first.size() && left > 0; ++k) {
    int m = left;  // the last kind takes what is left
    if (k + 1 < first.size()) {
      const double q = rest > 0 ? std::min(1.0, p[k] / rest) : 0;
      binomial.assign(1, 1.0);  // Binomial(left, q), one die at a time
      for (int i = 0; i < left; ++i) {
        binomial.push_back(0.0);
        for (std::size_t j = binomial.size() - 1; j > 0; --j)
          binomial[j] = binomial[j] * (1 - q) + binomial[j - 1] * q;
        binomial[0] *= 1 - q;
      }
      m = static_cast<int>(
          I.dice.choose(binomial.data(), static_cast<std::uint32_t>(binomial.size())));
    }
    rest -= p[k];
    for (int i = 0; i < m; ++i) {
      Die d = proto;
      d.rerolls = 0;
      set_face(d, t, first[k]);
      d.lazy = classes ? classes->several[k] != 0 : lazy;
      pool.dice.push_back(d);
    }
    left -= m;
  }
}

// ctx:roll's by_face: a roll whose script reads only how many dice show each face (pool:count).
// Its dice lie in the pool in the order of their kinds of face. In Monte Carlo the counts are
// drawn (dice/counts.hpp): under the step memo's tape one group draw, so that the trie branches
// on the counts, not on the faces die by die. The exact mode draws the multinomial's outcomes
// (roll_alike); forced results are taken die by die, then put in the same order.
// With faces (proto.classes, its id), the kinds are those classes (face_classes_at), and a die
// of a class of faces that read differently is lazy: its face is drawn when a script reads it
// (resolve_face), so that the memo and the exact mode branch on the counts of the classes alone.
void roll_by_face(Engine::Impl& I, Pool& pool, const Die& proto, int n) {
  if (n == 0) return;
  const std::size_t start = pool.dice.size();
  const Engine::Impl::FaceClasses* classes =
      proto.classes ? &I.face_classes[static_cast<std::size_t>(proto.classes - 1)] : nullptr;
  const FaceKinds& kinds = classes ? classes->kinds : I.kinds_of(proto.type);
  const bool forcing = I.dice.forced_left() > 0 || (I.run_options && I.run_options->strict_dice);
  if (I.dice.exact() || forcing) {
    roll_alike(I, pool, proto, n, forcing ? nullptr : classes);
    std::stable_sort(pool.dice.begin() + static_cast<std::ptrdiff_t>(start), pool.dice.end(),
                     [&](const Die& a, const Die& b) {
                       return kinds.kind[static_cast<std::size_t>(a.face)] <
                              kinds.kind[static_cast<std::size_t>(b.face)];
                     });
    return;
  }
  const DieType& t = I.die_type(proto.type);
  const int k = static_cast<int>(kinds.first.size());
  std::vector<std::uint32_t>& counts = I.face_counts;
  counts.assign(static_cast<std::size_t>(k), 0);
  const std::uint64_t outcomes = count_outcomes(n, k);
  const bool group = I.dice.taping() &&
                     outcomes <= static_cast<std::uint64_t>(combat::kMaxGroupBound) &&
                     n <= UINT16_MAX;
  if (group) {
    LawDie x;
    x.type = proto.type;
    x.threshold = kByFace;
    x.modifier = static_cast<std::int16_t>(proto.classes);
    x.weight = static_cast<std::uint16_t>(n);
    I.memo_laws.push_back({x});
    I.dice.begin_group();
  }
  draw_counts(I.dice, kinds, t.sides, n, counts.data());
  if (group)
    I.dice.end_group(static_cast<std::uint32_t>(outcomes), count_rank(counts.data(), k, n),
                     static_cast<std::int32_t>(I.memo_laws.size() - 1));
  for (int kind = 0; kind < k; ++kind)
    for (std::uint32_t i = 0; i < counts[static_cast<std::size_t>(kind)]; ++i) {
      Die d = proto;
      set_face(d, t, kinds.first[static_cast<std::size_t>(kind)]);
      d.lazy = classes && classes->several[static_cast<std::size_t>(kind)] != 0;
      pool.dice.push_back(d);
      if (I.tracing()) trace_die(I, d, "roll");
    }
}

// ctx:roll's faces (the table at idx) for a die of `type`: its id in I.face_classes (1 + the
// index), added when no list there has the same classes. Each entry names a face, or is a list
// of faces read only together (pool:count(a, b)); every face of the die no entry names is one
// class more. Classes are numbered by their first face.
int parse_face_classes(lua_State* L, int idx, int type) {
  Engine::Impl& I = impl(L);
  const DieType& t = I.die_type(type);
  const std::string die(sym_name(t.name));
  if (t.numeric())
    luaL_error(L, "ctx:roll: faces: the %s die is numeric (faces names the faces of a faced die)",
               die.c_str());
  std::vector<int> group(static_cast<std::size_t>(t.sides), -1);
  const lua_Integer len = luaL_len(L, idx);
  if (len < 1 || len > t.sides)
    luaL_error(L, "ctx:roll: faces lists %I entries: the %s die takes 1 to %d", len, die.c_str(),
               t.sides);
  const auto name_face = [&](int at, int g) {
    if (lua_type(L, at) != LUA_TSTRING)
      luaL_error(L, "ctx:roll: faces: expected a face name or a list of them, got %s",
                 luaL_typename(L, at));
    const Sym face = lua_sym(L, at);
    bool found = false;
    for (int f = 0; f < t.sides; ++f) {
      if (t.faces[static_cast<std::size_t>(f)] != face) continue;
      if (group[static_cast<std::size_t>(f)] >= 0)
        luaL_error(L, "ctx:roll: faces names '%s' twice", lua_tostring(L, at));
      group[static_cast<std::size_t>(f)] = g;
      found = true;
    }
    if (!found) {
      std::vector<std::string> names;
      for (Sym x : t.faces) names.emplace_back(sym_name(x));
      luaL_error(L, "ctx:roll: faces: the %s die has no face '%s'%s", die.c_str(),
                 lua_tostring(L, at), did_you_mean(lua_tostring(L, at), names).c_str());
    }
  };
  for (lua_Integer i = 1; i <= len; ++i) {
    lua_geti(L, idx, i);
    const int g = static_cast<int>(i - 1);
    if (lua_istable(L, -1)) {
      const lua_Integer m = luaL_len(L, -1);
      if (m < 1 || m > t.sides)
        luaL_error(L, "ctx:roll: faces: a list of %I faces (the %s die has %d)", m, die.c_str(),
                   t.sides);
      for (lua_Integer j = 1; j <= m; ++j) {
        lua_geti(L, -1, j);
        name_face(lua_gettop(L), g);
        lua_pop(L, 1);
      }
    } else {
      name_face(lua_gettop(L), g);
    }
    lua_pop(L, 1);
  }
  // the classes, numbered by their first face; the faces named by no entry are one
  Engine::Impl::FaceClasses c;
  c.type = type;
  std::vector<int> number(static_cast<std::size_t>(len) + 1, -1);
  const FaceKinds& kinds = I.kinds_of(type);
  for (int f = 0; f < t.sides; ++f) {
    int& g = group[static_cast<std::size_t>(f)];
    if (g < 0) g = static_cast<int>(len);
    int& k = number[static_cast<std::size_t>(g)];
    if (k < 0) {
      k = static_cast<int>(c.kinds.first.size());
      c.kinds.first.push_back(f);
      c.several.push_back(0);
    } else if (kinds.kind[static_cast<std::size_t>(f)] !=
               kinds.kind[static_cast<std::size_t>(c.kinds.first[static_cast<std::size_t>(k)])]) {
      c.several[static_cast<std::size_t>(k)] = 1;
    }
    c.kinds.kind.push_back(static_cast<std::uint16_t>(k));
  }
  for (std::size_t i = 0; i < I.face_classes.size(); ++i)
    if (I.face_classes[i].type == type && I.face_classes[i].kinds.kind == c.kinds.kind)
      return static_cast<int>(i + 1);
  if (I.face_classes.size() >= kMaxFaceClasses)
    luaL_error(L, "ctx:roll: more than %d different faces lists",
               static_cast<int>(kMaxFaceClasses));
  I.face_classes.push_back(std::move(c));
  return static_cast<int>(I.face_classes.size());
}

int face_classes_at(lua_State* L, int idx, int type) {
  Engine::Impl& I = impl(L);
  luaL_checktype(L, idx, LUA_TTABLE);
  const int id = I.cached_spec(L, idx, [&] { return parse_face_classes(L, idx, type); });
  if (I.face_classes[static_cast<std::size_t>(id - 1)].type == type) return id;
  return parse_face_classes(L, idx, type);  // the same list for another die type
}

// ctx:roll(player, die, n, {purpose=, unit=, threshold=, reroll_limit=, by_face=, faces=}) -> pool
int l_roll(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId player = opt_entity(L, 2);
  const int type = die_index(L, 3);
  const int n = check_dice_count(L, 4, "ctx:roll");
  Die proto;
  proto.type = static_cast<std::int16_t>(type);
  proto.player = player;
  bool counted_by_face = false;
  if (lua_istable(L, 5)) {
    lua_getfield(L, 5, "purpose");
    if (!lua_isnil(L, -1)) proto.purpose = lua_sym(L, -1);
    lua_getfield(L, 5, "unit");
    proto.unit = opt_entity(L, -1);
    lua_getfield(L, 5, "threshold");
    if (!lua_isnil(L, -1))
      proto.threshold =
          static_cast<std::int16_t>(check_range(L, -1, 0, INT16_MAX, "threshold", "ctx:roll"));
    lua_getfield(L, 5, "reroll_limit");
    if (!lua_isnil(L, -1))
      proto.reroll_limit = static_cast<std::uint8_t>(
          check_range(L, -1, 0, kNoRerollLimit - 1, "reroll_limit", "ctx:roll"));
    lua_getfield(L, 5, "by_face");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
      luaL_error(L, "ctx:roll: by_face must be true or false, got %s", luaL_typename(L, -1));
    counted_by_face = lua_toboolean(L, -1);
    lua_getfield(L, 5, "faces");
    if (!lua_isnil(L, -1)) {
      proto.classes = static_cast<std::uint16_t>(face_classes_at(L, lua_gettop(L), type));
      counted_by_face = true;
    }
    lua_pop(L, 6);
  }
  Pool& pool = I.new_pool();
  reserve_dice(L, pool, n, "ctx:roll");
  if (counted_by_face)
    roll_by_face(I, pool, proto, n);
  else
    roll_alike(I, pool, proto, n);
  push_pool(L, pool);
  return 1;
}

// The primitives' view of the engine (combat/combat.hpp).
combat::Env combat_env(Engine::Impl& I) {
  I.ensure_liveness();
  return {I.content.get(), &I.rules.dice, &I.held, I.s_unit};
}

// ctx:roll_units(player, location, {purpose=, die=, value=, count=, eligible=}) -> pool, hits
// Every unit of `player` at `location` whose `value` attribute is set rolls `count` dice (1 when
// no count attribute is named) against that value; declared modifiers add to each die or add
// dice; units roll in ascending order of value.
const Engine::Impl::RollSpec& roll_spec_at(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  luaL_checktype(L, idx, LUA_TTABLE);
  return I.roll_specs[static_cast<std::size_t>(I.cached_spec(L, idx, [&] {
    Engine::Impl::RollSpec r;
    lua_getfield(L, idx, "purpose");
    r.purpose = lua_sym(L, -1);
    lua_getfield(L, idx, "die");
    r.die = die_index(L, -1);
    lua_getfield(L, idx, "value");
    r.value = I.attr_slot(L, -1);
    lua_getfield(L, idx, "count");
    r.count = lua_isnil(L, -1) ? -1 : I.attr_slot(L, -1);
    lua_getfield(L, idx, "eligible");
    r.eligible = lua_isnil(L, -1) ? -1 : I.attr_slot(L, -1);
    I.roll_specs.push_back(r);
    return static_cast<int>(I.roll_specs.size() - 1);
  }))];
}

// The units of `player` at `location` that roll as the spec says, in I.scratch_rollers; returns
// how many dice they roll. A combat error is pushed and `failed` set (the caller raises it).
std::int64_t rollers(Engine::Impl& I, const State& s, EntityId player, EntityId location,
                     const Engine::Impl::RollSpec& spec, const char* call, bool& failed) {
  try {
    return combat::rollers(combat_env(I), s, player, location, spec, call, I.scratch_rollers,
                           I.scratch_modifiers);
  } catch (const combat::CombatError& e) {
    push_error(I.L, e.what());
    failed = true;
  }
  return 0;
}

// Rolls every unit of `player` at `location` as the spec says (see ctx:roll_units).
Pool& roll_units_core(Engine::Impl& I, State& s, EntityId player, EntityId location,
                      const Engine::Impl::RollSpec& spec) {
  bool failed = false;
  const std::int64_t total = rollers(I, s, player, location, spec, "ctx:roll_units", failed);
  if (failed) lua_error(I.L);
  const std::vector<combat::Roller>& units = I.scratch_rollers;
  const int n_units = static_cast<int>(units.size());
  Pool& pool = I.new_pool();
  reserve_dice(I.L, pool, total, "ctx:roll_units");
  for (int k = 0; k < n_units; ++k) {
    Die d;
    d.type = static_cast<std::int16_t>(spec.die);
    d.player = player;
    d.unit = units[k].unit;
    d.purpose = spec.purpose;
    d.threshold = static_cast<std::int16_t>(units[k].threshold);
    d.modifier = static_cast<std::int16_t>(units[k].modifier);
    roll_alike(I, pool, d, units[k].dice);
  }
  return pool;
}

// ctx:roll_hits(player, location, spec) -> hits: the roll ctx:roll_units makes, die for die from
// the same stream, when no script needs its dice: no pool, so the step memo and the exact mode
// branch on its number of hits rather than on faces. A traced run rolls the pool (each die is
// in the trace).
int l_roll_hits(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  const EntityId player = check_entity(L, 2);
  const EntityId location = check_entity(L, 3);
  const Engine::Impl::RollSpec& spec = roll_spec_at(L, 4);
  if (I.tracing()) {
    lua_pushinteger(L, roll_units_core(I, s, player, location, spec).hits());
    return 1;
  }
  bool failed = false;
  int hits = 0;
  {
    const std::int64_t total = rollers(I, s, player, location, spec, "ctx:roll_hits", failed);
    if (!failed) {
      try {
        hits = combat::roll_hits(combat_env(I), I.dice, I.memo_laws, spec, I.scratch_rollers, total,
                                 I.scratch_distribution);
      } catch (const combat::CombatError& e) {
        push_error(L, e.what());
        failed = true;
      }
    }
  }
  if (failed) return lua_error(L);  // no C++ object is alive here
  lua_pushinteger(L, hits);
  return 1;
}

int l_roll_units(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  const EntityId player = check_entity(L, 2);
  const EntityId location = check_entity(L, 3);
  Pool& pool = roll_units_core(I, s, player, location, roll_spec_at(L, 4));
  push_pool(L, pool);
  lua_pushinteger(L, pool.hits());
  return 2;
}

// ---------------------------------------------------------------- pool methods

Die& check_die(lua_State* L, Pool& p, int idx) {
  int ok = 0;
  const lua_Integer i = lua_tointegerx(L, idx, &ok);
  if (!ok)
    luaL_error(L, "pool:%s: argument #%d must be a die's index, got %s", call_name(L), idx - 1,
               lua_type(L, idx) == LUA_TNUMBER ? lua_tostring(L, idx) : luaL_typename(L, idx));
  if (i < 1 || i > static_cast<lua_Integer>(p.dice.size()))
    luaL_error(L, "pool:%s: die %I is not in this pool of %d dice", call_name(L), i,
               static_cast<int>(p.dice.size()));
  return p.dice[static_cast<std::size_t>(i - 1)];
}

int p_size(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(check_pool(L, 1).dice.size()));
  return 1;
}
int p_hits(lua_State* L) {
  lua_pushinteger(L, check_pool(L, 1).hits());
  return 1;
}
// pool:count(face, ...): the dice (not cancelled) showing one of the faces. A die of a class of
// faces no script has read (ctx:roll's faces) is resolved first when the class has faces both
// among those named and not.
int p_count(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  const int top = lua_gettop(L);
  if (top <= 2) {
    const Sym face = lua_sym(L, 2);
    bool lazy = false;
    for (const Die& d : p.dice) lazy = lazy || (d.lazy && d.classes != 0);
    if (!lazy) {
      lua_pushinteger(L, p.count(I.rules.dice, face));
      return 1;
    }
  }
  std::vector<Sym> faces;
  for (int i = 2; i <= top; ++i) faces.push_back(lua_sym(L, i));
  const auto named = [&](Sym f) { return std::find(faces.begin(), faces.end(), f) != faces.end(); };
  int n = 0;
  for (Die& d : p.dice) {
    if (d.cancelled) continue;
    const DieType& t = I.die_type(d.type);
    if (t.numeric()) continue;
    if (d.lazy && d.classes != 0) {
      const FaceKinds& classes = I.classes_of(d.type, d.classes);
      const std::uint16_t c = classes.kind[static_cast<std::size_t>(d.face)];
      bool some = false, all = true;
      for (int f = 0; f < t.sides; ++f)
        if (classes.kind[static_cast<std::size_t>(f)] == c) {
          const bool in = named(t.faces[static_cast<std::size_t>(f)]);
          some = some || in, all = all && in;
        }
      if (some && !all) resolve_face(I, d);
    }
    if (named(t.faces[static_cast<std::size_t>(d.face)])) ++n;
  }
  lua_pushinteger(L, n);
  return 1;
}
int p_face(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  resolve_face(I, d);
  lua_pushstring(L, face_label(I.die_type(d.type), d).c_str());
  return 1;
}
int p_value(lua_State* L) {
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  resolve_face(impl(L), d);
  lua_pushinteger(L, d.value);
  return 1;
}
int p_result(lua_State* L) {  // value + modifier
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  resolve_face(impl(L), d);
  lua_pushinteger(L, d.value + d.modifier);
  return 1;
}
int p_unit(lua_State* L) {
  Pool& p = check_pool(L, 1);
  const Die& d = check_die(L, p, 2);
  if (d.unit == kNoEntity)
    lua_pushnil(L);
  else
    lua_pushinteger(L, d.unit);
  return 1;
}
int p_player(lua_State* L) {
  Pool& p = check_pool(L, 1);
  const Die& d = check_die(L, p, 2);
  if (d.player == kNoEntity)
    lua_pushnil(L);
  else
    lua_pushinteger(L, d.player);
  return 1;
}
int p_hit(lua_State* L) {
  Pool& p = check_pool(L, 1);
  lua_pushboolean(L, check_die(L, p, 2).hit());
  return 1;
}
int p_rerolls(lua_State* L) {
  Pool& p = check_pool(L, 1);
  lua_pushinteger(L, check_die(L, p, 2).rerolls);
  return 1;
}
int p_cancelled(lua_State* L) {
  Pool& p = check_pool(L, 1);
  lua_pushboolean(L, check_die(L, p, 2).cancelled);
  return 1;
}
int p_threshold(lua_State* L) {
  Pool& p = check_pool(L, 1);
  lua_pushinteger(L, check_die(L, p, 2).threshold);
  return 1;
}
// pool:reroll(i) -> true, or false when the die reached its reroll limit
int p_reroll(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  if (d.reroll_limit != kNoRerollLimit && d.rerolls >= d.reroll_limit) {
    lua_pushboolean(L, 0);
    return 1;
  }
  roll_die(I, d);
  ++d.rerolls;
  if (I.tracing()) trace_die(I, d, "reroll");
  lua_pushboolean(L, 1);
  return 1;
}
// pool:set(i, face): an ability sets the die's face (a face name, or a number for numeric dice)
int p_set(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  const DieType& t = I.die_type(d.type);
  const lua_Integer v = lua_type(L, 3) == LUA_TNUMBER ? lua_tointeger(L, 3) : 0;
  const int face = lua_type(L, 3) != LUA_TNUMBER ? t.face_of_name(lua_sym(L, 3))
                   : v >= INT32_MIN && v <= INT32_MAX
                       ? t.face_of_value(static_cast<std::int32_t>(v))
                       : -1;
  if (face < 0)
    return luaL_error(L, "a %s die has no face '%s'", std::string(sym_name(t.name)).c_str(),
                      luaL_tolstring(L, 3, nullptr));
  const std::string before = I.tracing() ? face_label(t, d) : std::string();
  set_face(d, t, face);
  d.lazy = false;
  d.changed = true;
  if (I.tracing())
    I.trace->add(EventKind::change,
                 "set:" + I.name_of(d.player) + ":" + before + ":" + face_label(t, d),
                 I.name_of(d.player) + "'s die changes from " + before + " to " + face_label(t, d));
  return 0;
}
int p_modify(lua_State* L) {
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  resolve_face(impl(L), d);  // its kind (hit or miss) was drawn against the old modifier
  const lua_Integer by = luaL_checkinteger(L, 3);
  if (by < INT16_MIN || by > INT16_MAX || d.modifier + by < INT16_MIN ||
      d.modifier + by > INT16_MAX)
    return luaL_error(L, "pool:modify: the die's modifier would be %I (at most +-%d)",
                      by < INT16_MIN || by > INT16_MAX ? by : d.modifier + by, INT16_MAX);
  d.modifier = static_cast<std::int16_t>(d.modifier + by);
  return 0;
}
int p_cancel(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  Die& d = check_die(L, p, 2);
  d.cancelled = true;
  if (I.tracing())
    I.trace->add(EventKind::change, "cancel:" + I.name_of(d.player) + ":" + shown_label(I, d),
                 I.name_of(d.player) + "'s " + shown_label(I, d) + " is cancelled");
  return 0;
}
// pool:add(n [, like]) rolls n more dice like die `like` (default the first), or of a type
int p_add(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  const int n = check_dice_count(L, 2, "pool:add");
  Die proto;
  if (lua_type(L, 3) == LUA_TSTRING)
    proto.type = static_cast<std::int16_t>(die_index(L, 3));
  else if (p.dice.empty())
    return luaL_error(L, "pool:add: an empty pool needs a die type (pool:add(n, \"d10\"))");
  else if (lua_isnoneornil(L, 3))
    proto = p.dice.front();
  else
    proto = check_die(L, p, 3);
  reserve_dice(L, p, n, "pool:add");
  proto.rerolls = 0;
  proto.changed = proto.cancelled = proto.lazy = false;
  proto.classes = 0;
  roll_alike(I, p, proto, n);
  return 0;
}
int p_remove(lua_State* L) {
  Pool& p = check_pool(L, 1);
  check_die(L, p, 2);
  p.dice.erase(p.dice.begin() + (luaL_checkinteger(L, 2) - 1));
  return 0;
}
int p_set_reroll_limit(lua_State* L) {
  Pool& p = check_pool(L, 1);
  const auto limit = static_cast<std::uint8_t>(
      check_range(L, 2, 0, kNoRerollLimit - 1, "reroll limit", "pool:set_reroll_limit"));
  for (Die& d : p.dice) d.reroll_limit = limit;
  return 0;
}
// pool:faces() -> array of face labels (for scripts that inspect the whole pool)
int p_faces(lua_State* L) {
  Engine::Impl& I = impl(L);
  Pool& p = check_pool(L, 1);
  for (Die& d : p.dice) resolve_face(I, d);
  lua_createtable(L, static_cast<int>(p.dice.size()), 0);
  for (std::size_t i = 0; i < p.dice.size(); ++i) {
    lua_pushstring(L, face_label(I.die_type(p.dice[i].type), p.dice[i]).c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// ---------------------------------------------------------------- hit assignment

// ctx:assign_hits(player, location, hits, spec, order, sustain) -> destroyed, sustained
// spec: {eligible = attr, types = {...}, can_sustain = attr, damaged = attr, decision = name,
//        destroyed_window = window, sustained_window = window}
// The player loses units for `hits`: scripted answers first ("sustain:dreadnought,cruiser"),
// else the policy. `order` lists unit types in the order they are lost; `sustain` is
//   "first": every hit is absorbed by Sustain Damage while an undamaged unit can, in `order`;
//   "last":  units are lost in `order`, but when the order reaches a rank whose units can
//            sustain, every undamaged unit of that rank sustains before any of them is lost (no
//            unit Sustain Damage could have saved is ever lost); units with `sustain_first` set
//            (immune to what punishes sustaining, such as Direct Hit) risk nothing and sustain
//            before anything is lost, as under "first";
//   "never": no Sustain Damage.
// Which unit a loss takes, among the units the order allows (the lowest rank): the one whose
// loss costs least: a damaged unit before an undamaged one (the undamaged one still has its
// Sustain Damage); among damaged ones, one that sustained in this same assignment before one that
// did not (a repair, such as Duranium Armor's, can only save the one that did not); then, with
// `keep = ATTR`, the one with less of that attribute (the spec's unit that rolls fewer dice);
// then the oldest entity. Sustaining takes the lowest-ranked undamaged unit that can.
const Engine::Impl::CasualtySpec& casualty_spec_at(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  luaL_checktype(L, idx, LUA_TTABLE);
  return I.casualty_specs[static_cast<std::size_t>(I.cached_spec(L, idx, [&] {
    Engine::Impl::CasualtySpec c;
    lua_getfield(L, idx, "eligible");
    if (!lua_isnil(L, -1)) c.eligible = I.attr_slot(L, -1);
    lua_getfield(L, idx, "can_sustain");
    if (!lua_isnil(L, -1)) c.can_sustain = I.attr_slot(L, -1);
    lua_getfield(L, idx, "damaged");
    if (!lua_isnil(L, -1)) c.damaged = I.attr_slot(L, -1);
    if (c.damaged >= 0 && std::find(I.damaged_attributes.begin(), I.damaged_attributes.end(),
                                    c.damaged) == I.damaged_attributes.end())
      I.damaged_attributes.push_back(c.damaged);
    lua_getfield(L, idx, "decision");
    c.decision = luaL_optstring(L, -1, "assign_hits");
    lua_getfield(L, idx, "destroyed_window");
    if (!lua_isnil(L, -1)) c.destroyed_window = I.window_index(L, -1);
    lua_getfield(L, idx, "sustained_window");
    if (!lua_isnil(L, -1)) c.sustained_window = I.window_index(L, -1);
    lua_getfield(L, idx, "sustain_first");
    if (!lua_isnil(L, -1)) c.sustain_first = I.attr_slot(L, -1);
    lua_getfield(L, idx, "keep");
    if (!lua_isnil(L, -1)) c.keep = I.attr_slot(L, -1);
    lua_getfield(L, idx, "types");
    if (lua_istable(L, -1))
      for (lua_Integer i = 1; lua_geti(L, -1, i) != LUA_TNIL; ++i)
        c.types.push_back(lua_sym(L, -1)), lua_pop(L, 1);
    I.casualty_specs.push_back(std::move(c));
    return static_cast<int>(I.casualty_specs.size() - 1);
  }))];
}

// A hit order (an array of unit types), parsed once per table.
const std::vector<Sym>& order_at(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  static const std::vector<Sym> no_order;
  if (!lua_istable(L, idx)) return no_order;
  return I.orders[static_cast<std::size_t>(I.cached_spec(L, idx, [&] {
    std::vector<Sym> o;
    // lua_geti, not raw: a hook's ctx:policy(p).hit_order is a read-only view
    for (lua_Integer i = 1; lua_geti(L, idx, i) != LUA_TNIL; ++i)
      o.push_back(lua_sym(L, -1)), lua_pop(L, 1);
    I.orders.push_back(std::move(o));
    return static_cast<int>(I.orders.size() - 1);
  }))];
}

using combat::kSustainNames;
using combat::Sustain;

// The sustain policy at idx ("first" when none).
Sustain sustain_at(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return Sustain::first;
  static const Sym names[] = {sym(kSustainNames[0]), sym(kSustainNames[1]), sym(kSustainNames[2])};
  const Sym name = lua_sym(L, idx);
  for (int i = 0; i < 3; ++i)
    if (name == names[i]) return static_cast<Sustain>(i);
  luaL_error(L, "sustain policy '%s' is not one of: first, last, never", lua_tostring(L, idx));
  return Sustain::first;
}

using combat::Assignment;

// The hits each Sustain Damage cancels in an assignment (an ability's; 1 when none), at idx.
int sustain_cancels_at(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return 1;
  const lua_Integer n = luaL_checkinteger(L, idx);
  if (n < 1 || n > 100) luaL_error(L, "sustain_cancels %d is not from 1 to 100", int(n));
  return static_cast<int>(n);
}

// A hit assignment's options in words that do not depend on the order of the units (best play
// with fixed dice finds its picks from a canonical state and the run takes them by their words):
// the decision, then each option's casualties, sorted: "sustain:TYPE" for a Sustain Damage, and a
// loss as "TYPE", "sustained:TYPE" (a unit that sustained in this assignment) or "damaged:TYPE"
// (one damaged before it). `s` is the state before the assignment.
std::vector<std::string> outcome_words(const State& s, const combat::Casualties& queue,
                                       const std::vector<combat::AssignmentOutcome>& outcomes,
                                       const char* decision, int damaged) {
  std::vector<std::string> words{decision};
  std::vector<std::string> items;
  for (const combat::AssignmentOutcome& o : outcomes) {
    items.clear();
    for (std::size_t t = 0; t < o.takes.size(); ++t) {
      const auto [i, sustain] = o.takes[t];
      const Entity& u = s.at(queue.entity(i));
      const std::string type(sym_name(u.type));
      bool sustained = false;
      for (std::size_t e = 0; e < t && !sustain; ++e)
        sustained = sustained || (o.takes[e].first == i && o.takes[e].second);
      const bool was_damaged = damaged >= 0 && u.attr[static_cast<std::size_t>(damaged)] != 0;
      items.push_back(sustain       ? "sustain:" + type
                      : sustained   ? "sustained:" + type
                      : was_damaged ? "damaged:" + type
                                    : type);
    }
    std::sort(items.begin(), items.end());
    std::string w;
    for (const std::string& x : items) w += (w.empty() ? "" : ",") + x;
    words.push_back(w.empty() ? "nothing" : w);
  }
  return words;
}

// Phase 1 (combat/assign_hits.hpp): the scripted answer waiting for this decision, the person at
// the terminal, else the policy; the trace records the decision.
void choose_casualties(Engine::Impl& I, State& s, Assignment& out, int hits,
                       const std::vector<Sym>& order, Sustain mode) {
  const EntityId player = out.player;
  const char* decision = out.spec->decision.c_str();
  const char* mode_name = kSustainNames[static_cast<int>(mode)];
  std::optional<std::string> answer;
  if (I.run_options && I.run_options->answers && !I.run_options->answers->empty())
    answer = I.run_options->answers->take(I.name_of(player), decision);
  combat::AskCasualty ask;
  combat::AskOutcome whole;
  if (I.options.interactive && isatty(STDIN_FILENO)) {
    ask = [&](const std::vector<std::string>& choices, int left, std::size_t) {
      return prompt_choice(std::cin, std::cerr, I.name_of(player),
                           std::string(decision) + " (" + std::to_string(left) + " left)", choices);
    };
  } else if ((I.exact && I.exact->best == player) || I.best_picking(player)) {
    // best play: one choice among the assignment's distinct outcomes, the policy's first (with
    // fixed dice, in a run: the exact mode's pick; while it finds them, each option's words)
    whole.choose = [&](std::size_t n) {
      std::vector<std::string> words;
      if (((I.exact && I.exact->forcing) || I.best_picking(player)) && whole.outcomes &&
          whole.queue)
        words = outcome_words(s, *whole.queue, *whole.outcomes, decision, out.spec->damaged);
      const int k = I.exact ? I.exact->choose(player, static_cast<std::uint32_t>(n),
                                              I.dice.exact_path(), words.empty() ? nullptr : &words)
                            : I.take_best_pick(player, static_cast<std::uint32_t>(n),
                                               words.empty() ? nullptr : &words);
      return k < 0 ? std::size_t{0} : static_cast<std::size_t>(k);
    };
    const auto& kinds = I.rules.interchangeable;
    whole.interchangeable = std::find(kinds.begin(), kinds.end(), I.rules.unit_kind) != kinds.end();
  }
  const bool tracing = I.tracing();
  const combat::CasualtyChoice chose =
      combat::choose_casualties(combat_env(I), s, I.scratch_casualties, out, hits, order, mode,
                                answer ? &*answer : nullptr, ask, tracing, &whole);
  if (tracing && !chose.summary.empty()) {
    const std::string name = I.name_of(player);
    const std::string reason = !chose.not_by_policy
                                   ? "policy: hit_order, sustain " + std::string(mode_name)
                               : I.options.interactive             ? "asked at the terminal"
                               : I.best_picking(player) && !answer ? "best play"
                                                                   : "scripted";
    I.trace->add(EventKind::decision, "decision:" + name + ":" + decision + ":" + chose.summary,
                 name + " assigns hits: " + chose.summary + " (" + reason + ")");
  }
  // a declared modifier made a unit's Sustain Damage here cancel more hits
  if (tracing)
    for (int k : chose.cancelling) {
      const ModifierDef& m = I.content->modifiers[static_cast<std::size_t>(k)];
      std::string units;
      for (EntityId e : out.sustaining)
        if (combat::unit_fits_modifier(s, m, s.at(e)))
          units += (units.empty() ? "" : ", ") + std::string(sym_name(s.at(e).type));
      if (units.empty()) continue;
      const std::string name = I.name_of(player);
      // (its id without the pack's prefix, as a hook's event names its hook)
      const std::string id = m.id.substr(m.id.find(':') + 1);
      I.trace->add(EventKind::change, "modifier:" + id + ":" + name,
                   name + ": each Sustain Damage (" + units + ") cancels " +
                       std::to_string(m.sustain_cancels) + " hits (" + m.name + ")");
    }
}

// Phase 2, once every player has chosen: the windows after a unit sustains damage (each player in
// turn), then every unit lost leaves the board together, then the windows after a unit is
// destroyed open, one per unit. A hook may assign hits again (the lists are the callers' own).
void resolve_casualties(lua_State* L, Engine::Impl& I, State& s, std::vector<Assignment>& all) {
  for (const Assignment& a : all) {
    const int w = a.spec->sustained_window;
    if (w < 0 || a.sustaining.empty() || !I.window_live(w)) continue;
    for (EntityId e : a.sustaining) {
      lua_newtable(L);
      lua_pushinteger(L, e);
      lua_setfield(L, -2, "unit");
      lua_pushinteger(L, a.player);
      lua_setfield(L, -2, "player");
      lua_pushinteger(L, a.location);
      lua_setfield(L, -2, "location");
      I.open_windows(&w, 1, lua_gettop(L));
      lua_pop(L, 1);
    }
  }
  for (const Assignment& a : all)
    for (EntityId e : a.lost) {
      s.at(e).location = a.location;
      if (a.spec->damaged >= 0) s.at(e).attr[static_cast<std::size_t>(a.spec->damaged)] = 0;
      I.remove_destroyed(e);
    }
  for (const Assignment& a : all)
    if (a.spec->destroyed_window >= 0 && I.window_live(a.spec->destroyed_window))
      for (EntityId e : a.lost) I.open_destroyed(e, a.location, a.spec->destroyed_window);
}

int l_assign_hits(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  std::vector<Assignment> all(1);
  Assignment& a = all[0];
  a.player = check_entity(L, 2);
  a.location = check_entity(L, 3);
  const int hits = static_cast<int>(luaL_checkinteger(L, 4));
  a.spec = &casualty_spec_at(L, 5);
  const std::vector<Sym>& order = order_at(L, 6);
  a.sustain_cancels = sustain_cancels_at(L, 8);
  choose_casualties(I, s, a, hits, order, sustain_at(L, 7));
  const int destroyed = static_cast<int>(a.lost.size());
  const int sustained = static_cast<int>(a.sustaining.size());
  resolve_casualties(L, I, s, all);
  lua_pushinteger(L, destroyed);
  lua_pushinteger(L, sustained);
  return 2;
}

// ctx:assign_hits_each(location, {{player =, hits =, spec =, order =, sustain =}, ...})
//   -> destroyed, sustained (totals)
// Hits assigned by several players at once: each chooses in turn (as ctx:assign_hits) against the
// board as it stood before any of them lost a unit; then the units that sustained open their
// windows, every unit lost leaves together, and the destroyed windows open.
int l_assign_hits_each(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  const EntityId location = check_entity(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  const lua_Integer n = luaL_len(L, 3);
  if (n > 64) return luaL_error(L, "ctx:assign_hits_each: %d assignments (at most 64)", int(n));
  std::vector<Assignment> all(static_cast<std::size_t>(n));
  int destroyed = 0, sustained = 0;
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_geti(L, 3, i);
    const int t = lua_gettop(L);
    if (!lua_istable(L, t))
      return luaL_error(L, "ctx:assign_hits_each: assignment %d is not a table", int(i));
    Assignment& a = all[static_cast<std::size_t>(i - 1)];
    a.location = location;
    lua_getfield(L, t, "player");
    a.player = check_entity(L, lua_gettop(L));
    lua_getfield(L, t, "hits");
    const int hits = static_cast<int>(luaL_checkinteger(L, -1));
    lua_getfield(L, t, "spec");
    a.spec = &casualty_spec_at(L, lua_gettop(L));
    lua_getfield(L, t, "order");
    const std::vector<Sym>& order = order_at(L, lua_gettop(L));
    lua_getfield(L, t, "sustain");
    const Sustain mode = sustain_at(L, lua_gettop(L));
    lua_getfield(L, t, "sustain_cancels");
    a.sustain_cancels = sustain_cancels_at(L, lua_gettop(L));
    if (hits > 0) choose_casualties(I, s, a, hits, order, mode);
    destroyed += static_cast<int>(a.lost.size());
    sustained += static_cast<int>(a.sustaining.size());
    lua_settop(L, t - 1);
  }
  resolve_casualties(L, I, s, all);
  lua_pushinteger(L, destroyed);
  lua_pushinteger(L, sustained);
  return 2;
}

// ---------------------------------------------------------------- rounds of fire

const Engine::Impl::ExchangeSpec& exchange_spec_at(lua_State* L, int idx) {
  Engine::Impl& I = impl(L);
  luaL_checktype(L, idx, LUA_TTABLE);
  return I.exchange_specs[static_cast<std::size_t>(I.cached_spec(L, idx, [&] {
    Engine::Impl::ExchangeSpec x;
    lua_getfield(L, idx, "roll");
    x.roll = &roll_spec_at(L, lua_gettop(L));
    lua_getfield(L, idx, "hits");
    x.hits = &casualty_spec_at(L, lua_gettop(L));
    lua_getfield(L, idx, "windows");
    if (lua_istable(L, -1))
      for (lua_Integer i = 1; lua_geti(L, -1, i) != LUA_TNIL; ++i)
        x.windows.push_back(I.window_index(L, -1)), lua_pop(L, 1);
    for (int w : {x.hits->destroyed_window, x.hits->sustained_window})
      if (w >= 0) x.windows.push_back(w);
    for (std::size_t h = 0; h < I.bus.hooks().size(); ++h) {
      const HookDef& hook = I.bus.hooks()[h];
      if (hook.replaced_by >= 0 && hook.covered >= 0 &&
          std::find(x.windows.begin(), x.windows.end(), hook.window) != x.windows.end())
        x.covered_hooks.push_back(static_cast<int>(h));
    }
    auto scope = [&](const char* key) {
      lua_getfield(L, idx, key);
      const char* name = luaL_checkstring(L, -1);
      if (!I.rules.has_scope(name)) luaL_error(L, "exchange_fire: '%s' is not a scope", name);
      return lua_sym(L, -1);
    };
    lua_getfield(L, idx, "once");
    x.once = lua_toboolean(L, -1);
    if (!x.once) {
      lua_getfield(L, idx, "counter");
      x.counter = lua_sym(L, -1);
      x.counter_scope = scope("counter_scope");
      x.round_scope = scope("round_scope");
      lua_getfield(L, idx, "metric");
      if (!lua_isnil(L, -1)) x.metric = lua_sym(L, -1);
      lua_getfield(L, idx, "again");
      x.again = lua_toboolean(L, -1);
      for (auto [key, w] : {std::pair{"start_of_round", &x.start_window},
                            std::pair{"end_of_round", &x.end_window}}) {
        lua_getfield(L, idx, key);
        if (lua_isnil(L, -1)) continue;
        *w = I.window_index(L, lua_gettop(L));
        if (std::find(x.windows.begin(), x.windows.end(), *w) == x.windows.end())
          luaL_error(L, "exchange_fire: spec.%s '%s' is not one of spec.windows", key,
                     lua_tostring(L, -1));
        // a hook there that a declared modifier replaces must not run in the runtime's rounds:
        // then the window hands the round back as any other
        for (const HookDef& h : I.bus.hooks())
          if (h.window == *w && h.replaced_by >= 0) *w = -1;
      }
    }
    I.exchange_specs.push_back(std::move(x));
    return static_cast<int>(I.exchange_specs.size() - 1);
  }))];
}

// What ctx:exchange_fire's rounds do around the primitives: time limit, windows, destroy, metric.
struct ExchangeHost final : combat::ExchangeHost {
  Engine::Impl& I;
  const Engine::Impl::ExchangeSpec& x;
  bool adds_rounds = true;  // round_begins adds to the spec's metric (the exact mode's
                            // enumeration of one round adds when an end is drawn)
  // the stack index of the args of spec.start_of_round and spec.end_of_round (0: none): their
  // hooks then run in the round here (round_starts, round_ends) instead of handing it back
  int round_args = 0;
  ExchangeHost(Engine::Impl& i, const Engine::Impl::ExchangeSpec& spec) : I(i), x(spec) {}
  bool time_up() override { return I.signalled.load(std::memory_order_relaxed); }
  // a hook could run in the next round, other than one a declared modifier does in C++
  // (replaces_hooks) or one of the end-of-round window this host opens itself
  bool can_intervene() override {
    for (int w : x.windows)
      if (!(round_args && x.in_round(w)) && I.window_live_unreplaced(w)) return true;
    return false;
  }
  // The start of the round the exact mode enumerates (enumerate_round): every way its dice fall
  // begins from the same state, so where the start's hooks drew no dice and wrote nothing to the
  // run, the state they left is kept and the later ways take it instead of running them again.
  struct Start {
    bool kept = false, ran = false;
    State after;
  };
  Start* start = nullptr;
  const ExactPath* path = nullptr;  // the enumeration's path (its draws so far)
  // the procedure's round opens spec.start_of_round here from the second round on
  bool round_starts() override {
    if (!round_args || x.start_window < 0) return false;
    if (start && start->kept) {
      *I.state = start->after;
      I.liveness_dirty = true;
      return start->ran;
    }
    const int w = x.start_window;
    const std::size_t drawn = path ? path->used() : 0;
    const std::size_t writes = I.memo_writes ? I.memo_writes->size() : 0;
    const bool ran = I.open_windows(&w, 1, round_args) > 0;
    if (start && path && path->used() == drawn &&
        (I.memo_writes ? I.memo_writes->size() : 0) == writes) {
      start->after = *I.state;
      start->ran = ran;
      start->kept = true;
    }
    return ran;
  }
  // the procedure's round opens spec.end_of_round here when the combat goes on (before the
  // round's scope ends)
  bool round_ends() override {
    if (!round_args || x.end_window < 0) return false;
    const int w = x.end_window;
    return I.open_windows(&w, 1, round_args) > 0;
  }
  // no window opens: at the round's start none of the exchange's windows (the destroyed window
  // among them) had a hook to run but those a declared modifier replaces, and in the C++ rounds
  // those do not run
  void destroy(EntityId e) override { I.destroy(e, -1); }
  void round_begins() override {
    if (adds_rounds && x.metric != kNoSym) add_run_metric(I, x.metric, 1);
  }
};

// The args of a window (the table at `idx`) as text, to tell whether two calls gave the same:
// each field's key and value, sorted. False when a value is not a boolean, number or string (a
// table, a function: not compared).
bool args_text(lua_State* L, int idx, std::string& out) {
  std::vector<std::string> fields;
  bool plain = true;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    std::string f;
    for (int i : {-2, -1}) {
      switch (lua_type(L, i)) {
        case LUA_TBOOLEAN:
          f += lua_toboolean(L, i) ? "b1" : "b0";
          break;
        case LUA_TNUMBER:
          if (lua_isinteger(L, i)) {
            f += "i" + std::to_string(lua_tointeger(L, i));
          } else {
            char exact[40];  // (every bit of the float)
            std::snprintf(exact, sizeof exact, "n%a", lua_tonumber(L, i));
            f += exact;
          }
          break;
        case LUA_TSTRING: {
          std::size_t n = 0;
          const char* c = lua_tolstring(L, i, &n);  // (a string: not converted in place)
          f += "s" + std::to_string(n) + ":" + std::string(c, n);
          break;
        }
        default:
          plain = false;
      }
      f += '\x1f';
    }
    fields.push_back(std::move(f));
    lua_pop(L, 1);
  }
  if (!plain) return false;
  std::sort(fields.begin(), fields.end());
  out.clear();
  for (const std::string& f : fields) out += f;
  return true;
}

// One round of fire run in C++ (x.one_round) from `s`, for every draw of its dice (a path of its
// own): the states it leaves, equal ones merged, with their probabilities and what the round
// returned. False when a draw hands the round back, runs past the time limit or fails, or when
// the round branches past the exploration's bound: the caller then runs it live, as it did.
// With `round_args` (the stack index of the args of spec.start_of_round and spec.end_of_round),
// those windows' hooks run in the round as the procedure's round runs them; a draw whose hooks
// write to the run (a metric, an outcome) hands the round back. With `defer` (a hook at the end
// window is live) that window's hooks run once per state the round's dice left before it
// (Exact::round_ends, kept for the exploration by that state and `call`, the call's arguments):
// every way those hooks' dice fall from there, each end's probability the product of the two.
bool enumerate_round(Engine::Impl& I, const State& s, const combat::Exchange& x,
                     const Engine::Impl::ExchangeSpec& spec, Engine::Impl::Exact::Fire& fire,
                     int round_args, bool defer, std::uint64_t call) {
  Engine::Impl::Exact& X = *I.exact;
  struct Restore {
    Engine::Impl& I;
    State* state;
    ExactPath* path;
    ~Restore() {
      I.state = state, I.liveness_dirty = true;
      if (path) I.dice.start_exact(path);
    }
  } restore{I, I.state, X.path};
  ExactPath sub;
  I.dice.start_exact(&sub);
  State t;
  std::uint64_t leaves = 0;
  // what a hook adds to the run, taken back after each draw
  const std::size_t writes = I.memo_writes ? I.memo_writes->size() : 0;
  const std::size_t pools = I.pools_used;
  const std::int64_t dice = I.run_dice;
  auto wrote = [&] {
    I.pools_used = pools, I.run_dice = dice;
    if (!I.memo_writes || I.memo_writes->size() == writes) return false;
    I.memo_writes->resize(writes);
    return true;
  };
  // states (with what the round returned) merged when equal: where each is, by its hash
  using Index = std::unordered_multimap<std::uint64_t, std::size_t>;
  auto file = [](Index& index, std::vector<State>& states,
                 std::vector<combat::ExchangeResult>& results, std::vector<double>& ps,
                 const State& u, std::uint64_t h, combat::ExchangeResult r, double p) {
    auto [lo, hi] = index.equal_range(h);
    for (auto it = lo; it != hi; ++it)
      if (results[it->second] == r && states[it->second] == u) {
        ps[it->second] += p;
        return false;
      }
    index.emplace(h, states.size());
    states.push_back(u), results.push_back(r), ps.push_back(p);
    return true;
  };
  Index ends;  // fire's
  // with `defer` (a live hook at the end window, spec.end_of_round), that window's hooks run
  // apart (host.defers_end), from each state the round's dice left before it (`before`)
  defer = defer && round_args && spec.end_window >= 0;
  Index before_at;
  std::vector<State> before;
  std::vector<combat::ExchangeResult> before_r;
  std::vector<double> before_p;
  std::vector<std::uint64_t> before_h;
  ExchangeHost::Start start;  // the round's start, once its hooks have run (round_starts)
  do {
    if (++leaves > X.options.max_branches) return false;
    sub.rewind();
    t = s;
    I.state = &t;
    I.liveness_dirty = true;
    ExchangeHost host(I, spec);
    host.adds_rounds = false;
    host.round_args = round_args;
    host.round_windows = round_args != 0;
    host.defers_end = defer;
    host.start = &start, host.path = &sub;
    combat::ExchangeResult r;
    try {
      r = combat::exchange_fire(combat_env(I), I.dice, I.memo_laws, t, x, host, I.scratch_exchange);
    } catch (const combat::CombatError&) {
      return false;
    }
    if (wrote()) return false;
    if (r == combat::ExchangeResult::handed_back || r == combat::ExchangeResult::time_up)
      return false;
    const double p = sub.probability();
    const std::uint64_t h = t.hash();
    if (r == combat::ExchangeResult::round_ending) {
      if (file(before_at, before, before_r, before_p, t, h, r, p)) before_h.push_back(h);
    } else {
      file(ends, fire.round, fire.result, fire.p, t, h, r, p);
    }
  } while (sub.advance());
  if (before.empty()) return true;
  // the end window, from each state before it: kept for the exploration when its args are
  // plain values (the same call with the same args and state: the same ends)
  std::string args;
  const bool keep = args_text(I.L, round_args, args);
  ExactPath tail;
  for (std::size_t b = 0; b < before.size(); ++b) {
    const std::uint64_t key = (call ^ before_h[b]) * 0x100000001b3ull;
    Engine::Impl::Exact::RoundEnd* kept = nullptr;
    if (keep) {
      auto [lo, hi] = X.round_ends.equal_range(key);
      for (auto it = lo; it != hi && !kept; ++it)
        if (it->second->args == args && it->second->start == before[b]) kept = it->second.get();
    }
    std::unique_ptr<Engine::Impl::Exact::RoundEnd> made;
    if (!kept) {
      made = std::make_unique<Engine::Impl::Exact::RoundEnd>();
      Engine::Impl::Exact::RoundEnd& e = *made;
      Index index;
      tail.clear();
      I.dice.start_exact(&tail);
      do {
        if (++leaves > X.options.max_branches) return false;
        tail.rewind();
        t = before[b];
        I.state = &t;
        I.liveness_dirty = true;
        ExchangeHost host(I, spec);
        host.adds_rounds = false;
        host.round_args = round_args;
        host.round_windows = true;
        combat::ExchangeResult r;
        try {
          r = combat::end_round(combat_env(I), t, x, host, I.scratch_exchange);
        } catch (const combat::CombatError&) {
          return false;
        }
        if (wrote()) return false;
        const std::uint64_t h = t.hash();
        if (file(index, e.state, e.result, e.p, t, h, r, tail.probability())) e.hash.push_back(h);
      } while (tail.advance());
      // a hook that changed the args: what it left there is not kept (the procedure's round
      // would see it): the round is handed back
      std::string after;
      if (keep && !(args_text(I.L, round_args, after) && after == args)) return false;
      kept = made.get();
    }
    for (std::size_t j = 0; j < kept->state.size(); ++j)
      file(ends, fire.round, fire.result, fire.p, kept->state[j], kept->hash[j], kept->result[j],
           before_p[b] * kept->p[j]);
    if (made && keep) {
      made->start = std::move(before[b]);
      made->args = args;
      X.fire_bytes += sizeof(*made) + made->start.bytes() + made->args.size();
      for (const State& u : made->state) X.fire_bytes += u.bytes();
      X.round_ends.emplace(key, std::move(made));
    }
  }
  return true;
}

// The exact mode's rounds of fire (combat::exact_ends): the probability of every way the rounds
// can end, computed once per start (state and spec) and kept for the exploration, and one of them
// taken as a draw of its own; the state becomes that end (made from the start it is): `chain`.
// Where a side's losses depend on more than the hits it has taken so far, which is all the chain
// knows (directed hits: which dice hit; a modifier's round effects, sustain_cancels and repair),
// the C++ rounds run one round a call (x.one_round, a step that goes "again"): every way that
// round can end is likewise computed once per start and one drawn (`round`, what it returned in
// `result`), or, when it cannot be (enumerate_round), the state is unchanged and the caller runs
// the round (`live`).
enum class ExactRounds { chain, round, live };
ExactRounds exact_exchange(Engine::Impl& I, State& s, const combat::Exchange& x,
                           const Engine::Impl::ExchangeSpec& spec, combat::ExchangeResult& result,
                           int round_args) {
  Engine::Impl::Exact& X = *I.exact;
  std::uint64_t key = 0xcbf29ce484222325ull;  // the call's arguments, then the state
  for (std::uint64_t v :
       {static_cast<std::uint64_t>(x.location), static_cast<std::uint64_t>(x.a),
        static_cast<std::uint64_t>(x.d), reinterpret_cast<std::uint64_t>(&spec),
        reinterpret_cast<std::uint64_t>(x.order_a.data()), static_cast<std::uint64_t>(x.sustain_a),
        reinterpret_cast<std::uint64_t>(x.order_d.data()), static_cast<std::uint64_t>(x.sustain_d),
        static_cast<std::uint64_t>(x.cap)})
    key = (key ^ v) * 0x100000001b3ull;
  key = (key ^ static_cast<std::uint64_t>(x.spend_chained)) * 0x100000001b3ull;
  for (std::span<const int> declined : {x.declined_a, x.declined_d}) {
    key = (key ^ declined.size()) * 0x100000001b3ull;
    for (int m : declined) key = (key ^ static_cast<std::uint64_t>(m)) * 0x100000001b3ull;
  }
  const Engine::Impl::Exact::Fire* fire = nullptr;
  if (X.last_fire && X.last_args == key && X.last_fire->start == s) fire = X.last_fire;
  const std::uint64_t args = key;
  if (!fire) {
    key = (key ^ s.hash()) * 0x100000001b3ull;
    auto [lo, hi] = X.fires.equal_range(key);
    for (auto it = lo; it != hi && !fire; ++it)
      if (it->second->start == s) fire = it->second.get();
  }
  if (!fire) {
    const combat::Env env = combat_env(I);
    auto made = std::make_unique<Engine::Impl::Exact::Fire>();
    made->start = s;
    made->key = key;
    // a live hook of spec.start_of_round or spec.end_of_round (round_args: the caller let them
    // run in the round)
    const bool ending =
        round_args && ((spec.start_window >= 0 && I.window_live_unreplaced(spec.start_window)) ||
                       (spec.end_window >= 0 && I.window_live_unreplaced(spec.end_window)));
    made->one_round =
        ending || combat::directs_hits(env, s, x.a, x.location, *x.roll) ||
        combat::directs_hits(env, s, x.d, x.location, *x.roll) ||
        combat::has_round_effects(env, s, x.a, *x.roll, x.declined_a, x.spend_chained) ||
        combat::has_round_effects(env, s, x.d, *x.roll, x.declined_d, x.spend_chained);
    if (!made->one_round) {
      // (a counter spent on near misses the chain cannot take: one round a call)
      made->ends = combat::exact_ends(env, s, x);
      made->one_round = made->ends.unsupported;
    }
    if (made->one_round) {
      if (!spec.again) return ExactRounds::live;  // (the caller hands the rounds back)
      combat::Exchange one = x;
      one.one_round = true;
      // (the end window with a live hook at the start: its hooks run apart from the round)
      const bool defer = spec.end_window >= 0 && I.window_live_unreplaced(spec.end_window);
      if (!enumerate_round(I, s, one, spec, *made, ending ? round_args : 0, defer, args))
        return ExactRounds::live;
      for (const State& t : made->round) X.fire_bytes += t.bytes();
    } else {
      for (const combat::ExactEnds::End& e : made->ends.ends) made->p.push_back(e.p);
      X.fire_bytes += sizeof(combat::ExactEnds::End) * made->ends.ends.size() +
                      sizeof(combat::ExactEnds::Change) *
                          (made->ends.a.changes.size() + made->ends.d.changes.size());
    }
    X.fire_bytes += made->start.bytes() + sizeof(*made);
    fire = made.get();
    X.fires.emplace(key, std::move(made));
  }
  X.last_fire = fire, X.last_args = args;
  const std::size_t at = X.path ? X.path->used() : 0;
  const std::uint32_t k = I.dice.choose(fire->p.data(), static_cast<std::uint32_t>(fire->p.size()));
  I.liveness_dirty = true;
  if (fire->one_round) {
    s = fire->round[k];
    result = fire->result[k];
    // a round that goes on: the next begins (ExchangeHost::round_begins)
    if (result == combat::ExchangeResult::round_done && spec.metric != kNoSym)
      add_run_metric(I, spec.metric, 1);
    if (X.path && I.dice.exact_path() == X.path) X.round_draw = {fire, k, at, X.writes.size()};
    return ExactRounds::round;
  }
  fire->ends.apply(s, k);  // s is the start
  // the rounds begun after the first: the rounds fought less one, expected given this end
  if (spec.metric != kNoSym) add_run_metric(I, spec.metric, fire->ends.ends[k].rounds - 1);
  return ExactRounds::chain;
}

// Best play, one side: expands state `i` of the rounds' graph (Exact::Rounds): every roll of
// its round and every option of the best side (x.whole_a or x.whole_d), each put together from
// the round's parts (combat::round_parts, put_round_parts) as play_round_parts does, to the next
// round's state or an end of the combat (canonical, equal ones merged). False when it cannot be:
// a round that would hand back or is not in parts, or the other side with a choice.
bool expand_round(Engine::Impl& I, Engine::Impl::Exact::Rounds& g, std::uint32_t i,
                  const combat::Exchange& x, const Engine::Impl::ExchangeSpec& spec) {
  Engine::Impl::Exact& X = *I.exact;
  struct Restore {
    Engine::Impl& I;
    State* state;
    ~Restore() { I.state = state, I.liveness_dirty = true; }
  } restore{I, I.state};
  const int best = x.whole_a ? 0 : 1;
  g.done[i] = 1;
  RoundNames& names = g.names;
  const std::size_t names_bytes = names.bytes();
  const RoundNames::Key me = g.states[i];
  State work;
  names.build(me, work);
  I.state = &work;
  I.liveness_dirty = true;
  ExchangeHost host(I, spec);
  host.adds_rounds = false;
  for (int w : spec.windows)
    if (I.window_live_unreplaced(w)) return false;
  combat::RoundParts& parts = g.parts;
  if (x.a != g.a || x.d != g.d) return false;
  // the state's names: its sides' rolls and takes kept by them (combat::RoundPartsCache)
  g.takes.own_name[0] = me.a, g.takes.own_name[1] = me.d, g.takes.rest_name = me.rest;
  const bool in_parts =
      combat::round_parts(combat_env(I), work, x, host, I.scratch_exchange, parts, &g.takes);
  g.takes.own_name[0] = g.takes.own_name[1] = g.takes.rest_name = combat::RoundPartsCache::kNoName;
  if (!in_parts) return false;
  Engine::Impl::Exact::Rounds::Round round;
  round.first = static_cast<std::uint32_t>(g.rolls.size());
  const std::size_t moves_first = g.moves.size();
  // the state's name (exact/process.hpp, RoundNames): each side's own units and the rest; a
  // next state is named by the sides' units after their takes and the rest after the round, and
  // built only when that name is new
  const std::uint32_t cfg_a = me.a, cfg_d = me.d, rest = me.rest;
  State& t = g.scratch;
  const auto& ra = parts.side[0].roll;
  const auto& rd = parts.side[1].roll;
  // where each roll and option leads: the best side b takes the other's hits (each number of
  // hits with its options), the other side o takes b's hits (its policy's take alone)
  const int other = 1 - best;
  const std::vector<double>& roll_b = parts.side[best].roll;   // b's hits: o's rows
  const std::vector<double>& roll_o = parts.side[other].roll;  // o's hits: b's rows
  const std::uint32_t cfg_b = best == 0 ? cfg_a : cfg_d, cfg_o = best == 0 ? cfg_d : cfg_a;
  auto& other_after = g.other_after;
  auto& other_raw = g.other_raw;
  auto& row_to = g.row_to;
  // where nothing names a unit of either side, a side's configuration after its take is named in
  // canonical order (RoundNames::canonical): the next state's name is then its canonical name,
  // and the state is built only once for all the takes that differ only in which of alike units
  // took the hits
  const bool canon = !g.kinds.empty() && names.clean(rest, cfg_a, cfg_d);
  auto named = [&](std::uint32_t c) { return canon ? names.canonical(c, g.kinds) : c; };
  other_after.assign(roll_b.size(), RoundNames::kNone);
  other_raw.assign(roll_b.size(), RoundNames::kNone);
  for (std::size_t h = 0; h < roll_b.size(); ++h) {
    if (!(roll_b[h] > 0)) continue;
    if (parts.side[other].row(h).size() != 1) return false;
    other_raw[h] = names.after(cfg_o, h, 0, parts.side[other].row(h)[0]);
    if (other_raw[h] == RoundNames::kNone) return false;
    other_after[h] = named(other_raw[h]);
  }
  // where each roll leads: a row of moves, one per option of b, kept once for every state whose
  // roll has b take the same hits from the same configuration while o ends in the same one
  // (what a move leads to depends on no more: RoundNames::find is keyed by it)
  row_to.assign(roll_b.size() * roll_o.size(), {0, 0});
  for (std::size_t hb = 0; hb < roll_o.size(); ++hb) {
    if (!(roll_o[hb] > 0)) continue;
    const std::vector<combat::RoundParts::Take>& options = parts.side[best].row(hb);
    if (options.empty()) return false;
    for (std::size_t ho = 0; ho < roll_b.size(); ++ho) {
      if (!(roll_b[ho] > 0)) continue;
      const combat::RoundParts::Take& take_o = parts.side[other].row(ho)[0];
      const Engine::Impl::Exact::Rounds::RowKey row_key{
          cfg_b, static_cast<std::uint32_t>(hb << 1 | (take_o.fires ? 1u : 0u)), other_after[ho],
          rest};
      if (!g.row_slots.empty()) {
        const auto& found = g.row_slot(row_key);
        if (found.count != 0) {
          row_to[ho * roll_o.size() + hb] = {found.first, found.count};
          continue;
        }
      }
      const auto row_first = static_cast<std::uint32_t>(g.moves.size());
      for (std::size_t o = 0; o < options.size(); ++o) {
        const combat::RoundParts::Take& take_b = options[o];
        const std::uint32_t raw_b = names.after(cfg_b, hb, o, take_b);
        if (raw_b == RoundNames::kNone) return false;
        const std::uint32_t after_b = named(raw_b);
        const std::uint32_t raw_a = best == 0 ? raw_b : other_raw[ho];
        const std::uint32_t raw_d = best == 0 ? other_raw[ho] : raw_b;
        const bool end = !(take_b.fires && take_o.fires);  // (put_round_parts: over)
        RoundNames::Key key{best == 0 ? after_b : other_after[ho],
                            best == 0 ? other_after[ho] : after_b,
                            end ? rest : names.next_rest[rest], end ? 1u : 0u};
        // (the next state's units named: the canonical order needs it clean too)
        if (canon && key.rest != RoundNames::kNone && !names.clean(key.rest, raw_a, raw_d))
          return false;
        auto to = key.rest == RoundNames::kNone ? RoundNames::kNone : names.find(key, best);
        if (to == RoundNames::kNone) {
          const std::uint32_t ha = static_cast<std::uint32_t>(best == 0 ? ho : hb);
          const std::uint32_t hd = static_cast<std::uint32_t>(best == 0 ? hb : ho);
          const std::size_t oa = best == 0 ? o : 0, od = best == 1 ? o : 0;
          t = work;
          I.state = &t;
          const combat::ExchangeResult r =
              combat::put_round_parts(parts, t, x, host, ha, hd, oa, od);
          if (r != (end ? combat::ExchangeResult::over : combat::ExchangeResult::round_done))
            return false;
          // the state built is the one its name says (before its canonical order): its rest
          // compared with the name's (interned the first time a round goes on from `rest`)
          if (key.rest == RoundNames::kNone) {
            names.next_rest[rest] = key.rest = names.rest(t, x.a, x.d);
            if (canon && !names.clean(key.rest, raw_a, raw_d)) return false;
          } else if (!names.rest_is(key.rest, t, x.a, x.d)) {
            return false;
          }
          if (!names.holds(raw_a, t) || !names.holds(raw_d, t)) return false;
          const bool exchanged = t.canonicalise(g.kinds);
          if (end) {
            const std::uint64_t h = t.hash();
            to = static_cast<std::uint32_t>(g.ends.size());
            for (auto [lo, hi] = g.end_at.equal_range(h); lo != hi; ++lo)
              if (g.ends[lo->second] == t) {
                to = lo->second;
                break;
              }
            if (to == g.ends.size()) {
              g.end_at.emplace(h, to);
              g.ends.push_back(t);
              X.fire_bytes += t.bytes();
            }
          } else {
            // a round's state is kept by its canonical name: the name it was looked up by when
            // that is the state in canonical order (its configurations canonical, or nothing
            // exchanged), else the one its canonical order gives
            const bool as_named = canon ? names.holds(key.a, t) && names.holds(key.d, t) &&
                                              (!exchanged || names.rest_is(key.rest, t, x.a, x.d))
                                        : !exchanged;
            const RoundNames::Key name = as_named
                                             ? key
                                             : RoundNames::Key{names.own(t, x.a), names.own(t, x.d),
                                                               names.rest(t, x.a, x.d), 0};
            auto [it, added] =
                g.state_at.emplace(name, static_cast<std::uint32_t>(g.states.size()));
            if (added) {
              g.states.push_back(name);
              g.done.push_back(0), g.ok.push_back(0), g.round.emplace_back();
              X.fire_bytes += sizeof(name) + 32;
            }
            to = it->second;
          }
          if (to > CombatProcess::kMostMoveTo) return false;
          names.file(key, to, best);
        }
        g.moves.push_back({to, end});
      }
      const std::pair<std::uint32_t, std::uint32_t> row{
          row_first, static_cast<std::uint32_t>(g.moves.size()) - row_first};
      const std::size_t slots = g.row_slots.size();
      g.file_row(row_key, row.first, row.second);
      X.fire_bytes += (g.row_slots.size() - slots) * sizeof(g.row_slots[0]);
      row_to[ho * roll_o.size() + hb] = row;
    }
  }
  // the rolls in order: a's hits, then d's; each reads its row
  for (std::uint32_t ha = 0; ha < ra.size(); ++ha) {
    if (!(ra[ha] > 0)) continue;
    for (std::uint32_t hd = 0; hd < rd.size(); ++hd) {
      const double p = ra[ha] * rd[hd];
      if (!(p > 0)) continue;
      const std::size_t ho = best == 0 ? ha : hd, hb = best == 0 ? hd : ha;
      const auto [first, n] = row_to[ho * roll_o.size() + hb];
      // a roll where nobody is hit: back to this state (no choice)
      if (n == 1 && !g.moves[first].end && g.moves[first].to == i) {
        round.self += p;
        continue;
      }
      g.rolls.push_back({p, first, n});
    }
  }
  round.count = static_cast<std::uint32_t>(g.rolls.size()) - round.first;
  X.fire_bytes += names.bytes() - names_bytes;
  // (the rolls and moves are kept here for every process of the graph: counted once)
  X.fire_bytes += (g.rolls.size() - round.first) * sizeof(CombatProcess::Roll) +
                  (g.moves.size() - moves_first) * sizeof(CombatProcess::Move);
  g.round[i] = round;
  g.ok[i] = 1;
  return true;
}

// The combat from `s` as a decision process (exact/process.hpp): the states of the rounds'
// graph it reaches (expanded as they are first reached, and kept for the run: the combats that
// start from other states, after an Anti-Fighter Barrage say, meet there), numbered from the
// start, and the ends they reach. False when some state cannot be expanded, when the states come
// back otherwise than in a round where nobody is hit, or past the exploration's bounds.
bool build_process(Engine::Impl& I, const State& s, const combat::Exchange& x,
                   const Engine::Impl::ExchangeSpec& spec, Engine::Impl::Exact::Rounds& g,
                   Engine::Impl::Exact::Process& out) {
  Engine::Impl::Exact& X = *I.exact;
  if (g.a == kNoEntity && g.d == kNoEntity) g.a = x.a, g.d = x.d;
  if (x.a != g.a || x.d != g.d) return false;
  const std::size_t names_bytes = g.names.bytes();
  const RoundNames::Key name{g.names.own(s, x.a), g.names.own(s, x.d), g.names.rest(s, x.a, x.d),
                             0};
  X.fire_bytes += g.names.bytes() - names_bytes;
  auto [at, added] = g.state_at.emplace(name, static_cast<std::uint32_t>(g.states.size()));
  const std::uint32_t start = at->second;
  if (added) {
    g.states.push_back(name);
    X.fire_bytes += sizeof(name) + 32;
    g.done.push_back(0), g.ok.push_back(0), g.round.emplace_back();
  }
  CombatProcess& P = out.process;
  P.metric = spec.metric;
  P.rolls = &g.rolls, P.moves = &g.moves;
  // the graph's numbers -> the process's (rounds, then ends), kNone: not reached yet
  constexpr std::uint32_t kNone = CombatProcess::kNone;
  std::vector<std::uint32_t>& local = P.local;
  std::vector<std::uint32_t>& local_end = P.local_end;
  local.assign(g.states.size(), kNone), local_end.assign(g.ends.size(), kNone);
  std::vector<std::uint32_t> global{start};
  local[start] = 0;
  // (rows seen by this process: row_stamp == stamp)
  const std::uint32_t stamp = ++g.row_serial;
  std::uint32_t base = 0;
  std::vector<std::size_t> row_state;  // by row: the last state that listed it
  for (std::size_t k = 0; k < global.size(); ++k) {
    const std::uint32_t i = global[k];
    if (global.size() > X.options.max_states || (X.options.stop && X.options.stop->load()) ||
        I.signalled.load(std::memory_order_relaxed))
      return false;
    if (!g.done[i]) expand_round(I, g, i, x, spec);
    if (!g.ok[i]) return false;
    const Engine::Impl::Exact::Rounds::Round& r = g.round[i];
    if (g.row_stamp.size() < g.moves.size()) {
      g.row_stamp.resize(g.moves.size(), 0);
      g.row_local.resize(g.moves.size(), 0);
    }
    const auto rows_first = static_cast<std::uint32_t>(P.state_rows.size());
    for (std::uint32_t q = r.first; q < r.first + r.count; ++q) {
      const CombatProcess::Roll& roll = g.rolls[q];
      // a row of moves (where the roll's options lead) that rolls share: numbered once; listed
      // once among the state's rows
      if (g.row_stamp[roll.first] == stamp) {
        const std::uint32_t row = g.row_local[roll.first];
        P.row_of.push_back(row);
        if (row_state[row] != k) row_state[row] = k, P.state_rows.push_back(row);
        continue;
      }
      g.row_stamp[roll.first] = stamp, g.row_local[roll.first] = P.rows;
      P.row_moves.emplace_back(roll.first, roll.count);
      row_state.push_back(k);
      P.state_rows.push_back(P.rows);
      P.row_of.push_back(P.rows++);
      for (std::uint32_t m = roll.first; m < roll.first + roll.count; ++m) {
        const CombatProcess::Move mv = g.moves[m];
        std::vector<std::uint32_t>& map = mv.end ? local_end : local;
        std::vector<std::uint32_t>& seen = mv.end ? out.ends : global;
        if (mv.to >= map.size()) map.resize(mv.end ? g.ends.size() : g.states.size(), kNone);
        std::uint32_t& at = map[mv.to];
        if (at == kNone) at = static_cast<std::uint32_t>(seen.size()), seen.push_back(mv.to);
      }
    }
    P.rounds.push_back({r.first, r.count, r.self, base, rows_first,
                        static_cast<std::uint32_t>(P.state_rows.size()) - rows_first});
    base += r.count;
  }
  P.ends = static_cast<std::uint32_t>(out.ends.size());
  return P.ends > 0 && P.finish();
}

// The process of the combat from `s` for this call (`args`: its arguments' key), made once and
// kept for the run's exploration (counted against the byte bound); null when the combat is not
// one (build_process), and `index` its index among the run's processes.
const Engine::Impl::Exact::Process* best_process(Engine::Impl& I, const State& s,
                                                 const combat::Exchange& x,
                                                 const Engine::Impl::ExchangeSpec& spec,
                                                 std::uint64_t args, std::uint32_t& index) {
  Engine::Impl::Exact& X = *I.exact;
  const std::uint64_t key = (args ^ s.hash()) * 0x100000001b3ull;
  for (auto [lo, hi] = X.process_of.equal_range(key); lo != hi; ++lo) {
    const Engine::Impl::Exact::Process& p = *X.processes[lo->second];
    if (p.start == s) {
      index = lo->second;
      return p.ok ? &p : nullptr;
    }
  }
  Engine::Impl::Exact::Rounds* g = nullptr;
  for (const auto& r : X.rounds)
    if (r->args == args) g = r.get();
  if (!g) {
    X.rounds.push_back(std::make_unique<Engine::Impl::Exact::Rounds>());
    g = X.rounds.back().get();
    g->args = args;
    for (const std::string& k : I.rules.interchangeable) g->kinds.push_back(sym(k));
  }
  auto made = std::make_unique<Engine::Impl::Exact::Process>();
  made->start = s;
  made->key = key;
  made->rounds = g;
  made->ok = build_process(I, s, x, spec, *g, *made);
  if (!made->ok) made->ends.clear(), made->process = {};
  X.fire_bytes += sizeof(*made) + made->start.bytes() + made->process.bytes() +
                  made->ends.size() * sizeof(std::uint32_t);
  index = static_cast<std::uint32_t>(X.processes.size());
  X.process_of.emplace(key, index);
  X.processes.push_back(std::move(made));
  return X.processes.back()->ok ? X.processes.back().get() : nullptr;
}

// Whether the policy's answer to `decision` (the options at `options_index`) reads nothing of the
// state, so that it is the same in every round: the ruleset's policy function for it, found as
// Engine::Impl::decide finds it, called with what decide gives it (the player, the options, the
// player's policy settings, the decision, "helps" true) but a ctx that any use of fails. No
// function: decide takes the first option, the same every time.
bool answer_reads_no_state(Engine::Impl& I, EntityId player, const std::string& decision,
                           int options_index) {
  lua_State* L = I.L;
  if (I.policies_ref == LUA_NOREF) return true;
  const auto known = I.reads_no_state.find({player, decision});
  if (known != I.reads_no_state.end()) return known->second;
  const int top = lua_gettop(L);
  options_index = lua_absindex(L, options_index);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.policies_ref);
  bool has = lua_getfield(L, -1, decision.c_str()) == LUA_TFUNCTION;
  if (!has && decision.rfind("use:", 0) == 0) {
    lua_pop(L, 1);
    has = lua_getfield(L, -1, "use") == LUA_TFUNCTION;
  }
  if (!has) {
    lua_settop(L, top);
    return true;
  }
  bool touched = false;
  lua_newtable(L);  // the ctx: every field read or written fails, and says so
  lua_createtable(L, 0, 2);
  lua_pushlightuserdata(L, &touched);
  lua_pushcclosure(
      L,
      [](lua_State* Ls) -> int {
        *static_cast<bool*>(lua_touserdata(Ls, lua_upvalueindex(1))) = true;
        return luaL_error(Ls, "the policy reads the state");
      },
      1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__index");
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_pushinteger(L, player);
  lua_pushvalue(L, options_index);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I.player_policy_ref);
  if (lua_rawgeti(L, -1, player) == LUA_TNIL) lua_pop(L, 1), lua_newtable(L);
  lua_remove(L, -2);
  lua_pushstring(L, decision.c_str());
  lua_pushboolean(L, 1);
  const int status = I.protected_call(6, 2, I.options.hook_budget);
  lua_settop(L, top);
  const bool no_state = status == LUA_OK && !touched;
  I.reads_no_state[{player, decision}] = no_state;
  return no_state;
}

// The live modifiers of `player` with spend (and some of its counter left), or that repair the
// units that sustain (repair = sustained; with pay, the cost of it left), whose replaced optional
// hook the player's policy would not use, asked as that hook is ("use:<id>", as if it helps): in
// the C++ rounds they spend and repair nothing. With `constant`: false when an answer may read
// the state (answer_reads_no_state), which the chain needs the same in every round.
void declined_spending(Engine::Impl& I, const State& s, EntityId player, Sym purpose,
                       std::vector<int>& out, bool* constant = nullptr) {
  out.clear();
  const auto& mods = I.content->modifiers;
  for (std::size_t mi = 0; mi < mods.size(); ++mi) {
    const ModifierDef& m = mods[mi];
    const int k = static_cast<int>(mi);
    const bool spends = m.spend != kNoSym && s.counter(player, m.spend) > 0;
    const bool repairs = m.repair == ModifierDef::Repair::sustained &&
                         (m.pay == kNoSym || s.counter(player, m.pay) >= m.cost);
    if (!(spends || repairs) || !combat::modifier_applies(combat_env(I), s, k, player, purpose))
      continue;
    for (const HookDef& h : I.bus.hooks()) {
      if (h.replaced_by != k || !h.optional) continue;
      lua_State* L = I.L;
      lua_createtable(L, 2, 0);
      lua_pushliteral(L, "yes");
      lua_rawseti(L, -2, 1);
      lua_pushliteral(L, "no");
      lua_rawseti(L, -2, 2);
      std::string reason;
      const std::string id = h.id.substr(h.id.find(':') + 1);
      if (constant && *constant && !answer_reads_no_state(I, player, "use:" + id, lua_gettop(L)))
        *constant = false;
      const std::string answer =
          I.decide(player, "use:" + id, lua_gettop(L), reason, [L] { lua_pushboolean(L, 1); });
      lua_pop(L, 1);
      if (answer != "yes") {
        out.push_back(k);
        break;
      }
    }
  }
}

// Whether the declared modifiers do all the work here of the hooks they replace on the exchange's
// windows: each such hook with `covered` (x.covered_hooks) is asked, for each copy of its source
// on the board (as its window would run it), with args {location = }; a false means the hook
// must run, in the procedure's round. Nothing in the runtime's rounds changes what it reads
// otherwise than they do themselves (its modifier's source lost: the hook could not run either).
bool replaced_hooks_covered(Engine::Impl& I, const State& s, const Engine::Impl::ExchangeSpec& x,
                            EntityId location) {
  lua_State* L = I.L;
  for (int hi : x.covered_hooks) {
    const HookDef& h = I.bus.hook(hi);
    if (!I.window_live(h.window)) continue;
    for (EntityId e = 0; e < static_cast<EntityId>(s.entities.size()); ++e) {
      const Entity& u = s.entities[static_cast<std::size_t>(e)];
      if (u.record != h.source || u.location == kReinforcements || !h.requirement_met(s, u.owner))
        continue;
      struct Viewer {
        Engine::Impl& I;
        int saved;
        ~Viewer() { I.hook_viewer = saved; }
      } viewer{I, I.hook_viewer};
      I.hook_viewer = h.pack_order;
      lua_rawgeti(L, LUA_REGISTRYINDEX, h.covered);
      I.push_hook_ctx();
      lua_pushinteger(L, u.owner);
      lua_pushinteger(L, e);
      lua_createtable(L, 0, 1);
      lua_pushinteger(L, location);
      lua_setfield(L, -2, "location");
      I.call(4, 1, I.options.hook_budget, [&] { return "hook '" + h.id + "' covered"; });
      const bool covered = lua_toboolean(L, -1);
      lua_pop(L, 1);
      if (!covered) return false;
    }
  }
  return true;
}

// ctx:exchange_fire(location, a, d, spec, order_a, sustain_a, order_d, sustain_d) -> ongoing
// Rounds of simultaneous fire, run in C++ while nothing can intervene: each round `a` then `d`
// roll (spec.roll, as roll_units), then `a` takes `d`'s hits and `d` takes `a`'s (spec.hits, as
// assign_hits, by each side's order and sustain policy); the round's scope ends and the counter
// (on `location`) counts the next round. It runs a round only while none of spec.windows (nor
// the hit spec's windows) can run a hook, nobody traces and no answers are scripted; otherwise
// it returns true and the procedure runs that round itself. It returns false once a side has no
// units that roll. The procedure's own round must do the same as a round here: a test compares
// the two paths run for run.
// With spec.once, it is one exchange and no round (a first-round step such as Anti-Fighter
// Barrage): it returns nil when it hands the exchange back, else whether both sides still have
// units that roll. With spec.again, a step the step memo records runs one round and returns
// "again" when it goes on: the step returns "again" too, and its next run is the next round.
int l_exchange_fire(lua_State* L) {
  Engine::Impl& I = impl(L);
  State& s = st(L);
  const EntityId location = check_entity(L, 2);
  const EntityId a = check_entity(L, 3);
  const EntityId d = check_entity(L, 4);
  const Engine::Impl::ExchangeSpec& x = exchange_spec_at(L, 5);
  const std::vector<Sym>& order_a = order_at(L, 6);
  const Sustain sustain_a = sustain_at(L, 7);
  const std::vector<Sym>& order_d = order_at(L, 8);
  const Sustain sustain_d = sustain_at(L, 9);
  const std::int64_t cap = lua_isnoneornil(L, 10)
                               ? -1
                               : check_range(L, 10, 1, INT32_MAX, "round cap", "ctx:exchange_fire");
  // the args of spec.start_of_round and spec.end_of_round (the exact mode opens those windows
  // in the rounds it enumerates)
  int round_args = 0;
  if (!lua_isnoneornil(L, 11)) {
    luaL_checktype(L, 11, LUA_TTABLE);
    if ((x.start_window >= 0 || x.end_window >= 0) && x.again) round_args = 11;
  }
  // handing the exchange back: "ongoing, run the round yourself", or for a single exchange
  // "not done"
  auto hand_back = [&] {
    if (x.once)
      lua_pushnil(L);
    else
      lua_pushboolean(L, 1);
    return 1;
  };
  const bool scripted = I.run_options && I.run_options->answers && !I.run_options->answers->empty();
  // a person at the terminal assigns the hits: the procedure's own round asks them
  const bool asked = I.options.interactive && isatty(STDIN_FILENO);
  // best play: the best side's hits are its choices, which the procedure's own round asks
  const bool best = I.exact && (I.exact->best == a || I.exact->best == d) && I.exact->best >= 0;
  // best play with fixed dice: the procedure's round takes the exact mode's picks
  const bool picking = I.best_picking(a) || I.best_picking(d);
  if (!I.options.exchange_fire || I.tracing() || scripted || asked || picking) return hand_back();
  // a replaced hook whose modifier cannot do all of its work here runs in the procedure's round
  if (!x.covered_hooks.empty() && !replaced_hooks_covered(I, s, x, location)) return hand_back();
  if (best) {
    // its rounds run here one a call (x.again) where the only decision in them is the hit
    // assignment: no hook can run, no hit is directed, no modifier has a round effect or
    // spends (whose use would be a decision too); else the procedure's round asks them
    if (x.once || !x.again || !I.dice.exact() || I.exact->done) return hand_back();
    for (int w : x.windows)
      if (I.window_live_unreplaced(w)) return hand_back();
    const combat::Env env = combat_env(I);
    if (combat::directs_hits(env, s, a, location, *x.roll) ||
        combat::directs_hits(env, s, d, location, *x.roll) ||
        combat::has_round_effects(env, s, a, *x.roll) ||
        combat::has_round_effects(env, s, d, *x.roll))
      return hand_back();
  }
  combat::Exchange ex;
  ex.location = location, ex.a = a, ex.d = d;
  ex.roll = x.roll, ex.hits = x.hits;
  ex.order_a = order_a, ex.order_d = order_d;
  ex.sustain_a = sustain_a, ex.sustain_d = sustain_d;
  ex.counter = x.counter, ex.counter_scope = x.counter_scope, ex.round_scope = x.round_scope;
  ex.once = x.once;
  ex.cap = cap;
  std::vector<int> declined_a, declined_d;
  bool answers_change = false;  // a "use:<hook>" answer of declined_spending may read the state
  // best play: the best side's hits are one choice among the assignment's distinct outcomes
  // (as choose_casualties asks them in the procedure's round), in one round run here
  combat::AskOutcome whole_a, whole_d;
  if (best) {
    const auto& kinds = I.rules.interchangeable;
    const bool alike = std::find(kinds.begin(), kinds.end(), I.rules.unit_kind) != kinds.end();
    for (const EntityId player : {a, d}) {
      if (!(I.exact->best == player)) continue;
      combat::AskOutcome* const whole = player == a ? &whole_a : &whole_d;
      whole->choose = [&I, player](std::size_t n) {
        const int k = I.exact->choose(player, static_cast<std::uint32_t>(n), I.dice.exact_path());
        return k < 0 ? std::size_t{0} : static_cast<std::size_t>(k);
      };
      whole->interchangeable = alike;
      (player == a ? ex.whole_a : ex.whole_d) = whole;
    }
  } else {
    // the exact mode's chain spends where the answers are the same in every round; where an
    // answer may read the state, each round asks it again (below: one round a call)
    bool constant = !x.once;
    declined_spending(I, s, a, x.roll->purpose, declined_a, constant ? &constant : nullptr);
    declined_spending(I, s, d, x.roll->purpose, declined_d, constant ? &constant : nullptr);
    ex.spend_chained = constant && I.dice.exact();
    answers_change = !x.once && !constant;
  }
  ex.declined_a = declined_a, ex.declined_d = declined_d;
  // a step the memo records runs one round: the next round starts from a state the memo keeps,
  // where runs that took other paths meet (a trie over every round of a combat outgrows the
  // memo's slots, and its paths never meet)
  ex.one_round = best || (x.again && I.memo_writes && !I.dice.exact());
  // Monte Carlo: an answer that reads the state is asked again at each round's state (the
  // procedure's next call), not once for every round of this call
  if (answers_change && !I.dice.exact()) {
    if (!x.again) return hand_back();
    ex.one_round = true;
  }
  // best play, one side: the whole combat as a decision process, one of its ends drawn (a draw
  // best play solves, exact/process.hpp); the step goes on from that end
  if (best && I.options.best_process && I.options.round_parts &&
      I.exact->best.second == kNoEntity && !I.exact->options.best_decisions &&
      !I.exact->options.best_walk && !I.exact->options.best_forced_walk && I.exact->path &&
      I.dice.exact_path() == I.exact->path && I.exact->path->used() == 0 &&
      I.exact->choices.empty()) {
    std::uint64_t args = 0xcbf29ce484222325ull;
    for (std::uint64_t v :
         {static_cast<std::uint64_t>(location), static_cast<std::uint64_t>(a),
          static_cast<std::uint64_t>(d), reinterpret_cast<std::uint64_t>(&x),
          reinterpret_cast<std::uint64_t>(order_a.data()), static_cast<std::uint64_t>(sustain_a),
          reinterpret_cast<std::uint64_t>(order_d.data()), static_cast<std::uint64_t>(sustain_d),
          static_cast<std::uint64_t>(cap), static_cast<std::uint64_t>(ex.whole_a != nullptr)})
      args = (args ^ v) * 0x100000001b3ull;
    // (the outcomes are made for each state of the process: none kept)
    whole_a.by_hits = whole_d.by_hits = nullptr;
    std::uint32_t index = 0;
    if (const Engine::Impl::Exact::Process* P = best_process(I, s, ex, x, args, index)) {
      Engine::Impl::Exact& X = *I.exact;
      const auto at = static_cast<std::uint32_t>(X.path->used());
      const std::uint32_t k = X.path->draw(P->process.ends);
      X.choices.push_back({at, P->process.ends, 0, static_cast<std::int32_t>(index)});
      s = P->rounds->ends[P->ends[k]];
      I.liveness_dirty = true;
      lua_pushboolean(L, 0);  // every end is the end of the combat
      return 1;
    }
  }
  combat::ExchangeResult result = combat::ExchangeResult::over;
  bool failed = false, drawn = false;  // drawn: the exact mode drew the round's end (result)
  {  // the objects of this block are gone before a Lua error unwinds the frame
    ExchangeHost host(I, x);
    if (I.dice.exact() && !x.once && !best) {
      // every hook that can run runs in the procedure's rounds. A hook a declared modifier
      // replaces is done by the chain's rollers; one that `requires`
      // a counter its owner is short of cannot run (no hook runs in the chain, so the counter
      // stays short)
      // (but spec.start_of_round and spec.end_of_round, given their args: they run in the round
      // enumerated in C++)
      for (int w : x.windows)
        if (!(round_args && x.in_round(w)) && I.window_live_unreplaced(w)) return hand_back();
      const ExactRounds taken = exact_exchange(I, s, ex, x, result, round_args);
      if (taken == ExactRounds::chain) {
        lua_pushboolean(L, 0);  // every end of the chain is the end of the combat
        return 1;
      }
      drawn = taken == ExactRounds::round;
      // directed hits or a modifier's round effect (sustain_cancels, repair) make a side's
      // losses depend on more than the hits it has taken so far, which is all the chain knows:
      // one round in C++ instead, each roll's hits drawn as counts, and the step returns "again"
      // so that the rounds meet at the states they leave
      if (!x.again) return hand_back();
      ex.one_round = true;
    }
    // best play: the round is kept (Exact::Fan) so that the node's other leaves can be filed
    // without running the step again (replay_best_round)
    Engine::Impl::Exact::Fan* fan =
        best && I.exact->path && I.dice.exact_path() == I.exact->path ? &I.exact->fan : nullptr;
    if (fan) {
      // (a fan made valid by an earlier run of the node stays so: same draws before it, same
      // start; the node's path checks that, run_exact_step)
      if (fan->at != I.exact->path->used()) fan->valid = false;
      fan->pending = true;
      fan->at = I.exact->path->used();
      if (!(fan->start == s)) {
        fan->start = s;
        fan->outcomes_a.clear(), fan->outcomes_d.clear();
        fan->parts_key = 0;
        fan->ends.clear();
      }
      whole_a.by_hits = &fan->outcomes_a, whole_d.by_hits = &fan->outcomes_d;
      fan->writes = I.exact->writes;
      fan->choices = I.exact->choices;
      fan->ids_known = false;
    }
    // the call's arguments (the start is the fan's): the round's parts are made for them
    std::uint64_t parts_key = 0;
    if (fan && I.options.round_parts) {
      parts_key = 0xcbf29ce484222325ull;
      for (std::uint64_t v :
           {static_cast<std::uint64_t>(location), static_cast<std::uint64_t>(a),
            static_cast<std::uint64_t>(d), reinterpret_cast<std::uint64_t>(&x),
            reinterpret_cast<std::uint64_t>(order_a.data()), static_cast<std::uint64_t>(sustain_a),
            reinterpret_cast<std::uint64_t>(order_d.data()), static_cast<std::uint64_t>(sustain_d),
            static_cast<std::uint64_t>(cap), static_cast<std::uint64_t>(ex.whole_a != nullptr),
            static_cast<std::uint64_t>(ex.whole_d != nullptr)})
        parts_key = (parts_key ^ v) * 0x100000001b3ull;
      parts_key |= 1;  // (0: none made)
      if (fan->parts_key != parts_key) {
        fan->parts_ok =
            combat::round_parts(combat_env(I), s, ex, host, I.scratch_exchange, fan->parts);
        fan->parts_key = parts_key;
        ++fan->parts_made;
        I.liveness_dirty = true;
      }
    }
    try {
      if (!drawn && parts_key != 0 && fan->parts_ok) {
        result = combat::play_round_parts(fan->parts, I.dice, s, ex, host, fan->ids);
        fan->ids_known = true;
        I.liveness_dirty = true;
      } else if (!drawn) {
        result = combat::exchange_fire(combat_env(I), I.dice, I.memo_laws, s, ex, host,
                                       I.scratch_exchange);
      }
      if (fan) {
        fan->end = I.exact->path->used();
        fan->after = s;
        fan->writes_after = I.exact->writes.size();
        fan->choices_after = I.exact->choices.size();
        fan->round_done = result == combat::ExchangeResult::round_done;
        fan->result = result;
        fan->spec = &x;
        fan->order_a.assign(order_a.begin(), order_a.end());
        fan->order_d.assign(order_d.begin(), order_d.end());
        fan->whole_a = whole_a, fan->whole_d = whole_d;
        fan->x = ex;
        fan->x.order_a = fan->order_a, fan->x.order_d = fan->order_d;
        fan->x.whole_a = ex.whole_a ? &fan->whole_a : nullptr;
        fan->x.whole_d = ex.whole_d ? &fan->whole_d : nullptr;
        fan->x.declined_a = {}, fan->x.declined_d = {};
      }
    } catch (const combat::CombatError& e) {
      push_error(L, e.what());
      failed = true;
    }
  }
  if (failed) return lua_error(L);  // no C++ object is alive here
  switch (result) {
    case combat::ExchangeResult::handed_back:
      return hand_back();
    case combat::ExchangeResult::time_up:  // past the run's time limit
      I.exhaust(1,
                "time limit exceeded in ctx:exchange_fire (rounds in which no unit is ever hit?)");
      I.raise_exhausted();
      return 0;
    case combat::ExchangeResult::round_done:
    case combat::ExchangeResult::round_ended:  // the procedure's next step ends the combat
      lua_pushliteral(L, "again");
      return 1;
    case combat::ExchangeResult::ongoing:
    case combat::ExchangeResult::over:
      break;
    case combat::ExchangeResult::round_ending:  // (only where the host defers it: not here)
      return luaL_error(L, "ctx:exchange_fire: a round's end left to its caller");
  }
  lua_pushboolean(L, result == combat::ExchangeResult::ongoing);
  return 1;
}

// ctx:destroy(e [, window]): the unit goes to its owner's reinforcements; the window (if
// named) opens with args {unit = e}.
int l_destroy(lua_State* L) {
  Engine::Impl& I = impl(L);
  const EntityId e = check_entity(L, 2);
  I.destroy(e, lua_isnoneornil(L, 3) ? -1 : I.window_index(L, 3));
  return 0;
}

}  // namespace

bool replay_best_round(Engine::Impl& I, ExactPath& path, State& s, int& next, std::uint64_t& same) {
  Engine::Impl::Exact& X = *I.exact;
  Engine::Impl::Exact::Fan& fan = X.fan;
  State& t = fan.scratch;
  t = fan.start;
  const bool parts = fan.parts_key != 0 && fan.parts_ok;
  State* const saved = I.state;
  RunResult* const saved_result = I.result;
  RunResult scratch;
  I.state = &t;
  I.result = &scratch;
  I.liveness_dirty = true;
  path.rewind();
  path.skip(fan.at);  // the draws before the round are the fan's (the same prefix)
  I.dice.start_exact(&path);
  X.path = &path;
  X.writes = fan.writes;
  X.choices = fan.choices;
  I.memo_writes = &X.writes;
  combat::ExchangeResult r = combat::ExchangeResult::handed_back;
  {
    ExchangeHost host(I, *fan.spec);
    try {
      r = parts ? combat::play_round_parts(fan.parts, I.dice, t, fan.x, host, fan.ids)
                : combat::exchange_fire(combat_env(I), I.dice, I.memo_laws, t, fan.x, host,
                                        I.scratch_exchange);
    } catch (const combat::CombatError&) {
      r = combat::ExchangeResult::handed_back;  // the step's own run raises it
    }
  }
  I.state = saved, I.result = saved_result;
  I.liveness_dirty = true;
  I.memo_writes = nullptr;
  I.dice.stop_exact();
  X.path = nullptr;
  fan.ids_known = parts;
  if (path.mismatch() || path.used() != path.size()) return false;
  if (r == combat::ExchangeResult::round_done) {
    std::swap(s, t);
    same = fan.same(false);
    return true;
  }
  if (r != combat::ExchangeResult::over || !parts || fan.at != 0) return false;
  for (const Engine::Impl::Exact::Fan::End& e : fan.ends)
    if (e.parts == fan.parts_made && e.ids[0] == fan.ids[0] && e.ids[1] == fan.ids[1]) {
      s = e.final;
      X.writes.insert(X.writes.end(), e.writes.begin(), e.writes.end());
      next = e.next_step;
      same = fan.same(true);
      return true;
    }
  return false;
}

void Engine::Impl::destroy(EntityId e, int window) {
  const EntityId from = state->at(e).location;
  remove_destroyed(e);
  if (window >= 0 && window_live(window)) open_destroyed(e, from, window);
}

void Engine::Impl::remove_destroyed(EntityId e) {
  Entity& u = state->at(e);
  if (tracing())
    trace->add(EventKind::destroyed,
               "destroyed:" + name_of(u.owner) + ":" + std::string(sym_name(u.type)),
               name_of(u.owner) + "'s " + std::string(sym_name(u.type)) + " is destroyed");
  u.location = kReinforcements;
  if (bus.is_source(u.record)) liveness_dirty = true;  // its hooks may be the last of a window
}

void Engine::Impl::open_destroyed(EntityId e, EntityId from, int window) {
  lua_newtable(L);
  lua_pushinteger(L, e);
  lua_setfield(L, -2, "unit");
  lua_pushinteger(L, state->at(e).owner);
  lua_setfield(L, -2, "player");
  if (from >= 0) lua_pushinteger(L, from), lua_setfield(L, -2, "location");
  open_windows(&window, 1, lua_gettop(L));
  lua_pop(L, 1);
}

void register_dice_api(lua_State* L) {
  static const luaL_Reg api[] = {{"roll", guarded<l_roll>},
                                 {"roll_units", guarded<l_roll_units>},
                                 {"roll_hits", guarded<l_roll_hits>},
                                 {"assign_hits", guarded<l_assign_hits>},
                                 {"assign_hits_each", guarded<l_assign_hits_each>},
                                 {"exchange_fire", guarded<l_exchange_fire>},
                                 {"destroy", guarded<l_destroy>},
                                 {nullptr, nullptr}};
  luaL_setfuncs(L, api, 0);
  // pools are light userdata; every light userdata shares this metatable
  static const luaL_Reg pool[] = {{"size", guarded<p_size>},
                                  {"hits", guarded<p_hits>},
                                  {"count", guarded<p_count>},
                                  {"face", guarded<p_face>},
                                  {"value", guarded<p_value>},
                                  {"result", guarded<p_result>},
                                  {"unit", guarded<p_unit>},
                                  {"player", guarded<p_player>},
                                  {"hit", guarded<p_hit>},
                                  {"rerolls", guarded<p_rerolls>},
                                  {"cancelled", guarded<p_cancelled>},
                                  {"threshold", guarded<p_threshold>},
                                  {"reroll", guarded<p_reroll>},
                                  {"set", guarded<p_set>},
                                  {"modify", guarded<p_modify>},
                                  {"cancel", guarded<p_cancel>},
                                  {"add", guarded<p_add>},
                                  {"remove", guarded<p_remove>},
                                  {"set_reroll_limit", guarded<p_set_reroll_limit>},
                                  {"faces", guarded<p_faces>},
                                  {nullptr, nullptr}};
  lua_pushlightuserdata(L, nullptr);
  lua_newtable(L);  // metatable
  lua_newtable(L);  // methods
  luaL_setfuncs(L, pool, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, guarded<p_size>);
  lua_setfield(L, -2, "__len");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
}

}  // namespace rb
