// script/lua_host: INTERNAL to runtime/script/. Do not include this header anywhere else: the
// rest of the runtime speaks to Lua only through script/engine.hpp (DESIGN.md, "Only
// runtime/script/ includes lua.h").
//
// Layout of the binding (after Luanti's cpp_api/lua_api split):
//   engine.cpp    C++ calls Lua: loading, the one call gate, setup and run
//   sandbox.cpp   what content sees: environments, require, read-only views, ctx, frozen
//                 globals, unforgeable error attribution, the state guard of check and test
//   api_state.cpp Lua calls C++: entities, attributes, roles, counters, links, modifiers
//   api_dice.cpp  Lua calls C++: rolls, pools, hit assignment
//   api_flow.cpp  Lua calls C++: windows and hooks, decisions, trace and results
//   api_board.cpp Lua calls C++: the hex board (places, neighbours, distance, rings, lines)
#pragma once

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <lua.hpp>

#include "base/error.hpp"
#include "combat/assign_hits.hpp"
#include "combat/combat.hpp"
#include "dice/counts.hpp"
#include "exact/explore.hpp"
#include "exact/markov.hpp"
#include "exact/process.hpp"
#include "exact/round_names.hpp"
#include "script/engine.hpp"
#include "script/memo.hpp"

namespace rb {

// Limits on what content can make the runtime do (scripts/README.md, "The sandbox"). Each is
// a clear Lua error naming the call, so the call gate names the hook or procedure.
inline constexpr std::int64_t kMaxDice = 100'000;  // dice in one roll, one pool
static_assert(kMaxDice == combat::kMaxDice);
inline constexpr std::int64_t kMaxRunDice = 1'000'000;  // dice put in pools during one run
inline constexpr std::size_t kMaxRunPools = 100'000;    // pools made during one run
inline constexpr std::size_t kMaxRunSpecs = 10'000;     // distinct spec tables in one run
inline constexpr std::size_t kMaxFaceClasses = 1'000;   // distinct ctx:roll faces lists (an engine)
inline constexpr std::size_t kSpecCacheKeep = 1'000;    // spec tables kept from run to run
inline constexpr std::size_t kMaxNewNames = 100'000;    // names first made by scripts at run time
inline constexpr std::size_t kMaxSymbols = 2'000'000;   // names in the process (every engine)
inline constexpr std::size_t kMaxNameBytes = 1024;      // one name made by a script
inline constexpr std::size_t kMaxSymbolBytes = 64u << 20;  // all names in the process
inline constexpr std::int64_t kMaxOptions = 10'000;        // options of one decision
inline constexpr std::size_t kMaxEntities = 100'000;       // entities in one game state
inline constexpr std::size_t kMaxLinks = 1'000'000;        // links in one game state
inline constexpr double kMaxPatternWork = 1e8;  // string.find/match/gmatch/gsub: estimated steps

struct Engine::Impl {
  Impl(std::shared_ptr<const Content> c, EngineOptions o);
  ~Impl();

  std::shared_ptr<const Content> content;
  const Ruleset& rules;
  EngineOptions options;
  lua_State* L = nullptr;
  EventBus bus;

  // Lua registry references
  int ctx_ref = LUA_NOREF;       // the ruleset's ctx: procedures, setup, policies
  int hook_ctx_ref = LUA_NOREF;  // the hooks' ctx: read-only (sandbox.cpp, make_ctx)
  // The sandbox of the hook that is running (-1: none): ctx:scenario() and ctx:policy() give a
  // hook its read-only view of those tables, so nothing a hook writes outlives its run.
  int hook_viewer = -1;
  // record index + 1 -> the table ctx:record built for it (built once; content sees it through
  // read-only views, so it never changes)
  int record_cache_ref = LUA_NOREF;
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
  bool input_ended = false;   // interactive: the terminal's input ended, the policies decide
  std::vector<int> env_refs;  // one sandbox per pack, then the ruleset's
  // what every environment holds before any script loads: global -> its fields (a library's
  // functions; empty for a function), for `rulebench types` (api_names.cpp)
  std::map<std::string, std::vector<std::string>> sandbox_globals;
  // What the runtime knows of each environment (sandbox.cpp). None of it is reachable from
  // content: `require` finds its sandbox by an index in its upvalue.
  struct Sandbox {
    std::string owner;       // "pack 'id'" or "ruleset 'id'", for messages
    fs::path dir;            // where its modules are
    int env = LUA_NOREF;     // the environment (frozen once loading ends)
    int loaded = LUA_NOREF;  // module name -> module
    int views = LUA_NOREF;   // weak table: a table it shares -> its read-only view of it
    int parent = -1;         // the ruleset's sandbox for a pack, -1 for the ruleset
  };
  std::vector<Sandbox> sandboxes;  // same order as env_refs
  // attributed errors (push_attributed): only the most recent one raised is the runtime's
  int error_meta_ref = LUA_NOREF;
  std::uint64_t error_serial = 0, live_error = 0;

