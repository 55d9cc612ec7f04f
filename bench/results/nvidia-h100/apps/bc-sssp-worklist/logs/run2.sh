#!/usr/bin/env bash
# i10-bc GPU run 2: the bc / sssp-worklist GPU test with the R-MAT hub input, and bc on the
# 32x32768 grid with the atomic barrier (persistent, occupancy-api; cooperative for reference).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="/tmp/i10bc-res2"
mkdir -p "$res" "$out"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
sum="$out/summary.txt"
step() { local name=$1 limit=$2; shift 2
  echo "== $name ($(date +%T), limit $limit s)" | tee -a "$sum"
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?, $(( $(date +%s) - t0 )) s" | tee -a "$sum"
  tar czf "$out/results.tar.gz" -C "$res" .
}
step gpu_apps2 90 "$here/test-gpu_apps" --test-threads=1 --nocapture bc_and_sssp_worklist_match_the_reference
grep -E "^test |test result|panicked|seed=2" "$res/gpu_apps2.log" | tail -16 >>"$sum"
step bench-thin-atomic 80 "$here/occupant" bench apps --backend cuda --apps bc --runs 3 \
  --min-blocks-per-sm 8 --barrier atomic --variants cooperative,occupancy-api,persistent \
  --input "grid:w=32,h=32768,seed=1" --out "$res/bench-thin-atomic"
grep -vE "^generating" "$res/bench-thin-atomic.log" | tail -14 >>"$sum"
