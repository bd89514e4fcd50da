-- The X-Wing attack (shared/rules/xwing-attack.md), step by step, shared by the attack and
-- engagement procedures. Ships, weapons and upgrades are entities; tokens are counters on the
-- ship (focus, calculate, evade, stress; "lock:<ship id>" for a lock on that ship); shields,
-- charges, damage and crit_damage are attributes. Range, arcs and obstruction from a ship to
-- another are counters and flags on the first ("range:<id>", "arc:<arc>:<id>",
-- "obstructed:<id>"), set by the scenario. Nothing here keeps state between calls.
local M = {}

-- Which arcs of the attacker contain the defender, given the arc the scenario names.
M.ARCS = {
  bullseye = { "bullseye", "front", "full_front" },
  front = { "front", "full_front" },
  full_front = { "full_front" },
  rear = { "rear", "full_rear" },
  full_rear = { "full_rear" },
  none = {},
}

function M.lock_key(target) return "lock:" .. target end
function M.range_key(target) return "range:" .. target end

function M.measure(ctx, from, to, range, arc, obstructed)
  ctx:set_counter(from, M.range_key(to), range)
  for _, a in ipairs(M.ARCS[arc]) do ctx:set_flag(from, "arc:" .. a .. ":" .. to) end
  if obstructed then ctx:set_flag(from, "obstructed:" .. to) end
end

function M.destroyed(ctx, ship)
  return ctx:get(ship, "damage") >= ctx:get(ship, "hull")
end

-- ----------------------------------------------------------------- choose weapon, pay costs

-- Why `weapon` cannot attack `defender` now, or nil when it can.
local function invalid(ctx, attacker, weapon, defender)
  local range = ctx:counter(attacker, M.range_key(defender))
  if range < ctx:get(weapon, "min_range") or range > ctx:get(weapon, "max_range") then return "range" end
  local arc = ctx:get(weapon, "arc") or "front"
  if arc ~= "turret" and not ctx:flag(attacker, "arc:" .. arc .. ":" .. defender) then return "arc" end
  local requires = ctx:get(weapon, "requires")
  if requires == "lock" and ctx:counter(attacker, M.lock_key(defender)) < 1 then return "requires_lock" end
  if requires == "focus" and ctx:counter(attacker, "focus") < 1 then return "requires_focus" end
  local cost = ctx:get(weapon, "cost")
  if cost == "charge" and ctx:get(weapon, "charges") < 1 then return "cost_charge" end
  if cost == "lock" and ctx:counter(attacker, M.lock_key(defender)) < 1 then return "cost_lock" end
  if cost == "focus" and ctx:counter(attacker, "focus") < 1 then return "cost_focus" end
  return nil
end

-- The attack dice a weapon rolls before abilities: attack value, +1 at range 1 (primary).
local function base_dice(ctx, attacker, weapon, defender)
  local n = ctx:get(weapon, "attack")
  if ctx:get(weapon, "primary") and ctx:counter(attacker, M.range_key(defender)) == 1 then n = n + 1 end
  return n
end