  // memory and instruction budget
  std::size_t memory = 0;
  std::int64_t instructions = 0, instruction_limit = 0;
  int counting = 0;  // nesting of counted calls (the count hook is on while > 0)
  // Once a budget or time limit is exceeded the run is over: a hook raises `kill_message` on
  // every instruction, call and return until the outermost call gate returns, so that content
  // cannot catch the error (pcall, xpcall, <close>) and go on.
  int gate_depth = 0;  // nesting of protected_call
  // The sandbox whose function raised the error a gate is failing with (-1: none known): the
  // message handler finds it, fail() blames that pack when it is not the one the gate called.
  int raised_in = -1;
  bool exhausted = false;
  bool killed = false;  // the outermost gate ended a run that was exhausted (for fail())
  std::string kill_message;
  // Arms the kill hook with "<where at level>message"; then raise_exhausted() raises it.
  // (Two steps: no C++ object may be alive in a frame a Lua error unwinds, it is a longjmp.)
  void exhaust(int level, const std::string& message);
  void raise_exhausted();
  static constexpr std::int64_t kTimeLimited = -1;  // a call under the run's time limit only
  // the run's time limit: the watchdog signals `thread` once past `deadline` (0: none)
  std::atomic<std::int64_t> deadline{0};
  double time_limit = 0;  // that limit, in seconds (for the message)
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
  // best play with fixed dice (RunOptions::best_picks): the next pick to take
  std::size_t best_pick_next = 0;
  // Whether `player`'s decisions take best_picks in this run.
  bool best_picking(EntityId player) const {
    return run_options && run_options->best_picks && state && player != kNoEntity &&
           state->role(run_options->best_picks->role) == player;
  }
  // The next of best_picks for a decision of `player` among n options (traced with every
  // option's value): -1 when the player's decisions do not take them. `words` (the decision,
  // then its n options in the choice's order): the pick is the option with the pick's words
  // (the exact mode chose from a canonical state, whose units may be in another order)
  int take_best_pick(EntityId player, std::uint32_t n, const std::vector<std::string>* words);
  bool memo_run = false;
  std::vector<std::pair<std::string, std::string>>
      labels;  // ctx:label, set by setup  // this run may use the step memo (ctx:steps; see run())
  // ctx:steps' memos, one per list of step functions (anchored: their identity is the key);
  // forgotten when setup builds a new start state
  struct Steps {
    std::vector<int> refs;
    std::vector<const void*> fns;
    StepMemo memo;
    explicit Steps(std::size_t max_bytes) : memo(max_bytes) {}
  };
  std::vector<std::unique_ptr<Steps>> steps_memos;
  // answer_reads_no_state (api_dice.cpp) by (player, decision): the policy function and the
  // player's settings are the scenario's, so it is asked once, not at every exchange of fire;
  // forgotten with the memos (a new start) and when ctx:set_policy changes a player's settings
  std::map<std::pair<EntityId, std::string>, bool> reads_no_state;
  std::vector<MemoWrite>* memo_writes = nullptr;  // while a memoized step runs: its writes
  std::vector<DiceStream::Draw> memo_raw;         // draws made walking the memo (replayed)
  std::vector<DiceStream::KeyDraw> memo_key;      // the executed step's path in the trie
  std::vector<Law> memo_laws;                     // ... and the laws of its group draws
  std::vector<FaceKinds> die_kinds;               // each die type's kinds of face (kinds_of)
  // ctx:roll's faces lists (api_dice.cpp): a die type's faces in the classes a script reads, the
  // faces it names none of one more class. Kept for the engine's life (the step memo's laws name
  // them: LawDie::modifier of a roll counted by face is its id, 1 + its index; 0: kinds_of).
  struct FaceClasses {
    int type = 0;
    FaceKinds kinds;                    // kind[f]: face f's class; first[k]: class k's first face
    std::vector<std::uint8_t> several;  // several[k]: class k has faces that read differently
  };
  std::vector<FaceClasses> face_classes;
  const FaceKinds& classes_of(int type, int id) {
    return id == 0 ? kinds_of(type) : face_classes[static_cast<std::size_t>(id - 1)].kinds;
  }
  std::vector<std::uint32_t> face_counts;  // a roll counted by face: dice per kind
  void forget_memos();
  // The exact mode's exploration under way (run_exact), null otherwise.
  struct ExchangeSpec;
  struct Exact {
    ExactRunOptions options;
    ExactChain chain;  // the chain of ctx:steps, or of the procedure as one step
    int steps = 1;
    bool root = true;               // the procedure runs as one step (until it calls ctx:steps)
    bool done = false;              // ctx:steps explored the run: what follows does not count
    std::vector<MemoWrite> writes;  // what the step being run writes
    ExactPath closed;               // the dice after ctx:steps explored the run (draws refused)
    std::string limit;              // a limit stopped the exploration (ExactLimit's message)
    ExploreStats stats;
    ExactChain::Solution solution;
    ExactPath* path = nullptr;  // the draws of the step being run
    // best play: the players whose decisions are choices (none, one, or two with --best both),
    // the choices the step being run made (ExactLeaf::choices), the trees of the nodes that
    // made some, and what solving for the best play gave. `best == player` asks whether that
    // player's decisions are choices.
    struct BestPlayers {
      EntityId first = kNoEntity, second = kNoEntity;
      bool any() const { return first != kNoEntity; }
      bool operator==(EntityId p) const { return p != kNoEntity && (p == first || p == second); }
      bool operator>=(int) const { return any(); }  // (a test of "some player plays best")
    };
    BestPlayers best;
    std::vector<ExactLeaf::Choice> choices;
    std::vector<ExactTree> trees;
    std::optional<BestPlay> best_result;
    // best play with fixed dice (ExactRunOptions::best_forced_walk): while `forcing`, a step
    // runs with the forced dice and its path holds the side's choices alone; for each choice,
    // the forced dice used before it and its words (decision, options in the choice's order);
    // the walk's picks
    bool forcing = false;
    const DiceStream* forced_dice = nullptr;
    std::vector<std::size_t> pick_dice;
    std::vector<std::vector<std::string>> pick_words;
    std::vector<RunOptions::BestPicks::Pick> picks;
    // Draws one of n options as a best side's choice: an index in [0, n), the path's next
    // draw, recorded as a choice of that side; -1 when no choice is being explored here (the
    // policy decides: no best side, the player is not one, or the draws are not the step's own)
    // `words` (kept when `labels_wanted`): the decision and its options in the choice's order
    // (the policy's first), for trace --best and the table of first decisions
    int choose(EntityId player, std::uint32_t n, ExactPath* active,
               const std::vector<std::string>* words = nullptr) {
      // (forcing: the dice are forced, not drawn from the path; the path holds the choices)
      if (!(best == player) || done || !path || (active != path && !(forcing && !active)) || n < 2)
        return -1;
      const auto at = static_cast<std::uint32_t>(path->used());
      if (words && labels_wanted) label_choice(at, *words);
      if (forcing) {
        pick_dice.push_back(forced_dice ? forced_dice->forced_used() : 0);
        pick_words.push_back(words ? *words : std::vector<std::string>{});
      }
      const std::uint32_t k = path->draw(n);
      choices.push_back({at, n, player == best.second ? 1 : 0});
      return static_cast<int>(k);
    }
    // best play's words for its choices (BestOptions::label): the node being expanded, and by
    // (node, the draws before the choice) 1 + an index into `labels`
    bool labels_wanted = false;
    std::uint32_t expanding = 0;
    std::vector<std::vector<std::string>> labels;
    std::unordered_map<std::uint64_t, std::uint32_t> label_at;
    static std::uint64_t label_key(std::uint32_t node, std::span<const std::uint32_t> prefix) {
      std::uint64_t h = 0xcbf29ce484222325ull ^ node;
      for (std::uint32_t x : prefix) h = (h ^ x) * 0x100000001b3ull;
      return (h ^ prefix.size()) * 0x100000001b3ull;
    }
    void label_choice(std::uint32_t at, const std::vector<std::string>& words) {
      std::vector<std::uint32_t> prefix(at);
      for (std::uint32_t i = 0; i < at; ++i) prefix[i] = path->value(i);
      const std::uint64_t key = label_key(expanding, prefix);
      if (label_at.count(key) || label_at.size() >= 1'000'000) return;
      std::uint32_t id = 0;
      while (id < labels.size() && labels[id] != words) ++id;
      if (id == labels.size()) {
        if (labels.size() >= 4096) return;
        labels.push_back(words);
      }
      label_at.emplace(key, id + 1);
    }
    // ctx:exchange_fire's rounds, by the state and spec they start from: a chain of rounds
    // (exact/fire_chain.hpp: `ends`), or one round run in C++ (`round`: the states it leaves)
    struct Fire {
      State start;
      std::uint64_t key;
      std::vector<double> p;  // by end
      combat::ExactEnds ends;
      bool one_round = false;
      std::vector<State> round;                    // one_round: the state at each end
      std::vector<combat::ExchangeResult> result;  // ... and what the round returned
    };
    std::unordered_multimap<std::uint64_t, std::unique_ptr<Fire>> fires;
    // the last one used, with the key of its call's arguments but the state: the leaves of a
    // node start from one state, which is compared rather than hashed again
    const Fire* last_fire = nullptr;
    std::uint64_t last_args = 0;
    std::size_t fire_bytes = 0;  // what `fires` and `round_ends` hold (against the byte bound)
    // The end window of a round the exact mode enumerates (spec.end_of_round, enumerate_round),
    // by the state the round left before it and the call (spec and arguments, and the window's
    // args as text: `args`): every way its hooks' dice fall, the states they leave (equal ones
    // merged, `hash` theirs) and what the round returned. Rounds from many starts leave the
    // same state: its hooks run once for it, not once per way the round's dice fell.
    struct RoundEnd {
      State start;
      std::string args;
      std::vector<State> state;
      std::vector<std::uint64_t> hash;
      std::vector<combat::ExchangeResult> result;
      std::vector<double> p;
    };
    std::unordered_multimap<std::uint64_t, std::unique_ptr<RoundEnd>> round_ends;
    // the last round's end drawn in the step being run (a one-round Fire): which end, where in
    // the path, and how many writes the step had made just after (run_exact_step files the
    // other ends as siblings when the step returned "again" at once); fire null: none
    struct RoundDraw {
      const Fire* fire = nullptr;
      std::uint32_t k = 0;
      std::size_t at = 0, writes = 0;
    };
    RoundDraw round_draw;
    // Best play: the round ctx:exchange_fire ran in C++ with the best side's hits a choice
    // (`pending`: in the step being run), from the state it was called in; its draws are the
    // path's from `at` on. Once a run of the node's step returned "again" right after that
    // round (`valid`: it drew, wrote and changed nothing after it), the node's other leaves
    // with the same draws before `at` whose round goes on are that round alone: they are filed
    // without running the step (replay_best_round), the others run it.
    struct Fan {
      bool pending = false, valid = false;
      int step = -1;
      std::size_t at = 0, end = 0;    // the path's position before and after the round's draws
      State start, after;             // the state before and after the round
      std::vector<MemoWrite> writes;  // what the run wrote before the round
      std::size_t writes_after = 0;   // ... and how many writes after it
      std::vector<ExactLeaf::Choice> choices;  // the choices made before the round
      std::size_t choices_after = 0;
      combat::Exchange x;  // the call (its spans and choosers point at the members below)
      std::vector<Sym> order_a, order_d;
      combat::AskOutcome whole_a, whole_d;
      // each side's assignment outcomes from `start`, by hits (AskOutcome::by_hits)
      std::vector<std::vector<combat::AssignmentOutcome>> outcomes_a, outcomes_d;
      const ExchangeSpec* spec = nullptr;
      bool round_done = false;  // the round went on (the step's run then returned "again")
      // the round from `start` in parts (combat::round_parts), made once for the call whose
      // arguments hash to parts_key (0: none made since the start changed); every draw of the
      // node's round is put together from them (combat::play_round_parts) rather than run
      combat::RoundParts parts;
      std::uint64_t parts_key = 0;
      bool parts_ok = false;
      std::uint32_t parts_made = 0;  // parts made so far (which parts a round's ids are of)
      combat::ExchangeResult result = combat::ExchangeResult::over;  // what the round returned
      // the ids of the two takes the round put together (ids_known: it was put together from
      // the parts): the same pair leaves the same state
      std::uint32_t ids[2] = {0, 0};
      bool ids_known = false;
      // rounds from `start` (with no draw before them) that ended the combat, by the pair of
      // takes they put together: what the step's run did after the round (it drew and chose
      // nothing more): the state it left, its writes after the round and the step it goes to. A
      // step is a function of its state and its draws, so another leaf whose round puts the same
      // takes together is filed as that run (replay_best_round) without running the step
      struct End {
        std::uint32_t parts = 0;  // parts_made when it was kept (the ids are those parts')
        std::uint32_t ids[2] = {0, 0};
        State final;
        std::vector<MemoWrite> writes;
        int next_step = 0;
      };
      std::vector<End> ends;
      State scratch;  // (replay_best_round's state, its buffers kept)
      // A leaf's ExactLeaf::same for a round from the parts (no draw before it): the parts, the
      // pair of takes and whether the round ended the combat. 0: none.
      std::uint64_t same(bool ended) const {
        if (!ids_known || at != 0 || ids[0] >= (1u << 22) || ids[1] >= (1u << 22)) return 0;
        return (std::uint64_t{1} << 63) | (std::uint64_t{parts_made & 0x7FFFFu} << 44) |
               (std::uint64_t{ids[0]} << 23) | (std::uint64_t{ids[1]} << 1) | (ended ? 1 : 0);
      }
    };
    Fan fan;
    std::uint64_t replayed = 0;  // leaves filed without running the step
    // Best play, one side: the combats ctx:exchange_fire solved as decision processes
    // (exact/process.hpp). `Rounds`: the graph of the rounds' states for one call (its
    // arguments' key), each state expanded once, when a combat first reaches it: its rolls, and
    // by each option of the best side, the next round's state or an end (indices into `states`
    // and `ends`). Combats that start from other states meet there.
    struct Rounds {
      std::uint64_t args = 0;
      std::vector<Sym> kinds;  // interchangeable (State::canonicalise)
      // the rounds' states by name (RoundNames: kept as names, built when expanded), canonical
      // names -> index; the ends whole
      std::vector<RoundNames::Key> states;
      std::unordered_map<RoundNames::Key, std::uint32_t, RoundNames::KeyHash> state_at;
      EntityId a = kNoEntity, d = kNoEntity;  // the sides the names are of
      std::vector<State> ends;
      std::unordered_multimap<std::uint64_t, std::uint32_t> end_at;  // hash -> index
      struct Round {
        std::uint32_t first = 0, count = 0;  // rolls
        double self = 0;
      };
      std::vector<Round> round;    // by state
      std::vector<char> done, ok;  // by state: expanded, and it could be
      std::vector<CombatProcess::Roll> rolls;
      std::vector<CombatProcess::Move> moves;
      // rows of moves that rolls share (a roll's moves are a row): by the best side's
      // configuration, its hits, the other side's configuration after its take, whether that
      // side still fires and the rest; a row's moves [first, first + count)
      struct RowKey {
        std::uint32_t b = 0, hits = 0, other = 0, rest = 0;
        bool operator==(const RowKey&) const = default;
      };
      // (open addressing: a slot with count 0 is empty; at most half full)
      struct RowSlot {
        RowKey key;
        std::uint32_t first = 0, count = 0;
      };
      std::vector<RowSlot> row_slots;
      std::size_t rows_used = 0;
      static std::size_t row_hash(const RowKey& k) {
        std::uint64_t h = (std::uint64_t{k.b} << 32 | k.hits) * 0x9E3779B97F4A7C15ull;
        h ^= (std::uint64_t{k.other} << 32 | k.rest) * 0xC2B2AE3D27D4EB4Full;
        return static_cast<std::size_t>(h ^ (h >> 29));
      }
      // the slot of `k`: its row, or the empty slot where it goes (count 0)
      RowSlot& row_slot(const RowKey& k) {
        const std::size_t mask = row_slots.size() - 1;
        for (std::size_t i = row_hash(k) & mask;; i = (i + 1) & mask)
          if (row_slots[i].count == 0 || row_slots[i].key == k) return row_slots[i];
      }
      // files a new row (after row_slot found none); may grow the table
      void file_row(const RowKey& k, std::uint32_t first, std::uint32_t count) {
        if (2 * (rows_used + 1) > row_slots.size()) {
          std::vector<RowSlot> had(row_slots.empty() ? 1024 : 2 * row_slots.size());
          had.swap(row_slots);
          for (const RowSlot& r : had)
            if (r.count != 0) row_slot(r.key) = r;
        }
        row_slot(k) = {k, first, count};
        ++rows_used;
      }
      // build_process: a row's number in the process being built (row_stamp: which one)
      std::vector<std::uint32_t> row_stamp, row_local;
      std::uint32_t row_serial = 0;
      combat::RoundPartsCache takes;  // each side's takes, by its own units
      RoundNames names;  // the states' names: a next state is built only when its name is new
      combat::RoundParts parts;  // (scratch)
      State scratch;
      // (expand_round's scratch: the other side's configuration after each take, as named and as
      // the take left it, the row each roll reads)
      std::vector<std::uint32_t> other_after, other_raw;
      std::vector<std::pair<std::uint32_t, std::uint32_t>> row_to;  // by (ho, hb): its row
    };
    std::vector<std::unique_ptr<Rounds>> rounds;
    // a combat from one state (and call): the process over the states it reaches (numbered from
    // its start), and each of its ends' index in its Rounds' ends. A node's step draws one of its
    // ends (a draw marked as the process's, ExactLeaf::Choice::process) and goes on from it
    struct Process {
      State start;
      std::uint64_t key = 0;  // the call's arguments and the start's hash
      CombatProcess process;
      const Rounds* rounds = nullptr;
      std::vector<std::uint32_t> ends;
      bool ok = false;  // false: the combat is not such a process (the rounds one by one)
    };
    std::vector<std::unique_ptr<Process>> processes;
    std::unordered_multimap<std::uint64_t, std::uint32_t> process_of;  // key -> index
  };
  std::unique_ptr<Exact> exact;
  std::vector<std::unique_ptr<Pool>> pools;  // a pool keeps its address while more are added
  std::size_t pools_used = 0;
  // A pool's handle (light userdata) is its serial number, never reused by this engine:
  // pools[i] of this run has serial pool_base + i, so a handle saved from an earlier run (or
  // another window, see pool_depth) is refused rather than reading a reused pool.
  std::uint64_t pool_base = 1, next_pool_base = 1;
  std::vector<int> pool_depth;                  // the window nesting depth each pool was made at
  std::vector<std::uint64_t> pool_window;       // ...and the serial of that window (window_serial)
  std::vector<std::uint64_t> window_serial{0};  // serial of the window open at each depth
  std::uint64_t windows_opened = 0;
  void window_opened() {  // called by open_windows once depth counts the new window
    if (window_serial.size() <= static_cast<std::size_t>(depth))
      window_serial.resize(static_cast<std::size_t>(depth) + 1);
    window_serial[static_cast<std::size_t>(depth)] = ++windows_opened;
  }
  std::int64_t run_dice = 0;                // dice put in pools this run (kMaxRunDice)
  std::size_t new_names = 0;                // names first interned by scripts (kMaxNewNames)
  std::deque<std::vector<Firing>> firings;  // one list per nesting depth of open()
  std::vector<int> window_by_sym;           // Sym -> window index (-1), a cache
  int depth = 0;
  // scenario line map for setup errors: "attacker.units.cruiser" -> line
  std::vector<std::pair<std::string, int>> scenario_lines;
  std::string scenario_file;
  fs::path scenario_source;  // the scenario's file, to find lines a copied table lost
  // While setup runs: the (name, kind) of each ctx:record that found nothing (at most 64), so
  // that ctx:reject can name the installed pack that has it (a scenario without its pack)
  bool in_setup = false;
  std::vector<std::pair<std::string, std::string>> setup_misses;

