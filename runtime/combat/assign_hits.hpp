// combat/assign_hits: how one player chooses the units that take hits (ctx:assign_hits and
// ctx:assign_hits_each, phase 1), in C++ alone: a scripted answer ("sustain:dreadnought,cruiser")
// first, else the person at the terminal, else the policy (the casualty queue's order,
// combat/combat.hpp). The Lua binding (script/api_dice.cpp) reads the arguments, calls this, and
// then resolves what was chosen (the windows, the units leaving together).
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "combat/combat.hpp"

namespace rb::combat {

// One player's part of an assignment of hits: what they chose (phase 1), what then happens to it
// (phase 2). Units that sustain are damaged as they are chosen; units lost stay where they are
// until every player has chosen.
struct Assignment {
  EntityId player = kNoEntity;
  EntityId location = kNoEntity;
  const CasualtySpec* spec = nullptr;
  int sustain_cancels = 1;  // the hits each Sustain Damage cancels at least (an ability's)
  std::vector<EntityId> lost, sustaining;
};

// Asks the person at the terminal (or best play, the exact mode's choice) for one casualty: the
// index of one of `choices` (a unit type to lose, or "sustain:TYPE"), with `hits` hits left to
// take; `policy` is the index of the policy's own pick (choices.size(): none).
using AskCasualty = std::function<std::size_t(const std::vector<std::string>& choices, int hits,
                                              std::size_t policy)>;

// Best play (the exact mode): the player chooses the whole assignment at once, among its distinct
// outcomes rather than casualty by casualty. Alike units (same record and attributes, none of
// them named by anything in the state) form a kind; an outcome says, for each kind, how many of
// its units sustain, are lost, or sustain and are then lost (any unit may take a hit; an
// undamaged unit that can may sustain; each takes one hit, as a casualty does, and a Sustain
// Damage as many as its unit cancels). Units of a kind are
// interchangeable, so each outcome is one option, not one per order or per unit: `choose(n)`
// returns the index of the chosen one of n, 0 being the policy's own. Without `interchangeable`
// (the ruleset does not promise it, State::canonicalise) every unit is a kind of its own.
struct AssignmentOutcome;
struct AskOutcome {
  std::function<std::size_t(std::size_t n)> choose;
  bool interchangeable = false;
  // the outcomes by number of hits, kept by the caller while the units that take them start
  // from the same state (best play's rounds from one state: ctx:exchange_fire); null: none kept
  std::vector<std::vector<AssignmentOutcome>>* by_hits = nullptr;
  // the outcomes choose() picks among, and the queue their takes index (set by
  // choose_casualties before it asks, the state as it was before the assignment: their words)
  mutable const std::vector<AssignmentOutcome>* outcomes = nullptr;
  mutable const Casualties* queue = nullptr;
};

// One outcome of an assignment: its summary ("sustain:dreadnought,carrier") and what it does,
// as indices into the queue in the order they are taken (sustains first, then losses).
struct AssignmentOutcome {
  std::string summary;
  std::vector<std::pair<int, bool>> takes;  // (queue index, sustains)
};

// The distinct outcomes of assigning `hits` to the units of `queue` (as built for this
// assignment), the policy's (`mode`) first, then in a fixed order. (`s` is changed while the
// policy's casualties are found, and put back.)
std::vector<AssignmentOutcome> assignment_outcomes(State& s, const Casualties& queue, int hits,
                                                   Sustain mode, bool interchangeable);
// The same for every number of hits from 1 to `most` at once, each into by_hits[hits] (made
// where empty): the outcomes and their order are assignment_outcomes'. False (nothing made) where
// a Sustain Damage cancels more than one hit or the search passes its bound: the caller asks
// assignment_outcomes for each number of hits.
bool assignment_outcomes_upto(State& s, const Casualties& queue, int most, Sustain mode,
                              bool interchangeable,
                              std::vector<std::vector<AssignmentOutcome>>& by_hits);

struct CasualtyChoice {
  std::string summary;         // "sustain:dreadnought,cruiser" (when asked to summarise)
  bool not_by_policy = false;  // a scripted answer or the person chose
  // the player's live modifiers that made a Sustain Damage cancel more hits (assignment_cancelling)
  std::vector<int> cancelling;
};

// Phase 1: the player chooses the units that take `hits`. `answer` (null: none) is the scripted
// answer waiting for this decision, items separated by commas; `ask` (empty: nobody at the
// terminal) asks the person. The units lost are put back where they were: every player chooses
// against the same board. Throws CombatError when a scripted item names no unit that can take it.
// `whole` (best play, when set and there is no scripted answer) chooses among the outcomes.
CasualtyChoice choose_casualties(const Env& env, State& s, Casualties& queue, Assignment& out,
                                 int hits, std::span<const Sym> order, Sustain mode,
                                 const std::string* answer, const AskCasualty& ask, bool summarise,
                                 const AskOutcome* whole = nullptr);

}  // namespace rb::combat
