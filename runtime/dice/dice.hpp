// dice/dice: die types from data, pools of rolled dice and the random stream. A die type is
// numeric (a d10 whose faces read 1..10, where the face printed "0" reads 10) or faced (an attack
// die of named faces: hit x3, crit, focus x2, blank x2). A pool is the dice of one roll; each die
// remembers its owner unit and player, the purpose of the roll, its face, its threshold and
// modifier, how often it was rerolled and whether an ability changed it. The dice are the only
// randomness of a run: each run draws from its own PCG stream derived from (seed, run index), and
// tests queue forced results that are consumed in order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <pcg_random.hpp>

#include "base/symbols.hpp"
#include "state/state.hpp"

namespace rb {

struct DieType {
  Sym name = kNoSym;
  int sides = 0;
  std::vector<Sym> faces;            // faced dice: the name of each face (repeats allowed)
  std::vector<std::int32_t> values;  // numeric dice: the value each face reads
  std::vector<std::string> labels;   // what each face shows ("0" for the d10's 10)
  bool numeric() const { return faces.empty(); }
  // The face index showing `value` (numeric) or named `face` (faced); -1 if none.
  int face_of_value(std::int32_t value) const;
  int face_of_name(Sym face) const;
};

inline constexpr std::uint8_t kNoRerollLimit = 0xFF;

struct Die {
  std::int16_t type = 0;       // index into the ruleset's die types
  std::int16_t face = 0;       // index into that type's faces
  std::int32_t value = 0;      // numeric: the face's value; faced: 0
  std::int16_t threshold = 0;  // numeric: a hit when value + modifier >= threshold (0: none)
  std::int16_t modifier = 0;   // sum of the modifiers applied to this die
  EntityId unit = kNoEntity;   // the unit that rolled it
  EntityId player = kNoEntity;
  Sym purpose = kNoSym;  // "combat", "anti_fighter_barrage", "attack", ...
  std::uint8_t rerolls = 0;
  std::uint8_t reroll_limit = kNoRerollLimit;
  bool changed = false;    // an ability set its face
  bool cancelled = false;  // removed from counting (cancelled result)
  // The exact mode: only whether it hits was drawn (face: the first of its kind); the face is
  // drawn among those that hit (or miss) when a script first reads it (script/api_dice.cpp).
  bool lazy = false;
  // A roll of classes of faces (ctx:roll's faces): with lazy, the die's class is known (face: the
  // class's first) and its face among them is drawn when a script reads it. The classes' id in
  // the engine's list, 0: none (the lazy die of a threshold, above).
  std::uint16_t classes = 0;

  bool hit() const { return !cancelled && threshold > 0 && value + modifier >= threshold; }
};

// The draws of one path through a run's tree of draws, for the exact mode (runtime/exact): an
// explorer runs a step once per leaf of that tree and walks the leaves like an odometer. While
// a step runs, its first draws replay the path (the branch being taken); a draw past the end of
// the path takes its first possible value and is appended. A draw is uniform over [0, bound)
// (a die's face, math.random(n)) or has probabilities of its own (choose: a roll that branches
// on its hits, a distribution the runtime computed).
class ExactPath {
 public:
  void clear() {
    entries_.clear(), weights_.clear(), pos_ = 0, mismatch_ = false, closed_ = false;
    overflowed_ = false;
  }
  // From now on a draw is an error (the exact mode has explored the run: nothing may roll after).
  void close() { clear(), closed_ = true; }
  void rewind() { pos_ = 0, mismatch_ = false; }
  // After rewind: the first n draws are taken as they were (best play files a leaf whose
  // draws before n are a run's it replays, exact/explore.hpp)
  void skip(std::size_t n) { pos_ = n < entries_.size() ? n : entries_.size(); }
  std::uint32_t draw(std::uint32_t bound);
  // Draws index i with probability probs[i] (n of them; at least one above 0).
  std::uint32_t choose(const double* probs, std::uint32_t n);
  // After a run: moves to the next leaf (false when every leaf has been taken).
  bool advance();
  // The probability of the leaf just run: the product of its draws' probabilities.
  double probability() const;
  std::size_t size() const { return entries_.size(); }
  std::size_t used() const { return pos_; }
  // The value drawn at position i of the path (best play reads a leaf's draws)
  std::uint32_t value(std::size_t i) const { return entries_[i].value; }
  // Draws one run of a step may make: past them a draw raises ScriptError and overflowed() is
  // true (a loop inside one step that nothing ends would otherwise grow the path forever).
  static constexpr std::size_t kMaxDraws = 100'000;
  bool overflowed() const { return overflowed_; }
  // A replayed draw was asked with another bound or other probabilities: the step did not
  // draw the same way from the same state (it is not a function of its state and its dice).
  bool mismatch() const { return mismatch_; }

