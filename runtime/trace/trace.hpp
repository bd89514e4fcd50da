// trace/trace: the event stream of a run. Every window opened, hook run (with its source), die
// rolled or changed, decision made and unit destroyed is an event with a machine key (matched by
// rules tests: "window:space_combat.start_of_combat", "destroyed:defender:cruiser") and a
// readable sentence. Recording is off in simulations, so an unrecorded event costs one test.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rb {

enum class EventKind { window, hook, roll, reroll, change, decision, destroyed, note, error };

const char* to_string(EventKind k);

struct TraceEvent {
  EventKind kind;
  std::string key;   // colon-separated, e.g. "roll:attacker:combat:cruiser:8:hit"
  std::string text;  // "attacker's cruiser rolls 8 (needs 7): hit"
  int depth = 0;     // nesting (a hook's events sit under the window that ran it)
};

class Trace {
 public:
  bool enabled = false;
  std::vector<TraceEvent> events;
  int depth = 0;

  void add(EventKind kind, std::string key, std::string text) {
    if (enabled) events.push_back({kind, std::move(key), std::move(text), depth});
  }
  void clear() { events.clear(), depth = 0; }

  // Whether an event key matches an expected key: equal, or the expected key followed by ':'.
  static bool matches(const std::string& key, const std::string& expected);

  void print_narrative(std::ostream& out) const;
  void print_json_lines(std::ostream& out) const;
};

}  // namespace rb
