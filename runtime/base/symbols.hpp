// base/symbols: interned names. Every name the runtime compares often (kinds, attributes,
// unit types, windows, counters, faces) is a Sym, a small integer, so that comparing two names
// in a hot path is comparing two integers. The table is process-wide and thread-safe; names are
// added while content loads and looked up everywhere after.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rb {

using Sym = std::uint32_t;
inline constexpr Sym kNoSym = 0;  // the empty name

// Interns `name` and returns its symbol (the same one for the same name, on every thread).
Sym sym(std::string_view name);
// How many names are interned (in the whole process), and their bytes.
std::size_t sym_count();
std::size_t sym_bytes();

// The symbol of `name` if it was interned, without adding it.
std::optional<Sym> find_sym(std::string_view name);
// The name of a symbol; valid for the life of the process.
std::string_view sym_name(Sym s);

}  // namespace rb
