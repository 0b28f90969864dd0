#!/usr/bin/env bash
# Installs the tiergraph Python package from this checkout: `pip install .`, with the build
# dependencies (nanobind, scikit-build-core) that scripts/setup.sh installed, so no network is
# needed; the C++ build is kept in build/python, so a second install recompiles only changes.
#
# scripts/install_python.sh --build-dir build/release: pip builds in that folder instead, which
# scripts/build.sh release configured with the module (TG_PYTHON): only the module is left to
# compile, and the package holds the very engine the tests ran (scripts/test.sh does this).
set -euo pipefail
cd "$(dirname "$0")/.."
settings=()
if [[ ${1:-} == --build-dir ]]; then
  [[ -f ${2:?--build-dir needs a folder}/CMakeCache.txt ]] || { echo "install_python: $2 is not a configured build folder" >&2; exit 2; }
  settings=(--config-settings=build-dir="$2")
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--build-dir FOLDER]" >&2
  exit 2
fi
scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! python3 -m pip install -q --no-build-isolation "${settings[@]}" . >"$log" 2>&1; then
  cat "$log" >&2
  echo "install_python: pip install . failed" >&2
  exit 1
fi
