#!/usr/bin/python3
"""The page of `rulebench serve` in a real browser (Debian's Chromium, headless, driven by
Debian's python3-selenium and chromium-driver).

It starts `rulebench serve --port 0` with a homebrew folder (tests/fixtures/serve), then:
  player    what a TI4 player does first (issue 28): the page opens on TI4 with Prophecy of Kings
            on and the test-only pack not offered; a faction battle set by clicks shows the
            faction's units by name with their combat values, and its answer comes WITHOUT Run;
            the share link, opened in a new tab, gives the same setup and the same numbers; at
            390 px wide nothing scrolls sideways; the times from page load to the first answer
            and from a click to the updated answer are printed (a base battle, a faction battle,
            a ground combat: the invasion example), and `--docs DIR` saves page-1280.png and
            page-390.png there;
  battle    builds a TI4 space combat by clicking (+ buttons), runs it, reads the numbers off the
            page and checks them against `rulebench simulate --json` on the scenario TOML the page
            shows (same seed), and against the exact values of the Markov chain
            (tests/unit/ti4_exact_test.cpp); the survivor charts, the outcome chart (units kept, one
            bar each) and the survivors by combination are there; the
            exact mode gives `simulate --exact`'s report;
  damaged   a damaged unit by clicking; the narrated trace is `rulebench trace`'s, event for event;
  homebrew  loads the homebrew pack by its checkbox, sees its ship among the units and its card
            among the cards, and compares the card on and off: the page's paired difference is
            `rulebench compare --json`'s;
  errors    a scenario with an unknown unit shows the command line's error (with its line), a TOML
            syntax error shows its line, and Run shows the error again;
  cancel    a long run is cancelled from the page and shows the runs done;
  rulesets  an X-Wing and a Red Alert example scenario are loaded, changed in their forms and run,
            with the command line's numbers;
  best      the Best play view: the defender ticked on a small battle, the gain shown is
            `simulate --exact --best defender --json`'s, the first decisions' table is --decisions';
            both ticked, each side's values are --best both's; the Copy link carries the ticked side
            and the objective (play.defender=best&play.objective=not_lose), and opened in a new tab
            it ticks them again and asks, with --best's numbers; on the Ground view (a ground combat
            loaded as TOML) the objectives are the report's means, with --best's numbers;
  sweep     the Sweep view: two attacker factions in both roles on the starting fleets example;
            the heat map's cells are `rulebench sweep --json`'s for the page's TOML and the spec
            the page shows; under each cell its difference to the reference column with its 95%
            interval (`sweep --json`'s; exact, and with every cell by Monte Carlo); a click on a
            cell opens that battle, answered with the cell's number;
  format    every example scenario of the packs, loaded on the page and written back as TOML,
            gives `simulate --json` the file's own numbers (a file with [play] ticks its sides in
            the Best play view, and its TOML, without [play], gives the file's --best none) (the TI4 tactical action, which has no
            form, is run on the page too).
Exit 0 when every check passes, 1 when one fails, 77 (ctest: skipped) when no browser is
installed, unless RB_REQUIRE_BROWSER=1 (tools/test sets it: there, a missing browser fails).
`--screenshot FILE` saves a picture of the page after the battle (docs/serve.png)."""

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import tomllib
import threading
import time
import traceback

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def missing_browser():
    reasons = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        reasons.append("python3-selenium")
    return reasons


class OnlyPart(Exception):
    """--only PART: the other parts are not run (not StopIteration, which a next() that finds
    nothing raises too: a missing element would end the test as passed)."""


class Answer(dict):
    """The figures of the page's answer bar, and how they were found (exact or montecarlo)."""
    kind = "exact"


def agrees(a, b):
    """Two answers of the same battle: equal when found the same way; when one is the live Monte
    Carlo answer (50 000 runs: a probability within 1 point, a mean within 0.05 of the exact one),
    within that."""
    if getattr(a, "kind", "exact") == getattr(b, "kind", "exact"):
        return a == b
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        try:
            if x.endswith("%") and y.endswith("%"):
                if abs(float(x[:-1]) - float(y[:-1])) > 1.0:
                    return False
            elif abs(float(x) - float(y)) > 0.05:
                return False
        except ValueError:
            return False
    return True


