#!/usr/bin/env python3
"""The README's quick starts and the modder's tour (docs/modding.md), run step by step.

Usage: tour_test.py RULEBENCH_EXE SOURCE_DIR

Each section below is run in its own fresh copy of the repository's scripts/ and content/ (the
working folder of its commands). Its fenced blocks, in order:
- a ```toml or ```lua block whose first line is a comment naming a path (# content/x/y.toml):
  a file the reader writes; when the path is already a file of the repository (step 2 shows the
  real Morale Boost), every line of the block, comments aside, must be in that file;
- a ```sh block: each `rulebench ...` line is run in the copy and must succeed (`rulebench serve`
  is not run: it waits for a browser; the browser test covers the page); `tools/...` lines are
  the set-up, not run here;
- a plain ``` block right after a ```sh block: what those commands print; each of its lines
  must be (part of) a line of their output, spaces compared loosely.
Prints one line per step and closes with "N passed, N failed".
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def normalize(line):
    return " ".join(line.split())


def strip_comment(line, mark):
    # a comment outside strings ("..." and '...')
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif line.startswith(mark, i):
            return line[:i]
    return line


def blocks(text):
    """(language, body lines) of each fenced block, in order."""
    out, lang, body = [], None, None
    for line in text.splitlines():
        if body is None:
            m = re.match(r"^```(\w*)\s*$", line)
            if m:
                lang, body = m.group(1), []
        elif line.startswith("```"):
            out.append((lang, body))
            body = None
        else:
            body.append(line)
    return out


# (file, heading) of each section the test runs
SECTIONS = [
    ("README.md", "## Quick start: a player"),
    ("README.md", "## Quick start: a modder"),
    ("README.md", "## Quick start: a designer"),
    ("docs/modding.md", "## A modder's tour"),
]


def section(source, name, heading):
    text = open(os.path.join(source, name), encoding="utf-8").read()
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def main():
    exe, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    passed = failed = 0
    for name, heading in SECTIONS:
        print(f"-- {name}: {heading.lstrip('# ')}")
        p, f = run_section(exe, source, section(source, name, heading))
        passed, failed = passed + p, failed + f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def run_section(exe, source, tour):
    work = tempfile.mkdtemp(prefix="rulebench-tour-")
    passed = failed = 0
    try:
        for folder in ("scripts", "content"):
            shutil.copytree(os.path.join(source, folder), os.path.join(work, folder))
        last_output = None
        for n, (lang, body) in enumerate(blocks(tour), 1):
            step = f"block {n} ({lang or 'output'})"
            problems = []
            if lang in ("toml", "lua"):
                mark = "#" if lang == "toml" else "--"
                first = body[0].strip() if body else ""
                m = re.match(re.escape(mark) + r"\s*(\S+\.(toml|lua))\s*$", first)
                if not m:
                    problems.append(f"its first line must name its file ({mark} content/...)")
                else:
                    path = os.path.join(work, m.group(1))
                    step += " " + m.group(1)
                    if os.path.isfile(path):
                        have = {normalize(strip_comment(l, mark)) for l in open(path, encoding="utf-8")}
                        for line in body[1:]:
                            want = normalize(strip_comment(line, mark))
                            if want and want not in have:
                                problems.append(f"not in {m.group(1)}: {line.strip()}")
                    else:
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with open(path, "w", encoding="utf-8") as f:
                            f.write("\n".join(body[1:]) + "\n")
                last_output = None
            elif lang == "sh":
                last_output = ""
                for line in body:
                    line = strip_comment(line, "#").strip()
                    if not line:
                        continue
                    words = shlex.split(line)
                    if words[0].startswith("tools/") or words[:2] == ["rulebench", "serve"]:
                        continue
                    if words[0] != "rulebench":
                        problems.append(f"not a rulebench command: {line}")
                        continue
                    run = subprocess.run([exe, "--root", work] + words[1:], cwd=work,
                                         capture_output=True, text=True, timeout=600)
                    last_output += run.stdout + run.stderr
                    if run.returncode != 0:
                        problems.append(f"`{line}` exited {run.returncode}:\n{run.stdout}{run.stderr}")
                    step += f"\n      $ {line}"
            elif lang == "":
                if last_output is None:
                    problems.append("an output block must follow a ```sh block")
                else:
                    got = [normalize(l) for l in last_output.splitlines()]
                    for line in body:
                        want = normalize(line)
                        if want and not any(want in g for g in got):
                            problems.append(f"not printed: {line.strip()}")
                last_output = None
            else:
                last_output = None
                continue
            if problems:
                failed += 1
                print(f"FAIL  {step}")
                for p in problems:
                    print("      " + p.replace("\n", "\n      "))
            else:
                passed += 1
                print(f"ok    {step}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return passed, failed


if __name__ == "__main__":
    sys.exit(main())
