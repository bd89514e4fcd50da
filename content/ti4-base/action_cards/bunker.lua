-- Bunker (base action card): the hook; the record and the modifier are bunker.toml.

-- the default policy's guess: the active player can bombard a planet of the owner's with ground forces
local function worth_it(ctx, player, args)
  if ctx:count(args.player, args.system, "bombardment") == 0 then return false end
  for _, planet in ipairs(ctx:entities { kind = "planet", location = args.system }) do
    if ctx:owner(planet) == player and ctx:count(player, planet, "ground_force") > 0 then return true end
  end
  return false
end

hook {
  id = "bunker",
  window = "invasion.start_of_invasion",
  source = "action_card/bunker",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player ~= player end,
  helps = function(ctx, player, _, args) return worth_it(ctx, player, args) end,
  apply = function(ctx, player, _, args)
    ctx:activate("bunker_penalty", args.player, "action")
    if ctx:tracing() then
      ctx:event("bunker:" .. ctx:name(player), ctx:name(args.player) .. "'s bombardment dice get -4 this invasion (Bunker)")
    end
  end,
}
