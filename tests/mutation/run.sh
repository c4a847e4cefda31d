#!/usr/bin/env bash
# Mutation run: breaks each security check listed in mutants.txt, one at a time, in a scratch git worktree
# of HEAD, builds only the listed test executables (release preset, ccache) and runs them. A mutant is
# "killed" when a test fails, "survived" when all pass, "invalid" when it does not build or its snippet is
# not found exactly once. Not part of CI (minutes per mutant). See docs/mutation.md.
#
#   tests/mutation/run.sh [id-regex]        # e.g. tests/mutation/run.sh '^nc-'
#   SCRATCH=/tmp/x JOBS=2 tests/mutation/run.sh
set -u
repo=$(git rev-parse --show-toplevel)
list="$repo/tests/mutation/mutants.txt"
filter="${1:-.}"
scratch="${SCRATCH:-/tmp/bitwire-mutation}"
jobs="${JOBS:-2}"
logs="$scratch.logs"
mkdir -p "$logs"

if [ ! -d "$scratch/.git" ] && [ ! -f "$scratch/.git" ]; then
  git -C "$repo" worktree add --detach "$scratch" HEAD >/dev/null || exit 1
fi
git -C "$scratch" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)" || exit 1
(cd "$scratch" && cmake --preset release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null) || exit 1

killed=0; survived=0; invalid=0; report=""
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  id=$(printf '%s' "$line" | awk -F ' @@ ' '{print $1}')
  printf '%s' "$id" | grep -Eq -- "$filter" || continue
  file=$(printf '%s' "$line" | awk -F ' @@ ' '{print $2}')
  targets=$(printf '%s' "$line" | awk -F ' @@ ' '{print $5}')
  # Literal replacement of the one occurrence (python: no regex or shell quoting of the snippets).
  if ! MUT_LINE="$line" python3 - "$scratch/$file" <<'PY'
import os, sys
parts = os.environ["MUT_LINE"].split(" @@ ")
original, replacement = parts[2], parts[3]
path = sys.argv[1]
text = open(path).read()
if text.count(original) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(original, replacement))
PY
  then
    status="invalid (snippet not found exactly once)"; invalid=$((invalid + 1))
  elif ! (cd "$scratch" && nice cmake --build --preset release -j"$jobs" --target $targets >"$logs/$id.build.log" 2>&1); then
    status="invalid (does not build: $logs/$id.build.log)"; invalid=$((invalid + 1))
  else
    status="survived"; failing=""
    for t in $targets; do
      if ! timeout 600 "$scratch/build/release/tests/$t" >"$logs/$id.$t.log" 2>&1; then failing="$failing $t"; fi
    done
    if [ -n "$failing" ]; then status="killed by$failing"; killed=$((killed + 1)); else survived=$((survived + 1)); fi
  fi
  git -C "$scratch" checkout -q -- "$file"
  echo "$id: $status"
  report="$report$id: $status"$'\n'
done < "$list"
echo "killed $killed, survived $survived, invalid $invalid"
[ "$survived" -eq 0 ] && [ "$invalid" -eq 0 ]