 private:
  static constexpr std::uint32_t kUniform = 0xFFFFFFFFu;
  struct Entry {
    std::uint32_t bound, value;
    std::uint32_t weights;  // offset of its probabilities in weights_, kUniform: 1 / bound each
  };
  std::vector<Entry> entries_;
  std::vector<double> weights_;
  std::size_t pos_ = 0;
  bool mismatch_ = false, closed_ = false, overflowed_ = false;
  void grow();  // before a new draw: the kMaxDraws bound
};

// What a strict run that rolls past its forced results raises (rules tests look for it, to
// name the die and show the trace up to it).
inline constexpr std::string_view kForcedDiceRunOut = "the run rolled more dice than the ";

// The random source of one run.
class DiceStream {
 public:
  struct Forced {
    std::int32_t value = 0;  // numeric forced result
    Sym face = kNoSym;       // faced forced result
  };

  void seed(std::uint64_t seed, std::uint64_t run) {
    rng_ = pcg32(seed, run);
    forced_.clear();
    next_forced_ = 0;
    strict_ = false;  // a strict run must not make the next one strict
  }
  void force(std::vector<Forced> results, bool strict) {
    forced_ = std::move(results);
    next_forced_ = 0;
    strict_ = strict;
  }
  std::size_t forced_left() const { return forced_.size() - next_forced_; }
  std::size_t forced_used() const { return next_forced_; }

  // Rolls a face index of `type`: the next forced result if one is queued, else random.
  // Throws ScriptError when a forced result does not fit the die, or when strict forcing runs
  // out of results.
  int roll(const DieType& type) {
    if (next_forced_ < forced_.size() || strict_) return roll_forced(type);
    if (exact_) [[unlikely]]
      return roll_exact(type);
    return static_cast<int>(below(static_cast<std::uint32_t>(type.sides)));
  }

  // Uniform integer in [0, bound) and in [0, 1): the sandbox's math.random.
  // Lemire's multiply-shift method: unbiased, and a division only in the rare rejection case
  // (pcg32's own bounded call divides on every roll).
  std::uint32_t below(std::uint32_t bound) {
    if (special_) [[unlikely]]
      return exact_ ? exact_->draw(bound) : taped(bound);
    return fresh(bound);
  }
  double uniform();

  // The exact mode: every draw comes from `path` (see ExactPath) until stop_exact().
  void start_exact(ExactPath* path) { exact_ = path, special_ = true; }
  void stop_exact() { exact_ = nullptr, special_ = key_ != nullptr; }
  bool exact() const { return exact_ != nullptr; }
  ExactPath* exact_path() const { return exact_; }
  // A draw with probabilities of its own (exact mode only): probs[0 .. n).
  std::uint32_t choose(const double* probs, std::uint32_t n) { return exact_->choose(probs, n); }