-- The valid weapons against `defender` as decision options ({id=, dice=, entity=}); the
-- invalid ones are traced with the reason.
function M.weapon_options(ctx, attacker, defender)
  local options = {}
  for _, w in ipairs(ctx:entities { kind = "weapon", location = attacker }) do
    local why = invalid(ctx, attacker, w, defender)
    if why then
      if ctx:tracing() then ctx:event("weapon:" .. ctx:name(w) .. ":invalid:" .. why, ctx:name(w) .. " cannot attack " .. ctx:name(defender) .. ": " .. why) end
    else
      options[#options + 1] = { id = ctx:name(w), dice = base_dice(ctx, attacker, w, defender), entity = w }
    end
  end
  return options
end

local function pay_costs(ctx, attacker, weapon, defender)
  local cost = ctx:get(weapon, "cost")
  if cost == "charge" then
    ctx:set(weapon, "charges", ctx:get(weapon, "charges") - 1)
  elseif cost == "lock" then
    ctx:set_counter(attacker, M.lock_key(defender), 0)
  elseif cost == "focus" then
    ctx:add_counter(attacker, "focus", -1)
  end
  if cost and cost ~= "none" and ctx:tracing() then ctx:event("cost:" .. ctx:name(attacker) .. ":" .. cost, ctx:name(attacker) .. " spends 1 " .. cost .. " for " .. ctx:name(weapon)) end
end

-- ----------------------------------------------------------------- dice

-- Rolls n dice. With a dice shortage (the player has `dice_available` dice), the dice are
-- rolled in batches; dice of a later batch are new dice, not rerolled ones.
local function roll(ctx, player, ship, die, n)
  if n < 0 then n = 0 end
  local available = ctx:counter(player, "dice_available")
  local first = n
  if available > 0 and available < n then first = available end
  local pool = ctx:roll(player, die, first, { purpose = die, unit = ship, reroll_limit = 1 })
  local left = n - first
  while left > 0 do
    local k = math.min(left, available)
    if ctx:tracing() then ctx:event("dice_shortage:" .. ctx:name(player) .. ":" .. die .. ":" .. k, ctx:name(player) .. " has only " .. available .. " " .. die .. " dice: rolls " .. k .. " more") end
    pool:add(k)
    left = left - k
  end
  return pool
end

-- Dice showing one of two faces that may still be rerolled.
local function rerollable(pool, a, b)
  local n = 0
  for i = 1, #pool do
    if not pool:cancelled(i) and pool:rerolls(i) == 0 then
      local f = pool:face(i)
      if f == a or f == b then n = n + 1 end
    end
  end
  return n
end

local function change_all(pool, from, to)
  for i = 1, #pool do
    if not pool:cancelled(i) and pool:face(i) == from then pool:set(i, to) end
  end
end

local function change_one(pool, from, to)
  for i = 1, #pool do
    if not pool:cancelled(i) and pool:face(i) == from then
      pool:set(i, to)
      return true
    end
  end
  return false
end

local function ask(ctx, player, decision, facts, answers)
  local options = {}
  for i, id in ipairs(answers) do
    local o = { id = id }
    if i == 1 then for k, v in pairs(facts) do o[k] = v end end
    options[i] = o
  end
  return ctx:decide(player, decision, options).id
end

-- The attacker's token spending, after its abilities: lock reroll first (so that the focus
-- token can still turn rerolled focus results), then focus, then calculate.
local function attacker_lock(ctx, ap, attacker, defender, pool)
  local key = M.lock_key(defender)
  if ctx:counter(attacker, key) < 1 then return end
  local blanks, focus = rerollable(pool, "blank"), rerollable(pool, "focus")
  if blanks + focus == 0 then return end
  local choice = ask(ctx, ap, "attack.reroll_with_lock",
    { side = "attacker", blanks = blanks, focus_results = focus, focus_tokens = ctx:counter(attacker, "focus") },
    { "blanks_and_focus", "blanks", "no" })
  if choice == "no" or (choice == "blanks" and blanks == 0) then return end
  ctx:set_counter(attacker, key, 0)
  for i = 1, #pool do
    if not pool:cancelled(i) and pool:rerolls(i) == 0 then
      local f = pool:face(i)
      if f == "blank" or (f == "focus" and choice == "blanks_and_focus") then pool:reroll(i) end
    end
  end
end

local function spend_focus(ctx, player, ship, pool, result, facts)
  local focus = pool:count("focus")
  if focus > 0 and ctx:counter(ship, "focus") > 0 then
    facts.focus_results = focus
    if ask(ctx, player, "attack.spend_focus", facts, { "yes", "no" }) == "yes" then
      ctx:add_counter(ship, "focus", -1)
      change_all(pool, "focus", result)
    end
  end
  while pool:count("focus") > 0 and ctx:counter(ship, "calculate") > 0 do
    facts.focus_results = pool:count("focus")
    if ask(ctx, player, "attack.spend_calculate", facts, { "yes", "no" }) ~= "yes" then break end
    ctx:add_counter(ship, "calculate", -1)
    change_one(pool, "focus", result)
  end
end

-- Uncancelled hit and crit results the evades do not yet cancel.
local function need(ad, dd)
  return ad:count("hit") + ad:count("crit") - dd:count("evade")
end

local function defender_tokens(ctx, dp, defender, ad, dd)
  if need(ad, dd) > 0 then
    spend_focus(ctx, dp, defender, dd, "evade", { side = "defender", need = need(ad, dd) })
  end
  while ctx:counter(defender, "evade") > 0 and dd:count("blank") + dd:count("focus") > 0 do
    if ask(ctx, dp, "attack.spend_evade", { side = "defender", need = need(ad, dd) }, { "yes", "no" }) ~= "yes" then break end
    ctx:add_counter(defender, "evade", -1)
    if not change_one(dd, "blank", "evade") then change_one(dd, "focus", "evade") end
  end
end

