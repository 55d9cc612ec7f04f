#!/usr/bin/env bash
# The GPU loop for issue 11's combining lock (occ::sync::CombiningMutex, MutexKind::Combining,
# beside every other mutex kind), step 1 here: builds the CLI and the GPU test executables that
# cover it (release, stripped) into a git-ignored folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11-combining"]   command: bash .gpu-i11-combining/run.sh [steps...]
#   timeout_s: <= 420
# Steps (default all, in this order; each under its own `timeout`): combining sync sanitizer
# primitives (environment ROUNDS, OPS: the bench's --rounds and --ops). Results, tarred again
# after every step so that a run cut off still returns them: $OUT/results.tar.gz (what goes
# under bench/results/<gpu>/i11-primitives/<run>/) and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-combining; must be git-ignored where the device tool
# takes the tree from), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-combining}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_combining_mutex --test gpu_sync
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-combining sync sanitizer primitives}"
for s in $steps; do
  case $s in
    combining) step test-gpu_combining_mutex 90 "$here/test-occupant-gpu_combining_mutex" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|Mops" "$res/test-gpu_combining_mutex.log" | head -30 >>"$sum" ;;
    sync) step test-gpu_sync 90 "$here/test-occupant-gpu_sync" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test |^combining" "$res/test-gpu_sync.log" >>"$sum" ;;
    sanitizer) sanitize_smoke 60 "$here/test-occupant-gpu_combining_mutex" combining_sanitizer_smoke ;;
    primitives) step bench-primitives 200 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores --rounds ${ROUNDS:-2000} --ops ${OPS:-200000}
      sed -n '/^mutex throughput/,/^wrote/p' "$res/bench-primitives.log" | head -60 >>"$sum" ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
