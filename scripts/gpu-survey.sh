#!/usr/bin/env bash
# One device call that surveys a GPU for every open area at once — meant for a device that has
# no results yet (e.g. the H200), step 1 here: builds the CLI, the GPU tests that check the
# primitives and the apps, and the cooperative experiments, stripped, into a git-ignored folder
# with a runner. Step 2, one device `run`:
#   carry: [".gpu-survey"]   command: bash .gpu-survey/run.sh [steps...]   timeout_s: 600
# Steps (default all, in this order; each under its own `timeout`, about 6 minutes in all):
#   primitives  barriers, mutexes, semaphores; writes the device's shape
#               table (shape-table.json: copy it to crates/occupant/src/cuda/sync/shapes/<gpu>.json)
#   tests       gpu_sync, gpu_combining, gpu_combining_mutex, gpu_persistent, gpu_apps, gpu_coop_bfs
#   apps        `occupant bench apps --quick` (every variant, verified)
#   coop        the cooperative experiments, quick (overhead, gather, light/medium/heavy co-runs)
#   forkjoin    `occupant bench forkjoin --backend cuda` (ours; the LLVM comparator needs
#               scripts/gpu-forkjoin.sh) and `occupant bench nested`
#   prsweep     pagerank on rmat-22 and ba-4M, multi-kernel vs persistent (the power-law inputs
#               whose skewed tiles the device loops' cost-balanced ranges are for)
# Results: $OUT/results.tar.gz (what goes under bench/results/<gpu>/survey-<commit>/) and
# $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-survey), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-survey}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_sync --test gpu_combining --test gpu_combining_mutex \
  --test gpu_persistent -- occupant-apps --test gpu_apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
strip --strip-debug "$dest/coop_cuda_experiments"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
export CUDA_MODULE_LOADING=EAGER
steps="${*:-primitives tests apps coop forkjoin prsweep}"
for s in $steps; do
  case $s in
    primitives) step bench-primitives 150 "$here/occupant" bench primitives --backend cuda --out "$res/primitives"
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | tail -45 >>"$sum" ;;
    tests)
      for t in occupant-gpu_sync occupant-gpu_combining occupant-gpu_combining_mutex occupant-gpu_persistent occupant-apps-gpu_apps occupant-apps-gpu_coop_bfs; do
        step "test-$t" 100 "$here/test-$t" --test-threads=1 --nocapture
        grep -E "test result|panicked|FAILED" "$res/test-$t.log" >>"$sum"
      done ;;
    apps) step bench-apps-quick 120 "$here/occupant" bench apps --quick --runs 3 --out "$res/apps"
      grep -E "geomean|failures|skipped|wrote" "$res/bench-apps-quick.log" >>"$sum" ;;
    coop) step coop-quick 120 "$here/coop_cuda_experiments" "$res/coop" quick
      grep -vE "^\{" "$res/coop-quick.log" | tail -30 >>"$sum" ;;
    forkjoin) step bench-forkjoin 60 "$here/occupant" bench forkjoin --backend cuda --out "$res/forkjoin"
      tail -15 "$res/bench-forkjoin.log" >>"$sum"
      step bench-nested 90 "$here/occupant" bench nested --out "$res/forkjoin"
      tail -15 "$res/bench-nested.log" >>"$sum" ;;
    prsweep)
      step bench-pr 120 "$here/occupant" bench apps --interleave --runs 3 --apps pagerank \
        --input rmat:scale=22,ef=16,seed=1@low-diameter --input ba:n=4000000,m=4,seed=1@low-diameter \
        --variants multi-kernel,persistent --out "$res/pr"
      grep -E "persistent:|multi-kernel:|FAILED|skipped" "$res/bench-pr.log" >>"$sum" ;;
    *) echo "unknown step $s" | tee -a "$sum"; status=1 ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
exit $status
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
