-- Default decision heuristics: (ctx, player, options, policy, decision) -> option, reason.
-- `policy` is the side's [attacker.policy] / [defender.policy]:
--   target = "<unit>"            prefer this target
--   battle_back, pursuit, repair, disregard, voluntary_retire, remove_marker = "always" | "never"
--   retire = "<dirs>"            a retire path ("sw,se"), when it is one of the options
--   cards = "always" | "never"   combat cards ("use:<card>")
local P = {}

local function yes_no(key, default, why)
  return function(ctx, player, options, policy)
    local v = policy[key]
    if v == "never" then return "no", "policy: never" end
    if v == "always" then return "yes", "policy: always" end
    return default, why
  end
end

-- the target with the most dice against it, then the fewest figures left
P["unit_combat.target"] = function(ctx, player, options, policy)
  local best
  for i, o in ipairs(options) do
    if policy.target and o.id == policy.target then return i, "the scenario's target" end
    if o.id ~= "no_combat" then
      local b = best and options[best]
      if not b or o.dice > b.dice or (o.dice == b.dice and o.figures < b.figures) then best = i end
    end
  end
  if best and options[best].dice > 0 then return best, "the most battle dice, then the fewest figures left" end
  return #options, "no target worth a combat"
end

-- one red alert with hits: disregard when allowed (free), else repair (2 stars), else retire
P["unit_combat.red_alert"] = function(ctx, player, options, policy)
  for i, o in ipairs(options) do
    if o.id == "disregard" and policy.disregard ~= "never" then return i, "disregarding costs nothing" end
  end
  for i, o in ipairs(options) do
    if o.id == "repair" and policy.repair ~= "never" then return i, "engineering repair keeps the unit in place" end
  end
  return 1, "retire"
end

P["unit_combat.voluntary_retire"] = function(ctx, player, options, policy)
  if policy.voluntary_retire == "always" then return "retire", "policy: always" end
  return "stay", "no hit: the unit stays"
end

-- the path with the fewest dice rolled at the unit (an enemy unit passed: 2, a friendly one: 1,
-- a dangerous feature: its dice), then the first (westmost)
P["unit_combat.retire_path"] = function(ctx, player, options, policy)
  local best, cost
  for i, o in ipairs(options) do
    if policy.retire and o.id == policy.retire then return i, "the scenario's path" end
    local c = 2 * o.enemy + o.friendly + o.danger
    if not best or c < cost then best, cost = i, c end
  end
  return best, "the fewest dice rolled at it"
end

P["unit_combat.battle_back"] = yes_no("battle_back", "yes", "a survivor battles back when it can")
P["unit_combat.pursuit"] = yes_no("pursuit", "yes", "a successful close quarters combat: pursue")
P["combat_phase.remove_marker"] = yes_no("remove_marker", "yes", "a unit with a marker rolls one die fewer")

P["unit_combat.bonus_target"] = function(ctx, player, options, policy)
  return P["unit_combat.target"](ctx, player, options, policy)
end

P.use = function(ctx, player, options, policy)
  if policy.cards == "never" then return "no", "policy: cards never" end
  return "yes", "a card that adds dice"
end

return P
