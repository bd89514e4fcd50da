#include "dice/dice.hpp"

#include <algorithm>

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
    throw ScriptError(std::string(kForcedDiceRunOut) + std::to_string(forced_.size()) +
                      " forced results given (a " + std::string(sym_name(type.name)) + " die)");
  return static_cast<int>(below(static_cast<std::uint32_t>(type.sides)));
}

double DiceStream::uniform() {
  if (exact_)
    throw ScriptError(
        "math.random() without bounds cannot be enumerated in the exact mode (2^32 outcomes); "
        "draw a whole number with math.random(n)");
  if (key_) [[unlikely]]
    tainted_ = true;  // 2^32 outcomes: a segment that draws one is not memoized
  return static_cast<double>(rng_()) / 4294967296.0;
}

namespace {
[[noreturn]] void closed_draw() {
  throw ScriptError(
      "the exact mode: dice were rolled after ctx:steps; every draw of a run must be inside one "
      "of its steps");
}
}  // namespace

void ExactPath::grow() {
  if (entries_.size() < kMaxDraws) return;
  overflowed_ = true;
  throw ScriptError("one run of a step drew more than " + std::to_string(kMaxDraws) + " dice");
}

std::uint32_t ExactPath::draw(std::uint32_t bound) {
  if (closed_) closed_draw();
  if (bound == 0) bound = 1;
  if (pos_ < entries_.size()) {
    const Entry& e = entries_[pos_++];
    if (e.bound != bound || e.weights != kUniform) mismatch_ = true;
    return e.value % bound;
  }
  grow();
  entries_.push_back({bound, 0, kUniform});
  ++pos_;
  return 0;
}

std::uint32_t ExactPath::choose(const double* probs, std::uint32_t n) {
  if (closed_) closed_draw();
  if (pos_ < entries_.size()) {
    const Entry& e = entries_[pos_++];
    if (e.bound != n || e.weights == kUniform ||
        !std::equal(probs, probs + n, weights_.begin() + e.weights))
      mismatch_ = true;
    return e.value < n ? e.value : 0;
  }
  std::uint32_t first = 0;
  while (first < n && !(probs[first] > 0)) ++first;
  if (first == n) throw ScriptError("a draw with no outcome of positive probability");
  grow();
  entries_.push_back({n, first, static_cast<std::uint32_t>(weights_.size())});
  weights_.insert(weights_.end(), probs, probs + n);
  ++pos_;
  return first;
}

bool ExactPath::advance() {
  entries_.resize(pos_);  // (a run that ended early used fewer draws)
  while (!entries_.empty()) {
    Entry& e = entries_.back();
    if (e.weights == kUniform) {
      if (e.value + 1 < e.bound) {
        ++e.value;
        return true;
      }
    } else {
      for (std::uint32_t v = e.value + 1; v < e.bound; ++v)
        if (weights_[e.weights + v] > 0) {
          e.value = v;
          return true;
        }
      weights_.resize(e.weights);
    }
    entries_.pop_back();
  }
  return false;
}

double ExactPath::probability() const {
  double p = 1;
  for (std::size_t i = 0; i < pos_ && i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    p *= e.weights == kUniform ? 1.0 / e.bound : weights_[e.weights + e.value];
  }
  return p;
}

int DiceStream::roll_exact(const DieType& type) {
  thread_local std::vector<int> first;
  thread_local std::vector<double> p;
  first.clear(), p.clear();
  const auto same = [&](int a, int b) {
    return type.numeric()
               ? type.values[static_cast<std::size_t>(a)] ==
                         type.values[static_cast<std::size_t>(b)] &&
                     type.labels[static_cast<std::size_t>(a)] ==
                         type.labels[static_cast<std::size_t>(b)]
               : type.faces[static_cast<std::size_t>(a)] == type.faces[static_cast<std::size_t>(b)];
  };
  for (int f = 0; f < type.sides; ++f) {
    std::size_t k = 0;
    while (k < first.size() && !same(first[k], f)) ++k;
    if (k == first.size()) first.push_back(f), p.push_back(0);
    p[k] += 1.0 / type.sides;
  }
  if (first.size() == static_cast<std::size_t>(type.sides))
    return static_cast<int>(exact_->draw(static_cast<std::uint32_t>(type.sides)));
  return first[exact_->choose(p.data(), static_cast<std::uint32_t>(p.size()))];
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
