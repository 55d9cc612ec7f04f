#!/usr/bin/env bash
# The GPU loop for the persistent barrier's placement (issues 10 and 11: where the barrier's
# line lives, PersistentProgram's placement probe), step 1 here: builds the CLI and the GPU
# tests into a git-ignored bundle with a runner. Step 2, one device `run`:
#   carry: [".gpu-place"]   command: OUT=/tmp/p bash .gpu-place/run.sh [steps...]; cp ...
# Steps (default: tests barriers apps-place; each under its own `timeout`):
#   tests       gpu_persistent (the probe, every place right, one-place programs)
#   barriers    `bench placement`: the six shapes, the kind persistent programs pick, beside
#               the raw kind (plain and throttled) and grid.sync, 64 and 2000 rounds (+ lean
#               and lean_pause at 132x1024, 264x1024 and 1056x256)
#   apps-place  `bench placement` app studies: stencil cc/bfs (PLACE_RUNS runs per place), in
#               PLACE_LOADS separate processes (module loads)
#   rmat-place  the same for rmat-22 bfs
#   apps        `bench apps --interleave --runs 5` bfs/sssp/cc/pagerank x 4 inputs x
#               multi-kernel, cooperative, occupancy-api, persistent (the probe's choice)
#   appstests   gpu_apps (every app x CUDA variant verified)
# Results: $OUT/results.tar.gz and $OUT/summary.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-place}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_persistent -- occupant-apps --test gpu_apps
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
export CUDA_MODULE_LOADING=EAGER
steps="${*:-tests barriers apps-place}"
hd="--input grid:w=2048,h=2048,seed=1 --input stencil:w=1000,h=1000"
ld="--input rmat:scale=22,ef=16,seed=1 --input ba:n=4000000,m=4,seed=1"
for s in $steps; do
  case $s in
    tests)
      step test-gpu_persistent 30 "$here/test-occupant-gpu_persistent" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test |shape-aware|first .* ns" "$res/test-gpu_persistent.log" >>"$sum" ;;
    appstests)
      step test-gpu_apps 60 "$here/test-occupant-apps-gpu_apps" --test-threads=1 --nocapture
      grep -E "test result|panicked|FAILED" "$res/test-gpu_apps.log" >>"$sum" ;;
    barriers)
      step bench-placement 60 "$here/occupant" bench placement --out "$res/placement"
      grep -E "blocks took part|FAILED|rror" "$res/bench-placement.log" >>"$sum"
      step bench-placement-2000 120 "$here/occupant" bench placement --rounds 2000 --out "$res/placement-2000"
      grep -E "blocks took part|FAILED|rror" "$res/bench-placement-2000.log" >>"$sum"
      for k in lean lean_pause; do
        step "bench-placement-$k" 40 "$here/occupant" bench placement --kind $k --shape 132x1024 \
          --shape 264x1024 --shape 1056x256 --out "$res/placement-$k"
        grep -E "blocks took part|rror" "$res/bench-placement-$k.log" >>"$sum"
      done ;;
    apps-place)
      for i in $(seq 1 "${PLACE_LOADS:-2}"); do
        step "place-stencil-$i" 90 "$here/occupant" bench placement --apps cc,bfs \
          --input stencil:w=1000,h=1000 --runs "${PLACE_RUNS:-3}" --out "$res/place-stencil-$i"
        grep -E "<- chosen|grid.sync|correlation|rror" "$res/place-stencil-$i.log" >>"$sum"
      done ;;
    rmat-place)
      step place-rmat 150 "$here/occupant" bench placement --apps bfs \
        --input rmat:scale=22,ef=16,seed=1 --runs "${PLACE_RUNS:-3}" --out "$res/place-rmat"
      grep -E "<- chosen|grid.sync|correlation|rror" "$res/place-rmat.log" >>"$sum" ;;
    apps)
      step bench-apps 300 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc,pagerank \
        --variants cooperative,occupancy-api,persistent --out "$res/apps"
      grep -E "geomean|FAILED|skipped|compiled|cooperative:|persistent:|multi-kernel:|occupancy-api:" "$res/bench-apps.log" >>"$sum" ;;
    *) echo "unknown step $s" >>"$sum" ;;
  esac
done
exit $status
RUN
chmod +x "$dest/run.sh"
echo "bundle in $dest ($(du -sh "$dest" | cut -f1))"
