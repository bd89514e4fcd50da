-- Nav Suite (Prophecy of Kings action card). In short: played on activating a system; anomalies
-- have no effect on your movement step in this tactical action. Window: tactical_action.activation.
-- It sets the action flag "ignore_anomalies_in_movement" on its player; the movement rules of the
-- anomalies (ti4-base rules/anomalies.lua: passage through and into asteroid fields, nebulae and
-- supernovae, the nebula's move value of 1, the gravity rift's +1 and its roll) skip that player's
-- moves. Retreats are not movement: the Rules Reference notes that the card does not let a retreat
-- ignore an anomaly, and that holds, as the retreat rules do not read the flag; nor does the
-- nebula's +1 to the defender's combat rolls.
-- Default policy: played when a ship of the active player reaches the active system only if
-- anomalies are ignored (policy.use = { nav_suite = "always" }: whenever it is the active player).
-- Test: tests/cards/nav_suite.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local BLOCKING = { asteroid_field = true, nebula = true, supernova = true }

-- Whether `sys` stops the player's ships with anomalies in effect: into or through it.
local function blocks(ctx, player, sys, active)
  local a = ctx:get(sys, "anomaly")
  if a == "asteroid_field" and lib.owns(ctx, player, "antimass_deflectors") then return false end
  if sys == active then return a == "asteroid_field" or a == "supernova" end
  return BLOCKING[a] == true
end

local function helps(ctx, player, active)
  local blocked_end = blocks(ctx, player, active, active)
  for _, u in ipairs(ctx:units(player, nil, "move")) do
    local at = ctx:location(u)
    if ctx:get(u, "ship") and at ~= active and ctx:kind(at) == "system" then
      local move = ctx:get(u, "move")
      local free = lib.steps_between(ctx, at, active, move)
      if free then
        local slowed = ctx:get(at, "anomaly") == "nebula" and 1 or move
        local with = not blocked_end and lib.steps_between(ctx, at, active, slowed,
          function(s) return not blocks(ctx, player, s, active) end)
        if not with then return true end
      end
    end
  end
  return false
end

hook {
  id = "nav_suite",
  window = "tactical_action.activation",
  source = "action_card/nav_suite",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return helps(ctx, player, args.system) end,
  apply = function(ctx, player)
    ctx:set_flag(player, "ignore_anomalies_in_movement", "action")
    if ctx:tracing() then
      ctx:event("nav_suite:" .. ctx:name(player), ctx:name(player) .. "'s ships ignore the effect of anomalies during movement (Nav Suite)")
    end
  end,
}
