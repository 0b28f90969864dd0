#!/usr/bin/env bash
# Everything GPU-related that has landed, checked in one run on the device machine (a GPU, 16
# cores, nvcc, CMake, ninja and Python; none of this project's Debian libraries; no network), in
# at most about 7 minutes so that a rerun fits the session's 15 minutes of device time:
#   1. nvidia-smi;
#   2. tiergraph-gpu and the CUDA tests: the binaries carried from the developer's machine
#      (build/gpu-carry, made by `scripts/gpu_check.sh --build-only` there: device-only, sm_90,
#      static libraries, xz-compressed) when they run here, else built here with nvcc (16 jobs);
#   3. the CUDA tests (the device engine held to the CPU engine on every kernel);
#   4. compute-sanitizer memcheck and racecheck on a small graph;
#   5. copy bandwidths (device to device, pinned host to device and back);
#   6. BFS (16 sources), PageRank (20 iterations), WCC, SSSP, Radii, BC, triangle counting, the
#      clustering coefficient and label propagation on Kronecker-22, 24 and 25
#      (generated here, timed) on the GPU, each answer checked against the CPU engine's on the
#      machine's 16 threads (which gives the CPU time beside it), and Kronecker-22's PageRank,
#      WCC and SSSP verified;
#   7. the build here with nvcc, if the carried binaries were used and time is left.
# A table is printed last and everything is written under $OUT (gpu_check.json, gpu_check.log and
# the raw outputs). Steps past the time budget are skipped and say so.
#
#   scripts/gpu_check.sh              on the device machine (device tool: carry .gpudeps/root, build/gpu-carry)
#   scripts/gpu_check.sh --build-only here: build/gpu for the device machine (sm_90, no MPI/NUMA/uring)
#   scripts/gpu_check.sh --dry-run    here, no GPU: the host part (tiny graphs, --device gpu-host,
#                                     the binary of build/release); the test command runs it
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH=$PATH:/usr/local/cuda/bin
mode=device
case "${1:-}" in
  --dry-run) mode=dry ;;
  --build-only) mode=build ;;
  "") ;;
  *) echo "usage: $0 [--dry-run | --build-only]" >&2; exit 2 ;;
esac
budget=${TG_GPU_CHECK_SECONDS:-420}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
out=${OUT:-$root/build/gpu-check-out}
mkdir -p "$out"
log="$out/gpu_check.log"
: >"$log"
results="$out/results.jsonl"
: >"$results"
say() { echo "[gpu_check +$(elapsed)s] $*" | tee -a "$log"; }
time_left() { [ "$(elapsed)" -lt "$budget" ]; }

deps=$root/.gpudeps/root
configure_device_only() {  # $1: build folder, $2: CUDA architectures ("" for none)
  local lib=$deps/usr/lib/x86_64-linux-gnu
  cmake -S "$root" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTG_DEVICE_ONLY=ON -DTG_TESTS=ON \
    ${2:+-DTG_CUDA_ARCHITECTURES=$2} $([ -z "$2" ] && echo -DTG_CUDA=OFF) \
    -DCMAKE_PREFIX_PATH="$deps/usr" -DZLIB_LIBRARY="$lib/libz.a" -DZLIB_INCLUDE_DIR="$deps/usr/include" \
    -DLIBLZMA_LIBRARY="$lib/liblzma.a" -DLIBLZMA_INCLUDE_DIR="$deps/usr/include" -DTG_ZSTD_LIBRARY="$lib/libzstd.a" \
    -DTG_STATIC_CUDART=ON >>"$log" 2>&1
}

