#!/usr/bin/env bash
# i10-bc GPU run 3 (merged main with i10-loop's graph-while variant): the bc / sssp-worklist GPU
# test and the edge cases in every variant (graph-while included), and graph-while vs persistent
# for bc and sssp-worklist on the four inputs and the 32x32768 grid.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="/tmp/i10bc-res3"
mkdir -p "$res" "$out"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
sum="$out/summary.txt"
start=$(date +%s)
step() { local name=$1 limit=$2; shift 2
  local left=$(( ${BUDGET:-300} - ($(date +%s) - start) ))
  [ "$left" -lt "$limit" ] && limit=$left
  echo "== $name ($(date +%T), limit $limit s)" | tee -a "$sum"
  if [ "$limit" -le 5 ]; then echo "skipped: no time left" | tee -a "$sum"; return; fi
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?, $(( $(date +%s) - t0 )) s" | tee -a "$sum"
  tar czf "$out/results.tar.gz" -C "$res" .
}
step gpu_apps3 120 "$here/test-gpu_apps" --test-threads=1 --nocapture \
  bc_and_sssp_worklist_match_the_reference edge_cases_of_every_app
grep -E "^test |test result|panicked|graph-while" "$res/gpu_apps3.log" | tail -24 >>"$sum"
step bench-gw 120 "$here/occupant" bench apps --backend cuda --apps bc,sssp-worklist --runs 5 \
  --variants graph-while,persistent --out "$res/bench-graph-while"
grep -vE "^generating|FAILED|overflow" "$res/bench-gw.log" | tail -30 >>"$sum"
step bench-gw-thin 60 "$here/occupant" bench apps --backend cuda --apps bc,sssp-worklist --runs 3 \
  --variants graph-while,persistent --input "grid:w=32,h=32768,seed=1" --out "$res/bench-graph-while-thin"
grep -vE "^generating" "$res/bench-gw-thin.log" | tail -14 >>"$sum"
