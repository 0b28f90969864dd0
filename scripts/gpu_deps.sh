#!/usr/bin/env bash
# The libraries tiergraph-gpu needs that a GPU machine's image lacks (it has nvcc, CMake, ninja and
# Python, none of this project's Debian libraries, and no network): their Debian packages,
# downloaded here (libfmt9 only because fmt's CMake files check for its .so; fmt is used header-only) and unpacked into .gpudeps/root (ignored by git), which the device tool carries
# beside the working tree. scripts/gpu_check.sh builds against it with TG_DEVICE_ONLY.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libfmt-dev libfmt9 nlohmann-json3-dev libcli11-dev libzstd-dev libzstd1 libxxhash-dev liblzma-dev liblzma5 zlib1g-dev zlib1g libgtest-dev)
mkdir -p .gpudeps/debs
rm -rf .gpudeps/root
(cd .gpudeps/debs && apt-get download "${packages[@]}" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
for deb in .gpudeps/debs/*.deb; do dpkg -x "$deb" .gpudeps/root; done
echo "gpu_deps: $(ls .gpudeps/debs | wc -l) packages in .gpudeps/root ($(du -sh .gpudeps | cut -f1))"
