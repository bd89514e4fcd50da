#include "content/keys.hpp"

namespace rb {

namespace {

constexpr KeySpec kPack[] = {
    {"id", "string", "The pack's id: letters, digits, '-' and '_'."},
    {"name", "string", "A name for people."},
    {"version", "string", "Numbers separated by dots (\"1.0.0\")."},
    {"ruleset", "string", "The ruleset it is for (a folder of scripts/)."},
    {"depends", "string_array", "Packs loaded first: \"base\" or \"base >= 0.2, < 1\"."},
    {"optional_depends", "string_array",
     "Packs loaded first when present (with conditions on the version, as depends)."},
    {"conflicts", "string_array",
     "Packs it cannot be loaded with (with conditions on the version, as depends)."},
    {"data", "string_array", "TOML files or folders, in load order."},
    {"scripts", "string_array", "Lua files or folders, in load order."},
    {"tests", "string", "The rules tests' folder (default tests/)."},
    {"description", "string", "A longer description."},
    {"test_only", "boolean",
     "Made for rules tests only: the page of rulebench serve does not offer it (a test or a "
     "scenario may still name it)."},
    {"default_on", "boolean", "The page of rulebench serve starts with it chosen."},
};
constexpr KeySpec kModifier[] = {
    {"id", "string", "The modifier's id, unique in its pack."},
    {"source", "string", "Live while its owner holds this record (omit: a rule)."},
    {"activated", "boolean", "Off until a hook's effect switches it on."},
    {"purpose", "string", "Which rolls (one of the ruleset's purposes; omit: all)."},
    {"units", "strings", "Only these unit types (omit: all)."},
    {"role", "string", "Only for the player with this role."},
    {"location", "object", "Attributes the rolling unit's location must have."},
    {"present", "string", "A unit record that must be with the rolling unit."},
    {"delta", "integer", "Added to each die (-1000 to 1000)."},
    {"dice", "integer", "Extra dice per unit (0 to 100)."},
    {"hits_to", "strings",
     "Hits of these dice go first to the opponent's units of these types, if able."},
    {"replaces_hooks", "strings",
     "Hooks of this pack whose work it does in the rounds ctx:exchange_fire runs."},
    {"sustain_cancels", "integer",
     "In those rounds, each Sustain Damage of a unit it applies to cancels this many hits (2 to "
     "100)."},
    {"repair", "string",
     "In those rounds: after_hits (one damaged unit that did not sustain this round, the last "
     "in its hit order), start_of_round (every damaged unit it applies to, rounds after the "
     "first) or sustained (each unit it applies to that uses Sustain Damage, once the round's "
     "hits are assigned, while the player can pay)."},
    {"pay", "string",
     "With repair = \"sustained\": the player's counter each repair is paid from (`cost` of "
     "it; no repair once the player has less)."},
    {"cost", "integer", "What each repair = \"sustained\" takes of `pay` (1 to 100)."},
    {"sustained_flag", "string",
     "In those rounds, the round flag a unit it applies to gets when it uses Sustain Damage; "
     "repair = after_hits skips units with it."},
    {"spend", "string",
     "In those rounds, a counter of the player: after its roll, 1 is spent on each die it "
     "applies to that missed by at most `raise`, while the counter lasts (a hit)."},
    {"raise", "integer", "What `spend` adds to a die's result (1 to 100)."},
    {"name", "string",
     "What the trace calls it (\"Morale Boost\"; omit: its text before a colon, else its id)."},
    {"text", "string", "What it says, for people."},
};
constexpr KeySpec kTomlHook[] = {
    {"id", "string", "The hook's id, unique in its pack."},
    {"window", "string", "The window it runs in (rulebench list windows)."},
    {"source", "string", "Who may use it: the record whose holders it fires for."},
    {"optional", "boolean", "A \"may\": the owner's policy decides."},
    {"limit", "string", "Once per this scope."},
    {"priority", "integer", "Higher runs first among one player's hooks."},
    {"discard", "boolean", "The card leaves the game after use."},
    {"effect", "object", "What it does: activate, until, counter, delta."},
    {"text", "string", "What it says, for people."},
};
constexpr KeySpec kEffect[] = {
    {"activate", "string", "A modifier (activated = true) to switch on for the owner."},
    {"until", "string", "The scope it lasts for."},
    {"counter", "string", "A counter to add to on the owner."},
    {"delta", "integer", "What to add to the counter (default 1)."},
};
constexpr KeySpec kRecordText[] = {
    {"name", "string", "The record's name, for people."},
    {"text", "string", "What the card or ability says."},
    {"description", "string", "A longer description."},
};
constexpr KeySpec kRulesTest[] = {
    {"name", "string", "What the test shows."},
    {"rule", "string", "The rule it checks (its number or name)."},
    {"scenario", "", "The scenario: an inline table, or a scenario file's path."},
    {"dice", "array", "Forced dice in roll order: numbers (numeric dice) or face names."},
    {"seed", "integer", "The run's seed (default 1)."},
    {"answer", "array", "Scripted decisions: [[answer]] tables."},
    {"expect", "object", "What must happen."},
    {"strict_dice", "boolean", "Rolling past the forced dice is an error (default true)."},
    {"packs", "string_array", "More packs to load."},
};
constexpr KeySpec kTestFile[] = {
    {"test", "array", "The tests: [[test]] tables."},
    {"scenario", "object", "The scenario every test of the file shares."},
    {"name", "string", "What the file tests."},
    {"rule", "string", "The rule the file's tests check."},
};
constexpr KeySpec kExpect[] = {
    {"outcome", "string", "The run's outcome."},
    {"survivors", "object", "Units left per role and type: { attacker = { cruiser = 1 } }."},
    {"metrics", "object", "Metrics and their values."},
    {"trace", "string_array", "Event keys that must appear, in this order."},
    {"not_trace", "string_array", "Event keys that must not appear."},
    {"trace_count", "object", "How often each event key appears."},
    {"error", "string", "The run must fail with an error containing this text."},
};
constexpr KeySpec kAnswer[] = {
    {"player", "string", "Whose decision (a player's name or role)."},
    {"decision", "string", "Which decision."},
    {"answer", "", "The option chosen."},
};
constexpr KeySpec kScenario[] = {
    {"ruleset", "string", "The ruleset (a folder of scripts/)."},
    {"procedure", "string", "The procedure to run (default: the ruleset's first)."},
    {"packs", "string_array", "Packs to load besides the ruleset's base pack: ids or folders."},
    {"bench", "object", "What rulebench bench measures this case against."},
    {"play", "object",
     "Who plays best (exact mode, docs/exact.md): SIDE = \"best\" or \"policy\" for the "
     "procedure's report sides, and objective = win, not_lose, metric:NAME or metric:-NAME."},
};
constexpr KeySpec kBench[] = {
    {"target", "number", "Combats per second to reach on one thread."},
    {"anchors", "array", "Other tools' speeds: [{ name, rate }]."},
    {"exact_target", "number", "The exact mode's target time (ms)."},
    {"exact_anchors", "array", "Other tools' exact times: [{ name, ms }]."},
    {"baseline", "string",
     "A scenario (relative to this file) of the same battle without abilities: bench runs it "
     "too and prints how many times slower the case is."},
};

}  // namespace

std::span<const KeySpec> pack_keys() {
  return kPack;
}
std::span<const KeySpec> modifier_keys() {
  return kModifier;
}
std::span<const KeySpec> toml_hook_keys() {
  return kTomlHook;
}
std::span<const KeySpec> hook_effect_keys() {
  return kEffect;
}
std::span<const KeySpec> record_text_keys() {
  return kRecordText;
}
std::span<const KeySpec> rules_test_keys() {
  return kRulesTest;
}
std::span<const KeySpec> test_file_keys() {
  return kTestFile;
}
std::span<const KeySpec> expect_keys() {
  return kExpect;
}
std::span<const KeySpec> answer_keys() {
  return kAnswer;
}
std::span<const KeySpec> scenario_keys() {
  return kScenario;
}
std::span<const KeySpec> bench_keys() {
  return kBench;
}

std::vector<std::string> key_names(std::span<const KeySpec> keys) {
  std::vector<std::string> out;
  for (const KeySpec& k : keys) out.emplace_back(k.name);
  return out;
}

}  // namespace rb
