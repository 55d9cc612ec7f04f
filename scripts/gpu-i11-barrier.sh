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
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
cargo build --release -p occupant-cli
exes=$(cargo test --release --no-run -p occupant --test gpu_combining --test gpu_sync \
  --test gpu_persistent --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"], "test-" + m["target"]["name"])
')
rm -rf "$dest"
mkdir -p "$dest"
cp "$target/release/occupant" "$dest/occupant"
while read -r exe name; do
  [[ -n "$exe" ]] && cp "$exe" "$dest/$name"
done <<<"$exes"
for f in "$dest"/*; do strip --strip-debug "$f" 2>/dev/null || true; done
git rev-parse HEAD >"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="$out/res"
mkdir -p "$res"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
export OCCUPANT_COMMIT="$(cat "$here/COMMIT")"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
steps="${*:-primitives combining sync persistent sanitizer}"
sum="$out/summary.txt"
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  echo "== $name ($(date +%T))" | tee -a "$sum"
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?" >>"$sum"
}
for s in $steps; do
  case $s in
    primitives) step bench-primitives 150 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores --no-mutexes
      grep -v "^  .*ns  (" "$res/bench-primitives.log" | head -40 >>"$sum" ;;
    lab) step bench-lab 240 "$here/occupant" bench primitives --backend cuda --out "$res/lab" --no-semaphores --no-mutexes --barrier-lab
      grep -v "^  .*ns  (" "$res/bench-lab.log" | head -40 >>"$sum" ;;
    combining) step test-gpu_combining 90 "$here/test-gpu_combining" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked" "$res/test-gpu_combining.log" | head -40 >>"$sum" ;;
    sync) step test-gpu_sync 90 "$here/test-gpu_sync" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_sync.log" >>"$sum" ;;
    persistent) step test-gpu_persistent 90 "$here/test-gpu_persistent" --test-threads=1 --nocapture
      grep -E "test result|panicked|^test " "$res/test-gpu_persistent.log" >>"$sum" ;;
    sanitizer)
      for tool in racecheck synccheck; do
        step "sanitizer-$tool" 40 compute-sanitizer --tool $tool "$here/test-gpu_combining" --exact combining_sanitizer_smoke --test-threads=1
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|test result" "$res/sanitizer-$tool.log" | head -10 >>"$sum"
      done ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
