// sim/link_import: see link_import.hpp.
#include "sim/link_import.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/symbols.hpp"
#include "base/text.hpp"
#include "content/content.hpp"
#include "content/toml_read.hpp"

namespace rb {

namespace {

// ---------------------------------------------------------------- the link

// At most 60 bytes of a value in a message, with bytes outside printable ASCII escaped, so that
// a hostile link cannot fill or garble a terminal.
std::string shown(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < 60; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789ABCDEF";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > 60) out += "...";
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(std::string_view s, std::string_view what) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      const int hi = i + 1 < s.size() ? hex_digit(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        throw UsageError("link: a bad %-escape in '" + shown(what) + "' at '" +
                         shown(s.substr(i, 3)) + "' (expected % and two hex digits)");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

LinkParams parse_link(std::string_view url) {
  if (url.size() > kMaxLinkBytes)
    throw UsageError("link: " + std::to_string(url.size()) + " bytes; at most " +
                     std::to_string(kMaxLinkBytes));
  while (!url.empty() &&
         (url.front() == ' ' || url.front() == '\t' || url.front() == '\n' || url.front() == '\r'))
    url.remove_prefix(1);
  while (!url.empty() &&
         (url.back() == ' ' || url.back() == '\t' || url.back() == '\n' || url.back() == '\r'))
    url.remove_suffix(1);
  if (auto hash = url.find('#'); hash != std::string_view::npos) url = url.substr(0, hash);
  std::string_view rest = url;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    const std::string s = lower(std::string(rest.substr(0, scheme)));
    if (s != "http" && s != "https")
      throw UsageError("link: '" + shown(url) + "' is not a web link (expected https://HOST/?...)");
    rest = rest.substr(scheme + 3);
  }
  const auto host_end = rest.find_first_of("/?");
  LinkParams link;
  std::string host(rest.substr(0, host_end));
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (auto colon = host.find(':'); colon != std::string::npos) host = host.substr(0, colon);
  link.host = lower(host);
  if (link.host.empty() || link.host.find_first_of(" \t<>\"\\") != std::string::npos)
    throw UsageError("link: '" + shown(url) +
                     "' names no host (expected https://HOST/?PARAMETERS)");
  if (host_end == std::string_view::npos) return link;
  const auto q = rest.find('?', host_end);
  if (q == std::string_view::npos) return link;
  std::string_view query = rest.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    if (link.params.size() >= kMaxLinkParams)
      throw UsageError("link: more than " + std::to_string(kMaxLinkParams) + " parameters");
    const auto eq = pair.find('=');
    link.params.emplace_back(
        decode(pair.substr(0, eq), pair),
        eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1), pair));
  }
  return link;
}

std::string describe(const ImportProblem& p) {
  std::string s = shown(p.param);
  if (!p.value.empty()) s += "=" + shown(p.value);
  return s + ": " + p.why;
}

namespace {

// ---------------------------------------------------------------- the format

// One value's entry: what it grants (a table of side keys, and the special keys below), where
// it was read.
struct Entry {
  const toml::table* table = nullptr;
  std::string file;
  int line = 0;
  std::string pack;             // the pack whose file holds it
  std::set<std::string> packs;  // the packs of the records it names
};

constexpr std::string_view kSpecial[] = {"note",     "unsupported", "places", "per_count",
                                         "opponent", "scenario",    "id",     "groups"};

bool special(std::string_view k) {
  return std::find(std::begin(kSpecial), std::end(kSpecial), k) != std::end(kSpecial);
}

struct Param {
  std::string match, map, names, set, value, side, by;
  bool place = false;
  std::string file;
  int line = 0;
};

struct Place {
  std::string name, procedure, file;
  const toml::table* scenario = nullptr;
  const toml::table* transport = nullptr;
};

struct Format {
  std::string name, title, ruleset, place_param, default_place, limit_attribute;
  std::vector<std::string> hosts, sides, files, packs;
  const toml::table* beyond_limits = nullptr;
  std::vector<std::pair<std::string, std::string>> defaults;  // pattern -> value
  std::vector<Param> params;
  std::map<std::string, Place> places;
  // value tables: [faction], [unit], [effect], ...: name -> entry; [upgrade.X] tables keyed by
  // faction: "upgrade" -> "X" -> faction -> entry
  std::map<std::string, std::map<std::string, Entry>> values;
  std::map<std::string, std::map<std::string, std::map<std::string, Entry>>> by_key;
  std::vector<std::unique_ptr<TomlFile>> keep;  // the parsed files the pointers point into
  std::shared_ptr<const Content> content;
};

// The value table `name` of the format (an empty one when it has none), never a copy.
const std::map<std::string, Entry>& values_of(const Format& fmt, const std::string& name) {
  static const std::map<std::string, Entry> none;
  auto it = fmt.values.find(name);
  return it == fmt.values.end() ? none : it->second;
}

std::vector<std::string> keys_of(const std::map<std::string, Entry>& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

std::string join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

// The format files of every pack found: (pack id, pack folder, file).
struct FoundFile {
  std::string pack;
  fs::path file;
};

std::vector<FoundFile> find_format_files(const ImportOptions& o) {
  LoadRequest req;
  req.root = o.root;
  req.search = o.search;
  std::vector<FoundFile> out;
  for (const auto& [id, dir] : discover_packs(req))
    for (const fs::path& f : files_inside(dir, dir / "import", ".toml", "pack", Walk::flat))
      out.push_back({id, f});
  return out;
}

void read_entries(const TomlFile& f, const toml::table& t, const std::string& pack,
                  std::map<std::string, Entry>& into, const std::string& where) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    const toml::table* e = v.as_table();
    if (!e) f.fail(v, where + "." + key + ": expected a table of what it grants");
    if (into.count(key))
      f.fail(v, where + ": '" + key + "' is named twice (also " + into[key].file + ":" +
                    std::to_string(into[key].line) + ")");
    into[key] = Entry{e, f.path(), TomlFile::line(v), pack, {}};
  }
}

