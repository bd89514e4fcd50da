#include "trace/trace.hpp"

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

void Trace::print_narrative(std::ostream& out) const {
  for (const auto& e : events) {
    if (e.text.empty()) continue;  // a second name of a merged window: a key for tests only
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
}

void Trace::print_json_lines(std::ostream& out) const {
  std::size_t seq = 0;
  for (const auto& e : events) {
    nlohmann::json j = {{"seq", seq++},
                        {"kind", to_string(e.kind)},
                        {"key", e.key},
                        {"text", e.text},
                        {"depth", e.depth}};
    out << j.dump() << '\n';
  }
}

}  // namespace rb
