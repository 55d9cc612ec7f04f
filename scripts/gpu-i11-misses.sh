#!/usr/bin/env bash
# The GPU loop of issue 11's misses (helper i11-misses): the small-grid combining lock (lab duo
# variants) beside the mutex kinds at 1-8 blocks, the barrier kinds with and without the polls'
# throttle (-DOCC_POLL_PAUSE_SHIFT=1) beside grid.sync() in every shape, arrivals together and
# skewed, and racecheck + synccheck on a small smoke test. Runs on any GPU: the summary's first
# line and results/GPU name the device (the results then go under
# bench/results/<nvidia-h100|nvidia-h200>/i11-primitives/<run>/).
# Step 1 here builds the test executable (release, stripped) into a git-ignored folder with a
# runner. Step 2, one device `run`: bash .gpu-i11-misses/run.sh [steps...]
# Steps (default: mutex barrier primitives skewed sanitizer; limits 60 + 170 + 150 + 100 + 2 x 15 s):
# (occupant bench primitives, every kind beside grid.sync, and the shape table measured: the
# built-in table of this GPU) and `skewed` (the same, barriers only, skewed arrivals of up to
# SKEW_NS = 3000 ns: the barrier_skewed entries of the table). Not by default: `lean` (Lean's
# arrival made as grid.sync makes it, the barrier lab's lab_lean_arr_*, at 132x1024 & co).
# Results: $OUT/results.tar.gz and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-misses), CARGO_TARGET_DIR; on the device
# I11_SKEWS (default 0,3000: the barrier's skews in ns).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-misses}"
cd "$root"
source "$root/scripts/gpu-bundle.sh"
gpu_bundle "$dest" occupant --test gpu_i11_misses
git -C "$root" status --short >"$dest/STATUS"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
cp "$here/STATUS" "$res/STATUS"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "${gpu:-no GPU}" >"$res/GPU"
echo "GPU: ${gpu:-none found} (results: bench/results/$(echo "${gpu:-none}" | tr 'A-Z' 'a-z' | awk '{print $1"-"$2}')/)" | tee -a "$sum"
steps="${*:-mutex barrier lean primitives skewed sanitizer}"
for s in $steps; do
  case $s in
    mutex) step i11-misses-mutex 60 "$here/test-occupant-gpu_i11_misses" --exact i11_misses_mutex --nocapture
      grep -E "^device|^  |test result|panicked|counter|failures" "$res/i11-misses-mutex.log" | head -30 >>"$sum" ;;
    barrier) step i11-misses-barrier 170 "$here/test-occupant-gpu_i11_misses" --exact i11_misses_barrier --nocapture
      grep -E "^device|^  |test result|panicked|failures" "$res/i11-misses-barrier.log" | head -200 >>"$sum" ;;
    lean) step i11-misses-lean 60 "$here/test-occupant-gpu_i11_misses" --exact i11_misses_lean_arrive --nocapture
      grep -E "^device|^  |test result|panicked|failures" "$res/i11-misses-lean.log" | head -40 >>"$sum" ;;
    primitives) step primitives 150 "$here/occupant" bench primitives --backend cuda --no-semaphores \
        --out "$res/primitives" --shape-table "$res/primitives/builtin-shape-table.json"
      grep -E "^  [0-9]+x[0-9]+ +(best|built-in)" "$res/primitives.log" | head -20 >>"$sum"
      grep -E "Mops|^  (spin|spin_backoff|lazy_cohort|flat_combining|duo_combining) " "$res/primitives.log" | head -12 >>"$sum" ;;
    skewed) step skewed 100 "$here/occupant" bench primitives --backend cuda --skew-ns "${SKEW_NS:-3000}" \
        --rounds 4000 --out "$res/skewed" --shape-table "$res/skewed/builtin-shape-table.json"
      grep -E "^  [0-9]+x[0-9]+ +(best|built-in)" "$res/skewed.log" | head -20 >>"$sum" ;;
    sanitizer) sanitize_smoke 15 "$here/test-occupant-gpu_i11_misses" i11_misses_sanitizer_smoke ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