// Reads the files of one format into `fmt` (the defining file has hosts).
void read_format_file(Format& fmt, std::unique_ptr<TomlFile> file, const std::string& pack) {
  const TomlFile& f = *file;
  const toml::table& t = f.root();
  f.expect_keys(t,
                {"format", "defaults", "param", "place", "faction", "unit", "upgrade",
                 "risk_direct_hit", "effect", "names"},
                "an import format file");
  const toml::table* head = f.table(t, "format");
  if (!head) f.fail(1, "expected a [format] table (its name, and in one file its hosts)");
  f.expect_keys(*head,
                {"name", "title", "hosts", "ruleset", "sides", "place_param", "default_place",
                 "limit_attribute", "beyond_limits"},
                "[format]");
  fmt.files.push_back(f.path());
  if (std::find(fmt.packs.begin(), fmt.packs.end(), pack) == fmt.packs.end())
    fmt.packs.push_back(pack);
  if (head->contains("hosts")) {
    if (!fmt.hosts.empty())
      f.fail(f.line_of(*head, "hosts"),
             "format '" + fmt.name + "' is defined twice (hosts in " + fmt.files.front() + ")");
    fmt.hosts = f.strings(*head, "hosts");
    for (auto& h : fmt.hosts) h = lower(h);
    fmt.title = f.string(*head, "title").value_or(fmt.name);
    fmt.ruleset = f.string(*head, "ruleset", true).value();
    fmt.sides = f.strings(*head, "sides");
    if (fmt.sides.size() != 2) f.fail(*head, "sides: expected two sides");
    fmt.place_param = f.string(*head, "place_param").value_or("");
    fmt.default_place = f.string(*head, "default_place").value_or("");
    fmt.limit_attribute = f.string(*head, "limit_attribute").value_or("");
    fmt.beyond_limits = f.table(*head, "beyond_limits");
    if (const toml::table* d = f.table(t, "defaults"))
      for (const auto& [k, v] : *d) {
        if (!v.is_string()) f.fail(v, "defaults." + std::string(k.str()) + ": expected a string");
        fmt.defaults.emplace_back(std::string(k.str()), *v.value<std::string>());
      }
    if (const toml::array* ps = f.array(t, "param"))
      for (const toml::node& n : *ps) {
        const toml::table* p = n.as_table();
        if (!p) f.fail(n, "param: expected [[param]] tables");
        f.expect_keys(*p, {"match", "map", "names", "set", "value", "side", "by", "place"},
                      "[[param]]");
        Param q;
        q.match = f.string(*p, "match", true).value();
        q.map = f.string(*p, "map").value_or("");
        q.names = f.string(*p, "names").value_or("");
        q.set = f.string(*p, "set").value_or("");
        q.value = f.string(*p, "value").value_or("");
        q.side = f.string(*p, "side").value_or("");
        q.by = f.string(*p, "by").value_or("");
        q.place = f.boolean(*p, "place").value_or(false);
        q.file = f.path();
        q.line = TomlFile::line(n);
        if (q.place + !q.map.empty() + !q.names.empty() != 1)
          f.fail(n, "[[param]] " + q.match + ": give one of map, names or place = true");
        if (!q.value.empty() && q.value != "count" && q.value != "flag")
          f.fail(*p->get("value"), "value: expected \"count\" or \"flag\"");
        if (!q.side.empty() &&
            std::find(fmt.sides.begin(), fmt.sides.end(), q.side) == fmt.sides.end())
          f.fail(*p->get("side"),
                 "side: '" + q.side + "' is not one of the sides: " + join(fmt.sides));
        const auto name_at = q.match.find("{name}");
        if (name_at != std::string::npos && name_at + 6 != q.match.size())
          f.fail(n, "match: {name} must end the pattern");
        if (q.match.find("{side}") == std::string::npos && q.side.empty() && !q.place)
          f.fail(n, "[[param]] " + q.match + ": a pattern without {side} needs side = \"...\"");
        fmt.params.push_back(q);
      }
    if (const toml::table* pl = f.table(t, "place"))
      for (const auto& [k, v] : *pl) {
        const toml::table* p = v.as_table();
        if (!p) f.fail(v, "place." + std::string(k.str()) + ": expected a table");
        f.expect_keys(*p, {"procedure", "scenario", "transport"}, "[place]");
        Place place;
        place.name = std::string(k.str());
        place.procedure = f.string(*p, "procedure", true).value();
        place.scenario = f.table(*p, "scenario");
        place.transport = f.table(*p, "transport");
        place.file = f.path();
        if (!place.scenario) f.fail(v, "place." + place.name + ": expected its scenario template");
        if (place.transport)
          f.expect_keys(*place.transport, {"side", "key", "group", "carrier", "attribute", "what"},
                        "[place.transport]");
        fmt.places[place.name] = place;
      }
    if (fmt.places.empty()) f.fail(1, "format '" + fmt.name + "': expected at least one [place.X]");
    if (fmt.default_place.empty()) fmt.default_place = fmt.places.begin()->first;
    if (!fmt.places.count(fmt.default_place))
      f.fail(f.line_of(*head, "default_place"),
             "default_place: no [place." + fmt.default_place + "]");
  } else {
    for (std::string_view k : {"defaults", "param", "place"})
      if (t.contains(k))
        f.fail(f.line_of(t, k), std::string(k) +
                                    ": only the file that defines the format (its "
                                    "[format] has hosts) declares parameters, defaults and places");
  }
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key == "format" || key == "defaults" || key == "param" || key == "place") continue;
    const toml::table* vt = v.as_table();
    if (!vt) f.fail(v, key + ": expected a table of names");
    if (key == "upgrade") {
      for (const auto& [name, per] : *vt) {
        const toml::table* pt = per.as_table();
        if (!pt)
          f.fail(per, "upgrade." + std::string(name.str()) + ": expected a table by faction");
        read_entries(f, *pt, pack, fmt.by_key[key][std::string(name.str())],
                     "upgrade." + std::string(name.str()));
      }
    } else {
      read_entries(f, *vt, pack, fmt.values[key], key);
    }
  }
  fmt.keep.push_back(std::move(file));
}

