#include "form.hpp"

#include <algorithm>
#include <set>

#include "base/error.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "content/toml_read.hpp"

namespace rb::serve {

namespace {

using nlohmann::json;

const std::vector<std::string> kTypes{"record", "records", "counts", "order", "choice", "set",
                                      "int",    "ints",    "bool",   "text",  "names",  "rows"};

// The keys each field type may have besides key, type, label and doc.
std::vector<std::string> keys_of_type(const std::string& type) {
  // sides: the side columns that draw the field (none: every side's)
  std::vector<std::string> k{"key", "type", "label", "doc", "sides"};
  auto add = [&](std::initializer_list<const char*> more) {
    k.insert(k.end(), more.begin(), more.end());
  };
  if (type == "record") add({"kind", "where", "unless", "not_named_by", "same", "none"});
  if (type == "records") add({"kind", "where", "unless", "not_named_by", "same"});
  if (type == "counts")
    add({"kind", "where", "unless", "not_named_by", "same", "beside", "max", "shown_as", "upgrade",
         "stats"});
  if (type == "order") add({"kind", "where", "unless", "default"});
  if (type == "choice") add({"values", "attribute", "number", "default", "none"});
  if (type == "set") add({"values"});
  if (type == "int") add({"min", "max", "default"});
  if (type == "ints") add({"min", "max", "count", "labels"});
  if (type == "bool") add({"default"});
  if (type == "rows") add({"fields", "add"});
  return k;
}

bool is_key_path(const std::string& s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
    if (!word && !(c == '.' && s[i - 1] != '.')) return false;
  }
  return true;
}

class FormReader {
 public:
  FormReader(const TomlFile& f, const Ruleset& r) : f_(f), r_(r) {}

  json read() {
    const toml::table& root = f_.root();
    f_.expect_keys(root, {"procedure", "group", "map", "opens_first"}, "form.toml");
    const toml::table* groups = f_.table(root, "group");
    json out = {{"procedures", json::object()}, {"groups", json::object()}};
    // the page opens on this ruleset when the visitor has not chosen one
    out["opens_first"] = f_.boolean(root, "opens_first").value_or(false);
    if (groups)
      for (auto&& [name, v] : *groups) group_names_.insert(std::string(name.str()));
    if (groups)
      for (auto&& [name, v] : *groups) {
        const std::string g(name.str());
        const toml::array* fields = v.as_array();
        if (!fields) f_.fail(v, "group." + g + " is a list of fields: [[group." + g + "]]");
        out["groups"][g] = read_group(g, *fields);
      }
    groups_ = &out["groups"];
    // rows hold a group's fields; a group reached again through its own rows would be drawn
    // without end
    if (groups)
      for (const auto& [g, fields] : out["groups"].items()) {
        std::vector<std::string> path{g};
        check_rows(out["groups"], g, path, *groups);
      }
    if (const toml::table* procs = f_.table(root, "procedure"))
      for (auto&& [name, v] : *procs) {
        const std::string p(name.str());
        const toml::table* t = v.as_table();
        if (!t) f_.fail(v, "procedure." + p + " is a table: [procedure." + p + "]");
        out["procedures"][p] = read_procedure(p, *t);
      }
    if (const toml::table* map = f_.table(root, "map")) out["map"] = read_map(*map);
    return out;
  }

