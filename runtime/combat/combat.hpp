// combat/combat: the hot primitives of a combat, in C++ alone: which units of a side roll and
// with what (rollers: their declared modifiers applied), the hits of such a roll, the order in
// which a side loses units to hits by its policy (Casualties), and rounds of simultaneous fire
// in which nothing can intervene (exchange_fire), with the exact mode's view of those rounds
// (exact_ends). The Lua binding (script/api_dice.cpp) reads arguments and calls these; the exact
// mode calls them without Lua. Nothing here names a game: unit types, attributes and die types
// are what the ruleset declares.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/symbols.hpp"
#include "content/content.hpp"
#include "dice/dice.hpp"
#include "state/state.hpp"

namespace rb::combat {

// What rolls (ctx:roll_units): every unit whose `value` attribute is set rolls `count` dice
// (attribute slots; -1: one die) of type `die` against that value; `eligible` (-1: any) must be
// set for a unit to roll.
struct RollSpec {
  Sym purpose = kNoSym;
  int die = 0, value = 0, count = -1, eligible = -1;
};

// What takes hits (ctx:assign_hits): attribute slots (-1: none) and windows (-1: none).
struct CasualtySpec {
  int eligible = -1, can_sustain = -1, damaged = -1, destroyed_window = -1, sustained_window = -1;
  int sustain_first = -1;  // units with this attribute sustain before any loss, even under "last"
  // within a rank, a unit with less of this attribute is lost before one with more (one that
  // rolls more dice is kept); -1: entity order alone
  int keep = -1;
  std::string decision;
  std::vector<Sym> types;
};

// The sustain policy (ctx:assign_hits).
enum class Sustain { first, last, never };
inline constexpr const char* kSustainNames[] = {"first", "last", "never"};

// A content number out of range in a roll, or a dice stream error during one: the binding raises
// it as a Lua error at the caller's line.
class CombatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the primitives read besides the state.
struct Env {
  const Content* content = nullptr;
  const std::vector<DieType>* dice = nullptr;       // the ruleset's die types
  const std::vector<std::uint8_t>* held = nullptr;  // records some player holds; null: unknown
  Sym unit_kind = kNoSym;                           // the entity kind of units
  const DieType& die_type(int i) const { return (*dice)[static_cast<std::size_t>(i)]; }
};

// One unit's part of a roll.
struct Roller {
  int threshold;
  EntityId unit;
  int dice;  // at most kMaxDice
  int modifier;
  int directed = -1;  // a live modifier with hits_to that applies to it (its index), -1: none
  int raised = -1;    // a live modifier with spend that applies to it (its index), -1: none
};

inline constexpr std::int64_t kMaxDice = 100'000;  // dice in one roll, one pool (as ctx:roll's)
// The most values a group draw on two counts may take (the step memo's trie slots per node).
inline constexpr std::int64_t kMaxGroupBound = 1 << 16;

// The units of `player` at `location` that roll as the spec says, with their live modifiers, in
// rolling order (ascending value, then entity order), in `out`. Returns how many dice they roll;
// throws CombatError naming `call` past kMaxDice or when a value, modifier or count is out of
// range. `live` is scratch space.
std::int64_t rollers(const Env& env, const State& s, EntityId player, EntityId location,
                     const RollSpec& spec, const char* call, std::vector<Roller>& out,
                     std::vector<int>& live);

// The declared modifiers that change the value of a die `unit` (of `player`) rolls for `purpose`
// (live, fitting the unit, delta not 0), in declaration order, in `out`: what the trace names
// beside the die ("hits on 6 = 7 - 1: +1 Morale Boost": the value it needs, then how the
// modifiers moved it from the threshold).
void die_modifiers(const Env& env, const State& s, EntityId player, EntityId unit, Sym purpose,
                   std::vector<int>& out);

// The probability of each number of hits of a roll by these rollers.
void hit_distribution(const DieType& type, std::span<const Roller> units, std::vector<double>& out);