if [ "$mode" = build ]; then
  [ -d "$deps" ] || scripts/gpu_deps.sh
  configure_device_only build/gpu 90 && ninja -C build/gpu tiergraph-gpu tiergraph_device_tests 2>&1 | tail -3
  [ "${PIPESTATUS[0]}" = 0 ] || exit 1
  # Compressed (their sm_90 code makes them 40+ MB; xz makes that a tenth), to travel within the
  # device tool's 64 MiB.
  rm -rf build/gpu-carry && mkdir -p build/gpu-carry
  for b in tiergraph-gpu tiergraph_device_tests; do strip -o "build/gpu-carry/$b" "build/gpu/$b" && xz -T0 -6 "build/gpu-carry/$b"; done
  echo "build/gpu-carry: $(du -sh build/gpu-carry | cut -f1) to carry (with .gpudeps/root)"
  exit 0
fi

if [ "$mode" = dry ]; then
  bin=${TG_GPU_BIN_DIR:-$root/build/release}
  device=gpu-host
  scales=${TG_GPU_CHECK_SCALES:-"10 12"}
  threads=2
else
  bin=$root/build/gpu-carry
  device=gpu
  scales=${TG_GPU_CHECK_SCALES:-"22 24 25"}
  threads=16
  say "1. nvidia-smi"
  nvidia-smi >"$out/nvidia-smi.txt" 2>&1
  head -15 "$out/nvidia-smi.txt" | tee -a "$log"
  say "2. binaries"
  mkdir -p "$root/build/gpu-bin"
  for b in tiergraph-gpu tiergraph_device_tests; do
    python3 -c 'import lzma, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())' "$bin/$b.xz" "$root/build/gpu-bin/$b" \
      && chmod +x "$root/build/gpu-bin/$b"
  done
  bin=$root/build/gpu-bin
  if ! "$bin/tiergraph-gpu" info >>"$log" 2>&1; then
    say "the carried binaries do not run here: building with nvcc (16 jobs)"
    bin=$root/build/gpu-here
    configure_device_only "$bin" 90 && ninja -C "$bin" -j 16 tiergraph-gpu tiergraph_device_tests >>"$log" 2>&1 \
      || { say "the build failed (the end of $log says why)"; tail -30 "$log"; exit 1; }
    built_here=1
  fi
  say "3. CUDA tests"
  "$bin/tiergraph_device_tests" --gtest_brief=1 >"$out/cuda-tests.txt" 2>&1
  echo "{\"step\":\"cuda_tests\",\"rc\":$?}" >>"$results"
  tail -4 "$out/cuda-tests.txt" | tee -a "$log"
fi
gpu=$bin/tiergraph-gpu
work=${TG_GPU_CHECK_WORK:-/tmp/tg-gpu-check}
mkdir -p "$work"

run() {  # $1: label, then a tiergraph-gpu run's arguments; appends its JSON report to results
  local label=$1
  shift
  local line
  line=$(OMP_NUM_THREADS=$threads "$gpu" run "$@" 2>>"$log" | tail -1)
  local rc=$?
  [ -n "$line" ] || line='{}'
  echo "{\"step\":\"run\",\"label\":\"$label\",\"rc\":$rc,\"report\":$line}" >>"$results"
  say "$label: $(echo "$line" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("median", r.get("median_seconds"), "s; cpu", r.get("against_cpu", {}).get("cpu_seconds"), "s; same as cpu:", r.get("against_cpu", {}).get("same"))' 2>/dev/null)"
}

if [ "$mode" = device ]; then
  say "4. compute-sanitizer (Kronecker-10)"
  "$gpu" generate -g 10 -s --weights int -o "$work/k10.tg" --overwrite >>"$log" 2>&1
  for tool in memcheck racecheck; do
    for kernel in bfs sssp wcc pr radii bc tc lcc cdlp; do
      time_left || break
      compute-sanitizer --tool $tool --error-exitcode 9 "$gpu" run $kernel "$work/k10.tg" --device gpu -i 3 --samples 8 >"$work/san.txt" 2>&1
      rc=$?
      echo "{\"step\":\"sanitizer\",\"tool\":\"$tool\",\"kernel\":\"$kernel\",\"rc\":$rc}" >>"$results"
      echo "== $tool $kernel rc $rc" >>"$out/sanitizer.txt"
      tail -5 "$work/san.txt" >>"$out/sanitizer.txt"
    done
  done
  say "sanitizer: $(grep -c '^== .* rc 0$' "$out/sanitizer.txt") of $(grep -c '^== ' "$out/sanitizer.txt") clean"
  say "5. copy bandwidths"
  "$gpu" info --probe 1073741824 >"$work/probe.json" 2>>"$log" && echo "{\"step\":\"probe\",\"report\":$(cat "$work/probe.json")}" >>"$results"
  cat "$work/probe.json" | tee -a "$log"
