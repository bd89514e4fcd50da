#include "combat/assign_hits.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace rb::combat {

namespace {

// A player's name for an error (the name the trace uses).
std::string name_of(const State& s, EntityId e) {
  if (!s.valid(e)) return e == kNoEntity ? "nobody" : "?";
  return std::string(sym_name(s.at(e).type));
}

// Whether something in the state names entity `e` (an entity's owner or location, a counter, a
// link, a role): then it is not interchangeable with an alike unit.
bool named(const State& s, EntityId e) {
  for (const Entity& x : s.entities)
    if (x.owner == e || x.location == e) return true;
  for (const Counter& c : s.counters)
    if (c.target == e) return true;
  for (const Link& l : s.links)
    if (l.a == e || l.b == e) return true;
  for (const auto& r : s.roles)
    if (r.second == e) return true;
  return false;
}

// The assignment's kinds of alike units: each a list of queue indices, in queue order.
struct Kind {
  std::vector<int> units;
  bool can = false;  // its units are undamaged and can sustain
  int cancels = 1;   // the hits one Sustain Damage of its units cancels
};

std::vector<Kind> kinds_of(const State& s, const Casualties& queue, bool interchangeable) {
  std::vector<Kind> kinds;
  for (int i = 0; i < queue.size(); ++i) {
    if (!queue.alive(i)) continue;
    const Entity& u = s.at(queue.entity(i));
    std::size_t k = kinds.size();
    if (interchangeable && !named(s, queue.entity(i)))
      for (std::size_t j = 0; j < kinds.size(); ++j) {
        const EntityId first = queue.entity(kinds[j].units.front());  // compared with
        const Entity& v = s.at(first);
        if (u.type == v.type && u.record == v.record && u.attr == v.attr &&
            queue.can_sustain(i) == kinds[j].can && queue.cancels(i) == kinds[j].cancels &&
            !named(s, first)) {
          k = j;
          break;
        }
      }
    if (k == kinds.size()) kinds.push_back({{}, queue.can_sustain(i), queue.cancels(i)});
    kinds[k].units.push_back(i);
  }
  return kinds;
}

// An outcome as counts: for each kind, its units that sustained, that were lost, and that
// sustained and were then lost.
using Counts = std::vector<std::uint16_t>;

// The most outcomes (and partial assignments) one assignment is searched for.
constexpr std::size_t kMaxOutcomes = 200'000;

// A set of Counts: packed into one number (each count below its kind's size + 1) when they fit,
// else as they are.
class CountsSet {
 public:
  explicit CountsSet(const std::vector<Kind>& kinds) {
    unsigned __int128 m = 1;
    for (const Kind& k : kinds)
      for (int j = 0; j < 3; ++j) {
        mult_.push_back(static_cast<std::uint64_t>(m));
        m *= k.units.size() + 1;
        packed_ = packed_ && m <= (unsigned __int128){1} << 63;
      }
  }
  bool insert(const Counts& c) {
    if (!packed_) return all_.insert(c).second;
    std::uint64_t key = 0;
    for (std::size_t j = 0; j < c.size(); ++j) key += c[j] * mult_[j];
    // open addressing over a power of two slots, at most half used (a key is below 2^63: the
    // empty slot's value is none)
    if (2 * (used_ + 1) > slots_.size()) {
      std::vector<std::uint64_t> old(slots_.empty() ? 64 : 2 * slots_.size(), kEmpty);
      old.swap(slots_);
      for (std::uint64_t k : old)
        if (k != kEmpty) put(k);
    }
    if (!put(key)) return false;
    ++used_;
    return true;
  }
  std::size_t size() const { return packed_ ? used_ : all_.size(); }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  bool put(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;;
         i = (i + 1) & mask) {
      if (slots_[i] == key) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = key;
        return true;
      }
    }
  }
  bool packed_ = true;
  std::vector<std::uint64_t> mult_;
  std::vector<std::uint64_t> slots_;
  std::size_t used_ = 0;
  std::set<Counts> all_;
};

}  // namespace

