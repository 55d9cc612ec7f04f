#!/usr/bin/env bash
# The GPU loop of issue 11's mutex lab (tests/gpu_mutex_lab.rs, tests/mutex_lab.cu), step 1
# here: builds the lab's test executable (release, stripped; no CLI) into a git-ignored folder
# with a runner. Step 2, one device `run`:
#   carry: [".gpu-i11-mutex-lab"]   command: bash .gpu-i11-mutex-lab/run.sh [steps...]
# Steps (default all): costs (what a lock/unlock pair is made of), lab (every design at every
# contention, exact counters), combining (the library's combining lock: exact counters, free
# queue after), sanitizer (racecheck and synccheck on combining_sanitizer_smoke). Results: $OUT/results.tar.gz and $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-mutex-lab), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-mutex-lab}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
rm -rf "$dest"
mkdir -p "$dest"
cargo test --release --no-run -p occupant --test gpu_mutex_lab --test gpu_combining_mutex \
  --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"], m["target"]["name"])
' | while read -r exe name; do cp "$exe" "$dest/test-occupant-$name"; done
strip --strip-debug "$dest"/test-* 2>/dev/null || true
git -C "$root" rev-parse HEAD >"$dest/COMMIT"
git -C "$root" status --short >"$dest/STATUS"
cp "$root/scripts/gpu-steps.sh" "$dest/steps.sh"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
cp "$here/STATUS" "$res/STATUS"
steps="${*:-costs lab combining sanitizer}"
for s in $steps; do
  case $s in
    costs) step mutex-lab-costs 20 "$here/test-occupant-gpu_mutex_lab" --exact mutex_lab_costs --nocapture
      grep -E "ns  |round trip by line|^run" "$res/mutex-lab-costs.log" | head -60 >>"$sum" ;;
    lab) step mutex-lab 90 "$here/test-occupant-gpu_mutex_lab" --exact mutex_lab_locks --nocapture
      grep -E "^  |test result|panicked|counter" "$res/mutex-lab.log" | head -60 >>"$sum" ;;
    combining) step test-gpu_combining_mutex 35 "$here/test-occupant-gpu_combining_mutex" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|Mops" "$res/test-gpu_combining_mutex.log" | head -20 >>"$sum" ;;
    sanitizer) sanitize_smoke 45 "$here/test-occupant-gpu_combining_mutex" combining_sanitizer_smoke ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
