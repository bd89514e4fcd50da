// web/best.js: the Best play view (docs/page.md, "Best play"). Each side of the report plays its
// policy (the hit order, sustain and retreat settings above) unless ticked: a ticked side's
// decisions are chosen to do best against the other's policy, in the exact mode (POST
// /api/simulate with best, objective and decisions: `rulebench simulate --exact --best SIDE
// --objective O --decisions`); both ticked, the sides answer each other in turn (--best both).
// The view shows the best play's odds beside the policy's with the gain in points, and the table of
// the side's first decisions: for each number of hits taken, the best option, its value and its
// margin over the next. The page's link carries the ticks and the objective as the scenario's
// [play] (play.defender=best&play.objective=win): a link or a scenario with [play] ticks them and
// asks. It knows no game: the sides, outcomes, wins and means are the report's.
"use strict";

(function () {
  const rb = window.rb;
  const $ = (id) => document.getElementById(id);
  // an exploration's time bound (the server's cap is 120 s, for each of best play's two
  // explorations: the policy's, then the best play's)
  const BEST_SECONDS = 60;
  const state = { job: null, serial: 0, sent: null };

  const el = (...args) => rb.el(...args);  // app.js's element builder

  const words = (s) => s.replace(/_/g, " ");

  // The report of the procedure on the page (GET /api/rulesets' reports[procedure])
  function report() {
    const rs = rb.ruleset();
    return rs && rs.reports ? rs.reports[rb.getSetup().procedure] : null;
  }

  // ---------------------------------------------------------------- the choices

  // The objectives the report allows: win and not lose when it declares wins (and draws), each of
  // its means, to make most or least of, and each of its chances that is no side's win (taking a
  // planet in a tactical action), to make best or least.
  function objectives(def) {
    const out = [];
    const wins = Object.values((def && def.wins) || {});
    if (wins.length) {
      out.push({ value: "win", text: "to win" });
      if ((def.draws || []).length) out.push({ value: "not_lose", text: "not to lose (win or draw)" });
    }
    for (const { key } of (def && def.means) || []) {
      out.push({ value: `metric:${key}`, text: `the most ${words(key)} (expected)` });
      out.push({ value: `metric:-${key}`, text: `the least ${words(key)} (expected)` });
    }
    for (const { key } of (def && def.probabilities) || []) {
      if (wins.includes(key)) continue;
      out.push({ value: `metric:${key}`, text: `the best chance of ${words(key)}` });
      out.push({ value: `metric:-${key}`, text: `the least chance of ${words(key)}` });
    }
    return out;
  }

  function render() {
    const def = report();
    const box = $("best-sides");
    const ticked = new Set([...box.querySelectorAll("input:checked")].map((i) => i.value));
    box.replaceChildren();
    for (const side of (def && def.sides) || [])
      box.append(el("label", { class: "best-side" },
        el("input", { type: "checkbox", value: side, "data-side": side, checked: ticked.has(side), onchange: sidesChanged }),
        ` ${words(side)}: best response`));
    const sel = $("best-objective");
    const keep = sel.value;
    sel.replaceChildren();
    for (const o of objectives(def)) sel.append(el("option", { value: o.value, text: o.text }));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
    sidesChanged();
    if (state.sent) {
      const r = $("best-result");
      if (r.children.length && !r.classList.contains("stale")) {
        r.classList.add("stale");
        status("the battle changed since this answer: press Best play again");
      }
    }
  }

  // The side(s) best play is asked of: one side, "both", or "" (none ticked)
  function chosenSide() {
    const ticked = [...$("best-sides").querySelectorAll("input:checked")].map((i) => i.value);
    const sides = (report() || {}).sides || [];
    if (ticked.length === 0) return "";
    if (ticked.length === 1) return ticked[0];
    return sides.length === 2 ? "both" : null;
  }

  function sidesChanged() {
    const side = chosenSide();
    $("best-what").textContent = side === "both" ? "both sides: each answers the other in turn, until neither changes"
      : side === null ? "best play takes one side, or both of a two-sided report"
        : side ? `${words(side)} plays best against the other's policy` : "tick a side";
    $("best-run").disabled = !side || state.job !== null;
  }

  // ---------------------------------------------------------------- the answer

  function status(text) {
    $("best-status").textContent = text;
  }

  // A value of the objective: a chance in %, a metric as it is
  function value(v, metric) {
    return metric ? v.toFixed(4) : `${(100 * v).toFixed(2)}%`;
  }
  function gain(g, metric) {
    const sign = g > 0 ? "+" : g < 0 ? "\u2212" : "\u00b1";
    return metric ? `${sign}${Math.abs(g).toFixed(4)}` : `${sign}${Math.abs(100 * g).toFixed(2)} points`;
  }
  function gainClass(g) {
    return g > 1e-12 ? "gain up" : g < -1e-12 ? "gain down" : "gain";
  }

  // Whether objective `o` is the chance of one of the report's probabilities, made best (shown
  // as a chance, in %)
  function chanceObjective(o, def) {
    return o.startsWith("metric:") && !o.startsWith("metric:-") &&
      ((def && def.probabilities) || []).some(({ key, metric }) => o.slice(7) === key || o.slice(7) === metric);
  }

  function objectiveWords(o, def) {
    return o === "win" ? "to win" : o === "not_lose" ? "not to lose" : o.startsWith("metric:-") ? `for the least ${words(o.slice(8))}`
      : chanceObjective(o, def) ? `for the best chance of ${words(o.slice(7))}` : `for the most ${words(o.slice(7))}`;
  }

  // The outcomes (or, without outcomes, the probabilities and means) with the policy's value, the
  // best play's and the gain.
  // The rows the objective counts (a side's win, the draws, the metric): shown in bold
  function objectiveKeys(b, def) {
    if (b.objective.startsWith("metric:")) return [b.objective.replace(/^metric:-?/, "")];
    const sides = b.side === "both" ? def.sides || [] : [b.side];
    const keys = sides.map((s) => (def.wins || {})[s]).filter(Boolean);
    return b.objective === "not_lose" ? keys.concat(def.draws || []) : keys;
  }

  function oddsTable(result, def) {
    const rows = [];
    for (const o of def.outcomes || [])
      if (!((def.only_when_any || []).includes(o) && !(result[o] > 0) && !(result.policy[o] > 0))) rows.push({ key: o, metric: false });
    for (const { key } of def.probabilities || [])
      if (!((def.only_when_any || []).includes(key) && !(result[key] > 0))) rows.push({ key, metric: false });
    for (const { key } of def.means || []) if (typeof result[key] === "number") rows.push({ key, metric: true });
    const t = el("table", { class: "diff best-odds", id: "best-odds" },
      el("tr", {}, el("th", { text: "" }), el("th", { text: "the policy" }), el("th", { text: "best play" }), el("th", { text: "gain" })));
    // a gain is coloured only where the objective counts it: elsewhere more is not always better
    const counted = objectiveKeys(result.best, def);
    for (const { key, metric } of rows) {
      const p = result.policy[key], b = result[key];
      if (typeof p !== "number" || typeof b !== "number") continue;
      const mine = counted.includes(key);
      t.append(el("tr", { "data-key": key, class: mine ? "objective" : null }, el("td", { text: words(key) }),
        el("td", { class: "num", text: value(p, metric) }),
        el("td", { class: "num", "data-best": key, text: value(b, metric) }),
        el("td", { class: mine ? `num ${gainClass(b - p)}` : "num", text: gain(b - p, metric) })));
    }
    return t;
  }

  // "1 hit (25.6%)": best "lose 1 carrier" (or an equal one), its value, the margin over the next
  function decisionsTable(rows, who, metric) {
    if (!rows.length)
      return el("p", { class: "muted", id: "best-decisions", text: `${who} has no first decision with two options or more.` });
    const t = el("table", { class: "diff best-decisions", id: "best-decisions" },
      el("tr", {}, el("th", { text: "hits taken (how often)" }), el("th", { text: "best choice" }),
        el("th", { text: "its value" }), el("th", { text: "margin" }), el("th", { text: "next best" })));
    for (const row of rows) {
      const opts = row.options;
      const top = opts[0].value;
      const same = opts.filter((o) => Math.abs(o.value - top) <= 1e-9);
      const next = opts.find((o) => Math.abs(o.value - top) > 1e-9);
      const ties = same.length > 1 ? ` (or ${same.slice(1, 3).map((o) => o.option).join(", or ")}${same.length > 3 ? `, or ${same.length - 3} more` : ""}: the same)` : "";
      t.append(el("tr", { "data-hits": String(row.hits) },
        el("td", { text: `${row.hits} hit${row.hits === 1 ? "" : "s"} (${row.p < 0.0005 ? "under 0.1" : (100 * row.p).toFixed(1)}%)` }),
        el("td", {}, el("b", { text: same[0].option }), ties),
        el("td", { class: "num", text: value(top, metric) }),
        el("td", { class: `num ${gainClass(row.margin)}`, "data-margin": String(row.margin), text: gain(row.margin, metric) }),
        el("td", { class: "muted", text: next ? `${next.option} ${value(next.value, metric)}` : "" })));
    }
    return t;
  }

  function draw(result) {
    const def = report() || {};
    const b = result.best;
    const metric = b.objective.startsWith("metric:") && !chanceObjective(b.objective, def);
    const goal = objectiveWords(b.objective, def);
    const box = $("best-result");
    box.classList.remove("stale");
    box.replaceChildren();
    if (b.side !== "both") {
      box.append(el("p", { id: "best-head", "data-gain-points": String(b.gain_points), "data-gain": String(b.gain) },
        `${words(b.side)}'s best play (${goal}): `, el("b", { class: "num", text: value(b.best, metric) }),
        ` against the policy's ${value(b.policy, metric)}: `,
        el("b", { class: `num ${gainClass(b.gain)}`, id: "best-gain", text: gain(b.gain, metric) })));
    } else {
      box.append(el("p", { id: "best-head", "data-gain-points": String(b.gain_points), "data-gain": String(b.gain) },
        `both sides' best responses in turn (${goal}): ${b.rounds_settled ? "settled" : "did not settle"} after ${b.rounds} round${b.rounds === 1 ? "" : "s"}; ` +
        (b.rounds_settled ? "each side's play is a best response to the other's" : "the last pair is shown, no equilibrium is claimed")));
      const ul = el("ul", { id: "best-sides-values" });
      for (const [s, v] of Object.entries(b.sides))
        ul.append(el("li", { "data-side": s }, `${words(s)}: `, el("b", { class: "num", text: value(v.pair, metric) }),
          ` at the pair, ${value(v.policy, metric)} with both policies (`, el("span", { class: gainClass(v.pair - v.policy), text: gain(v.pair - v.policy, metric) }), ")"));
      box.append(ul);
    }
    if (!b.settled) box.append(el("p", { class: "message", text: `The values did not settle in ${b.iterations} sweeps: the best play is the last sweep's.` }));
    if (b.same_game === false)
      box.append(el("p", { class: "message", id: "best-other-game", text: `Not a best response to the policy's game: with ${words(b.side)}'s decisions as choices, ` +
        `its policy's own options give ${value(b.policy_in_graph, metric)}, not ${value(b.policy, metric)}: some rule acts otherwise when ${words(b.side)} chooses than when its policy does.` }));
    box.append(oddsTable(result, def));
    if (b.decisions) {
      const who = b.side === "both" ? words(def.sides[0]) : words(b.side);
      box.append(el("h3", { text: `${who}'s first decisions` }),
        el("p", { class: "muted", text: `For each number of hits ${who} takes before any decision of its own (the first round's, or the barrage's before it): ` +
          `the choice worth most (${metric ? "the expected " + words(b.objective.replace(/^metric:-?/, "")) : "the chance " + goal}, from there, playing best afterwards), ` +
          "and its margin over the next best. Options of the same value are the same choice." }),
        decisionsTable(b.decisions, who, metric));
    }
    box.append(el("p", { class: "muted", text: `exact: ${result.states} states, ${b.choice_nodes} where a side decides; the odds above are the best play's whole report, as rulebench simulate --exact --best gives it.` }));
    $("best-json").textContent = JSON.stringify(result, null, 1);
  }

  // ---------------------------------------------------------------- running

  function setRunning(on) {
    $("best-cancel").disabled = !on;
    sidesChanged();
  }

  async function run() {
    const side = chosenSide();
    if (!side) return;
    const objective = $("best-objective").value || "win";
    const scenario = rb.toToml(rb.getSetup());
    const serial = ++state.serial;
    $("best-result").replaceChildren();
    document.body.dataset.bestState = "running";
    let job;
    try {
      job = await rb.postWhenFree("/api/simulate", { scenario, exact: true, best: side, objective, decisions: true, max_seconds: BEST_SECONDS },
        () => serial !== state.serial);
    } catch (e) {
      status(e.message);
      document.body.dataset.bestState = "error";
      return;
    }
    state.job = job.job;
    state.sent = { scenario, side, objective };
    setRunning(true);
    const started = performance.now();
    const j = await rb.pollJob(job.job, {
      live: () => serial === state.serial,
      onRunning: () => status(`exploring every state, with every option of each decision\u2026 ${((performance.now() - started) / 1000).toFixed(1)} s`),
    });
    if (j === null) return;
    if (j.state === "error") {
      status(j.error);
      document.body.dataset.bestState = "error";
    } else {
      draw(j.result);
      status(`exact, in ${j.seconds.toFixed(2)} s`);
      document.body.dataset.bestState = "done";
    }
    state.job = null;
    setRunning(false);
  }

  async function cancel() {
    if (state.job === null) return;
    try {
      await rb.api("DELETE", `/api/jobs/${state.job}`);
    } catch (e) {
      status(e.message);
    }
  }

  // ---------------------------------------------------------------- the link

  // What the page's link carries of this view: the scenario's [play] ({ defender: "best",
  // objective: "win" }), or null when no side is ticked
  rb.play = () => {
    const ticked = [...$("best-sides").querySelectorAll("input:checked")].map((i) => i.value);
    if (!ticked.length) return null;
    const play = {};
    for (const side of ticked) play[side] = "best";
    play.objective = $("best-objective").value || "win";
    return play;
  };

  // A scenario's or a link's [play]: tick its sides, choose its objective, and ask
  rb.onPlay((play) => {
    for (const input of $("best-sides").querySelectorAll("input"))
      input.checked = play[input.value] === "best";
    const sel = $("best-objective");
    if (typeof play.objective === "string" && [...sel.options].some((o) => o.value === play.objective))
      sel.value = play.objective;
    else if (play.objective !== undefined) status(`[play] objective '${play.objective}' is not one this report offers: ${[...sel.options].map((o) => o.value).join(", ")}`);
    sidesChanged();
    rb.linkChanged();
    if (chosenSide()) run();
  });

  $("best-sides").addEventListener("change", () => rb.linkChanged());
  $("best-objective").addEventListener("change", () => rb.linkChanged());
  $("best-run").addEventListener("click", run);
  $("best-cancel").addEventListener("click", cancel);
  // the sides and objectives follow the page's ruleset and procedure; the ticks stay
  rb.onChange(() => render());
})();
