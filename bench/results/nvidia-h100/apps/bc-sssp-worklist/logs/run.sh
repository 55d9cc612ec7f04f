#!/usr/bin/env bash
# i10-bc GPU run: the GPU test of bc and sssp-worklist, compute-sanitizer (memcheck; racecheck
# on small inputs) on their kernels, and `occupant bench apps` for bc and sssp-worklist with
# --min-blocks-per-sm 8 on the four standard inputs (+ a 32x32768 grid).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="/tmp/i10bc-res"
mkdir -p "$res" "$out"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
sum="$out/summary.txt"
start=$(date +%s)
# step NAME LIMIT CMD...: runs CMD with at most LIMIT s and never past ${BUDGET:-400} s in all.
step() { local name=$1 limit=$2; shift 2
  local left=$(( ${BUDGET:-400} - ($(date +%s) - start) ))
  [ "$left" -lt "$limit" ] && limit=$left
  echo "== $name ($(date +%T), limit $limit s)" | tee -a "$sum"
  if [ "$limit" -le 5 ]; then echo "skipped: no time left" | tee -a "$sum"; return; fi
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?, $(( $(date +%s) - t0 )) s" | tee -a "$sum"
  tar czf "$out/results.tar.gz" -C "$res" .
}
step gpu_apps 150 "$here/test-gpu_apps" --test-threads=1 --nocapture \
  bc_and_sssp_worklist_match_the_reference edge_cases_of_every_app
grep -E "^test |test result|panicked|bc |sssp-worklist " "$res/gpu_apps.log" | grep -vE "grid:64x64|er:n" | tail -45 >>"$sum"
O="$here/occupant"
step bench 240 "$O" bench apps --backend cuda --apps bc,sssp-worklist --runs ${RUNS:-10} \
  --min-blocks-per-sm 8 --out "$res/bench"
grep -vE "^\[|^generating" "$res/bench.log" | tail -30 >>"$sum"
step bench-thin 90 "$O" bench apps --backend cuda --apps bc,sssp-worklist --runs ${THIN_RUNS:-5} \
  --min-blocks-per-sm 8 --input "grid:w=32,h=32768,seed=1" --out "$res/bench-thin"
grep -vE "^generating" "$res/bench-thin.log" | tail -16 >>"$sum"
for tool in memcheck racecheck; do
  if [ $tool = memcheck ]; then specs="grid:40x40 rmat:scale=12,ef=16"; else specs="rmat:scale=9,ef=16"; fi
  for app in bc sssp-worklist; do
    for spec in $specs; do
      n="san-$tool-$app-${spec%%:*}"
      step "$n" 45 compute-sanitizer --tool $tool "$O" run $app --gen "$spec" --backend cuda --variant all --verify
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|rror|verified|iterations" "$res/$n.log" | head -8 >>"$sum"
    done
  done
done
tar czf "$out/results.tar.gz" -C "$res" .