namespace {

// The policy's outcome of `hits` as counts: its casualties one by one on a copy of the queue (as
// the loop of choose_casualties takes them), each unit's fate by its queue index.
Counts policy_counts(State& s, const Casualties& queue, const std::vector<Kind>& kinds, int hits,
                     Sustain mode) {
  Counts policy(3 * kinds.size(), 0);
  Casualties q = queue;
  std::vector<Entity> saved;  // what taking changes, put back after
  for (int i = 0; i < queue.size(); ++i) saved.push_back(s.at(queue.entity(i)));
  std::vector<int> fate(static_cast<std::size_t>(queue.size()), 0);  // 1 sustained, 2 lost
  for (int h = hits; h > 0; --h) {
    bool sustain = false;
    const int target = q.policy_target(mode, sustain);
    if (target < 0) break;
    q.take(s, target, sustain);
    fate[static_cast<std::size_t>(target)] |= sustain ? 1 : 2;
    if (sustain) h -= q.cancels(target) - 1;  // the hits it cancels besides this one
  }
  for (int i = 0; i < queue.size(); ++i) s.at(queue.entity(i)) = saved[static_cast<std::size_t>(i)];
  for (std::size_t k = 0; k < kinds.size(); ++k)
    for (int i : kinds[k].units)
      if (const int f = fate[static_cast<std::size_t>(i)])
        ++policy[3 * k + static_cast<std::size_t>(f - 1)];
  return policy;
}

// Each outcome's casualties: the kind's first units sustain and are lost, the next sustain, the
// next are lost (they are alike); sustains first.
std::vector<AssignmentOutcome> outcomes_of(const std::vector<Counts>& found,
                                           const std::vector<Kind>& kinds,
                                           const Casualties& queue) {
  std::vector<AssignmentOutcome> out;
  out.reserve(found.size());
  for (const Counts& f : found) {
    AssignmentOutcome& o = out.emplace_back();
    std::vector<int> losses;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const std::vector<int>& u = kinds[k].units;
      const std::size_t both = f[3 * k + 2], sus = f[3 * k], lost = f[3 * k + 1];
      for (std::size_t j = 0; j < both + sus; ++j) o.takes.emplace_back(u[j], true);
      for (std::size_t j = 0; j < both; ++j) losses.push_back(u[j]);
      for (std::size_t j = both + sus; j < both + sus + lost; ++j) losses.push_back(u[j]);
    }
    for (int i : losses) o.takes.emplace_back(i, false);
    for (const auto& [i, sustain] : o.takes) {
      if (!o.summary.empty()) o.summary += ',';
      if (sustain) o.summary += "sustain:";
      o.summary += sym_name(queue.type(i));
    }
  }
  return out;
}

// A partial assignment's moves, each one casualty, in the search's order: lose an untouched unit
// of a kind, sustain one (if its kind can; it takes the hits its Sustain Damage cancels, as many
// as are left), lose one that sustained. `step(hits it takes)` is called for each (the counts
// changed, put back after); returns whether there was any.
template <class Step>
bool each_move(Counts& c, const std::vector<Kind>& kinds, int left, Step&& step) {
  bool any = false;
  for (std::size_t k = 0; k < kinds.size() && left > 0; ++k) {
    std::uint16_t &sus = c[3 * k], &lost = c[3 * k + 1], &both = c[3 * k + 2];
    const auto untouched = static_cast<int>(kinds[k].units.size()) - sus - lost - both;
    if (untouched > 0) {
      any = true;
      ++lost, step(1), --lost;
      if (kinds[k].can) ++sus, step(kinds[k].cancels), --sus;
    }
    if (sus > 0) {
      any = true;
      --sus, ++both, step(1), ++sus, --both;
    }
  }
  return any;
}

[[noreturn]] void too_many_outcomes() {
  std::string what = "best play: a hit assignment has more than ";
  what += std::to_string(kMaxOutcomes);
  what += " partial outcomes to search";
  throw CombatError(what);
}

}  // namespace

