#!/usr/bin/env bash
# The GPU loop for issue 11's mutexes (the MCS and lazy cohort locks beside every other kind),
# step 1 here: builds the CLI and the GPU test executables that cover them (release, stripped)
# into a git-ignored folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11-mutex"]   command: bash .gpu-i11-mutex/run.sh [steps...]   timeout_s: <= 420
# Steps (default all, in this order; each under its own `timeout`): mcs sync combining sanitizer
# primitives (environment ROUNDS, OPS: the bench's --rounds and --ops). Results, tarred again
# after every step so that a run cut off still returns them: $OUT/results.tar.gz (what goes
# under bench/results/<gpu>/i11-primitives/<run>/) and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-mutex; must be git-ignored where the device tool
# takes the tree from), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-mutex}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_mcs_cohort --test gpu_sync --test gpu_combining
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-mcs sync combining sanitizer primitives}"
for s in $steps; do
  case $s in
    mcs) step test-gpu_mcs_cohort 60 "$here/test-occupant-gpu_mcs_cohort" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test |cluster [18]: (1|2112) blocks" "$res/test-gpu_mcs_cohort.log" | head -30 >>"$sum" ;;
    sync) step test-gpu_sync 90 "$here/test-occupant-gpu_sync" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_sync.log" >>"$sum" ;;
    combining) step test-gpu_combining 70 "$here/test-occupant-gpu_combining" --test-threads=1 --nocapture cohort_mutex_counts_every_acquisition shape_aware_defaults_build_working_objects
      grep -E "^test |test result|panicked|Mops" "$res/test-gpu_combining.log" | head -30 >>"$sum" ;;
    sanitizer) sanitize_smoke 60 "$here/test-occupant-gpu_mcs_cohort" mcs_cohort_sanitizer_smoke ;;
    primitives) step bench-primitives 150 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores --rounds ${ROUNDS:-2000} --ops ${OPS:-200000}
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
