-- Default decision heuristics. Each gets (ctx, player, options, policy, decision) and returns
-- the option (label or index) and a reason. `policy` is the scenario's [attacker.policy] /
-- [defender.policy] (or a ship's policy in an engagement):
--   weapon = "<name>"       prefer this weapon when it is valid
--   target = "<ship>"       prefer this target when it is valid
--   lock = "auto" | "blanks" | "blanks_and_focus" | "never"
--   focus, calculate, evade = "auto" | "never"
--   abilities = "always" | "never"   optional abilities ("may")
-- The first option of a token decision carries the facts the heuristic needs (side, need,
-- focus_results, focus_tokens, blanks).
local P = {}

P["attack.declare_target"] = function(ctx, player, options, policy)
  for i, o in ipairs(options) do
    if policy.target and o.id == policy.target then return i, "the scenario's target" end
  end
  local best, left
  for i, o in ipairs(options) do
    if o.id ~= "no_attack" and not o.destroyed and (not best or o.left < left) then best, left = i, o.left end
  end
  if best then return best, "the enemy ship closest to destruction" end
  return 1, "every target is already destroyed"
end

P["attack.choose_weapon"] = function(ctx, player, options, policy)
  local best, dice
  for i, o in ipairs(options) do
    if policy.weapon and o.id == policy.weapon then return i, "the scenario's weapon" end
    if o.id ~= "no_attack" and (not best or o.dice > dice) then best, dice = i, o.dice end
  end
  return best or #options, "the most attack dice"
end

-- With a lock: reroll blanks, and focus results unless a focus token will turn them.
P["attack.reroll_with_lock"] = function(ctx, player, options, policy)
  local f = options[1]
  local mode = policy.lock or "auto"
  if mode == "never" then return "no", "policy: never" end
  if mode == "blanks" or mode == "blanks_and_focus" then return mode, "policy: " .. mode end
  if f.focus_tokens > 0 or f.focus_results == 0 then
    if f.blanks == 0 then return "no", "nothing to reroll" end
    return "blanks", "a focus token will turn the focus results"
  end
  return "blanks_and_focus", "no focus token: reroll blanks and focus results"
end

-- Attacker: turn focus results whenever there are some. Defender: only as needed.
local function spend(name)
  return function(ctx, player, options, policy)
    local f = options[1]
    if policy[name] == "never" then return "no", "policy: never" end
    if f.side == "attacker" then return "yes", "focus results to turn" end
    if f.need > 0 then return "yes", f.need .. " result(s) not yet cancelled" end
    return "no", "every result is already cancelled"
  end
end
P["attack.spend_focus"] = spend("focus")
P["attack.spend_calculate"] = spend("calculate")
P["attack.spend_evade"] = spend("evade")

-- Optional abilities ("use:<hook id>").
P.use = function(ctx, player, options, policy)
  if policy.abilities == "never" then return "no", "policy: abilities never" end
  return "yes", "an ability that helps"
end

return P
