-- Waylay (Prophecy of Kings action card). In short: played before your Anti-Fighter Barrage roll,
-- it lets that roll's hits land on any ship, fighters or not. Window:
-- space_combat.anti_fighter_barrage (step 1, round 1 only, before the barrage rolls). It sets the
-- combat flag "barrage_hits_all_ships" on its player; the procedure then assigns the hits of that
-- player's barrage as a combat roll's (the opponent chooses among all their ships, Sustain Damage
-- may cancel them). The opponent's own barrage still hits fighters only.
-- The default policy plays it when the player's barrage has more dice than the opponent has
-- fighters and the opponent has other ships: only then can a hit find no fighter to destroy
-- (policy.use = { waylay = "always" }: whenever the player has a barrage to roll).
-- Test: tests/cards/waylay.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- the dice of the player's barrage
local function barrage_dice(ctx, player, sys)
  local dice = 0
  for _, u in ipairs(ctx:units(player, sys, "afb")) do dice = dice + ctx:get(u, "afb_dice") end
  return dice
end

-- The default policy's guess: a hit may find no fighter to destroy.
local function helps(ctx, player)
  local sys = ctx:role("active_system")
  local enemy = lib.opponent(ctx, player)
  local fighters = ctx:count(enemy, sys, "fighter")
  return barrage_dice(ctx, player, sys) > fighters and ctx:count(enemy, sys, "ship") > fighters
end

hook {
  id = "waylay",
  window = "space_combat.anti_fighter_barrage",
  source = "action_card/waylay",
  optional = true,
  discard = true,
  condition = function(ctx, player) return barrage_dice(ctx, player, ctx:role("active_system")) > 0 end,
  helps = function(ctx, player) return helps(ctx, player) end,
  apply = function(ctx, player)
    ctx:set_flag(player, "barrage_hits_all_ships", "combat")
    if ctx:tracing() then
      ctx:event("waylay:" .. ctx:name(player), "hits from " .. ctx:name(player) .. "'s Anti-Fighter Barrage are produced against all ships (Waylay)")
    end
  end,
}
