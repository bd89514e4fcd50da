-- Shields Holding (base action card). Window: assign hits (6.1, "before assigning hits"), which
-- opens for Anti-Fighter Barrage hits too. The procedure passes args.hits = {[player] = n} and
-- reads it back, so cancelling is lowering our own entry. Test: tests/cards/shields_holding.toml

local CANCELS = 2

hook {
  id = "shields_holding",
  window = "space_combat.assign_hits",
  source = "action_card/shields_holding",
  optional = true,
  discard = true,
  condition = function(_, player, _, args) return (args.hits[player] or 0) > 0 end,
  apply = function(ctx, player, _, args)
    local cancelled = math.min(CANCELS, args.hits[player])
    args.hits[player] = args.hits[player] - cancelled
    if ctx:tracing() then
      ctx:event("hits_cancelled:" .. ctx:name(player) .. ":" .. cancelled,
        ctx:name(player) .. " cancels " .. cancelled .. " hit(s) with Shields Holding")
    end
  end,
}
