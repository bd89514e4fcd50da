#include "base/symbols.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace rb {
namespace {

// Names live in fixed-size chunks that never move: sym_name() reads a published chunk without a
// lock (it is called on hot paths, ctx:name and ctx:type); sym() adds under the mutex and
// publishes the count with release order, so a symbol handed to another thread names a string
// already written.
constexpr std::size_t kChunkBits = 12, kChunkSize = std::size_t{1} << kChunkBits;
constexpr std::size_t kChunks = 2048;  // room for 8 M names (scripts are capped well below)

struct Table {
  std::shared_mutex mutex;
  std::array<std::atomic<std::string*>, kChunks> chunks{};
  std::atomic<std::size_t> count{0};
  std::atomic<std::size_t> bytes{0};
  std::unordered_map<std::string_view, Sym> index;
  std::vector<std::unique_ptr<std::string[]>> owned;

  Table() { add(std::string_view()); }  // kNoSym: the empty name

  Sym add(std::string_view name) {  // under the unique lock (or in the constructor)
    const std::size_t n = count.load(std::memory_order_relaxed);
    if (n >= kChunks * kChunkSize) throw std::length_error("too many interned names");
    std::string* chunk = chunks[n >> kChunkBits].load(std::memory_order_relaxed);
    if (!chunk) {
      owned.emplace_back(new std::string[kChunkSize]);
      chunk = owned.back().get();
      chunks[n >> kChunkBits].store(chunk, std::memory_order_release);
    }
    std::string& slot = chunk[n & (kChunkSize - 1)];
    slot.assign(name);
    bytes.fetch_add(name.size(), std::memory_order_relaxed);
    index.emplace(slot, static_cast<Sym>(n));
    count.store(n + 1, std::memory_order_release);
    return static_cast<Sym>(n);
  }
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
  return t.add(name);
}

std::size_t sym_count() {
  return table().count.load(std::memory_order_acquire);
}

std::size_t sym_bytes() {
  return table().bytes.load(std::memory_order_relaxed);
}

std::optional<Sym> find_sym(std::string_view name) {
  Table& t = table();
  std::shared_lock lock(t.mutex);
  if (auto it = t.index.find(name); it != t.index.end()) return it->second;
  return std::nullopt;
}

std::string_view sym_name(Sym s) {
  Table& t = table();
  if (s >= t.count.load(std::memory_order_acquire)) return "?";
  return t.chunks[s >> kChunkBits].load(std::memory_order_acquire)[s & (kChunkSize - 1)];
}

}  // namespace rb
