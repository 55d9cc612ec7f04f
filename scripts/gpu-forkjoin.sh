#!/usr/bin/env bash
# The fork-join GPU loop, step 1 (here): builds the CLI and the fork-join test executables in
# release mode, the LLVM OpenMP comparator (scripts/build-llvm-openmp.sh, packed as tar.xz),
# and a runner, into a git-ignored folder that the device tool carries. Step 2 is one `run`:
#
#   carry: [".gpu-forkjoin"]   command: bash .gpu-forkjoin/run.sh   timeout_s: 420
#
# run.sh: the GPU semantics tests, the LLVM comparator and `occupant bench forkjoin` in the same
# run, `occupant bench nested`, compute-sanitizer racecheck + synccheck + memcheck on small
# versions of both benchmarks and on the semantics test, and the racecheck probe
# (scripts/forkjoin-racecheck-probe.cu, built there by nvcc against the device headers as they
# are and against a copy whose master-warp lanes 1-31 exit at once); every step bounded by
# `timeout`. Results: $OUT/results.tar.gz (what goes
# under bench/results/<gpu>/forkjoin/) and $OUT/summary.txt.
#
# Environment: GPU_DIR (default <repo>/.gpu-forkjoin), CARGO_TARGET_DIR, LLVM_OPENMP_DIR (an
# already built comparator folder, skips the build), LLVM_OPENMP_TAR (that folder already
# packed with `tar -cJf`, skips packing: xz of its ~180 MB takes minutes; `none`: no comparator
# in this run: the bundle is then ~10 MB instead of ~51 MB, and the ratios use LLVM_JSONL, a
# stored comparator run, default the one of bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-forkjoin}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
cargo build --release -p occupant-cli
exes=$(cargo test --release --no-run -p occupant --test gpu_forkjoin \
  --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"], "test-" + m["target"]["name"])
')
llvm="${LLVM_OPENMP_DIR:-$target/llvm-openmp}"
[[ "${LLVM_OPENMP_TAR:-}" == none || -x "$llvm/run.sh" ]] || bash scripts/build-llvm-openmp.sh "$llvm"
rm -rf "$dest"
mkdir -p "$dest"
cp "$target/release/occupant" "$dest/occupant"
while read -r exe name; do
  [[ -n "$exe" ]] && cp "$exe" "$dest/$name"
done <<<"$exes"
for f in "$dest"/*; do strip "$f" 2>/dev/null || true; done
if [[ "${LLVM_OPENMP_TAR:-}" != none ]]; then
  if [[ -n "${LLVM_OPENMP_TAR:-}" ]]; then
    cp "$LLVM_OPENMP_TAR" "$dest/llvm-openmp.tar.xz"
  else
    tar -C "$(dirname "$llvm")" -cJf "$dest/llvm-openmp.tar.xz" "$(basename "$llvm")"
  fi
  echo "$(basename "$llvm")" >"$dest/LLVM_DIR_NAME"
  cp "$llvm/run.sh" "$dest/llvm-run.sh"
  cp "$llvm/epcc_target" "$dest/llvm-epcc_target"
  [[ -f "$llvm/epcc_target_jit" ]] && cp "$llvm/epcc_target_jit" "$dest/llvm-epcc_target_jit"
fi
git rev-parse HEAD >"$dest/COMMIT"
# LLVM_JSONL: a stored comparator run (JSON lines), used for the ratios when the comparator is
# not in the bundle (LLVM_OPENMP_TAR=none: the packed comparator is ~42 MB).
cp "${LLVM_JSONL:-bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1/logs/llvm-epcc_target.jsonl}" "$dest/llvm-stored.jsonl"
mkdir -p "$dest/device"
cp crates/occupant/src/cuda/device/*.cuh "$dest/device/"
cp scripts/forkjoin-racecheck-probe.cu "$dest/probe.cu"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-forkjoin.sh). Writes results under $OUT.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="$out/res"
mkdir -p "$res"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_RESULTS_DIR="$res/tests" OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
sum="$out/summary.txt"
# STEPS (default all): which of tests probe llvm bench nested sanitize to run.
want() { [[ " ${STEPS:-tests probe llvm bench nested sanitize} " == *" $1 "* ]]; }
step() { # name timeout command...
  local name=$1 limit=$2; shift 2
  echo "== $name ($(date +%T))" | tee -a "$sum"
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?" >>"$sum"
}
if want tests; then
  step test-gpu_forkjoin 90 "$here/test-gpu_forkjoin" --test-threads=1 --nocapture
  grep -E "^test |test result|panicked" "$res/test-gpu_forkjoin.log" >>"$sum"
fi
# The racecheck probe, both ways (nvcc here; the copy's master-warp lanes 1-31 exit at once).
if want probe; then
mkdir -p "$out/probe-exit"
cp "$here/device/"*.cuh "$out/probe-exit/"
grep -q "detail::master_lanes(blockDim.x);" "$out/probe-exit/forkjoin.cuh" || echo "probe-exit: no master_lanes call to remove" >>"$sum"
sed -i 's/detail::master_lanes(blockDim.x);//' "$out/probe-exit/forkjoin.cuh"
step probe-build 120 bash -c "nvcc -std=c++17 -arch=sm_90 -lineinfo -I'$here/device' -o '$out/probe' '$here/probe.cu' && nvcc -std=c++17 -arch=sm_90 -lineinfo -I'$out/probe-exit' -o '$out/probe-exit/probe' '$here/probe.cu'"
tail -3 "$res/probe-build.log" >>"$sum"
for p in "$out/probe" "$out/probe-exit/probe"; do
  n=$(basename "$(dirname "$p")")
  step "probe-$n-run" 30 "$p"
  cat "$res/probe-$n-run.log" >>"$sum"
  step "probe-$n-racecheck" 60 compute-sanitizer --tool racecheck "$p"
  grep -E "RACECHECK SUMMARY|Race reported|probe:" "$res/probe-$n-racecheck.log" | head -6 >>"$sum"
done
rm -rf "$out/probe" "$out/probe-exit"
fi
# The LLVM OpenMP comparator, then ours, in the same run.
llvm_tmp=$(mktemp -d)
llvm="$llvm_tmp/none"
if [[ -f "$here/llvm-openmp.tar.xz" ]] && want llvm; then
  tar -C "$llvm_tmp" -xJf "$here/llvm-openmp.tar.xz"
  llvm="$llvm_tmp/$(cat "$here/LLVM_DIR_NAME")"
fi
# A runner or the JIT build carried beside the packed comparator replaces the packed one.
for f in run.sh epcc_target epcc_target_jit; do
  [[ -f "$here/llvm-$f" && -d "$llvm" ]] && cp "$here/llvm-$f" "$llvm/$f" && chmod +x "$llvm/$f"
done
llvm_ok=""
for bin in epcc_target; do  # the JIT build cannot run (no NVPTX JIT in Debian's libomptarget)
  [[ -x "$llvm/$bin" ]] || continue
  step "llvm-$bin" 90 env LLVM_EPCC_BIN=$bin bash -c "'$llvm/run.sh' 1000 100 5 >'$res/llvm-$bin.jsonl'"
  head -c 600 "$res/llvm-$bin.log" >>"$sum"; wc -l "$res/llvm-$bin.jsonl" >>"$sum"
  step "llvm-$bin-info" 30 env LLVM_EPCC_BIN=$bin LIBOMPTARGET_INFO=-1 "$llvm/run.sh" 10 100 1
  grep -iE "launch|mode|error|image" "$res/llvm-$bin-info.log" | sort | uniq -c | sort -rn | head -12 >>"$sum"
  if [[ -z "$llvm_ok" ]] && grep -q '"threads_seen": [1-9]' "$res/llvm-$bin.jsonl"; then
    llvm_ok="$res/llvm-$bin.jsonl"
  fi
done
# Without the comparator in this run, the stored comparator run carried in the bundle (its two
# stored H100 runs agree within 0.3 %).
[[ -z "$llvm_ok" && -f "$here/llvm-stored.jsonl" ]] && llvm_ok="$here/llvm-stored.jsonl"
llvm_arg=(); [[ -n "$llvm_ok" ]] && llvm_arg=(--llvm "$llvm_ok")
echo "llvm comparator used: ${llvm_ok:-none}" >>"$sum"
if want bench; then
  step bench-forkjoin 120 "$here/occupant" bench forkjoin --backend cuda --out "$res" "${llvm_arg[@]}"
  cat "$res/bench-forkjoin.log" >>"$sum"
fi
if want nested; then
  step bench-nested 150 "$here/occupant" bench nested --out "$res"
  cat "$res/bench-nested.log" >>"$sum"
fi
want sanitize || tools=""
for tool in ${tools-racecheck synccheck memcheck}; do
  # memcheck: device memory errors only (the launcher counts a kernel's parameters with
  # cuFuncGetParamInfo until it answers CUDA_ERROR_INVALID_VALUE, past the last one: an API
  # error by design, which memcheck would list too).
  extra=(); [[ $tool == memcheck ]] && extra=(--report-api-errors no)
  step "sanitizer-$tool-forkjoin" 45 compute-sanitizer --tool $tool "${extra[@]}" "$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 --out "$res/sanitizer-$tool"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|rror" "$res/sanitizer-$tool-forkjoin.log" | head -8 >>"$sum"
  step "sanitizer-$tool-semantics" 45 compute-sanitizer --tool $tool "${extra[@]}" "$here/test-gpu_forkjoin" --exact semantics_match_the_cpu_twin --test-threads=1
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|error|test result" "$res/sanitizer-$tool-semantics.log" | head -8 >>"$sum"
  step "sanitizer-$tool-nested" 45 compute-sanitizer --tool $tool "${extra[@]}" "$here/occupant" bench nested --small --reps 1 --out "$res/sanitizer-$tool"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|error" "$res/sanitizer-$tool-nested.log" | head -8 >>"$sum"
done
tar -C "$res" -czf "$out/results.tar.gz" .
rm -rf "$res"
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -la "$dest"
