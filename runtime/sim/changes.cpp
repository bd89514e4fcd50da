#include "sim/changes.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>

#include "base/error.hpp"
#include "base/symbols.hpp"
#include "base/text.hpp"

namespace rb {

std::string Changes::describe() const {
  std::string out;
  auto list = [&](const char* word, const std::vector<std::string>& v) {
    if (v.empty()) return;
    if (!out.empty()) out += ", ";
    out += word;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : " ") + v[i];
  };
  list("with", with);
  list("without", without);
  return out.empty() ? "as written" : out;
}

namespace {

enum class ChangeKind { record, pack, setting };

struct Change {
  std::string spec;  // as written
  bool add = true;
  ChangeKind kind = ChangeKind::record;
  std::string side;  // "": every side; "scenario": the top-level table
  std::string body;  // record reference, pack id or folder, or the setting's dotted path
  std::optional<std::string> value;  // a setting's value
  // --without SIDE:NAME with one key: a record, or the side's setting NAME when no record of a
  // side's lists is called so and the setting is there (attacker:faction)
  bool or_setting = false;
};

// Keys separated by dots (policy.sustain), at least `min_dots` dots.
bool is_key_path(std::string_view s, int min_dots = 1) {
  bool start = true;
  int dots = 0;
  for (char c : s) {
    if (c == '.') {
      if (start) return false;
      start = true;
      ++dots;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
               (!start && std::isdigit(static_cast<unsigned char>(c)))) {
      start = false;
    } else {
      return false;
    }
  }
  return dots >= min_dots && !start;
}

bool looks_like_folder(std::string_view s) {
  return s.starts_with('.') || s.starts_with('/') || s.starts_with('~') ||
         fs::is_directory(fs::path(s));
}

Change parse_change(const std::string& spec, bool add, const std::vector<std::string>& sides,
                    const std::set<std::string>& pack_ids) {
  Change c;
  c.spec = spec;
  c.add = add;
  std::string rest = spec;
  const std::string flag = add ? "--with" : "--without";
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    const std::string prefix = spec.substr(0, colon);
    if (prefix == "scenario" || std::find(sides.begin(), sides.end(), prefix) != sides.end()) {
      c.side = prefix;
      rest = spec.substr(colon + 1);
    } else if (is_key_path(prefix, 0) && !pack_ids.count(prefix)) {
      // "first_player:..." where first_player is no side: say which forms there are
      std::string side_list;
      for (const auto& s : sides) side_list += (side_list.empty() ? "" : ", ") + s;
      const std::string after = spec.substr(colon + 1);
      const auto eq = after.find('=');
      throw UsageError(
          flag + " " + spec + ": '" + prefix + "' is not a side of this procedure's report (" +
          (sides.empty() ? std::string("it has none") : "its sides: " + side_list) +
          "); a setting anywhere in the scenario is written scenario:" + prefix + "." +
          (eq == std::string::npos ? after : after.substr(0, eq)) +
          (eq == std::string::npos ? "" : after.substr(eq)) +
          (sides.empty() ? ""
                         : ", a side's record SIDE:RECORD (" + sides.front() + ":" + after + ")"));
    }
  }
  if (rest.empty()) throw UsageError(flag + " " + spec + ": nothing after the side");
  if (auto eq = rest.find('='); eq != std::string::npos) {
    c.kind = ChangeKind::setting;
    c.body = rest.substr(0, eq);
    if (!is_key_path(c.body, 0))
      throw UsageError(flag + " " + spec + ": '" + c.body + "' is not a setting name");
    if (add)
      c.value = rest.substr(eq + 1);
    else if (eq + 1 != rest.size())
      throw UsageError(flag + " " + spec + ": name the setting without a value (" +
                       (c.side.empty() ? "" : c.side + ":") + c.body + ") to remove it");
    return c;
  }
  const bool pack_folder = fs::is_regular_file(fs::path(rest) / "pack.toml");
  if (pack_ids.count(rest) || pack_folder) {
    if (!c.side.empty())
      throw UsageError(flag + " " + spec + ": a pack applies to every side; write " + rest);
    c.kind = ChangeKind::pack;
    c.body = pack_folder ? pack_path(rest) : rest;  // a folder stays a folder ("./my-pack")
    return c;
  }
  if (looks_like_folder(rest) && rest.find('.') != std::string::npos && !is_key_path(rest))
    throw UsageError(flag + " " + spec + ": no pack at " + rest + " (no pack.toml there)");
  if (is_key_path(rest)) {
    if (add) throw UsageError(flag + " " + spec + ": a setting needs a value (" + spec + "=VALUE)");
    c.kind = ChangeKind::setting;
    c.body = rest;
    return c;
  }
  if (!add && is_key_path(rest, 0)) {
    // one key: a setting of the top level, else a record or a side's setting (apply_changes)
    c.kind = c.side == "scenario" ? ChangeKind::setting : ChangeKind::record;
    c.or_setting = true;
    c.body = rest;
    return c;
  }
  if (c.side == "scenario")
    throw UsageError(flag + " " + spec + ": records go to a side (" +
                     (sides.empty() ? std::string("SIDE") : sides.front()) + ":" + rest +
                     ") or to every side (" + rest + ")");
  c.kind = ChangeKind::record;
  c.body = rest;
  return c;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// Calls f with the TOML scalar the text reads as: true/false, an integer, a float, or text.
template <class F>
void with_scalar(std::string_view s, F&& f) {
  if (s == "true") return f(true);
  if (s == "false") return f(false);
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      ec == std::errc() && p == s.data() + s.size() && !s.empty())
    return f(i);
  double d = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      ec == std::errc() && p == s.data() + s.size() && !s.empty())
    return f(d);
  return f(std::string(s));
}

