#!/usr/bin/env bash
# clang-tidy over the lower layers (util, io, graph, ingest, mpi, store, plan: their sources and,
# through HeaderFilterRegex, their headers) with the checks in .clang-tidy, warnings as errors.
# It reads the compile commands of a configured build (default build/release). The engine and
# the layers above are left out: each of their files instantiates every kernel on every engine,
# about 40 s of clang-tidy a file on this machine, where these take about 1.5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
[[ -f $build/compile_commands.json ]] || { echo "check_tidy: no $build/compile_commands.json (build first)" >&2; exit 2; }
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[[ -n $tidy ]] || { echo "check_tidy: clang-tidy 14 is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
files=$(ls src/{util,io,graph,ingest,mpi,store,plan}/*.cc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Two files at a time per core; clang-tidy prints a count of suppressed warnings on stderr.
if ! printf '%s\n' $files | xargs -P "$(nproc)" -n 4 "$tidy" -p "$build" --quiet >"$log" 2>/dev/null; then
  grep -E 'error:|warning:' "$log" | sort -u >&2
  echo "check_tidy: clang-tidy found the above (checks: .clang-tidy)" >&2
  exit 1
fi
echo "check_tidy: $(printf '%s\n' $files | wc -l) files clean"