  // [map]: what the page's hex map draws on a hex (web/map.js), by the ruleset's names: label, an
  // attribute of the hex's entity shown as its number; marks, attributes shown as words (when not
  // "none"); places, a kind of entity inside a hex listed by name with its owner and units;
  // tokens, a kind of entity inside a hex shown by owner. Units are the ruleset's unit kind.
  json read_map(const toml::table& t) {
    f_.expect_keys(t, {"label", "marks", "places", "tokens", "activate", "systems"}, "map");
    json out = json::object();
    const auto attribute = [&](const std::string& name, std::string_view key) {
      if (!r_.attribute(name)) {
        std::vector<std::string> names;
        for (const auto& a : r_.attributes) names.push_back(a.name);
        f_.fail(*t.get(key), "map." + std::string(key) + ": '" + name +
                                 "' is not an attribute of ruleset '" + r_.id + "'" +
                                 did_you_mean(name, names));
      }
    };
    if (auto label = f_.string(t, "label")) attribute(*label, "label"), out["label"] = *label;
    out["marks"] = json::array();
    for (const std::string& m : f_.strings(t, "marks"))
      attribute(m, "marks"), out["marks"].push_back(m);
    // the scenario's keys a click writes: the active hex's name, and the list of tables that
    // name a hex (by `hex = [q, r]`, or by the label attribute) and hold `units` by player
    for (const char* key : {"activate", "systems"})
      if (auto k = f_.string(t, key)) out[key] = *k;
    for (const char* key : {"places", "tokens"})
      if (auto kind = f_.string(t, key)) {
        if (!r_.has_kind(*kind))
          f_.fail(*t.get(key), "map." + std::string(key) + ": '" + *kind +
                                   "' is not a kind of ruleset '" + r_.id + "'" +
                                   did_you_mean(*kind, r_.kinds));
        out[key] = *kind;
      }
    return out;
  }

 private:
  std::string group_ref(const toml::table& t, std::string_view key, const std::string& where) {
    const std::string g = *f_.string(t, key, true);
    if (!group_names_.count(g)) {
      const std::vector<std::string> names(group_names_.begin(), group_names_.end());
      f_.fail(*t.get(key), where + ": no group '" + g + "'" + did_you_mean(g, names) +
                               " (declare it as [[group." + g + "]])");
    }
    return g;
  }

  json read_procedure(const std::string& name, const toml::table& t) {
    std::vector<std::string> procs;
    for (const auto& [p, file] : r_.procedures) procs.push_back(p);
    if (std::find(procs.begin(), procs.end(), name) == procs.end())
      f_.fail(t, "procedure '" + name + "' is not a procedure of ruleset '" + r_.id + "'" +
                     did_you_mean(name, procs));
    f_.expect_keys(t, {"label", "sides", "side_group", "groups", "extra"}, "procedure." + name);
    json p = json::object();
    p["label"] = f_.string(t, "label").value_or(name);
    p["sides"] = f_.strings(t, "sides");
    if (!p["sides"].empty())
      p["side_group"] = group_ref(t, "side_group", "procedure." + name);
    else if (t.contains("side_group"))
      f_.fail(*t.get("side_group"), "side_group needs sides = [...]");
    json groups = json::array();
    for (const std::string& g : f_.strings(t, "groups")) {
      if (!group_names_.count(g))
        f_.fail(*t.get("groups"), "procedure." + name + ".groups: no group '" + g + "'");
      groups.push_back(g);
    }
    p["groups"] = groups;
    json extra = json::object();
    if (const toml::table* e = f_.table(t, "extra"))
      for (auto&& [side, v] : *e) {
        const std::string s(side.str());
        if (std::find(p["sides"].begin(), p["sides"].end(), s) == p["sides"].end())
          f_.fail(v, "procedure." + name + ".extra: '" + s + "' is not one of its sides");
        extra[s] = group_ref(*e, s, "procedure." + name + ".extra");
      }
    p["extra"] = extra;
    std::vector<std::string> side_groups;
    if (p.contains("side_group")) side_groups.push_back(p["side_group"]);
    for (const auto& [s, g] : extra.items()) side_groups.push_back(g);
    for (const std::string& g : side_groups)
      for (const json& field : (*groups_)[g])
        for (const auto& s : field.value("sides", json::array()))
          if (std::find(p["sides"].begin(), p["sides"].end(), s) == p["sides"].end())
            f_.fail(t, "procedure." + name + ": group." + g + " field '" +
                           field["key"].get<std::string>() + "' names the side '" +
                           s.get<std::string>() + "', which is not one of its sides");
    return p;
  }