// The record `id` of `kind` must exist; its pack goes into the entry's packs.
void resolve(const Content& c, Entry& e, std::string_view kind, const std::string& id) {
  const int r = c.require_record(id, kind, e.file, e.line);
  e.packs.insert(c.records[static_cast<std::size_t>(r)].pack);
}

// Checks every record a grant names (the ruleset's scenario lists, faction, a unit's id).
void resolve_grant(const Content& c, Entry& e, const toml::table& g) {
  for (const auto& [k, v] : g) {
    const std::string key(k.str());
    if (key == "opponent" || key == "scenario") {
      if (const toml::table* sub = v.as_table()) resolve_grant(c, e, *sub);
      continue;
    }
    if (key == "faction" && v.is_string()) resolve(c, e, "faction", *v.value<std::string>());
    if (key == "id" && v.is_string()) resolve(c, e, c.ruleset.unit_kind, *v.value<std::string>());
    for (const auto& [kind, list] : c.ruleset.scenario_lists)
      if (list == key) {
        const toml::array* a = v.as_array();
        if (!a) throw ContentError(e.file, e.line, key + ": expected a list of " + kind + " ids");
        for (const toml::node& n : *a)
          if (n.is_string()) resolve(c, e, kind, *n.value<std::string>());
      }
  }
}

std::vector<Format> load_formats(const ImportOptions& o) {
  std::vector<FoundFile> files = find_format_files(o);
  std::map<std::string, Format> by_name;
  std::vector<std::pair<std::unique_ptr<TomlFile>, std::string>> parsed;
  for (const FoundFile& ff : files) {
    auto f = std::make_unique<TomlFile>(ff.file.string());
    const toml::table* head = f->table(f->root(), "format");
    if (!head) f->fail(1, "an import format file: expected a [format] table with its name");
    const std::string name = f->string(*head, "name", true).value();
    by_name[name].name = name;
    parsed.emplace_back(std::move(f), ff.pack);
  }
  // the defining files first, so that the others find the sides and places
  std::stable_sort(parsed.begin(), parsed.end(), [](const auto& a, const auto& b) {
    return a.first->table(a.first->root(), "format")->contains("hosts") >
           b.first->table(b.first->root(), "format")->contains("hosts");
  });
  for (auto& [f, pack] : parsed) {
    const std::string name = f->string(*f->table(f->root(), "format"), "name").value();
    Format& fmt = by_name[name];
    if (fmt.hosts.empty() && !f->table(f->root(), "format")->contains("hosts"))
      f->fail(1, "format '" + name +
                     "': no file defines it (a [format] with hosts, ruleset, "
                     "sides and places)");
    read_format_file(fmt, std::move(f), pack);
  }
  std::vector<Format> out;
  for (auto& [name, fmt] : by_name) {
    LoadRequest req;
    req.root = o.root;
    req.search = o.search;
    req.ruleset = fmt.ruleset;
    const auto found = discover_packs(req);
    for (const auto& p : fmt.packs) req.packs.push_back(found.at(p).string());
    fmt.content = load_content(req);
    for (auto& [table, entries] : fmt.values)
      for (auto& [k, e] : entries) resolve_grant(*fmt.content, e, *e.table);
    for (auto& [table, per] : fmt.by_key)
      for (auto& [k, entries] : per)
        for (auto& [fk, e] : entries) {
          if (fk != "default") resolve(*fmt.content, e, "faction", fk);
          resolve_grant(*fmt.content, e, *e.table);
        }
    out.push_back(std::move(fmt));
  }
  return out;
}

