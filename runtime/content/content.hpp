// content/content: what a ruleset and its packs declare, loaded from TOML and frozen. A ruleset
// (scripts/<game>/ruleset.toml) declares entity kinds, attributes, die types, windows, decisions,
// scopes and its procedures; a pack (content/<pack>/pack.toml) adds records (units, cards,
// technologies...), declarative modifiers and hooks, and Lua scripts. Records get namespaced
// ids ("my-pack:unit/cruiser"); short names ("unit/cruiser", or "cruiser" where the kind is
// known) resolve among the loaded packs and an ambiguous one is an error. Packs load in
// topological order of their dependencies, ties broken by id. A pack may override or remove
// another pack's records; each record remembers the pack that last changed it.
// Loading never half-succeeds: any problem is a ContentError naming file, line and expectation.
// Every file a pack lists or holds resolves, links followed, inside the pack's folder (a
// ruleset's inside the ruleset's folder): a link out of it is such an error (base/paths).
#pragma once

#include <array>
#include <bitset>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/symbols.hpp"
#include "dice/dice.hpp"
#include "events/events.hpp"
#include "state/state.hpp"

namespace rb {

namespace fs = std::filesystem;

// counts: a table of unit records to whole numbers ({ carrier = 2, infantry = 3 }), kept as the
// symbol "carrier=2 infantry=3" (keys sorted); Lua reads it as a table.
enum class AttrType { integer, boolean, symbol, counts };

// An int attribute in content (records, overrides, modifier locations) must lie in [min, max];
// by default [0, kAttributeMax], wider or narrower where ruleset.toml says `min`/`max`.
inline constexpr std::int64_t kAttributeMax = 1000;

struct AttributeDef {
  std::string name;
  AttrType type = AttrType::integer;
  int slot = 0;
  std::string doc;
  std::int64_t min = 0, max = kAttributeMax;  // int: the values content may give
  std::vector<std::string> values;            // symbol: the values content may give (empty: any)
};

// A [[modifier]]'s numbers: `delta` in [-kModifierDeltaMax, kModifierDeltaMax], `dice` in
// [0, kModifierDiceMax].
inline constexpr std::int64_t kModifierDeltaMax = 1000;
inline constexpr std::int64_t kModifierDiceMax = 100;

struct DecisionDef {
  std::string name;
  std::string doc;
};

// How `simulate` summarises runs of a procedure (see sim/).
struct ReportDef {
  std::vector<std::string> outcomes;                               // categorical outcome names
  std::vector<std::pair<std::string, std::string>> means;          // json key -> metric
  std::vector<std::pair<std::string, std::string>> probabilities;  // json key -> 0/1 metric
  // json key -> P(metric | given), both 0/1 metrics; reported only when `given` happened at all
  struct Conditional {
    std::string key, metric, given;
  };
  std::vector<Conditional> conditional;
  std::vector<std::pair<std::string, std::string>> distributions;  // json key -> metric
  std::string survivors;           // json key for the per-side unit-type counts ("" for none)
  std::string survivor_kind;       // kind of entity counted
  std::string survivor_location;   // role of the location where counted units start ("" any)
  std::vector<std::string> sides;  // roles whose survivors are counted
  std::vector<std::string> ci95;   // means that also get a 95% interval
  // best play (simulate --exact --best SIDE): the outcome that is each side's win, and the
  // outcomes that are neither side's win nor loss (the objective not_lose counts them); each may
  // be a key of `probabilities` instead (its 0/1 metric: a report without outcomes)
  std::vector<std::pair<std::string, std::string>> wins;  // side -> outcome
  std::vector<std::string> draws;
  // outcomes (or probabilities' keys) the terminal and the page show only when some run ends in
  // them (the JSON always has them): "ongoing", a combat stopped after round k, would clutter
  // every other report
  std::vector<std::string> only_when_any;
};

// One line of `rulebench list counts`: the records of a kind (optionally only those whose symbol
// attribute has a value), and the rules tests that name them.
struct CountDef {
  std::string label;      // "flagships"
  std::string kind;       // "unit"
  std::string attribute;  // "replaces" ("" for every record of the kind)
  std::string value;      // "flagship"
};

struct Ruleset {
  std::string id, name, base_pack;
  int base_pack_line = 0;
  fs::path dir;
  std::vector<std::string> kinds;
  std::string unit_kind = "unit";  // the kind that rolls, takes hits and is counted (ctx:count)
  std::vector<std::string> scopes;
  // kinds whose alike entities the exact mode may exchange (State::canonicalise): the ruleset
  // promises that no attribute or counter value holds the number of such an entity
  std::vector<std::string> interchangeable;
  std::vector<std::string> purposes;  // what rolls are for (a modifier's `purpose`)
  std::vector<std::string> roles;     // roles a modifier's `role` may name
  std::vector<AttributeDef> attributes;
  std::vector<DieType> dice;
  std::vector<WindowDef> windows;
  std::vector<DecisionDef> decisions;
  // round window -> the window that starts its sequence of rounds: the trace numbers the rounds
  // (ruleset.toml [round_windows]: "space_combat.start_of_round" = "space_combat.start_of_combat")
  std::map<std::string, std::string> round_windows;
  std::vector<std::pair<std::string, fs::path>> procedures;  // name -> Lua file
  fs::path setup;                            // Lua: builds the start state from a scenario
  fs::path policies;                         // Lua: the default decision heuristics
  std::map<std::string, ReportDef> reports;  // procedure -> report
  // record kind -> the key of a side's list in a scenario that grants records of that kind
  // (a ruleset may map technology -> "technologies"); compare and simulate --with add and remove
  // through it.
  std::vector<std::pair<std::string, std::string>> scenario_lists;
  std::vector<CountDef> counts;  // what `rulebench list counts` counts, in order

