#!/usr/bin/env bash
# Builds tiergraph: scripts/build.sh [release|sanitize] -> build/<kind>/tiergraph
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-release}
case "$kind" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  sanitize) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DTG_SANITIZE=ON) ;;
  *) echo "usage: $0 [release|sanitize]" >&2; exit 2 ;;
esac
cmake -S . -B "build/$kind" -G Ninja -DTG_WERROR=ON "${flags[@]}" >/dev/null
ninja -C "build/$kind" >/dev/null