// The hits of a roll by these rollers, die for die from the stream, as a pool of them would
// count. In the exact mode it is one draw over the number of hits; under the step memo's tape
// one group draw whose law goes to `laws`. Throws CombatError when the stream refuses a draw.
// With `directing` (a modifier with hits_to that applies to some rollers, see directing()),
// `directed` gets the hits of those rollers: under the tape such a roll is a group draw on both
// counts (its bound at most kMaxGroupBound, else draws of single dice), and it cannot be rolled
// in the exact mode (CombatError).
int roll_hits(const Env& env, DiceStream& dice, std::vector<Law>& laws, const RollSpec& spec,
              std::span<const Roller> units, std::int64_t total, std::vector<double>& scratch,
              int directing = -1, int* directed = nullptr);

// A roll whose near misses may be raised to hits by spending a counter (a modifier's spend and
// raise): the dice of the rollers that `by` applies to that miss by at most `raise` count as
// `near`. Returns the hits before any spending; `spendable` is the most the player can spend (its
// counter). In the exact mode it is one draw over (hits, near misses up to `spendable`); else the
// dice one by one (no group draw under the step memo's tape).
int roll_near_misses(const Env& env, DiceStream& dice, const RollSpec& spec,
                     std::span<const Roller> units, int by, int raise, std::int64_t spendable,
                     int& near);

// The modifier that directs the hits of these rollers (hits_to), -1: none. Throws CombatError
// when two modifiers direct the hits of one roll.
int directing(const Env& env, std::span<const Roller> units);

// Whether some roller of `player` at `location` has its hits directed (hits_to).
bool directs_hits(const Env& env, const State& s, EntityId player, EntityId location,
                  const RollSpec& spec);

// Whether a live modifier of `player` does something in the runtime's rounds besides change
// rolls (sustain_cancels, repair, sustained_flag), for rolls of `spec`'s purpose.
// Whether declared modifier `mi` is live for rolls of `purpose` by `player` (its source held,
// its role, activated).
bool modifier_applies(const Env& env, const State& s, int mi, EntityId player, Sym purpose);

// The live modifiers of `player` that make a Sustain Damage cancel more hits in every assignment
// of hits (sustain_cancels and no purpose: ctx:assign_hits, ctx:assign_hits_each and the rounds
// of every purpose), in `out` (cleared first).
void assignment_cancelling(const Env& env, const State& s, EntityId player, std::vector<int>& out);
// Whether unit `u` is one a declared modifier applies to (its units, location, present).
bool unit_fits_modifier(const State& s, const ModifierDef& m, const Entity& u);

// A modifier with spend counts while the player has some of its counter and has not declined it;
// one with repair = sustained while the player can pay its cost and has not declined it. With
// spend_chained, a modifier whose only round effect is spend, or a repair = sustained with pay,
// does not count (the exact mode's chain spends its counter, or pays for the repairs: exact_ends).
bool has_round_effects(const Env& env, const State& s, EntityId player, const RollSpec& spec,
                       std::span<const int> declined = {}, bool spend_chained = false);

// A side's units that can take hits, ranked once by a hit order: the queue hit assignment takes
// its casualties from (see ctx:assign_hits in scripts/README.md for the policy). Built from the
// state once; then it follows its own changes (a unit sustains, a unit is lost), so it stays true
// while nothing else changes those units (a hook, a repair): within one assignment, or within
// one ctx:exchange_fire.
class Casualties {
 public:
  // `cancelling`: live modifiers of the player with sustain_cancels (its units that fit one
  // cancel that many hits when they sustain; else 1)
  void build(const Env& env, const State& s, EntityId player, EntityId location,
             const CasualtySpec& spec, std::span<const Sym> order,
             std::span<const int> cancelling = {});
  // A new assignment begins: "sustained in this assignment" starts empty again.
  void begin_assignment() { ++assignment_; }
  // Each Sustain Damage in this assignment cancels at least `n` hits (an ability of the player's
  // that says so for the assignment; build starts again from the modifiers).
  void cancel_at_least(int n) {
    for (Unit& u : units_) u.cancels = u.cancels < n ? n : u.cancels;
  }

