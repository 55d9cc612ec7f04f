#!/usr/bin/env bash
# The GPU loop for the per-phase cost of the persistent and cooperative loops (issues 10 and
# 12: the lean occ::PersistentKernel, the shape-aware barrier, the one-hop common case of the
# resizing barrier, pagerank's tile hand-out), step 1 here: builds the CLI, the coop
# experiments binary and the GPU tests that cover them (release, stripped) into a git-ignored
# folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-loop"]   command: bash .gpu-loop/run.sh [steps...]   (about 5 minutes; at
#   most 7 if every step ran into its limit)
# Steps (default: tests cooptests primitives apps prsweep hier coop; each under its own `timeout`):
#   tests       gpu_persistent (every barrier kind in occ::PersistentKernel, the shape-aware
#               pick) and gpu_apps (every app x CUDA variant verified)
#   cooptests   gpu_coop and gpu_coop_bfs (>= 1000 kill/fork cycles, 0 wrong)
#   primitives  `bench primitives` barriers only (5000 per point), shape-table.json
#   apps        `bench apps --interleave --runs 5` bfs/sssp/cc/pagerank x 4 inputs x
#               multi-kernel, cooperative, occupancy-api, persistent, the default barrier
#   otherapps   colour, MIS, sssp-worklist, bc on the four inputs (+ bc on a 32x32768 grid unless
#               OTHER_BCTHIN=0), OTHER_VARIANTS (default cooperative / occupancy-api / persistent)
#               and the multi-kernel baseline; OTHER_N timed runs each (default 3)
#   prsweep     pagerank on rmat-22 and ba-4M, every CUDA device-loop variant vs multi-kernel
#               (the device loops' tile ranges of equal cost); with OLD_OCCUPANT, the same
#               with that CLI, once per define of PR_OLD_DEFINES (space-separated
#               OCCUPANT_APP_DEFINES values, e.g. -DOCC_APP_PR_STATIC=50; default: none)
#   kinds       bfs, sssp, cc on the high-diameter inputs, cooperative / occupancy-api /
#               persistent with each barrier kind of KINDS (default: lean relay atomic)
#   pause       the same, cooperative / persistent, with throttled polls: each kind of
#               KINDS_PAUSE (default lean) with -DOCC_POLL_PAUSE_SHIFT=s for s in PAUSE_SHIFTS
#               (default -1 1: off, and the apps' default APP_POLL_PAUSE_SHIFT)
#   hier        bfs/sssp/cc on the high-diameter inputs, persistent vs cooperative, with the
#               hierarchical barrier (the old default)
#   relay       bfs/sssp on the high-diameter inputs with --barrier relay
#   trace       where the iterations go (-DOCC_APP_TRACE: per-block barrier enter/leave times,
#               occupant_apps::apps::cuda::BarrierTrace): stencil bfs/cc cooperative /
#               occupancy-api / persistent, ba-4M pagerank multi-kernel / cooperative / persistent
#   defs        stencil bfs/cc cooperative / persistent (traced unless DEFS_TRACE=0) once per
#               entry of DEFS (';'-separated OCCUPANT_APP_DEFINES values; an empty one: none)
#   split       bfs/sssp/cc on rmat-22 and ba-4M with each tile split of SPLIT_DEFS (grid-stride,
#               -DOCC_APP_STATIC_TILES, -DOCC_APP_TILES_FIRST, -DOCC_APP_CLAIM_TILES=k, ...)
#   tilecost    pagerank multi-kernel / persistent with OCCUPANT_APP_TILE_COST=c for each c:input
#               of TILE_RUNS (input ba = ba-4M, rmat = rmat-22; default 16:ba 48:ba 128:ba)
#   coopall     every cooperative graph app alone: persistent / regular / query resizing barrier
#               (`occupant multitask --backend cuda --overhead`), COOPALL_RUNS, COOPALL_REPEATS
#   coop        coop_cuda_experiments overhead: persistent / regular / query grid BFS and SSSP,
#               4 interleaved repetitions of two launches each
# Results: $OUT/results.tar.gz and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-loop), CARGO_TARGET_DIR, OLD_OCCUPANT (prsweep).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-loop}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_persistent --test gpu_coop -- occupant-apps --test gpu_apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
# OLD_OCCUPANT: an earlier CLI to compare with in the prsweep step (as occupant-old).
if [[ -n "${OLD_OCCUPANT:-}" ]]; then
  cp "$OLD_OCCUPANT" "$dest/occupant-old"
  strip --strip-debug "$dest/occupant-old"
