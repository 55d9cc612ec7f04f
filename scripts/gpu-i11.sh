#!/usr/bin/env bash
# The GPU loop for issue 11's primitives (combining barriers, cohort mutex, shape tables,
# watchdog launch cost), step 1 here: builds the CLI and the GPU test executables that cover
# them (release, stripped) into a git-ignored folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11"]   command: bash .gpu-i11/run.sh [steps...]   timeout_s: <= 420
# Steps (default all, in this order; each under its own `timeout`): primitives launch combining
# watchdog gpu sync sanitizer. Results: $OUT/results.tar.gz (what goes under
# bench/results/<gpu>/i11-primitives/) and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11; must be git-ignored where the device tool
# takes the tree from), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_combining --test gpu_watchdog_flag --test gpu_sync --test gpu
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-primitives launch combining watchdog gpu sync sanitizer}"
for s in $steps; do
  case $s in
    primitives) step bench-primitives 110 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | head -60 >>"$sum" ;;
    launch) step bench-launch 40 "$here/occupant" bench launch --backend cuda --iters 1000 --json "$res/bench-launch.json"
      grep -E "watchdog cost|error" "$res/bench-launch.log" >>"$sum" ;;
    combining) step test-gpu_combining 70 "$here/test-occupant-gpu_combining" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|ns/barrier|Mops" "$res/test-gpu_combining.log" | grep -vE "x(128|256|1024) launched" | head -40 >>"$sum" ;;
    watchdog) step test-gpu_watchdog_flag 30 "$here/test-occupant-gpu_watchdog_flag" --test-threads=1 --nocapture
      grep -E "test result|panicked" "$res/test-gpu_watchdog_flag.log" >>"$sum" ;;
    gpu) step test-gpu 60 "$here/test-occupant-gpu" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu.log" >>"$sum" ;;
    sync) step test-gpu_sync 90 "$here/test-occupant-gpu_sync" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_sync.log" >>"$sum" ;;
    sanitizer) sanitize_smoke 40 "$here/test-occupant-gpu_combining" combining_sanitizer_smoke ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
