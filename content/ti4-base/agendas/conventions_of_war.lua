-- Conventions of War (base law). In short: nobody may bombard units on a cultural planet. Window:
-- invasion.planetary_shield, asked for each planet the active player could bombard: a cultural
-- planet (trait) is forbidden, whatever ignores Planetary Shield (a war
-- sun, the Letnev flagship, Disable). The law binds every player, whoever holds the card (a hook
-- with the agenda as source fires for its holder; it acts on the active player's bombardment).
-- Nothing else changes: ground combat and space cannon defense on that planet go on.
-- Test: tests/cards/conventions_of_war.toml

hook {
  id = "conventions_of_war",
  window = "invasion.planetary_shield",
  source = "agenda/conventions_of_war",
  condition = function(ctx, _, _, args) return ctx:get(args.planet, "trait") == "cultural" and not args.forbidden end,
  apply = function(ctx, _, _, args)
    args.forbidden = true
    if ctx:tracing() then
      ctx:event("conventions_of_war:" .. ctx:name(args.planet), "no bombardment against units on " .. ctx:name(args.planet) .. ", a cultural planet (Conventions of War)")
    end
  end,
}
