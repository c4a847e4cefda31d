#!/usr/bin/env bash
# Times idlc on a generated 2,000-message schema (target: under a second for each of --check and -o).
#
#   bench/generated/idlc_throughput.sh BUILD_DIR [MESSAGES]
#
# BUILD_DIR is a configured and built tree holding idlc/idlc and bench/generated/big_schema_gen (e.g.
# build/bench after `cmake --build build/bench --target idlc big_schema_gen`). Uses hyperfine when it is
# installed (apt-get install hyperfine), otherwise bash's `time` over 10 runs. Writes its scratch files
# under a temporary directory it removes at exit.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [MESSAGES]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
messages=${2:-2000}
idlc="$build/idlc/idlc"
generator="$build/bench/generated/big_schema_gen"
for tool in "$idlc" "$generator"; do
  if [[ ! -x $tool ]]; then
    echo "$0: $tool is missing; build the idlc and big_schema_gen targets first" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
schema="$work/big.net"
"$generator" "$schema" "$messages"
mkdir -p "$work/out"

# One checked run first: both commands must succeed before anything is timed.
"$idlc" --check "$schema"
"$idlc" -o "$work/out" "$schema"
echo "generated header: $(wc -c <"$work/out/big.hpp") bytes, $(wc -l <"$work/out/big.hpp") lines"

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs 30 --style basic --export-json "$work/times.json" \
    -n "idlc --check" "$idlc --check $schema" \
    -n "idlc -o" "$idlc -o $work/out $schema"
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%-14s median %.1f ms  min %.1f ms  (%d runs)" % (r["command"], r["median"] * 1e3, r["min"] * 1e3, len(r["times"])))' \
      "$work/times.json"
  fi
else
  for command in "--check $schema" "-o $work/out $schema"; do
    echo "idlc $command (10 runs):"
    time (for _ in 1 2 3 4 5 6 7 8 9 10; do "$idlc" $command; done)
  done
fi
