// web/import.js: the paste box for another tool's link (a ti4battle.com link). The server reads
// the link with the packs' import formats (POST /api/import, the same as `rulebench import URL`)
// and answers with the scenario; the box puts that setup on the page (window.rb.setSetup where
// app.js offers it, else through the Scenario TOML box's "Load") and lists every parameter of the
// link that was not understood or not used, so nothing is dropped silently.
// It knows no game: the formats, their hosts and names are the packs' data.
"use strict";

(function () {
  const box = document.createElement("section");
  box.id = "import-section";
  box.innerHTML =
    '<h2>Open a link from another calculator</h2>' +
    '<p class="muted">Paste a ti4battle.com link: the same battle is set up here.</p>' +
    '<div class="controls">' +
    '<input id="import-url" type="url" placeholder="https://ti4battle.com/?attacker-unit-dreadnought=2&amp;..." ' +
    'aria-label="A link to import" style="flex:1 1 20em;min-width:0;max-width:100%">' +
    '<button id="import-link" type="button">Open link</button>' +
    '</div>' +
    '<p id="import-note" class="muted"></p>' +
    '<ul id="import-unknown"></ul>';

  function place() {
    const before = document.getElementById("form-section");
    if (before && before.parentNode) before.parentNode.insertBefore(box, before);
    else document.body.appendChild(box);
  }

  function text(tag, s, cls) {
    const e = document.createElement(tag);
    e.textContent = s;
    if (cls) e.className = cls;
    return e;
  }

  // Loads a scenario's TOML through the page's own TOML box (the page without window.rb).
  function loadToml(toml) {
    return new Promise((resolve) => {
      const area = document.getElementById("toml");
      const load = document.getElementById("load-toml");
      if (!area || !load) return resolve(false);
      const loads = document.body.dataset.loads;
      area.value = toml;
      load.click();
      const t0 = Date.now();
      (function wait() {
        if (document.body.dataset.loads !== loads || Date.now() - t0 > 5000) resolve(true);
        else setTimeout(wait, 50);
      })();
    });
  }

  async function importLink(url) {
    const note = document.getElementById("import-note");
    const list = document.getElementById("import-unknown");
    list.textContent = "";
    note.textContent = "Reading the link...";
    document.body.dataset.importing = "1";
    try {
      const r = await fetch("/api/import", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ url }),
      });
      const reply = await r.json();
      if (!r.ok) {
        note.textContent = "The link could not be read: " + (reply.error || r.status);
        note.className = "error";
        return;
      }
      note.className = "muted";
      if (window.rb && window.rb.setSetup) await window.rb.setSetup(reply.setup);
      else await loadToml(reply.scenario);
      note.textContent = `Set up from a ${reply.format} link (${reply.place}: ${reply.procedure}).` +
        (reply.unknown.length ? ` ${reply.unknown.length} parameter(s) not understood:` : " Every parameter understood.");
      for (const u of reply.unknown)
        list.appendChild(text("li", `${u.param}${u.value ? "=" + u.value : ""}: ${u.why}`, "import-unknown"));
      for (const n of reply.notes) list.appendChild(text("li", n, "muted import-note"));
      if (window.rb && window.rb.recompute) window.rb.recompute();
    } catch (e) {
      note.textContent = "The link could not be read: " + e.message;
      note.className = "error";
    } finally {
      document.body.dataset.imports = String(Number(document.body.dataset.imports || 0) + 1);
      delete document.body.dataset.importing;
    }
  }

  place();
  const input = document.getElementById("import-url");
  document.getElementById("import-link").addEventListener("click", () => importLink(input.value.trim()));
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") importLink(input.value.trim());
  });
  // a link pasted into the box is opened at once
  input.addEventListener("paste", () => setTimeout(() => importLink(input.value.trim()), 0));
  // the page opened with ?import=LINK (a bookmarklet, a shared address)
  const given = new URLSearchParams(location.search).get("import");
  if (given) {
    input.value = given;
    const start = () => (document.body.dataset.ready === "1" ? importLink(given) : setTimeout(start, 50));
    start();
  }
})();
