// web/sweep.js: the Sweep view, a heat map of battles (docs/page.md, "Sweep"). The battle on the
// page is the base; the rows change one thing on one side (a record field of the side's form: the
// faction, or one record added to a list such as the technologies), the columns another, or the
// roles, as `rulebench sweep` does. The page writes a sweep spec (docs/sweep.md) and the server
// runs it as a job (POST /api/sweep), whose cells come in while it runs; a click on a cell asks
// the server for that cell's scenario (POST /api/sweep/cell) and puts it on the page.
// It knows no game: the axes' choices are the form's fields and the loaded packs' records.
"use strict";

(function () {
  const rb = window.rb;
  const $ = (id) => document.getElementById(id);
  const state = { job: null, sent: null, serial: 0 };

  const el = (...args) => rb.el(...args);  // app.js's element builder

  const tomlString = (s) => JSON.stringify(s).replace(/\u007f/g, "\\u007f");

  // ---------------------------------------------------------------- the axes

  function sides() {
    const form = rb.ruleset() && rb.ruleset().form;
    const p = form && form.procedures[rb.getSetup().procedure];
    return p ? p.sides : [];
  }

  // The fields of a side an axis can vary: a record (the faction), or a list of records whose kind
  // a change can add (the ruleset's scenario_lists: technologies, cards).
  function axisFields(side) {
    const lists = rb.ruleset().scenario_lists || {};
    return rb.sideFields(side).filter((f) => f.type === "record" || (f.type === "records" && lists[f.kind]));
  }

  // The values of an axis: { label, with } per record the field offers.
  function axisValues(side, field) {
    const setup = rb.getSetup();
    const table = setup[side] || {};
    const seen = new Set();
    return rb.choices(field, table).map((r) => {
      let label = r.title || r.name;
      if (seen.has(label)) label = `${label} (${r.name})`;
      seen.add(label);
      const change = field.type === "record" ? `${side}:${field.key}=${r.name}` : `${side}:${r.name}`;
      return { label, name: r.name, with: [change] };
    });
  }

  function fillWhat(axis) {
    const sideSel = $(`sweep-${axis}-side`), whatSel = $(`sweep-${axis}-what`);
    const keep = whatSel.value;
    whatSel.replaceChildren();
    if (axis === "columns") whatSel.append(el("option", { value: "", text: "(no column axis)" }));
    for (const f of axisFields(sideSel.value)) whatSel.append(el("option", { value: f.key, text: f.label || f.key }));
    if ([...whatSel.options].some((o) => o.value === keep)) whatSel.value = keep;
    fillValues(axis);
  }

  function fillValues(axis) {
    const box = $(`sweep-${axis}-values`);
    const checked = new Set([...box.querySelectorAll("input:checked")].map((i) => i.value));
    box.replaceChildren();
    const side = $(`sweep-${axis}-side`).value;
    const field = axisFields(side).find((f) => f.key === $(`sweep-${axis}-what`).value);
    if (!field) return;
    for (const v of axisValues(side, field))
      box.append(el("label", {}, el("input", { type: "checkbox", value: v.name, checked: checked.has(v.name) }), " " + v.label));
  }

  function renderAxes() {
    if (!rb.ruleset()) return;
    for (const axis of ["rows", "columns"]) {
      const sel = $(`sweep-${axis}-side`);
      const keep = sel.value;
      sel.replaceChildren();
      for (const s of sides()) sel.append(el("option", { value: s, text: s }));
      const list = sides();
      sel.value = list.includes(keep) ? keep : list[axis === "rows" ? 0 : Math.min(1, list.length - 1)] || "";
      fillWhat(axis);
    }
  }

  // An axis as the spec's [[axis]]: { name, values: [{ label, with }] }, or null when nothing is chosen.
  function chosenAxis(axis) {
    const side = $(`sweep-${axis}-side`).value;
    const field = axisFields(side).find((f) => f.key === $(`sweep-${axis}-what`).value);
    if (!field) return null;
    const picked = new Set([...$(`sweep-${axis}-values`).querySelectorAll("input:checked")].map((i) => i.value));
    const values = axisValues(side, field).filter((v) => picked.has(v.name));
    return values.length ? { name: `${side} ${field.label || field.key}`, values } : null;
  }

  // The sweep spec (docs/sweep.md) without `scenario` (the request's scenario is the base):
  // { text: its TOML, names: the axes' names, for the caption }.
  function specToml() {
    const rows = chosenAxis("rows");
    if (!rows) throw new Error("sweep: choose the rows' values (at least one)");
    const axes = [rows];
    const columns = chosenAxis("columns");
    if (columns) axes.push(columns);
    const precision = Number($("sweep-precision").value);
    if (!(precision > 0)) throw new Error("sweep: the precision is a number of points above 0");
    const seed = $("sweep-seed").value.trim() || "1";
    if (!/^\d+$/.test(seed)) throw new Error("sweep: the seed is a whole number");
    let out = `precision = ${precision}\nseed = ${seed}\n`;
    if (!$("sweep-exact").checked) out += "exact = false\n";  // every cell by Monte Carlo
    for (const a of axes) {
      out += `\n[[axis]]\nname = ${tomlString(a.name)}\nchanges = [\n`;
      for (const v of a.values) out += `  { label = ${tomlString(v.label)}, with = [${v.with.map(tomlString).join(", ")}] },\n`;
      out += "]\n";
    }
    if ($("sweep-roles").checked) {
      out += '\n[[axis]]\nroles = ["as_written", "swapped"]\n';
      axes.push({ name: "roles" });
    }
    return { text: out, names: axes.map((a) => a.name) };
  }

  // ---------------------------------------------------------------- the heat map

  // Viridis (perceptually even, readable with the common colour blindnesses): P = 0 dark blue
  // to P = 1 yellow, interpolated between five stops.
  const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function heat(p) {
    const x = Math.max(0, Math.min(1, p)) * (STOPS.length - 1);
    const i = Math.min(STOPS.length - 2, Math.floor(x)), t = x - i;
    const c = STOPS[i].map((a, k) => Math.round(a + (STOPS[i + 1][k] - a) * t));
    return { background: `rgb(${c.join(",")})`, ink: p > 0.55 ? "#1d2433" : "#fff" };
  }

  function cellText(c) {
    const v = (100 * c.value).toFixed(1);
    return c.method === "exact" ? `${v} =` : `${v} \u00b1${(50 * (c.ci95[1] - c.ci95[0])).toFixed(1)}`;
  }

  // The difference to the reference column in points, with its 95% interval when a Monte Carlo
  // cell is on either side ("+3.1 (+2.4 to +3.8)"; both exact: the difference alone, exact)
  function signed(x) {
    const v = (100 * x).toFixed(1);
    return Number(v) > 0 ? `+${v}` : Number(v) < 0 ? `\u2212${v.slice(1)}` : "0.0";
  }
  function differenceText(c) {
    const [lo, hi] = c.difference_ci95;
    return lo === hi ? signed(c.difference) : `${signed(c.difference)} (${signed(lo)} to ${signed(hi)})`;
  }
  function referenceColumn(res) {
    const i = res.columns.indexOf(res.sweep && res.sweep.reference);
    return i >= 0 ? i : 0;
  }

  // Draws the grid of a result or of a running job's partial: cells not yet done are blank.
  function drawGrid(res, final) {
    const box = $("sweep-grid");
    box.replaceChildren();
    const C = res.columns.length, R = res.rows.length;
    const byCell = new Map(res.cells.map((c) => [c.cell, c]));
    const table = el("table", { class: "heat", id: "sweep-table", "data-final": final ? "1" : "0" });
    const head = el("tr", {}, el("th", { text: "" }));
    res.columns.forEach((c) => head.append(el("th", { scope: "col", text: c })));
    if (final) head.append(el("th", { scope: "col", class: "mean", text: "mean" }));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    const order = final && res.order ? res.order : [...Array(R).keys()];
    const ref = referenceColumn(res);
    for (const r of order) {
      const tr = el("tr", {}, el("th", { scope: "row", text: res.rows[r] }));
      let sum = 0;
      for (let c = 0; c < C; c++) {
        const k = r * C + c;
        const cell = byCell.get(k);
        if (!cell) {
          tr.append(el("td", { class: "cell pending", "data-cell": k, text: "\u2026" }));
          continue;
        }
        sum += cell.value;
        const h = heat(cell.value);
        const shown = res.outcomes[res.shown[c]];
        const why = cell.method === "exact" ? "exact" : `Monte Carlo, ${cell.runs.toLocaleString("en")} runs, 95% interval ${(100 * cell.ci95[0]).toFixed(1)} to ${(100 * cell.ci95[1]).toFixed(1)}`;
        // beside the value, its difference to the reference column (none in that column)
        const diff = c !== ref && typeof cell.difference === "number" && Array.isArray(cell.difference_ci95);
        const against = diff ? `; ${differenceText(cell)} points against ${res.columns[ref]}` : "";
        tr.append(el("td", { class: "cell", tabindex: "0", role: "button", "data-cell": k, "data-value": cell.value,
          "data-method": cell.method, style: `background:${h.background};color:${h.ink}`,
          "data-difference": diff ? String(cell.difference) : null,
          "data-difference-ci95": diff ? cell.difference_ci95.join(" ") : null,
          title: `${res.rows[r]} \u00d7 ${res.columns[c]}: P(${shown}) ${(100 * cell.value).toFixed(2)}% (${why})${against}; click to open this battle`,
          onclick: () => openCell(k), onkeydown: (e) => { if (e.key === "Enter") openCell(k); } },
        cellText(cell), diff ? el("span", { class: "cell-diff", text: differenceText(cell) }) : null));
      }
      if (final) tr.append(el("td", { class: "mean num", text: (100 * sum / C).toFixed(1) }));
      body.append(tr);
    }
    table.append(body);
    const ramp = `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((p) => heat(p).background).join(", ")})`;
    const names = state.sent ? state.sent.names : [];
    const swapped = names.includes("roles");
    const axes = names.length ? ` The rows: ${names[0]}; the columns: ${names.length > 1 ? names.slice(1).join(" / ") : "none"}.` : "";
    box.append(el("p", { class: "muted", id: "sweep-caption", text: `P(${res.sweep.show}) in points for the row` +
      (swapped ? " (with the roles swapped, the same side's outcome)" : "") +
      `; "=" exact, "\u00b1" Monte Carlo's 95% half-width` +
      (C > 1 ? `; below, the difference to the column ${res.columns[ref]} in points, with its 95% interval when a Monte Carlo cell is on either side` : "") +
      `.${axes}` }),
      table,
      el("div", { class: "heat-scale" }, el("span", { text: "0%" }), el("span", { class: "ramp", style: `background:${ramp}` }), el("span", { text: "100%" })));
  }

  // ---------------------------------------------------------------- running

  function setRunning(on) {
    $("sweep-run").disabled = on;
    $("sweep-cancel").disabled = !on;
  }

  function status(text) {
    $("sweep-status").textContent = text;
  }

  async function run() {
    let spec;
    try {
      spec = specToml();
    } catch (e) {
      status(e.message);
      return;
    }
    const scenario = rb.toToml(rb.getSetup());
    $("sweep-spec").textContent = spec.text;
    $("sweep-grid").replaceChildren();
    $("sweep-bar").style.width = "0%";
    const serial = ++state.serial;
    let job;
    try {
      job = await rb.postWhenFree("/api/sweep", { scenario, spec: spec.text }, () => serial !== state.serial);
    } catch (e) {
      status(e.message);
      return;
    }
    state.job = job.job;
    state.sent = { scenario, spec: spec.text, names: spec.names };
    document.body.dataset.sweepState = "running";
    setRunning(true);
    const started = performance.now();
    const bar = (j) => { $("sweep-bar").style.width = `${(100 * (j.planned ? j.done / j.planned : 0)).toFixed(1)}%`; };
    const j = await rb.pollJob(job.job, {
      live: () => serial === state.serial,
      onRunning: (j) => {
        bar(j);
        if (j.partial) drawGrid(j.partial, false);
        const secs = (performance.now() - started) / 1000;
        const left = j.done ? secs / j.done * (j.planned - j.done) : NaN;
        status(`${j.done} of ${j.planned} cells \u00b7 ${secs.toFixed(1)} s` + (Number.isFinite(left) ? ` \u00b7 about ${left.toFixed(0)} s left` : ""));
      },
    });
    if (j === null) return;
    if (j.state === "error") {
      status(j.error);
      document.body.dataset.sweepState = "error";
    } else {
      bar(j);
      drawGrid(j.result, j.state === "done");
      const exact = j.result.cells.filter((c) => c.method === "exact").length;
      status(j.state === "done"
        ? `${j.result.cells.length} cells in ${j.seconds.toFixed(1)} s: ${exact} exact, ${j.result.cells.length - exact} Monte Carlo (seed ${j.result.sweep.seed}); click a cell to open it`
        : `${j.result.warning || "cancelled"}: ${j.result.cells.length} of ${j.planned} cells`);
      document.body.dataset.sweepState = j.state;
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

  // A cell as the battle on the page: the server writes the cell's scenario (the base with its
  // changes, as the sweep ran it), and the page loads it as it loads a scenario's TOML.
  async function openCell(k) {
    if (!state.sent) return;
    try {
      // (the cell's scenario takes one of the server's places: the answer may hold them a moment)
      const c = await rb.postWhenFree("/api/sweep/cell", { scenario: state.sent.scenario, spec: state.sent.spec, cell: k });
      const parsed = await rb.api("POST", "/api/parse", { toml: c.scenario });
      await rb.setSetup(parsed.scenario);
      document.body.dataset.sweepOpened = String(k);
      window.scrollTo({ top: 0 });
    } catch (e) {
      status(e.message);
    }
  }

  // ---------------------------------------------------------------- wiring

  for (const axis of ["rows", "columns"]) {
    $(`sweep-${axis}-side`).addEventListener("change", () => fillWhat(axis));
    $(`sweep-${axis}-what`).addEventListener("change", () => fillValues(axis));
  }
  document.querySelectorAll("[data-all]").forEach((b) => b.addEventListener("click", () => {
    $(`sweep-${b.dataset.all}-values`).querySelectorAll("input").forEach((i) => { i.checked = true; });
  }));
  document.querySelectorAll("[data-none]").forEach((b) => b.addEventListener("click", () => {
    $(`sweep-${b.dataset.none}-values`).querySelectorAll("input").forEach((i) => { i.checked = false; });
  }));
  $("sweep-run").addEventListener("click", run);
  $("sweep-cancel").addEventListener("click", cancel);
  // the choices follow the page: its ruleset, procedure, packs and the sides' tables (a field's
  // `same` filters by them); the values checked stay checked
  rb.onChange(() => renderAxes());
})();