// ---------------------------------------------------------------- applying a link

void put_copy(toml::table& parent_t, toml::array* parent_a, const std::string& key,
              const toml::node& v);

// Where a side key came from: the parameters that set it (for "not used" messages).
struct SideState {
  toml::table table;
  std::map<std::string, std::vector<std::string>> from;  // key (or "units/<id>") -> params
};

struct Build {
  const Format& fmt;
  std::string place;
  std::map<std::string, SideState> sides;
  toml::table scenario_extra;
  std::set<std::string> packs;
  std::vector<ImportProblem> problems;
  std::vector<std::string> notes;
  std::map<std::string, std::vector<std::string>> unit_groups;  // our unit id -> groups
};

// Deep merge: tables merge, lists append, values are set; "$value" and "$value*K" are the
// parameter's number (times K).
void merge(toml::table& into, const toml::table& from, long long value) {
  for (const auto& [k, v] : from) {
    const std::string key(k.str());
    if (const toml::table* t = v.as_table()) {
      if (!into.contains(key) || !into[key].is_table()) into.insert_or_assign(key, toml::table{});
      merge(*into[key].as_table(), *t, value);
    } else if (const toml::array* a = v.as_array()) {
      if (!into.contains(key) || !into[key].is_array()) into.insert_or_assign(key, toml::array{});
      for (const toml::node& n : *a) put_copy(into, into[key].as_array(), key, n);
    } else if (v.is_string() && v.value<std::string>()->starts_with("$value")) {
      const std::string s = *v.value<std::string>();
      long long times = 1;
      if (s.size() > 7 && s[6] == '*') times = std::stoll(s.substr(7));
      into.insert_or_assign(key, value * times);
    } else {
      put_copy(into, nullptr, key, v);
    }
  }
}

void track(SideState& s, const toml::table& g, const std::string& param) {
  for (const auto& [k, v] : g)
    if (!special(k.str())) s.from[std::string(k.str())].push_back(param);
}

// Applies an entry's grant for `param` to side `side` (value: the parameter's number).
void grant(Build& b, const Entry& e, const std::string& side, const std::string& param,
           const std::string& value, long long n) {
  const toml::table& g = *e.table;
  if (auto u = g["unsupported"].value<std::string>()) {
    b.problems.push_back({param, value, "not supported: " + *u});
    return;
  }
  if (const toml::array* places = g["places"].as_array()) {
    bool here = false;
    for (const toml::node& p : *places) here |= p.value<std::string>() == b.place;
    if (!here) {
      b.problems.push_back({param, value, "not used in a " + b.place + " battle"});
      return;
    }
  }
  b.packs.insert(e.packs.begin(), e.packs.end());
  if (auto note = g["note"].value<std::string>()) b.notes.push_back(*note);
  const bool per_count = g["per_count"].value_or(false);
  const long long times = per_count ? std::max<long long>(n, 1) : 1;
  toml::table side_part, opponent_part;
  for (const auto& [k, v] : g) {
    if (special(k.str())) continue;
    put_copy(side_part, nullptr, std::string(k.str()), v);
  }
  SideState& s = b.sides[side];
  for (long long i = 0; i < times; ++i) merge(s.table, side_part, n);
  track(s, side_part, param);
  if (const toml::table* opp = g["opponent"].as_table()) {
    const std::string other = side == b.fmt.sides[0] ? b.fmt.sides[1] : b.fmt.sides[0];
    merge(b.sides[other].table, *opp, n);
    track(b.sides[other], *opp, param);
  }
  if (const toml::table* sc = g["scenario"].as_table()) merge(b.scenario_extra, *sc, n);
}

// Matches `key` against a pattern with {side} and a final {name}: the side and name, or none.
std::optional<std::pair<std::string, std::string>> match(const Format& fmt, const Param& p,
                                                         const std::string& key) {
  const auto sides_at = p.match.find("{side}");
  std::vector<std::string> sides =
      sides_at == std::string::npos ? std::vector<std::string>{p.side} : fmt.sides;
  for (const std::string& side : sides) {
    std::string pat = p.match;
    if (sides_at != std::string::npos) pat.replace(sides_at, 6, side);
    const auto name_at = pat.find("{name}");
    if (name_at == std::string::npos) {
      if (key == pat) return std::make_pair(side, std::string());
    } else if (key.size() > name_at && key.compare(0, name_at, pat, 0, name_at) == 0) {
      return std::make_pair(side, key.substr(name_at));
    }
  }
  return std::nullopt;
}

// A whole number 0..kMax written in digits, else nullopt.
std::optional<long long> count_of_value(const std::string& v) {
  constexpr long long kMax = 100000;
  long long n = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || n < 0 || n > kMax)
    return std::nullopt;
  return n;
}