std::vector<AssignmentOutcome> assignment_outcomes(State& s, const Casualties& queue, int hits,
                                                   Sustain mode, bool interchangeable) {
  const std::vector<Kind> kinds = kinds_of(s, queue, interchangeable);
  const Counts policy = policy_counts(s, queue, kinds, hits, mode);
  // every other outcome: a search over partial assignments as counts (two orders that reach the
  // same counts have the same futures: their units are alike)
  std::vector<Counts> found{policy};
  CountsSet seen(kinds), visited(kinds);
  seen.insert(policy);
  Counts c(3 * kinds.size(), 0);
  auto search = [&](auto& self, int left) -> void {
    if (!visited.insert(c)) return;
    if (visited.size() > kMaxOutcomes) too_many_outcomes();
    const bool any =
        each_move(c, kinds, left, [&](int taken) { self(self, std::max(0, left - taken)); });
    if (!any && seen.insert(c)) found.push_back(c);
  };
  search(search, hits);
  return outcomes_of(found, kinds, queue);
}

bool assignment_outcomes_upto(State& s, const Casualties& queue, int most, Sustain mode,
                              bool interchangeable,
                              std::vector<std::vector<AssignmentOutcome>>& by_hits) {
  const std::vector<Kind> kinds = kinds_of(s, queue, interchangeable);
  for (const Kind& k : kinds)
    if (k.cancels != 1) return false;  // (a Sustain Damage that cancels more: hit by hit)
  // One search for `most` hits. Each casualty takes one hit, so a partial assignment's hits are
  // its depth, and the search for fewer hits k visits the same partial assignments in the same
  // order up to depth k (its outcomes are those of depth k and those before with no casualty
  // left to take), so that it is read from this one.
  struct Visit {
    Counts c;
    int hits = 0;
    bool any = false;  // a casualty left to take
  };
  std::vector<Visit> visits;
  CountsSet visited(kinds);
  Counts c(3 * kinds.size(), 0);
  bool over = false;
  auto search = [&](auto& self, int hits) -> void {
    if (over || !visited.insert(c)) return;
    if (visited.size() > kMaxOutcomes) {
      over = true;
      return;
    }
    const std::size_t at = visits.size();
    visits.push_back({c, hits, false});
    if (hits == most) return;
    visits[at].any = each_move(c, kinds, most - hits, [&](int) { self(self, hits + 1); });
  };
  search(search, 0);
  if (over) return false;  // (each number of hits searched apart: the bound is each one's)
  if (by_hits.size() < static_cast<std::size_t>(most) + 1)
    by_hits.resize(static_cast<std::size_t>(most) + 1);
  std::vector<Counts> found;
  for (int k = 1; k <= most; ++k) {
    if (!by_hits[static_cast<std::size_t>(k)].empty()) continue;
    const Counts policy = policy_counts(s, queue, kinds, k, mode);
    found.assign(1, policy);
    for (const Visit& v : visits)
      if ((v.hits == k || (v.hits < k && !v.any)) && v.c != policy) found.push_back(v.c);
    by_hits[static_cast<std::size_t>(k)] = outcomes_of(found, kinds, queue);
  }
  return true;
}