  // cached symbols used by primitives
  Sym s_unit, s_player, s_active_player;
  std::vector<Sym> scope_syms;   // the ruleset's scopes
  std::vector<int> attr_by_sym;  // Sym -> attribute slot (-1: not an attribute), a cache
  std::vector<int> die_by_sym;   // Sym -> die type index, a cache
  std::vector<Sym> type_by_sym;  // Sym of "type:x" -> Sym of the unit type x (kNoSym: unchecked)
  std::vector<std::string> role_names;  // every role set so far (ctx:role checks against them)

  // hook liveness of the run: which records are held, which windows have a hook that can run.
  // Recomputed when an entity is created or changes record, owner or location from off-board.
  std::vector<std::uint8_t> held, live;
  bool liveness_dirty = true;
  bool window_live(int w) {
    ensure_liveness();
    return live[static_cast<std::size_t>(w)] != 0;
  }
  // ... with a hook that can run now: live, and not only hooks that `requires` a counter their
  // owners are short of (ctx:hooked: where the procedure's own rounds run, replaced hooks too)
  bool window_can_run(int w) {
    ensure_liveness();
    const std::uint8_t v = live[static_cast<std::size_t>(w)];
    if (v & EventBus::kLiveFree) return true;
    return v != 0 && bus.guarded_can_run(*state, w, held, true);
  }
  // ... with a hook that no declared modifier replaces in the runtime's own rounds
  // (a hook that `requires` a counter its owner is short of cannot run)
  bool window_live_unreplaced(int w) {
    ensure_liveness();
    const std::uint8_t v = live[static_cast<std::size_t>(w)];
    if (v & EventBus::kLiveUnreplaced) return true;
    return (v & EventBus::kLiveGuarded) && bus.guarded_can_run(*state, w, held);
  }

