#!/usr/bin/env bash
# Installs what tiergraph needs to build and test, from Debian's packages and PyPI.
# Idempotent and quiet when everything is already present.
set -euo pipefail

apt_packages=(cmake ninja-build g++ pkg-config libomp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev zlib1g-dev liblzma-dev libzstd-dev libxxhash-dev xz-utils zstd gzip
  # the file tier: O_DIRECT reads through io_uring; the numa tier: memory bound to a node
  liburing-dev libnuma-dev
  # the far-memory rank (and distributed runs): Open MPI
  openmpi-bin libopenmpi-dev
  # ThreadSanitizer build (scripts/build.sh tsan): clang, its TSan runtime, LLVM's libomp with the
  # Archer tool (libarcher.so), and llvm-symbolizer for the reports' stacks; all LLVM 14.
  clang-14 libclang-rt-14-dev libomp-14-dev llvm-14
  # the source habits the test command checks (scripts/check_style.sh; scripts/check_tidy.sh's
  # clang-tidy comes from PyPI, below)
  clang-format-14)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Tests (pytest, and pytest-xdist to run them side by side), the Python package's build
# (nanobind, scikit-build-core: `pip install .` then needs no network) and its optional outputs
# (pandas, matplotlib). Each entry is "module to import:package on PyPI".
python_modules=(pytest:pytest xdist:pytest-xdist numpy:numpy scipy:scipy networkx:networkx zstandard:zstandard
  xxhash:xxhash nanobind:nanobind scikit_build_core:scikit-build-core pandas:pandas matplotlib:matplotlib)
missing_py=()
for entry in "${python_modules[@]}"; do
  python3 -c "import ${entry%%:*}" >/dev/null 2>&1 || missing_py+=("${entry#*:}")
done
# clang-tidy 22, pinned: a newer one brings new checks, and so new findings, of its own.
clang_tidy_version=22.1.8
python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('clang-tidy') != '$clang_tidy_version')" \
  >/dev/null 2>&1 || missing_py+=("clang-tidy==$clang_tidy_version")
if ((${#missing_py[@]})); then
  echo "setup: installing Python modules ${missing_py[*]}" >&2
  python3 -m pip install -q "${missing_py[@]}" 2>&1 | grep -v -i "warning: running pip as" >&2 || true
fi