CasualtyChoice choose_casualties(const Env& env, State& s, Casualties& queue, Assignment& out,
                                 int hits, std::span<const Sym> order, Sustain mode,
                                 const std::string* answer, const AskCasualty& ask, bool summarise,
                                 const AskOutcome* whole) {
  const CasualtySpec& spec = *out.spec;
  const EntityId player = out.player, location = out.location;
  const std::string& decision = spec.decision;
  CasualtyChoice result;
  // a declared modifier of the player's that makes every Sustain Damage cancel more hits
  // (sustain_cancels, no purpose), whoever chooses; an ability's own for this assignment on top
  assignment_cancelling(env, s, player, result.cancelling);
  queue.build(env, s, player, location, spec, order, result.cancelling);
  if (out.sustain_cancels > 1) queue.cancel_at_least(out.sustain_cancels);

  // a scripted answer ("sustain:dreadnought,cruiser") overrides the policy, item by item
  std::vector<std::string> script;
  std::size_t script_next = 0;
  if (answer) {
    std::string item;
    for (char c : *answer + ",") {
      if (c == ',') {
        if (!item.empty()) script.push_back(item);
        item.clear();
      } else if (c != ' ') {
        item += c;
      }
    }
    if (script.empty()) script.push_back("");
  }
  std::string& summary = result.summary;
  if (whole && whole->choose && !answer) {
    // best play: one choice among the distinct outcomes, the policy's first
    const std::vector<AssignmentOutcome> outcomes =
        assignment_outcomes(s, queue, hits, mode, whole->interchangeable);
    whole->outcomes = &outcomes, whole->queue = &queue;
    const std::size_t k = whole->choose(outcomes.size());
    whole->outcomes = nullptr, whole->queue = nullptr;
    const AssignmentOutcome& o = outcomes[k < outcomes.size() ? k : 0];
    for (const auto& [i, sustain] : o.takes) {
      queue.take(s, i, sustain);
      (sustain ? out.sustaining : out.lost).push_back(queue.entity(i));
    }
    if (summarise) summary = o.summary;
    hits = 0;
    result.not_by_policy = k != 0;
  }
  for (; hits > 0; --hits) {
    int target = -1;
    bool sustain = false;
    if (script_next < script.size()) {
      const std::string& item = script[script_next++];
      sustain = item.rfind("sustain:", 0) == 0;
      const Sym type = sym(sustain ? item.substr(8) : item);
      target = sustain ? queue.next_sustain(type) : queue.next_loss(type);
      if (target < 0) {
        for (EntityId e : out.lost) s.at(e).location = location;
        throw CombatError("scripted answer '" + item + "' for " + decision + " names no " +
                          (sustain ? "undamaged sustaining" : "eligible") + " unit of " +
                          name_of(s, player) + " that can take it");
      }
    } else if (ask) {
      // the person at the terminal picks each casualty: a unit type to lose or to sustain with
      std::vector<std::string> choices;
      std::vector<std::pair<EntityId, int>> by_entity;  // the choices in entity order
      for (int i = 0; i < queue.size(); ++i)
        if (queue.alive(i)) by_entity.emplace_back(queue.entity(i), i);
      std::sort(by_entity.begin(), by_entity.end());
      for (const auto& [entity, i] : by_entity) {
        const std::string type(sym_name(queue.type(i)));
        for (const std::string& c : {type, "sustain:" + type})
          if ((c == type || queue.can_sustain(i)) &&
              std::find(choices.begin(), choices.end(), c) == choices.end())
            choices.push_back(c);
      }
      if (choices.empty()) break;
      bool policy_sustains = false;
      const int policy_pick = queue.policy_target(mode, policy_sustains);
      std::size_t policy = choices.size();
      if (policy_pick >= 0) {
        const std::string label =
            (policy_sustains ? "sustain:" : "") + std::string(sym_name(queue.type(policy_pick)));
        policy = static_cast<std::size_t>(std::find(choices.begin(), choices.end(), label) -
                                          choices.begin());
      }
      const std::string pick = choices[ask(choices, hits, policy)];
      sustain = pick.rfind("sustain:", 0) == 0;
      const Sym type = sym(sustain ? pick.substr(8) : pick);
      target = sustain ? queue.next_sustain(type) : queue.next_loss(type);
      script.push_back(pick);  // the trace says who decided
      script_next = script.size();
    } else {
      target = queue.policy_target(mode, sustain);
      if (target < 0) break;  // nothing left to take the hit
    }
    const EntityId e = queue.entity(target);
    queue.take(s, target, sustain);
    if (sustain) hits -= queue.cancels(target) - 1;  // besides this one (the loop's --hits)
    (sustain ? out.sustaining : out.lost).push_back(e);
    if (summarise)
      summary += (summary.empty() ? "" : ",") + std::string(sustain ? "sustain:" : "") +
                 std::string(sym_name(s.at(e).type));
  }
  // the queue took the lost units off the board; they leave with the other players' (phase 2)
  for (EntityId e : out.lost) s.at(e).location = location;
  result.not_by_policy = result.not_by_policy || !script.empty();
  return result;
}

}  // namespace rb::combat