  void check_kind(const toml::table& t, const std::string& where) {
    const std::string kind = *f_.string(t, "kind", true);
    if (!r_.has_kind(kind) && kind != "player")
      f_.fail(*t.get("kind"), where + ": '" + kind + "' is not a record kind of ruleset '" + r_.id +
                                  "'" + did_you_mean(kind, r_.kinds));
  }

  void check_attribute(const toml::node& at, const std::string& name, const std::string& where) {
    if (r_.attribute(name)) return;
    std::vector<std::string> names;
    for (const auto& a : r_.attributes) names.push_back(a.name);
    f_.fail(at, where + ": no attribute '" + name + "' in ruleset '" + r_.id + "'" +
                    did_you_mean(name, names));
  }

  json read_field(const std::string& group, const toml::table& t, const json& earlier) {
    const std::string key = *f_.string(t, "key", true);
    const std::string where = "group." + group + " field '" + key + "'";
    if (!is_key_path(key))
      f_.fail(*t.get("key"), where + ": a key is names joined by dots (policy.sustain)");
    const std::string type = *f_.string(t, "type", true);
    if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
      std::string all;
      for (const auto& x : kTypes) all += (all.empty() ? "" : ", ") + x;
      f_.fail(*t.get("type"), where + ": unknown type '" + type + "'" + did_you_mean(type, kTypes) +
                                  "; the types: " + all);
    }
    f_.expect_keys(t, keys_of_type(type), where + " (type " + type + ")");
    json j = json::object();
    j["key"] = key;
    j["type"] = type;
    j["label"] = f_.string(t, "label").value_or(key.substr(key.rfind('.') + 1));
    if (auto d = f_.string(t, "doc")) j["doc"] = *d;
    if (t.contains("sides")) {
      j["sides"] = f_.strings(t, "sides");
      if (j["sides"].empty()) f_.fail(*t.get("sides"), where + ": sides names one side or more");
    }
    if (type == "record" || type == "records" || type == "counts" || type == "order") {
      check_kind(t, where);
      j["kind"] = *f_.string(t, "kind");
      for (const char* list : {"where", "unless"}) {
        const auto names = f_.strings(t, list);
        for (const auto& a : names) check_attribute(*t.get(list), a, where);
        j[list] = names;
      }
      if (auto a = f_.string(t, "not_named_by")) {
        check_attribute(*t.get("not_named_by"), *a, where);
        j["not_named_by"] = *a;
      }
      if (auto a = f_.string(t, "same")) {
        check_attribute(*t.get("same"), *a, where);
        const bool sibling = std::any_of(earlier.begin(), earlier.end(),
                                         [&](const json& e) { return e["key"] == *a; });
        if (!sibling)
          f_.fail(*t.get("same"), where + ": same = '" + *a +
                                      "' needs an earlier field of this group with key '" + *a +
                                      "'");
        j["same"] = *a;
      }
    }
    if (auto n = f_.string(t, "none")) j["none"] = *n;
    if (type == "counts") {
      if (auto b = f_.string(t, "beside")) {
        const bool counts = std::any_of(earlier.begin(), earlier.end(), [&](const json& e) {
          return e["key"] == *b && e["type"] == "counts";
        });
        if (!counts)
          f_.fail(*t.get("beside"),
                  where + ": beside = '" + *b +
                      "' needs an earlier counts field of this group with that key");
        j["beside"] = *b;
      }
      j["max"] = f_.integer(t, "max").value_or(1000);
      read_unit_rows(t, where, earlier, j);
    }
    if (type == "order") j["default"] = f_.strings(t, "default");
    if (type == "choice" || type == "set") {
      std::vector<std::string> values = f_.strings(t, "values");
      if (auto a = f_.string(t, "attribute")) {
        check_attribute(*t.get("attribute"), *a, where);
        const AttributeDef* def = r_.attribute(*a);
        if (def->type != AttrType::symbol || def->values.empty())
          f_.fail(*t.get("attribute"), where + ": attribute '" + *a +
                                           "' declares no values (values = [...] in ruleset.toml)");
        if (!values.empty())
          f_.fail(*t.get("attribute"), where + ": give values or attribute, not both");
        values = def->values;
      }
      if (values.empty()) f_.fail(t, where + ": a " + type + " needs values = [...] or attribute");
      j["values"] = values;
      if (auto d = f_.string(t, "default")) {
        if (std::find(values.begin(), values.end(), *d) == values.end())
          f_.fail(*t.get("default"), where + ": default '" + *d + "' is not one of its values");
        j["default"] = *d;
      }
      if (const toml::table* num = f_.table(t, "number")) {
        f_.expect_keys(*num, {"min", "max", "label"}, where + " number");
        j["number"] = {{"min", f_.integer(*num, "min").value_or(0)},
                       {"max", f_.integer(*num, "max").value_or(1000)},
                       {"label", f_.string(*num, "label").value_or("number")}};
      }
    }
    if (type == "int" || type == "ints") {
      const long long lo = f_.integer(t, "min").value_or(0),
                      hi = f_.integer(t, "max").value_or(1000);
      if (lo > hi) f_.fail(t, where + ": min is above max");
      j["min"] = lo;
      j["max"] = hi;
      if (auto d = f_.integer(t, "default")) j["default"] = *d;
    }
    if (type == "ints") {
      const long long n = f_.integer(t, "count", true).value();
      if (n < 1 || n > 8) f_.fail(*t.get("count"), where + ": count is 1 to 8");
      j["count"] = n;
      j["labels"] = f_.strings(t, "labels");
    }
    if (type == "bool") j["default"] = f_.boolean(t, "default").value_or(false);
    if (type == "rows") {
      j["fields"] = group_ref(t, "fields", where);
      j["add"] = f_.string(t, "add").value_or("add");
    }
    return j;
  }