void apply_param(Build& b, const Param& p, const std::string& side, const std::string& name,
                 const std::string& key, const std::string& value) {
  const Format& fmt = b.fmt;
  long long n = 1;
  if (p.value == "count") {
    auto c = count_of_value(value);
    if (!c) {
      b.problems.push_back({key, value, "expected a whole number (0 to 100000)"});
      return;
    }
    n = *c;
  } else if (p.value == "flag") {
    if (value != "true" && value != "false") {
      b.problems.push_back({key, value, "expected true or false"});
      return;
    }
    n = value == "true";
  }
  if (!p.map.empty()) {
    const auto& table = values_of(fmt, p.map);
    auto it = table.find(value);
    if (it == table.end()) {
      const auto known = keys_of(table);
      b.problems.push_back({key, value,
                            "no " + p.map + " '" + shown(value) + "' in the " + fmt.name +
                                " format" + did_you_mean(value, known)});
      return;
    }
    grant(b, it->second, side, key, value, n);
    return;
  }
  // names: {name} looked up
  const Entry* e = nullptr;
  if (fmt.by_key.count(p.names)) {
    const auto& per = fmt.by_key.at(p.names);
    auto it = per.find(name);
    if (it == per.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : per) known.push_back(k);
      b.problems.push_back({key, value,
                            "no " + p.names + " '" + shown(name) + "' in the " + fmt.name +
                                " format" + did_you_mean(name, known)});
      return;
    }
    const std::string faction = b.sides[side].table["faction"].value_or(std::string());
    auto f = it->second.find(faction);
    if (f == it->second.end()) f = it->second.find("default");
    if (f == it->second.end()) {
      b.problems.push_back({key, value, "no " + p.names + " of " + name + " for this faction"});
      return;
    }
    e = &f->second;
  } else {
    const auto& table = values_of(fmt, p.names);
    auto it = table.find(name);
    if (it == table.end()) {
      b.problems.push_back({key, value,
                            "no " + p.names + " '" + shown(name) + "' in the " + fmt.name +
                                " format" + did_you_mean(name, keys_of(table))});
      return;
    }
    e = &it->second;
  }
  if (n == 0) return;  // not held
  if (p.set.empty()) {
    grant(b, *e, side, key, value, n);
    return;
  }
  // a count of a named thing: side[set][id] = n
  const toml::table& g = *e->table;
  if (auto u = g["unsupported"].value<std::string>()) {
    b.problems.push_back({key, value, "not supported: " + *u});
    return;
  }
  const std::string id = g["id"].value_or(name);
  b.packs.insert(e->packs.begin(), e->packs.end());
  SideState& s = b.sides[side];
  if (!s.table.contains(p.set)) s.table.insert(p.set, toml::table{});
  s.table[p.set].as_table()->insert_or_assign(id, n);
  s.from[p.set + "/" + id].push_back(key);
  if (const toml::array* groups = g["groups"].as_array())
    for (const toml::node& gn : *groups)
      if (auto gs = gn.value<std::string>()) b.unit_groups[id].push_back(*gs);
}

// ---------------------------------------------------------------- the scenario template

struct Ref {
  std::string side, key, group;
  bool negate = false;
};

std::optional<Ref> parse_ref(const Format& fmt, std::string_view s) {
  if (!s.starts_with("$") || s == "$merge") return std::nullopt;
  s.remove_prefix(1);
  Ref r;
  const auto colon = s.find(':');
  if (colon != std::string_view::npos) {
    r.group = std::string(s.substr(colon + 1));
    s = s.substr(0, colon);
    if (r.group.starts_with("!")) {
      r.negate = true;
      r.group.erase(0, 1);
    }
  }
  const auto dot = s.find('.');
  r.side = std::string(s.substr(0, dot));
  if (dot != std::string_view::npos) r.key = std::string(s.substr(dot + 1));
  if (std::find(fmt.sides.begin(), fmt.sides.end(), r.side) == fmt.sides.end()) return std::nullopt;
  return r;
}

// The side keys the template names one by one ("$attacker.units"): not in a whole-side "$merge".
void collect_refs(const Format& fmt, const toml::node& n,
                  std::set<std::pair<std::string, std::string>>& out) {
  if (const toml::table* t = n.as_table()) {
    for (const auto& [k, v] : *t) collect_refs(fmt, v, out);
  } else if (const toml::array* a = n.as_array()) {
    for (const toml::node& x : *a) collect_refs(fmt, x, out);
  } else if (auto s = n.value<std::string>()) {
    if (auto r = parse_ref(fmt, *s); r && !r->key.empty()) out.insert({r->side, r->key});
  }
}

struct Filled {
  Build& b;
  std::set<std::pair<std::string, std::string>> named;
  std::set<std::string> used;  // "side/key" and "side/key/id"
};

bool in_group(const Build& b, const std::string& id, const Ref& r) {
  auto it = b.unit_groups.find(id);
  const bool has = it != b.unit_groups.end() &&
                   std::find(it->second.begin(), it->second.end(), r.group) != it->second.end();
  return r.negate ? !has : has;
}

