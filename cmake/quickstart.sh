#!/usr/bin/env bash
# bitwire quick start: `cmake/quickstart.sh demo` builds what the demo needs (the runtime, idlc, the
# generated protocol, the demo: about 130 of the tree's 540 targets) and runs it;
# `cmake/quickstart.sh test` builds and runs the whole test suite (release, then ASan+UBSan, then the
# short fuzz runs, then plain -O3 builds with g++ and clang++ as a CMake user makes them). Both install
# missing Debian packages first and are cheap to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${BITWIRE_JOBS:-2}"
fuzz_seconds="${BITWIRE_FUZZ_SECONDS:-20}"

# Debian packages the build needs. `dpkg -s` is the source of truth for "installed".
packages=(cmake ninja-build g++ clang libclang-rt-14-dev libboost-dev libgtest-dev libgmock-dev libbenchmark-dev libsodium-dev)

install_missing() {
  local started=$SECONDS
  local missing=()
  for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  echo "bitwire: installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "bitwire: packages installed in $((SECONDS - started)) s"
}

build() { # build PRESET [TARGET...]
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null
  if [ "$#" -gt 0 ]; then
    cmake --build --preset "$preset" -j "$jobs" --target "$@"
  else
    cmake --build --preset "$preset" -j "$jobs"
  fi
}

# The way a CMake user or an add_subdirectory/FetchContent consumer builds us: no preset, the default
# generator, CMake's own Release flags (-O3), no -Werror. It must build, and print no warning. What a user
# compiles is built: the runtime, idlc and the examples (the demo and hello_session, whose generated
# message factories compile every message's serialize at -O3). The test and benchmark programs are left
# out here -- the preset builds above compile them with -Werror -- to keep CI within its time.
build_plain() { # build_plain COMPILER
  local dir=build/plain-$1
  mkdir -p build
  echo "== bitwire: plain build (cmake -DCMAKE_BUILD_TYPE=Release, runtime, idlc, examples) with $1"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$1" \
    -DBITWIRE_BUILD_TESTS=OFF -DBITWIRE_BUILD_BENCH=OFF >"$dir.log" 2>&1 ||
    { cat "$dir.log"; return 1; }
  if ! cmake --build "$dir" -j "$jobs" >>"$dir.log" 2>&1; then
    grep -E -B2 -A12 'error' "$dir.log" | head -n 80
    echo "bitwire: the plain $1 build failed (log: $dir.log)" >&2
    return 1
  fi
  if grep -q 'warning:' "$dir.log"; then
    grep -E -A6 'warning:' "$dir.log" | head -n 60
    echo "bitwire: the plain $1 build printed warnings (log: $dir.log)" >&2
    return 1
  fi
}

run_tests() { # run_tests PRESET
  echo "== bitwire: tests, preset $1"
  ctest --preset "$1" -j "$jobs"
}

fuzz_one() { # fuzz_one TARGET: fuzz for $fuzz_seconds, keep the log and a reproducer only if it fails
  local f=$1
  local name; name=$(basename "$f")
  local corpus=tests/fuzz/corpus/${name%_fuzz}
  local work; work=$(mktemp -d)
  # Seed corpus is read-only input; new finds go to a scratch directory.
  if ! "$f" -max_total_time="$fuzz_seconds" -print_final_stats=1 -rss_limit_mb=2048 \
       -artifact_prefix="$work/" "$work" "$corpus" >"$work/log" 2>&1; then
    echo "-- $name FAILED"
    tail -n 60 "$work/log"
    echo "bitwire: fuzzer $name failed; reproducer in $work" >&2
    return 1
  fi
  echo "-- $name"
  grep -E 'stat::number_of_executed_units|Done' "$work/log" | tail -n 2
  rm -rf "$work"
}

# The targets run $jobs at a time (each is one process on one core); every one runs to its end, and the
# stage fails if any of them failed.
run_fuzzers() {
  echo "== bitwire: fuzzers, ${fuzz_seconds}s each, ${jobs} at a time"
  local dir=build/fuzz/tests/fuzz
  local targets=() built=0
  for f in "$dir"/*_fuzz; do
    [ -x "$f" ] || continue
    built=1
    local name; name=$(basename "$f")
    if grep -q "^$name " tests/fuzz/quarantine.txt 2>/dev/null; then
      echo "-- $name: QUARANTINED, not fuzzed (tests/fuzz/quarantine.txt: $(grep "^$name " tests/fuzz/quarantine.txt | cut -d' ' -f3-))"
      continue
    fi
    targets+=("$f")
  done
  [ "$built" -eq 1 ] || { echo "bitwire: no fuzz targets were built" >&2; return 1; }
  local failed=0 running=0
  local out; out=$(mktemp -d)
  for i in "${!targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
    fuzz_one "${targets[$i]}" >"$out/$i.log" 2>&1 &
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
  done
  # The reports in the targets' order, whole, so two targets' lines never interleave.
  for i in "${!targets[@]}"; do cat "$out/$i.log"; done
  rm -rf "$out"
  [ "$failed" -eq 0 ] || { echo "bitwire: a fuzzer failed (see above)" >&2; return 1; }
}

case "${1:-}" in
  demo)
    install_missing
    started=$SECONDS
    # Only the demo and what it links: the tests and benchmarks are the test command's (same build tree,
    # so `test` afterwards reuses everything built here).
    build release bitwire_demo
    echo "bitwire: demo built in $((SECONDS - started)) s"
    shift
    ./build/release/examples/bitwire_demo "$@"
    ;;
  test)
    install_missing
    build release
    run_tests release
    build sanitize
    run_tests sanitize
    build fuzz
    run_fuzzers
    build_plain g++
    build_plain clang++
    echo "bitwire: all test stages passed"
    ;;
  *)
    echo "usage: cmake/quickstart.sh demo|test" >&2
    exit 2
    ;;
esac
