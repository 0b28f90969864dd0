#!/usr/bin/env bash
# Builds tiergraph: scripts/build.sh [release|sanitize|tsan|nompi|fuzz] -> build/<kind>/tiergraph
# TG_BUILD_JOBS=N limits ninja to N parallel jobs (default: ninja's, one per core and then some).
#
# nompi: the binary alone as a machine without Open MPI builds it (-DTG_WITH_MPI=OFF), with clang
# 14 at -O0: it is checked (tests/python/test_without_mpi.py), not timed; SSSP's trials compile
# in 8 s so (g++ -O0: 15 s, -O3: 51 s), and the binary is the one build that clang makes whole.
# (A Debug build type: Release would append -O3 after any -O0 in CMAKE_CXX_FLAGS.)
#
# fuzz: the libFuzzer targets fuzz/fuzz_<name> with ASan+UBSan, clang 14 (scripts/fuzz.sh runs them).
#
# tsan: ThreadSanitizer with clang 14 and LLVM's libomp; builds only tiergraph_tests (the CLI
# doubles the build time; `ninja -C build/tsan tiergraph` adds it).
# libomp's Archer tool (libarcher.so) tells TSan about OpenMP's barriers, reductions and joins;
# without it every barrier-ordered access is reported. Run the tests with
#   TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66
#     external_symbolizer_path=/usr/lib/llvm-14/bin/llvm-symbolizer"
#   OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so
# ignore_noninstrumented_modules hides libomp's own internals; halt_on_error=0 lists every race.
# libomp finds libarcher.so by itself too (through the RUNPATH clang gives the binary);
# ARCHER_OPTIONS=verbose=1 prints a line when Archer is active.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
clang=false  # g++ (the default compiler) unless a kind says clang 14
targets=()
# The sanitizer builds are checked, not timed: -O1 and line tables (-g1, all a sanitizer's stack
# needs) compile the heaviest file (a kernel's trials on every engine and id width) in 43 s
# where -O2 -g took 81 s (the ASan+UBSan build's kernels and tests go to -O0: CMakeLists.txt says
# why). _GLIBCXX_ASSERTIONS checks every std::vector/span/array index and
# front/back/pop on empty containers (the project's own invariants are exceptions, not asserts).
checked_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG -D_GLIBCXX_ASSERTIONS")
case "$kind" in
  # The release build holds the Python module too (position-independent code), so
  # `scripts/install_python.sh --build-dir build/release` installs the package without a second
  # compile of the engine.
  # TG_UNIT_TESTS=OFF (the test command's) leaves the unit tests out of it: they run in the two
  # sanitizer builds (CMakeLists.txt says why). Passed every time, so a build folder never keeps
  # the last caller's choice.
  release)
    flags=(-DCMAKE_BUILD_TYPE=Release -DTG_PYTHON=ON "-DTG_UNIT_TESTS=${TG_UNIT_TESTS:-ON}")
    ;;
  # Without the conformance suites (CMakeLists.txt says why): 3 minutes of this build on 2 cores.
  # clang 14, whose -O0 compiles about twice as fast as g++'s: the build took 4:30 where g++
  # took 7:37 on 2 cores, and the command line's tests under it 3:45 where they took 5:25.
  sanitize)
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "${checked_flags[@]}" -DTG_SANITIZE=ON -DTG_CONFORMANCE=OFF)
    clang=true
    ;;
  tsan)
    # Without MPI: its suite is one process (the MPI tests run in the other two builds), and so
    # every test run also builds the library and its tests as a machine without MPI would.
    # Nor the conformance suite, whose threads are the engine tests' (scripts/test.sh never ran it
    # here; under ASan its source took 220 CPU seconds).
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "${checked_flags[@]}" -DTG_TSAN=ON -DTG_WITH_MPI=OFF
           -DTG_CONFORMANCE=OFF)
    clang=true
    targets=(tiergraph_tests)
    ;;
  nompi)
    flags=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DTG_WITH_MPI=OFF -DTG_TESTS=OFF
           -DTG_CUDA=OFF -DTG_GPU_CLI=OFF)
    clang=true
    targets=(tiergraph)
    ;;
  fuzz)
    flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTG_FUZZ=ON -DTG_TESTS=OFF)
    clang=true
    targets=(tiergraph_fuzzers)
    ;;
  *) echo "usage: $0 [release|sanitize|tsan|nompi|fuzz]" >&2; exit 2 ;;
esac
compilers=()
if $clang; then compilers=(CC=clang-14 CXX=clang++-14); fi
# CMake keeps a build folder's compiler: a folder configured with the other one (this kind's
# compiler changed since) is made afresh.
cached=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "build/$kind/CMakeCache.txt" 2>/dev/null || true)
cached_clang=false
if [[ $cached == *clang* ]]; then cached_clang=true; fi
if [[ -n $cached && $cached_clang != "$clang" ]]; then
  rm -rf "build/$kind"
fi
env "${compilers[@]}" cmake -S . -B "build/$kind" -G Ninja -DTG_WERROR=ON "${flags[@]}" >/dev/null
# Quiet when it succeeds; ninja writes a failing command and its compiler's messages to standard
# output, so they are shown when it fails.
if ! ninja -C "build/$kind" ${TG_BUILD_JOBS:+-j "$TG_BUILD_JOBS"} "${targets[@]}" >"build/$kind/ninja.out"; then
  cat "build/$kind/ninja.out" >&2
  echo "build.sh: the $kind build failed (above)" >&2
  exit 1
fi
