#!/usr/bin/env bash
# The GPU loop of issue 11's last misses (helper i11-last-misses): the flat-combining lock at 1 …
# full occupancy (2 and 4 blocks three times) beside the old mutex kinds, its exact counters,
# Lean over K lines beside lean / replica / relay / grid.sync at 132x1024, 264x1024, 132x128 and
# full occupancy of 128 (three interleaved reps) with message checks, and racecheck + synccheck
# on a small smoke test. Step 1 here builds the test executable (release, stripped; no CLI) into
# a git-ignored folder with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11-last"]   command: bash .gpu-i11-last/run.sh [steps...]
# Steps (default: mutex barrier sanitizer; limits 40 + 34 + 2 x 8 s = 90 s at most).
# Results: $OUT/results.tar.gz (what goes under bench/results/<gpu>/i11-primitives/<run>/) and
# $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-last), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-last}"
cd "$root"
# As scripts/gpu-bundle.sh's gpu_bundle, without the CLI (this loop does not use it).
target="${CARGO_TARGET_DIR:-$root/target}"
exe=$(cargo test --release --no-run -p occupant --test gpu_i11_last --message-format=json 2>/dev/null |
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
cp "$exe" "$dest/test-occupant-gpu_i11_last"
strip --strip-debug "$dest/test-occupant-gpu_i11_last"
git -C "$root" rev-parse HEAD >"$dest/COMMIT"
cp "$root/scripts/gpu-steps.sh" "$dest/steps.sh"
git -C "$root" status --short >"$dest/STATUS"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
cp "$here/STATUS" "$res/STATUS"
steps="${*:-mutex barrier sanitizer}"
for s in $steps; do
  case $s in
    mutex) step i11-last-mutex 40 "$here/test-occupant-gpu_i11_last" --exact i11_last_mutex --nocapture
      grep -E "^  |test result|panicked|counter|failures" "$res/i11-last-mutex.log" | head -30 >>"$sum" ;;
    barrier) step i11-last-barrier 34 "$here/test-occupant-gpu_i11_last" --exact i11_last_barrier --nocapture
      grep -E "^  |test result|panicked|failures" "$res/i11-last-barrier.log" | head -60 >>"$sum" ;;
    sanitizer) sanitize_smoke 8 "$here/test-occupant-gpu_i11_last" i11_last_sanitizer_smoke ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