  // An attribute named at t[key] (a string), checked against the ruleset.
  std::string attribute_at(const toml::table& t, std::string_view key, const std::string& where,
                           bool required) {
    auto a = f_.string(t, key, required);
    if (!a) return {};
    check_attribute(*t.get(key), *a, where);
    return *a;
  }

  // `same` of shown_as and upgrade: an attribute, and an earlier field of the group with that key.
  std::string same_at(const toml::table& t, const std::string& where, const json& earlier) {
    const std::string a = attribute_at(t, "same", where, false);
    if (!a.empty() &&
        !std::any_of(earlier.begin(), earlier.end(), [&](const json& e) { return e["key"] == a; }))
      f_.fail(*t.get("same"), where + ": same = '" + a +
                                  "' needs an earlier field of this group with key '" + a + "'");
    return a;
  }

  // What a counts field's rows show of the record they count (form.toml, "counts"):
  //   shown_as: the record that stands in for the row's type (its `by` attribute names the type;
  //             its `same` attribute equals the table's value at that key), shown instead of it;
  //   upgrade:  a toggle that adds to (removes from) the list at `key` the record of `kind` whose
  //             `by` attribute names the row's type (with `same` as above, else without it); while
  //             held, the row shows the record its `to` attribute names;
  //   stats:    the attributes shown on each row: label, value (a number attribute), dice (its
  //             dice count, shown past 1), flag (an attribute shown by its label when set), title.
  void read_unit_rows(const toml::table& t, const std::string& where, const json& earlier,
                      json& j) {
    if (const toml::table* s = f_.table(t, "shown_as")) {
      const std::string w = where + " shown_as";
      f_.expect_keys(*s, {"by", "same"}, w);
      j["shown_as"] = {{"by", attribute_at(*s, "by", w, true)}, {"same", same_at(*s, w, earlier)}};
    }
    if (const toml::table* u = f_.table(t, "upgrade")) {
      const std::string w = where + " upgrade";
      f_.expect_keys(*u, {"key", "kind", "by", "to", "same", "label"}, w);
      const std::string key = *f_.string(*u, "key", true);
      if (!is_key_path(key)) f_.fail(*u->get("key"), w + ": a key is names joined by dots");
      check_kind(*u, w);
      j["upgrade"] = {{"key", key},
                      {"kind", *f_.string(*u, "kind")},
                      {"by", attribute_at(*u, "by", w, true)},
                      {"to", attribute_at(*u, "to", w, true)},
                      {"same", same_at(*u, w, earlier)},
                      {"label", f_.string(*u, "label").value_or("upgrade")}};
    }
    if (const toml::array* stats = f_.array(t, "stats")) {
      json out = json::array();
      for (const toml::node& n : *stats) {
        const toml::table* s = n.as_table();
        const std::string w = where + " stats";
        if (!s) f_.fail(n, w + ": a list of { label, value | flag, dice, title }");
        f_.expect_keys(*s, {"label", "value", "dice", "flag", "title"}, w);
        json stat = {{"label", *f_.string(*s, "label", true)}};
        const std::string value = attribute_at(*s, "value", w, false);
        const std::string flag = attribute_at(*s, "flag", w, false);
        if (value.empty() == flag.empty()) f_.fail(*s, w + ": give value or flag (one of them)");
        if (!value.empty()) stat["value"] = value;
        if (!flag.empty()) stat["flag"] = flag;
        if (const std::string d = attribute_at(*s, "dice", w, false); !d.empty()) stat["dice"] = d;
        stat["title"] = f_.string(*s, "title").value_or(stat["label"].get<std::string>());
        out.push_back(stat);
      }
      j["stats"] = out;
    }
  }

