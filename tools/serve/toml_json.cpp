#include "toml_json.hpp"

#include <sstream>

namespace rb::serve {

nlohmann::json toml_to_json(const toml::node& n) {
  using nlohmann::json;
  if (const toml::table* t = n.as_table()) {
    json j = json::object();
    for (auto&& [k, v] : *t) j[std::string(k.str())] = toml_to_json(v);
    return j;
  }
  if (const toml::array* a = n.as_array()) {
    json j = json::array();
    for (const toml::node& v : *a) j.push_back(toml_to_json(v));
    return j;
  }
  if (n.is_string()) return std::string(n.as_string()->get());
  if (n.is_integer()) return static_cast<std::int64_t>(n.as_integer()->get());
  if (n.is_floating_point()) return double(n.as_floating_point()->get());
  if (n.is_boolean()) return bool(n.as_boolean()->get());
  std::ostringstream out;  // a date, a time or a date-time
  n.visit([&](auto&& v) { out << v; });
  return out.str();
}

}  // namespace rb::serve
