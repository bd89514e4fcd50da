-- Living Rules Reference, Movement: a ship cannot move through a system that contains another
-- player's ships; unlike the Learn to Play text, fighters are ships like any other here. The
-- procedure has already set can_pass for non-fighter ships; this rule only tightens it. A ship
-- that moves through other players' ships (through_ships: Y'sia Y'ssrila, the Corsair, the D.W.S.
-- Luminous in its owner's systems) passes their fighters too.

hook {
  id = "lrr_fighters_block_passage",
  window = "tactical_action.passage",
  apply = function(ctx, _, _, args)
    if not args.can_pass or args.through_ships then return end  -- (the active system: can_end decides, and fighters do not stop a move ending there)
    for _, other in ipairs(ctx:players()) do
      if other ~= args.player and ctx:count(other, args.system, "ship") > 0 then
        args.can_pass = false
        return
      end
    end
  end,
}

-- Living Rules Reference, Movement: the active player declares every ship that moves before any
-- moves (its path chosen with the others'), and a ship may move through the active system and
-- come back into it (the Learn to Play's paths end where they first reach it). Rules Reference 58:
-- a ship already in the active system may move out of it and back in, when its move value is high
-- enough (the active system's command token does not hold it). Rules Reference 95.3: a ship may
-- pick up units in the active system too: the ground forces on the player's planets there.
hook {
  id = "lrr_movement_rules",
  window = "tactical_action.before_movement",
  apply = function(_, _, _, args)
    args.declare_first = true
    args.pass_active = true
    args.leave_active = true
    args.pick_up_active = true
  end,
}
