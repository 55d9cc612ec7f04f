#!/usr/bin/env bash
# Issue 12 (branch i12-dynamic), step 1 here: build the cooperative experiments binary and the
# two GPU coop test executables (release, stripped) into a bundle folder the device tool
# carries (GPU_DIR, default <repo>/.gpu-i12). Step 2, one device call: `bash .gpu-i12/run.sh`
# (~2.5 min, every step under its own limit: at most 4 min). It writes only
# $OUT/results.tar.gz (everything, packed after every step) and $OUT/summary.txt.
# `bash .gpu-i12/run.sh final` (round 3, ~70 s): the final version's co-run only.
# Steps: the GPU coop tests (the dynamic distribution and the static split under >= 1000
# kill/fork cycles each), the multitasking co-run old (static) vs new (dynamic) with paired
# launches (mtcmp), and the coop overhead with paired launches (grid, then rmat).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i12}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_coop -- occupant-apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
strip --strip-debug "$dest/coop_cuda_experiments"
git diff --quiet HEAD || echo "(+ uncommitted changes)" >>"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-i12-dynamic.sh): results in /tmp, only
# results.tar.gz and summary.txt under $OUT.
set -u
export RES_DIR="${TMPDIR:-/tmp}/occ-i12-res"
rm -rf "$RES_DIR"
mkdir -p "${OUT:-/tmp/occupant-out}"
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/steps.sh"
export CUDA_MODULE_LOADING=EAGER
if [[ -z ${I12_NO_GPU_CHECK:-} ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU (nvidia-smi failed); nothing run" | tee -a "$sum"
  tar -C "$res" -czf "$out/results.tar.gz" .
  exit 0
fi
if [[ ${1:-} == final ]]; then
  # Round 3: the final version's co-run only (dynamic, and dynamic with the slots idle), <= 90 s.
  step mtcmp-final 80 "$here/coop_cuda_experiments" "$res/coop" mtcmp 4 40 final
  grep -vE "^\{" "$res/mtcmp-final.log" | tail -20 >>"$sum"
  echo "status $status" >>"$sum"
  tar -C "$res" -czf "$out/results.tar.gz" .
  exit 0
fi
step test-gpu_coop 20 "$here/test-occupant-gpu_coop" --test-threads=1 --nocapture
grep -E "^test |test result|panicked|cycles" "$res/test-gpu_coop.log" >>"$sum"
step test-gpu_coop_bfs 40 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
grep -E "^test |test result|panicked|cycles|total" "$res/test-gpu_coop_bfs.log" >>"$sum"
step mtcmp 100 "$here/coop_cuda_experiments" "$res/coop" mtcmp 3 40
grep -vE "^\{" "$res/mtcmp.log" | tail -20 >>"$sum"
step overhead-grid 45 env OCC_OVERHEAD_ROUNDS=40,10 "$here/coop_cuda_experiments" "$res/coop-grid" overhead 2 grid:1000x1000
tail -4 "$res/overhead-grid.log" | cut -c1-600 >>"$sum"
step overhead-rmat 35 env OCC_OVERHEAD_ROUNDS=20,5 "$here/coop_cuda_experiments" "$res/coop-rmat" overhead 1 rmat:scale=20,ef=16
tail -4 "$res/overhead-rmat.log" | cut -c1-600 >>"$sum"
echo "status $status" >>"$sum"
tar -C "$res" -czf "$out/results.tar.gz" .
RUN
echo "bundle: $dest ($(du -sh "$dest" | cut -f1))"
