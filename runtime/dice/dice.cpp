#include "dice/dice.hpp"

#include "base/error.hpp"

namespace rb {

int DieType::face_of_value(std::int32_t value) const {
  for (std::size_t f = 0; f < values.size(); ++f)
    if (values[f] == value) return static_cast<int>(f);
  // a face can also be named by its printed label ("0" on the d10)
  const std::string label = std::to_string(value);
  for (std::size_t f = 0; f < labels.size(); ++f)
    if (labels[f] == label) return static_cast<int>(f);
  return -1;
}

int DieType::face_of_name(Sym face) const {
  for (std::size_t f = 0; f < faces.size(); ++f)
    if (faces[f] == face) return static_cast<int>(f);
  return -1;
}

int DiceStream::roll_forced(const DieType& type) {
  if (next_forced_ < forced_.size()) {
    const Forced& f = forced_[next_forced_++];
    int face = type.numeric() ? (f.face == kNoSym ? type.face_of_value(f.value) : -1)
                              : (f.face != kNoSym ? type.face_of_name(f.face) : -1);
    // a numeric die can be forced by its printed label too (the d10's "0")
    if (face < 0 && type.numeric() && f.face != kNoSym)
      for (std::size_t i = 0; face < 0 && i < type.labels.size(); ++i)
        if (type.labels[i] == sym_name(f.face)) face = static_cast<int>(i);
    if (face < 0) {
      const std::string shown =
          f.face != kNoSym ? std::string(sym_name(f.face)) : std::to_string(f.value);
      throw ScriptError("forced die result #" + std::to_string(next_forced_) + " is '" + shown +
                        "', which a " + std::string(sym_name(type.name)) + " die cannot show");
    }
    return face;
  }
  if (strict_)
    throw ScriptError("the run rolled more dice than the " + std::to_string(forced_.size()) +
                      " forced results given (a " + std::string(sym_name(type.name)) + " die)");
  return static_cast<int>(below(static_cast<std::uint32_t>(type.sides)));
}

int Pool::hits() const {
  int n = 0;
  for (const Die& d : dice) n += d.hit() ? 1 : 0;
  return n;
}

int Pool::count(const std::vector<DieType>& types, Sym face) const {
  int n = 0;
  for (const Die& d : dice)
    if (!d.cancelled && !types[static_cast<std::size_t>(d.type)].numeric() &&
        types[static_cast<std::size_t>(d.type)].faces[static_cast<std::size_t>(d.face)] == face)
      ++n;
  return n;
}

}  // namespace rb
