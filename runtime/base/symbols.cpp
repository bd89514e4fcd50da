#include "base/symbols.hpp"

#include <deque>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace rb {
namespace {

struct Table {
  std::shared_mutex mutex;
  std::deque<std::string> names{std::string()};  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, Sym> index{{std::string_view(), kNoSym}};
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

Sym sym(std::string_view name) {
  Table& t = table();
  {
    std::shared_lock lock(t.mutex);
    if (auto it = t.index.find(name); it != t.index.end()) return it->second;
  }
  std::unique_lock lock(t.mutex);
  if (auto it = t.index.find(name); it != t.index.end()) return it->second;
  const auto s = static_cast<Sym>(t.names.size());
  t.names.emplace_back(name);
  t.index.emplace(t.names.back(), s);
  return s;
}

std::size_t sym_count() {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  return t.names.size();
}

std::optional<Sym> find_sym(std::string_view name) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  if (auto it = t.index.find(name); it != t.index.end()) return it->second;
  return std::nullopt;
}

std::string_view sym_name(Sym s) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  return s < t.names.size() ? std::string_view(t.names[s]) : std::string_view("?");
}

}  // namespace rb