toml::table whole_side(Filled& f, const std::string& side) {
  toml::table out;
  for (const auto& [k, v] : f.b.sides[side].table) {
    const std::string key(k.str());
    if (f.named.count({side, key})) continue;
    put_copy(out, nullptr, key, v);
    f.used.insert(side + "/" + key);
  }
  return out;
}

bool fill(Filled& f, const toml::node& tmpl, toml::table& parent_t, toml::array* parent_a,
          const std::string& key);
void put_copy(toml::table& parent_t, toml::array* parent_a, const std::string& key,
              const toml::node& v);

void fill_table(Filled& f, const toml::table& tmpl, toml::table& out) {
  for (const auto& [k, v] : tmpl) {
    const std::string key(k.str());
    if (key == "$merge") {
      if (auto side = v.value<std::string>())
        for (const auto& [wk, wv] : whole_side(f, *side))
          put_copy(out, nullptr, std::string(wk.str()), wv);
      continue;
    }
    fill(f, v, out, nullptr, key);
  }
}

// Puts a copy of `v` at parent_t[key], or at the end of parent_a.
void put_copy(toml::table& parent_t, toml::array* parent_a, const std::string& key,
              const toml::node& v) {
  auto put = [&](auto&& x) {
    if (parent_a)
      parent_a->push_back(std::forward<decltype(x)>(x));
    else
      parent_t.insert_or_assign(key, std::forward<decltype(x)>(x));
  };
  if (const toml::table* t = v.as_table())
    put(toml::table(*t));
  else if (const toml::array* a = v.as_array())
    put(toml::array(*a));
  else if (v.is_string())
    put(*v.value<std::string>());
  else if (v.is_integer())
    put(*v.value<long long>());
  else if (v.is_boolean())
    put(*v.value<bool>());
  else if (v.is_floating_point())
    put(*v.value<double>());
}

// Fills one template value into parent_t[key] (or appends to parent_a); false when left out.
bool fill(Filled& f, const toml::node& tmpl, toml::table& parent_t, toml::array* parent_a,
          const std::string& key) {
  if (const toml::table* t = tmpl.as_table()) {
    toml::table out;
    fill_table(f, *t, out);
    if (out.empty() && !t->empty()) return false;
    put_copy(parent_t, parent_a, key, out);
    return true;
  }
  if (const toml::array* a = tmpl.as_array()) {
    toml::array out;
    toml::table unused;
    for (const toml::node& x : *a) fill(f, x, unused, &out, "");
    if (out.empty() && !a->empty()) return false;
    put_copy(parent_t, parent_a, key, out);
    return true;
  }
  const auto s = tmpl.value<std::string>();
  const auto r = s ? parse_ref(f.b.fmt, *s) : std::nullopt;
  if (!r) {  // a plain value: as it is
    put_copy(parent_t, parent_a, key, tmpl);
    return true;
  }
  SideState& side = f.b.sides[r->side];
  if (r->key.empty()) {  // the whole side, but for the keys named elsewhere
    auto whole = whole_side(f, r->side);
    if (whole.empty()) return false;
    put_copy(parent_t, parent_a, key, whole);
    return true;
  }
  const toml::node* v = side.table.get(r->key);
  if (!v) return false;
  if (r->group.empty()) {
    f.used.insert(r->side + "/" + r->key);
    put_copy(parent_t, parent_a, key, *v);
    return true;
  }
  // a table of counts, only the entries of a group (or not of it)
  const toml::table* vt = v->as_table();
  if (!vt) return false;
  toml::table out;
  for (const auto& [id, count] : *vt) {
    const std::string sid(id.str());
    if (!in_group(f.b, sid, *r)) continue;
    put_copy(out, nullptr, sid, count);
    f.used.insert(r->side + "/" + r->key + "/" + sid);
  }
  if (out.empty()) return false;
  put_copy(parent_t, parent_a, key, out);
  return true;
}

// ---------------------------------------------------------------- writing TOML

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string key_text(std::string_view k) {
  const bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  return bare ? std::string(k) : quote(k);
}

std::string inline_value(const toml::node& n) {
  if (const toml::table* t = n.as_table()) {
    if (t->empty()) return "{}";
    std::string s = "{ ";
    bool first = true;
    for (const auto& [k, v] : *t) {
      s += (first ? "" : ", ") + key_text(k.str()) + " = " + inline_value(v);
      first = false;
    }
    return s + " }";
  }
  if (const toml::array* a = n.as_array()) {
    std::string s = "[";
    bool first = true;
    for (const toml::node& v : *a) {
      s += (first ? "" : ", ") + inline_value(v);
      first = false;
    }
    return s + "]";
  }
  if (auto s = n.value<std::string>()) return quote(*s);
  if (auto b = n.value<bool>(); b && n.is_boolean()) return *b ? "true" : "false";
  if (auto i = n.value<long long>(); i && n.is_integer()) return std::to_string(*i);
  if (auto d = n.value<double>()) {
    std::ostringstream o;
    o << *d;
    return o.str();
  }
  return "\"\"";
}