fi

say "6. kernels on Kronecker $scales ($device against the CPU engine, $threads threads)"
last_scale="" last_seconds=0
for s in $scales; do
  # The next graph's generation and runs take about 2x the last's per scale step: skip it when
  # that would run past the budget.
  guess=0
  [ -n "$last_scale" ] && guess=$(awk "BEGIN { printf \"%d\", $last_seconds * 2 ^ ($s - $last_scale) }")
  if ! time_left || [ $(($(elapsed) + guess)) -gt "$budget" ]; then
    say "time budget: Kronecker-$s skipped (about ${guess} s more would pass $budget s)"
    echo "{\"step\":\"skipped\",\"scale\":$s}" >>"$results"
    continue
  fi
  scale_start=$(date +%s)
  g=$work/k$s.tg
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=$threads "$gpu" generate -g "$s" -s --weights int -o "$g" --overwrite >"$work/gen.json" 2>>"$log"
  gen_seconds=$(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }")
  echo "{\"step\":\"generate\",\"scale\":$s,\"seconds\":$gen_seconds,\"report\":$(tail -1 "$work/gen.json" || echo '{}')}" >>"$results"
  say "generated Kronecker-$s in $gen_seconds s"
  # The verifiers are serial (a BFS's takes about 2 s at Kronecker-22, Radii's 64 BFSs 100 s):
  # Kronecker-22's PageRank, WCC, SSSP and BC (4 sources) are verified; every run's trial 0 equals
  # the CPU engine's.
  verify=$([ "$s" -le 22 ] && echo --verify)
  run "k$s bfs" bfs "$g" --device $device -n 16 --against-cpu
  run "k$s pr" pr "$g" --device $device -n 3 -i 20 --against-cpu $verify
  run "k$s wcc" wcc "$g" --device $device -n 3 --against-cpu $verify
  run "k$s sssp" sssp "$g" --device $device -n 4 --against-cpu $verify
  run "k$s radii" radii "$g" --device $device -n 1 --against-cpu
  run "k$s bc" bc "$g" --device $device -n 2 --against-cpu $verify
  # The list passes: triangle counting, the clustering coefficient, label propagation (10 rounds).
  run "k$s tc" tc "$g" --device $device -n 2 --against-cpu
  run "k$s lcc" lcc "$g" --device $device -n 1 --against-cpu
  run "k$s cdlp" cdlp "$g" --device $device -n 1 --against-cpu
  rm -f "$g"
  last_scale=$s last_seconds=$(($(date +%s) - scale_start))
done

# About 3 minutes of nvcc on 16 cores: only when that much of the budget is left.
if [ "$mode" = device ] && [ -z "${built_here:-}" ] && [ $((budget - $(elapsed))) -ge 180 ]; then
  say "7. the build here with nvcc (16 jobs)"
  t0=$(date +%s)
  configure_device_only "$root/build/gpu-here" 90 && timeout $((budget + 30 - $(elapsed))) ninja -C "$root/build/gpu-here" -j 16 tiergraph-gpu >>"$log" 2>&1
  rc=$?
  echo "{\"step\":\"build_here\",\"rc\":$rc,\"seconds\":$(($(date +%s) - t0))}" >>"$results"
  say "build here: rc $rc in $(($(date +%s) - t0)) s"
fi

python3 "$root/scripts/gpu_check_table.py" "$results" "$out/gpu_check.json" | tee -a "$log"
