// The page's hex map. It knows no game: the board comes from POST /api/board (the board after
// the ruleset's setup: each hex with its entity and what is inside it, by the ruleset's names),
// and what to write on a hex from the ruleset's form.toml [map] (scripts/README.md, "form.toml"):
// `label` (an attribute shown as the hex's number), `marks` (attributes shown as words), `places`
// (a kind listed by name, owner and units), `tokens` (a kind shown per owner), and the scenario
// keys a click writes (`activate`, `systems`). Units are the ruleset's unit kind, per player.
//
// Drawn as inline SVG, flat-top or pointy-top as the board's orientation says (axial q, r; Red
// Blob Games' hex grid guide). The active hex is marked; a click on a hex selects it: activate
// it, or place units in it. With a seed, the moves one run made (trace events with a path) are
// drawn as arrows. Below the map: the report's conditional probabilities of the last answer
// ("P(planet 1 controlled | space combat won)").
//
// It talks to the page through window.rb (app.js: getSetup, setSetup, onChange, onResult,
// recompute, toToml, records, ruleset, api); see rbOf() for a page without it.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const SIZE = 40;  // a hex's corner radius, in SVG units
  const COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#138d75", "#566573", "#a04000"];

  const map = {
    rb: null,
    board: null,     // the last /api/board reply
    config: {},      // the ruleset's form.toml [map]
    selected: null,  // the selected hex: {q, r}
    serial: 0,       // the newest board request; older replies are dropped
    timer: null,
    pending: null,   // a setup whose board is still to be asked for
    form: {},        // the place form's choices: player, unit, count
  };

  // body data-map-busy: "1" while a board is still to come (tests wait for "0")
  function busy() {
    document.body.dataset.mapBusy = map.pending || map.fetching ? "1" : "0";
  }

  // window.rb, or the same calls made on app.js's own functions (a page from before window.rb)
  function rbOf() {
    if (window.rb) return window.rb;
    if (typeof page === "undefined" || typeof toToml !== "function") return null;
    const listeners = { change: [], result: [] };
    const emit = (kind, ...a) => listeners[kind].forEach((fn) => { try { fn(...a); } catch (e) { console.error(e); } });
    const write = window.writeToml, render = window.renderResult;
    window.writeToml = function (...a) {
      const r = write.apply(this, a);
      emit("change", JSON.parse(JSON.stringify(page.scenario)));
      return r;
    };
    window.renderResult = function (result, ...a) {
      const r = render.call(this, result, ...a);
      emit("result", result, { method: result.method || "montecarlo", final: true });
      return r;
    };
    return {
      getSetup: () => JSON.parse(JSON.stringify(page.scenario)),
      setSetup: async (s) => { page.scenario = JSON.parse(JSON.stringify(s)); changed(); run(); },
      onChange: (fn) => listeners.change.push(fn),
      onResult: (fn) => listeners.result.push(fn),
      recompute: () => run(),
      toToml: (s) => toToml(s, formSides()),
      records: () => page.records,
      ruleset: () => page.ruleset,
      api,
    };
  }

  function svg(tag, attrs = {}, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function html(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") e.textContent = v;
      else e.setAttribute(k, String(v));
    }
    e.append(...children);
    return e;
  }

  // the centre of hex (q, r) in pixels (Red Blob Games: "Hex to pixel")
  function centre(q, r, pointy) {
    return pointy
      ? { x: SIZE * Math.sqrt(3) * (q + r / 2), y: SIZE * 1.5 * r }
      : { x: SIZE * 1.5 * q, y: SIZE * Math.sqrt(3) * (r + q / 2) };
  }

  function corners(c, pointy) {
    const out = [];
    for (let i = 0; i < 6; i++) {
      const a = (Math.PI / 180) * (60 * i - (pointy ? 30 : 0));
      out.push(`${(c.x + SIZE * Math.cos(a)).toFixed(2)},${(c.y + SIZE * Math.sin(a)).toFixed(2)}`);
    }
    return out.join(" ");
  }

  const words = (s) => String(s).replace(/_/g, " ");
  const short = (name) => words(name).split(" ").map((w) => w.slice(0, 3)).join(" ");

  function colourOf(player) {
    const i = map.board.players.indexOf(player);
    return i < 0 ? "#444" : COLOURS[i % COLOURS.length];
  }

  // what is inside an entity, sorted into the config's places and tokens, units, and the rest
  function sortContents(entity) {
    const unitKind = (map.rb.ruleset() || {}).unit_kind || "unit";
    const out = { places: [], tokens: [], units: {} };
    for (const c of entity.contents || []) {
      if (c.kind === map.config.places) out.places.push(c);
      else if (c.kind === map.config.tokens) out.tokens.push(c);
      else if (c.kind === unitKind && c.owner) (out.units[c.owner] = out.units[c.owner] || []).push(c);
    }
    return out;
  }

  function unitText(list) {
    return list.map((u) => `${u.count > 1 ? u.count + " " : ""}${short(u.name)}${u.attributes.damaged ? "*" : ""}`).join(", ");
  }

  function labelOf(entity) {
    if (!entity) return "";
    const a = map.config.label;
    return a && entity.attributes[a] !== undefined ? String(entity.attributes[a]) : entity.name;
  }

  // ------------------------------------------------------------------ drawing

  function draw() {
    const box = document.getElementById("map");
    box.replaceChildren();
    const b = map.board;
    const pointy = b.orientation === "pointy";
    const centres = b.hexes.map((h) => centre(h.q, h.r, pointy));
    const xs = centres.map((c) => c.x), ys = centres.map((c) => c.y);
    const pad = SIZE + 4;
    const view = [Math.min(...xs) - pad, Math.min(...ys) - pad,
      Math.max(...xs) - Math.min(...xs) + 2 * pad, Math.max(...ys) - Math.min(...ys) + 2 * pad];
    const root = svg("svg", { viewBox: view.map((v) => v.toFixed(1)).join(" "), class: "hexmap", role: "img",
      "aria-label": `a hex board of ${b.hexes.length} hexes` });
    const defs = svg("defs");
    const marker = svg("marker", { id: "map-arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "context-stroke" }));
    defs.append(marker);
    root.append(defs);
    const active = b.roles.active_system;
    b.hexes.forEach((h, i) => {
      const c = centres[i];
      const e = h.entity;
      const isActive = active && active.q === h.q && active.r === h.r;
      const isSelected = map.selected && map.selected.q === h.q && map.selected.r === h.r;
      const g = svg("g", { class: "hex" + (isActive ? " active" : "") + (isSelected ? " selected" : ""),
        "data-q": h.q, "data-r": h.r, "data-name": e ? e.name : "", "data-label": labelOf(e), tabindex: 0 });
      g.append(svg("polygon", { points: corners(c, pointy) }));
      const tip = [e ? (e.title || e.name) + (map.config.label && labelOf(e) !== e.name ? ` (${labelOf(e)})` : "") : "(empty hex)"];
      let y = c.y - SIZE * 0.55;
      const line = (text, cls, colour) => {
        const t = svg("text", { x: c.x.toFixed(1), y: y.toFixed(1), class: cls }, text);
        if (colour) t.setAttribute("fill", colour);
        g.append(t);
        y += 8.5;
      };
      if (e) {
        line(labelOf(e), "label");
        const marks = (map.config.marks || []).map((m) => e.attributes[m]).filter((v) => v && v !== "none");
        if (marks.length) line(marks.map(words).join(" "), "mark"), tip.push(marks.map(words).join(", "));
        const inside = sortContents(e);
        for (const p of inside.places) {
          const sub = sortContents(p);
          const units = Object.entries(sub.units).map(([who, list]) => unitText(list)).join("; ");
          line(short(p.name) + (units ? ": " + units : ""), "place", p.owner ? colourOf(p.owner) : undefined);
          tip.push(`${words(p.title || p.name)}${p.owner ? ` (${p.owner})` : ""}` +
            Object.entries(sub.units).map(([who, list]) => ` ${who}: ${unitText(list)}`).join(";"));
        }
        for (const [who, list] of Object.entries(inside.units)) {
          line(unitText(list), "units", colourOf(who));
          tip.push(`${who}: ${unitText(list)}`);
        }
        inside.tokens.forEach((t, k) => {
          const x = c.x + SIZE * 0.45 - k * 9, ty = c.y + SIZE * 0.62;
          g.append(svg("circle", { cx: x.toFixed(1), cy: ty.toFixed(1), r: 4, class: "token", fill: colourOf(t.owner), "data-owner": t.owner || "" }));
          tip.push(`${words(t.kind)} of ${t.owner}`);
        });
      }
      if (isActive) tip.push("active");
      g.append(svg("title", {}, tip.join("\n")));
      g.addEventListener("click", () => select(h));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(h); } });
      root.append(g);
    });
    // the moves of the traced run, as arrows from hex centre to hex centre along the path
    const where = (p) => (p.q === null ? null : centre(p.q, p.r, pointy));
    (b.moves || []).forEach((m, k) => {
      const pts = m.path.map(where).filter(Boolean);
      if (pts.length < 2) return;
      const off = (k % 4) * 4 - 6;  // moves along one path side by side
      const d = pts.map((p, i) => `${i ? "L" : "M"} ${(p.x + off).toFixed(1)} ${(p.y + off).toFixed(1)}`).join(" ");
      const path = svg("path", { d, class: "move", stroke: colourOf(m.player), "marker-end": "url(#map-arrow)",
        "data-unit": m.unit || "", "data-player": m.player || "" });
      path.append(svg("title", {}, m.text));
      root.append(path);
    });
    box.append(root);
    const moves = document.getElementById("map-moves");
    moves.textContent = b.moves ? (b.moves.length
      ? `The run with seed ${b.seed}: ${b.moves.map((m) => m.text).join("; ")}.`
      : `The run with seed ${b.seed} moved nothing.`) : "";
    drawPanel();
  }

  // the selected hex: what is there, activate it, place units in it
  function drawPanel() {
    const panel = document.getElementById("map-panel");
    panel.replaceChildren();
    if (!map.selected) {
      panel.append(html("p", { class: "muted", text: "Click a hex to activate it or to place units in it." }));
      return;
    }
    const h = map.board.hexes.find((x) => x.q === map.selected.q && x.r === map.selected.r);
    if (!h || !h.entity) {
      panel.append(html("p", { class: "muted", text: `hex (${map.selected.q}, ${map.selected.r}): nothing here` }));
      return;
    }
    const e = h.entity;
    const active = map.board.roles.active_system;
    const isActive = active && active.q === h.q && active.r === h.r;
    panel.append(html("p", { id: "map-selected", text: `${e.title || e.name} (${labelOf(e)})${isActive ? ": the active system" : ""}` }));
    const row = html("div", { class: "controls" });
    if (map.config.activate) {
      const b = html("button", { type: "button", id: "map-activate", text: isActive ? "Active" : "Activate" });
      if (isActive) b.disabled = true;
      b.addEventListener("click", () => activate(h));
      row.append(b);
    }
    if (map.config.systems) {
      const who = html("select", { id: "map-player" });
      for (const p of map.board.players) who.append(html("option", { value: p, text: p }));
      const count = html("input", { id: "map-count", type: "number", min: 1, max: 99, value: map.form.count || 1 });
      const unitKind = (map.rb.ruleset() || {}).unit_kind || "unit";
      const unit = html("select", { id: "map-unit" });
      const units = (map.rb.records() || []).filter((r) => r.kind === unitKind && !r.attributes.replaces)
        .sort((a, b) => a.title.localeCompare(b.title));
      for (const u of units) unit.append(html("option", { value: u.name, text: u.title }));
      // the choices survive a redraw (a board that arrives while they are being made)
      if (map.board.players.includes(map.form.player)) who.value = map.form.player;
      if (units.some((u) => u.name === map.form.unit)) unit.value = map.form.unit;
      who.addEventListener("change", () => { map.form.player = who.value; });
      unit.addEventListener("change", () => { map.form.unit = unit.value; });
      count.addEventListener("input", () => { map.form.count = count.value; });
      const place = html("button", { type: "button", id: "map-place", text: "Place" });
      place.addEventListener("click", () => placeUnits(h, who.value, unit.value, Number(count.value)));
      row.append(html("label", { text: "Place " }, count), unit, html("label", { text: " of " }, who), place);
    }
    panel.append(row);
  }

  function select(h) {
    map.selected = { q: h.q, r: h.r };
    draw();
  }

  // ------------------------------------------------------------------ clicks write the scenario

  function hexValue(h) {
    const a = map.config.label;
    return a && h.entity && typeof h.entity.attributes[a] === "number" ? h.entity.attributes[a] : h.entity.name;
  }

  async function activate(h) {
    const s = map.rb.getSetup();
    s[map.config.activate] = hexValue(h);
    await map.rb.setSetup(s);
  }

  // the scenario's entry for the hex: by the label's key (tile = 38), by id, or by hex = [q, r]
  function entryOf(s, h) {
    const list = (s[map.config.systems] = s[map.config.systems] || []);
    const a = map.config.label;
    let e = list.find((x) => (a && x[a] !== undefined && x[a] === h.entity.attributes[a]) ||
      x.id === h.entity.name || (Array.isArray(x.hex) && x.hex[0] === h.q && x.hex[1] === h.r));
    if (!e) {
      e = a && typeof h.entity.attributes[a] === "number" ? { [a]: h.entity.attributes[a] } : { hex: [h.q, h.r] };
      list.push(e);
    }
    return e;
  }

  async function placeUnits(h, player, unit, n) {
    if (!player || !unit || !(n >= 1)) return;
    const s = map.rb.getSetup();
    const e = entryOf(s, h);
    e.units = e.units || {};
    e.units[player] = e.units[player] || {};
    e.units[player][unit] = (e.units[player][unit] || 0) + n;
    await map.rb.setSetup(s);
  }

  // ------------------------------------------------------------------ the board, from the server

  // The board of a changed setup is asked for once the page's answer to it has come (or after
  // WAIT_MS): the server runs a few requests at once (serve --jobs), and the answer comes first.
  const WAIT_MS = 1500;
  function load(setup) {
    clearTimeout(map.timer);
    map.pending = setup;
    busy();
    map.timer = setTimeout(flush, WAIT_MS);
  }

  function flush() {
    clearTimeout(map.timer);
    const setup = map.pending;
    map.pending = null;
    if (setup) fetchBoard(setup);
    busy();
  }

  async function fetchBoard(setup) {
    map.fetching = (map.fetching || 0) + 1;
    busy();
    try {
      await fetchBoardNow(setup);
    } finally {
      map.fetching--;
      busy();
    }
  }

  async function fetchBoardNow(setup) {
    const section = document.getElementById("map-section");
    const rs = map.rb.ruleset();
    map.config = (rs && rs.form && rs.form.map) || {};
    if (!rs || !rs.form || !rs.form.map) {
      section.hidden = true;
      return;
    }
    const serial = ++map.serial;
    const seed = document.getElementById("map-seed").value.trim();
    let board;
    for (let attempt = 0; ; attempt++) {
      try {
        board = await map.rb.api("POST", "/api/board", { scenario: map.rb.toToml(setup), ...(seed ? { seed } : {}) });
        break;
      } catch (e) {
        // busy (429: the runs of an answer hold the places): again a little later, for up to 15 s
        // as the page's other requests (postWhenFree): on a loaded machine a cancelled answer
        // can hold its place for seconds
        if (attempt < 30 && /429|at once|busy/i.test(e.message)) {
          await new Promise((ok) => setTimeout(ok, 500));
          if (serial !== map.serial) return;
          continue;
        }
        if (serial !== map.serial) return;
        map.board = null;
        section.hidden = !(setup[map.config.activate] || setup.map);
        document.getElementById("map").replaceChildren(html("p", { class: "message error", id: "map-error", text: e.message }));
        return;
      }
    }
    if (serial !== map.serial) return;
    map.board = board;
    section.hidden = board.hexes.length === 0;
    if (board.hexes.length === 0) return;
    if (map.selected && !board.hexes.some((x) => x.q === map.selected.q && x.r === map.selected.r)) map.selected = null;
    draw();
    document.body.dataset.boards = String(Number(document.body.dataset.boards || 0) + 1);
  }

  // ------------------------------------------------------------------ the conditional answers

  function showAnswer(result, info) {
    flush();
    const box = document.getElementById("map-answer");
    box.replaceChildren();
    const rs = map.rb.ruleset();
    const setup = (info && info.setup) || map.rb.getSetup();
    const def = rs && rs.reports && rs.reports[setup.procedure];
    if (!def || !def.conditional) return;
    // a numbered metric (planet_3_...) that the result names for none (no third planet) is left out
    const labels = result.labels || {};
    const named = def.conditional.some((c) => labels[c.metric]);
    for (const c of def.conditional) {
      if (typeof result[c.key] !== "number" || (named && !labels[c.metric])) continue;
      const given = (def.probabilities || []).find((p) => p.metric === c.given);
      const pg = given ? result[given.key] : undefined;
      if (typeof pg === "number" && pg <= 0) continue;  // the condition never held: no answer
      const what = labels[c.metric] || "";
      const ci = result.ci95 && result.ci95[c.key];
      const text = `P(${words(c.metric.replace(/_and_.*$/, ""))}${what ? ` (${what})` : ""} | ${words(c.given)}) = ` +
        `${(100 * result[c.key]).toFixed(2)}%` + (ci ? ` [${(100 * ci[0]).toFixed(2)} .. ${(100 * ci[1]).toFixed(2)}]` : "") +
        (typeof pg === "number" ? `; P(${words(c.given)}) = ${(100 * pg).toFixed(2)}%` : "");
      box.append(html("p", { class: "conditional", "data-key": c.key, "data-value": String(result[c.key]), text }));
    }
    document.body.dataset.mapAnswers = String(Number(document.body.dataset.mapAnswers || 0) + 1);
  }

  function start() {
    map.rb = rbOf();
    if (!map.rb) return;
    const section = document.getElementById("map-section");
    if (!section) return;
    section.hidden = true;
    section.append(
      html("h2", { text: "Map" }),
      html("div", { class: "controls" },
        html("label", { title: "The moves one run with this seed made, drawn as arrows (empty: none)", text: "Moves of the run with seed " },
          html("input", { id: "map-seed", type: "text", size: 6, value: "1" }))),
      html("div", { id: "map", class: "map" }),
      html("p", { id: "map-moves", class: "muted" }),
      html("div", { id: "map-panel" }),
      html("div", { id: "map-answer" }));
    document.getElementById("map-seed").addEventListener("change", () => fetchBoard(map.rb.getSetup()));
    map.rb.onChange(load);
    map.rb.onResult(showAnswer);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