fi
strip --strip-debug "$dest/coop_cuda_experiments"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
export CUDA_MODULE_LOADING=EAGER
steps="${*:-tests cooptests primitives apps prsweep hier coop}"
hd="--input grid:w=2048,h=2048,seed=1 --input stencil:w=1000,h=1000"
ld="--input rmat:scale=22,ef=16,seed=1 --input ba:n=4000000,m=4,seed=1"
for s in $steps; do
  case $s in
    tests)
      step test-gpu_persistent 20 "$here/test-occupant-gpu_persistent" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test |shape-aware" "$res/test-gpu_persistent.log" >>"$sum"
      step test-gpu_apps 45 "$here/test-occupant-apps-gpu_apps" --test-threads=1 --nocapture
      grep -E "test result|panicked|FAILED" "$res/test-gpu_apps.log" >>"$sum" ;;
    cooptests)
      step test-gpu_coop 20 "$here/test-occupant-gpu_coop" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop.log" >>"$sum"
      step test-gpu_coop_bfs 20 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop_bfs.log" >>"$sum" ;;
    primitives)
      step bench-primitives 35 "$here/occupant" bench primitives --backend cuda --out "$res/primitives" \
        --no-semaphores --no-mutexes --rounds 5000 --shape-table "$res/shape-table.json"
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | tail -25 >>"$sum" ;;
    apps)
      step bench-apps 240 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc,pagerank \
        --variants cooperative,occupancy-api,persistent --out "$res/apps"
      grep -E "geomean|FAILED|skipped|compiled" "$res/bench-apps.log" >>"$sum" ;;
    otherapps)
      # The other apps (colour, MIS, bc, the worklist sssp) on the four inputs, and bc on a thin
      # grid (the standard high-diameter inputs overflow bc's path counts by design).
      # OTHER_RUNS: space-separated APPS@INPUT (input: grid, stencil, rmat, ba; default: every
      # app on every input — rmat-22 colour alone takes ~50 s, 2845 iterations).
      for run in ${OTHER_RUNS:-color,mis,sssp-worklist,bc@grid color,mis,sssp-worklist,bc@stencil color,mis,sssp-worklist,bc@rmat color,mis,sssp-worklist,bc@ba}; do
        case ${run#*@} in
          grid) inp=grid:w=2048,h=2048,seed=1 ;;
          stencil) inp=stencil:w=1000,h=1000 ;;
          rmat) inp=rmat:scale=22,ef=16,seed=1 ;;
          ba) inp=ba:n=4000000,m=4,seed=1 ;;
          *) echo "otherapps: unknown input in $run" >>"$sum"; continue ;;
        esac
        step "bench-other-${run#*@}" 200 "$here/occupant" bench apps --interleave --runs "${OTHER_N:-3}" --apps "${run%@*}" \
          --input "$inp" --variants "${OTHER_VARIANTS:-cooperative,occupancy-api,persistent}" --out "$res/other-${run#*@}"
        grep -E "FAILED|skipped|cooperative:|persistent:|occupancy-api:|multi-kernel:|Faster|Tie|Slower" "$res/bench-other-${run#*@}.log" >>"$sum"
      done
      [[ ${OTHER_BCTHIN:-1} == 1 ]] || continue
      step bench-bcthin 90 "$here/occupant" bench apps --interleave --runs 3 --apps bc \
        --input grid:w=32,h=32768,seed=1 --variants cooperative,occupancy-api,persistent --out "$res/bcthin"
      grep -E "geomean|FAILED|skipped|cooperative:|persistent:|occupancy-api:|multi-kernel:" "$res/bench-bcthin.log" >>"$sum" ;;
    prsweep)
      # rmat-22's sequential reference alone takes tens of seconds: a generous limit.
      step bench-pr 150 "$here/occupant" bench apps --interleave --runs 5 --apps pagerank $ld \
        --variants multi-kernel,cooperative,occupancy-api,persistent --out "$res/pr"
      grep -E "geomean|pagerank|FAILED|skipped" "$res/bench-pr.log" >>"$sum"
      # The bundle's earlier CLI (OLD_OCCUPANT when it was made), with what its pagerank took.
      if [[ -x "$here/occupant-old" ]]; then
        for def in ${PR_OLD_DEFINES:-none}; do
          [[ $def == none ]] || export OCCUPANT_APP_DEFINES="$def"
          step "bench-pr-old-${def##*=}" 60 "$here/occupant-old" bench apps --interleave --runs 5 \
            --apps pagerank $ld --variants multi-kernel,persistent --out "$res/pr-old-${def##*=}"
          unset OCCUPANT_APP_DEFINES
          grep -E "persistent:|multi-kernel:|FAILED|skipped" "$res/bench-pr-old-${def##*=}.log" >>"$sum"
        done
      fi ;;
    kinds)
      # Barrier kinds (KINDS, default lean relay atomic) in the persistent and occupancy-api
      # loops of the high-diameter inputs, beside grid.sync (cooperative): which kind the apps'
      # loops, whose phases end with skewed arrivals, want.
      for k in ${KINDS:-lean relay atomic}; do
        step "bench-kind-$k" 90 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc \
          $hd --variants cooperative,occupancy-api,persistent --barrier $k --out "$res/apps-kind-$k"
        grep -E "persistent:|cooperative:|occupancy-api:|FAILED|skipped" "$res/bench-kind-$k.log" >>"$sum"
      done ;;
    pause)
      # Throttled polls (OCC_POLL_PAUSE_SHIFT, replica_barrier.cuh) in the apps' loops: lean
      # (and KINDS_PAUSE) with each shift of PAUSE_SHIFTS, beside grid.sync.
      for k in ${KINDS_PAUSE:-lean}; do
        for sh in ${PAUSE_SHIFTS:--1 1}; do
          export OCCUPANT_APP_DEFINES="-DOCC_POLL_PAUSE_SHIFT=$sh"
          step "bench-pause-$k-$sh" 90 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc \
            $hd --variants cooperative,persistent --barrier $k --out "$res/apps-pause-$k-$sh"
          unset OCCUPANT_APP_DEFINES
          grep -E "persistent:|cooperative:|FAILED|skipped" "$res/bench-pause-$k-$sh.log" >>"$sum"
        done
      done ;;
    hier)
      step bench-hier 35 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc $hd \
        --variants cooperative,persistent --barrier hierarchical --out "$res/apps-hier"
      grep -E "persistent:|cooperative:|FAILED|skipped|compiled" "$res/bench-hier.log" >>"$sum" ;;
    relay)
      step bench-relay 35 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp $hd \
        --variants cooperative,occupancy-api,persistent --barrier relay --out "$res/apps-relay"
      grep -E "geomean|FAILED|skipped|compiled" "$res/bench-relay.log" >>"$sum" ;;
    trace)
      export OCCUPANT_APP_DEFINES="-DOCC_APP_TRACE"
      step bench-trace-stencil 60 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,cc \
        --input stencil:w=1000,h=1000 --variants cooperative,occupancy-api,persistent --out "$res/trace-stencil"
      grep -E "persistent:|cooperative:|occupancy-api:|trace|FAILED|skipped" "$res/bench-trace-stencil.log" >>"$sum"
      export OCCUPANT_APP_DEFINES="-DOCC_APP_TRACE -DOCC_APP_TRACE_FROM=1"
      step bench-trace-ba 90 "$here/occupant" bench apps --interleave --runs 5 --apps pagerank \
        --input ba:n=4000000,m=4,seed=1 --variants multi-kernel,cooperative,persistent --out "$res/trace-ba"
      unset OCCUPANT_APP_DEFINES
      grep -E "persistent:|cooperative:|multi-kernel:|trace|FAILED|skipped" "$res/bench-trace-ba.log" >>"$sum" ;;
    defs)
      IFS=';' read -r -a defs <<<"${DEFS:-}"
      i=0
      for d in "${defs[@]}"; do
        i=$((i + 1))
        echo "defs-$i: $d" >>"$sum"
        if [[ ${DEFS_TRACE:-1} == 1 ]]; then d="-DOCC_APP_TRACE $d"; fi
        export OCCUPANT_APP_DEFINES="$d"
        step "bench-defs-$i" 60 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,cc \
          --input stencil:w=1000,h=1000 --variants cooperative,persistent --out "$res/defs-$i"
        unset OCCUPANT_APP_DEFINES
        grep -E "persistent:|cooperative:|trace|FAILED|skipped" "$res/bench-defs-$i.log" >>"$sum"
      done ;;
    split)
      # The device loops' tile split for bfs/sssp/cc (graph_apps.cu next_tile): each entry of
      # SPLIT_DEFS (";"-separated OCCUPANT_APP_DEFINES values; default: the default split,
      # static tiles, the old order (tiles first, static), chunks of 4) on the low-diameter inputs,
      # beside multi-kernel.
      IFS=";" read -r -a splits <<<"${SPLIT_DEFS:-;-DOCC_APP_STATIC_TILES;-DOCC_APP_TILES_FIRST -DOCC_APP_STATIC_TILES;-DOCC_APP_CLAIM_TILES=4}"
      i=0
      for d in "${splits[@]}"; do
        i=$((i + 1))
        echo "split-$i: ${d:-default}" >>"$sum"
        export OCCUPANT_APP_DEFINES="$d"
        step "bench-split-$i" 150 "$here/occupant" bench apps --interleave --runs 5 --apps bfs,sssp,cc \
          $ld --variants cooperative,persistent --out "$res/split-$i"
        unset OCCUPANT_APP_DEFINES
        grep -E "persistent:|cooperative:|multi-kernel:|FAILED|skipped" "$res/bench-split-$i.log" >>"$sum"
      done ;;
    tilecost)
      for run in ${TILE_RUNS:-16:ba 48:ba 128:ba}; do
        c=${run%%:*}
        case ${run#*:} in
          ba) inp=ba:n=4000000,m=4,seed=1 ;;
          rmat) inp=rmat:scale=22,ef=16,seed=1 ;;
          *) echo "tilecost: unknown input in $run" >>"$sum"; continue ;;
        esac
        export OCCUPANT_APP_TILE_COST=$c
        step "bench-tilecost-${run/:/-}" 90 "$here/occupant" bench apps --interleave --runs 5 --apps pagerank \
          --input "$inp" --variants multi-kernel,persistent --out "$res/tilecost-${run/:/-}"
        unset OCCUPANT_APP_TILE_COST
        grep -E "persistent:|multi-kernel:|FAILED|skipped" "$res/bench-tilecost-${run/:/-}.log" >>"$sum"
      done ;;
    coopall)
      # Issue 12's overhead figure for every cooperative graph app: `occupant multitask
      # --backend cuda --overhead` (persistent / regular / query alone, paired, verified) per
      # APP@INPUT:ROUNDS of COOPALL_RUNS (inputs: grid = grid 1000x1000, rmat = R-MAT 20,
      # bcgrid = grid 200x200: bc's path counts overflow on larger grids).
      for run in ${COOPALL_RUNS:-bfs@grid:8 sssp@grid:4 sssp-worklist@grid:4 cc@grid:2 pagerank@grid:8 color@grid:64 mis@grid:64 bc@bcgrid:8 bfs@rmat:64 sssp@rmat:16 sssp-worklist@rmat:16 cc@rmat:32 pagerank@rmat:2 color@rmat:1 mis@rmat:16 bc@rmat:4}; do
        app=${run%%@*}; rest=${run#*@}; inp=${rest%%:*}; rounds=${rest##*:}
        case $inp in
          grid) spec=grid:w=1000,h=1000,seed=1 ;;
          rmat) spec=rmat:scale=20,ef=16,seed=1 ;;
          bcgrid) spec=grid:w=200,h=200,seed=1 ;;
          *) echo "coopall: unknown input in $run" >>"$sum"; continue ;;
        esac
        step "coopall-$app-$inp" 90 "$here/occupant" multitask --backend cuda --overhead --app "$app" \
          --gen "$spec" --rounds "$rounds" --repeats "${COOPALL_REPEATS:-3}" --json "$res/coopall-$app-$inp.json"
        grep -E "groups\): persistent|error" "$res/coopall-$app-$inp.log" | sed "s/^/$inp: /" >>"$sum"
      done ;;
    coop)
      step coop-overhead 65 "$here/coop_cuda_experiments" "$res/coop" overhead 4 grid:1000x1000
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
