#!/usr/bin/env python3
"""After a failed ctest run: each failed test's own failure lines, printed last.

CI shows the head and the tail of a long log; ctest prints a failing test's output where the
test ended, in the middle. This repeats, at the end, the lines of each failed test that say
what failed (FAIL, error, Traceback and the line after it, a Catch2 failure's expansion) and
the test's last lines.
"""
import re
import sys

log_path = sys.argv[1]
try:
    text = open(log_path, encoding="utf-8", errors="replace").read()
except OSError as e:
    sys.exit(f"failed_tests: {e}")

# LastTest.log: a block per test, "N/M Testing: NAME" ... "Output:" ... "Test Passed."/"Test Failed."
blocks = re.split(r"^-{20,}\n(?=\d+/\d+ Testing: )", text, flags=re.M)
wanted = re.compile(r"FAIL|[Ee]rror|Traceback|exception|failed|REQUIRE|CHECK|with expansion", re.I)
for block in blocks:
    head = re.match(r"\d+/\d+ Testing: (.+)", block)
    if not head or re.search(r"^Test Passed\.", block, flags=re.M):
        continue  # a skipped test (its return code 77) also says Passed
    name = head.group(1).strip()
    out = block.split("\nOutput:\n", 1)[-1]
    lines = [l for l in out.splitlines() if not l.startswith("-----")]
    said = [l for l in lines if wanted.search(l) and not l.startswith(("browser: ", "ok "))]
    print(f"\n=== failed: {name}")
    for l in said[:40]:
        print("  " + l[:400])
    print("  ... its last lines:")
    for l in lines[-15:]:
        print("  " + l[:400])
