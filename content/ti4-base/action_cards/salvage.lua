-- Salvage (base action card). In short: the winner of a space combat takes every commodity the
-- loser has. Window: space_combat.after_combat (the winner is known, capacity not yet checked).
-- Commodities are the player counter "commodities" (a scenario side's `commodities = N`); a
-- player who receives another player's commodities gains them as trade goods (Rules Reference,
-- Commodities), the counter "trade_goods" that production spends afterwards in the same
-- tactical action. Default policy: played when the opponent has a commodity to give.
-- Test: tests/cards/salvage.toml

local opponent = require("lib").opponent  -- scripts/ti4/lib.lua

hook {
  id = "salvage",
  window = "space_combat.after_combat",
  source = "action_card/salvage",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    local sys, enemy = ctx:role("active_system"), opponent(ctx, player)
    return enemy ~= nil and ctx:count(player, sys, "ship") > 0 and ctx:count(enemy, sys, "ship") == 0
      and ctx:counter(enemy, "commodities") > 0
  end,
  apply = function(ctx, player)
    local enemy = opponent(ctx, player)
    local n = ctx:counter(enemy, "commodities")
    ctx:set_counter(enemy, "commodities", 0, "game")
    ctx:add_counter(player, "trade_goods", n, "game")
    if ctx:tracing() then
      ctx:event("salvage:" .. ctx:name(player) .. ":" .. n, ctx:name(enemy) .. " gives " .. ctx:name(player) .. " " .. n
        .. " commodities, which become trade goods (Salvage)")
    end
  end,
}
