#!/usr/bin/env bash
# Issue 8, the fork/join cost probe bundle, step 1 (here): scripts/forkjoin-cost-probe.cu with
# the device headers and four protocol variants of forkjoin.cuh (namespaces fj_sf, fj_sx,
# fj_af, fj_ax: sync or arrive protocol x master lanes follow or exit), built by nvcc on the
# GPU machine (a copy built here by the pip nvcc is the fallback), plus the CLI and the
# gpu_forkjoin test executable of this tree (EPCC ours-only, nested, semantics, sanitizers).
# Step 2, one device `run`:
#   carry: [".gpu-fj"]   command: bash .gpu-fj/run.sh [steps...]
# Steps (default: all but unsafe): probe tests bench nested sanitize unsafe. Results: $OUT/results.tar.gz,
# $OUT/summary.txt. Environment: GPU_DIR (default <repo>/.gpu-fj), CARGO_TARGET_DIR, NO_CLI=1
# (probe only).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-fj}"
cd "$root"
if [[ -z "${NO_CLI:-}" ]]; then
  source scripts/gpu-bundle.sh
  gpu_bundle "$dest" occupant --test gpu_forkjoin
else
  rm -rf "$dest"
  mkdir -p "$dest"
  git rev-parse HEAD >"$dest/COMMIT"
  cp scripts/gpu-steps.sh "$dest/steps.sh"
fi
git diff --quiet HEAD -- crates/occupant/src/cuda/device scripts/forkjoin-cost-probe.cu ||
  echo "dirty" >>"$dest/COMMIT"
mkdir -p "$dest/device"
cp crates/occupant/src/cuda/device/*.cuh "$dest/device/"
# The earlier library (main's forkjoin.cuh, or FJ_OLD_REF) as occ::fj_old, and as occ::fj_oldx
# with master lanes 1-31 exiting at once.
old_ref=${FJ_OLD_REF:-main}
git show "$old_ref:crates/occupant/src/cuda/device/forkjoin.cuh" |
  sed -e 's/^namespace fj {/namespace fj_old {/' -e 's/^}  \/\/ namespace fj$/}  \/\/ namespace fj_old/' >"$dest/device/fj_old.cuh"
sed -e 's/namespace fj_old/namespace fj_oldx/' -e 's/detail::master_lanes(team);//' "$dest/device/fj_old.cuh" >"$dest/device/fj_oldx.cuh"
for f in fj_old fj_oldx; do
  grep -q "^namespace $f {" "$dest/device/$f.cuh" && grep -q "// namespace $f\$" "$dest/device/$f.cuh" ||
    { echo "$f.cuh: namespace sed failed" >&2; exit 1; }
done
grep -q "detail::master_lanes(team);" "$dest/device/fj_oldx.cuh" && { echo "fj_oldx.cuh: lanes still follow" >&2; exit 1; }
cp scripts/forkjoin-cost-probe.cu "$dest/probe.cu"
cp bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1/logs/llvm-epcc_target.jsonl "$dest/"
nvcc_here=$(find "$root/.venv-nvrtc" -name nvcc -path '*bin*' | head -1)
if [[ -n "$nvcc_here" ]]; then
  PATH="$(dirname "$nvcc_here"):$PATH" nvcc -std=c++17 -arch=sm_90 -lineinfo -DFJ_OLD \
    -I"$dest/device" -o "$dest/probe-local" "$dest/probe.cu"
  strip "$dest/probe-local" || true
fi
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-probe tests bench nested sanitize}"
probe="$out/probe"
t_start=$(date +%s)
lib_ok=1  # cleared when the probe's library rows did not run (a hang): the CLI steps would hang too
for s in $steps; do
  if (($(date +%s) - t_start > 140)) && [[ $s != unsafe ]]; then
    echo "skipped $s: past 140 s" >>"$sum"
    continue
  fi
  if [[ $lib_ok == 0 && $s != unsafe ]]; then
    echo "skipped $s: the library rows of the probe failed" >>"$sum"
    continue
  fi
  case $s in
    probe)
      # The copy built here (pip nvcc 13.5, CUDA minor-version compatible) when it runs;
      # otherwise build with the device's nvcc.
      cp "$here/probe-local" "$probe"
      if ! timeout -k 2 15 "$probe" "#0" 200 1 | grep -q "check=ok"; then
        step probe-build 150 nvcc -std=c++17 -arch=sm_90 -lineinfo -DFJ_OLD -I"$here/device" -o "$probe" "$here/probe.cu"
        tail -3 "$res/probe-build.log" >>"$sum"
      else
        echo "probe: the copy built here runs" >>"$sum"
      fi
      # One process per group of variants (a group that hangs loses only itself).
      for f in "team_barrier" "sync0+sync1/master-converged" "sync0+sync1/master-lane0-apart" \
        "sync0+sync1/master-lanes-exit" "arrive0+sync1/lanes-exit+slot" "lib-fj:" "lib-fj_old:" "lib-fj_oldx:"; do
        timeout -k 2 10 "$probe" "$f" >>"$res/probe-run.log" 2>&1 || echo "variant $f: rc $?" >>"$res/probe-run.log"
      done
      grep -E "^fjprobe|^variant" "$res/probe-run.log" | sed 's/ ref_per_delay=[0-9. ]*//' >>"$sum"
      grep -q "^fjprobe lib-fj:parallel .*check=ok" "$res/probe-run.log" || lib_ok=0
      tar -C "$res" -czf "$out/results.tar.gz" . ;;
    unsafe)
      step probe-unsafe 12 "$probe" UNSAFE 200 1
      head -12 "$res/probe-unsafe.log" >>"$sum" ;;
    tests)
      step test-gpu_forkjoin 30 "$here/test-occupant-gpu_forkjoin" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked" "$res/test-gpu_forkjoin.log" >>"$sum" ;;
    bench)
      # LLVM's figures: the comparator's run of 2026-11-23-i8-run1 on an H100 (not carried: its
      # runtime is 42 MB packed; its two stored runs agree within 0.3 %).
      step bench-forkjoin 40 "$here/occupant" bench forkjoin --backend cuda --out "$res" --llvm "$here/llvm-epcc_target.jsonl"
      cat "$res/bench-forkjoin.log" >>"$sum" ;;
    nested)
      step bench-nested 40 "$here/occupant" bench nested --out "$res"
      cat "$res/bench-nested.log" >>"$sum" ;;
    sanitize)
      # Most telling first; each sub-step skipped once the run is past 150 s.
      for job in racecheck:forkjoin racecheck:nested racecheck:semantics synccheck:forkjoin \
        synccheck:semantics synccheck:nested racecheck:probe synccheck:probe; do
        tool=${job%%:*} what=${job#*:}
        if (($(date +%s) - t_start > 150)); then echo "skipped sanitizer-$tool-$what: past 150 s" >>"$sum"; continue; fi
        case $what in
          forkjoin) cmd=("$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 --out "$res/sanitizer-$tool") ;;
          nested) cmd=("$here/occupant" bench nested --small --reps 1 --out "$res/sanitizer-$tool") ;;
          semantics) cmd=("$here/test-occupant-gpu_forkjoin" --exact semantics_match_the_cpu_twin --test-threads=1) ;;
          probe) cmd=("$probe" "lib-fj:" 20 1) ;;
        esac
        step "sanitizer-$tool-$what" 30 compute-sanitizer --tool $tool "${cmd[@]}"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|rror|test result|BAD" "$res/sanitizer-$tool-$what.log" | head -8 >>"$sum"
      done ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -la "$dest"
