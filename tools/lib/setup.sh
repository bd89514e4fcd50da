# Shared by tools/run and tools/test: install what the build needs, then configure and build.
# Sourced, not run. Works on a fresh Debian 12 machine as root (or with sudo).

RB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RB_BUILD=${RB_BUILD:-$RB_ROOT/build}
# lua-check (luacheck) and python3-jsonschema are for the tests: luacheck lints every shipped Lua
# file and `rulebench check` runs it on a pack; the JSON Schemas of the TOML formats and of the
# --json outputs are checked against real files and output with python3-jsonschema, a well-kept
# validator (draft 7) that also checks the schemas themselves.
RB_PACKAGES=(cmake g++ ninja-build pkg-config liblua5.4-dev libtomlplusplus-dev catch2
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libpcg-cpp-dev libcpp-httplib-dev
  lua-check python3-jsonschema parallel libmimalloc-dev)
# parallel (GNU parallel): tests/sweep/shards.sh runs a sweep's shards as local jobs and merges
# them (docs/sweep.md)
# Only for tools/test: the browser test of `rulebench serve`'s page (tests/browser/serve_test.py)
# drives Debian's Chromium headless through chromedriver with Debian's python3-selenium.
RB_BROWSER_PACKAGES=(chromium chromium-driver python3-selenium)
# Only for tools/fuzz: clang with libFuzzer and the sanitizer runtimes (libclang-rt is only a
# recommendation of clang), and llvm-symbolizer for readable sanitizer stacks.
RB_FUZZ_PACKAGES=(clang libclang-rt-14-dev llvm)
# More cmake -D arguments for a new build folder (tools/fuzz, tools/test's sanitizer build).
RB_CMAKE_ARGS=()

rb_log() { printf '[rulebench] %s\n' "$*" >&2; }

rb_ensure_packages() {
  local missing=() p
  for p in "${RB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  rb_log "installing missing packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

rb_build() {
  # RB_NO_BUILD=1: use the build folder as it is (tests/tour/tools_run_test.sh)
  [ "${RB_NO_BUILD:-}" = 1 ] && return 0
  if [ ! -f "$RB_BUILD/CMakeCache.txt" ]; then
    rb_log "configuring in $RB_BUILD"
    cmake -S "$RB_ROOT" -B "$RB_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      ${RB_CMAKE_ARGS[@]+"${RB_CMAKE_ARGS[@]}"} >&2
  fi
  cmake --build "$RB_BUILD" --parallel "$(nproc)" "$@" >&2
}
