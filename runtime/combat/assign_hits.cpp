#include "combat/assign_hits.hpp"

#include <algorithm>
#include <utility>

namespace rb::combat {

namespace {

// A player's name for an error (the name the trace uses).
std::string name_of(const State& s, EntityId e) {
  if (!s.valid(e)) return e == kNoEntity ? "nobody" : "?";
  return std::string(sym_name(s.at(e).type));
}

}  // namespace

CasualtyChoice choose_casualties(const Env& env, State& s, Casualties& queue, Assignment& out,
                                 int hits, std::span<const Sym> order, Sustain mode,
                                 const std::string* answer, const AskCasualty& ask,
                                 bool summarise) {
  const CasualtySpec& spec = *out.spec;
  const EntityId player = out.player, location = out.location;
  const std::string& decision = spec.decision;
  queue.build(env, s, player, location, spec, order);

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
  CasualtyChoice result;
  std::string& summary = result.summary;
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
    (sustain ? out.sustaining : out.lost).push_back(e);
    if (summarise)
      summary += (summary.empty() ? "" : ",") + std::string(sustain ? "sustain:" : "") +
                 std::string(sym_name(s.at(e).type));
  }
  // the queue took the lost units off the board; they leave with the other players' (phase 2)
  for (EntityId e : out.lost) s.at(e).location = location;
  result.not_by_policy = !script.empty();
  return result;
}

}  // namespace rb::combat