  const AttributeDef* attribute(std::string_view name) const;
  int die(std::string_view name) const;  // index or -1
  bool has_kind(std::string_view k) const;
  bool has_scope(std::string_view s) const;
  const DecisionDef* decision(std::string_view name) const;
  // The scenario list key for a record kind, "" when the kind has none.
  std::string scenario_list(std::string_view kind) const;
};

struct Record {
  std::string id;          // "my-pack:unit/cruiser"
  std::string pack;        // the pack that defined it
  std::string changed_by;  // the pack that last changed it (override)
  Sym kind = kNoSym;
  Sym name = kNoSym;  // short name: "cruiser"
  std::string file;
  int line = 0;
  std::array<std::int32_t, kMaxAttributes> attr{};
  std::bitset<kMaxAttributes> has;          // which attributes it sets
  std::map<std::string, std::string> text;  // free text fields: name, text
  bool removed = false;
};

// "+delta to each die" and "+dice per unit" for rolls of a purpose, as data.
struct ModifierDef {
  std::string id;
  // what the trace calls it beside a die it changed ("+1 Morale Boost"): its `name`, else its
  // text before a colon, else its id in words
  std::string name;
  std::string pack, file;
  int line = 0;
  std::int32_t source = -1;  // live while the owner holds this record; -1: a rule
  bool activated = false;    // only while an effect switched it on (State::modifiers)
  Sym purpose = kNoSym;      // kNoSym: every roll
  std::vector<Sym> units;    // unit types it applies to; empty: all
  // the records `units` names: a unit made from (or upgraded to) one of them fits too, so a
  // faction's unit or an upgrade can be named by its record ("arborec_flagship", "cruiser_ii")
  std::vector<std::int32_t> unit_records;
  Sym role = kNoSym;                                   // only for the player with this role
  std::vector<std::pair<int, std::int32_t>> location;  // rolling unit's location attributes
  // a unit record that must be with the rolling unit: a unit of it, owned by the rolling unit's
  // owner, at the same location (a flagship's "other ships in this system"); -1: none
  std::int32_t present = -1;
  std::int32_t delta = 0;
  std::int32_t dice = 0;
  // the hits of the dice it applies to go first to units of these types, if able (hits_to)
  std::vector<Sym> hits_to;
  // hooks of its pack whose work it does in rounds the runtime runs itself (ctx:exchange_fire)
  std::vector<std::string> replaces_hooks;
  // What it does in those rounds to the units it applies to, besides their rolls:
  // a unit that uses Sustain Damage cancels this many hits (0: not changed; sustain_cancels)
  std::int32_t sustain_cancels = 0;
  // repair: none; after_hits (once both sides have taken their hits, one damaged unit that did
  // not use Sustain Damage this round, the one its hit order loses last); start_of_round (at the
  // start of each round after the first, every damaged unit it applies to); sustained (each unit
  // it applies to that uses Sustain Damage, once every player has assigned the round's hits, in
  // the order they sustained, while the player can pay: `pay`, `cost`)
  enum class Repair : std::uint8_t { none, after_hits, start_of_round, sustained };
  Repair repair = Repair::none;
  // what a repair = sustained costs: `cost` of the player's counter `pay`, each repair, done only
  // while the player has that much (kNoSym: free)
  Sym pay = kNoSym;
  std::int32_t cost = 0;
  // the round flag a unit it applies to gets when it uses Sustain Damage in those rounds (what
  // the hooks it replaces set); repair = after_hits skips units that have it (sustained_flag)
  Sym sustained_flag = kNoSym;
  // after the player's roll, 1 of this counter of the player is spent on each die it applies to
  // that missed by at most `raise`, while the counter lasts: the die's result goes up by `raise`
  // (a hit). kNoSym: none (spend, raise)
  Sym spend = kNoSym;
  std::int32_t raise = 0;
  // whether it does anything in those rounds but change rolls
  bool round_effect() const {
    return sustain_cancels != 0 || repair != Repair::none || sustained_flag != kNoSym ||
           spend != kNoSym;
  }
};

// A declarative hook effect.
struct EffectDef {
  int activate = -1;     // modifier to switch on for the owner
  Sym until = kNoSym;    // scope it lasts for
  Sym counter = kNoSym;  // counter to add to on the owner
  std::int32_t counter_delta = 0;
};

// A pack version: numbers separated by dots ("0.1.0"); compared number by number, a missing
// number counting as 0 ("1.2" == "1.2.0").
using PackVersion = std::vector<long long>;
// "0.1.0" -> {0, 1, 0}; nullopt when it is not numbers separated by dots.
std::optional<PackVersion> parse_pack_version(std::string_view text);
int compare_versions(const PackVersion& a, const PackVersion& b);  // <0, 0, >0

// What a `depends`, `optional_depends` or `conflicts` entry asks of the other pack's version:
// "base >= 0.2" or "base >= 0.2, < 1" (every condition must hold); none: any version.
struct VersionCondition {
  std::string op;  // ">=", ">", "<=", "<", "="
  PackVersion version;
  std::string text;  // as written: ">= 0.2"
};
struct PackRequirement {
  std::string id;
  std::vector<VersionCondition> conditions;
  std::string text;  // the whole entry as written
  bool fits(const PackVersion& v) const;
};
// Parses one entry; nullopt with `why` set when it is not `PACK` or `PACK OP VERSION[, ...]`.
std::optional<PackRequirement> parse_pack_requirement(std::string_view text, std::string& why);

struct PackInfo {
  std::string id, name, version, ruleset;
  fs::path dir;
  std::vector<std::string> depends, optional_depends, conflicts;  // pack ids
  // every entry of the three lists with what it asks of the version (by id)
  std::map<std::string, PackRequirement> requirements;
  int depends_line = 0;  // the line of `depends` in pack.toml
  int optional_depends_line = 0, conflicts_line = 0, version_line = 0;
  std::vector<fs::path> data;     // TOML files, in load order
  std::vector<fs::path> scripts;  // Lua files, in load order
  fs::path tests;                 // rules tests folder ("" if none)
  bool test_only = false;         // for rules tests only: the page does not offer it
  bool default_on = false;        // the page starts with it chosen
};

struct Content {
  Ruleset ruleset;
  std::vector<PackInfo> packs;  // load order
  std::vector<Record> records;
  std::vector<ModifierDef> modifiers;
  std::vector<EffectDef> effects;
  std::vector<HookDef> hooks;  // declarative hooks from TOML (apply = -1, effect >= 0)

