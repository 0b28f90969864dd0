#!/usr/bin/env bash
# The source habits the test command holds: every C++ and CUDA file of the project is formatted
# as .clang-format says (clang-format 14, Google style at 100 columns). `--fix` rewrites the files
# that are not; without it, the script lists them with the lines that differ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(git ls-files '*.h' '*.cc' '*.cu' '*.inc')
if [ "${1:-}" = "--fix" ]; then
  clang-format-14 -i "${sources[@]}"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! clang-format-14 --dry-run --Werror "${sources[@]}" 2> "$log"; then
  grep -E '^[^ ].*: error:' "$log" | cut -d: -f1 | sort -u | sed 's/^/  not clang-format clean: /' >&2
  echo "check_style: $(grep -cE ': error:' "$log") lines differ; scripts/check_style.sh --fix formats them" >&2
  exit 1
fi
echo "check_style: ${#sources[@]} files clang-format clean" >&2
