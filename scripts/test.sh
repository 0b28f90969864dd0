#!/usr/bin/env bash
# The whole test suite: set up, build (release, ThreadSanitizer, ASan+UBSan; warnings as errors),
# run the GoogleTest and pytest suites against the release and ASan+UBSan builds (the unit tests in
# the ASan+UBSan one; the conformance suites in the release one), install the Python package and
# run its tests and networkx's tests on its backend, and the unit tests (engine and algorithms)
# under ThreadSanitizer, and build the binary without MPI and check it. It ends with a table of
# the time each section took.
set -euo pipefail
cd "$(dirname "$0")/.."
# Runs side by side: ctest jobs and pytest workers (pytest-xdist), more than the cores because
# many tests wait (mpirun starting ranks, a rank killed on purpose, a far rank's timeout).
jobs=$(( $(nproc) * 2 ))
# Idle OpenMP threads sleep instead of spinning: with tests, ranks and threads sharing a few
# cores, spinning threads took the cores from the ones with work (the release pytest run: 4:03
# serially, 2:40 with 4 workers, 1:42 with 4 workers and passive waits, on 2 cores).
export OMP_WAIT_POLICY=passive
# Each section's heading says when it starts, in minutes since the suite began; at the end (pass
# or fail) a table gives each section's time.
clock() { echo "$(( $1 / 60 )):$(printf %02d $(( $1 % 60 )))"; }
phases=() starts=()
section() {
  phases+=("$1") starts+=("$SECONDS")
  echo "== [$(clock "$SECONDS")] $*" >&2
}
phase_times() {
  local rc=$? i end
  echo "== time by section ($( ((rc == 0)) && echo passed || echo "FAILED, status $rc" )):" >&2
  for i in "${!phases[@]}"; do
    end=${starts[i + 1]:-$SECONDS}
    printf '   %6s  %s\n' "$(clock $(( end - starts[i] )))" "${phases[i]}" >&2
  done
  printf '   %6s  total\n' "$(clock "$SECONDS")" >&2
}
trap phase_times EXIT
section "setup (scripts/setup.sh: Debian packages, Python packages, the datasets)"
scripts/setup.sh
export TG_DATASETS_DIR=${TG_DATASETS_DIR:-$(scripts/datasets.sh || true)}

section "source habits (scripts/check_style.sh: clang-format)"
scripts/check_style.sh

section "release build (the binary, the conformance and device tests, tiergraph-gpu and the Python module)"
# The unit tests (tests/cpp) are left to the two sanitizer builds below, which run them all.
TG_UNIT_TESTS=OFF scripts/build.sh release
section "source habits (scripts/check_tidy.sh: clang-tidy over every C++ source)"
scripts/check_tidy.sh build/release
section "release: the conformance suites, MPI protocols, device tests and corpus replays (ctest)"
(cd build/release && ctest --output-on-failure -j "$jobs")
section "release: the command line's tests (pytest)"
TG_BIN=build/release/tiergraph python3 -m pytest -q -x -n "$jobs" tests/python
section "the GPU check's host part (scripts/gpu_check.sh --dry-run: the device engine on Thrust's OpenMP backend)"
OUT=build/gpu-check-dry scripts/gpu_check.sh --dry-run

section "Python package: pip install . (scikit-build-core and nanobind, in build/release: the engine the tests ran)"
scripts/install_python.sh --build-dir build/release
# From outside the checkout, so `import tiergraph` is the installed package, not the source.
(cd tests/package && python3 -m pytest -q -x -p no:cacheprovider .)
section "networkx's own tests of the functions the backend implements, run on the backend"
# As networkx documents for testing a backend: every call of those functions goes to tiergraph,
# and what it declines (can_run) falls back to networkx. tests/networkx/nx_test_sampling.py runs
# 100 of the 500 cases of the one test that repeats a check (it took 97% of this section).
plugins=$PWD/tests/networkx
(cd /tmp && PYTHONPATH=$plugins NETWORKX_TEST_BACKEND=tiergraph NETWORKX_FALLBACK_TO_NX=True python3 -m pytest -q -x -n "$jobs" \
  -p no:cacheprovider -p nx_test_sampling -W ignore::UserWarning \
  --pyargs $(python3 -c 'import tiergraph.nx_backend as b; print(" ".join(b.NETWORKX_TEST_MODULES))'))

section "ThreadSanitizer build (clang 14, LLVM's libomp with its Archer tool)"
scripts/build.sh tsan
section "ThreadSanitizer: the GoogleTest suite three times, in two shards side by side"
# Archer tells TSan about OpenMP's barriers and reductions (without it every barrier-ordered
# access is a false report); libomp's own uninstrumented internals are ignored. Some races show
# only in some interleavings, so the suite runs three times; two shards (halves of the tests)
# run at once, because one process leaves a core idle through each test's serial parts. The
# conformance suite (answers on every setup; its concurrency is the engine tests') is not built
# here (scripts/build.sh) and runs in the release build.
tsan_shard() {
  TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66 external_symbolizer_path=/usr/lib/llvm-14/bin/llvm-symbolizer" \
    OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$1 \
    build/tsan/tiergraph_tests --gtest_repeat=3 --gtest_brief=1
}
tsan_shard 0 &
first_shard=$!
tsan_shard 1
wait "$first_shard"

section "build without MPI (scripts/build.sh nompi: the binary a machine without Open MPI makes, clang -O0)"
scripts/build.sh nompi
section "without MPI: its answers, its --version, and ranks and far ranks refused (pytest)"
TG_BIN=build/release/tiergraph TG_NOMPI_BIN=build/nompi/tiergraph python3 -m pytest -q -x \
  tests/python/test_without_mpi.py

section "sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer)"
scripts/build.sh sanitize
section "ASan+UBSan: GoogleTest, MPI protocols and the fuzz corpora (ctest)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build/sanitize && ctest --output-on-failure -j "$jobs")
section "ASan+UBSan: the command line's tests of parsing, files, tiers and ranks (pytest)"
# The sanitizers look for errors in code paths, so here the tests that repeat one path on several
# graphs take the first (tests/python/checked_build.py), and test_algorithms.py (every kernel's
# answer on every graph, direction and thread count, against networkx and scipy) is left to the
# release run: its engine paths run under ASan in the C++ engine tests above and in the tests of
# ranks, tiers and far ranks here.
TG_BIN=build/sanitize/tiergraph TG_SANITIZED=1 python3 -m pytest -q -x -n "$jobs" tests/python \
  --ignore=tests/python/test_algorithms.py
