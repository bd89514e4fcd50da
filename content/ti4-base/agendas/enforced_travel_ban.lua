-- Enforced Travel Ban (base law). In short: while ships move, alpha and beta wormholes do nothing.
-- Window: tactical_action.before_movement: alpha and beta go into inactive_wormholes, so systems
-- adjacent only through identical alpha or beta wormholes (the galaxy's "wormhole" links) are not
-- adjacent for this movement. Gamma and delta wormholes still work; adjacency from Lost Star Chart
-- or Wormhole Reconstruction (their own links) still works; retreats and Space Cannon Offense from
-- an adjacent system are not movement and still use the wormholes.
-- Test: tests/cards/enforced_travel_ban.toml

hook {
  id = "enforced_travel_ban",
  window = "tactical_action.before_movement",
  source = "agenda/enforced_travel_ban",
  apply = function(ctx, _, _, args)
    args.inactive_wormholes = args.inactive_wormholes or {}
    args.inactive_wormholes.alpha, args.inactive_wormholes.beta = true, true
    if ctx:tracing() then ctx:event("enforced_travel_ban", "alpha and beta wormholes have no effect during this movement (Enforced Travel Ban)") end
  end,
}
