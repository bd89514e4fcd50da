-- One unit combat, the eleven steps of the Combat Procedure (shared/rules/red-alert-combat.md),
-- shared by the unit_combat and combat_phase procedures. Stars are the counter "stars" on a
-- player; a unit that combatted this turn has the flag "combatted" (scope turn), one that made
-- its pursuit move "pursued"; "no_pursuit" marks a unit ordered by First Strike or Ambush and
-- "stopped" one that entered a feature that stops movement. Nothing here keeps state between
-- calls.
local lib = require "lib"

local M = {}

local function name(ctx, e) return ctx:name(e) end

local function figures_left(ctx, u) return ctx:get(u, "figures") end

local function eliminate(ctx, u)
  if ctx:tracing() then
    ctx:event("eliminated:" .. name(ctx, u), name(ctx, u) .. " loses its last figure: eliminated")
  end
  ctx:place(u, nil)
  ctx:destroy(u, "unit_combat.unit_eliminated")
end

local function gain_stars(ctx, player, n, why)
  if n <= 0 then return 0 end
  ctx:add_counter(player, "stars", n)
  if ctx:tracing() then
    ctx:event("stars:" .. name(ctx, player) .. ":" .. n, name(ctx, player) .. " collects " .. n .. " star token(s) (" .. why .. ")")
  end
  return n
end

local function pay(ctx, player, n, key, what)
  ctx:add_counter(player, "stars", -n)
  if ctx:tracing() then
    ctx:event("spend:" .. name(ctx, player) .. ":" .. key .. ":" .. n, name(ctx, player) .. " spends " .. n .. " stars: " .. what)
  end
end

-- Hits a flagship takes: cap fighters absorb first; each hit left must be confirmed by
-- rerolling the dice that scored it (a square, or a blast the shields do not ignore when the
-- setting says so). Returns the figures lost (cap fighters and the flagship figure).
local function hit_flagship(ctx, u, hits, attacker, roller)
  local caps = ctx:get(u, "cap_fighters")
  local absorbed = math.min(hits, caps)
  local lost = 0
  if absorbed > 0 then
    ctx:set(u, "cap_fighters", caps - absorbed)
    lost = absorbed
    if ctx:tracing() then
      ctx:event("cap_fighters:" .. name(ctx, u) .. ":" .. absorbed, name(ctx, u) .. " loses " .. absorbed .. " cap fighter(s)")
    end
  end
  local excess = hits - absorbed
  if excess <= 0 or figures_left(ctx, u) <= 0 then return lost end
  local n = excess
  if absorbed > 0 and not lib.setting(ctx, "confirm_excess_only") then n = hits end
  -- the dice that scored the hits are rerolled: the attacker's (a hit from retire dice or a retire
  -- not completed has no attacking unit: the roller rolls a new die for it)
  if ctx:tracing() then
    local who = attacker and (name(ctx, attacker) .. " rerolls the " .. n .. " die/dice that hit ")
      or (name(ctx, roller) .. " rolls " .. n .. " die/dice for the hit(s) on ")
    ctx:event("confirm_roll:" .. name(ctx, u) .. ":" .. n, who .. "the flagship " .. name(ctx, u) ..
      " to confirm (no cap fighters left): a square or a blast confirms")
  end
  local ignore = lib.setting(ctx, "confirm_blast_ignores") and lib.ignored_blasts(ctx, attacker, u) or 0
  local pool = ctx:roll(roller, "battle", n,
    { purpose = "confirm", unit = attacker, by_face = true, faces = lib.CONFIRM_FACES[ignore > 0 and 1 or 0] })
  local confirmed = lib.count_scored(pool, "square", ignore)
  if ctx:tracing() then
    ctx:event("confirm:" .. name(ctx, u) .. ":" .. n .. ":" .. confirmed,
      name(ctx, u) .. ": " .. n .. " hit(s) to confirm, " .. confirmed .. " confirmed")
  end
  if confirmed > 0 then
    local k = math.min(confirmed, figures_left(ctx, u))
    ctx:set(u, "figures", figures_left(ctx, u) - k)
    lost = lost + k
  end
  return lost
end

