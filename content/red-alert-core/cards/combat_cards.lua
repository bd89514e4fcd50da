-- Example combat cards on the step-5 window (unit_combat.dice_adjustments). A card is held
-- by a player (an entity of kind card located at the player); playing it pays its star cost
-- and discards it. At most one combat card per player on their own turn and one on the
-- opponent's: the counters "combat_card_own" / "combat_card_opponent" (scope turn).
local function on_own_turn(ctx, player) return ctx:role("active_player") == player end

local function can_play(ctx, player, source)
  local key = on_own_turn(ctx, player) and "combat_card_own" or "combat_card_opponent"
  return ctx:counter(player, key) == 0 and ctx:counter(player, "stars") >= ctx:get(source, "stars")
end

local function play(ctx, player, source, args)
  local key = on_own_turn(ctx, player) and "combat_card_own" or "combat_card_opponent"
  ctx:add_counter(player, key, 1, "turn")
  ctx:add_counter(player, "stars", -ctx:get(source, "stars"))
  args.dice = args.dice + ctx:get(source, "extra_dice")
  if ctx:tracing() then
    ctx:event("card:" .. ctx:type(source) .. ":" .. args.dice,
      ctx:name(player) .. " pays " .. ctx:get(source, "stars") .. " star(s): battle dice now " .. args.dice)
  end
end

hook {
  id = "concentrated_fire",
  window = "unit_combat.dice_adjustments",
  source = "card/concentrated_fire",
  optional = true,
  discard = true,
  condition = function(ctx, player, source, args)
    return args.player == player and args.ranged and not args.battle_back and can_play(ctx, player, source)
  end,
  apply = play,
}

hook {
  id = "boarding_action",
  window = "unit_combat.dice_adjustments",
  source = "card/boarding_action",
  optional = true,
  discard = true,
  condition = function(ctx, player, source, args)
    return args.player == player and not args.ranged and not args.battle_back and can_play(ctx, player, source)
  end,
  apply = play,
}

hook {
  id = "evasive_manoeuvres",
  window = "unit_combat.dice_adjustments",
  source = "card/evasive_manoeuvres",
  optional = true,
  discard = true,
  condition = function(ctx, player, source, args)
    return args.opponent == player and not on_own_turn(ctx, player) and args.dice > 0 and can_play(ctx, player, source)
  end,
  apply = play,
}

-- An example command card: held by the active player, it is the card played this turn. Not a
-- combat card (no star cost, not counted against the one-card limits).
local lib = require "lib"

local function in_sector(ctx, unit, sector)
  for _, s in ipairs(lib.sectors(ctx, ctx:hex(unit))) do
    if s == sector then return true end
  end
  return false
end

hook {
  id = "left_flank_barrage",
  window = "unit_combat.dice_adjustments",
  source = "card/left_flank_barrage",
  condition = function(ctx, player, source, args)
    return args.player == player and on_own_turn(ctx, player) and not args.battle_back and in_sector(ctx, args.attacker, "left")
  end,
  apply = function(ctx, player, source, args)
    args.dice = args.dice + ctx:get(source, "extra_dice")
    if ctx:tracing() then ctx:event("card:left_flank_barrage:" .. args.dice, "Left Flank Barrage: battle dice now " .. args.dice) end
  end,
}