  // Indices into the queue (-1: none), for the unit of type `type` (kNoSym: any) that:
  int next_loss(Sym type) const;     // the order loses next
  int next_sustain(Sym type) const;  // sustains next (the lowest-ranked undamaged that can)
  // The policy's target for one hit; `sustain` says whether it sustains. -1: nothing left.
  int policy_target(Sustain mode, bool& sustain) const;
  // How many hits the units left can take under `mode` (one each, and what a Sustain Damage
  // cancels if they can sustain).
  int room(Sustain mode) const;
  // The hits a Sustain Damage of the unit at `i` cancels (1, or a modifier's sustain_cancels).
  int cancels(int i) const { return units_[static_cast<std::size_t>(i)].cancels; }
  // The unit at `i` sustains (damaged set) or is lost (off the board: kReinforcements).
  void take(State& s, int i, bool sustain);

  bool alive(int i) const { return units_[static_cast<std::size_t>(i)].alive; }
  bool can_sustain(int i) const {
    const Unit& u = units_[static_cast<std::size_t>(i)];
    return u.can && !u.damaged;
  }
  EntityId entity(int i) const { return units_[static_cast<std::size_t>(i)].e; }
  Sym type(int i) const { return units_[static_cast<std::size_t>(i)].type; }
  int size() const { return static_cast<int>(units_.size()); }
  bool empty_alive() const { return first_alive() < 0; }

 private:
  struct Unit {
    EntityId e;
    Sym type;
    int rank;
    bool alive, damaged, can, first;
    std::uint64_t sustained_in = 0;  // the assignment it last sustained in
    int cancels = 1;                 // hits one Sustain Damage of it cancels
    std::int64_t keep = 0;           // its value of the spec's `keep` attribute
  };
  bool sustained_now(const Unit& u) const { return u.sustained_in == assignment_; }
  int first_alive() const;
  int last_sustain(int at_rank) const;

  std::vector<Unit> units_;   // by rank, then entity order
  std::vector<int> damaged_;  // per rank: damaged units alive (none: the first alive is lost)
  std::vector<Unit> sorted_;  // build's scratch
  std::vector<int> start_;
  const CasualtySpec* spec_ = nullptr;
  EntityId location_ = kNoEntity;
  std::uint64_t assignment_ = 1;
  // cursors: every unit before them is lost (alive_), or cannot sustain any more (sustain_,
  // first_): units never come back and never repair within the queue's life
  mutable std::size_t alive_ = 0, sustain_ = 0, first_ = 0;
};

// Assigns `hits` to the queue by the policy: units sustain or are lost (take); a Sustain Damage
// cancels the unit's cancels() hits, as many as are left. Lost units are appended to `lost`,
// units that sustained to `sustaining`. Returns the units lost.
int assign_by_policy(State& s, Casualties& q, int hits, Sustain mode, std::vector<EntityId>& lost,
                     std::vector<EntityId>* sustaining);

struct AskOutcome;  // combat/assign_hits.hpp

// What an exchange of fire (ctx:exchange_fire) needs to know.
struct Exchange {
  EntityId location = kNoEntity, a = kNoEntity, d = kNoEntity;
  const RollSpec* roll = nullptr;
  const CasualtySpec* hits = nullptr;
  std::span<const Sym> order_a, order_d;
  Sustain sustain_a = Sustain::first, sustain_d = Sustain::first;
  Sym counter = kNoSym, counter_scope = kNoSym, round_scope = kNoSym;
  bool once = false;       // one exchange, no round
  bool one_round = false;  // stop after one round that goes on (round_done)
  std::int64_t cap = -1;   // the round counter stops growing here (-1: never)
  // modifiers with spend whose player's policy declines the optional hook they replace, for a
  // and for d: they spend nothing
  std::span<const int> declined_a, declined_d;
  // the exact mode's chain (exact_ends) spends the counters of modifiers whose only round effect
  // is spend, and pays for a repair = sustained with pay: the policy's answer to the hook they
  // replace is the same in every round (the caller checks)
  bool spend_chained = false;
  // best play (the exact mode, one round): a side whose assignment is a choice among its distinct
  // outcomes (null: by its policy); only where no hit is directed and no modifier has a round
  // effect (the caller checks)
  const AskOutcome *whole_a = nullptr, *whole_d = nullptr;
};

