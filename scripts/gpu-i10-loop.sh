#!/usr/bin/env bash
# The GPU loop for the per-phase cost of the persistent and cooperative loops (issues 10 and
# 12: the lean occ::PersistentKernel, the shape-aware barrier, the one-hop common case of the
# resizing barrier), step 1 here: builds the CLI, the coop experiments binary and the GPU tests
# that cover them (release, stripped) into a git-ignored folder with a runner. Step 2, one
# device `run`:
#   carry: [".gpu-loop"]   command: bash .gpu-loop/run.sh [steps...]   (about 4 minutes; at
#   most 5.5 if every step ran into its limit)
# Steps (default all, in this order; each under its own `timeout`):
#   tests       gpu_persistent (every barrier kind in occ::PersistentKernel), gpu_apps (every
#               app x CUDA variant verified), gpu_coop and gpu_coop_bfs (>= 1000 kill/fork
#               cycles, 0 wrong)
#   primitives  `bench primitives` barriers only (5000 per point) with the shape table written
#               to shape-table.json (lean was never measured as committed)
#   apps        `bench apps --interleave --runs 5` bfs/sssp/cc/pagerank x 4 inputs x multi-kernel,
#               cooperative, occupancy-api, persistent, with --barrier lean
#   relay       the same on the high-diameter inputs for bfs and sssp with --barrier relay
#   coop        coop_cuda_experiments overhead: persistent / regular / query grid BFS and SSSP,
#               6 interleaved repetitions
# Results: $OUT/results.tar.gz and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-loop), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-loop}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_persistent --test gpu_coop -- occupant-apps --test gpu_apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
strip --strip-debug "$dest/coop_cuda_experiments"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
export CUDA_MODULE_LOADING=EAGER
steps="${*:-tests primitives apps relay coop}"
for s in $steps; do
  case $s in
    tests)
      step test-gpu_persistent 20 "$here/test-occupant-gpu_persistent" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test |shape-aware" "$res/test-gpu_persistent.log" >>"$sum"
      step test-gpu_apps 40 "$here/test-occupant-apps-gpu_apps" --test-threads=1 --nocapture
      grep -E "test result|panicked|FAILED" "$res/test-gpu_apps.log" >>"$sum"
      step test-gpu_coop 20 "$here/test-occupant-gpu_coop" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop.log" >>"$sum"
      step test-gpu_coop_bfs 20 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop_bfs.log" >>"$sum" ;;
    primitives)
      step bench-primitives 35 "$here/occupant" bench primitives --backend cuda --out "$res/primitives" \
        --no-semaphores --no-mutexes --rounds 5000 --shape-table "$res/shape-table.json"
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | tail -25 >>"$sum" ;;
    apps)
      step bench-apps 140 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc,pagerank \
        --variants cooperative,occupancy-api,persistent --barrier lean --out "$res/apps-lean"
      grep -E "geomean|FAILED|skipped|compiled" "$res/bench-apps.log" >>"$sum" ;;
    relay)
      step bench-relay 35 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp \
        --input grid:w=2048,h=2048,seed=1 --input stencil:w=1000,h=1000 \
        --variants cooperative,occupancy-api,persistent --barrier relay --out "$res/apps-relay"
      grep -E "geomean|FAILED|skipped|compiled" "$res/bench-relay.log" >>"$sum" ;;
    coop)
      step coop-overhead 60 "$here/coop_cuda_experiments" "$res/coop" overhead 6 grid:1000x1000
      grep -E "slowdown|over_persistent|error|failed" "$res/coop-overhead.log" | cut -c1-600 >>"$sum" ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
