#!/usr/bin/env bash
# The GPU loop, step 1 (here, no GPU needed): build the CLI and every test executable in release
# mode and copy them, stripped, with a runner into a git-ignored folder that the device tool
# carries. Step 2 is one device `run` call (see docs/GPU-LOOP.md):
#
#   carry: [".gpu"]      command: bash .gpu/run.sh [steps...]      timeout_s: 600
#
# run.sh steps (default: all, in this order):
#   tests       every test executable, OCCUPANT_REQUIRE_GPU=1 (GPU tests fail instead of skip)
#   launch      occupant bench launch --backend cuda   (NVRTC compile time, launch overhead)
#   memory      occupant bench memory --backend cuda   (machine abstraction)
#   primitives  occupant bench primitives --backend cuda
#   discovery   occupant bench discovery --backend cuda
#   sanitizer   compute-sanitizer racecheck + synccheck on the barrier and mutex kernels
# Each step has its own timeout. Everything lands in $OUT/results.tar.gz (JSON, SVG, logs: what
# goes under bench/results/<gpu>/) plus $OUT/summary.txt.
#
# Environment: GPU_DIR (default <repo>/.gpu; must be git-ignored in the checkout the device tool
# sends), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu}"
cd "$root"

source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant -- occupant-apps
# Only what needs the device (and NVRTC) travels: the CPU tests run in CI (and keep the bundle
# under the device tool's 64 MiB).
for t in "$dest"/test-*; do
  case $(basename "$t") in *gpu*|*nvrtc*|*cuda*) ;; *) rm "$t" ;; esac
done
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-loop.sh). Writes results under $OUT.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-tests launch memory primitives discovery sanitizer}"
for s in $steps; do
  case $s in
    tests)
      for t in "$here"/test-*; do
        n=$(basename "$t")
        # The GPU loop runs what needs the device (and NVRTC); the CPU tests run in CI.
        case $n in *gpu*|*nvrtc*|*cuda*) ;; *) continue ;; esac
        step "$n" 300 "$t" --test-threads=1 --nocapture
        grep -E "^test result|FAILED|panicked" "$res/$n.log" >>"$sum"
      done ;;
    launch) step bench-launch 300 "$here/occupant" bench launch --backend cuda --json "$res/bench-launch.json"; tail -20 "$res/bench-launch.log" >>"$sum" ;;
    memory) step bench-memory 60 "$here/occupant" bench memory --backend cuda --out "$res"; cat "$res/bench-memory.log" >>"$sum" ;;
    primitives) step bench-primitives 200 "$here/occupant" bench primitives --backend cuda --out "$res"; cat "$res/bench-primitives.log" >>"$sum" ;;
    discovery) step bench-discovery 120 "$here/occupant" bench discovery --backend cuda --out "$res"; cat "$res/bench-discovery.log" >>"$sum" ;;
    sanitizer)
      for tool in racecheck synccheck; do
        step "sanitizer-$tool" 90 compute-sanitizer --tool $tool --kernel-name-exclude kns=grid_sync "$here/test-occupant-gpu_sync" --exact sanitizer_smoke --test-threads=1
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|test result" "$res/sanitizer-$tool.log" | head -20 >>"$sum"
      done ;;
    *) echo "unknown step $s" | tee -a "$sum"; status=1 ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
rm -rf "$res"
cat "$sum"
exit $status
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