// What the engine does around an exchange.
class ExchangeHost {
 public:
  virtual ~ExchangeHost() = default;
  virtual bool time_up() = 0;            // the run is past its time limit
  virtual bool can_intervene() = 0;      // a hook could run in the next round: hand it back
  virtual void destroy(EntityId e) = 0;  // a unit lost (already off the board) is destroyed
  virtual void round_begins() = 0;       // a new round begins (metrics)
  // a round after the first begins (before any roll), and a round ended and the combat goes
  // on (before its scope ends): the caller's windows there, where it runs them (true: a hook
  // ran, and may have changed any unit)
  // (called only with round_windows set)
  virtual bool round_starts() { return false; }
  virtual bool round_ends() { return false; }
  bool round_windows = false;
  // with round_windows and x.one_round: the round stops where its end's window would open
  // (round_ending, the state before that window); the caller goes on with end_round
  bool defers_end = false;
};

// round_ended: a hook at the round's end (host.round_ends) left a side with nothing to fire; no
// next round begins, and the procedure ends the combat (its round's end has opened).
// round_ending: host.defers_end, and the combat goes on: the round's end is end_round's.
enum class ExchangeResult {
  handed_back,
  ongoing,
  over,
  time_up,
  round_done,
  round_ended,
  round_ending
};

// Scratch space of exchange_fire, kept by the caller so that a run allocates nothing once warm.
struct ExchangeScratch {
  struct Side {
    std::vector<Roller> rollers;
    std::int64_t total = 0;
    bool stale = true;
    int directing = -1;  // the modifier that directs some rollers' hits (hits_to), -1: none
    Casualties queue;
    // directed hits taken (hits_to): the units of those types, as a second queue; a hit taken
    // through one queue makes the other stale
    Casualties directed_queue;
    CasualtySpec directed_spec;
    int directed_by = -1;  // the modifier and hit spec directed_spec was built from
    const CasualtySpec* directed_from = nullptr;
    bool queue_stale = true, directed_stale = true;
    std::vector<EntityId> fire;  // units that count as firing (the roll's eligible units)
    std::size_t fire_alive = 0;  // cursor: units before it are lost
    // the side's live modifiers with a round effect (built with the rollers): sustain_cancels,
    // repair after hits, repair at the start of a round, a flag on units that sustain, repair of
    // units that sustain (repair = sustained)
    std::vector<int> cancelling, repair_after, repair_start, flagging, repair_sustained;
    int spending = -1;     // a live modifier that spends a counter to raise near misses, -1: none
    bool effects = false;  // any of them
  };
  Side side[2];
  std::vector<int> live;
  std::vector<EntityId> lost, sustained;
  std::vector<double> distribution;
  std::vector<std::int32_t> modifier_records;  // records whose loss changes a modifier
};

// Rounds of simultaneous fire while nothing can intervene: each round `a` then `d` roll, then
// `a` takes `d`'s hits and `d` takes `a`'s, by their policies; the round scope ends and the
// counter counts the next round. Each side's rollers and casualty queue are built once and
// follow the losses; dice come from the stream in the same order as rolling each round afresh.
// Returns handed_back (a hook could run: the caller runs the round), over or ongoing (the sides
// after the last round: with x.once after the one exchange; otherwise once a side has no units
// that roll it is over), round_done (x.one_round: a round ended and the next would begin),
// round_ended (a hook at the round's end left a side with nothing to fire) or time_up.
ExchangeResult exchange_fire(const Env& env, DiceStream& dice, std::vector<Law>& laws, State& s,
                             const Exchange& x, ExchangeHost& host, ExchangeScratch& scratch);