  // Sym of short (interned, anchored) Lua strings by their address: a direct-mapped cache
  struct SymSlot {
    const void* str = nullptr;
    Sym sym = kNoSym;
  };
  std::array<SymSlot, 1024> sym_slots{};

  // Spec tables (roll and hit-assignment specs, hit orders) are parsed once and found again by
  // their address; the tables are anchored in the registry so that address stays theirs.
  using RollSpec = combat::RollSpec;
  using CasualtySpec = combat::CasualtySpec;
  std::unordered_map<const void*, int> spec_index;  // table address -> index in its list
  std::deque<RollSpec> roll_specs;  // deques: references stay valid while hooks add more
  std::deque<CasualtySpec> casualty_specs;
  // every casualty spec's `damaged` slot seen, kept when the spec cache is reset
  // (Engine::damaged_attributes)
  std::vector<int> damaged_attributes;
  std::deque<std::vector<Sym>> orders;
  struct ExchangeSpec {
    const RollSpec* roll = nullptr;
    const CasualtySpec* hits = nullptr;
    std::vector<int> windows;  // if any of these can run a hook, the round is the procedure's
    Sym counter = kNoSym, counter_scope = kNoSym, round_scope = kNoSym;
    Sym metric = kNoSym;  // each new round begun adds 1 to this metric of the run
    bool once = false;    // one exchange (a first-round step such as Anti-Fighter Barrage)
    bool again = false;   // under the step memo, one round per call: "again" (see l_exchange_fire)
    // spec.start_of_round and spec.end_of_round, each one of `windows` (-1: none): the windows
    // the procedure's round opens at its start from the second round on (the counter past 1)
    // and at its end when the combat goes on, with the call's `round_args`. In the exact mode,
    // with `again` and those args, their hooks run inside the round enumerated in C++
    // (enumerate_round) rather than handing the round back.
    int start_window = -1, end_window = -1;
    bool in_round(int w) const { return w >= 0 && (w == start_window || w == end_window); }
    // hooks of `windows` that a declared modifier replaces and that say where it does all their
    // work (HookDef::covered): asked before the runtime runs rounds itself
    std::vector<int> covered_hooks;
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
    if (spec_index.size() >= kMaxRunSpecs)
      luaL_error(
          L,
          "more than %d different spec tables in one run: a table written inline in a "
          "loop or hook is a new table on every call; define it once (a local at file level)",
          static_cast<int>(kMaxRunSpecs));
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
  void reset_specs();
  void begin_run();  // a run or setup starts: new pool handles, fresh limits  // forgets every
                     // parsed spec (between runs, when too many were kept)
  void ensure_liveness() {
    if (liveness_dirty)
      bus.liveness(*state, content->records.size(), held, live), liveness_dirty = false;
  }