  // Resolves "pack:kind/name", "kind/name", or "name" with `kind` given. -1 when unknown;
  // throws ContentError when ambiguous.
  int find_record(std::string_view ref, std::string_view kind = {}) const;
  // Like find_record but throws a ContentError naming the closest id when unknown.
  int require_record(std::string_view ref, std::string_view kind, const std::string& file,
                     int line) const;
  const PackInfo* pack(std::string_view id) const;

  std::unordered_map<std::string, int> record_index;  // full id -> record
  std::unordered_map<Sym, std::vector<int>> by_name;  // short name -> records (find_record)
  fs::path root;                 // where it was loaded from (LoadRequest), to look for packs...
  std::vector<fs::path> search;  // ...that are installed but not loaded (pack_declaring)
};

struct LoadRequest {
  fs::path root;                     // the repository: scripts/ and content/ live here
  std::vector<fs::path> search;      // more folders that hold packs
  std::string ruleset;               // "" : taken from the first pack
  std::vector<std::string> packs;    // ids, or paths to pack folders
  bool all_packs = false;            // every pack found for the ruleset...
  std::vector<std::string> exclude;  // ...except these
};

// Whether a pack named in a request is a folder rather than an id: it holds a '/' or starts with
// '.' ("./my-pack", "../packs/x", "/abs"), or it is a folder holding a pack.toml.
bool is_pack_path(std::string_view p);
// Only the first test: written as a path. (A scenario's `packs` are relative to its folder.)
bool looks_like_path(std::string_view p);
// The pack folder `path` lies in: the nearest folder holding a pack.toml, from `path` itself up
// by name (absolute); empty when there is none. Its files must resolve inside it (base/paths).
fs::path pack_folder_of(const fs::path& path);

// Loads a ruleset and packs. Throws ContentError.
std::shared_ptr<const Content> load_content(const LoadRequest& request);

// Every pack folder found under root/content and the search folders (id -> folder).
std::map<std::string, fs::path> discover_packs(const LoadRequest& request);

// The id of an installed pack of the same ruleset, not loaded in `content`, that declares the
// record `ref` (of `kind`, when given); "" when none does. For errors only: it reads the data
// files of every installed pack that is not loaded.
std::string pack_declaring(const Content& content, std::string_view ref, std::string_view kind);

}  // namespace rb
