#!/usr/bin/env bash
# Issue 12 (branch i12-corun), step 1 here: build the cooperative experiments binary, the CLI
# and the BFS GPU test executable (release, stripped) into a bundle folder the device tool
# carries (GPU_DIR, default <repo>/.gpu-i12-corun). Step 2, one device call:
# `bash .gpu-i12-corun/run.sh [mtcmp|overhead|cli|tests|experiments|regular]...` (no argument:
# the first four; ~3 min, each step under its own limit, at most ~4.2 min; round 3:
# `experiments regular`, ~3 min, at most 4 min). It writes only $OUT/results.tar.gz (everything,
# packed after every step) and $OUT/summary.txt.
# Steps: the co-run variant against variant with paired launches (mtcmp: old, spread+batch —
# the BFS's default now —, spread+batch+keep, spread+batch with the slots held idle; medium and
# light on a quarter, heavy on half as the seed runs it, heavy on a quarter); cooperative vs
# persistent with paired launches (overhead, grid); `occupant multitask --backend cuda` with
# paired repetitions (the CLI's path); the GPU coop BFS tests (every distribution and Tuning,
# the throttled build, >= 1000 kill/fork cycles each, and every app).
# Environment for the device run: I12_MT_REPS (4), I12_MT_ROUNDS (40), I12_MT_CONFIGS,
# I12_MT_VARIANTS (see coop_cuda_experiments mtcmp), OCC_MT_THROTTLE_SHIFT (5), OCC_MT_KEEP_MB
# (32). Round 1 (commit 50fc29d) ran reps 3, rounds 30 and the variants old, spread, batch,
# spread+batch, spread+batch+throttle.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i12-corun}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant-apps --test gpu_coop_bfs
cargo build --release -p occupant-apps --example coop_cuda_experiments
cp "$target/release/examples/coop_cuda_experiments" "$dest/"
strip --strip-debug "$dest/coop_cuda_experiments"
git diff --quiet HEAD || echo "(+ uncommitted changes)" >>"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-i12-corun.sh): results in /tmp, only
# results.tar.gz and summary.txt under $OUT.
set -u
export RES_DIR="${TMPDIR:-/tmp}/occ-i12-corun-res"
rm -rf "$RES_DIR"
mkdir -p "${OUT:-/tmp/occupant-out}"
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/steps.sh"
export CUDA_MODULE_LOADING=EAGER
if [[ -z ${I12_NO_GPU_CHECK:-} ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU (nvidia-smi failed); nothing run" | tee -a "$sum"
  tar -C "$res" -czf "$out/results.tar.gz" .
  exit 0
fi
STEPS="$*"
want() { [[ -z $STEPS || " $STEPS " == *" $1 "* ]]; }
if want mtcmp; then
  step mtcmp 140 "$here/coop_cuda_experiments" "$res/coop" mtcmp "${I12_MT_REPS:-4}" \
    "${I12_MT_ROUNDS:-40}" "${I12_MT_CONFIGS:-medium:quarter,light:quarter,heavy:half,heavy:quarter:old/spread+batch}" \
    "${I12_MT_VARIANTS:-old,spread+batch,spread+batch+keep,spread+batch-idle}"
  grep -vE "^\{" "$res/mtcmp.log" | cut -c1-700 | tail -40 >>"$sum"
fi
if want overhead; then
  step overhead-grid 40 env OCC_OVERHEAD_ROUNDS=40,10 "$here/coop_cuda_experiments" "$res/coop-grid" \
    overhead 2 grid:1000x1000
  tail -4 "$res/overhead-grid.log" | cut -c1-900 >>"$sum"
fi
if [[ " $STEPS " == *" experiments "* ]]; then
  # Round 3: the full experiment (coop vs persistent; every workload x share x barrier as paired
  # co-runs; priority stream, second process, green contexts), 40 rounds, 2 repetitions.
  step experiments 170 env OCC_COOP_ROUNDS="${I12_ROUNDS:-40}" OCC_COOP_REPS="${I12_REPS:-2}" \
    "$here/coop_cuda_experiments" "$res/coop-full"
  grep -vE "^\{" "$res/experiments.log" | cut -c1-600 | tail -45 >>"$sum"
fi
if [[ " $STEPS " == *" regular "* ]]; then
  # Round 3: the co-run with the regular barrier, old vs the new default, paired.
  step mtcmp-regular 60 "$here/coop_cuda_experiments" "$res/coop-regular" mtcmp 3 40 \
    "medium:quarter::regular,light:quarter::regular,heavy:half::regular" "old,spread+batch"
  grep -vE "^\{" "$res/mtcmp-regular.log" | grep -v "^slots" | cut -c1-600 >>"$sum"
fi
if want cli; then
  step cli-multitask 25 "$here/occupant" multitask --backend cuda --app bfs --gen grid:1000x1000 \
    --workload medium --groups quarter --barrier query --repeats 2 --rounds 40 \
    --json "$res/cli-multitask.json"
  tail -4 "$res/cli-multitask.log" >>"$sum"
fi
if want tests; then
  step test-gpu_coop_bfs 45 "$here/test-occupant-apps-gpu_coop_bfs" --test-threads=1 --nocapture
  grep -E "^test |test result|panicked|cycles|total" "$res/test-gpu_coop_bfs.log" >>"$sum"
fi
echo "status $status" >>"$sum"
tar -C "$res" -czf "$out/results.tar.gz" .
RUN
echo "bundle: $dest ($(du -sh "$dest" | cut -f1))"
