// The page of `rulebench serve`. It knows no game: the forms come from the ruleset's form.toml
// (GET /api/rulesets) and the records the loaded packs declare (GET /api/records); the results
// from the ruleset's report definition. The scenario is kept as a JSON object, written as TOML
// (the format of a scenario file) and sent as that TOML text to the API, so the page and
// `rulebench simulate` run the same scenario.
//
// The page's API, for the other scripts of the page (the map, the link import): window.rb.
// A "setup" is the scenario the form builds: the JSON of its TOML (ruleset, procedure, packs,
// one table per side, the other tables), the same object /api/parse returns for a scenario file.
//   rb.getSetup()        a copy of the setup now on the page
//   rb.setSetup(setup)   a Promise: puts that setup on the page (its ruleset, procedure and packs
//                        follow it), redraws the form and recomputes; resolves when it is drawn
//   rb.onChange(fn)      fn(setup) after every change of the setup (a click, setSetup, a loaded TOML)
//   rb.onResult(fn)      fn(result, info) for every answer drawn; info = { method: "exact" |
//                        "montecarlo", final: true when no narrower answer follows, setup }
//   rb.recompute()       answers the setup now on the page (a stale answer in progress is cancelled)
//   rb.toToml(setup)     the setup as scenario TOML text (what the API's `scenario` takes)
//   rb.records()         the records of the loaded packs (GET /api/records' `records`)
//   rb.ruleset()         the chosen ruleset (GET /api/rulesets' entry: form, reports, procedures)
//   rb.api(method, path, body)  a call to the server's API; rejects with the server's error text
//   rb.postWhenFree(path, body, stale)  a POST that starts a job, retried while the server's places
//                        are all taken (429) for up to 15 s, unless stale() says it is no longer wanted
//   rb.sideFields(side)  the form fields of a side's column in the procedure now on the page
//   rb.choices(field, table)  the records a field offers for that side's table (form.toml's
//                        kind, where, unless, not_named_by and same)
"use strict";

const $ = (id) => document.getElementById(id);

const page = {
  rulesets: [],        // GET /api/rulesets
  packs: [],           // GET /api/packs
  ruleset: null,       // the chosen ruleset
  procedure: "",
  records: [],         // the records of the loaded packs
  loadedPacks: [],     // ids, in load order
  scenario: {},        // the scenario being edited (JSON of its TOML)
  examples: [],        // GET /api/scenarios
  job: null,           // the run in progress: { id, kind }
  tomlEdited: false,   // the TOML box was typed in since it was last written
};

// ------------------------------------------------------------------ API

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try {
    data = await res.json();
  } catch (e) {
    throw new Error(`${method} ${path}: ${res.status} ${res.statusText}`);
  }
  if (!res.ok && !(data && data.state === "error")) {
    const err = new Error(data && data.error ? data.error : `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

function showMessage(text, kind = "error") {
  const m = $("message");
  m.textContent = text;
  m.className = "message " + kind;
  m.hidden = false;
  if (kind === "error") m.scrollIntoView({ block: "nearest" });
}
function clearMessage() {
  $("message").hidden = true;
  $("message").textContent = "";
}

// ------------------------------------------------------------------ paths in the scenario

function getPath(obj, path) {
  let o = obj;
  for (const k of path.split(".")) {
    if (o === null || typeof o !== "object" || !(k in o)) return undefined;
    o = o[k];
  }
  return o;
}

function isTable(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// Sets obj[path] (tables made as needed); undefined removes the key, and tables left empty.
function setPath(obj, path, value) {
  const keys = path.split(".");
  const chain = [obj];
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isTable(o[k])) {
      if (value === undefined) return;
      o[k] = {};
    }
    o = o[k];
    chain.push(o);
  }
  const last = keys[keys.length - 1];
  if (value === undefined) {
    delete o[last];
    for (let i = chain.length - 1; i > 0; i--) {
      if (Object.keys(chain[i]).length > 0) break;
      delete chain[i - 1][keys[i - 1]];
    }
  } else {
    o[last] = value;
  }
}

// ------------------------------------------------------------------ TOML writer

const BARE = /^[A-Za-z0-9_-]+$/;
function tomlKey(k) {
  return BARE.test(k) ? k : tomlString(k);
}
function tomlString(s) {
  return JSON.stringify(s).replace(/\u007f/g, "\\u007f");
}
function tomlValue(v) {
  if (typeof v === "string") return tomlString(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    return String(v);
  }
  if (Array.isArray(v)) return "[" + v.map(tomlValue).join(", ") + "]";
  if (isTable(v)) {
    const parts = Object.entries(v).map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`);
    return parts.length ? "{ " + parts.join(", ") + " }" : "{}";
  }
  return '""';
}
const isTableArray = (v) => Array.isArray(v) && v.length > 0 && v.every(isTable);

