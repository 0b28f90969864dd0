#!/usr/bin/env bash
# The whole test suite: set up, build (release and ASan+UBSan, warnings as errors), run the
# GoogleTest and pytest suites against both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export TG_DATASETS_DIR=${TG_DATASETS_DIR:-$(scripts/datasets.sh || true)}
threads=$(nproc)

echo "== release build" >&2
scripts/build.sh release
(cd build/release && ctest --output-on-failure -j "$threads")
TG_BIN=build/release/tiergraph python3 -m pytest -q -x tests/python

echo "== sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer)" >&2
scripts/build.sh sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build/sanitize && ctest --output-on-failure -j "$threads")
TG_BIN=build/sanitize/tiergraph TG_SANITIZED=1 python3 -m pytest -q -x tests/python
echo "== all tests passed" >&2
