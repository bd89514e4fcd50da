// trace/trace: the event stream of a run. Every window opened, hook run (with its source), die
// rolled or changed, decision made and unit destroyed is an event with a machine key (matched by
// rules tests: "window:space_combat.start_of_combat", "destroyed:defender:cruiser") and a
// readable sentence. Recording is off in simulations, so an unrecorded event costs one test.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb {

enum class EventKind { window, hook, roll, reroll, change, decision, destroyed, note, error };

const char* to_string(EventKind k);

struct TraceEvent {
  EventKind kind;
  std::string key;   // colon-separated, e.g. "roll:attacker:combat:cruiser:8:hit"
  std::string text;  // "attacker's cruiser rolls 8 (needs 7): hit"
  int depth = 0;     // nesting (a hook's events sit under the window that ran it)
  // what the key says, as named fields for programs (`trace --json`): player, unit, die, face,
  // value, threshold, modifiers, decision, options, answer, reason, window, hook, source, pack
  nlohmann::json fields = nlohmann::json::object();
};

// How the narrative is printed.
struct NarrativeOptions {
  // Every event. Otherwise a rule's hook (no player) that showed nothing is left out, and a
  // window opened several times in a row with nothing shown in between is one line ("opened 7
  // times"): a per-system window such as a passage check says nothing a reader needs.
  bool verbose = false;
  // round window -> the window that starts the sequence of rounds (ruleset.toml
  // [round_windows]): the narrative numbers the rounds ("-- round 2 --")
  std::map<std::string, std::string> round_windows;
  std::size_t from = 0;  // the first event to print
};

class Trace {
 public:
  bool enabled = false;
  std::vector<TraceEvent> events;
  int depth = 0;
  std::size_t printed = 0;  // events already shown (interactive mode shows them before a question)

  void add(EventKind kind, std::string key, std::string text) {
    if (enabled) events.push_back({kind, std::move(key), std::move(text), depth});
  }
  void add(EventKind kind, std::string key, std::string text, nlohmann::json fields) {
    if (enabled)
      events.push_back({kind, std::move(key), std::move(text), depth, std::move(fields)});
  }
  void clear() { events.clear(), depth = 0, printed = 0; }

  // Whether an event key matches an expected key: equal, or the expected key followed by ':'.
  static bool matches(const std::string& key, const std::string& expected);
  // Where two traces of the same run part ("" if nowhere), naming the last hook that ran before:
  // "after hook 'p:h': 'key a', then 'key b'".
  static std::string first_difference(const Trace& a, const Trace& b);

  void print_narrative(std::ostream& out, const NarrativeOptions& options = {}) const;
  void print_json_lines(std::ostream& out) const;
};

}  // namespace rb
