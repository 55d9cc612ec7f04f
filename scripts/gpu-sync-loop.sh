#!/usr/bin/env bash
# The GPU loop of the sync primitives, step 1 (here, no GPU needed): build the CLI and the
# gpu_sync test executable in release mode and copy them, with a runner, into a git-ignored
# folder that the device tool carries. Step 2 is the device `run` call:
#
#   carry: [".gpu-gpu-sync"]    command: bash .gpu-gpu-sync/run.sh [steps...]
#
# run.sh steps (default: all, in this order): memory tests primitives discovery sanitizer.
# Every step has its own timeout; everything lands in $OUT/results.tar.gz (the JSON and SVG
# files for bench/results/<gpu>/, and the logs) plus $OUT/summary.txt.
#
# Environment: GPU_DIR (default /work/main/.gpu-gpu-sync), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-/work/main/.gpu-gpu-sync}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
cargo build --release -p occupant-cli
exe=$(cargo test --release -p occupant --test gpu_sync --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "gpu_sync":
        print(m["executable"])
')
rm -rf "$dest"
mkdir -p "$dest"
cp "$target/release/occupant" "$dest/occupant"
cp "$exe" "$dest/gpu_sync"
strip --strip-debug "$dest/occupant" "$dest/gpu_sync" 2>/dev/null || true
git rev-parse HEAD >"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-sync-loop.sh).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="$out/res"
mkdir -p "$res"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
steps="${*:-memory tests primitives discovery sanitizer}"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
sum="$out/summary.txt"
for s in $steps; do
  echo "== $s ($(date +%T))" | tee -a "$sum"
  case $s in
    memory) timeout 60 "$here/occupant" bench memory --backend cuda --out "$res" >"$res/bench-memory.log" 2>&1; echo "rc $?" >>"$sum"; cat "$res/bench-memory.log" >>"$sum" ;;
    tests) timeout 240 "$here/gpu_sync" --test-threads=1 --nocapture >"$res/tests.log" 2>&1; echo "rc $?" >>"$sum"
           grep -E "^test |test result|panicked|violations|participants|deadlock|counter|of bound" "$res/tests.log" >>"$sum" ;;
    primitives) timeout 200 "$here/occupant" bench primitives --backend cuda --out "$res" >"$res/bench-primitives.log" 2>&1; echo "rc $?" >>"$sum"; cat "$res/bench-primitives.log" >>"$sum" ;;
    discovery) timeout 120 "$here/occupant" bench discovery --backend cuda --out "$res" >"$res/bench-discovery.log" 2>&1; echo "rc $?" >>"$sum"; cat "$res/bench-discovery.log" >>"$sum" ;;
    sanitizer)
      for tool in racecheck synccheck; do
        timeout 90 compute-sanitizer --tool $tool --kernel-name-exclude kns=grid_sync "$here/gpu_sync" --exact sanitizer_smoke --test-threads=1 >"$res/sanitizer-$tool.log" 2>&1
        echo "$tool rc $?" >>"$sum"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|test result|error" "$res/sanitizer-$tool.log" | head -20 >>"$sum"
      done ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
rm -rf "$res"
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
