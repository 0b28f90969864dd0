#!/usr/bin/env bash
# Fuzzes the readers: scripts/fuzz.sh [seconds-per-target] [target...]   (default: 60 s, all)
#
# Builds build/fuzz (clang 14, libFuzzer, ASan+UBSan) and runs each target in turn, one at a time
# and niced, for the given time (TG_FUZZ_RUNS=N also stops a target after N executions). Each
# target starts from a working corpus, build/fuzz/corpus/<name>/, seeded with the in-tree corpus
# fuzz/corpus/<name>/ and the first 50 lines of each shared dataset in its format. Afterwards it
# prints, per target, the executions, exec/s and coverage (libFuzzer's final cov: and ft:) and
# any crash files (build/fuzz/artifacts/<name>/), and merges the inputs that add coverage back
# into the in-tree corpus (-merge=1), which is kept small: the named inputs (seed-*, regress-*)
# stay, and the merged ones, smallest first, fill it to at most 150 files and 200 KB.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
datasets=${TG_DATASETS_DIR:-../shared/datasets}

scripts/build.sh fuzz
targets=("$@")
if ((${#targets[@]} == 0)); then
  for exe in build/fuzz/fuzz/fuzz_*; do targets+=("${exe##*/fuzz_}"); done
fi

# The first 50 lines of a dataset (xzcat stopped by head is no failure).
head_of() { xzcat "$1" | head -50 || true; }

# The shared datasets each target is seeded from, with the option byte to prefix (see the
# target's .cc file: PACE is the DIMACS target with its first option bit set).
seeds_of() {
  case "$1" in
    edgelist) for f in "$datasets"/*.txt.xz "$datasets"/grape-p2p31/*.e.xz; do echo "0 $f"; done ;;
    csv) for f in "$datasets"/*.csv.xz; do echo "0 $f"; done ;;
    dimacs)
      for f in "$datasets"/*.gr.xz; do
        if head_of "$f" | grep -q '^p tw'; then echo "1 $f"; else echo "0 $f"; fi
      done ;;
    metis) for f in "$datasets"/*.graph.xz; do echo "0 $f"; done ;;
    cedge) for f in "$datasets"/*.cedge.xz; do echo "0 $f"; done ;;
    compressed) for f in "$datasets"/soc-wiki-Vote.txt.xz "$datasets"/road-rome99.gr.xz; do echo "3 $f"; done ;;
  esac
}

seed() {  # seed NAME DIR: the in-tree corpus and dataset heads into the working corpus DIR
  local name=$1 dir=$2 option file base
  mkdir -p "$dir"
  cp fuzz/corpus/"$name"/* "$dir"/ 2>/dev/null || true
  seeds_of "$name" | while read -r option file; do
    [ -f "$file" ] || continue
    base=$(basename "$file" .xz)
    if [ "$name" = compressed ]; then  # the head in each compressed format
      { printf "\\x0$option"; head_of "$file" | gzip -c; } > "$dir/head-$base.gz"
      { printf "\\x0$option"; head_of "$file" | xz -0 -c; } > "$dir/head-$base.xz"
      { printf "\\x0$option"; head_of "$file" | zstd -q -c; } > "$dir/head-$base.zst"
    else
      { printf "\\x0$option"; head_of "$file"; } > "$dir/head-$base"
    fi
  done
}

# Keeps the in-tree corpus small: merged inputs (40-hex-digit names), largest first, go until
# at most 150 files and 200 KB are left.
trim() {
  local dir=$1 k=0
  local -a merged
  mapfile -t merged < <(find "$dir" -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -printf '%s %p\n' |
    sort -rn | cut -d' ' -f2-)
  while (($(find "$dir" -type f | wc -l) > 150 || $(du -sb "$dir" | cut -f1) > 200 * 1024)) && ((k < ${#merged[@]})); do
    rm "${merged[k]}"
    k=$((k + 1))
  done
}

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
summary=()
for name in "${targets[@]}"; do
  exe=build/fuzz/fuzz/fuzz_$name
  work=build/fuzz/corpus/$name
  artifacts=build/fuzz/artifacts/$name
  log=build/fuzz/logs/$name.log
  [ -x "$exe" ] || { echo "fuzz: no target '$name' (have: $(ls build/fuzz/fuzz | grep '^fuzz_' | tr '\n' ' '))" >&2; exit 2; }
  mkdir -p "$artifacts" "$(dirname "$log")"
  seed "$name" "$work"
  # -max_len: a text reader's first buffer is 4 KiB, so 16 KiB inputs span several rounds; a
  # graph file needs room for its header, two grids' index rows and 4 KiB-aligned block rows.
  max_len=16384
  [ "$name" = graph_file ] && max_len=131072
  echo "== $name: $seconds s, inputs up to $max_len bytes" >&2
  start=$(date +%s)
  # libFuzzer's exit status says whether it found something; the artifacts list says what.
  nice -n 10 "$exe" "$work" -max_total_time="$seconds" ${TG_FUZZ_RUNS:+-runs="$TG_FUZZ_RUNS"} \
    -max_len="$max_len" -timeout=30 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || true
  wall=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 \2/')
  crashes=$(ls "$artifacts" | tr '\n' ' ')
  summary+=("$(printf '%-12s %12s %8s %8s %6s %7s  %s' "$name" "${runs:-?}" "$wall" "${rate:-?}" ${cov:-? ?} "${crashes:-none}")")

  # Merge back: the merged inputs are redone from scratch each time so that the corpus stays
  # minimal (libFuzzer's merge takes the smallest inputs first), then trimmed to its budget.
  merged=$(mktemp -d)
  find fuzz/corpus/"$name" -regextype posix-extended -regex '.*/[0-9a-f]{40}' -exec mv {} "$merged"/ \;
  if ! nice -n 10 "$exe" -merge=1 -max_len="$max_len" fuzz/corpus/"$name" "$merged" "$work" >>"$log" 2>&1; then
    echo "fuzz: merging into fuzz/corpus/$name failed (see $log); the corpus is left as it was" >&2
    find "$merged" -type f -exec mv {} fuzz/corpus/"$name"/ \;
  fi
  rm -rf "$merged"
  trim fuzz/corpus/"$name"
done

printf '%-12s %12s %8s %8s %6s %7s  %s\n' target executions wall_s exec/s cov ft crashes
printf '%s\n' "${summary[@]}"