// Sets t[key] from text: "a,b" (or "[a, b]") is a list, anything else a scalar.
void set_value(toml::table& t, const std::string& key, std::string_view text) {
  std::string_view v = text;
  const bool bracketed = v.size() >= 2 && v.front() == '[' && v.back() == ']';
  if (bracketed) v = v.substr(1, v.size() - 2);
  if (bracketed || v.find(',') != std::string_view::npos) {
    toml::array arr;
    for (std::string_view item : split(v, ',')) {
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (item.empty()) continue;
      with_scalar(item, [&](auto x) { arr.push_back(x); });
    }
    t.insert_or_assign(key, std::move(arr));
    return;
  }
  with_scalar(v, [&](auto x) { t.insert_or_assign(key, x); });
}

// The table at a side ("" not allowed here), created when missing.
toml::table& side_table(toml::table& root, const std::string& side, const std::string& spec) {
  if (side == "scenario") return root;
  toml::node* n = root.get(side);
  if (!n) {
    root.insert(side, toml::table{});
    n = root.get(side);
  }
  if (!n->is_table())
    throw UsageError(spec + ": the scenario's '" + side + "' is not a table" +
                     (spec.find(':') == std::string::npos
                          ? " (a setting with no side goes to every side of the report, here " +
                                side +
                                "); a setting of the scenario's top level is written "
                                "scenario:" +
                                spec
                          : ""));
  return *n->as_table();
}

void apply_setting(toml::table& root, const Change& c, const std::string& side) {
  toml::table* t = &side_table(root, side, c.spec);
  const auto parts = split(c.body, '.');
  std::string where = side == "scenario" ? "the scenario" : side;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string key(parts[i]);
    where += "." + key;
    toml::node* n = t->get(key);
    if (!n) {
      if (!c.add) throw UsageError("--without " + c.spec + ": " + where + " is not set");
      t->insert(key, toml::table{});
      n = t->get(key);
    }
    if (!n->is_table()) throw UsageError(c.spec + ": " + where + " is not a table");
    t = n->as_table();
  }
  const std::string last(parts.back());
  if (c.add) {
    set_value(*t, last, *c.value);
  } else {
    if (!t->contains(last))
      throw UsageError("--without " + c.spec + ": " + where + "." + last + " is not set");
    t->erase(last);
  }
}

// The record a change names among the kinds a side's lists can hold.
int resolve_record(const Content& content, const Change& c) {
  const std::string flag = c.add ? "--with " : "--without ";
  const auto& lists = content.ruleset.scenario_lists;
  if (lists.empty())
    throw UsageError(flag + c.spec + ": the ruleset '" + content.ruleset.id +
                     "' declares no scenario_lists, so no record can be added to a side");
  std::vector<int> found;
  auto add_found = [&](int r) {
    if (r >= 0 && std::find(found.begin(), found.end(), r) == found.end()) found.push_back(r);
  };
  try {
    if (c.body.find(':') != std::string::npos || c.body.find('/') != std::string::npos) {
      add_found(content.find_record(c.body));
    } else {
      for (const auto& [kind, key] : lists) add_found(content.find_record(c.body, kind));
    }
  } catch (const ContentError& e) {
    throw UsageError(flag + c.spec + ": " + e.what());
  }
  std::erase_if(found, [&](int r) {
    return content.ruleset
        .scenario_list(sym_name(content.records[static_cast<std::size_t>(r)].kind))
        .empty();
  });
  if (found.size() > 1) {
    std::string names;
    for (int r : found) {
      const Record& rec = content.records[static_cast<std::size_t>(r)];
      names += (names.empty() ? "" : " or ") + std::string(sym_name(rec.kind)) + "/" +
               std::string(sym_name(rec.name));
    }
    throw UsageError(flag + c.spec + ": '" + c.body + "' is ambiguous; write " + names);
  }
  if (found.empty()) {
    const int any = content.find_record(c.body);
    std::string kinds;
    for (const auto& [kind, key] : lists) kinds += (kinds.empty() ? "" : ", ") + kind;
    if (any >= 0)
      throw UsageError(flag + c.spec + ": '" + c.body + "' is a " +
                       std::string(sym_name(content.records[static_cast<std::size_t>(any)].kind)) +
                       "; a side's lists hold " + kinds);
    std::vector<std::string> names;
    for (const auto& rec : content.records)
      if (!rec.removed && !content.ruleset.scenario_list(sym_name(rec.kind)).empty())
        names.emplace_back(sym_name(rec.name));
    std::string elsewhere;
    for (const auto& [kind, key] : lists)
      if (elsewhere.empty()) elsewhere = pack_declaring(content, c.body, kind);
    throw UsageError(flag + c.spec + ": no " + kinds + " '" + c.body + "' in the loaded packs" +
                     (elsewhere.empty()
                          ? did_you_mean(c.body, names)
                          : "; it is in the pack '" + elsewhere +
                                "', which the scenario does not load (add --with " + elsewhere +
                                ", or packs = [\"" + elsewhere + "\"] in the scenario)"));
  }
  return found.front();
}

