-- In the Silence of Space (base action card). In short: played on activating a system; for this
-- tactical action your ships in one chosen system may pass through systems holding other players'
-- ships. Window: tactical_action.activation, args {player, system}: the
-- active player's flag "in_the_silence_of_space" (scope action), read by the passage rule of
-- Light/Wave Deflector (technologies/light_wave_deflector.lua), which must run before the
-- anomaly rules.
-- The passage window is asked once per system for all the player's ships, not per ship, so the
-- card cannot tell the chosen system's ships from the others: it is played only when all the
-- ships the player could move are in one system (that system is the one chosen, and the effect
-- is exact). The default policy plays it then when one of those ships has no way in within its
-- move value around other players' ships, and has one through them (steps through adjacent
-- systems; the anomalies are not considered); not when the player owns Light/Wave Deflector.
-- With ships in two systems it would need a passage asked per start system.
-- Test: tests/cards/in_the_silence_of_space.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Steps from `from` to `target` within `limit`, passing only systems `open` allows.
local function distance(ctx, from, target, limit, open) return lib.steps_between(ctx, from, target, limit, open) end

local function helps(ctx, player, active)
  if lib.owns(ctx, player, "light_wave_deflector") then return false end
  local function free(s)
    for _, q in ipairs(ctx:players()) do
      if q ~= player and ctx:count(q, s, "ship") > ctx:count(q, s, "fighter") then return false end
    end
    return true
  end
  local function any() return true end
  local chosen, gains = nil, false
  for _, u in ipairs(ctx:units(player, nil, "move")) do
    local at = ctx:location(u)
    if ctx:get(u, "ship") and at ~= active and ctx:kind(at) == "system" then
      if chosen and at ~= chosen then return false end  -- ships in two systems: not exact
      chosen = at
      local move = ctx:get(u, "move")
      if not distance(ctx, at, active, move, free) and distance(ctx, at, active, move, any) then gains = true end
    end
  end
  return gains
end

hook {
  id = "in_the_silence_of_space",
  window = "tactical_action.activation",
  source = "action_card/in_the_silence_of_space",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return helps(ctx, player, args.system) end,
  apply = function(ctx, player) ctx:set_flag(player, "in_the_silence_of_space", "action") end,
}
