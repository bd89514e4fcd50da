-- Light/Wave Deflector (base technology). In short: other players' ships do not stop the owner's
-- ships passing through their systems. Window: tactical_action.passage, args {player, system,
-- can_pass,...}, asked once per system a move may touch. The procedure sets can_pass = false when
-- another player's ships (not only fighters) are there; the anomaly rules (rules/anomalies.lua,
-- priority 0) then forbid passing nebulae, supernovae and asteroid fields. The technology undoes
-- only the first, so it must run before them: like Dark Energy Tap it is written as a rule with a
-- higher priority that checks for the technology itself (a player's hooks run after the rules).
-- The action card In the Silence of Space (action_cards/in_the_silence_of_space.lua) gives the
-- same for one tactical action: it sets the flag below on the player, which this rule reads.
-- Test: tests/cards/light_wave_deflector.toml, tests/cards/in_the_silence_of_space.toml

local owns = require("lib").owns  -- scripts/ti4/lib.lua

local SILENCE = "in_the_silence_of_space"  -- a flag on the player, scope action

hook {
  id = "light_wave_deflector",
  window = "tactical_action.passage",
  priority = 10,  -- before the anomaly rules, which may still say no
  condition = function(ctx, _, _, args)
    return not args.can_pass and not args.active
      and (ctx:flag(args.player, SILENCE) or owns(ctx, args.player, "light_wave_deflector"))
  end,
  apply = function(ctx, _, _, args)
    args.can_pass = true
    if ctx:tracing() then
      local why = ctx:flag(args.player, SILENCE) and SILENCE or "light_wave_deflector"
      ctx:event(why .. ":" .. ctx:name(args.player) .. ":" .. ctx:name(args.system),
        ctx:name(args.player) .. "'s ships may pass through " .. ctx:name(args.system) .. " (" .. why .. ")")
    end
  end,
}