-- Neutralize: pairs of (evade, hit), then pairs of (evade, crit), cancel each other.
local function neutralize(ad, dd)
  for _, face in ipairs { "hit", "crit" } do
    local j = 1
    for i = 1, #ad do
      if not ad:cancelled(i) and ad:face(i) == face then
        while j <= #dd and (dd:cancelled(j) or dd:face(j) ~= "evade") do j = j + 1 end
        if j > #dd then return end
        ad:cancel(i)
        dd:cancel(j)
      end
    end
  end
end

-- Deal damage: 1 per uncancelled hit, then 1 critical per uncancelled crit; shields first.
-- Returns the damage suffered and the faceup (critical) damage cards dealt.
local function deal_damage(ctx, defender, hits, crits)
  local damage, faceup = 0, 0
  local tr = ctx:tracing()
  for k = 1, hits + crits do
    if M.destroyed(ctx, defender) then break end
    local crit = k > hits
    local what = crit and "crit" or "hit"
    damage = damage + 1
    local shields = ctx:get(defender, "shields")
    if shields > 0 then
      ctx:set(defender, "shields", shields - 1)
      if tr then ctx:event("damage:" .. ctx:name(defender) .. ":shields:" .. what, ctx:name(defender) .. " loses a shield (" .. what .. ")") end
    else
      ctx:set(defender, "damage", ctx:get(defender, "damage") + 1)
      if crit then
        faceup = faceup + 1
        ctx:set(defender, "crit_damage", ctx:get(defender, "crit_damage") + 1)
      end
      if tr then ctx:event("damage:" .. ctx:name(defender) .. ":hull:" .. what, ctx:name(defender) .. " is dealt a " .. (crit and "faceup" or "facedown") .. " damage card") end
    end
  end
  if M.destroyed(ctx, defender) and not ctx:flag(defender, "destroyed") then
    ctx:set_flag(defender, "destroyed")
    if tr then ctx:event("ship_destroyed:" .. ctx:name(defender), ctx:name(defender) .. " is destroyed (removed when its turn to be removed comes)") end
  end
  return damage, faceup
end

-- ----------------------------------------------------------------- the attack

