#!/usr/bin/env bash
# tools/run and tools/install from another folder: what `rulebench new pack` prints as the next
# step (`rulebench check ./NAME`) works from the folder the pack was made in, with tools/run and
# with the rulebench tools/install copies to a bin folder.
# Usage: tools_run_test.sh BUILD_DIR SOURCE_DIR (BUILD_DIR holds a built rulebench)
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rulebench-run-XXXXXX")
name="run-test-pack-$$"
# on today's failure the pack lands in the repository: never leave it there
trap 'rm -rf "$work"; [ -n "$name" ] && rm -rf "${source_dir:?}/$name"' EXIT
failed=0
step() {  # step DESCRIPTION COMMAND...: runs it, prints ok or FAIL with its output
  local what=$1
  shift
  local out
  if out=$("$@" 2>&1); then
    echo "ok    $what"
  else
    echo "FAIL  $what"
    printf '%s\n' "$out" | sed 's/^/      | /'
    failed=1
  fi
}
export RB_BUILD="$build" RB_NO_BUILD=1
unset RULEBENCH_ROOT
mkdir -p "$work/mods"
cd "$work/mods"
step "tools/run new pack $name (from another folder)" "$source_dir/tools/run" new pack "$name"
step "the pack is made in the caller's folder" test -f "$work/mods/$name/pack.toml"
step "tools/run check ./$name (from another folder)" "$source_dir/tools/run" check "./$name"
step "tools/run test ./$name/tests (from another folder)" "$source_dir/tools/run" test "./$name/tests"
step "tools/install $work/bin" env RB_BUILD="$build" RB_NO_BUILD=1 "$source_dir/tools/install" "$work/bin"
step "the installed rulebench checks ./$name (it finds the repository's content)" \
  "$work/bin/rulebench" check "./$name"
step "tools/install --help names ~/.local/bin" sh -c "'$source_dir/tools/install' --help | grep -q '~/.local/bin'"
exit $failed
