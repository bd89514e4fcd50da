#!/usr/bin/env node
// Times alpha-mouse/ti4calc's exact calculator (probability propagation over unit counts) on the
// base-unit space combats of `rulebench bench` (a) (b) (c), in-process, one thread, and prints its
// ms per answer and P(win)/P(draw)/P(loss) for the attacker. Its code is loaded from a checkout
// named on the command line; nothing of it is copied here. See README.md next to this file.
//
//   node tools/anchors/alpha_mouse_exact.js CHECKOUT [--seconds S | --runs N] [--json] [a b c]
// --runs N: exactly N answers per case and no warm-up (for instruction counts under callgrind:
// the difference between two values of N is the cost of that many answers)
'use strict';
const path = require('path');

function usage(message) {
  if (message) console.error('alpha_mouse_exact: ' + message);
  console.error('usage: node alpha_mouse_exact.js CHECKOUT [--seconds S | --runs N] [--json] [a] [b] [c]\n' +
                '  CHECKOUT: a checkout of alpha-mouse/ti4calc (the folder holding calculator.js)');
  process.exit(2);
}

// The same fleets as content/ti4-base/scenarios/bench_{a,b,c}.toml, in its unit names.
const CASES = {
  a: { description: '3 destroyers vs 2 cruisers', attacker: { Destroyer: 3 },
       defender: { Cruiser: 2 } },
  b: { description: '2 dreadnoughts, carrier, 4 fighters vs 3 cruisers, 2 destroyers, carrier, 3 fighters',
       attacker: { Dreadnought: 2, Carrier: 1, Fighter: 4 },
       defender: { Cruiser: 3, Destroyer: 2, Carrier: 1, Fighter: 3 } },
  c: { description: '2 war suns, 4 dreadnoughts, 8 fighters vs 6 dreadnoughts, 4 cruisers, 10 fighters',
       attacker: { WarSun: 2, Dreadnought: 4, Fighter: 8 },
       defender: { Dreadnought: 6, Cruiser: 4, Fighter: 10 } },
};

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--help') usage();
const checkout = path.resolve(args.shift());
let seconds = 1;
let runsWanted = 0;
let json = false;
const names = [];
while (args.length) {
  const arg = args.shift();
  if (arg === '--seconds') {
    seconds = Number(args.shift());
    if (!(seconds > 0)) usage('--seconds needs a positive number');
  } else if (arg === '--runs') {
    runsWanted = Number(args.shift());
    if (!(Number.isInteger(runsWanted) && runsWanted > 0)) usage('--runs needs a positive integer');
  } else if (arg === '--json') {
    json = true;
  } else if (CASES[arg]) {
    names.push(arg);
  } else {
    usage('unknown case "' + arg + '" (known: ' + Object.keys(CASES).join(' ') + ')');
  }
}
if (names.length === 0) names.push('a', 'b', 'c');

let game, calculator;
try {
  game = require(path.join(checkout, 'game-elements.js'));
  calculator = require(path.join(checkout, 'calculator.js')).calculator;
} catch (e) {
  usage('cannot load its calculator from ' + checkout + ': ' + e.message);
}

// The page's default options (its index.js getDefaultInput): every technology, card, agenda and
// note off, Risk Direct Hit on, race Arborec (no base unit of it differs in space).
function sideOptions() {
  const options = { race: game.Race.Arborec, riskDirectHit: true };
  for (const group of [game.Technologies, game.ActionCards, game.Agendas, game.Promissory])
    for (const key in group || {}) options[key] = false;
  options.riskDirectHit = true;
  return options;
}

function units(fleet) {
  const result = {};
  for (const type in game.UnitType) result[type] = { count: fleet[type] || 0, upgraded: false, damaged: 0 };
  return result;
}

function input(c) {
  return {
    battleType: game.BattleType.Space,
    attackerUnits: units(c.attacker),
    defenderUnits: units(c.defender),
    options: { attacker: sideOptions(), defender: sideOptions() },
  };
}

// Its distribution: index -k is "the attacker keeps k units", +k "the defender keeps k", 0 a draw.
function odds(distribution) {
  let win = 0, loss = 0;
  for (let i = distribution.min; i < 0; i++) win += distribution.at(i);
  for (let i = 1; i <= distribution.max; i++) loss += distribution.at(i);
  return { win, draw: distribution.at(0), loss };
}

const results = [];
for (const name of names) {
  const battle = input(CASES[name]);
  const answer = odds(calculator.computeProbabilities(battle).distribution);
  let runs = 0;
  let start, now;
  if (runsWanted > 0) {
    start = process.hrtime.bigint();
    for (; runs < runsWanted; runs++) calculator.computeProbabilities(battle);
    now = process.hrtime.bigint();
  } else {
    // warm up (the JIT) for a fifth of the time, then time whole answers until the time is spent
    const warmEnd = process.hrtime.bigint() + BigInt(Math.round(seconds * 0.2e9));
    while (process.hrtime.bigint() < warmEnd) calculator.computeProbabilities(battle);
    start = now = process.hrtime.bigint();
    const end = start + BigInt(Math.round(seconds * 1e9));
    while (now < end) {
      for (let i = 0; i < 10; i++) calculator.computeProbabilities(battle);
      runs += 10;
      now = process.hrtime.bigint();
    }
  }
  const ms = Number(now - start) / 1e6 / runs;
  results.push({ name, description: CASES[name].description, ms, runs, ...answer });
}

if (json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  for (const r of results)
    console.log(`(${r.name}) ${r.description}\n    ${r.ms.toFixed(4)} ms per answer (${r.runs} answers)` +
                `\n    win ${r.win}  draw ${r.draw}  loss ${r.loss}`);
}
