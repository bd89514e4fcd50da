-- Rout (Prophecy of Kings action card). Window: space_combat.announce_retreats, the start of the
-- step. It sets the round-scoped flag "must_announce_retreat" on the attacker; the procedure's
-- announce step then announces for them without asking, if they are able (an eligible system,
-- ships in the active system: rules 4.3, 7.3), and not at all otherwise. The defender cannot
-- announce after that (4.2 is the defender's first; the card is played before either announces).
-- The default: the defender plays it in the first round it can (an attacker that leaves hands the
-- system to the defender). Test: tests/cards/rout.toml

hook {
  id = "rout",
  window = "space_combat.announce_retreats",
  source = "action_card/rout",
  optional = true,
  discard = true,
  condition = function(ctx, player)
    return ctx:role("defender") == player and ctx:role("attacker") ~= nil
  end,
  apply = function(ctx, player)
    local attacker = ctx:role("attacker")
    ctx:set_flag(attacker, "must_announce_retreat", "round")
    if ctx:tracing() then
      ctx:event("rout:" .. ctx:name(player), ctx:name(player) .. " plays Rout: " .. ctx:name(attacker) .. " must announce a retreat, if able")
    end
  end,
}
