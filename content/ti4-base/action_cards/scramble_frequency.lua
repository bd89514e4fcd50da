-- Scramble Frequency (Codex I action card). In short: right after another player rolls for
-- Bombardment, Space Cannon or Anti-Fighter Barrage, that player must roll all those dice again.
-- One hook per window opened right after such a roll, each with args {player, pool}: space cannon
-- offense (one pool per location fired from), space cannon defense, bombardment, Anti-Fighter
-- Barrage. Never after a combat or ground combat roll. The default policy plays it when the roll
-- did better than its expectation (more hits than the sum of each die's chance to hit), so a reroll
-- is expected to take hits away.
-- Test: tests/cards/scramble_frequency.toml

local function worth_it(pool)
  local hits, expected = 0, 0
  for i = 1, #pool do
    if not pool:cancelled(i) then
      if pool:hit(i) then hits = hits + 1 end
      -- a d10 hits on threshold..10 (before modifiers)
      expected = expected + math.max(0, math.min(10, 11 - pool:threshold(i))) / 10
    end
  end
  return hits > expected
end

local WINDOWS = {
  { "scramble_frequency", "tactical_action.after_space_cannon_roll" },
  { "scramble_frequency_defense", "invasion.after_space_cannon_defense_roll" },
  { "scramble_frequency_bombardment", "invasion.after_bombardment_roll" },
  { "scramble_frequency_barrage", "space_combat.after_anti_fighter_barrage_roll" },
}

for _, w in ipairs(WINDOWS) do
  hook {
    id = w[1],
    window = w[2],
    source = "action_card/scramble_frequency",
    optional = true,
    discard = true,
    condition = function(_, player, _, args) return args.player ~= player end,
    helps = function(_, _, _, args) return worth_it(args.pool) end,
    apply = function(ctx, player, _, args)
      if ctx:tracing() then
        ctx:event("scramble_frequency:" .. ctx:name(player) .. ":" .. ctx:name(args.player),
          ctx:name(args.player) .. " rerolls all of their dice (Scramble Frequency)")
      end
      local pool = args.pool
      for i = 1, #pool do
        if not pool:cancelled(i) then pool:reroll(i) end
      end
    end,
  }
end