-- Applies hits to a unit: figures removed (extra hits are lost); a flagship's cap fighters
-- first. Returns the figures lost and whether the unit was eliminated.
function M.take_hits(ctx, u, hits, attacker, roller)
  if hits <= 0 or not lib.alive(ctx, u) then return 0, false end
  local lost
  if ctx:get(u, "flagship") then
    lost = hit_flagship(ctx, u, hits, attacker, roller)
  else
    lost = math.min(hits, figures_left(ctx, u))
    ctx:set(u, "figures", figures_left(ctx, u) - lost)
    if ctx:tracing() then
      ctx:event("figures_lost:" .. name(ctx, u) .. ":" .. lost, name(ctx, u) .. " loses " .. lost .. " figure(s) (" .. hits .. " hit(s))")
    end
  end
  if figures_left(ctx, u) <= 0 then
    eliminate(ctx, u)
    return lost, true
  end
  return lost, false
end

-- ----------------------------------------------------------------- retire (step 9)

-- Every way to retire `steps` hexes towards the owner's baseline, keeping those that get
-- furthest: each step one of the two hexes towards the baseline, on the battlefield and not
-- impassable; the path may pass units but must end on an empty hex. Returns the options and
-- how far they get.
local function retire_paths(ctx, u, steps)
  local dirs = lib.RETIRE[ctx:get(ctx:owner(u), "baseline")]
  local best, options = 0, {}
  local path, dnames = {}, {}
  local function walk(h, k)
    if k > 0 and (lib.unit_at(ctx, h) == nil or lib.unit_at(ctx, h) == u) then
      if k > best then best, options = k, {} end
      if k == best then
        local hexes = {}
        for i = 1, k do hexes[i] = path[i] end
        options[#options + 1] = { id = table.concat(dnames, ",", 1, k), hexes = hexes }
      end
    end
    if k == steps then return end
    for _, d in ipairs(dirs) do
      local n = ctx:hex_neighbour(h, d)
      if not lib.impassable(ctx, n) then
        path[k + 1], dnames[k + 1] = n, lib.DIR_NAME[d]
        walk(n, k + 1)
      end
    end
  end
  walk(ctx:hex(u), 0)
  -- what each path costs: friendly units passed (1 die each), enemy units (2 dice), dangerous
  -- features entered (their retire_dice)
  local me = ctx:owner(u)
  for _, o in ipairs(options) do
    o.friendly, o.enemy, o.danger = 0, 0, 0
    for i, h in ipairs(o.hexes) do
      local v = lib.unit_at(ctx, h)
      if i < #o.hexes and v and v ~= u then
        if ctx:owner(v) == me then o.friendly = o.friendly + 1 else o.enemy = o.enemy + 1 end
      end
      local f = lib.feature_at(ctx, h)
      if f then o.danger = o.danger + ctx:get(f, "retire_dice") end
    end
  end
  return options, best
end

-- The unit retires `steps` hexes (2 per red alert). Returns hexes retired, figures lost and
-- whether it was eliminated.
function M.retire(ctx, u, steps)
  local owner = ctx:owner(u)
  local options, best = retire_paths(ctx, u, steps)
  local lost, gone = 0, false
  local moved = 0
  if best > 0 then
    local choice = ctx:decide(owner, "unit_combat.retire_path", options)
    local symbol = ctx:get(u, "symbol")
    for i, h in ipairs(choice.hexes) do
      local v = lib.unit_at(ctx, h)
      local n, roller, why = 0, owner, nil
      if i < #choice.hexes and v and v ~= u then
        if ctx:owner(v) == owner then n, why = 1, "through a friendly unit" else n, roller, why = 2, ctx:owner(v), "through an enemy unit" end
      end
      local f = lib.feature_at(ctx, h)
      local fd = f and ctx:get(f, "retire_dice") or 0
      for _, r in ipairs { { n, roller, why }, { fd, owner, f and ("onto " .. ctx:type(f)) } } do
        if r[1] > 0 and not gone then
          local pool = ctx:roll(r[2], "battle", r[1],
            { purpose = "retire", unit = u, by_face = true, faces = lib.SYMBOL_FACES[symbol] })
          local hits = pool:count(symbol)
          if ctx:tracing() then
            ctx:event("retire_roll:" .. name(ctx, u) .. ":" .. r[1] .. ":" .. hits,
              name(ctx, r[2]) .. " rolls " .. r[1] .. " die/dice as " .. name(ctx, u) .. " retires " .. r[3] .. ": " .. hits .. " hit(s)")
          end
          local l, g = M.take_hits(ctx, u, hits, nil, r[2])
          lost, gone = lost + l, g
        end
      end
      if gone then break end
      moved = i
    end
    if not gone then
      lib.put(ctx, u, choice.hexes[#choice.hexes])
      if ctx:tracing() then
        ctx:event("retire:" .. name(ctx, u) .. ":" .. moved .. ":" .. choice.id,
          name(ctx, u) .. " retires " .. moved .. " hex(es) (" .. choice.id .. ") to " .. lib.hex_text(ctx, ctx:hex(u)))
      end
    end
  end
  local short = steps - best
  if short > 0 and not gone then
    if ctx:tracing() then
      ctx:event("retire_blocked:" .. name(ctx, u) .. ":" .. short, name(ctx, u) .. " cannot retire " .. short .. " hex(es): " .. short .. " hit(s)")
    end
    local l, g = M.take_hits(ctx, u, short, nil, owner)
    lost, gone = lost + l, g
  end
  return moved, lost, gone
end

local function can_disregard(ctx, u)
  if lib.feature_flag(ctx, u, "no_disregard") then return false end
  if ctx:get(u, "flagship") then return true end
  for _, h in ipairs(ctx:hex_neighbours(ctx:hex(u), true)) do
    local v = lib.unit_at(ctx, h)
    if v and ctx:owner(v) == ctx:owner(u) and ctx:get(v, "flagship") then return true end
  end
  return false
end

-- Step 9. Returns hexes retired, figures lost, eliminated, and whether the retire was
-- voluntary (red alerts taken with no hit).
local function red_alerts(ctx, t, alerts, scored)
  if alerts <= 0 then return 0, 0, false, false end
  local owner = ctx:owner(t)
  local voluntary = false
  if scored == 0 then
    local o = ctx:decide(owner, "unit_combat.voluntary_retire",
      { { id = "stay", alerts = alerts }, { id = "retire", alerts = alerts } })
    if o.id ~= "retire" then
      if ctx:tracing() then
        ctx:event("red_alert:" .. name(ctx, t) .. ":no_hits", name(ctx, t) .. ": " .. alerts .. " red alert(s) and no hit: it stays")
      end
      return 0, 0, false
    end
    voluntary = true
  elseif alerts == 1 then
    local options = { { id = "retire", stars = ctx:counter(owner, "stars") } }
    if can_disregard(ctx, t) then options[#options + 1] = { id = "disregard" } end
    if ctx:get(t, "engineering") and ctx:counter(owner, "stars") >= 2 then options[#options + 1] = { id = "repair" } end
    local o = #options > 1 and ctx:decide(owner, "unit_combat.red_alert", options) or options[1]
    if o.id == "disregard" then
      if ctx:tracing() then
        ctx:event("red_alert:" .. name(ctx, t) .. ":disregard", name(ctx, t) .. " disregards the red alert")
      end
      return 0, 0, false
    elseif o.id == "repair" then
      pay(ctx, owner, 2, "repair", "engineering repairs the red alert on " .. name(ctx, t))
      if ctx:tracing() then
        ctx:event("red_alert:" .. name(ctx, t) .. ":repair", name(ctx, t) .. ": engineering repairs the red alert")
      end
      return 0, 0, false
    end
  end
  if ctx:tracing() then
    ctx:event("red_alert:" .. name(ctx, t) .. ":retire:" .. alerts, name(ctx, t) .. " must retire " .. 2 * alerts .. " hexes (" .. alerts .. " red alert(s)" .. (voluntary and ", taken voluntarily" or "") .. ")")
  end
  local moved, lost, gone = M.retire(ctx, t, 2 * alerts)
  if not gone and alerts >= 2 and (not voluntary or lib.setting(ctx, "voluntary_marker")) and not ctx:get(t, "marker") then
    ctx:set(t, "marker", true)
    if ctx:tracing() then
      ctx:event("marker:" .. name(ctx, t), name(ctx, t) .. " gets a red alert marker")
    end
  end
  return moved, lost, gone, voluntary
end

-- ----------------------------------------------------------------- the combat

local function new_result()
  return { combat = false, hits = 0, lost = 0, eliminated = false, retired = 0, stars = 0,
    attacker_lost = 0, battle_back = false, pursuit = false, bonus = false }
end

-- A unit combat's steps 1 to 5 (announce to the dice adjustments) of `u` against `t`. opts as
-- for M.unit_combat. Returns the result when the combat ends there (it did not happen), else nil
-- and the args of its windows (args.dice: the battle dice to roll; M.roll).
function M.announce(ctx, u, t, opts)
  local res = new_result()
  local ap, tp = ctx:owner(u), ctx:owner(t)

  -- 1. Announce unit combat: one target; a unit combats once per turn.
  if not opts.battle_back and not opts.bonus then
    if ctx:flag(u, "combatted") then
      if ctx:tracing() then
        ctx:event("no_combat:" .. name(ctx, u) .. ":already", name(ctx, u) .. " has already combatted this turn")
      end
      return res
    end
  end
  -- 2-4. Range (close quarters when adjacent), line of sight, dice reductions.
  -- (opts.checked: the target option lib.targets made for t, in this same state)
  local why, dice, ranged, distance
  if opts.checked then
    dice, distance = opts.checked.dice, opts.checked.distance
    ranged = distance > 1
  else
    why, dice, ranged, distance = lib.check(ctx, u, t)
  end
  if why then
    if ctx:tracing() then
      ctx:event("no_combat:" .. name(ctx, u) .. ":" .. name(ctx, t), name(ctx, u) .. " cannot combat " .. name(ctx, t) .. ": " .. why)
    end
    return res
  end
  local kind = opts.battle_back and "battle_back" or (opts.bonus and "bonus" or "combat")
  if ctx:tracing() then
    ctx:event("announce:" .. kind .. ":" .. name(ctx, u) .. ":" .. name(ctx, t),
      name(ctx, u) .. (opts.battle_back and " battles back against " or " combats ") .. name(ctx, t) ..
      (ranged and (" (ranged, " .. distance .. " hexes)") or " (close quarters)"))
  end
  local args = { attacker = u, target = t, player = ap, opponent = tp, ranged = ranged, distance = distance,
    battle_back = opts.battle_back == true, bonus = opts.bonus == true, dice = dice }
  ctx:open("unit_combat.announce", args)
  if ctx:tracing() then
    ctx:event("dice_after_reductions:" .. dice, "battle dice after range and reductions: " .. dice)
  end

  -- 5. Command and combat card adjustments.
  args.dice = dice
  ctx:open("unit_combat.dice_adjustments", args)
  dice = math.max(0, math.tointeger(args.dice) or 0)
  -- No battle dice left after the reductions and the cards: there is nothing to roll, so no
  -- combat takes place (the unit has not combatted, and there is no battle back).
  if dice == 0 then
    if ctx:tracing() then
      ctx:event("no_combat:" .. name(ctx, u) .. ":" .. name(ctx, t) .. ":no_dice",
        name(ctx, u) .. " cannot combat " .. name(ctx, t) .. ": no battle dice left after the reductions and cards")
    end
    ctx:end_scope("combat")
    return res
  end
  if not opts.battle_back then ctx:set_flag(u, "combatted", "turn") end
  args.dice = dice
  return nil, args
end

-- Step 6 of a unit combat M.announce announced (`args` as it returned them, or made again from
-- them in a later step): the roll. Returns the roll: { dice (rolled), scored (the target's
-- symbol and blasts not ignored), alerts, stars } (what steps 7 to 11 read of it; M.resolve).
function M.roll(ctx, args)
  local u, t, ap, dice = args.attacker, args.target, args.player, args.dice
  -- 6. Resolve battle.
  if ctx:tracing() then
    ctx:event("roll:" .. name(ctx, u) .. ":" .. dice, name(ctx, u) .. " rolls " .. dice .. " battle dice")
  end
  -- (steps 7 to 11 read only how many dice show the faces lib.COMBAT_FACES lists: the roll is
  -- drawn as their counts)
  local faces = lib.COMBAT_FACES[ctx:get(t, "symbol")]
  faces = faces and faces[lib.ignored_blasts(ctx, u, t) > 0 and 1 or 0]
  local pool = ctx:roll(ap, "battle", dice, { purpose = "combat", unit = u, by_face = true, faces = faces })
  args.pool = pool
  ctx:open("unit_combat.after_roll", args)
  -- what steps 7 to 11 read of the roll: the target's class symbol, and blasts less the ones it
  -- ignores; red alerts; stars (read after the window, which may change them: a die of a class
  -- then read apart shows its face)
  return { dice = dice, scored = lib.count_scored(pool, ctx:get(t, "symbol"), lib.ignored_blasts(ctx, u, t)),
    alerts = pool:count("red_alert"), stars = pool:count("star") }
end

-- A unit combat's steps 1 to 6 (M.announce, then M.roll). Returns the result when the combat
-- ends before the roll, else nil and the roll.
function M.attack(ctx, u, t, opts)
  local res, args = M.announce(ctx, u, t, opts)
  if res then return res end
  return nil, M.roll(ctx, args)
end

-- Steps 7 to 11 of the unit combat of `u` against `t` whose roll M.attack made (in this same
-- state). Returns the result table of M.unit_combat.
function M.resolve(ctx, u, t, opts, roll)
  local res = new_result()
  res.combat = true
  local ap, tp = ctx:owner(u), ctx:owner(t)
  local distance = opts.checked and opts.checked.distance or ctx:hex_distance(u, t)
  local ranged = distance > 1
  local args = { attacker = u, target = t, player = ap, opponent = tp, ranged = ranged, distance = distance,
    battle_back = opts.battle_back == true, bonus = opts.bonus == true, dice = roll.dice }

  -- 7. Score hits: the target's class symbol, and blasts less the ones it ignores.
  local scored, alerts = roll.scored, roll.alerts
  if scored > 0 and alerts > 0 and ctx:get(t, "marker") then
    if ctx:tracing() then
      ctx:event("marker_hits:" .. name(ctx, t) .. ":" .. alerts, name(ctx, t) .. " has a red alert marker: " .. alerts .. " red alert(s) count as hits")
    end
    scored, alerts = scored + alerts, 0
  end
  res.hits = scored
  if ctx:tracing() then
    ctx:event("hits:" .. name(ctx, t) .. ":" .. scored, name(ctx, u) .. " scores " .. scored .. " hit(s) on " .. name(ctx, t))
  end
  local hex_before = ctx:hex(t)
  res.lost, res.eliminated = M.take_hits(ctx, t, scored, u, ap)
  args.hits, args.lost, args.eliminated = scored, res.lost, res.eliminated
  ctx:open("unit_combat.after_hits", args)

  -- 8. Collect star tokens (a battle back's stars only when the setting says so).
  if not opts.battle_back or lib.setting(ctx, "battle_back_stars") then
    res.stars = gain_stars(ctx, ap, roll.stars, "stars rolled against " .. name(ctx, t))
  end

  -- 9. Red alerts.
  local voluntary = false
  if not res.eliminated then
    local moved, lost, gone
    moved, lost, gone, voluntary = red_alerts(ctx, t, alerts, scored)
    res.retired, res.lost, res.eliminated = moved, res.lost + lost, gone
  end
  local vacated = res.eliminated or res.retired > 0
  -- 11, a result that destroys the defender or makes it retire: not a voluntary retire
  local successful = vacated and not voluntary
  if res.eliminated then res.retired = 0 end

  -- 10. Battle back: 2 stars, a survivor that did not retire; not after a ranged attack when
  -- it is adjacent to another enemy unit; never after a battle back; not when the defender
  -- would have no battle dice after the reductions.
  if not opts.battle_back and not vacated and lib.alive(ctx, t) and lib.alive(ctx, u)
      and ctx:counter(tp, "stars") >= 2 then
    local other, adjacent = false, nil
    if ranged then
      local near = lib.adjacent_enemies(ctx, t)
      for _, v in ipairs(near) do if v ~= u then other = true end end
      adjacent = #near > 0
    end
    local why_not, back_dice = lib.check(ctx, t, u, adjacent)
    if not other and not why_not and back_dice > 0 then
      if ctx:decide(tp, "unit_combat.battle_back", { { id = "yes" }, { id = "no" } }).id == "yes" then
        pay(ctx, tp, 2, "battle_back", name(ctx, t) .. " battles back")
        res.battle_back = true
        -- (opts.defer_battle_back: the caller runs the battle back, then M.end_combat; step 11
        -- needs a vacated hex, so nothing else is left of this combat. res.back_checked: the
        -- battle back's checks, made here in this same state but for the stars paid)
        if opts.defer_battle_back then
          res.deferred = args
          res.back_checked = { dice = back_dice, distance = distance }
          return res
        end
        local b = M.unit_combat(ctx, t, u, { battle_back = true })
        res.attacker_lost = b.lost
      end
    end
  end

  -- 11. Pursuit move and bonus combat: 2 stars, after a successful close quarters combat of
  -- an ordered unit (the target eliminated or forced to retire: not a voluntary retire); once
  -- per turn; not after First Strike or Ambush, nor from a feature that stopped it, nor with a
  -- red alert marker (a unit with one may not move).
  if not opts.battle_back and not ranged and successful and lib.alive(ctx, u)
      and (ctx:get(u, "pursuit") or ctx:flag(u, "may_pursue"))
      and not ctx:flag(u, "pursued") and not ctx:flag(u, "no_pursuit") and not ctx:flag(u, "stopped")
      and not ctx:get(u, "marker")
      and ctx:counter(ap, "stars") >= 2 and lib.unit_at(ctx, hex_before) == nil then
    if ctx:decide(ap, "unit_combat.pursuit", { { id = "yes" }, { id = "no" } }).id == "yes" then
      pay(ctx, ap, 2, "pursuit", name(ctx, u) .. " pursues")
      ctx:set_flag(u, "pursued", "turn")
      lib.put(ctx, u, hex_before)
      res.pursuit = true
      if ctx:tracing() then
        ctx:event("pursuit:" .. name(ctx, u), name(ctx, u) .. " pursuit moves onto " .. lib.hex_text(ctx, hex_before))
      end
      local f = lib.feature_at(ctx, hex_before)
      if f and ctx:get(f, "no_combat_on_entry") and ctx:get(u, "class") ~= "fighter" then
        if ctx:tracing() then
          ctx:event("no_bonus:" .. name(ctx, u), name(ctx, u) .. " entered " .. ctx:type(f) .. ": no bonus combat")
        end
      else
        local targets = lib.targets(ctx, u)
        if #targets > 0 then
          targets[#targets + 1] = { id = "no_combat" }
          local o = ctx:decide(ap, "unit_combat.bonus_target", targets)
          if o.id ~= "no_combat" then
            res.bonus = true
            local b = M.unit_combat(ctx, u, o.entity, { bonus = true, checked = o })
            res.bonus_result = b
          end
        end
      end
    end
  end
  return M.end_combat(ctx, args, res)
end

-- The end of a unit combat (after its steps 9 to 11): the end_of_combat window with its result.
function M.end_combat(ctx, args, res)
  args.result = res
  ctx:open("unit_combat.end_of_combat", args)
  ctx:end_scope("combat")
  return res
end

-- One unit combat of `u` against `t`. opts: battle_back (this is a battle back), bonus (a
-- bonus combat), checked (t's option from lib.targets, in this same state, or its dice and
-- distance: its checks are not made again). Returns a result table: combat (it happened), hits, lost (target figures),
-- eliminated, retired (hexes), stars, attacker_lost, battle_back, pursuit.
function M.unit_combat(ctx, u, t, opts)
  opts = opts or {}
  local res, roll = M.attack(ctx, u, t, opts)
  if res then return res end
  return M.resolve(ctx, u, t, opts, roll)
end

-- The unit_combat.target decision of an ordered unit (alive) with no target given: the chosen
-- option (entity, dice, ranged, distance: its checks made), or nil for no combat.
function M.choose_target(ctx, u)
  local options = lib.targets(ctx, u)
  if #options == 0 then
    if ctx:tracing() then
      ctx:event("no_target:" .. name(ctx, u), name(ctx, u) .. " has no target in range and sight")
    end
    return nil
  end
  options[#options + 1] = { id = "no_combat" }
  local o = ctx:decide(ctx:owner(u), "unit_combat.target", options)
  if o.id == "no_combat" then return nil end
  return o
end

-- An ordered unit's combat: its target from the scenario, else the unit_combat.target decision.
function M.order(ctx, u, target)
  if not lib.alive(ctx, u) then return nil end
  if target == nil then
    local o = M.choose_target(ctx, u)
    return o and M.unit_combat(ctx, u, o.entity, { checked = o })
  end
  return M.unit_combat(ctx, u, target, {})
end

return M