// The end of a round of x.one_round that exchange_fire left at round_ending (host.defers_end),
// from the state it left there: the round's end window (host.round_ends), then what
// exchange_fire does after it. Returns round_done or round_ended, as exchange_fire would have.
ExchangeResult end_round(const Env& env, State& s, const Exchange& x, ExchangeHost& host,
                         ExchangeScratch& scratch);

// The exact mode's rounds of fire: every way the rounds can end, with its probability and the
// expected rounds fought given that end, and the state at that end (apply): each side having
// taken its hits by its policy, the round scope ended if more than one round was fought, the
// counter where the rounds left it. A side's units after k hits are the same whatever rounds the
// hits came in, so the ends keep, per side, what each further hit changes, not a state per end.
struct ExactEnds {
  struct End {
    double p = 0;
    double rounds = 0;
    int ka = 0, kd = 0;        // hits taken by each side
    std::int32_t counter = 0;  // the round counter at the end
    bool several = false;      // more than one round was fought (the round scope ended)
    std::int64_t spent_a = 0, spent_d = 0;  // of each side's Side::spend
  };
  // what one hit changed in one unit: where it is, and its damaged attribute (if the spec has one)
  struct Change {
    EntityId e = kNoEntity, location = kNoEntity;
    std::int32_t damaged = 0;
  };
  struct Side {
    std::vector<Change> changes;
    std::vector<std::uint32_t> upto;  // upto[k]: the changes of the first k hits
    // the counter the side spends on near misses, or pays its repairs from (x.spend_chained)
    Sym spend = kNoSym;
  };
  std::vector<End> ends;  // in the order of (ka, kd, counter, several, spent_a, spent_d)
  EntityId player_a = kNoEntity, player_d = kNoEntity;
  // the chain cannot spend these counters (a side's states spend two, or too many states), or a
  // side's repairs leave it in a state that is not one of its queue's: the caller runs one round
  // a call instead; `ends` is empty
  bool unsupported = false;
  Side a, d;
  EntityId location = kNoEntity;
  Sym counter = kNoSym, counter_scope = kNoSym, round_scope = kNoSym;
  int damaged = -1;  // the damaged attribute's slot (-1: none)
  // `s`, the state the rounds started from, becomes the state at end `k`.
  void apply(State& s, std::size_t k) const;
};
// Throws ScriptError when no end is found.
ExactEnds exact_ends(const Env& env, const State& s, const Exchange& x);

// Best play's round (exact mode, x.one_round; no directed hit, no round effect, no counter spent:
// the rounds ctx:exchange_fire runs while a side plays best), from one start, in parts that each
// draw of the round puts together: each side's roll (the probabilities it draws its hits by, as
// the round does) and, for each number of hits the side takes, each outcome of its assignment (its
// chooser's, x.whole_a / x.whole_d, else the policy's alone) as the entities it changes, the units
// it loses and whether the side still has units that roll. A side's assignment reads and changes
// its own units alone, so the two sides' parts put together are the round's state.
// Entities kept once each, equal ones shared (the takes of a round's parts point at them: an
// Entity is 216 bytes, and best play's processes keep millions of takes). Not copied: takes point
// into it.
class EntityPool {
 public:
  EntityPool() = default;
  EntityPool(const EntityPool&) = delete;
  EntityPool& operator=(const EntityPool&) = delete;
  const Entity* keep(const Entity& e);
  void clear() { kept_.clear(), at_.clear(); }
  std::size_t size() const { return kept_.size(); }

