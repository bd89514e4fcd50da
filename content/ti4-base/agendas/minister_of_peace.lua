-- Minister of Peace (base law, held by one player). In short: when a player activates a system
-- holding units of some other player, the holder may discard the card to end the active player's
-- turn at once. Window: tactical_action.activation. It sets the action flag "turn_ended" on the
-- active player: the tactical action's later steps (movement, space cannon,
-- combat, invasion, production) are skipped, the command token stays, and the report says
-- no_combat. A different player's units means units of a player other than the active one, in the
-- space area or on a planet of the system.
-- Default policy: its owner plays it when they are not the active player and have units in the
-- active system (policy.use = { minister_of_peace = "always" }: whenever it may be played).
-- Test: tests/cards/minister_of_peace.toml

-- whether `who` (nil: anyone but the active player) has units in the system or on its planets
local function units_in(ctx, sys, who, active)
  local places = ctx:entities { kind = "planet", location = sys }
  places[#places + 1] = sys
  for _, at in ipairs(places) do
    if who and ctx:count(who, at) > 0 then return true end
    if not who and ctx:count(nil, at) > ctx:count(active, at) then return true end
  end
  return false
end

hook {
  id = "minister_of_peace",
  window = "tactical_action.activation",
  source = "agenda/minister_of_peace",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return units_in(ctx, args.system, nil, args.player) end,
  helps = function(ctx, player, _, args)
    return player ~= args.player and units_in(ctx, args.system, player, args.player)
  end,
  apply = function(ctx, player, _, args)
    ctx:set_flag(args.player, "turn_ended", "action")
    if ctx:tracing() then
      ctx:event("minister_of_peace:" .. ctx:name(player), ctx:name(player) .. " ends " .. ctx:name(args.player) .. "'s turn (Minister of Peace)")
    end
  end,
}
