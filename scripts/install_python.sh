#!/usr/bin/env bash
# Installs the tiergraph Python package from this checkout: `pip install .`, with the build
# dependencies (nanobind, scikit-build-core) that scripts/setup.sh installed, so no network is
# needed; the C++ build is kept in build/python, so a second install recompiles only changes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! python3 -m pip install -q --no-build-isolation . >"$log" 2>&1; then
  cat "$log" >&2
  echo "install_python: pip install . failed" >&2
  exit 1
fi
