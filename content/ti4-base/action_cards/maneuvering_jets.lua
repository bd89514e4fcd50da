-- Maneuvering Jets (base action card). In short: when another player's Space Cannon roll hits you,
-- one of those hits is cancelled before you assign them. Space cannon offense
-- (tactical_action.assign_space_cannon_hits) and space cannon defense
-- (invasion.assign_space_cannon_defense_hits) both pass args {player, target, hits = {[target] =
-- n}} and read hits back: cancelling is lowering the target's entry. Offered when the owner is the
-- target and there is a hit to cancel (the default policy plays it at the first such chance). Not a
-- combat card: space combat and Anti-Fighter Barrage hits (space_combat.assign_hits) are not space
-- cannon.
-- Test: tests/cards/maneuvering_jets.toml

local WINDOWS = {
  { "maneuvering_jets", "tactical_action.assign_space_cannon_hits" },
  { "maneuvering_jets_defense", "invasion.assign_space_cannon_defense_hits" },
}

for _, w in ipairs(WINDOWS) do
  hook {
    id = w[1],
    window = w[2],
    source = "action_card/maneuvering_jets",
    optional = true,
    discard = true,
    condition = function(_, player, _, args)
      return args.target == player and args.player ~= player and (args.hits[player] or 0) > 0
    end,
    apply = function(ctx, player, _, args)
      args.hits[player] = args.hits[player] - 1
      if ctx:tracing() then
        ctx:event("hits_cancelled:" .. ctx:name(player) .. ":1", ctx:name(player) .. " cancels 1 space cannon hit (Maneuvering Jets)")
      end
    end,
  }
end