  json read_group(const std::string& name, const toml::array& fields) {
    json out = json::array();
    std::set<std::string> keys;
    for (const toml::node& n : fields) {
      const toml::table* t = n.as_table();
      if (!t) f_.fail(n, "group." + name + " holds fields: tables with key and type");
      json field = read_field(name, *t, out);
      // two fields may edit one key when no side draws both (sides = [...] apart)
      const std::string key = field["key"].get<std::string>();
      for (const json& e : out) {
        if (e["key"] != key) continue;
        bool apart = e.contains("sides") && field.contains("sides");
        if (apart)
          for (const auto& s : field["sides"])
            if (std::find(e["sides"].begin(), e["sides"].end(), s) != e["sides"].end())
              apart = false;
        if (!apart)
          f_.fail(n, "group." + name + ": two fields edit '" + key + "'" +
                         (field.contains("sides") ? " on one side" : ""));
      }
      out.push_back(std::move(field));
    }
    return out;
  }

  void check_rows(const json& groups, const std::string& g, std::vector<std::string>& path,
                  const toml::table& declared) {
    for (const json& field : groups[g]) {
      if (field["type"] != "rows") continue;
      const std::string next = field["fields"];
      if (std::find(path.begin(), path.end(), next) != path.end()) {
        std::string cycle;
        for (const auto& p : path) cycle += p + " -> ";
        f_.fail(*declared.get(g), "group." + g + ": its rows lead back to group '" + next + "' (" +
                                      cycle + next + ")");
      }
      path.push_back(next);
      check_rows(groups, next, path, declared);
      path.pop_back();
    }
  }

  const TomlFile& f_;
  const Ruleset& r_;
  std::set<std::string> group_names_;
  const json* groups_ = nullptr;  // the groups read, for the procedures
};

}  // namespace

nlohmann::json read_form(const Ruleset& ruleset) {
  const fs::path file = ruleset.dir / "form.toml";
  if (!fs::is_regular_file(file)) return nullptr;
  require_inside(ruleset.dir, file, "ruleset");
  TomlFile f(file.string());
  return FormReader(f, ruleset).read();
}

}  // namespace rb::serve
