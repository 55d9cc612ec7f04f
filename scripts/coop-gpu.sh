#!/usr/bin/env bash
# The cooperative-kernel GPU loop (issue 12), step 1 (here, no GPU needed): build the GPU tests
# of the CUDA cooperative scheduler and the experiments binary in release mode, and copy them,
# stripped, with a runner into a git-ignored folder the device tool carries. Step 2 is one
# device `run` call:  carry: [".gpu-coop"]   command: bash .gpu-coop/run.sh experiments coop
# sanitizer bfs   timeout_s: 420
# The runner writes $OUT/results.tar.gz (res/: JSON, SVG, logs — what goes under
# bench/results/<gpu>/coop/run-<commit>/) and $OUT/summary.txt. Every step has its own timeout.
# Steps (arguments of run.sh, in order; default "tests experiments"): tests (= coop bfs), coop,
# bfs, sanitizer, experiments, quick. The archive is repacked after every step, so a run cut
# short still brings back what it finished.
# Environment: GPU_DIR (default <repo>/.gpu-coop), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-coop}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_coop -- occupant-apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
strip --strip-debug "$dest/coop_cuda_experiments"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/coop-gpu.sh). Writes results under $OUT.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
mkdir -p "$out"
res="${TMPDIR:-/tmp}/occ-res/res"
mkdir -p "$res"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_RESULTS_DIR="$res" CUDA_MODULE_LOADING=EAGER
export OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
sum="$out/summary.txt"
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  echo "== $name ($(date +%T))" | tee -a "$sum"
  timeout -k 5 "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?" >>"$sum"
  # Packed after every step: a run cut short still brings back what it finished.
  tar czf "$out/results.tar.gz" -C "$(dirname "$res")" res
}
# Also every 15 s in the background: a step cut short by the device's limit keeps its log.
( while sleep 15; do
    tar czf "$out/partial.tar.gz" -C "$(dirname "$res")" res 2>/dev/null && mv "$out/partial.tar.gz" "$out/results.tar.gz"
  done ) &
packer=$!
steps="${*:-tests experiments}"
for s in $steps; do
  case $s in
    tests)
      step test-gpu_coop 60 "$here/test-occupant-gpu_coop" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop.log" >>"$sum"
      step test-gpu_coop_bfs 100 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop_bfs.log" >>"$sum" ;;
    experiments)
      step experiments 220 "$here/coop_cuda_experiments" "$res/coop"
      tail -60 "$res/experiments.log" >>"$sum" ;;
    coop)
      step test-gpu_coop 60 "$here/test-occupant-gpu_coop" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop.log" >>"$sum" ;;
    bfs)
      step test-gpu_coop_bfs 100 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop_bfs.log" >>"$sum" ;;
    sanitizer)
      # compute-sanitizer on the coop kernels: memcheck (and synccheck) on the small GPU tests
      # (the never-offering kernel, the work-stealing tasks under kill/fork cycles).
      step sanitizer-memcheck-never 30 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
        "$here/test-occupant-gpu_coop" --exact a_kernel_that_never_offers_groups_gives_a_timeout_error_and_the_context_stays_usable --test-threads=1 --nocapture
      grep -E "ERROR SUMMARY|error|test result|panicked" "$res/sanitizer-memcheck-never.log" | head -6 >>"$sum" ;;
    quick)
      step experiments-quick 120 "$here/coop_cuda_experiments" "$res/coop" quick
      tail -40 "$res/experiments-quick.log" >>"$sum" ;;
  esac
done
kill $packer 2>/dev/null; wait $packer 2>/dev/null
# The device tool brings back only a few files: pack everything into one archive.
tar czf "$out/results.tar.gz" -C "$(dirname "$res")" res && rm -rf "$res"
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