-- One attack of `attacker` on `defender` (a ship; nil: declare a target among the enemy ships
-- the scenario measured). Returns {attacked=, hit=, damage=, crits=, defender=}.
function M.perform(ctx, attacker, defender, bonus)
  local tr = ctx:tracing()
  local ap = ctx:owner(attacker)
  local out = { attacked = false, hit = false, damage = 0, crits = 0 }
  ctx:set_role("active_player", ap)
  ctx:set_role("attacker", ap)
  ctx:set_role("attacking_ship", attacker)

  -- Declare Target: measure range, choose a weapon, declare the defender, pay costs.
  local weapon
  if defender == nil then
    local targets = {}
    for _, s in ipairs(ctx:entities { kind = "ship" }) do
      if ctx:owner(s) ~= ap and ctx:counter(attacker, M.range_key(s)) > 0 and #M.weapon_options(ctx, attacker, s) > 0 then
        targets[#targets + 1] = { id = ctx:name(s), entity = s, destroyed = ctx:flag(s, "destroyed"),
          left = ctx:get(s, "hull") - ctx:get(s, "damage") + ctx:get(s, "shields") }
      end
    end
    if #targets == 0 then
      if tr then ctx:event("attack:no_target:" .. ctx:name(attacker), ctx:name(attacker) .. " has no valid target") end
      return out
    end
    targets[#targets + 1] = { id = "no_attack" }
    local t = ctx:decide(ap, "attack.declare_target", targets)
    if t.id == "no_attack" then return out end
    defender = t.entity
  end
  local dp = ctx:owner(defender)
  out.defender = defender
  ctx:set_role("defender", dp)
  ctx:set_role("defending_ship", defender)
  local options = M.weapon_options(ctx, attacker, defender)
  if #options == 0 then
    if tr then ctx:event("attack:no_attack:" .. ctx:name(attacker), ctx:name(attacker) .. " has no weapon that can attack " .. ctx:name(defender)) end
    return out
  end
  options[#options + 1] = { id = "no_attack" }
  local choice = ctx:decide(ap, "attack.choose_weapon", options)
  if choice.id == "no_attack" then
    if tr then ctx:event("attack:no_attack:" .. ctx:name(attacker), ctx:name(attacker) .. " chooses not to attack") end
    return out
  end
  weapon = choice.entity
  pay_costs(ctx, attacker, weapon, defender)
  out.attacked = true
  local primary = ctx:get(weapon, "primary")
  local range = ctx:counter(attacker, M.range_key(defender))
  local args = { attacker = attacker, defender = defender, weapon = weapon, primary = primary, range = range, bonus = bonus == true }
  if tr then ctx:event("attack:declare_target:" .. ctx:name(attacker) .. ":" .. ctx:name(defender) .. ":" .. ctx:name(weapon) .. ":range" .. range,
      ctx:name(attacker) .. " attacks " .. ctx:name(defender) .. " with " .. ctx:name(weapon) .. " at range " .. range) end
  ctx:open("attack.declare_target", args)

  -- Attack Dice: roll, then modify (defender first, then attacker).
  args.count = base_dice(ctx, attacker, weapon, defender)
  ctx:open("attack.roll_attack_dice", args)
  if tr then ctx:event("attack_dice:" .. args.count, ctx:name(attacker) .. " rolls " .. args.count .. " attack dice") end
  local ad = roll(ctx, ap, attacker, "attack", args.count)
  args.attack_dice = ad
  ctx:open("attack.modify_attack_dice.defender", args)
  attacker_lock(ctx, ap, attacker, defender, ad)
  ctx:open("attack.modify_attack_dice.attacker", args)
  spend_focus(ctx, ap, attacker, ad, "hit", { side = "attacker" })
  ctx:open("attack.modify_attack_dice.attacker_after_tokens", args)

  -- Defense Dice: agility, +1 at range 3 (primary), +1 obstructed; modify (attacker first).
  local n = ctx:get(defender, "agility")
  if primary and range == 3 then n = n + 1 end
  if ctx:flag(attacker, "obstructed:" .. defender) then n = n + 1 end
  args.count = n
  ctx:open("attack.roll_defense_dice", args)
  if tr then ctx:event("defense_dice:" .. args.count, ctx:name(defender) .. " rolls " .. args.count .. " defense dice") end
  local dd = roll(ctx, dp, defender, "defense", args.count)
  args.defense_dice = dd
  ctx:open("attack.modify_defense_dice.attacker", args)
  ctx:open("attack.modify_defense_dice.defender", args)
  defender_tokens(ctx, dp, defender, ad, dd)

  -- Neutralize Results, then Deal Damage.
  ctx:open("attack.neutralize_results", args)
  neutralize(ad, dd)
  local hits, crits = ad:count("hit"), ad:count("crit")
  out.hit = hits + crits > 0
  if tr then ctx:event(out.hit and "attack:hit" or "attack:miss", "the attack " .. (out.hit and "hits" or "misses") .. " (" .. hits .. " hit, " .. crits .. " crit uncancelled)") end
  if out.hit then out.damage, out.crits = deal_damage(ctx, defender, hits, crits) end
  args.hit, args.damage, args.crits = out.hit, out.damage, out.crits
  ctx:open("attack.deal_damage", args)

  -- Aftermath, bonus attacks last.
  ctx:open("attack.aftermath.defender", args)
  ctx:open("attack.aftermath.attacker", args)
  ctx:open("attack.aftermath.defender_bonus_attack", args)
  ctx:open("attack.aftermath.attacker_bonus_attack", args)
  ctx:end_scope("attack")
  return out
end

-- An attack and the bonus attacks its aftermath grants (an ability grants one with
-- ctx:set_counter(ship, "bonus_attack", 1)); a ship performs at most one bonus attack a round.
-- Returns the first attack's result, with the damage and crits that the first defender
-- suffered in every attack summed.
function M.attack_with_bonus(ctx, attacker, defender)
  local first = M.perform(ctx, attacker, defender, false)
  local total = { attacked = first.attacked, hit = first.hit, damage = first.damage, crits = first.crits, defender = first.defender }
  for _, pair in ipairs { { first.defender, attacker }, { attacker, first.defender } } do
    local ship, target = pair[1], pair[2]
    if ship and ctx:counter(ship, "bonus_attack") > 0 then
      ctx:set_counter(ship, "bonus_attack", 0)
      if not ctx:flag(ship, "bonus_attack_done") then
        ctx:set_flag(ship, "bonus_attack_done", "round")
        if ctx:tracing() then ctx:event("bonus_attack:" .. ctx:name(ship), ctx:name(ship) .. " performs a bonus attack") end
        local b = M.perform(ctx, ship, ship == attacker and nil or target, true)
        if b.defender == first.defender then -- damage metrics are the first defender's
          total.damage = total.damage + b.damage
          total.crits = total.crits + b.crits
        end
      end
    end
  end
  return total
end

return M