std::string write_toml(const toml::table& t) {
  std::string out;
  for (std::string_view first : {"ruleset", "packs", "procedure"})
    if (const toml::node* n = t.get(first))
      out += std::string(first) + " = " + inline_value(*n) + "\n";
  auto is_first = [](std::string_view k) {
    return k == "ruleset" || k == "packs" || k == "procedure";
  };
  auto tables_array = [](const toml::node& v) {
    const toml::array* a = v.as_array();
    return a && !a->empty() && a->is_array_of_tables();
  };
  for (const auto& [k, v] : t)
    if (!is_first(k.str()) && !v.is_table() && !tables_array(v))
      out += key_text(k.str()) + " = " + inline_value(v) + "\n";
  for (const auto& [k, v] : t) {
    if (is_first(k.str())) continue;
    if (const toml::table* sub = v.as_table()) {
      out += "[" + key_text(k.str()) + "]\n";
      for (const auto& [sk, sv] : *sub) out += key_text(sk.str()) + " = " + inline_value(sv) + "\n";
    } else if (tables_array(v)) {
      for (const toml::node& e : *v.as_array()) {
        out += "[[" + key_text(k.str()) + "]]\n";
        for (const auto& [sk, sv] : *e.as_table())
          out += key_text(sk.str()) + " = " + inline_value(sv) + "\n";
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------- the steps after the params

std::int32_t unit_attribute(const Content& c, const std::string& id, const std::string& attr) {
  const AttributeDef* a = c.ruleset.attribute(attr);
  const int r = c.find_record(id, c.ruleset.unit_kind);
  if (!a || r < 0) return -1;
  const Record& rec = c.records[static_cast<std::size_t>(r)];
  const auto slot = static_cast<std::size_t>(a->slot);
  return rec.has[slot] ? rec.attr[slot] : -1;
}

void transport(Build& b, const Place& place) {
  const toml::table& t = *place.transport;
  const std::string side = t["side"].value_or(b.fmt.sides[0]);
  const std::string key = t["key"].value_or(std::string("units"));
  const std::string group = t["group"].value_or(std::string("carried"));
  const std::string carrier_name = t["carrier"].value_or(std::string());
  const std::string attr = t["attribute"].value_or(std::string("capacity"));
  const Content& c = *b.fmt.content;
  SideState& s = b.sides[side];
  toml::table* units = s.table[key].as_table();
  if (!units) return;
  long long need = 0, have = 0;
  for (const auto& [id, n] : *units) {
    const long long count = n.value_or(0LL);
    const std::string sid(id.str());
    if (in_group(b, sid, Ref{side, key, group, false})) need += count;
    have += count * std::max<std::int32_t>(0, unit_attribute(c, sid, attr));
  }
  if (need <= have) return;
  const auto& names = values_of(b.fmt, "unit");
  auto e = names.find(carrier_name);
  const std::string carrier =
      e == names.end() ? carrier_name : (*e->second.table)["id"].value_or(carrier_name);
  const std::int32_t cap = unit_attribute(c, carrier, attr);
  if (cap <= 0) return;
  const long long add = (need - have + cap - 1) / cap;
  units->insert_or_assign(carrier,
                          units->get(carrier) ? (*units)[carrier].value_or(0LL) + add : add);
  const std::string what = t["what"].value_or(group + " units");
  b.notes.push_back(std::to_string(add) + " " + carrier + " added to carry the " + side + "'s " +
                    what + " (" + b.fmt.name + " needs no capacity)");
}

void beyond_limits(Build& b) {
  if (b.fmt.limit_attribute.empty() || !b.fmt.beyond_limits) return;
  const Content& c = *b.fmt.content;
  for (auto& [side, s] : b.sides) {
    const toml::table* units = s.table["units"].as_table();
    if (!units) continue;
    for (const auto& [id, n] : *units) {
      const std::int32_t limit = unit_attribute(c, std::string(id.str()), b.fmt.limit_attribute);
      if (limit >= 0 && n.value_or(0LL) > limit) {
        merge(b.scenario_extra, *b.fmt.beyond_limits, 0);
        b.notes.push_back(side + " has " + std::to_string(n.value_or(0LL)) + " " +
                          std::string(id.str()) + ", more than its " + std::to_string(limit) +
                          " pieces: a what-if beyond the pieces");
        return;
      }
    }
  }
}

}  // namespace

ImportResult import_link(std::string_view url, const ImportOptions& options) {
  const LinkParams link = parse_link(url);
  std::vector<Format> formats = load_formats(options);
  const Format* fmt = nullptr;
  std::vector<std::string> hosts;
  for (const Format& f : formats)
    for (const std::string& h : f.hosts) {
      hosts.push_back(h);
      if (h == link.host) fmt = &f;
    }
  if (!fmt)
    throw UsageError("link: no import format reads links of '" + shown(link.host) +
                     "'; the hosts known: " + (hosts.empty() ? "none" : join(hosts)));
  Build b{*fmt, fmt->default_place, {}, {}, {}, {}, {}, {}};
  for (const auto& side : fmt->sides) b.sides[side];
  // duplicates: the other tool reads neither
  std::map<std::string, int> seen;
  for (const auto& [k, v] : link.params) ++seen[k];
  // pass 1: the place; pass 2: parameters not keyed by faction (the faction first); pass 3: the
  // parameters whose names depend on the faction (a unit upgrade)
  std::vector<std::tuple<const Param*, std::string, std::string, std::string, std::string>> matched;
  std::set<std::pair<std::string, std::string>> given;  // (pattern, side) a link gave
  for (const auto& [k, v] : link.params) {
    if (seen[k] > 1) {
      if (seen[k] > 0)
        b.problems.push_back({k, "", "given " + std::to_string(seen[k]) + " times: none is used"});
      seen[k] = -1;
      continue;
    }
    if (seen[k] < 0) continue;
    const Param* hit = nullptr;
    std::pair<std::string, std::string> sn;
    for (const Param& p : fmt->params)
      if (auto m = match(*fmt, p, k)) {
        hit = &p;
        sn = *m;
        break;
      }
    if (!hit) {
      b.problems.push_back({k, v, "not a parameter of the " + fmt->name + " format"});
      continue;
    }
    given.insert({hit->match, sn.first});
    if (hit->place) {
      if (!fmt->places.count(v)) {
        std::vector<std::string> known;
        for (const auto& [name, pl] : fmt->places) known.push_back(name);
        b.problems.push_back(
            {k, v, "not a place; the places: " + join(known) + did_you_mean(v, known)});
      } else {
        b.place = v;
      }
      continue;
    }
    matched.emplace_back(hit, sn.first, sn.second, k, v);
  }
  // the defaults of what the link left out
  for (const auto& [pattern, value] : fmt->defaults)
    for (const Param& p : fmt->params)
      if (p.match == pattern)
        for (const std::string& side : fmt->sides)
          if (!given.count({pattern, side})) {
            std::string key = pattern;
            if (auto at = key.find("{side}"); at != std::string::npos) key.replace(at, 6, side);
            matched.emplace(matched.begin(), &p, side, "", key, value);
          }
  for (int pass = 0; pass < 3; ++pass)
    for (const auto& [p, side, name, key, value] : matched) {
      const bool faction = !p->map.empty() && p->map == "faction";
      const bool by = fmt->by_key.count(p->names) > 0;
      if ((pass == 0) != faction || (pass == 2) != by) continue;
      apply_param(b, *p, side, name, key, value);
    }
  const Place& place = fmt->places.at(b.place);
  if (place.transport) transport(b, place);
  beyond_limits(b);

  ImportResult r;
  r.format = fmt->name;
  r.title = fmt->title;
  r.place = b.place;
  r.procedure = place.procedure;
  r.format_files = fmt->files;
  toml::table out;
  out.insert("ruleset", fmt->ruleset);
  std::vector<std::string> packs;
  for (const PackInfo& p : fmt->content->packs)
    if (b.packs.count(p.id) && p.id != fmt->content->ruleset.base_pack) packs.push_back(p.id);
  if (!packs.empty()) {
    toml::array a;
    for (const auto& p : packs) a.push_back(p);
    out.insert("packs", a);
  }
  out.insert("procedure", place.procedure);
  Filled f{b, {}, {}};
  collect_refs(*fmt, *place.scenario, f.named);
  fill_table(f, *place.scenario, out);
  merge(out, b.scenario_extra, 0);
  // what the link gave that the place does not use
  for (const auto& [side, s] : b.sides)
    for (const auto& [key, params] : s.from) {
      const auto slash = key.find('/');
      const std::string top = key.substr(0, slash);
      if (f.used.count(side + "/" + top) || f.used.count(side + "/" + key)) continue;
      for (const auto& param : params) {
        std::string value;
        for (const auto& [k, v] : link.params)
          if (k == param) value = v;
        b.problems.push_back({param, value, "not used in a " + b.place + " battle"});
      }
    }
  r.scenario = std::move(out);
  r.problems = b.problems;
  r.notes = b.notes;
  std::string head = "# Imported from a " + fmt->title + " link by `rulebench import` (format " +
                     fmt->name + ", " + b.place + "):\n#   " +
                     shown(std::string(url.substr(0, 2000))) + "\n";
  if (url.size() > 60) {
    // the whole link, in lines of at most 90 bytes (no byte outside printable ASCII)
    head = "# Imported from a " + fmt->title + " link by `rulebench import` (format " + fmt->name +
           ", " + b.place + "):\n";
    std::string whole;
    for (char c : url.substr(0, 4000))
      whole +=
          (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) ? c : '?';
    for (std::size_t i = 0; i < whole.size(); i += 90) head += "#   " + whole.substr(i, 90) + "\n";
  }
  for (const auto& n : r.notes) head += "# " + n + "\n";
  for (const auto& p : r.problems) head += "# not understood: " + describe(p) + "\n";
  r.toml = head + write_toml(r.scenario);
  return r;
}

std::vector<std::string> check_import_formats(const ImportOptions& options) {
  std::vector<std::string> names;
  for (const Format& f : load_formats(options)) names.push_back(f.name);
  return names;
}

}  // namespace rb
