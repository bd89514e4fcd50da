-- Predator (talent): in a primary attack against a defender inside the attacker's bullseye arc, 1
-- attack die may be rerolled. Rerolls a blank, or a focus result when the
-- attacker has no focus or calculate token to turn it. The pool refuses to reroll a die that
-- was already rerolled this attack (its reroll limit is 1), so then the next candidate is tried.
local function candidates(ctx, ship, pool)
  local focus_wanted = ctx:counter(ship, "focus") == 0 and ctx:counter(ship, "calculate") == 0
  local out = {}
  for _, face in ipairs { "blank", "focus" } do
    if face == "blank" or focus_wanted then
      for i = 1, #pool do
        if not pool:cancelled(i) and pool:face(i) == face then out[#out + 1] = i end
      end
    end
  end
  return out
end

hook {
  id = "predator",
  window = "attack.modify_attack_dice.attacker",
  source = "upgrade/predator",
  optional = true,
  limit = "attack",
  condition = function(ctx, player, source, args)
    local ship = ctx:location(source)
    return ship == args.attacker and args.primary and ctx:flag(ship, "arc:bullseye:" .. args.defender)
      and #candidates(ctx, ship, args.attack_dice) > 0
  end,
  apply = function(ctx, player, source, args)
    for _, i in ipairs(candidates(ctx, args.attacker, args.attack_dice)) do
      if args.attack_dice:reroll(i) then return end
    end
    ctx:event("predator:no_die_left", "Predator finds no die that was not already rerolled")
  end,
}
