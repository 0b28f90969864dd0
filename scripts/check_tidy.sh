#!/usr/bin/env bash
# clang-tidy over every C++ source of the library, the command line, tiergraph-gpu's host part and
# the Python module (src/**/*.cc, python/src/*.cc, and through HeaderFilterRegex their headers)
# with the checks in .clang-tidy, warnings as errors. It reads the compile commands of a
# configured build (default build/release), less GCC's precompiled headers (`-include
# cmake_pch.hxx`, which clang cannot read): so each source must also include what it uses.
# clang-tidy is PyPI's wheel of LLVM 22 (scripts/setup.sh pins it), which by default runs no check
# over system headers (fmt, nlohmann-json, CLI11, the standard library, Thrust): they took more
# than half of clang-tidy 14's time here (a kernel's file: 63 s with clang-tidy 14, 30 s with 22).
# The files that instantiate every kernel on every engine (src/run/run_kernel_*.cc) go first,
# so the short ones fill the cores at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
[[ -f $build/compile_commands.json ]] || { echo "check_tidy: no $build/compile_commands.json (build first)" >&2; exit 2; }
tidy=$(python3 -c 'import clang_tidy; print(clang_tidy.get_executable("clang-tidy"))' 2>/dev/null || true)
[[ -n $tidy ]] || { echo "check_tidy: PyPI's clang-tidy is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The wheel's clang has no omp.h of its own: it gets GCC's (the one the build compiles with),
# alone in a folder, so none of GCC's other headers shadow clang's.
mkdir "$work/omp"
ln -s "$(g++ -print-file-name=include/omp.h)" "$work/omp/omp.h"
# The build's commands for the files below, without the precompiled header; a source the build
# does not compile (a component switched off) is not checked.
files=$(python3 - "$build/compile_commands.json" "$work/compile_commands.json" <<'EOF'
import glob, json, os, re, sys
database = json.load(open(sys.argv[1]))
wanted = sorted(glob.glob("src/**/*.cc", recursive=True) + glob.glob("python/src/*.cc"),
                key=lambda f: (not os.path.basename(f).startswith("run_kernel_"), f))
wanted_paths = {os.path.abspath(f): f for f in wanted}
kept, seen = [], set()
for entry in database:
    path = os.path.abspath(os.path.join(entry["directory"], entry["file"]))
    if path not in wanted_paths or path in seen:
        continue
    seen.add(path)
    entry["command"] = re.sub(r" -include \S+cmake_pch\.hxx| -Winvalid-pch", "", entry["command"])
    kept.append(entry)
json.dump(kept, open(sys.argv[2], "w"))
print("\n".join(f for f in wanted if os.path.abspath(f) in seen))
EOF
)
log=$work/log
# One file per clang-tidy, as many at once as there are cores; clang-tidy prints a count of
# suppressed warnings on stderr. libstdc++ 12's std::stable_sort calls its own deprecated
# get_temporary_buffer, which clang 22 reports at our call: deprecations in our code are the g++
# build's to report (-Werror).
if ! printf '%s\n' $files | xargs -P "$(nproc)" -n 1 "$tidy" -p "$work" --quiet \
    --extra-arg=-isystem"$work/omp" --extra-arg=-Wno-deprecated-declarations >"$log" 2>/dev/null; then
  grep -E 'error:|warning:' "$log" | sort -u >&2
  echo "check_tidy: clang-tidy found the above (checks: .clang-tidy)" >&2
  exit 1
fi
echo "check_tidy: $(printf '%s\n' $files | wc -l) files clean"