class Check:
    def __init__(self):
        self.failures = []

    @property
    def failed(self):
        return len(self.failures)

    def __call__(self, ok, what):
        print(("ok     " if ok else "FAIL   ") + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok


def start_server(args):
    cmd = [args.rulebench, "--root", args.root, "serve", "--port", "0", "--packs", args.packs,
           "--jobs", "2"]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()

    def pump():
        for line in server.stdout:
            lines.put(line)
    threading.Thread(target=pump, daemon=True).start()
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if server.poll() is not None:
                break
            continue
        print("server: " + line.rstrip(), flush=True)
        if line.startswith("rulebench serve: http://"):
            return server, line.split()[2]
    server.kill()
    raise SystemExit("rulebench serve did not print its address")


def http_checks(check, url):
    """What a browser does not show: the statuses of requests a page elsewhere could send, and
    paths that try to leave the page's folder."""
    import http.client
    import urllib.parse
    u = urllib.parse.urlparse(url)

    def request(method, path, body=None, headers=None):
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        h = {"Host": u.netloc, **(headers or {})}
        if body is not None:
            h["Content-Length"] = str(len(body))
        for k, v in h.items():
            c.putheader(k, v)
        c.endheaders(body.encode() if body is not None else None)
        r = c.getresponse()
        data = r.read().decode(errors="replace")
        c.close()
        return r.status, data

    status, body = request("GET", "/api/packs")
    check(status == 200 and "boarding-party" in body, "http: /api/packs lists the homebrew pack")
    status, body = request("GET", "/api/packs", headers={"Host": "evil.example:80"})
    check(status == 403, "http: a request for another host name (DNS rebinding) is refused: 403")
    status, _ = request("POST", "/api/check", body='{"scenario": "ruleset = \\"ti4\\""}',
                        headers={"Content-Type": "text/plain"})
    check(status == 415, "http: a POST that is not JSON (a form from another site) is refused: 415")
    for path in ["/../README.md", "/%2e%2e/README.md", "/web/../README.md", "/..%2fREADME.md",
                 "/api/../../README.md"]:
        status, body = request("GET", path)
        check(status in (400, 404) and "Rulebench" not in body,
              f"http: {path} reads nothing outside the page's folder ({status})")
    status, body = request("GET", "/")
    check(status == 200 and "<title>Rulebench</title>" in body, "http: / is the page")


def report_of(stdout):
    """simulate --json's report without what describes the command line's run (the scenario
    file, the packs loaded, --with/--without: "scenario", "packs", "changes"), which the page's
    job result does not repeat."""
    report = json.loads(stdout)
    for key in ("scenario", "packs", "changes"):
        report.pop(key, None)
    return report


def cli(args, *argv):
    r = subprocess.run([args.rulebench, "--root", args.root, "--packs", args.packs, *argv],
                       capture_output=True, text=True, timeout=300)
    return r


def tactical_map(check, driver, wait, args):
    """map: the Learn to Play tactical example drawn as a hex map (web/map.js): every system of
    its map string is a hex, the active system is marked, the traced run's moves are arrows; a
    click places units and activates a system, and the answer (the report's conditional
    probability, P(planet | space combat won)) follows."""
    import tomllib
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    def all_css(selector):
        return driver.find_elements(By.CSS_SELECTOR, selector)

    def css(selector):
        return driver.find_element(By.CSS_SELECTOR, selector)

    def data(name):
        return driver.execute_script(f"return document.body.dataset.{name} || '0'")

    def settled():
        wait.until(lambda d: data("mapBusy") == "0")

    def answer(change):
        """Makes the change (a click that changes the setup), waits for the page to take the new
        setup, for its final answer and for the board; returns the map's answers and the result
        they were read from, read together. The answer is the final one to the new setup: the
        exact one, or when the exact answer takes over the page's live bound (a loaded machine)
        the last of its Monte Carlo stages; neither an earlier stage nor a later stage of the last
        setup's answer (which a wait for any new map answer took, and then read the TOML before
        the setup changed)."""
        loads, answers = data("loads"), data("mapAnswers")
        change()
        # the page has the new setup (reloadRecords: its answer is asked for and answerState is
        # "pending" in the same step as data-loads moves)
        wait.until(lambda d: data("loads") != loads)
        wait.until(lambda d: data("answerState") in ("final", "error") and data("mapAnswers") != answers)
        settled()
        shown, result = driver.execute_script(
            "return [[...document.querySelectorAll('#map-answer .conditional')].map("
            "e => [e.dataset.key, Number(e.dataset.value)]), "
            "document.getElementById('result-json').textContent]")
        return dict(shown), json.loads(result)

    ruleset = Select(driver.find_element(By.CSS_SELECTOR, "#ruleset"))
    if ruleset.first_selected_option.get_attribute("value") != "ti4":
        loads = data("loads")
        ruleset.select_by_value("ti4")
        wait.until(lambda d: data("loads") != loads)
    wait.until(lambda d: any("learn_to_play_action.toml" in o.text
                             for o in Select(d.find_element(By.CSS_SELECTOR, "#example")).options))
    example = Select(driver.find_element(By.CSS_SELECTOR, "#example"))
    example.select_by_visible_text(next(o.text for o in example.options if "learn_to_play_action.toml" in o.text))
    boards = data("boards")
    first, result = answer(lambda: driver.find_element(By.CSS_SELECTOR, "#load-example").click())
    wait.until(lambda d: data("boards") != boards and all_css("#map svg .hex"))
    with open(os.path.join(args.root, "content/ti4-base/maps.toml"), "rb") as f:
        text = tomllib.load(f)["map"]["learn_to_play_6p"]["text"]
    # the centre (18, or {N} first) and the ring tiles, -1 being no tile
    systems = ([] if text.startswith("{") else ["18"]) + [t.strip("{}") for t in text.split() if t != "-1"]
    hexes = all_css("#map svg .hex")
    check(len(hexes) == len(systems), f"map: {len(hexes)} hexes drawn for the {len(systems)} systems of the map string")
    labels = sorted(h.get_attribute("data-label") for h in hexes)
    check(all(f"{t}" in labels for t in systems if t != "0"), "map: every tile number of the map string labels a hex")
    active = all_css("#map .hex.active")
    check(len(active) == 1 and active[0].get_attribute("data-label") == "38", "map: the active system (38) is marked")
    moves = sorted(m.get_attribute("data-unit") for m in all_css("#map path.move"))
    check(moves == ["carrier", "dreadnought"], f"map: the run's moves are drawn as arrows ({moves})")
    key = "planet_1_controlled_if_space_combat_won"
    check(key in first and abs(first[key] - result[key]) < 1e-12,
          f"map: the answer P(abyz controlled | space combat won) is the result's {result.get(key)} "
          f"({css('#answer-status').text})")

    def hex_labelled(label):
        return next(h for h in all_css("#map svg .hex") if h.get_attribute("data-label") == label)

    # three more Sol infantry at Wellon (19): the carrier takes four, the answer changes
    hex_labelled("19").click()
    wait.until(lambda d: all_css("#map-place"))
    Select(driver.find_element(By.CSS_SELECTOR, "#map-player")).select_by_value("sol")
    Select(driver.find_element(By.CSS_SELECTOR, "#map-unit")).select_by_value("infantry")
    count = driver.find_element(By.CSS_SELECTOR, "#map-count")
    count.clear()
    count.send_keys("3")
    second, _ = answer(lambda: driver.find_element(By.CSS_SELECTOR, "#map-place").click())
    toml = driver.find_element(By.CSS_SELECTOR, "#toml").get_attribute("value")
    check("infantry = 5" in toml, "map: placing 3 infantry at 19 writes infantry = 5 in its system")
    check(key in second and second[key] > first[key],
          f"map: with more infantry the answer rises ({first.get(key)} -> {second.get(key)}; "
          f"{css('#answer-status').text})")

    # activate Wellon (19) itself: the TOML says so, the mark moves, no combat follows
    hex_labelled("19").click()
    wait.until(lambda d: all_css("#map-activate"))
    boards = data("boards")
    third, result = answer(lambda: driver.find_element(By.CSS_SELECTOR, "#map-activate").click())
    wait.until(lambda d: data("boards") != boards)
    toml = driver.find_element(By.CSS_SELECTOR, "#toml").get_attribute("value")
    check("activate = 19" in toml, "map: a click on Activate writes activate = 19")
    active = all_css("#map .hex.active")
    check(len(active) == 1 and active[0].get_attribute("data-label") == "19", "map: the mark moves to 19")
    shown = [e.text for e in all_css("#map-answer .conditional")]
    check(result.get("no_combat") == 1.0 and third.get(key) == 1.0 and len(shown) == 1 and "(wellon)" in shown[0],
          f"map: in its own system Sol fights nobody and holds Wellon, its one planet: {shown}")


def sweep_view(check, driver, wait, args, work):
    """sweep: the Sweep view's heat map (web/sweep.js). On the starting fleets example, the rows
    are two attacker factions, both roles the columns; the grid's cells are `rulebench sweep
    --json`'s for the spec the page shows and the page's TOML, each coloured and marked exact or
    Monte Carlo; a click on a cell opens that battle in the form, answered with the cell's number."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    def all_css(selector):
        return driver.find_elements(By.CSS_SELECTOR, selector)

    def css(selector):
        return driver.find_element(By.CSS_SELECTOR, selector)

    def data(name):
        return driver.execute_script(f"return document.body.dataset.{name} || '0'")

    loads = data("loads")
    Select(css("#ruleset")).select_by_value("ti4")
    wait.until(lambda d: any("starting_fleets.toml" in o.text for o in Select(css("#example")).options))
    example = Select(css("#example"))
    example.select_by_visible_text(next(o.text for o in example.options if "/starting_fleets.toml" in o.text))
    loads = data("loads")
    css("#load-example").click()
    wait.until(lambda d: data("loads") != loads and "fleet" in css("#toml").get_attribute("value"))
    driver.execute_script("document.getElementById('sweep-section').scrollIntoView()")
    Select(css("#sweep-rows-side")).select_by_value("attacker")
    Select(css("#sweep-rows-what")).select_by_value("faction")
    for name in ("sol", "letnev"):
        css(f'#sweep-rows-values input[value="{name}"]').click()
    Select(css("#sweep-columns-what")).select_by_value("")
    css("#sweep-roles").click()
    precision = css("#sweep-precision")
    precision.clear()
    precision.send_keys("2")
    css("#sweep-run").click()
    wait.until(lambda d: data("sweepState") in ("done", "error", "cancelled"))
    check(data("sweepState") == "done", f"sweep: the sweep is done ({css('#sweep-status').text})")
    cells = {int(c.get_attribute("data-cell")): c for c in all_css("#sweep-table td.cell")}
    check(len(cells) == 4 and not all_css("#sweep-table td.pending"),
          f"sweep: a grid of 2 rows x 2 columns, every cell answered ({len(cells)} cells)")
    heads = [h.text for h in all_css("#sweep-table thead th")]
    rows = [h.text for h in all_css("#sweep-table tbody th")]
    check(heads[1:3] == ["as_written", "swapped"] and len(rows) == 2 and
          any("Sol" in r for r in rows) and any("Letnev" in r for r in rows),
          f"sweep: the columns are the roles, the rows the factions chosen ({heads}, {rows})")
    # the command line, on the page's scenario and the spec the page sent
    base = os.path.join(work, "sweep_base.toml")
    with open(base, "w") as f:
        f.write(css("#toml").get_attribute("value"))
    spec_text = driver.execute_script("return document.getElementById('sweep-spec').textContent")
    spec = os.path.join(work, "sweep_spec.toml")
    with open(spec, "w") as f:
        f.write('scenario = "sweep_base.toml"\n' + spec_text)
    r = cli(args, "sweep", spec, "--json")
    ok = r.returncode == 0
    cli_json = json.loads(r.stdout) if ok else {"cells": [], "rows": []}
    want = cli_json["cells"]
    same = ok and len(want) == 4 and all(
        float(cells[c["cell"]].get_attribute("data-value")) == c["value"] and
        cells[c["cell"]].get_attribute("data-method") == c["method"] for c in want)
    check(same, "sweep: every cell is `rulebench sweep --json`'s for the page's scenario and spec "
          f"({[(c['cell'], c['method'], c['value']) for c in want] or r.stderr.strip()})")
    marks = [c.text.split("\n")[0] for c in cells.values()]
    check(all(m.endswith(" =") or "\u00b1" in m for m in marks) and
          all(c.value_of_css_property("background-color") not in ("", "rgba(0, 0, 0, 0)") for c in cells.values()),
          f"sweep: each cell shows its value in points, exact (=) or with its interval, on a colour ({marks})")
    differences(check, cells, cli_json, "exact")
    # a click opens the cell: Letnev in the swapped column defends against the base's attacker
    letnev = next((i for i, row in enumerate(cli_json["rows"]) if "Letnev" in row), 0)
    k = 2 * letnev + 1  # the row of letnev, the column swapped
    answers = data("answers")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cells[k])
    cells[k].click()
    wait.until(lambda d: data("sweepOpened") == str(k))
    wait.until(lambda d: data("answers") != answers and data("answerState") == "final")
    # the cell's number is exact: on a loaded machine the live answer may come by Monte Carlo
    # (its exact one took over the page's live bound), then it is asked again, up to 3 times
    for _ in range(3):
        if not css("#answer-status").text.startswith("Monte Carlo"):
            break
        print(f"note   the live answer came by Monte Carlo ({css('#answer-status').text}): asked again", flush=True)
        answers = data("answers")
        driver.execute_script("window.rb.recompute()")
        wait.until(lambda d: data("answers") != answers and data("answerState") == "final")
    defender = Select(css('select[data-path="defender.faction"]')).first_selected_option.get_attribute("value")
    attacker = Select(css('select[data-path="attacker.faction"]')).first_selected_option.get_attribute("value")
    check(defender == "letnev" and attacker == "hacan",
          f"sweep: the cell letnev x swapped opens as hacan attacking letnev ({attacker} against {defender})")
    shown = css('[data-answer="defender_win"]').text
    value = next((c["value"] for c in want if c["cell"] == k), None)
    check(value is not None and shown == f"{100 * value:.2f}%",
          f"sweep: the opened battle's answer P(defender_win) {shown} is the cell's {value}")
    # every cell by Monte Carlo ("exact where it fits" off): the differences have intervals
    driver.execute_script("document.getElementById('sweep-section').scrollIntoView(); delete document.body.dataset.sweepState")
    css("#sweep-exact").click()
    css("#sweep-run").click()
    wait.until(lambda d: data("sweepState") in ("done", "error", "cancelled"))
    check(data("sweepState") == "done", f"sweep: the Monte Carlo sweep is done ({css('#sweep-status').text})")
    with open(base, "w") as f:
        f.write(css("#toml").get_attribute("value"))
    spec_text = driver.execute_script("return document.getElementById('sweep-spec').textContent")
    with open(spec, "w") as f:
        f.write('scenario = "sweep_base.toml"\n' + spec_text)
    r = cli(args, "sweep", spec, "--json")
    cli_json = json.loads(r.stdout) if r.returncode == 0 else {"cells": [], "rows": [], "columns": []}
    cells = {int(c.get_attribute("data-cell")): c for c in all_css("#sweep-table td.cell")}
    check("exact = false" in spec_text and cli_json["cells"] and
          all(c["method"] == "monte_carlo" for c in cli_json["cells"]),
          f"sweep: with exact off the spec says exact = false and every cell is Monte Carlo ({r.stderr.strip()[:200]})")
    differences(check, cells, cli_json, "Monte Carlo")
    css("#sweep-exact").click()


def differences(check, cells, cli_json, what):
    """sweep: each cell of a column other than the reference (the first) shows, under its value,
    its difference to the reference in points and, when a Monte Carlo cell is on either side, the
    difference's 95% interval: `rulebench sweep --json`'s difference and difference_ci95."""
    def signed(x):
        v = f"{100 * x:.1f}"
        return "+" + v if float(v) > 0 else "\u2212" + v[1:] if float(v) < 0 else "0.0"

    C = len(cli_json["columns"])
    seen, wrong = [], []
    for c in cli_json["cells"]:
        td = cells.get(c["cell"])
        lines = td.text.split("\n") if td else []
        if c["cell"] % C == 0:
            if td is None or len(lines) != 1 or td.get_attribute("data-difference") is not None:
                wrong.append((c["cell"], "the reference column shows no difference", lines))
            continue
        lo, hi = c["difference_ci95"]
        text = signed(c["difference"]) if lo == hi else f"{signed(c['difference'])} ({signed(lo)} to {signed(hi)})"
        shown_ci = [float(x) for x in (td.get_attribute("data-difference-ci95") or "").split()] if td else []
        ok = (td is not None and len(lines) == 2 and lines[1] == text and
              float(td.get_attribute("data-difference")) == c["difference"] and shown_ci == [lo, hi])
        (seen if ok else wrong).append((c["cell"], text, lines))
    check(seen and not wrong and (what != "Monte Carlo" or all(" to " in t for _, t, _ in seen)),
          f"sweep ({what}): under each cell its difference to the reference column, with the 95% interval "
          f"when Monte Carlo: `sweep --json`'s ({seen[:2]}; wrong: {wrong[:2]})")


def best_view(check, driver, wait, args, work):
    """best: the Best play view (web/best.js). On a small battle (2 cruisers and a carrier against
    the same: tests/fixtures/exact/best_play_carrier.toml, loaded as TOML), the defender ticked:
    the gain shown beside the policy's odds is `rulebench simulate --exact --best defender
    --decisions --json`'s on the page's TOML, and so are the first decisions' table (each number of
    hits: the best option and its margin); both ticked, each side's value is `--best both`'s."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    def all_css(selector):
        return driver.find_elements(By.CSS_SELECTOR, selector)

    def css(selector):
        return driver.find_element(By.CSS_SELECTOR, selector)

    def data(name):
        return driver.execute_script(f"return document.body.dataset.{name} || '0'")

    with open(os.path.join(args.root, "tests/fixtures/exact/best_play_carrier.toml")) as f:
        battle = f.read()
    Select(css("#ruleset")).select_by_value("ti4")
    loads = data("loads")
    driver.execute_script("const t = document.getElementById('toml'); t.value = arguments[0]; "
                          "t.dispatchEvent(new Event('input')); document.getElementById('load-toml').click()", battle)
    wait.until(lambda d: data("loads") != loads and "carrier" in css("#toml").get_attribute("value"))
    driver.execute_script("document.getElementById('best-section').scrollIntoView()")
    check(len(all_css("#best-sides input")) == 2 and css("#best-run").get_attribute("disabled") is not None,
          "best: one tick per side of the report, and nothing to run before a side is ticked")
    objectives = [o.get_attribute("value") for o in Select(css("#best-objective")).options]
    check(objectives[:2] == ["win", "not_lose"], f"best: the objectives start with win and not lose ({objectives[:4]})")

    def run_best():
        css("#best-run").click()
        wait.until(lambda d: data("bestState") in ("done", "error"))
        return data("bestState")

    def page_file(name):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(css("#toml").get_attribute("value"))
        return path

    css('#best-sides input[value="defender"]').click()
    check("defender plays best" in css("#best-what").text, f"best: the choice is named ({css('#best-what').text})")
    ran = run_best()
    check(ran == "done", f"best: the defender's best play is answered ({css('#best-status').text})")
    r = cli(args, "simulate", page_file("best_page.toml"), "--exact", "--best", "defender", "--decisions", "--json")
    want = json.loads(r.stdout)["best"] if r.returncode == 0 else {}
    head = css("#best-head")
    shown = float(head.get_attribute("data-gain-points")) if ran == "done" else None
    check(r.returncode == 0 and shown == want.get("gain_points") and want["gain_points"] > 1,
          f"best: the gain shown ({shown} points) is simulate --exact --best defender's gain_points "
          f"({want.get('gain_points')}; {r.stderr.strip()[:200]})")
    text = css("#best-gain").text if ran == "done" else ""
    check(want and text == f"+{want['gain_points']:.2f} points" and f"{100 * want['best']:.2f}%" in head.text
          and f"{100 * want['policy']:.2f}%" in head.text,
          f"best: beside the policy's odds, in words: {head.text!r}")
    rows = all_css("#best-decisions tr[data-hits]")
    table = [(int(tr.get_attribute("data-hits")), float(tr.find_element(By.CSS_SELECTOR, "[data-margin]").get_attribute("data-margin")),
              tr.find_element(By.CSS_SELECTOR, "b").text) for tr in rows]
    expect = [(d["hits"], d["margin"], d["options"][0]["option"]) for d in want.get("decisions", [])]
    check(table and table == expect,
          f"best: the first decisions' table is --decisions' (hits, margin, best option): {table[:3]} against {expect[:3]}")
    first = rows[0].text if rows else ""
    check("hit" in first and "%" in first and "points" in first, f"best: a row reads as words: {first!r}")
    if args.docs:
        driver.execute_script("document.getElementById('best-section').scrollIntoView()")
        time.sleep(0.2)
        css("#best-section").screenshot(os.path.join(args.docs, "page-best.png"))
    # the link carries best play (the scenario's [play]: the ticked side, the objective); opened
    # in a new tab it ticks them again and asks, with --best defender --objective not_lose's gain
    Select(css("#best-objective")).select_by_value("not_lose")
    css("#copy-link").click()
    shared = css("#share-url").get_attribute("value")
    check("play.defender=best" in shared and "play.objective=not_lose" in shared and "play.attacker" not in shared,
          "best: the link holds the best play: " + shared[shared.find("play."):][:80])
    r = cli(args, "simulate", page_file("best_page.toml"), "--exact", "--best", "defender", "--objective", "not_lose", "--json")
    want = json.loads(r.stdout)["best"] if r.returncode == 0 else {}
    first_tab = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(shared)
    wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    wait.until(lambda d: data("bestState") in ("done", "error"))
    ticked = [i.get_attribute("value") for i in all_css("#best-sides input") if i.is_selected()]
    objective = Select(css("#best-objective")).first_selected_option.get_attribute("value")
    gain = float(css("#best-head").get_attribute("data-gain-points")) if data("bestState") == "done" else None
    check(ticked == ["defender"] and objective == "not_lose" and want and gain == want["gain_points"] and
          "carrier" in css("#toml").get_attribute("value") and "[play]" not in css("#toml").get_attribute("value"),
          f"best: the link opened in a new tab ticks the defender, chooses not to lose and asks: gain {gain} "
          f"points, --best defender --objective not_lose's {want.get('gain_points')} ({ticked}, {objective})")
    driver.close()
    driver.switch_to.window(first_tab)
    Select(css("#best-objective")).select_by_value("win")
    # both sides answer each other in turn
    css('#best-sides input[value="attacker"]').click()
    check("both sides" in css("#best-what").text, f"best: both ticked is both ({css('#best-what').text})")
    ran = run_best()
    r = cli(args, "simulate", page_file("best_page.toml"), "--exact", "--best", "both", "--decisions", "--json")
    want = json.loads(r.stdout)["best"] if r.returncode == 0 else {}
    sides = {li.get_attribute("data-side"): li.text for li in all_css("#best-sides-values li")}
    check(ran == "done" and want and set(sides) == set(want["sides"]) and
          all(f"{100 * v['pair']:.2f}%" in sides[s] and f"{100 * v['policy']:.2f}%" in sides[s] for s, v in want["sides"].items()),
          f"best: both: each side's value at the pair and with both policies is --best both's ({sides})")
    css('#best-sides input[value="attacker"]').click()
    # the Ground view shares the form: its report's wins (take the planet, keep it) and its means
    with open(os.path.join(args.root, "tests/fixtures/ground/best_play_ground.toml")) as f:
        ground = f.read()
    loads = data("loads")
    driver.execute_script("const t = document.getElementById('toml'); t.value = arguments[0]; "
                          "document.getElementById('load-toml').click()", ground)
    wait.until(lambda d: data("loads") != loads and "tactical_ground_combat" in css("#toml").get_attribute("value"))
    objectives = [o.get_attribute("value") for o in Select(css("#best-objective")).options]
    check(objectives[:1] == ["win"] and "metric:ground_forces_defender_mean" in objectives,
          f"best: on the Ground view the objectives are to win and the report's means ({objectives[:4]})")
    check(css('#best-sides input[value="defender"]').is_selected(), "best: the defender's tick stays across the switch")
    Select(css("#best-objective")).select_by_value("metric:ground_forces_defender_mean")
    ran = run_best()
    r = cli(args, "simulate", page_file("best_ground.toml"), "--exact", "--best", "defender", "--objective",
            "metric:ground_forces_defender_mean", "--decisions", "--json")
    want = json.loads(r.stdout)["best"] if r.returncode == 0 else {}
    head = css("#best-head")
    table = [(int(tr.get_attribute("data-hits")), float(tr.find_element(By.CSS_SELECTOR, "[data-margin]").get_attribute("data-margin")))
             for tr in all_css("#best-decisions tr[data-hits]")]
    check(ran == "done" and want and float(head.get_attribute("data-gain")) == want["gain"] and
          f"{want['best']:.4f}" in head.text and table == [(d["hits"], d["margin"]) for d in want["decisions"]] and table,
          f"best: a ground combat's best play for the defender's ground forces is --best's: {head.text!r}, {table}")
    # a chance of the report that is no side's win is an objective too, shown in %
    check("metric:ground_combat_lost" in objectives and "metric:attacker_takes_the_planet" not in objectives,
          f"best: the report's chances other than the wins are objectives ({objectives})")
    Select(css("#best-objective")).select_by_value("metric:ground_combat_lost")
    ran = run_best()
    r = cli(args, "simulate", page_file("best_ground.toml"), "--exact", "--best", "defender", "--objective",
            "metric:ground_combat_lost", "--json")
    want = json.loads(r.stdout)["best"] if r.returncode == 0 else {}
    head = css("#best-head")
    check(ran == "done" and want and f"{100 * want['best']:.2f}%" in head.text and "best chance of" in head.text,
          f"best: the defender's best chance of winning the ground combat is --best's, in %: {head.text!r}")
    css('#best-sides input[value="defender"]').click()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rulebench", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--packs", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--docs", help="a folder for page-1280.png, page-390.png and page-best.png")
    parser.add_argument("--only", choices=["sweep", "best", "map"], help="run only this part (for working on it)")
    args = parser.parse_args()
    args.root = os.path.abspath(args.root)
    args.packs = os.path.abspath(args.packs)

    absent = missing_browser()
    if absent:
        print("no browser to test with: missing " + ", ".join(absent) +
              " (tools/test installs chromium, chromium-driver, python3-selenium)")
        return 1 if os.environ.get("RB_REQUIRE_BROWSER") == "1" else 77

    check = Check()
    server, url = start_server(args)
    try:
        http_checks(check, url)
    except Exception as e:
        check(False, f"http: {type(e).__name__}: {e}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    work = tempfile.mkdtemp(prefix="rb-serve-test-")

    def start_browser(attempt):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(work, f"profile{attempt}"),
                  "--window-size=1280,1900"]:
            options.add_argument(a)
        return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)

    # Chromium started on a loaded machine once exited before its session began
    # (SessionNotCreatedException: "Chrome instance exited"): a new one, on a new profile, up to
    # three times; and the server is stopped when none starts
    driver = None
    for attempt in range(1, 4):
        try:
            driver = start_browser(attempt)
            break
        except WebDriverException as e:
            print(f"browser: did not start (attempt {attempt} of 3): {type(e).__name__}: "
                  f"{str(e).strip().splitlines()[0]}", flush=True)
            time.sleep(2)
    if driver is None:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        print("FAIL   the browser did not start\n1 failed")
        return 1
    wait = WebDriverWait(driver, 120, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException])

    def css(selector):
        return driver.find_element(By.CSS_SELECTOR, selector)

    def all_css(selector):
        return driver.find_elements(By.CSS_SELECTOR, selector)

    def click(selector, times=1):
        for _ in range(times):  # the form is drawn anew after each change: find it each time
            wait.until(lambda d: all_css(selector))
            # in the middle of the view: not under the answer bar, which stays at the top
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", css(selector))
            css(selector).click()

    def type_into(selector, text):
        e = css(selector)
        e.clear()
        e.send_keys(text)

    def edit(selector, text):
        """Types into a form field as a person does: select what is there, type, Tab away (one
        change event: the form is drawn anew after it)."""
        e = css(selector)
        e.click()
        e.send_keys(Keys.CONTROL, "a")
        e.send_keys(text + Keys.TAB)

    def message():
        m = css("#message")
        return m.text if m.is_displayed() and "error" in m.get_attribute("class") else ""

    def page_toml(name):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(css("#toml").get_attribute("value"))
        return path

    def run_on_page(runs, seed):
        type_into("#runs", str(runs))
        type_into("#seed", str(seed))
        serial = driver.execute_script("return document.body.dataset.results || '0'")
        click("#run")
        wait.until(lambda d: (d.execute_script("return document.body.dataset.results || '0'") != serial
                              and not css("#run").get_attribute("disabled")) or message())
        return json.loads(css("#result-json").get_attribute("textContent")) if not message() else None

    def same_report(page_json, cli_json, what):
        check(page_json == cli_json, what + ": the page's result JSON is `simulate --json`'s")
        # the figures a person reads
        shown = {e.get_attribute("data-key"): e.text for e in all_css("#outcomes .pct")}
        want = {k: f"{100 * cli_json[k]:.2f}%" for k in shown}
        check(shown == want and len(shown) > 0, f"{what}: the bars read {shown}, simulate says {want}")
        means = {e.get_attribute("data-key"): e.text for e in all_css("#means .mean")}
        want_means = {k: f"{cli_json[k]:.4f}" for k in means}
        check(means == want_means, f"{what}: the means read {means}, simulate says {want_means}")

    def ti4battle_link():
        """Pastes a ti4battle.com link (Emergency Repairs, tests/ti4battle/scenarios/
        emergency_repairs.toml) with one parameter the format does not know: the page sets up
        the same battle, names that parameter, and gives the hand-written scenario's numbers."""
        link = ("https://ti4battle.com/?attacker-unit-dreadnought=2&attacker-effect-Emergency%20Repairs=1"
                "&defender-unit-dreadnought=2&defender-effect-Not%20A%20Card=1")
        imports = driver.execute_script("return document.body.dataset.imports || '0'")
        type_into("#import-url", link)
        click("#import-link")
        wait.until(lambda d: d.execute_script("return document.body.dataset.imports || '0'") != imports)
        unknown = [e.text for e in all_css("#import-unknown li.import-unknown")]
        check(len(unknown) == 1 and unknown[0].startswith("defender-effect-Not A Card=1"),
              f"ti4battle link: the parameter not understood is named on the page ({unknown})")
        written = page_toml("ti4battle.toml")
        with open(written, "rb") as f:
            on_page = tomllib.load(f)
        with open(os.path.join(args.root, "tests/ti4battle/scenarios/emergency_repairs.toml"), "rb") as f:
            by_hand = tomllib.load(f)
        check(on_page.get("attacker", {}).get("cards") == ["emergency_repairs"]
              and on_page.get("attacker", {}).get("units") == by_hand["attacker"]["units"]
              and on_page.get("defender", {}).get("units") == by_hand["defender"]["units"],
              f"ti4battle link: the page holds the battle of emergency_repairs.toml ({on_page})")
        runs, seed = 3000, 5
        result = run_on_page(runs, seed)
        r = cli(args, "simulate", os.path.join(args.root, "tests/ti4battle/scenarios/emergency_repairs.toml"),
                "--runs", str(runs), "--seed", str(seed), "--json")
        want = report_of(r.stdout) if r.returncode == 0 else None
        same = result is not None and want is not None and all(
            result[k] == want[k] for k in ("attacker_win", "draw", "defender_win"))
        check(same, "ti4battle link: the page's numbers are the hand-written scenario's "
              + (f"{[result.get(k) for k in ('attacker_win', 'draw', 'defender_win')]} against "
                 f"{[want.get(k) for k in ('attacker_win', 'draw', 'defender_win')]}" if result and want
                 else message() or r.stderr[:200]))

    def answers():
        return int(driver.execute_script("return document.body.dataset.answers || '0'"))

    def answer_after(n):
        """Waits for the answer after the n-th (a final one, or an error) and returns its figures,
        with how they were found (.kind: "exact", or "montecarlo" when the exact answer took over
        the page's live bound, as on a loaded machine)."""
        wait.until(lambda d: answers() > n and d.execute_script("return document.body.dataset.answerState") == "final"
                   or d.execute_script("return document.body.dataset.answerState") == "error")
        a = Answer({e.get_attribute("data-answer"): e.text for e in all_css("#answer-bar [data-answer]")})
        a.kind = "montecarlo" if css("#answer-status").text.startswith("Monte Carlo") else "exact"
        return a

    def exact_answer():
        """The live answer to the setup on the page, asked again (up to 3 times) while it comes by
        Monte Carlo: its exact one takes over the page's live bound (0.1 s of exploration) only on a
        loaded machine, and the checks that follow compare exact numbers."""
        a = answer_after(0)
        for _ in range(3):
            if a.kind == "exact":
                break
            print(f"note   the live answer came by Monte Carlo ({css('#answer-status').text}): asked again",
                  flush=True)
            n = answers()
            driver.execute_script("window.rb.recompute()")
            a = answer_after(n)
        return a

    def timed_click(selector):
        """Clicks and returns (ms to the first answer drawn, ms to the final one, its status)."""
        n = answers()
        wait.until(lambda d: all_css(selector))
        t0 = driver.execute_script("const t = performance.now(); document.querySelector(arguments[0]).click(); return t",
                                   selector)
        wait.until(lambda d: answers() > n)
        first = float(driver.execute_script("return document.body.dataset.answerAt")) - t0
        answer_after(n)
        final = float(driver.execute_script("return document.body.dataset.answerAt")) - t0
        return first, final, css("#answer-status").text

    def choose(selector, value):
        e = css(selector)
        Select(e).select_by_value(value)

    def ground_view(timings):
        """The Space / Ground switch (issue 28): a faction chosen in space stays on the Ground
        view; the sides' rows are the ground forces and ships (attacker) and the ground forces
        and structures (defender); 3 infantry against 2 infantry and a PDS is answered without
        Run with `simulate --exact` of the hand-written tactical action
        (tests/fixtures/ground/page_ground_combat.toml); the switch is in the link and restores;
        a ti4battle.com place=Ground link lands on the Ground view with the same numbers."""
        driver.get(url + "?ruleset=ti4")
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        check(len(all_css("#procedure-switch button")) == 2
              and css("#procedure-switch button.on").get_attribute("data-procedure") == "space_combat",
              "ground: a Space / Ground switch stands above the sides, on Space")
        # small ones: the hit order names the faction's units; a faction change drops the old
        # faction's unit upgrade (Sardakk N'orr's Exotrireme II) and the toggle starts off
        choose('select[data-path="attacker.faction"]', "sardakk_norr")
        wait.until(lambda d: all_css('[data-side="attacker"] [data-upgrade="exotrireme_ii"]'))
        item = css('[data-path="attacker.policy.hit_order"] li[data-item="dreadnought"]').text
        check(item.startswith("Exotrireme"), f"player: the hit order names the faction's unit: {item!r}")
        click('[data-side="attacker"] [data-upgrade="exotrireme_ii"]')
        wait.until(lambda d: "exotrireme_ii" in css("#toml").get_attribute("value"))
        choose('select[data-path="attacker.faction"]', "letnev")
        wait.until(lambda d: css('select[data-path="attacker.faction"]').get_attribute("value") == "letnev")
        toml = css("#toml").get_attribute("value")
        check("exotrireme_ii" not in toml and not css('[data-side="attacker"] [data-upgrade="dreadnought_ii"]').is_selected(),
              "player: a faction change drops the old faction's unit upgrade; the toggle is off")
        t0 = driver.execute_script("return performance.now()")
        n = answers()
        click('#procedure-switch [data-procedure="tactical_ground_combat"]')
        wait.until(lambda d: all_css('[data-side="defender"] [data-row="pds"]'))
        wait.until(lambda d: answers() > n)
        timings.append(("ground combat: the switch to Ground", float(driver.execute_script(
            "return document.body.dataset.answerAt")) - t0, float(driver.execute_script(
            "return document.body.dataset.answerAt")) - t0, css("#answer-status").text))
        check(css('select[data-path="attacker.faction"]').get_attribute("value") == "letnev",
              "ground: the attacker's faction stays across the switch")
        rows = {side: [r.get_attribute("data-row") for r in all_css(f'[data-side="{side}"] table.counts tr')]
                for side in ("attacker", "defender")}
        check({"infantry", "mech", "dreadnought", "carrier"} <= set(rows["attacker"]) and "pds" not in rows["attacker"]
              and "fighter" not in rows["attacker"],
              f"ground: the attacker's rows are its ground forces and ships: {rows['attacker']}")
        check({"infantry", "mech", "pds"} <= set(rows["defender"]) and "cruiser" not in rows["defender"],
              f"ground: the defender's rows are its ground forces and structures: {rows['defender']}")
        choose('select[data-path="defender.faction"]', "letnev")
        wait.until(lambda d: css('select[data-path="defender.faction"]').get_attribute("value") == "letnev")
        click('[data-path="attacker.units.infantry"][data-op="+"]', 3)
        click('[data-path="defender.units.infantry"][data-op="+"]', 2)
        timings.append(("ground combat: a click (the PDS)", *timed_click('[data-path="defender.units.pds"][data-op="+"]')))
        shown = exact_answer()
        result = json.loads(css("#result-json").get_attribute("textContent"))
        r = cli(args, "simulate", os.path.join(args.root, "tests/fixtures/ground/page_ground_combat.toml"), "--exact", "--json")
        want = report_of(r.stdout) if r.returncode == 0 else {}
        p = want.get("planet_1_controlled", -1)
        # (on a loaded machine the live answer may be Monte Carlo's 50 000 runs: within 4 standard errors)
        check(result.get("method") == "exact" and abs(result.get("attacker_takes_the_planet", -2) - p) < 1e-12
              and shown.get("attacker_takes_the_planet") == f"{100 * p:.2f}%"
              or result.get("method") != "exact" and shown.kind == "montecarlo"
              and abs(result.get("attacker_takes_the_planet", -2) - p) < 0.01,
              f"ground: P(the attacker takes the planet) {shown} is the hand-written tactical action's {p} "
              + r.stderr[:200])
        same = all(result.get(k) == want.get(k) for k in ("ground_forces_attacker", "ground_forces_defender", "survivors"))
        check(same, "ground: the ground survivors are the hand-written tactical action's "
              f"({result.get('ground_forces_attacker')} against {want.get('ground_forces_attacker')})")
        ends = result.get("survivors_ends", {})
        bars = {(b.get_attribute("data-side"), b.get_attribute("data-k")): float(b.get_attribute("data-p"))
                for b in all_css('[data-chart="outcome"] rect')}
        check(abs(sum(bars.values()) - 1) < 1e-9 and abs(bars.get(("both", "0"), -1) - ends.get("several", -2)) < 1e-12,
              f"ground: the outcome chart adds up to 1 with a 'both keep units' bar (the carrier stays): {bars}")
        check(all_css('[data-chart="ground_rounds"][data-means-only]'),
              "ground: the rounds chart is left out in the exact mode with a note (its mean only)")
        link = driver.execute_script("return location.href")
        check("procedure=tactical_ground_combat" in link, "ground: the switch is in the link: " + link[len(url):][:120])
        first_tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(link)
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        again = answer_after(0)
        check(css("#procedure-switch button.on").get_attribute("data-procedure") == "tactical_ground_combat" and agrees(again, shown),
              f"ground: the link opens on the Ground view with the same numbers ({again})")
        driver.close()
        driver.switch_to.window(first_tab)
        # the same battle from a ti4battle.com link (Letnev is its default faction)
        imports = driver.execute_script("return document.body.dataset.imports || '0'")
        n = answers()
        type_into("#import-url", "https://ti4battle.com/?place=Ground&attacker-unit-infantry=3"
                  "&defender-unit-infantry=2&defender-unit-pds=1")
        click("#import-link")
        wait.until(lambda d: d.execute_script("return document.body.dataset.imports || '0'") != imports)
        imported = answer_after(n)
        check(css("#procedure-switch button.on").get_attribute("data-procedure") == "tactical_ground_combat"
              and css('[data-path="defender.units.pds"][data-count]').text == "1"
              and css('[data-path="attacker.units.infantry"][data-count]').text == "3",
              "ground: a ti4battle place=Ground link lands on the Ground view with its units")
        check(agrees(imported, shown), f"ground: with the same numbers ({imported} against {shown})")
        # Monte Carlo gives the rounds: a longer run on the page
        driver.execute_script("document.getElementById('more-runs').open = true")
        mc = run_on_page(4000, 3)
        check(mc is not None and isinstance(mc.get("ground_rounds"), list) and abs(sum(mc["ground_rounds"]) - 1) < 1e-9
              and all_css('[data-chart="ground_rounds"] rect'),
              f"ground: Monte Carlo draws the distribution of the rounds ({(mc or {}).get('ground_rounds')}"
              f"{'' if mc is not None else '; the page said: ' + message()})")

    timings = []
    try:
        # --- player: what a TI4 player does first (issue 28), on a page opened with no address
        driver.get(url)
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        if args.only == "sweep":
            sweep_view(check, driver, wait, args, work)
            raise OnlyPart("--only sweep: the other parts are not run")
        if args.only == "best":
            best_view(check, driver, wait, args, work)
            raise OnlyPart("--only best: the other parts are not run")
        if args.only == "map":
            tactical_map(check, driver, wait, args)
            raise OnlyPart("--only map: the other parts are not run")
        check(Select(css("#ruleset")).first_selected_option.get_attribute("value") == "ti4",
              "player: the page opens on TI4 (form.toml opens_first)")
        check(css('[data-pack="ti4-pok"]').is_selected(), "player: Prophecy of Kings is on (pack.toml default_on)")
        check(not all_css('[data-pack="ti4-test-kit"]'),
              "player: the test-only pack is not offered (pack.toml test_only)")
        check(not any(o.get_attribute("value") == "ti4-test-kit" for o in Select(css("#compare-what")).options),
              "player: nor among what Compare can add")
        load_ms = driver.execute_script("return Number(document.body.dataset.answerAt || 0)")
        wait.until(lambda d: answers() >= 1)
        load_ms = float(driver.execute_script("return document.body.dataset.answerAt"))
        timings.append(("page load to the first answer (the empty setup)", load_ms, load_ms, ""))
        # a base battle: 2 cruisers against a dreadnought, answered as the clicks come
        click('[data-path="attacker.units.cruiser"][data-op="+"]')
        click('[data-path="defender.units.dreadnought"][data-op="+"]')
        timings.append(("base battle: a click (the 2nd cruiser)",
                        *timed_click('[data-path="attacker.units.cruiser"][data-op="+"]')))
        check(not driver.execute_script("return document.getElementById('more-runs').open"),
              "player: no Run button in view (a longer run is folded away)")
        base = answer_after(0)
        exact = {"attacker_win": "44.85%", "draw": "14.09%", "defender_win": "41.06%"}
        check(agrees(base, exact), f"player: the answer came without Run: {base} ({base.kind}; the Markov chain's {exact})")
        # a faction battle: Letnev's 2 dreadnoughts, a carrier, 2 fighters and Non-Euclidean
        # Shielding against Sardakk N'orr's 3 cruisers, flagship and 2 fighters, in a nebula
        for side in ("attacker", "defender"):
            for unit in ("cruiser", "dreadnought"):
                while css(f'[data-path="{side}.units.{unit}"][data-count]').text != "0":
                    click(f'[data-path="{side}.units.{unit}"][data-op="-"]')
        choose('select[data-path="attacker.faction"]', "letnev")
        wait.until(lambda d: all_css('[data-row="flagship"] [data-record="letnev_flagship"]'))
        choose('select[data-path="defender.faction"]', "sardakk_norr")
        wait.until(lambda d: all_css('[data-side="defender"] [data-record="sardakk_norr_flagship"]'))
        row = css('[data-side="defender"] [data-row="flagship"] td.name').text
        check("C'morran N'orr" in row and "combat 6\u00d72" in row and "SD" in row,
              f"player: Sardakk N'orr's flagship row reads its name and values: {row!r}")
        row = css('[data-side="attacker"] [data-row="dreadnought"] td.name').text
        check("Dreadnought I" in row and "combat 5" in row and "BMB 5" in row,
              f"player: Letnev's dreadnought row: {row!r}")
        click('[data-path="attacker.units.dreadnought"][data-op="+"]', 2)
        click('[data-path="attacker.units.carrier"][data-op="+"]')
        click('[data-path="attacker.units.fighter"][data-op="+"]', 2)
        click('[data-path="defender.units.cruiser"][data-op="+"]', 3)
        click('[data-path="defender.units.flagship"][data-op="+"]')
        click('[data-path="defender.units.fighter"][data-op="+"]', 2)
        choose('select[data-path="attacker.technologies"][data-add]', "non_euclidean_shielding")
        wait.until(lambda d: all_css('[data-path="system.anomaly"] select'))
        choose('[data-path="system.anomaly"] select', "nebula")
        wait.until(lambda d: "anomaly" in css("#toml").get_attribute("value"))
        timings.append(("faction battle: a click (the Dreadnought II toggle)",
                        *timed_click('[data-side="attacker"] [data-upgrade="dreadnought_ii"]')))
        row = css('[data-side="attacker"] [data-row="dreadnought"] td.name').text
        check("Dreadnought II" in row, f"player: the upgrade toggle shows the upgraded unit: {row!r}")
        toml = css("#toml").get_attribute("value")
        check('technologies = ["non_euclidean_shielding", "dreadnought_ii"]' in toml,
              "player: the toggle adds the upgrade to the side's technologies")
        faction = answer_after(0)
        check(len(faction) == 3 and all(v.endswith("%") for v in faction.values()),
              f"player: the faction battle is answered without Run: {faction} ({css('#answer-status').text})")
        # the share link: the same setup and the same numbers in a new tab
        click("#copy-link")
        shared = css("#share-url").get_attribute("value")
        check("attacker.faction=letnev" in shared and "defender.units.cruiser=3" in shared,
              "player: the link holds the setup in readable parameters: " + shared[len(url):][:160])
        first_tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(shared)
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        again = answer_after(0)
        check(css("#toml").get_attribute("value") == toml, "player: the link restores the same setup (its TOML)")
        check(agrees(again, faction), f"player: and the same numbers ({again} against {faction}, {again.kind} and {faction.kind})")
        driver.close()
        driver.switch_to.window(first_tab)
        if args.docs:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(os.path.join(args.docs, "page-1280.png"))
        # a phone: 390 px wide, nothing scrolls sideways; the answer stays in view
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        time.sleep(0.3)
        width = driver.execute_script("return document.documentElement.scrollWidth")
        check(width <= 390, f"phone: at 390 px the page is {width} px wide (no sideways scroll)")
        driver.execute_script("window.scrollTo(0, 1500)")
        time.sleep(0.2)
        top = driver.execute_script("return document.getElementById('answer').getBoundingClientRect().top")
        check(abs(top) < 2, f"phone: the answer bar stays in view when scrolled (top {top})")
        driver.execute_script("window.scrollTo(0, 0)")
        if args.docs:
            time.sleep(0.2)
            driver.save_screenshot(os.path.join(args.docs, "page-390.png"))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        # a ground combat: the invasion example (the tactical action), loaded; its answer
        loads = driver.execute_script("return document.body.dataset.loads")
        n = answers()
        t0 = driver.execute_script("return performance.now()")
        driver.execute_script(
            "const s = document.getElementById('example'); for (const o of s.options) "
            "if (o.text.includes('invasion_ground_combat.toml')) s.value = o.value; "
            "document.getElementById('load-example').click()")
        wait.until(lambda d: answers() > n)
        first = float(driver.execute_script("return document.body.dataset.answerAt")) - t0
        answer_after(n)
        final = float(driver.execute_script("return document.body.dataset.answerAt")) - t0
        timings.append(("ground combat: the invasion example loaded", first, final, css("#answer-status").text))
        ground_view(timings)
        for what, first, final, status in timings:
            print(f"timing  {what}: first answer {first:.0f} ms, final {final:.0f} ms ({status})", flush=True)

        driver.get(url + "?ruleset=ti4")
        wait.until(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        driver.execute_script("document.getElementById('more-runs').open = true")

        # --- battle: 2 cruisers against a dreadnought, by clicking
        click('[data-path="attacker.units.cruiser"][data-op="+"]', 2)
        click('[data-path="defender.units.dreadnought"][data-op="+"]')
        check(css('[data-path="attacker.units.cruiser"][data-count]').text == "2",
              "battle: two clicks on + make 2 cruisers")
        runs, seed = 20000, 7
        page_result = run_on_page(runs, seed)
        check(page_result is not None, "battle: the run finished (" + message() + ")")
        scenario = page_toml("battle.toml")
        r = cli(args, "simulate", scenario, "--runs", str(runs), "--seed", str(seed), "--json")
        check(r.returncode == 0, "battle: rulebench simulate runs the page's TOML " + r.stderr)
        cli_json = report_of(r.stdout)
        same_report(page_result, cli_json, "battle")
        exact = {"attacker_win": 0.448547, "draw": 0.140896, "defender_win": 0.410557}
        for k, p in exact.items():
            se = (p * (1 - p) / runs) ** 0.5
            check(abs(cli_json[k] - p) < 4 * se,
                  f"battle: {k} {cli_json[k]:.4f} within 4 standard errors ({4 * se:.4f}) of the exact {p}")
        check(len(all_css('[data-chart="attacker.cruiser"] rect')) == 3,
              "battle: the attacker's cruiser survivors are charted (0, 1, 2)")
        # the whole distribution in one chart: the attacker keeps 2, 1; none left; the defender keeps 1
        bars = [(r.get_attribute("data-side"), r.get_attribute("data-k"))
                for r in all_css('[data-chart="outcome"] rect')]
        check(bars == [("attacker", "2"), ("attacker", "1"), ("", "0"), ("defender", "1")],
              f"battle: the outcome chart has a bar per units kept, attacker 2..1, none, defender 1: {bars}")
        tips = [t.get_attribute("textContent") for t in all_css('[data-chart="outcome"] rect title')]
        left = page_result["survivors_ends"]
        want = f"attacker alone keeps 2: {100 * left['attacker'][2]:.2f}%"
        check(tips and tips[0] == want, f"battle: its first bar is the result's survivors_ends ({tips[:1]}, {want})")
        combos = [li.get_attribute("data-key") for li in all_css('#combinations [data-side="attacker"] li')]
        check(sorted(combos) == ["1 cruiser", "2 cruiser", "none"],
              f"battle: the attacker's survivors by combination are listed: {combos}")
        if args.screenshot:
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(args.screenshot)

        # --- the same battle in the exact mode: the command line's exact numbers, no interval
        click('input[name="mode"][value="exact"]')
        serial = driver.execute_script("return document.body.dataset.results || '0'")
        click("#run")
        wait.until(lambda d: (d.execute_script("return document.body.dataset.results || '0'") != serial
                              and not css("#run").get_attribute("disabled")) or message())
        check(not message(), "exact: the exploration ran " + message())
        page_exact = json.loads(css("#result-json").get_attribute("textContent"))
        r = cli(args, "simulate", scenario, "--exact", "--json")
        cli_exact = report_of(r.stdout)
        for j in (page_exact, cli_exact):
            j.pop("seconds", None)
        check(page_exact == cli_exact and css("#result-head").get_attribute("data-method") == "exact",
              "exact: the page's result is `simulate --exact --json`'s")
        shown = {e.get_attribute("data-key"): e.text for e in all_css("#outcomes .pct")}
        want = {k: f"{100 * p:.2f}%" for k, p in exact.items()}
        check(shown == want, f"exact: the bars read {shown}, the Markov chain says {want}")
        check(not all_css("#outcomes .ci-text"), "exact: no interval is shown")
        click('input[name="mode"][value="montecarlo"]')

        # --- damaged units and the trace
        click('[data-path="defender.damaged.dreadnought"][data-op="+"]')
        toml = css("#toml").get_attribute("value")
        check("damaged = { dreadnought = 1 }" in toml, "damaged: the TOML says the dreadnought is damaged")
        type_into("#trace-seed", "3")
        click("#trace")
        wait.until(lambda d: all_css("#trace-events div") or message())
        shown = [e.get_attribute("data-key") for e in all_css("#trace-events div")]
        r = cli(args, "trace", page_toml("damaged.toml"), "--seed", "3", "--json")
        keys = [json.loads(line)["key"] for line in r.stdout.splitlines()
                if json.loads(line)["text"]]
        check(r.returncode == 0 and shown == keys and len(keys) > 5,
              f"damaged: the page narrates `rulebench trace`'s {len(keys)} events ({len(shown)} shown)")
        check(any(e.text.strip().startswith("==") for e in all_css("#trace-events .ev-window")),
              "damaged: windows are narrated")

        # --- homebrew: the pack's ship and card appear once the pack is ticked
        check(not all_css('[data-path="attacker.units.lancer"]'),
              "homebrew: no Lancer before the pack is loaded")
        click('[data-pack="boarding-party"]')
        wait.until(lambda d: all_css('[data-path="attacker.units.lancer"][data-op="+"]'))
        check(True, "homebrew: the pack's Lancer is among the units")
        cards = Select(css('select[data-path="attacker.cards"][data-add]'))
        values = [o.get_attribute("value") for o in cards.options]
        check("point_blank" in values, "homebrew: Point Blank is among the attacker's cards")
        check("boarding-party" in css("#toml").get_attribute("value"),
              "homebrew: the TOML loads the pack")
        Select(css("#compare-how")).select_by_value("with")
        Select(css("#compare-side")).select_by_value("attacker")
        Select(css("#compare-what")).select_by_value("point_blank")
        type_into("#compare-runs", "20000")
        type_into("#seed", "11")
        click("#compare")
        wait.until(lambda d: (all_css("#compare-table") and not css("#compare").get_attribute("disabled"))
                   or message())
        check(not message(), "homebrew: the comparison ran " + message())
        r = cli(args, "compare", page_toml("homebrew.toml"), "--with", "attacker:point_blank",
                "--runs", "20000", "--seed", "11", "--json")
        cmp = json.loads(r.stdout)
        d = cmp["difference"]["attacker_win"]
        want = f"{100 * d['difference']:.2f} pts [{100 * d['ci95'][0]:.2f} .. {100 * d['ci95'][1]:.2f}]"
        got = css('.diff-value[data-key="attacker_win"]').text
        check(got == want, f"homebrew: the page's paired difference {got!r} is compare's {want!r}")
        check(d["difference"] > 0 and d["significant"], "homebrew: Point Blank helps the attacker, significantly")

        # --- errors: the command line's messages, on the page
        bad = ('ruleset = "ti4"\nprocedure = "space_combat"\n\n[attacker]\nunits = { crusier = 2 }\n\n'
               '[defender]\nunits = { dreadnought = 1 }\n')
        path = os.path.join(work, "bad.toml")
        with open(path, "w") as f:
            f.write(bad)
        r = cli(args, "simulate", path, "--runs", "10")
        cli_error = r.stderr.strip().replace("error: " + path, "scenario")
        driver.execute_script("document.getElementById('toml').value = arguments[0]", bad)
        click("#load-toml")
        wait.until(lambda d: message())
        check(r.returncode == 2 and message() == cli_error,
              f"errors: loading an unknown unit shows the command line's error: {message()[:80]!r}")
        check("scenario:5: unknown unit 'crusier' (did you mean 'cruiser'?)" in message(),
              "errors: the message names the line and the nearest unit")
        click("#run")
        wait.until(lambda d: message() and not css("#run").get_attribute("disabled"))
        check(message() == cli_error, "errors: Run shows the same error")
        driver.execute_script("document.getElementById('toml').value = arguments[0]", "[attacker\n")
        click("#load-toml")
        wait.until(lambda d: message().startswith("scenario:1"))
        check(True, "errors: a TOML syntax error names its line: " + message()[:60])

        # --- cancel: a long run, cancelled
        driver.execute_script("document.getElementById('toml').value = arguments[0]",
                              bad.replace("crusier", "cruiser"))
        click("#load-toml")
        wait.until(lambda d: not message() and css('[data-path="attacker.units.cruiser"][data-count]').text == "2")
        type_into("#runs", "10000000")
        click("#run")
        wait.until(lambda d: not css("#cancel").get_attribute("disabled"))
        wait.until(lambda d: " of " in css("#progress-text").text and not css("#progress-text").text.startswith("simulate: 0 "))
        click("#cancel")
        wait.until(lambda d: "cancelled" in css("#progress-text").text or message())
        head = css("#result-head")
        done = int(head.get_attribute("data-runs"))
        check("cancelled" in head.text and 0 < done < 10000000,
              f"cancel: the run stopped after {done} runs and shows them")

        # --- the other rulesets: their forms and examples, no page code of their own
        for ruleset, example, field, value, written, runs in [
                ("xwing", "issue_example.toml", 'input[data-path="defender.tokens.evade"]', "0",
                 "tokens = { evade = 0 }", 20000),
                ("red_alert", "demo.toml", 'input[data-path="attacker.stars"]', "3", "stars = 3", 2000)]:
            loads = driver.execute_script("return document.body.dataset.loads")
            Select(css("#ruleset")).select_by_value(ruleset)
            wait.until(lambda d: d.execute_script("return document.body.dataset.loads") != loads)

            def choose_example(d):
                for o in Select(css("#example")).options:
                    if example in o.text:
                        Select(css("#example")).select_by_visible_text(o.text)
                        return True
                return False
            wait.until(choose_example)
            before = css("#toml").get_attribute("value")
            click("#load-example")
            wait.until(lambda d: css("#toml").get_attribute("value") != before and all_css(field))
            edit(field, value)
            wait.until(lambda d: written in css("#toml").get_attribute("value"))
            result = run_on_page(runs, 5)
            check(result is not None, f"{ruleset}: the example ran after a change in its form " + message())
            r = cli(args, "simulate", page_toml(ruleset + ".toml"), "--runs", str(runs), "--seed", "5",
                    "--json")
            check(r.returncode == 0 and result == report_of(r.stdout),
                  f"{ruleset}: the page's result is `simulate --json`'s")

        # --- one format: every shipped example, loaded on the page and written back as TOML,
        # runs as the file does (the same JSON from `simulate`); a procedure without a form
        # (the TI4 tactical action) is run from the page too
        for ruleset in ["ti4", "xwing", "red_alert"]:
            loads = driver.execute_script("return document.body.dataset.loads")
            Select(css("#ruleset")).select_by_value(ruleset)
            wait.until(lambda d: d.execute_script("return document.body.dataset.loads") != loads)
            examples = [o.text for o in Select(css("#example")).options][1:]
            for text in examples:
                pack, file = text.split(" ")[0].split("/")
                Select(css("#example")).select_by_visible_text(text)
                before = css("#toml").get_attribute("value")
                driver.execute_script("delete document.body.dataset.bestState")
                click("#load-example")
                wait.until(lambda d: css("#toml").get_attribute("value") != before or message())
                original = os.path.join(args.root, "content", pack, "scenarios", file)
                written = page_toml("example.toml")
                # a file's [play] (best play) goes to the Best play view, not the setup: the
                # written TOML plays the policies, as the file does with --best none
                with open(original, "rb") as f:
                    play = tomllib.load(f).get("play")
                if play:
                    wait.until(lambda d: d.execute_script("return document.body.dataset.bestState") in ("done", "error"))
                    ticked = {i.get_attribute("value") for i in all_css("#best-sides input") if i.is_selected()}
                    check(ticked == {k for k, v in play.items() if v == "best"} and "[play]" not in css("#toml").get_attribute("value"),
                          f"one format: {pack}/{file}'s [play] ticks its sides in the Best play view ({ticked})")
                    driver.execute_script("document.querySelectorAll('#best-sides input:checked').forEach((i) => i.click())")
                a = cli(args, "simulate", original, "--runs", "200", "--seed", "2", "--json",
                        *(["--best", "none"] if play else []))
                b = cli(args, "simulate", written, "--runs", "200", "--seed", "2", "--json")
                # (the reports' "scenario" names the file each ran from)
                same = (not message() and a.returncode == 0 and b.returncode == 0
                        and report_of(a.stdout) == report_of(b.stdout))
                check(same, f"one format: {pack}/{file} written back by the page runs as the file does "
                      + (message() or b.stderr.strip())[:200])
                if not same:
                    print(f"  file: {a.returncode} {a.stdout[:300]}\n  page: {b.returncode} {b.stdout[:300]}")
                if file == "learn_to_play_action.toml":
                    result = run_on_page(300, 2)
                    r = cli(args, "simulate", written, "--runs", "300", "--seed", "2", "--json")
                    check(result is not None and result == report_of(r.stdout),
                          "one format: the tactical action (no form: TOML only) runs on the page "
                          "with simulate's numbers")

        # --- a ti4battle.com link pasted: the hand-written scenario's battle and numbers
        ti4battle_link()

        # --- the sweep: a heat map of battles, a cell opened as the battle (web/sweep.js)
        sweep_view(check, driver, wait, args, work)

        # --- best play: the gain beside the policy's odds, the first decisions (web/best.js)
        best_view(check, driver, wait, args, work)

        # --- the tactical action on the hex map (web/map.js)
        tactical_map(check, driver, wait, args)
    except OnlyPart as e:
        print(e)
    except Exception as e:  # a check that could not even run is a failure, with what it saw
        # and where (a TimeoutException's message is empty: the line says what was waited for)
        here = [f for f in traceback.extract_tb(e.__traceback__)
                if os.path.abspath(f.filename) == os.path.abspath(__file__)]
        where = f" (serve_test.py:{here[-1].lineno}: {here[-1].line})" if here else ""
        check(False, f"{type(e).__name__}: {str(e).strip()}{where}")
        try:
            driver.save_screenshot(os.path.join(work, "failure.png"))
            print("the page at the failure: " + os.path.join(work, "failure.png"))
        except Exception:
            pass
    finally:
        try:
            for entry in driver.get_log("browser"):
                message = entry.get("message", "")
                if entry.get("level") == "SEVERE" and "favicon" not in message:
                    print("browser: " + message)
                    # the error checks' refused requests are expected; a script error never is
                    if "Failed to load resource" not in message:
                        check(False, "the page's script raised: " + message.splitlines()[0])
        except Exception:
            pass
        driver.quit()
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            check(False, "rulebench serve did not stop on SIGTERM")
        check(server.returncode == 0, f"rulebench serve exits 0 on SIGTERM (got {server.returncode})")
    if check.failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    # the failures again at the end, where a log cut in its middle still shows them
    for what in check.failures:
        print("FAIL   " + what)
    print(f"{check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