// The scenario as TOML: the top-level keys first (ruleset, procedure, packs), then the sides'
// tables in the form's order, then the other tables; tables inside a table are written inline
// (units = { cruiser = 2 }), arrays of tables at the top as [[name]] blocks.
function toToml(scenario, sides) {
  const lead = ["ruleset", "procedure", "packs", "name", "description"];
  const keys = Object.keys(scenario);
  const scalars = keys.filter((k) => !isTable(scenario[k]) && !isTableArray(scenario[k]));
  scalars.sort((a, b) => {
    const ia = lead.indexOf(a), ib = lead.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  const tables = keys.filter((k) => isTable(scenario[k]));
  tables.sort((a, b) => {
    const ia = sides.indexOf(a), ib = sides.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  const arrays = keys.filter((k) => isTableArray(scenario[k]));
  let out = scalars.map((k) => `${tomlKey(k)} = ${tomlValue(scenario[k])}`).join("\n");
  if (out) out += "\n";
  const block = (header, t) => {
    let s = `\n${header}\n`;
    for (const [k, v] of Object.entries(t)) s += `${tomlKey(k)} = ${tomlValue(v)}\n`;
    return s;
  };
  for (const k of tables) out += block(`[${tomlKey(k)}]`, scenario[k]);
  for (const k of arrays) for (const t of scenario[k]) out += block(`[[${tomlKey(k)}]]`, t);
  return out;
}

// ------------------------------------------------------------------ records and their filters

function truthy(v) {
  return v !== undefined && v !== false && v !== 0 && v !== "";
}

// The records a field offers, in the packs' order: its kind, `where` attributes set, `unless`
// attributes unset, none named by another record's `not_named_by` attribute, and with `same`
// only those whose attribute is unset or equal to the table's value at that key.
function options(field, table) {
  let list = page.records.filter((r) => r.kind === field.kind);
  for (const a of field.where || []) list = list.filter((r) => truthy(r.attributes[a]));
  for (const a of field.unless || []) list = list.filter((r) => !truthy(r.attributes[a]));
  if (field.not_named_by) {
    const named = new Set();
    for (const r of page.records)
      if (r.attributes[field.not_named_by] !== undefined) named.add(r.attributes[field.not_named_by]);
    list = list.filter((r) => !named.has(r.name));
  }
  if (field.same) {
    const want = table ? getPath(table, field.same) : undefined;
    list = list.filter((r) => r.attributes[field.same] === undefined || r.attributes[field.same] === want);
  }
  return list;
}

// The record a counts row of type `name` shows (form.toml's shown_as and upgrade): the record
// that stands in for the type on this side (a faction's unit), then its upgrade while the side
// holds it. Returns { record, upgrade (the record the toggle adds, or null), held }.
function shownRecord(field, table, name) {
  let record = recordByName(field.kind, name);
  const sameOf = (same) => (same ? getPath(table, same) : undefined);
  const sa = field.shown_as;
  if (sa) {
    const want = sameOf(sa.same);
    const own = want !== undefined && page.records.find((r) => r.kind === field.kind &&
      r.attributes[sa.by] === name && (!sa.same || r.attributes[sa.same] === want));
    if (own) record = own;
  }
  const u = field.upgrade;
  let upgrade = null, held = false;
  if (u) {
    const want = sameOf(u.same);
    const all = page.records.filter((r) => r.kind === u.kind && r.attributes[u.by] === name);
    upgrade = (u.same && want !== undefined && all.find((r) => r.attributes[u.same] === want)) ||
      all.find((r) => !u.same || r.attributes[u.same] === undefined) || null;
    const list = getPath(table, u.key);
    held = !!upgrade && Array.isArray(list) && list.includes(upgrade.name);
    if (held) record = recordByName(field.kind, upgrade.attributes[u.to]) || record;
  }
  return { record, upgrade, held };
}

// Does a record pass a field's where and unless?
function fits(field, r) {
  return !!r && (field.where || []).every((a) => truthy(r.attributes[a])) &&
    (field.unless || []).every((a) => !truthy(r.attributes[a]));
}

// The stats line of a counts row (form.toml's stats): "combat 5×2 · SD · AFB 9×2".
function statsOf(field, r) {
  const parts = [];
  for (const s of field.stats || []) {
    const a = r ? r.attributes : {};
    if (s.flag) {
      if (truthy(a[s.flag])) parts.push(el("span", { class: "stat", title: s.title, "data-stat": s.label }, s.label));
      continue;
    }
    const v = a[s.value];
    if (v === undefined || v === 0 && s.label !== "combat" && !s.dice) continue;
    const dice = s.dice ? a[s.dice] : undefined;
    const text = `${s.label} ${v}` + (Number.isInteger(dice) && dice > 1 ? `\u00d7${dice}` : "");
    parts.push(el("span", { class: "stat", title: s.title, "data-stat": s.label }, text));
  }
  return parts;
}

function title(r) {
  return r.title && r.title !== r.name ? `${r.title} (${r.name})` : r.name;
}

function recordByName(kind, name) {
  return page.records.find((r) => r.kind === kind && (r.name === name || r.id === name));
}

// ------------------------------------------------------------------ the form

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function changed() {
  renderForm();
  writeToml();
  setupChanged();
}

// After a field at `key` changed (a faction): what depends on it through `same` and no longer
// fits goes: another faction's technologies and leaders, and the unit upgrades held by a
// counts row's toggle that are not the new faction's (its own upgrade of the type, else the
// generic one), so the toggle starts off rather than naming another faction's technology.
function dropUnfit(table, group, key) {
  const now = getPath(table, key);
  const fit = (r, same) => !r || r.attributes[same] === undefined || r.attributes[same] === now;
  for (const f of group) {
    if ((f.type === "records" || f.type === "record") && f.same === key) {
      const v = getPath(table, f.key);
      if (Array.isArray(v)) {
        const kept = v.filter((n) => fit(recordByName(f.kind, n), key));
        if (kept.length !== v.length) setPath(table, f.key, kept.length ? kept : undefined);
      } else if (v !== undefined && !fit(recordByName(f.kind, v), key)) setPath(table, f.key, undefined);
    }
    const u = f.type === "counts" && f.upgrade;
    if (!u || u.same !== key) continue;
    const list = getPath(table, u.key);
    if (!Array.isArray(list)) continue;
    const kept = list.filter((n) => {
      const r = recordByName(u.kind, n);
      if (!r || r.attributes[u.by] === undefined) return true;  // not a unit upgrade
      if (r.attributes[u.same] !== undefined) return r.attributes[u.same] === now;
      // a generic upgrade: not where the new faction has its own for that type
      return !page.records.some((x) => x.kind === u.kind && x.attributes[u.by] === r.attributes[u.by] &&
        x.attributes[u.same] !== undefined && x.attributes[u.same] === now);
    });
    if (kept.length !== list.length) setPath(table, u.key, kept.length ? kept : undefined);
  }
}

// One field, editing `table` (a side's table, the scenario, or a row) at field.key; `where` is
// the path of `table` in the scenario, for the data-path attributes tests and people can use.
function renderField(field, table, where, group) {
  const path = where ? `${where}.${field.key}` : field.key;
  const value = getPath(table, field.key);
  const set = (v) => {
    setPath(table, field.key, v);
    dropUnfit(table, group || [], field.key);
    changed();
  };
  const wrap = el("div", { class: `field field-${field.type}`, "data-path": path });
  wrap.append(el("span", { class: "label", text: field.label }));
  switch (field.type) {
    case "record": {
      const sel = el("select", { "data-path": path, onchange: (e) => set(e.target.value || undefined) });
      sel.append(el("option", { value: "", text: field.none || "(none)" }));
      const opts = options(field, table);
      if (value !== undefined && !opts.some((r) => r.name === value))
        sel.append(el("option", { value, text: `${value} (not in the loaded packs)` }));
      for (const r of opts) sel.append(el("option", { value: r.name, text: title(r) }));
      sel.value = value === undefined ? "" : value;
      wrap.append(sel);
      break;
    }
    case "records": {
      const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
      const chips = el("div", { class: "chips" });
      list.forEach((name, i) => {
        const r = recordByName(field.kind, name);
        chips.append(el("span", { class: "chip", "data-record": name }, r ? title(r) : String(name),
          el("button", { type: "button", title: "remove", "data-path": path, "data-remove": name, onclick: () => {
            const next = list.filter((_, j) => j !== i);
            set(next.length ? next : undefined);
          } }, "\u00d7")));
      });
      const add = el("select", { "data-path": path, "data-add": "1", onchange: (e) => {
        if (e.target.value) set([...list, e.target.value]);
      } });
      add.append(el("option", { value: "", text: `+ add (${field.label.toLowerCase()})` }));
      for (const r of options(field, table))
        if (!list.includes(r.name)) add.append(el("option", { value: r.name, text: title(r) }));
      wrap.append(chips, add);
      break;
    }
    case "counts": {
      if (field.beside) return null;  // drawn in the table of the field it stands beside
      const besides = (group || []).filter((f) => f.type === "counts" && f.beside === field.key);
      const counts = isTable(value) ? value : {};
      const names = options(field, table).map((r) => r.name);
      for (const n of Object.keys(counts)) if (!names.includes(n)) names.push(n);
      const tbl = el("table", { class: "counts" });
      const counter = (f, name, max) => {
        const cur = getPath(table, f.key) || {};
        const n = Number.isInteger(cur[name]) ? cur[name] : 0;
        const put = (k) => {
          const next = { ...(getPath(table, f.key) || {}) };
          if (k > 0) next[name] = k;
          else delete next[name];
          setPath(table, f.key, Object.keys(next).length ? next : undefined);
          changed();
        };
        const p = where ? `${where}.${f.key}.${name}` : `${f.key}.${name}`;
        return [
          el("td", {}, el("button", { type: "button", class: "small", "data-path": p, "data-op": "-",
            disabled: n <= 0, onclick: () => put(n - 1) }, "\u2212")),
          el("td", { class: "n", "data-path": p, "data-count": String(n) }, String(n)),
          el("td", {}, el("button", { type: "button", class: "small", "data-path": p, "data-op": "+",
            disabled: n >= max, onclick: () => put(n + 1) }, "+")),
        ];
      };
      for (const name of names) {
        const { record: r, upgrade, held } = shownRecord(field, table, name);
        const n = Number.isInteger(counts[name]) ? counts[name] : 0;
        const label = el("td", { class: "name", "data-record": r ? r.name : name },
          el("span", { class: "unit-name", text: r ? r.title || r.name : name }));
        const stats = statsOf(field, r);
        if (stats.length) label.append(el("span", { class: "stats" }, ...stats));
        const row = el("tr", { class: n ? "" : "zero", "data-row": name }, label, ...counter(field, name, field.max));
        for (const b of besides) {
          // beside counters follow the record shown: a faction's unit may sustain where the generic one cannot
          const ok = fits(b, r);
          row.append(el("td", { class: "muted beside", text: ok ? b.label : "" }));
          if (ok) row.append(...counter(b, name, Math.min(b.max, n)));
          else row.append(el("td"), el("td"), el("td"));
        }
        if (field.upgrade) {
          const u = field.upgrade;
          const up = upgrade ? recordByName(field.kind, upgrade.attributes[u.to]) : null;
          row.append(el("td", { class: "upgrade" }, upgrade ? el("label", { title: up ? `${title(upgrade)}: ${up.title || up.name}` : title(upgrade) },
            el("input", { type: "checkbox", "data-path": where ? `${where}.${u.key}` : u.key, "data-upgrade": upgrade.name, checked: held,
              onchange: (e) => {
                const cur = getPath(table, u.key);
                const list = Array.isArray(cur) ? cur.filter((x) => x !== upgrade.name) : [];
                if (e.target.checked) list.push(upgrade.name);
                setPath(table, u.key, list.length ? list : undefined);
                changed();
              } }), " " + u.label) : null));
        }
        tbl.append(row);
      }
      wrap.append(tbl);
      break;
    }
    case "order": {
      const list = Array.isArray(value) ? value : field.default;
      const ol = el("ol", { class: "order" });
      list.forEach((name, i) => {
        const move = (d) => {
          const next = [...list];
          [next[i], next[i + d]] = [next[i + d], next[i]];
          set(next);
        };
        // the unit as the side's rows name it (a faction's unit, its upgrade), not its type's id
        const rows = (group || []).find((f) => f.type === "counts" && !f.beside && f.kind === field.kind);
        const r = rows ? shownRecord(rows, table, name).record : recordByName(field.kind, name);
        ol.append(el("li", { "data-item": name, title: name }, r ? r.title || r.name : name,
          el("button", { type: "button", class: "small", title: "earlier", disabled: i === 0, onclick: () => move(-1) }, "\u2191"),
          el("button", { type: "button", class: "small", title: "later", disabled: i === list.length - 1, onclick: () => move(1) }, "\u2193")));
      });
      wrap.append(ol);
      if (Array.isArray(value))
        wrap.append(el("button", { type: "button", onclick: () => set(undefined) }, "back to the default"));
      break;
    }
    case "choice": {
      const sel = el("select", { "data-path": path });
      sel.append(el("option", { value: "", text: field.none || (field.default ? `default (${field.default})` : "(default)") }));
      for (const v of field.values) sel.append(el("option", { value: v, text: v }));
      const num = field.number;
      if (num) sel.append(el("option", { value: "#", text: num.label }));
      const isNum = num && Number.isInteger(value);
      if (value !== undefined && !isNum && !field.values.includes(value))
        sel.append(el("option", { value: String(value), text: `${value} (not one of the values)` }));
      sel.value = value === undefined ? "" : isNum ? "#" : String(value);
      wrap.append(sel);
      if (isNum || (num && sel.value === "#")) {
        wrap.append(el("input", { type: "number", min: num.min, max: num.max, value: isNum ? value : num.min,
          "data-path": path + "#", onchange: (e) => set(parseInt(e.target.value, 10)) }));
      }
      sel.addEventListener("change", (e) => {
        const v = e.target.value;
        set(v === "" ? undefined : v === "#" ? num.min : v);
      });
      break;
    }
    case "set": {
      const list = Array.isArray(value) ? value : [];
      for (const v of field.values) {
        wrap.append(el("label", {}, el("input", { type: "checkbox", "data-path": path, value: v, checked: list.includes(v),
          onchange: (e) => {
            const next = field.values.filter((x) => (x === v ? e.target.checked : list.includes(x)));
            set(next.length ? next : undefined);
          } }), " " + v + " "));
      }
      break;
    }
    case "int": {
      wrap.append(el("input", { type: "number", min: field.min, max: field.max, step: 1, "data-path": path,
        value: Number.isInteger(value) ? value : "", placeholder: field.default !== undefined ? String(field.default) : "",
        onchange: (e) => set(e.target.value === "" ? undefined : parseInt(e.target.value, 10)) }));
      break;
    }
    case "ints": {
      const list = Array.isArray(value) ? value : [];
      for (let i = 0; i < field.count; i++) {
        wrap.append(el("input", { type: "number", min: field.min, max: field.max, step: 1, "data-path": `${path}.${i}`,
          title: field.labels[i] || "", placeholder: field.labels[i] || "", style: "width: 5em",
          value: Number.isInteger(list[i]) ? list[i] : "",
          onchange: (e) => {
            const next = [];
            for (let j = 0; j < field.count; j++) next.push(j === i ? e.target.value : list[j]);
            const nums = next.map((x) => (x === "" || x === undefined ? NaN : parseInt(x, 10)));
            set(nums.every((x) => Number.isNaN(x)) ? undefined : nums.map((x) => (Number.isNaN(x) ? 0 : x)));
          } }));
      }
      break;
    }
    case "bool": {
      const on = value === undefined ? field.default : value === true;
      wrap.append(el("input", { type: "checkbox", "data-path": path, checked: on,
        onchange: (e) => set(e.target.checked === field.default ? undefined : e.target.checked) }));
      break;
    }
    case "text":
    case "names": {
      const shown = Array.isArray(value) ? value.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ")
        : value === undefined ? "" : String(value);
      wrap.append(el("input", { type: "text", "data-path": path, value: shown, size: field.type === "names" ? 36 : 16,
        placeholder: field.type === "names" ? "a, b, c" : "",
        onchange: (e) => {
          const t = e.target.value.trim();
          if (field.type === "text") return set(t === "" ? undefined : t);
          const list = t.split(",").map((x) => x.trim()).filter((x) => x !== "");
          set(list.length ? list : undefined);
        } }));
      break;
    }
    case "rows": {
      const rows = Array.isArray(value) ? value : [];
      const sub = page.ruleset.form.groups[field.fields];
      const box = el("div", { class: "rows" });
      rows.forEach((row, i) => {
        const r = el("div", { class: "row", "data-path": `${path}.${i}` });
        if (isTable(row)) for (const f of sub) {
          const w = renderField(f, row, `${path}.${i}`, sub);
          if (w) r.append(w);
        }
        r.append(el("button", { type: "button", class: "small", title: "remove", onclick: () => {
          const next = rows.filter((_, j) => j !== i);
          set(next.length ? next : undefined);
        } }, "\u00d7"));
        box.append(r);
      });
      box.append(el("button", { type: "button", "data-path": path, "data-add": "1", onclick: () => set([...rows, {}]) }, "+ " + field.add));
      wrap.append(box);
      break;
    }
  }
  if (field.doc) wrap.append(el("div", { class: "doc", text: field.doc }));
  return wrap;
}

// Is a field drawn in this column? A field with `sides` only in those sides' columns.
function drawnOn(field, side) {
  return !field.sides || !field.sides.length || field.sides.includes(side);
}

// The fields of a group a column draws (a side's column: where = the side's name).
function fieldsOf(name, where) {
  return page.ruleset.form.groups[name].filter((f) => drawnOn(f, where));
}

function renderGroup(name, table, where) {
  const fields = fieldsOf(name, where);
  const box = el("div", { class: "group", "data-group": name });
  for (const f of fields) {
    const w = renderField(f, table, where, fields);
    if (w) box.append(w);
  }
  return box;
}

// The fields a side's column draws in a procedure's form (its side group, then its extra group).
function sideFields(p, side) {
  // a procedure with no side group (X-Wing's engagement: its ships are a list) draws none
  const out = p.side_group ? fieldsOf(p.side_group, side) : [];
  if (p.extra[side]) out.push(...fieldsOf(p.extra[side], side));
  return out;
}

// The procedures offered as a switch above the sides: those whose forms have the same sides as
// this one (TI4: Space combat / Ground combat), in the ruleset's order.
function switchable(p) {
  const form = page.ruleset.form;
  const same = (q) => q && q.sides.length && q.sides.join("\u0000") === p.sides.join("\u0000");
  return page.ruleset.procedures.filter((name) => same(form.procedures[name]));
}

function renderSwitch(p) {
  const names = switchable(p);
  if (names.length < 2) return null;
  const box = el("div", { class: "switch", id: "procedure-switch", role: "group", "aria-label": "what is fought" });
  for (const name of names) {
    const on = name === page.procedure;
    box.append(el("button", { type: "button", class: on ? "on" : "", "data-procedure": name, "aria-pressed": on ? "true" : "false",
      onclick: () => { if (!on) switchProcedure(name); } }, page.ruleset.form.procedures[name].label));
  }
  return box;
}

// Switching to a procedure of the same sides keeps what the sides share: each side's table (its
// faction, technologies, cards, leaders, policy), its counts cut to the rows the new form offers
// that side (a damaged count to its units); the top-level keys the new form's groups edit; the
// packs, name and description. The rest (a space combat's system) goes.
function switchProcedure(name) {
  const form = page.ruleset.form;
  const next = form.procedures[name];
  const s = page.scenario;
  const copy = (v) => JSON.parse(JSON.stringify(v));
  const out = { ruleset: s.ruleset, procedure: name };
  for (const k of ["packs", "name", "description"]) if (s[k] !== undefined) out[k] = copy(s[k]);
  for (const g of next.groups)
    for (const f of form.groups[g]) {
      const top = f.key.split(".")[0];
      if (s[top] !== undefined && out[top] === undefined) out[top] = copy(s[top]);
    }
  for (const side of next.sides) {
    const t = isTable(s[side]) ? copy(s[side]) : {};
    const fields = sideFields(next, side);
    for (const f of fields.filter((x) => x.type === "counts" && !x.beside)) {
      const counts = getPath(t, f.key);
      if (!isTable(counts)) continue;
      const offered = new Set(options(f, t).map((r) => r.name));
      const kept = {};
      for (const [k, n] of Object.entries(counts)) if (offered.has(k)) kept[k] = n;
      setPath(t, f.key, Object.keys(kept).length ? kept : undefined);
      for (const b of fields.filter((x) => x.type === "counts" && x.beside === f.key)) {
        const d = getPath(t, b.key);
        if (!isTable(d)) continue;
        const left = {};
        for (const [k, n] of Object.entries(d)) if (kept[k]) left[k] = Math.min(n, kept[k]);
        setPath(t, b.key, Object.keys(left).length ? left : undefined);
      }
    }
    out[side] = t;
  }
  page.procedure = name;
  page.scenario = out;
  $("procedure").value = name;
  clearResults();
  renderCompareChoices();
  changed();
}

function currentForm() {
  const form = page.ruleset && page.ruleset.form;
  return form && form.procedures[page.procedure] ? form.procedures[page.procedure] : null;
}

function formSides() {
  const p = currentForm();
  if (p && p.sides.length) return p.sides;
  const report = page.ruleset && page.ruleset.reports[page.procedure];
  return report ? report.sides : [];
}

function renderForm() {
  const box = $("form");
  box.replaceChildren();
  const p = currentForm();
  if (!p) {
    box.append(el("p", { class: "muted", text: page.ruleset && page.ruleset.form_error
      ? `The ruleset's form.toml has an error: ${page.ruleset.form_error}`
      : `The procedure '${page.procedure}' has no form in the ruleset's form.toml: edit its scenario as TOML below, or load an example.` }));
    return;
  }
  if (p.sides.length) {
    const sw = renderSwitch(p);
    if (sw) box.append(sw);
    const sides = el("div", { class: "sides" });
    for (const side of p.sides) {
      if (!isTable(page.scenario[side])) page.scenario[side] = {};
      const col = el("div", { class: "side", "data-side": side }, el("h3", { text: side }));
      col.append(renderGroup(p.side_group, page.scenario[side], side));
      if (p.extra[side]) col.append(renderGroup(p.extra[side], page.scenario[side], side));
      sides.append(col);
    }
    box.append(sides);
  }
  for (const g of p.groups) box.append(renderGroup(g, page.scenario, ""));
}

// ------------------------------------------------------------------ TOML box

function scenarioToml() {
  return toToml(page.scenario, formSides());
}

function writeToml() {
  $("toml").value = scenarioToml();
  page.tomlEdited = false;
  $("toml-note").textContent = "";
}

// The scenario a loaded TOML text describes: the ruleset, procedure and packs follow it.
async function loadToml(text) {
  clearMessage();
  let parsed;
  try {
    parsed = await api("POST", "/api/parse", { toml: text });
  } catch (e) {
    showMessage(e.message);
    return false;
  }
  const s = parsed.scenario;
  const rs = page.rulesets.find((r) => r.id === s.ruleset);
  if (!rs) {
    showMessage(s.ruleset === undefined ? "scenario: missing key 'ruleset' (expected a string)"
      : `scenario: no ruleset '${s.ruleset}'; the rulesets: ${page.rulesets.map((r) => r.id).join(", ")}`);
    return false;
  }
  await chooseRuleset(rs.id, s.procedure || rs.procedures[0], s);
  writeToml();
  // the same check as the command line's: the ruleset's setup reads every key (a check takes one
  // of the server's places, which the new setup's answer and best play may hold for a moment)
  try {
    await postWhenFree("/api/check", { scenario: scenarioToml() });
  } catch (e) {
    showMessage(e.message);
    return false;
  }
  return true;
}

// ------------------------------------------------------------------ ruleset, packs, examples

function packsOfRuleset() {
  return page.packs.filter((p) => p.ruleset === page.ruleset.id);
}

function renderPacks() {
  const box = $("packs");
  box.replaceChildren();
  const chosen = new Set(page.scenario.packs || []);
  for (const p of packsOfRuleset()) {
    const base = p.id === page.ruleset.base_pack;
    const loaded = page.loadedPacks.includes(p.id);
    // a test-only pack (pack.toml) is not offered; shown only while a loaded scenario names it
    if (p.test_only && !chosen.has(p.id) && !loaded) continue;
    const input = el("input", { type: "checkbox", "data-pack": p.id, checked: base || chosen.has(p.id) || loaded,
      disabled: base || (loaded && !chosen.has(p.id)), onchange: async (e) => {
        const next = new Set(page.scenario.packs || []);
        if (e.target.checked) next.add(p.id);
        else next.delete(p.id);
        setPath(page.scenario, "packs", next.size ? [...next].sort() : undefined);
        await reloadRecords();
      } });
    const why = base ? "the ruleset's base pack" : loaded && !chosen.has(p.id) ? "loaded by another pack's dependency" : `${p.name} ${p.version}`;
    box.append(el("label", { title: why }, input, " " + p.id,
      p.origin === "homebrew" ? el("span", { class: "badge", text: "homebrew" }) : null));
  }
}

async function reloadRecords() {
  const packs = (page.scenario.packs || []).join(",");
  const q = `ruleset=${encodeURIComponent(page.ruleset.id)}&packs=${encodeURIComponent(packs)}`;
  clearMessage();
  try {
    const r = await api("GET", `/api/records?${q}`);
    page.records = r.records;
    page.loadedPacks = r.packs.map((p) => p.id);
  } catch (e) {
    page.records = [];
    page.loadedPacks = [];
    showMessage(e.message);
  }
  try {
    page.examples = (await api("GET", `/api/scenarios?${q}`)).scenarios;
  } catch (e) {
    page.examples = [];
  }
  renderPacks();
  renderExamples();
  renderForm();
  renderCompareChoices();
  writeToml();
  setupChanged();
  document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
}

function renderExamples() {
  const sel = $("example");
  sel.replaceChildren(el("option", { value: "", text: "(choose a scenario)" }));
  page.examples.forEach((s, i) => {
    sel.append(el("option", { value: String(i), title: s.description || "",
      text: `${s.pack}/${s.file}${s.procedure ? " \u2014 " + s.procedure : ""}` }));
  });
}

async function chooseRuleset(id, procedure, scenario) {
  page.ruleset = page.rulesets.find((r) => r.id === id);
  try {
    localStorage.setItem("rulebench.ruleset", id);
  } catch (e) {
    // no storage: the choice is not remembered
  }
  page.procedure = procedure && page.ruleset.procedures.includes(procedure) ? procedure : page.ruleset.procedures[0];
  // a new scenario starts with the packs that say default_on (pack.toml)
  const defaults = page.packs.filter((p) => p.ruleset === id && p.default_on && !p.test_only).map((p) => p.id).sort();
  page.scenario = scenario || { ruleset: id, procedure: page.procedure, ...(defaults.length ? { packs: defaults } : {}) };
  // a scenario's [play] (who plays best, and the objective) is the Best play view's, not the
  // setup's: the view ticks its sides and asks (best.js), and the other answers play the policies
  const play = isTable(page.scenario.play) ? page.scenario.play : null;
  delete page.scenario.play;
  $("ruleset").value = id;
  const procSel = $("procedure");
  procSel.replaceChildren();
  for (const p of page.ruleset.procedures) {
    const f = page.ruleset.form && page.ruleset.form.procedures[p];
    procSel.append(el("option", { value: p, text: f ? f.label : `${p} (TOML only)` }));
  }
  procSel.value = page.procedure;
  clearResults();
  if (page.ruleset.error) showMessage(page.ruleset.error);
  await reloadRecords();
  if (play) emit("play", play);
}

// ------------------------------------------------------------------ results

function pct(p) {
  return (100 * p).toFixed(2) + "%";
}
function colour(i) {
  return `var(--c${i % 6})`;
}

function barRow(key, label, p, ci, i) {
  const bar = el("div", { class: "bar" }, el("div", { class: "fill", style: `width:${100 * p}%; background:${colour(i)}` }));
  if (ci) bar.append(el("div", { class: "ci", style: `left:${100 * ci[0]}%; width:${100 * (ci[1] - ci[0])}%` }));
  return [
    el("div", { text: label }),
    bar,
    el("div", { class: "num" }, el("span", { class: "pct", "data-key": key, text: pct(p) }),
      ci ? el("span", { class: "muted ci-text", "data-key": key, text: `  [${pct(ci[0])} .. ${pct(ci[1])}]` }) : null),
  ];
}

// A bar chart of a distribution: the probability of each value 0, 1, 2 ...
function chart(name, values, dataKey) {
  const w = Math.max(120, 26 * values.length + 20), h = 110, top = Math.max(...values, 1e-9);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  const bw = (w - 20) / values.length;
  values.forEach((p, k) => {
    const bh = (h - 34) * (p / top);
    const x = 10 + k * bw;
    const rect = document.createElementNS(svg.namespaceURI, "rect");
    rect.setAttribute("x", x + 2);
    rect.setAttribute("y", h - 18 - bh);
    rect.setAttribute("width", Math.max(1, bw - 4));
    rect.setAttribute("height", bh);
    rect.setAttribute("fill", "#2f5fb3");
    const tip = document.createElementNS(svg.namespaceURI, "title");
    tip.textContent = `${k}: ${pct(p)}`;
    rect.append(tip);
    const label = document.createElementNS(svg.namespaceURI, "text");
    label.setAttribute("x", x + bw / 2);
    label.setAttribute("y", h - 5);
    label.setAttribute("text-anchor", "middle");
    label.textContent = String(k);
    const val = document.createElementNS(svg.namespaceURI, "text");
    val.setAttribute("x", x + bw / 2);
    val.setAttribute("y", h - 21 - bh);
    val.setAttribute("text-anchor", "middle");
    val.textContent = p >= 0.005 ? Math.round(100 * p) + "%" : "";
    svg.append(rect, label, val);
  });
  return el("div", { class: "chart", "data-chart": dataKey }, el("div", { class: "title", text: name }), svg);
}

// An outcome or probability the report shows only when some run ends in it (only_when_any: the
// outcome "ongoing" of a combat stopped after round k)
function hiddenKey(def, result, key) {
  return (def.only_when_any || []).includes(key) && !(result[key] > 0);
}

function renderResult(result, state) {
  const def = page.ruleset.reports[page.procedure] || { outcomes: [], means: [], probabilities: [], distributions: [], sides: [] };
  const box = $("results");
  box.replaceChildren();
  const head = result.method === "exact"
    ? `exact: ${result.states} states, ${result.step_runs} step runs, ${(1000 * result.seconds).toFixed(1)} ms` +
      (result.unresolved > 0 ? ` (unresolved ${result.unresolved.toExponential(2)})` : "")
    : `${result.runs} runs, seed ${result.seed}` + (result.interrupted ? " \u2014 cancelled: the runs done so far" : "");
  box.append(el("p", { id: "result-head", "data-runs": String(result.runs || 0), "data-method": result.method || "montecarlo", text: head }));
  if (result.warning) box.append(el("p", { class: "message error", text: result.warning }));
  if (result.exact_stopped) box.append(el("p", { class: "message", id: "exact-stopped", text: result.exact_stopped }));
  const bars = el("div", { class: "bars", id: "outcomes" });
  def.outcomes.forEach((o, i) => { if (!hiddenKey(def, result, o)) bars.append(...barRow(o, o, result[o], result.ci95[o], i)); });
  def.probabilities.forEach(({ key, metric }, i) => {
    if (hiddenKey(def, result, key)) return;
    const label = result.labels && result.labels[metric] ? `${key} (${result.labels[metric]})` : key;
    bars.append(...barRow(key, label, result[key], result.ci95[key], i + def.outcomes.length));
  });
  box.append(bars);
  if (def.means.length) {
    const t = el("table", { class: "means", id: "means" });
    for (const { key } of def.means) {
      const ci = result.ci95[key];
      t.append(el("tr", {}, el("td", { text: key }),
        el("td", { class: "num mean", "data-key": key, text: typeof result[key] === "number" ? result[key].toFixed(4) : "" }),
        el("td", { class: "muted num", text: ci ? `[${ci[0].toFixed(4)} .. ${ci[1].toFixed(4)}]` : "" })));
    }
    box.append(t);
  }
  const charts = el("div", { class: "charts" });
  for (const { key } of def.distributions) if (Array.isArray(result[key])) charts.append(chart(key, result[key], key));
  // a distribution the exact mode gives as a mean only (rounds: added to round by round)
  for (const key of result.means_only || []) {
    const d = def.distributions.find((x) => x.key === key);
    const m = d && def.means.find((x) => x.metric === d.metric);
    const mean = m && typeof result[m.key] === "number" ? ` (mean ${result[m.key].toFixed(2)})` : "";
    charts.append(el("div", { class: "chart means-only", "data-chart": key, "data-means-only": "1" },
      el("div", { class: "title", text: key.replace(/_/g, " ") }),
      el("p", { class: "muted", text: `exact: the mean only${mean}; its distribution comes with Monte Carlo (Run, Exact off)` })));
  }
  const units = def.survivors && result[def.survivors + "_units"];
  if (units) {
    const o = outcomeChart(result, def);
    if (o) box.append(o);
  }
  if (def.survivors && result[def.survivors]) box.append(survivorsPicture(result[def.survivors], def));
  const combos = def.survivors && result[def.survivors + "_combinations"];
  if (combos) box.append(combinationsList(combos, def));
  if (def.survivors && result[def.survivors]) {
    for (const [side, types] of Object.entries(result[def.survivors]))
      for (const [type, dist] of Object.entries(types))
        charts.append(chart(`${side} ${type}: survivors`, dist, `${side}.${type}`));
  }
  if (charts.children.length) box.append(charts);
  $("result-json").textContent = JSON.stringify(result, null, 1);
  $("results-section").hidden = false;
  // the answers while you click are counted in data-answers, the runs of Run in data-results
  if (!state || !state.live) document.body.dataset.results = String(Number(document.body.dataset.results || 0) + 1);
  emit("result", result, { method: result.method || "montecarlo", final: state ? state.final !== false : true, setup: window.rb.getSetup() });
}

// The whole distribution in one chart, as the battle calculators draw it: the first side alone
// keeps k units (k = N .. 1), then neither keeps any, then the second side alone keeps k
// (k = 1 .. M), from the result's S_ends (S the report's survivors key: who ends with units,
// jointly). Where both sides keep units in some runs (a retreat, a combat ended early, a ground
// combat with the attacker's ships in space) a bar "both keep units" stands beside "none left", so
// the bars add up to 1. (From S_units alone, the sides' own distributions, the middle bar was 1
// minus both sides' chances of keeping units: a run where both keep was counted twice and the bar
// came out too small, often 0.) A report of more or fewer than two sides has no such chart.
function outcomeChart(result, def) {
  const unitsLeft = result[def.survivors + "_units"];
  const sides = def.sides && def.sides.length ? def.sides : Object.keys(unitsLeft);
  if (sides.length !== 2) return null;
  const ends = result[def.survivors + "_ends"];
  const bars = [];
  if (ends) {
    const [a, d] = sides.map((s) => ends[s] || []);
    for (let k = a.length - 1; k >= 1; --k) bars.push({ side: sides[0], k, p: a[k] });
    bars.push({ side: "", k: 0, p: ends.none || 0 });
    if (ends.several > 0) bars.push({ side: "", both: true, k: 0, p: ends.several });
    for (let k = 1; k < d.length; ++k) bars.push({ side: sides[1], k, p: d[k] });
  } else {
    // an older server: the sides' own distributions (right when at most one side keeps units)
    const [a, d] = sides.map((s) => unitsLeft[s] || []);
    for (let k = a.length - 1; k >= 1; --k) bars.push({ side: sides[0], k, p: a[k] });
    const kept = [...a.slice(1), ...d.slice(1)].reduce((x, p) => x + p, 0);
    bars.push({ side: "", k: 0, p: Math.max(0, 1 - kept) });
    for (let k = 1; k < d.length; ++k) bars.push({ side: sides[1], k, p: d[k] });
  }
  const bw = 26, w = Math.max(140, bw * bars.length + 20), h = 130, top = Math.max(...bars.map((b) => b.p), 1e-9);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  svg.style.maxWidth = "100%";
  const text = (x, y, t, anchor = "middle") => {
    const e = document.createElementNS(ns, "text");
    e.setAttribute("x", x);
    e.setAttribute("y", y);
    e.setAttribute("text-anchor", anchor);
    e.textContent = t;
    return e;
  };
  bars.forEach((b, i) => {
    const bh = (h - 48) * (b.p / top), x = 10 + i * bw;
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", x + 2);
    rect.setAttribute("y", h - 32 - bh);
    rect.setAttribute("width", bw - 4);
    rect.setAttribute("height", Math.max(0, bh));
    rect.style.fill = b.side === sides[0] ? colour(0) : b.side ? colour(2) : b.both ? colour(3) : "#888";
    rect.dataset.side = b.both ? "both" : b.side;
    rect.dataset.k = String(b.k);
    rect.dataset.p = String(b.p);
    const tip = document.createElementNS(ns, "title");
    tip.textContent = b.both ? `both keep units: ${pct(b.p)}` : b.side ? `${b.side} alone keeps ${b.k}: ${pct(b.p)}` : `no units left: ${pct(b.p)}`;
    rect.append(tip);
    svg.append(rect, text(x + bw / 2, h - 19, b.both ? "both" : b.side ? String(b.k) : "0"),
      text(x + bw / 2, h - 35 - bh, b.p >= 0.005 ? Math.round(100 * b.p) + "%" : ""));
  });
  svg.append(text(10, h - 4, `\u2190 ${sides[0]} keeps`, "start"), text(w - 10, h - 4, `${sides[1]} keeps \u2192`, "end"));
  return el("div", { class: "chart outcome-chart", "data-chart": "outcome" },
    el("div", { class: "title", text: "units left: the whole distribution" }), svg);
}

// The survivors by combination (S_combinations: side -> the most likely combinations first,
// then "other"), each named as the side's rows name its units.
function combinationsList(combos, def) {
  const box = el("div", { class: "combinations", id: "combinations" });
  const sides = def.sides && def.sides.length ? def.sides : Object.keys(combos);
  for (const side of sides) {
    const list = combos[side];
    if (!list || !list.length) continue;
    const ul = el("ul", { "data-side": side });
    for (const c of list) {
      const name = c.left ? Object.entries(c.left).map(([type, n]) => `${n} ${unitName(def, side, type)}`).join(", ") || "none left"
        : c.key;
      ul.append(el("li", { "data-key": c.key }, el("span", { class: "num", text: pct(c.p) }), el("span", { text: " " + name })));
    }
    box.append(el("div", { class: "combinations-side" }, el("b", { text: `${side} keeps` }), ul));
  }
  return box;
}

// A counted unit's name as the side's row shows it (a faction's unit, its upgrade).
function unitName(def, side, type) {
  const form = currentForm();
  const field = form && form.side_group && sideFields(form, side)
    .find((f) => f.type === "counts" && !f.beside && f.kind === (def.survivor_kind || "unit"));
  const r = field && isTable(page.scenario[side]) ? shownRecord(field, page.scenario[side], type).record
    : recordByName(def.survivor_kind || "unit", type);
  return r ? r.title || r.name : type;
}

// What each side keeps, from the survivors the result has (per unit type, the probability of
// keeping 0, 1, 2 ...): a row per side, a bar per type whose width is the expected number kept
// (the sum of k times its probability) out of the number that began. (The chances of the
// combinations are combinationsList's.)
function survivorsPicture(survivors, def) {
  const box = el("div", { class: "kept", id: "kept" });
  const sides = def.sides && def.sides.length ? def.sides : Object.keys(survivors);
  sides.forEach((side, s) => {
    const types = survivors[side];
    if (!types) return;
    let kept = 0, began = 0;
    const row = el("div", { class: "kept-row", "data-side": side });
    const bars = el("div", { class: "kept-bars" });
    for (const [type, dist] of Object.entries(types)) {
      const mean = dist.reduce((a, p, k) => a + k * p, 0);
      const n = dist.length - 1;
      kept += mean;
      began += n;
      const name = unitName(def, side, type);
      bars.append(el("div", { class: "kept-type", title: `${name}: ${mean.toFixed(2)} of ${n} kept on average; ` +
          dist.map((p, k) => `${k}: ${pct(p)}`).join(", ") },
        el("span", { class: "kept-name", text: `${name} ${mean.toFixed(2)}/${n}` }),
        el("span", { class: "kept-track" }, el("span", { class: "kept-fill", style: `width:${n ? (100 * mean) / n : 0}%; background:${colour(s * 2)}` }))));
    }
    row.append(el("div", { class: "kept-head" }, el("b", { text: side }),
      el("span", { class: "muted", "data-kept": side, text: ` keeps ${kept.toFixed(2)} of ${began} units on average` })), bars);
    box.append(row);
  });
  return box;
}

// The results of another ruleset or procedure would be misread: they go when it changes.
function clearResults() {
  renderAnswer(null);
  $("results-section").hidden = true;
  $("results").replaceChildren();
  $("compare-result").replaceChildren();
  $("trace-result").replaceChildren();
}

// ------------------------------------------------------------------ runs

function setRunning(kind) {
  const busy = kind !== null;
  $("run").disabled = busy;
  $("compare").disabled = busy;
  $("cancel").disabled = !busy;
  if (!busy) return;
  $("progress-bar").style.width = "0%";
  $("progress-text").textContent = `${kind}: starting`;
}

function progress(job) {
  const f = job.planned ? Math.min(1, job.done / job.planned) : 0;
  $("progress-bar").style.width = `${(100 * f).toFixed(1)}%`;
  $("progress-text").textContent = page.exact ? `${job.kind}: exploring every way the run can go`
    : `${job.kind}: ${job.done} of ${job.planned} ${job.kind === "compare" ? "pairs" : "runs"}`;
}

async function follow(id, kind, done) {
  page.job = { id, kind };
  setRunning(kind);
  for (;;) {
    let job;
    try {
      job = await api("GET", `/api/jobs/${id}`);
    } catch (e) {
      showMessage(e.message);
      break;
    }
    progress(job);
    if (job.state === "error") {
      showMessage(job.error);
      $("progress-text").textContent = `${kind}: failed`;
      break;
    }
    if (job.state !== "running") {
      $("progress-bar").style.width = job.state === "done" ? "100%" : $("progress-bar").style.width;
      const exact = page.exact && !(job.result && job.result.exact_stopped);
      $("progress-text").textContent = exact ? `${kind}: exact, done in ${job.seconds.toFixed(2)} s`
        : `${kind}: ${job.state === "done" ? "done" : "cancelled"}, ${job.done} ${kind === "compare" ? "pairs" : "runs"} in ${job.seconds.toFixed(1)} s`;
      done(job.result);
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  page.job = null;
  setRunning(null);
}

// A seed is sent as text: one beyond 2^53 stays exact (the server checks it is a whole number).
function seedOf(id) {
  return $(id).value.trim();
}

// The exact mode's time bound on the page: past it the server answers by Monte Carlo.
const EXACT_SECONDS = 5;

// The run mode (Monte Carlo or exact) applies to Run and to Compare.
function exactMode() {
  return document.querySelector('input[name="mode"]:checked').value === "exact";
}

async function run() {
  clearMessage();
  // a run asked for by Run replaces the answer in progress
  clearTimeout(live.timer);
  live.serial++;
  cancelLive();
  const body = { scenario: scenarioToml(), seed: seedOf("seed") };
  page.exact = exactMode();
  const precision = $("precision").value.trim();
  // the exact answer when it comes within its bound, else Monte Carlo (the result says so)
  if (page.exact) Object.assign(body, { exact: true, fallback: true, max_seconds: EXACT_SECONDS });
  else if (precision !== "") body.precision = Number(precision);
  else body.runs = Number($("runs").value);
  const serial = live.serial;
  try {
    const r = await postSimulate(body, () => serial !== live.serial);
    await follow(r.job, "simulate", (result) => renderResult(result));
  } catch (e) {
    showMessage(e.message);
  }
}

async function cancel() {
  if (!page.job) return;
  try {
    await api("DELETE", `/api/jobs/${page.job.id}`);
  } catch (e) {
    showMessage(e.message);
  }
}

// ------------------------------------------------------------------ the answer while you click

// Every change of the setup asks for an answer at once (no Run button): the exact one when it
// comes within LIVE_EXACT_SECONDS, else Monte Carlo in growing stages on the same seed (each stage
// repeats the runs of the one before and adds more, so its intervals narrow), each stage drawn
// when it ends. A newer change makes the answer in progress stale: its job is cancelled (DELETE),
// not queued behind the new one.
const LIVE_EXACT_SECONDS = 0.1;
const LIVE_STAGES = [2000, 10000, 50000];  // the last: every 95% interval within about ±0.45 pts
const live = { serial: 0, job: null, timer: null, started: 0 };

function scheduleAnswer() {
  clearTimeout(live.timer);
  live.serial++;  // what is in progress is stale from now on
  live.started = performance.now();  // the answer's time counts from the change
  cancelLive();
  // the answer shown is the last setup's until this one's comes: no longer "final"
  document.body.dataset.answerState = "pending";
  live.timer = setTimeout(answer, 25);  // changes made together (a loaded setup) ask once
}

function cancelLive() {
  const id = live.job;
  live.job = null;
  if (id !== null) api("DELETE", `/api/jobs/${id}`).catch(() => {});
}

function liveStatus(text, state) {
  const s = $("answer-status");
  s.textContent = text;
  document.body.dataset.answerState = state;  // pending, computing, montecarlo, final, error, none
}

// The server runs --jobs at once: a stale answer still ending its chunk may hold a place (429),
// also just after Run, Compare or Trace cancelled it. Wait for it, longer between tries (50 ms up
// to 500 ms), for up to 15 s: on a busy machine a chunk can take seconds to end. `stale()`: the
// request is no longer wanted (a newer one replaced it).
async function postWhenFree(path, body, stale = () => false) {
  const start = Date.now();
  for (let delay = 50; ; delay = Math.min(500, delay * 1.5)) {
    try {
      return await api("POST", path, body);
    } catch (e) {
      if (e.status !== 429 || Date.now() - start > 15000 || stale()) throw e;
      await new Promise((res) => setTimeout(res, delay));
    }
  }
}

function postSimulate(body, stale) {
  return postWhenFree("/api/simulate", body, stale);
}

async function answer() {
  const serial = live.serial;
  const stale = () => serial !== live.serial;
  if (!currentForm() && !page.scenario.procedure) {
    document.body.dataset.answerState = "none";
    return;
  }
  const scenario = scenarioToml();
  const seed = "1";  // one seed: a shared link gives the same numbers
  liveStatus("computing\u2026", "computing");
  let r;
  try {
    r = await postSimulate({ scenario, seed, exact: true, max_seconds: LIVE_EXACT_SECONDS, wait: true }, stale);
  } catch (e) {
    if (stale()) return;
    renderAnswer(null);
    liveStatus(e.message, "error");
    return;
  }
  if (stale()) return;
  if (r.state === "done") {
    drawAnswer(r.result, { final: true, stage: 0 });
    return;
  }
  if (!/exact mode stopped/.test(r.error || "")) {
    renderAnswer(null);
    liveStatus(r.error || "no answer", "error");
    return;
  }
  // Monte Carlo, in stages: the exact answer takes longer than the bound
  for (let i = 0; i < LIVE_STAGES.length; i++) {
    let job;
    try {
      job = await postSimulate({ scenario, seed, runs: LIVE_STAGES[i] }, stale);
    } catch (e) {
      if (!stale()) liveStatus(e.message, "error");
      return;
    }
    if (stale()) {
      api("DELETE", `/api/jobs/${job.job}`).catch(() => {});
      return;
    }
    live.job = job.job;
    let done;
    for (;;) {
      await new Promise((res) => setTimeout(res, i === 0 ? 30 : 100));
      if (stale()) return;  // cancelLive has sent the DELETE
      try {
        done = await api("GET", `/api/jobs/${job.job}`);
      } catch (e) {
        if (!stale()) liveStatus(e.message, "error");
        return;
      }
      if (stale()) return;
      if (done.state !== "running") break;
    }
    live.job = null;
    if (done.state !== "done") {
      liveStatus(done.error || done.state, "error");
      return;
    }
    drawAnswer(done.result, { final: i === LIVE_STAGES.length - 1, stage: i + 1 });
  }
}

function drawAnswer(result, info) {
  const now = performance.now();
  const ms = now - live.started;
  document.body.dataset.answerAt = String(now);  // for the browser test's timings
  renderResult(result, { final: info.final, live: true });
  renderAnswer(result);
  const widest = Math.max(0, ...Object.values(result.ci95 || {}).map((ci) => (Array.isArray(ci) && ci.length === 2 && ci[1] <= 1 ? (ci[1] - ci[0]) / 2 : 0)));
  if (result.method === "exact")
    liveStatus(`exact \u00b7 ${Math.round(ms)} ms`, "final");
  else
    liveStatus(`Monte Carlo (the exact answer takes over ${1000 * LIVE_EXACT_SECONDS} ms) \u00b7 ${result.runs.toLocaleString("en")} runs \u00b7 \u00b1${(100 * widest).toFixed(1)} pts` +
      (info.final ? "" : " \u00b7 narrowing\u2026"), info.final ? "final" : "montecarlo");
  document.body.dataset.answerMs = String(Math.round(ms));
  document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
}

// The answer bar: the report's outcomes as one stacked bar (else its probabilities, else its means).
function renderAnswer(result) {
  const box = $("answer-bar");
  box.replaceChildren();
  if (!result) return;
  const def = page.ruleset.reports[page.procedure] || { outcomes: [], probabilities: [], means: [] };
  if (def.outcomes.length) {
    const bar = el("div", { class: "stack" });
    const legend = el("div", { class: "legend" });
    def.outcomes.forEach((o, i) => {
      if (hiddenKey(def, result, o)) return;
      const p = result[o] || 0;
      bar.append(el("div", { class: "seg", style: `width:${100 * p}%; background:${colour(i)}`, title: `${o}: ${pct(p)}` }));
      legend.append(el("span", { class: "item" }, el("i", { style: `background:${colour(i)}` }),
        el("span", { text: o.replace(/_/g, " ") + " " }), el("b", { class: "num", "data-answer": o, text: pct(p) })));
    });
    box.append(bar, legend);
    return;
  }
  const legend = el("div", { class: "legend" });
  for (const { key } of def.probabilities.slice(0, 4))
    legend.append(el("span", { class: "item" }, el("span", { text: key.replace(/_/g, " ") + " " }), el("b", { class: "num", "data-answer": key, text: pct(result[key] || 0) })));
  for (const { key } of def.means.slice(0, 3))
    legend.append(el("span", { class: "item" }, el("span", { text: key.replace(/_/g, " ") + " " }), el("b", { class: "num", "data-answer": key, text: (result[key] || 0).toFixed(2) })));
  box.append(legend);
}

// ------------------------------------------------------------------ compare

function renderCompareChoices() {
  const side = $("compare-side");
  side.replaceChildren(el("option", { value: "", text: "every side" }));
  for (const s of formSides()) side.append(el("option", { value: s, text: s }));
  const what = $("compare-what");
  what.replaceChildren(el("option", { value: "", text: "(a record or a pack)" }));
  for (const [kind, list] of Object.entries(page.ruleset.scenario_lists || {})) {
    const g = el("optgroup", { label: `${kind} (${list})` });
    for (const r of page.records.filter((x) => x.kind === kind)) g.append(el("option", { value: r.name, text: title(r) }));
    if (g.children.length) what.append(g);
  }
  const packs = el("optgroup", { label: "packs" });
  for (const p of packsOfRuleset())
    if (p.id !== page.ruleset.base_pack && !p.test_only) packs.append(el("option", { value: "pack:" + p.id, text: p.id + (p.origin === "homebrew" ? " (homebrew)" : "") }));
  what.append(packs);
}

function compareSpec() {
  const typed = $("compare-spec").value.trim();
  if (typed) return typed;
  const what = $("compare-what").value;
  if (!what) return "";
  if (what.startsWith("pack:")) return what.slice(5);
  const side = $("compare-side").value;
  return side ? `${side}:${what}` : what;
}

function renderComparison(r) {
  const box = $("compare-result");
  box.replaceChildren();
  box.append(el("p", { id: "compare-summary", text: `${r.summary || ""}` }));
  if (r.exact_stopped) box.append(el("p", { class: "message", id: "exact-stopped", text: r.exact_stopped }));
  if (r.method === "exact") {
    box.append(el("p", { class: "muted", id: "compare-method", "data-method": "exact",
      text: `A: as written; B: ${describeChanges(r.changes)}. Exact: every way each arm can go, no interval.` }));
  } else box.append(el("p", { class: "muted", text: `A: as written; B: ${describeChanges(r.changes)}. ${r.runs} pairs, seed ${r.seed}` +
    (r.interrupted ? " \u2014 cancelled: the pairs done so far" : "") +
    (r.changed_outcome !== undefined ? `; the outcome differs in ${pct(r.changed_outcome)} of the pairs.` : "") }));
  const t = el("table", { class: "diff", id: "compare-table" },
    el("tr", {}, el("th", { text: "" }), el("th", { text: "A" }), el("th", { text: "B" }), el("th", { text: "B \u2212 A [95%]" }), el("th", { text: "" })));
  // in the report's order: outcomes, probabilities, means
  const def = page.ruleset.reports[page.procedure] || { outcomes: [], probabilities: [], means: [] };
  const order = [...def.outcomes, ...def.probabilities.map((p) => p.key), ...def.means.map((m) => m.key)];
  const keys = Object.keys(r.difference || {});
  keys.sort((a, b) => (order.indexOf(a) < 0 ? 1e9 : order.indexOf(a)) - (order.indexOf(b) < 0 ? 1e9 : order.indexOf(b)));
  for (const key of keys) {
    const d = r.difference[key];
    const prob = !def.means.some((m) => m.key === key);  // outcomes and 0/1 metrics
    const f = (x) => (prob ? pct(x) : x.toFixed(4));
    const exact = r.method === "exact";
    const diff = exact ? (prob ? `${(100 * d.difference).toFixed(4)} pts` : d.difference.toFixed(6))
      : prob ? `${(100 * d.difference).toFixed(2)} pts [${(100 * d.ci95[0]).toFixed(2)} .. ${(100 * d.ci95[1]).toFixed(2)}]`
      : `${d.difference.toFixed(4)} [${d.ci95[0].toFixed(4)} .. ${d.ci95[1].toFixed(4)}]`;
    const verdict = exact ? (d.difference === 0 ? "no change" : "exact") : d.significant ? "significant" : "not significant";
    t.append(el("tr", { "data-key": key }, el("td", { text: key }), el("td", { class: "num", text: f(d.a) }), el("td", { class: "num", text: f(d.b) }),
      el("td", { class: "num diff-value", "data-key": key, text: diff }),
      el("td", { class: exact || d.significant ? "significant" : "muted", text: verdict })));
  }
  box.append(t);
}

function describeChanges(c) {
  if (!c) return "";
  const parts = [];
  if (c.with && c.with.length) parts.push("with " + c.with.join(", "));
  if (c.without && c.without.length) parts.push("without " + c.without.join(", "));
  return parts.join(", ");
}

async function compare() {
  clearMessage();
  const spec = compareSpec();
  if (!spec) {
    showMessage("compare: choose what B changes (a record or a pack), or write a change such as attacker:policy.sustain=last");
    return;
  }
  page.exact = exactMode();
  const body = { scenario: scenarioToml(), seed: seedOf("seed") };
  if (page.exact) Object.assign(body, { exact: true, fallback: true, max_seconds: EXACT_SECONDS });
  else body.runs = Number($("compare-runs").value);
  body[$("compare-how").value] = [spec];
  try {
    const r = await postWhenFree("/api/compare", body);
    await follow(r.job, "compare", renderComparison);
  } catch (e) {
    showMessage(e.message);
  }
}

// ------------------------------------------------------------------ trace

function renderTrace(r) {
  const box = $("trace-result");
  box.replaceChildren();
  box.append(el("p", { id: "trace-head", text: `seed ${r.seed}: ${r.outcome || "(no outcome)"}` + (r.truncated ? " (trace cut short)" : "") }));
  const pre = el("div", { class: "events", id: "trace-events" });
  const marks = { window: "== ", hook: "-> ", decision: "?? ", destroyed: "xx ", error: "!! " };
  for (const e of r.events) {
    if (!e.text) continue;
    pre.append(el("div", { class: `ev-${e.kind}`, "data-key": e.key, text: "  ".repeat(e.depth) + (marks[e.kind] || "   ") + e.text }));
  }
  box.append(pre);
}

async function trace() {
  clearMessage();
  try {
    const r = await postWhenFree("/api/trace", { scenario: scenarioToml(), seed: seedOf("trace-seed") });
    renderTrace(r);
  } catch (e) {
    if (e.data && e.data.events) renderTrace(e.data);
    showMessage(e.message);
  }
}

// ------------------------------------------------------------------ start

async function copyToml() {
  const text = $("toml").value;
  try {
    await navigator.clipboard.writeText(text);
    $("toml-note").textContent = "copied";
  } catch (e) {
    $("toml").select();  // no clipboard here (an insecure origin): select it for Ctrl-C
    $("toml-note").textContent = "selected: press Ctrl-C to copy";
  }
}

async function start() {
  try {
    page.rulesets = (await api("GET", "/api/rulesets")).rulesets;
    page.packs = (await api("GET", "/api/packs")).packs;
  } catch (e) {
    showMessage(e.message);
    return;
  }
  const rs = $("ruleset");
  for (const r of page.rulesets) rs.append(el("option", { value: r.id, text: r.name ? `${r.name}` : r.id }));
  rs.addEventListener("change", () => chooseRuleset(rs.value));
  $("procedure").addEventListener("change", async (e) => {
    const p = currentForm();
    if (p && p.sides.length && switchable(p).includes(e.target.value)) return switchProcedure(e.target.value);
    page.procedure = e.target.value;
    clearResults();
    page.scenario = { ruleset: page.ruleset.id, procedure: page.procedure, ...(page.scenario.packs ? { packs: page.scenario.packs } : {}) };
    await reloadRecords();
  });
  $("load-example").addEventListener("click", async () => {
    const i = $("example").value;
    if (i !== "") await loadToml(page.examples[Number(i)].toml);
  });
  $("run").addEventListener("click", run);
  $("cancel").addEventListener("click", cancel);
  $("compare").addEventListener("click", compare);
  $("trace").addEventListener("click", trace);
  $("copy-toml").addEventListener("click", copyToml);
  $("copy-link").addEventListener("click", copyLink);
  $("load-toml").addEventListener("click", () => loadToml($("toml").value));
  $("toml").addEventListener("input", () => {
    page.tomlEdited = true;
    $("toml-note").textContent = "edited: press Load scenario TOML to use it";
  });
  // the setup the address holds (a shared link), else
  // the ruleset of ?ruleset=ID, else the one chosen last time here, else the first with a form
  let shared = null;
  try {
    shared = paramsSetup(location.search);
  } catch (e) {
    showMessage(`the address holds a setup that cannot be read: ${e.message}`);
  }
  if (shared && page.rulesets.some((r) => r.id === shared.ruleset)) {
    await window.rb.setSetup(shared);
    document.body.dataset.ready = "1";
    return;
  }
  const asked = new URLSearchParams(location.search).get("ruleset") || localStorage.getItem("rulebench.ruleset");
  const first = page.rulesets.find((r) => r.id === asked) || page.rulesets.find((r) => r.form && r.form.opens_first) ||
    page.rulesets.find((r) => r.form) || page.rulesets[0];
  await chooseRuleset(first.id);
  document.body.dataset.ready = "1";
}

// ------------------------------------------------------------------ the setup in the URL

// The whole setup lives in the page's address, as readable query parameters: one per value, its
// dotted path as the name (attacker.units.cruiser=2, system.anomaly=nebula); a list of values
// repeats its name with [] (attacker.technologies[]=dreadnought_ii); a list of tables numbers its
// rows (system.adjacent.0.id=a). A string that would read as a number or true/false is written in
// JSON quotes ("1"); anything else (a list of lists) as json:<JSON>. An address with ruleset and
// procedure restores its setup; ?ruleset=ID alone only chooses the ruleset.
function scalarParam(v) {
  if (typeof v === "string")
    return /^(-?\d+(\.\d+)?|true|false|".*"|json:.*)$/.test(v) || v === "" ? JSON.stringify(v) : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return "json:" + JSON.stringify(v);
}

function setupParams(setup) {
  const q = new URLSearchParams();
  const walk = (v, path) => {
    if (isTable(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    } else if (isTableArray(v)) {
      v.forEach((row, i) => walk(row, `${path}.${i}`));
    } else if (Array.isArray(v) && v.every((x) => !isTable(x) && !Array.isArray(x))) {
      if (v.length === 0) q.append(path, "json:[]");
      for (const x of v) q.append(path + "[]", scalarParam(x));
    } else {
      q.append(path, scalarParam(v));
    }
  };
  walk(setup, "");
  return q;
}

function readParam(s) {
  if (s === "true") return true;
  if (s === "false") return false;
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (s.startsWith("json:")) return JSON.parse(s.slice(5));
  if (/^".*"$/.test(s)) return JSON.parse(s);
  return s;
}

// The setup an address holds, or null when it holds none.
function paramsSetup(search) {
  const q = new URLSearchParams(search);
  if (!q.get("ruleset") || !q.get("procedure")) return null;
  const setup = {};
  for (const [name, raw] of q) {
    const list = name.endsWith("[]");
    const keys = (list ? name.slice(0, -2) : name).split(".");
    let o = setup;
    keys.forEach((k, i) => {
      const last = i === keys.length - 1;
      const nextIsRow = !last && /^\d+$/.test(keys[i + 1]);
      if (last) {
        const v = readParam(raw);
        if (list) (Array.isArray(o[k]) ? o[k] : (o[k] = [])).push(v);
        else o[k] = v;
      } else {
        if (o[k] === undefined || o[k] === null || typeof o[k] !== "object") o[k] = nextIsRow ? [] : {};
        o = o[k];
      }
    });
  }
  // rows were filled by index: no holes
  const compact = (v) => {
    if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
    if (isTable(v)) for (const k of Object.keys(v)) v[k] = compact(v[k]);
    return v;
  };
  return compact(setup);
}

// The setup and, when a side is ticked in the Best play view, its [play] (play.defender=best,
// play.objective=win): opening the link ticks them again and asks.
function shareUrl() {
  const play = window.rb.play ? window.rb.play() : null;
  const setup = play ? { ...page.scenario, play } : page.scenario;
  return location.origin + location.pathname + "?" + setupParams(setup).toString();
}

function writeUrl() {
  try {
    history.replaceState(null, "", shareUrl());
  } catch (e) {
    // an address too long for this browser: the page keeps working, the link is not updated
  }
}

async function copyLink() {
  const url = shareUrl();
  $("share-url").value = url;
  try {
    await navigator.clipboard.writeText(url);
    $("share-note").textContent = "link copied";
  } catch (e) {
    $("share-url").hidden = false;
    $("share-url").select();
    $("share-note").textContent = "selected: press Ctrl-C to copy";
  }
}

// ------------------------------------------------------------------ the page's API (see the top)

const listeners = { change: [], result: [], play: [] };

function emit(kind, ...args) {
  for (const fn of listeners[kind]) {
    try {
      fn(...args);
    } catch (e) {
      console.error(e);  // one listener's error does not stop the page or the others
    }
  }
}

function setupChanged() {
  writeUrl();
  scheduleAnswer();
  emit("change", window.rb.getSetup());
}

// Polls GET /api/jobs/ID every `ms` until the job stops running: onRunning(job) sees each running
// reply. It gives null when live() turns false (a newer request took over the view), else the
// job as it ended (done, cancelled or error; a failed request as { state: "error", error }).
async function pollJob(id, { onRunning, live, ms = 250 } = {}) {
  for (;;) {
    await new Promise((res) => setTimeout(res, ms));
    if (live && !live()) return null;
    let j;
    try {
      j = await api("GET", `/api/jobs/${id}`);
    } catch (e) {
      return { state: "error", error: e.message };
    }
    if (j.state !== "running") return j;
    if (onRunning) onRunning(j);
  }
}

window.rb = {
  getSetup: () => JSON.parse(JSON.stringify(page.scenario)),
  setSetup: async (setup) => {
    const s = JSON.parse(JSON.stringify(setup));
    const rs = page.rulesets.find((r) => r.id === s.ruleset);
    if (!rs) throw new Error(`setup: no ruleset '${s.ruleset}'; the rulesets: ${page.rulesets.map((r) => r.id).join(", ")}`);
    await chooseRuleset(rs.id, s.procedure || rs.procedures[0], s);
  },
  onChange: (fn) => listeners.change.push(fn),
  onResult: (fn) => listeners.result.push(fn),
  // a scenario's or a link's [play] ({ SIDE: "best", objective }), after the setup is drawn
  onPlay: (fn) => listeners.play.push(fn),
  // the address again (the Best play view's ticks are part of it)
  linkChanged: () => writeUrl(),
  recompute: () => scheduleAnswer(),
  toToml: (setup) => toToml(setup, formSides()),
  records: () => page.records,
  ruleset: () => page.ruleset,
  api,
  postWhenFree,
  pollJob,
  el,
  sideFields: (side) => (currentForm() ? sideFields(currentForm(), side) : []),
  choices: (field, table) => options(field, table),
};

start();