int resolve_quietly(const Content& content, const std::string& ref, std::string_view kind) {
  try {
    return content.find_record(ref, kind);
  } catch (const ContentError&) {
    return -1;
  }
}

// Adds the record to (removes it from) a side's list; false when there was nothing to do.
bool apply_record(const Content& content, toml::table& root, const Change& c, int record,
                  const std::string& side) {
  const Record& rec = content.records[static_cast<std::size_t>(record)];
  const std::string kind(sym_name(rec.kind));
  const std::string key = content.ruleset.scenario_list(kind);
  toml::table& t = side_table(root, side, c.spec);
  if (!t.contains(key)) {
    if (!c.add) return false;
    t.insert(key, toml::array{});
  }
  toml::array* list = t.get(key)->as_array();
  if (!list) throw UsageError(c.spec + ": " + side + "." + key + " is not a list");
  auto same = [&](const toml::node& n) {
    return n.is_string() && resolve_quietly(content, n.as_string()->get(), kind) == record;
  };
  if (c.add) {
    for (const auto& n : *list)
      if (same(n)) return false;
    // the short name when it names this record, else the full id
    std::string name(sym_name(rec.name));
    if (resolve_quietly(content, name, kind) != record) name = rec.id;
    list->push_back(name);
    return true;
  }
  const std::size_t before = list->size();
  for (std::size_t i = list->size(); i-- > 0;)
    if (same((*list)[i])) list->erase(list->begin() + static_cast<std::ptrdiff_t>(i));
  return list->size() != before;
}

}  // namespace

Session apply_changes(const Session& base, const Changes& changes, const SessionOptions& options) {
  if (changes.empty()) return base;
  std::vector<std::string> sides;
  if (auto it = base.content->ruleset.reports.find(base.procedure);
      it != base.content->ruleset.reports.end())
    sides = it->second.sides;
  LoadRequest discover;
  discover.root = options.root;
  discover.search = options.search;
  std::set<std::string> pack_ids;
  for (const auto& [id, dir] : discover_packs(discover)) pack_ids.insert(id);

  std::vector<Change> list;
  for (const auto& s : changes.with) list.push_back(parse_change(s, true, sides, pack_ids));
  for (const auto& s : changes.without) list.push_back(parse_change(s, false, sides, pack_ids));

  SessionOptions o = options;
  bool packs_changed = false;
  for (const Change& c : list) {
    if (c.kind != ChangeKind::pack) continue;
    packs_changed = true;
    (c.add ? o.extra_packs : o.without_packs).push_back(c.body);
  }
  Session s = packs_changed ? open_session(base.scenario, o) : base;
  const Content& content = *s.content;
  for (const Change& c : list)
    if (c.kind == ChangeKind::pack && !c.add && content.pack(c.body))
      throw UsageError("--without " + c.spec +
                       ": the pack is still loaded (the ruleset's base pack, or a dependency of "
                       "another loaded pack)");

  s.scenario.file += " (" + changes.describe() + ")";  // errors of setup name the variant
  toml::table& root = s.scenario.table;
  for (const Change& c : list) {
    if (c.kind == ChangeKind::pack) continue;
    std::vector<std::string> targets = c.side.empty() ? sides : std::vector<std::string>{c.side};
    if (targets.empty())
      throw UsageError(c.spec + ": the ruleset's report names no sides; write SIDE:" + c.spec);
    bool setting = c.kind == ChangeKind::setting;
    if (c.or_setting && !setting) {
      // attacker:faction: the setting, when it is there and no record is called so
      bool is_record = false, is_set = false;
      for (const auto& [kind, key] : content.ruleset.scenario_lists) {
        try {
          is_record = is_record || content.find_record(c.body, kind) >= 0;
        } catch (const ContentError&) {  // ambiguous: a record
          is_record = true;
        }
      }
      for (const auto& side : targets)
        if (const toml::node* t = root.get(side); t && t->is_table())
          is_set = is_set || t->as_table()->contains(c.body);
      setting = is_set && !is_record;
    }
    if (setting) {
      for (const auto& side : targets) apply_setting(root, c, side);
      continue;
    }
    const int record = resolve_record(content, c);
    bool changed = false;
    for (const auto& side : targets) changed |= apply_record(content, root, c, record, side);
    if (!changed)
      throw UsageError((c.add ? "--with " : "--without ") + c.spec + ": " +
                       (c.add ? "already in the scenario" : "not in the scenario") + " for " +
                       (c.side.empty() ? "any side" : c.side));
  }
  return s;
}

}  // namespace rb
