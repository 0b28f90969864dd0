#!/usr/bin/env bash
# Prints the folder holding the shared datasets: $TG_DATASETS_DIR, ../shared/datasets beside the
# checkout, or /work/shared/datasets. Exits 1 if none exists.
here="$(cd "$(dirname "$0")/.." && pwd)"
for d in "${TG_DATASETS_DIR:-}" "$here/../shared/datasets" /work/shared/datasets; do
  if [ -n "$d" ] && [ -d "$d" ]; then (cd "$d" && pwd); exit 0; fi
done
echo "no shared datasets folder found (set TG_DATASETS_DIR)" >&2
exit 1