  // The tape of the step memo (ctx:steps). While a tape is on, the first `replay` entries of
  // `raw` (draws made while walking the memo) are handed out again, in order, before the stream
  // draws afresh, and every draw is written to `key`, the step's path in the memo's trie: a plain
  // draw as (bound, value, -1); the draws of a group (a roll whose dice no script sees,
  // begin_group .. end_group) as one entry, (dice + 1, hits, law), so that paths branch on hits,
  // not faces (a roll whose directed hits count apart: on both counts, see combat::roll_hits).
  // diverged(): a replayed draw was asked with another bound (the step is not a function of its
  // state and its dice); tainted(): uniform() was drawn.
  struct Draw {
    std::uint32_t bound, value;
  };
  struct KeyDraw {
    std::uint32_t bound, value;
    std::int32_t law;  // -1: a plain draw; else the group's law (index kept by the caller)
  };
  void start_tape(const std::vector<Draw>* raw, std::size_t replay, std::vector<KeyDraw>* key) {
    raw_ = raw, key_ = key, replay_ = replay, replayed_ = 0, group_ = 0;
    diverged_ = tainted_ = false;
    special_ = true;
  }
  void stop_tape() { key_ = nullptr, special_ = exact_ != nullptr; }
  bool taping() const { return key_ != nullptr; }
  bool diverged() const { return diverged_ || replayed_ < replay_; }
  bool tainted() const { return tainted_; }
  void begin_group() { ++group_; }
  // `bound`: the values the group can take (dice + 1 for a count of hits), `value` its value
  void end_group(std::uint32_t bound, std::uint32_t value, std::int32_t law) {
    if (--group_ == 0 && key_) key_->push_back({bound, value, law});
  }

 private:
  std::uint32_t taped(std::uint32_t bound) {
    std::uint32_t v;
    if (replayed_ < replay_) {
      const Draw d = (*raw_)[replayed_++];
      v = d.value;
      if (d.bound != bound) diverged_ = true, v %= bound;
    } else {
      v = fresh(bound);
    }
    if (group_ == 0) key_->push_back({bound, v, -1});
    return v;
  }
  std::uint32_t fresh(std::uint32_t bound) {
    std::uint64_t m = static_cast<std::uint64_t>(rng_()) * bound;
    auto low = static_cast<std::uint32_t>(m);
    if (low < bound) {
      const std::uint32_t threshold = (0u - bound) % bound;
      while (low < threshold) {
        m = static_cast<std::uint64_t>(rng_()) * bound;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return static_cast<std::uint32_t>(m >> 32);
  }

 private:
  int roll_forced(const DieType& type);  // the queue of forced results, or strict forcing
  // The exact mode: faces that read the same (a die with three hit faces) are one outcome,
  // weighted by how many they are; the face rolled is the first of them.
  int roll_exact(const DieType& type);

  pcg32 rng_;
  bool special_ = false;  // a tape or an exact path is on: below() leaves its fast path
  ExactPath* exact_ = nullptr;
  const std::vector<Draw>* raw_ = nullptr;
  std::vector<KeyDraw>* key_ = nullptr;
  std::size_t replay_ = 0, replayed_ = 0;
  int group_ = 0;
  bool diverged_ = false, tainted_ = false;
  std::vector<Forced> forced_;
  std::size_t next_forced_ = 0;
  bool strict_ = false;
};

// One die of a group draw (a roll no script sees): its type, what it must show to hit, and what
// a hit adds to the group's value (1: the value is the number of hits; a roll whose directed
// hits count apart weighs those dice by the other dice's count + 1).
struct LawDie {
  std::int16_t type = 0;
  std::int16_t threshold = 0;
  std::int16_t modifier = 0;
  std::uint16_t weight = 1;
  bool operator==(const LawDie&) const = default;
};
using Law = std::vector<LawDie>;

// The dice of one roll.
class Pool {
 public:
  std::vector<Die> dice;

  void clear() { dice.clear(); }
  std::size_t size() const { return dice.size(); }
  // Dice that are hits against their thresholds.
  int hits() const;
  // Dice (not cancelled) showing the named face.
  int count(const std::vector<DieType>& types, Sym face) const;
};

// Sets a die to a rolled face of its type.
inline void set_face(Die& d, const DieType& type, int face) {
  d.face = static_cast<std::int16_t>(face);
  d.value = type.numeric() ? type.values[static_cast<std::size_t>(face)] : 0;
}

}  // namespace rb
