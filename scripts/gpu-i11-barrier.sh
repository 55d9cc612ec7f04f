#!/usr/bin/env bash
# The GPU loop for issue 11's barriers (replica and relay barriers, the barrier lab, the
# shape table), step 1 here: builds the CLI and the GPU test executables that cover them
# (release, stripped) into a git-ignored folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11-barrier"]   command: bash .gpu-i11-barrier/run.sh [steps...]
# Steps (default all, in this order; each under its own `timeout`): primitives lab combining
# sync persistent sanitizer. Results: $OUT/results.tar.gz (what goes under
# bench/results/<gpu>/i11-primitives/<run>/) and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-barrier; must be git-ignored where the device
# tool takes the tree from), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-barrier}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_combining --test gpu_sync --test gpu_persistent
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-primitives combining sync persistent sanitizer}"
for s in $steps; do
  case $s in
    primitives) step bench-primitives 150 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores --no-mutexes
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | head -40 >>"$sum" ;;
    lab) step bench-lab 170 "$here/occupant" bench primitives --backend cuda --out "$res/lab" --no-semaphores --no-mutexes --barrier-lab
      grep -v "^  .*ns  (" "$res/bench-lab.log" | head -40 >>"$sum" ;;
    combining) step test-gpu_combining 60 "$here/test-occupant-gpu_combining" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked" "$res/test-gpu_combining.log" | head -40 >>"$sum" ;;
    sync) step test-gpu_sync 90 "$here/test-occupant-gpu_sync" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_sync.log" >>"$sum" ;;
    persistent) step test-gpu_persistent 90 "$here/test-occupant-gpu_persistent" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_persistent.log" >>"$sum" ;;
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
