#!/usr/bin/env bash
# The GPU loop of issue 11's misses (helper i11-misses): the small-grid combining lock (lab duo
# variants) beside the mutex kinds at 1-8 blocks, the barrier kinds with and without the polls'
# throttle (-DOCC_POLL_PAUSE_SHIFT=1) beside grid.sync() in every shape, arrivals together and
# skewed, and racecheck + synccheck on a small smoke test. Runs on any GPU: the summary's first
# line and results/GPU name the device (the results then go under
# bench/results/<nvidia-h100|nvidia-h200>/i11-primitives/<run>/).
# Step 1 here builds the test executable (release, stripped) into a git-ignored folder with a
# runner. Step 2, one device `run`: bash .gpu-i11-misses/run.sh [steps...]
# Steps (default: mutex barrier sanitizer; limits 60 + 170 + 2 x 15 s).
# Results: $OUT/results.tar.gz and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-misses), CARGO_TARGET_DIR; on the device
# I11_SKEWS (default 0,3000: the barrier's skews in ns).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-misses}"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
exe=$(cargo test --release --no-run -p occupant --test gpu_i11_misses --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])
')
rm -rf "$dest"
mkdir -p "$dest"
cp "$exe" "$dest/test-occupant-gpu_i11_misses"
strip --strip-debug "$dest/test-occupant-gpu_i11_misses"
git -C "$root" rev-parse HEAD >"$dest/COMMIT"
cp "$root/scripts/gpu-steps.sh" "$dest/steps.sh"
git -C "$root" status --short >"$dest/STATUS"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
cp "$here/STATUS" "$res/STATUS"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "${gpu:-no GPU}" >"$res/GPU"
echo "GPU: ${gpu:-none found} (results: bench/results/$(echo "${gpu:-none}" | tr 'A-Z' 'a-z' | awk '{print $1"-"$2}')/)" | tee -a "$sum"
steps="${*:-mutex barrier sanitizer}"
for s in $steps; do
  case $s in
    mutex) step i11-misses-mutex 60 "$here/test-occupant-gpu_i11_misses" --exact i11_misses_mutex --nocapture
      grep -E "^device|^  |test result|panicked|counter|failures" "$res/i11-misses-mutex.log" | head -30 >>"$sum" ;;
    barrier) step i11-misses-barrier 170 "$here/test-occupant-gpu_i11_misses" --exact i11_misses_barrier --nocapture
      grep -E "^device|^  |test result|panicked|failures" "$res/i11-misses-barrier.log" | head -200 >>"$sum" ;;
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
