#!/usr/bin/env bash
# Issue 8, the fork/join cost probe bundle, step 1 (here): scripts/forkjoin-cost-probe.cu with
# the device headers and four protocol variants of forkjoin.cuh (namespaces fj_sf, fj_sx,
# fj_af, fj_ax: sync or arrive protocol x master lanes follow or exit), built by nvcc on the
# GPU machine (a copy built here by the pip nvcc is the fallback), plus the CLI and the
# gpu_forkjoin test executable of this tree (EPCC ours-only, nested, semantics, sanitizers).
# Step 2, one device `run`:
#   carry: [".gpu-fj"]   command: bash .gpu-fj/run.sh [steps...]
# Steps (default all): probe tests bench nested sanitize unsafe. Results: $OUT/results.tar.gz,
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
for v in sf:false:true sx:false:false af:true:true ax:true:false; do
  IFS=: read -r ns a f <<<"$v"
  sed -e "s/^namespace fj {/namespace fj_$ns {/" -e "s/^}  \/\/ namespace fj\$/}  \/\/ namespace fj_$ns/" \
    -e "s/^constexpr bool ARRIVE_PROTOCOL = [a-z]*;/constexpr bool ARRIVE_PROTOCOL = $a;/" \
    -e "s/^constexpr bool MASTER_LANES_FOLLOW = [a-z]*;/constexpr bool MASTER_LANES_FOLLOW = $f;/" \
    crates/occupant/src/cuda/device/forkjoin.cuh >"$dest/device/fj_$ns.cuh"
  for want in "^namespace fj_$ns {" "// namespace fj_$ns" "ARRIVE_PROTOCOL = $a;" "MASTER_LANES_FOLLOW = $f;"; do
    grep -q "$want" "$dest/device/fj_$ns.cuh" || { echo "variant $ns: no '$want'" >&2; exit 1; }
  done
done
cp scripts/forkjoin-cost-probe.cu "$dest/probe.cu"
cp bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1/logs/llvm-epcc_target.jsonl "$dest/"
nvcc_here=$(find "$root/.venv-nvrtc" -name nvcc -path '*bin*' | head -1)
if [[ -n "$nvcc_here" ]]; then
  PATH="$(dirname "$nvcc_here"):$PATH" nvcc -std=c++17 -arch=sm_90 -lineinfo -DFJ_VARIANTS \
    -I"$dest/device" -o "$dest/probe-local" "$dest/probe.cu"
  strip "$dest/probe-local" || true
fi
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-probe tests bench nested sanitize unsafe}"
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
        step probe-build 150 nvcc -std=c++17 -arch=sm_90 -lineinfo -DFJ_VARIANTS -I"$here/device" -o "$probe" "$here/probe.cu"
        tail -3 "$res/probe-build.log" >>"$sum"
      else
        echo "probe: the copy built here runs" >>"$sum"
      fi
      # One process per variant (a variant that hangs loses only itself); the last variant
      # (UNSAFE: mixed arrive/sync in one warp) runs as the run's last step.
      n=$("$probe" --count)
      for ((i = 0; i < n - 1; i++)); do
        timeout -k 2 8 "$probe" "#$i" >>"$res/probe-run.log" 2>&1 || echo "variant #$i: rc $?" >>"$res/probe-run.log"
      done
      grep -E "^fjprobe|^variant" "$res/probe-run.log" | sed 's/ ref_per_delay=[0-9. ]*//' >>"$sum"
      grep -q "^fjprobe lib-fj:parallel .*check=ok" "$res/probe-run.log" || lib_ok=0
      tar -C "$res" -czf "$out/results.tar.gz" . ;;
    unsafe)
      step probe-unsafe 12 "$probe" "#$(($("$probe" --count) - 1))" 200 1
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
      cat "$res/bench-nested.log" >>"$sum"
      # The adaptive kernels with one block per chunk (no one-wave cap on the grid).
      step bench-nested-chunkgrid 40 env OCCUPANT_NESTED_ADAPTIVE_GRID=chunk "$here/occupant" bench nested --out "$res/chunkgrid"
      cat "$res/bench-nested-chunkgrid.log" >>"$sum" ;;
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
