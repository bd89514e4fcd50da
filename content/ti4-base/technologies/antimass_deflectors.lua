-- Antimass Deflectors (base technology; the record is in../technologies.toml). In short: the
-- owner's ships may enter and cross asteroid fields, and each die of another player's Space Cannon
-- against the owner's units gets -1. The movement half is the anomaly rules'
-- (rules/anomalies.lua reads the technology); these hooks are the -1.
--   Space Cannon Offense: the procedure's targets (tactical_action.lua): the others fire at the
--   active player's ships; the active player at the first other player in turn order from the
--   active player who has ships in the active system.
--   Space Cannon Defense: always against the active player's ground forces.
-- Test: tests/cards/antimass_deflectors.toml

local lib = require "lib"

local offense_target = lib.space_cannon_target  -- scripts/ti4/lib.lua: the procedure's own rule

local function minus_one(ctx, player, pool)
  for i = 1, #pool do pool:modify(i, -1) end
  if ctx:tracing() then
    ctx:event("antimass_deflectors:" .. ctx:name(player),
      ctx:name(player) .. "'s Antimass Deflectors: -1 to each space cannon die against them")
  end
end

hook {
  id = "antimass_deflectors_offense",
  window = "tactical_action.after_space_cannon_roll",
  source = "technology/antimass_deflectors",
  condition = function(ctx, player, _, args) return args.player ~= player and offense_target(ctx, args.player) == player end,
  apply = function(ctx, player, _, args) minus_one(ctx, player, args.pool) end,
}

hook {
  id = "antimass_deflectors_defense",
  window = "invasion.after_space_cannon_defense_roll",
  source = "technology/antimass_deflectors",
  condition = function(ctx, player, _, args) return args.player ~= player and ctx:role("active_player") == player end,
  apply = function(ctx, player, _, args) minus_one(ctx, player, args.pool) end,
}
