-- Living Rules Reference, Movement: a ship cannot move through a system that contains another
-- player's ships; unlike the Learn to Play text, fighters are ships like any other here. The
-- procedure has already set can_pass for non-fighter ships; this rule only tightens it.

hook {
  id = "lrr_fighters_block_passage",
  window = "tactical_action.passage",
  apply = function(ctx, _, _, args)
    if not args.can_pass then return end  -- (the active system: can_end decides, and fighters do not stop a move ending there)
    for _, other in ipairs(ctx:players()) do
      if other ~= args.player and ctx:count(other, args.system, "ship") > 0 then
        args.can_pass = false
        return
      end
    end
  end,
}