 private:
  std::deque<Entity> kept_;
  std::unordered_multimap<std::uint64_t, const Entity*> at_;
};
struct RoundParts {
  struct Take {
    // entities as the assignment left them (kept in the parts' or the cache's EntityPool)
    std::vector<std::pair<EntityId, const Entity*>> changed;
    std::vector<EntityId> lost;  // destroyed (ExchangeHost::destroy)
    bool fires = true;
    std::uint32_t id = 0;  // equal for the side's takes that change the same (whatever the hits)
  };
  struct Side {
    std::vector<double> roll;              // P(hits = h)
    std::vector<std::vector<Take>> takes;  // by hits taken (0: none, one Take), by option
    // or a cache's (RoundPartsCache: rows for as many hits as the other side rolls, or more),
    // not copied
    const std::vector<std::vector<Take>>* kept = nullptr;
    // the takes for `hits` taken, by option
    const std::vector<Take>& row(std::size_t hits) const {
      return kept ? (*kept)[hits] : takes[hits];
    }
  };
  Side side[2];         // x.a, x.d
  EntityPool entities;  // the takes' entities, when no cache keeps them
};
// The parts of the round from `s` (which must be the state `host` destroys units in: it is
// changed while the parts are made and given back as it was). False when the round cannot be
// put in parts (it would hand back, a roll fails, an assignment changes more than entities):
// the caller runs the round (exchange_fire).
// `cache` (best play's decision process, which makes the parts of many states of one combat): a
// side's roll and takes are kept by the caller's names of the state (below) and the rows they are
// made for, and made once.
struct RoundPartsCache {
  struct Entry {
    std::vector<std::vector<RoundParts::Take>> takes;
  };
  std::deque<Entry> entries;  // (a RoundParts points at an entry's takes: kept in place)
  EntityPool entities;        // the entries' takes' entities
  // The caller's names for the state of the next call (kNoName: none, and nothing is kept): each
  // side's own entities (the player and the units it owns) and the rest of the state, numbered so
  // that equal numbers are equal entities (best play's RoundNames). A side's roll reads its own
  // entities and the rest alone (its units, the modifiers its records and the roles, active
  // modifiers and locations give it), and its takes its own entities alone, so both are kept by
  // those names and found without reading the state. Set before each call.
  static constexpr std::uint32_t kNoName = 0xFFFFFFFFu;
  std::uint32_t own_name[2] = {kNoName, kNoName};
  std::uint32_t rest_name = kNoName;
  std::unordered_map<std::uint64_t, std::vector<double>> roll_by_name;  // (own, rest) -> roll
  std::unordered_map<std::uint32_t, std::size_t> entry_by_name;         // own -> entries index
};
bool round_parts(const Env& env, State& s, const Exchange& x, ExchangeHost& host,
                 ExchangeScratch& scratch, RoundParts& out, RoundPartsCache* cache = nullptr);
// One draw of that round from `s` (the start the parts were made from): each side's hits drawn,
// then each side's assignment (its chooser's choice among the outcomes, as exchange_fire makes
// it), the round's end as exchange_fire ends it. The same draws, states and result as
// exchange_fire(x) from that start.
// `ids` (if given): the ids of the two takes put together (the state left is the same for the
// same pair).
ExchangeResult play_round_parts(const RoundParts& parts, DiceStream& dice, State& s,
                                const Exchange& x, ExchangeHost& host,
                                std::uint32_t* ids = nullptr);
// The same round with its draws given: `a` rolled hits_a and `d` hits_d, and each side took its
// option (an index into its takes for the hits it took; 0 the policy's). Best play's decision
// process (exact/process.hpp) puts every roll and option together this way.
ExchangeResult put_round_parts(const RoundParts& parts, State& s, const Exchange& x,
                               ExchangeHost& host, std::uint32_t hits_a, std::uint32_t hits_d,
                               std::size_t option_a, std::size_t option_d,
                               std::uint32_t* ids = nullptr);

}  // namespace rb::combat
