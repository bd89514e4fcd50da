#include "trace/trace.hpp"

#include <map>
#include <ostream>

#include <nlohmann/json.hpp>

namespace rb {

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::window:
      return "window";
    case EventKind::hook:
      return "hook";
    case EventKind::roll:
      return "roll";
    case EventKind::reroll:
      return "reroll";
    case EventKind::change:
      return "change";
    case EventKind::decision:
      return "decision";
    case EventKind::destroyed:
      return "destroyed";
    case EventKind::note:
      return "note";
    case EventKind::error:
      return "error";
  }
  return "?";
}

bool Trace::matches(const std::string& key, const std::string& expected) {
  if (key.size() < expected.size() || key.compare(0, expected.size(), expected) != 0) return false;
  return key.size() == expected.size() || key[expected.size()] == ':';
}

std::string Trace::first_difference(const Trace& a, const Trace& b) {
  const std::size_t n = std::min(a.events.size(), b.events.size());
  std::size_t i = 0;
  while (i < n && a.events[i].key == b.events[i].key) ++i;
  if (i == a.events.size() && i == b.events.size()) return "";
  std::string after = "at the start";
  for (std::size_t j = i; j-- > 0;)
    if (a.events[j].kind == EventKind::hook) {
      const auto hook = a.events[j].fields.find("hook");
      after = "after hook '" +
              (hook != a.events[j].fields.end() && hook->is_string() ? hook->get<std::string>()
                                                                     : a.events[j].key) +
              "'";
      break;
    }
  auto key = [&](const Trace& t) {
    return i < t.events.size() ? "'" + t.events[i].key + "'" : std::string("the end");
  };
  return after + ": " + key(a) + ", then " + key(b);
}

namespace {

// The key's name after "window:" for a window event, "" otherwise.
std::string window_of(const TraceEvent& e) {
  return e.kind == EventKind::window && e.key.rfind("window:", 0) == 0 ? e.key.substr(7) : "";
}

}  // namespace

void Trace::print_narrative(std::ostream& out, const NarrativeOptions& o) const {
  // which events are shown: a rule's hook that showed nothing is left out unless verbose
  std::vector<bool> shown(events.size(), false);
  for (std::size_t i = o.from; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.text.empty()) continue;  // a second name of a merged window: a key for tests only
    shown[i] = true;
    if (o.verbose || e.kind != EventKind::hook) continue;
    const bool rule = !e.fields.contains("player") || e.fields["player"].is_null();
    if (!rule) continue;
    bool inner = false;  // any event under it that says something
    for (std::size_t j = i + 1; j < events.size() && events[j].depth > e.depth && !inner; ++j)
      inner = !events[j].text.empty();
    shown[i] = inner;
  }
  // round numbers: each round window counts up; its sequence's first window starts again
  std::map<std::string, int> round;
  std::string last_window;  // the last window line shown, while nothing else was shown since
  std::size_t repeats = 0;
  auto flush_repeats = [&] {
    if (repeats > 0) out << "   (the same window " << repeats + 1 << " times in a row)\n";
    repeats = 0;
  };
  for (std::size_t i = o.from; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    const std::string w = window_of(e);
    if (!w.empty()) {
      for (auto& [rw, first] : o.round_windows) {
        if (w == first) round[rw] = 0;
        if (w == rw) {
          ++round[rw];
          flush_repeats();
          last_window.clear();
          out << std::string(static_cast<std::size_t>(e.depth) * 2, ' ') << "-- round " << round[rw]
              << " --\n";
        }
      }
    }
    if (!shown[i]) continue;
    if (!o.verbose && !w.empty() && w == last_window && e.text.find(" + ") == std::string::npos) {
      ++repeats;
      continue;
    }
    flush_repeats();
    last_window = w;
    out << std::string(static_cast<std::size_t>(e.depth) * 2, ' ');
    switch (e.kind) {
      case EventKind::window:
        out << "== ";
        break;
      case EventKind::hook:
        out << "-> ";
        break;
      case EventKind::decision:
        out << "?? ";
        break;
      case EventKind::destroyed:
        out << "xx ";
        break;
      case EventKind::error:
        out << "!! ";
        break;
      default:
        out << "   ";
        break;
    }
    out << e.text << '\n';
  }
  flush_repeats();
}

void Trace::print_json_lines(std::ostream& out) const {
  std::size_t seq = 0;
  for (const auto& e : events) {
    nlohmann::json j = {{"seq", seq++},
                        {"kind", to_string(e.kind)},
                        {"key", e.key},
                        {"text", e.text},
                        {"depth", e.depth}};
    for (const auto& [k, v] : e.fields.items()) j[k] = v;
    out << j.dump() << '\n';
  }
}

}  // namespace rb
