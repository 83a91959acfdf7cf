#!/usr/bin/env bash
# The benchmark: builds the core benchmarks (bench/<area>/*.cpp) and runs them, then the SQL benchmarks
# (bench/<area>/*.sh, each on a throwaway cluster with the real data from ../shared/data). Every figure is
# reported as a ratio against a baseline measured in the same run. Output also goes to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
. test/lib.sh

ensure_dependencies
mkdir -p bench/out
log "building benchmarks"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build-bench -j"$(nproc)" >/dev/null

for exe in build-bench/bench_*; do
    name=${exe#build-bench/bench_}
    log "bench: $name"
    "$exe" | tee "bench/out/$name.txt"
done

if ls bench/*/*.sh >/dev/null 2>&1; then
    build_and_install
    for script in bench/*/*.sh; do
        name=$(basename "$script" .sh)
        log "bench: $name"
        bash "$script" | tee "bench/out/$name.txt"
    done
fi