  // scratch space reused by primitives, so that a run allocates nothing once warm
  std::vector<EntityId> scratch_units, scratch_adjacent;
  std::vector<Hex> scratch_hexes, scratch_hexes2;
  std::vector<combat::Roller> scratch_rollers;
  std::vector<int> scratch_modifiers;
  combat::Casualties scratch_casualties;     // ctx:assign_hits' queue
  combat::ExchangeScratch scratch_exchange;  // ctx:exchange_fire's sides
  std::vector<double> scratch_distribution;  // the exact mode: a roll's number of hits

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
  const FaceKinds& kinds_of(int i) {
    if (die_kinds.size() != rules.dice.size()) {
      die_kinds.clear();
      for (const DieType& t : rules.dice) die_kinds.push_back(face_kinds(t));
    }
    return die_kinds[static_cast<std::size_t>(i)];
  }
  int open_windows(const int* windows, int n, int args_index);  // returns the hooks that ran
  std::string state_summary() const;  // where every player's units are (interactive questions)
  // push_helps (optional hooks): pushes the hook's "does it help" for the policy, asked only
  // when the policy decides. `first` (when given) gets the 1-based index of the first option
  // whose label is the answer (what ctx:decide returns).
  std::string decide(EntityId player, const std::string& decision, int options_index,
                     std::string& reason, const std::function<void()>& push_helps = {},
                     int* first = nullptr);
  void destroy(EntityId e, int window);
  // destroy's two halves: off the board (traced), then the window (args unit, player, location)
  void remove_destroyed(EntityId e);
  void open_destroyed(EntityId e, EntityId from, int window);
  void push_ctx();
  void push_hook_ctx() { lua_rawgeti(L, LUA_REGISTRYINDEX, hook_ctx_ref); }

