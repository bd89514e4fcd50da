#!/usr/bin/env bash
# A sweep run as 2 shards by GNU parallel (2 local jobs), merged, gives exactly the bytes of the
# unsharded run, in each output form (docs/sweep.md, "Shards and merge"); a sweep of Monte Carlo
# cells only, as 3 shards holding blocks of each cell's runs, too.
# Usage: shards.sh RULEBENCH_EXE SOURCE_DIR
set -euo pipefail
exe=$1 root=$2
spec=$root/content/ti4-base/sweeps/small.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v parallel >/dev/null || { echo "GNU parallel is missing (Debian: parallel; tools/test installs it)"; exit 1; }
"$exe" --root "$root" sweep "$spec" --threads 2 --json > "$work/whole.json"
"$exe" --root "$root" sweep "$spec" --threads 2 --csv > "$work/whole.csv"
"$exe" --root "$root" sweep "$spec" --threads 2 > "$work/whole.txt"
parallel --will-cite --halt now,fail=1 -j 2 \
  "$exe" --root "$root" sweep "$spec" --threads 1 --shard {}/2 '>' "$work/shard{}.json" ::: 1 2
"$exe" --root "$root" merge "$work/shard1.json" "$work/shard2.json" --json > "$work/merged.json"
"$exe" --root "$root" merge "$work/shard2.json" "$work/shard1.json" --csv > "$work/merged.csv"
"$exe" --root "$root" merge "$work/shard1.json" "$work/shard2.json" > "$work/merged.txt"
status=0
for form in json csv txt; do
  if cmp -s "$work/whole.$form" "$work/merged.$form"; then
    echo "ok: merged shards = the unsharded run ($form, $(wc -c < "$work/whole.$form") bytes)"
  else
    echo "FAIL: merged shards differ from the unsharded run ($form)"
    diff "$work/whole.$form" "$work/merged.$form" | head -5
    status=1
  fi
done
# every cell by Monte Carlo (exact = false): 3 shards hold blocks of each cell's runs
mc=$root/content/ti4-base/sweeps/small_monte_carlo.toml
"$exe" --root "$root" sweep "$mc" --threads 2 --json > "$work/mc_whole.json"
parallel --will-cite --halt now,fail=1 -j 2 \
  "$exe" --root "$root" sweep "$mc" --threads 1 --shard {}/3 '>' "$work/mc{}.json" ::: 1 2 3
"$exe" --root "$root" merge "$work/mc3.json" "$work/mc1.json" "$work/mc2.json" --json > "$work/mc_merged.json"
if cmp -s "$work/mc_whole.json" "$work/mc_merged.json" && grep -q '"blocks"' "$work/mc1.json"; then
  echo "ok: a Monte Carlo sweep's blocks of runs in 3 shards merge into the unsharded run ($(wc -c < "$work/mc_whole.json") bytes)"
else
  echo "FAIL: a Monte Carlo sweep's 3 shards merged differ from the unsharded run (or hold no blocks)"
  diff "$work/mc_whole.json" "$work/mc_merged.json" | head -5
  status=1
fi
# a shard given twice and a missing shard are errors
if "$exe" --root "$root" merge "$work/shard1.json" "$work/shard1.json" > /dev/null 2> "$work/err"; then
  echo "FAIL: merging shard 1 twice succeeded"; status=1
else
  grep -q "given twice" "$work/err" && echo "ok: a shard given twice is an error" || { cat "$work/err"; status=1; }
fi
if "$exe" --root "$root" merge "$work/shard2.json" > /dev/null 2> "$work/err"; then
  echo "FAIL: merging one of two shards succeeded"; status=1
else
  grep -q "shards missing: 1 of 2" "$work/err" && echo "ok: a missing shard is an error" || { cat "$work/err"; status=1; }
fi
exit $status