  // The last member, so destroyed first (also when the constructor throws): takes the engine
  // off the watchdog's list and closes the Lua state, no finalizer running.
  struct Owner {
    Impl* I;
    ~Owner();
  } owner{this};
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
int exact_root(lua_State* L);  // api_flow.cpp: Engine::run_exact's root exploration
// api_flow.cpp: adds to a metric of the run under way, as ctx:add_metric does (the step memo and
// the exact mode see it).
void add_run_metric(Engine::Impl& I, Sym metric, double delta);
// Best play: the round of exact->fan again from its start, its draws from the path's position
// `at` on (api_dice.cpp); the state it leaves in `s`. False (s untouched) unless the round goes on
// ("again"; `next` unchanged) or ends the combat the way a run of the step kept in Exact::Fan::ends
// did (s, the writes and `next` are that run's), and the path has no draws after it.
// `same`: the leaf's ExactLeaf::same.
bool replay_best_round(Engine::Impl& I, ExactPath& path, State& s, int& next, std::uint64_t& same);

// --- fixed_order.cpp
void install_fixed_order(lua_State* L);  // pairs, next, tostring, string.format: same everywhere
// Pushes an iterator over the keys of the table at keys_of in the fixed order, its values read
// from values_of (raw, or through metamethods: a view).
void push_fixed_order_iterator(lua_State* L, int keys_of, int values_of, bool raw);
// An error when the value at idx would show its address (`what` names the caller).
void refuse_address(lua_State* L, int idx, const char* what);

// --- sandbox.cpp
// Whether the table at idx is one of the runtime's read-only tables (a view, an environment).
bool is_read_only(lua_State* L, int idx);
void make_sandboxes(Engine::Impl& I);    // one environment per pack, then the ruleset's
void freeze_sandboxes(Engine::Impl& I);  // once loading ends: a global write is an error
// The string keys of the table at `idx`, sorted (api_names.cpp).
std::vector<std::string> table_keys(lua_State* L, int idx);
void make_ctx(Engine::Impl& I);  // ctx (read-only), protected shared metatables

// An error already attributed (by an inner call gate, or a content error such as a scenario's)
// travels up to the outer gate as an object that only the runtime can make: the gate passes it
// on as it is, instead of blaming its own call. Pushes it; the caller raises it (lua_error).
// `kind` is 'S' (ScriptError) or 'C' (ContentError).
void push_attributed(lua_State* L, char kind, const char* message);
// The kind of the attributed error at idx: 0 when it is not one, -1 when content raised it again
// (caught with pcall, raised later: it is content's message now). Sets *message either way.
int attributed_kind(lua_State* L, int idx, std::string* message);
void consume_attributed(lua_State* L);  // the gate has turned it into a C++ exception

// The state guard (EngineOptions::check_state): everything a script could keep between runs,
// every table and closure reachable from the environments' globals, the registered hooks,
// procedures, policies, setup and loaded modules, with their contents (values by identity).
struct StateSnapshot {
  enum class Style { table, globals, upvalues };
  struct Object {
    std::string path;  // how it was reached: "hook 'pack:id' upvalue 'seen'"
    Style style = Style::table;
    std::vector<std::pair<std::string, std::string>> fields;  // sorted: key, value
  };
  std::unordered_map<const void*, Object> objects;
  static std::string field_path(const std::string& path, Style style, const std::string& key);
};
StateSnapshot snapshot_state(Engine::Impl& I);
// Replaces the hook function on the top of the stack by one that checks, around each call, that
// it left its pack's globals and what it reaches unchanged (an error naming the variable).
void guard_hook_function(Engine::Impl& I, int sandbox);
// Replaces the table at idx with the running hook's read-only view of it (I.hook_viewer); as
// it is when no hook runs. `what` names the table in errors.
void push_hook_view(Engine::Impl& I, int idx, const char* what);
// Replaces the table at idx with a read-only view: the running hook's pack's (I.hook_viewer), or
// the ruleset's when no hook runs.
void push_read_only(Engine::Impl& I, int idx, const char* what);
// "hook 'p:x' upvalue 'calls' changed from 0 to 1", one line each, sorted.
std::vector<std::string> state_changes(const StateSnapshot& before, const StateSnapshot& after);

// Wraps an api function so that a C++ exception becomes a Lua error with its message.
template <lua_CFunction F>
int guarded(lua_State* L) {
  try {
    return F(L);
  } catch (const ContentError& e) {
    push_attributed(L, 'C', e.what());
  } catch (const ScriptError& e) {
    push_attributed(L, 'S', e.what());
  } catch (const std::exception& e) {
    lua_pushstring(L, e.what());
  }
  return lua_error(L);
}

// Pushes "file:line: " of the Lua caller and `message`, for a lua_error(L) that the caller makes
// once its C++ objects are gone (a Lua error is a longjmp: it runs no destructor).
inline void push_error(lua_State* L, const std::string& message) {
  luaL_where(L, 1);
  lua_pushlstring(L, message.data(), message.size());
  lua_concat(L, 2);
}

// Checked argument helpers.
EntityId check_entity(lua_State* L, int idx);
EntityId opt_entity(lua_State* L, int idx);  // nil -> kNoEntity
Pool& check_pool(lua_State* L, int idx);
void push_pool(lua_State* L, const Pool& pool);  // the pool's handle

}  // namespace rb
