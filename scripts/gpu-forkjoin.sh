#!/usr/bin/env bash
# The fork-join GPU loop, step 1 (here): builds the CLI and the fork-join test executable in
# release mode, the LLVM OpenMP comparator (scripts/build-llvm-openmp.sh, packed as tar.xz), the
# cost probe (scripts/forkjoin-cost-probe.cu: hand-written protocols and library variants) and
# the racecheck probe (scripts/forkjoin-racecheck-probe.cu), both built here by the pip nvcc,
# into a git-ignored folder that the device tool carries. Step 2 is one `run`:
#
#   carry: [".gpu-forkjoin"]   command: bash .gpu-forkjoin/run.sh [steps...]   timeout_s: 280
#
# run.sh steps (default all, in this order): tests llvm bench probe rcprobe sanitize nested.
# - tests: the GPU semantics tests;
# - probe: the cost probe (cycles per fork + join of each protocol / library variant);
# - rcprobe: the racecheck probe under compute-sanitizer racecheck, as is and in its `epcc MASK`
#   mode (which construct before back-to-back reductions makes racecheck report the partials);
# - llvm: the LLVM OpenMP comparator; bench: `occupant bench forkjoin` of this tree, of OLD_CLI
#   (an earlier occupant binary, the old variant) and of this tree with --lone-master, in the
#   same run, interleaved (new, old, lone, new, old); nested: `bench nested`, new and old;
# - sanitize: racecheck + synccheck on small EPCC runs (both launch shapes), the semantics test
#   and the nested suite.
# Every step is bounded by `timeout`; steps past 180 s are skipped (worst case ~4 min). Results: $OUT/results.tar.gz
# and $OUT/summary.txt only.
#
# Environment: GPU_DIR (default <repo>/.gpu-forkjoin), CARGO_TARGET_DIR, LLVM_OPENMP_DIR (an
# already built comparator folder, skips the build), LLVM_OPENMP_TAR (that folder already
# packed with `tar -cJf`, skips packing: xz of its ~180 MB takes minutes; `none`: no comparator
# in this run: the bundle is then ~15 MB instead of ~60 MB, and the ratios use LLVM_JSONL, a
# stored comparator run, default the one of bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1),
# OLD_CLI (an occupant binary to run beside this tree's: the old variant; none by default),
# FJ_OLD_REF (the git ref whose forkjoin.cuh the cost probe times as occ::fj_old; default main),
# FJ_PREV_REF (optional: one more ref's forkjoin.cuh, timed as occ::fj_prev).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-forkjoin}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
source scripts/gpu-bundle.sh
llvm="${LLVM_OPENMP_DIR:-$target/llvm-openmp}"
[[ "${LLVM_OPENMP_TAR:-}" == none || -x "$llvm/run.sh" ]] || bash scripts/build-llvm-openmp.sh "$llvm"
gpu_bundle "$dest" occupant --test gpu_forkjoin
git diff --quiet HEAD -- crates scripts || echo "dirty" >>"$dest/COMMIT"
if [[ -n "${OLD_CLI:-}" ]]; then
  cp "$OLD_CLI" "$dest/occupant-old"
  strip "$dest/occupant-old" 2>/dev/null || true
fi
if [[ "${LLVM_OPENMP_TAR:-}" != none ]]; then
  if [[ -n "${LLVM_OPENMP_TAR:-}" ]]; then
    cp "$LLVM_OPENMP_TAR" "$dest/llvm-openmp.tar.xz"
  else
    tar -C "$(dirname "$llvm")" -cJf "$dest/llvm-openmp.tar.xz" "$(basename "$llvm")"
  fi
  echo "$(basename "$llvm")" >"$dest/LLVM_DIR_NAME"
  cp "$llvm/run.sh" "$dest/llvm-run.sh"
  cp "$llvm/epcc_target" "$dest/llvm-epcc_target"
fi
# LLVM_JSONL: a stored comparator run (JSON lines), used for the ratios when the comparator is
# not in the bundle or did not run.
cp "${LLVM_JSONL:-bench/results/nvidia-h100/forkjoin/2026-11-23-i8-run1/logs/llvm-epcc_target.jsonl}" "$dest/llvm-stored.jsonl"
# The probes, built here: device headers as they are (occ::fj), the same with the master warp's
# lanes 1-31 exiting at once (occ::fj_x), FJ_OLD_REF's header (occ::fj_old) and that one with
# lanes 1-31 exiting (occ::fj_oldx).
dev="$dest/device"
mkdir -p "$dev"
cp crates/occupant/src/cuda/device/*.cuh "$dev/"
sed -e 's/^namespace fj {/namespace fj_x {/' -e 's/^}  \/\/ namespace fj$/}  \/\/ namespace fj_x/' \
  -e 's/detail::master_lanes(team, pool);//' "$dev/forkjoin.cuh" >"$dev/fj_x.cuh"
git show "${FJ_OLD_REF:-main}:crates/occupant/src/cuda/device/forkjoin.cuh" |
  sed -e 's/^namespace fj {/namespace fj_old {/' -e 's/^}  \/\/ namespace fj$/}  \/\/ namespace fj_old/' >"$dev/fj_old.cuh"
sed -e 's/namespace fj_old/namespace fj_oldx/' -e 's/detail::master_lanes([a-z.A-Z, ]*);//' \
  "$dev/fj_old.cuh" >"$dev/fj_oldx.cuh"
# FJ_PREV_REF (optional): one more header to time, as occ::fj_prev.
if [[ -n "${FJ_PREV_REF:-}" ]]; then
  git show "$FJ_PREV_REF:crates/occupant/src/cuda/device/forkjoin.cuh" |
    sed -e 's/^namespace fj {/namespace fj_prev {/' -e 's/^}  \/\/ namespace fj$/}  \/\/ namespace fj_prev/' >"$dev/fj_prev.cuh"
  grep -q "^namespace fj_prev {" "$dev/fj_prev.cuh" || { echo "fj_prev.cuh: namespace sed failed" >&2; exit 1; }
fi
for f in fj_x fj_old fj_oldx; do
  grep -q "^namespace $f {" "$dev/$f.cuh" && grep -q "// namespace $f\$" "$dev/$f.cuh" ||
    { echo "$f.cuh: namespace sed failed" >&2; exit 1; }
done
for f in fj_x fj_oldx; do
  grep -qE "^ +detail::master_lanes\(" "$dev/$f.cuh" && { echo "$f.cuh: lanes still follow" >&2; exit 1; }
done
nvcc_here=$(find "$root/.venv-nvrtc" -name nvcc -path '*bin*' | head -1)
export PATH="$(dirname "$nvcc_here"):$PATH"
nvcc -std=c++17 -arch=sm_90 -lineinfo -DFJ_OLD -DFJ_X ${FJ_PREV_REF:+-DFJ_PREV} -I"$dev" -o "$dest/probe" scripts/forkjoin-cost-probe.cu
nvcc -std=c++17 -arch=sm_90 -lineinfo -I"$dev" -o "$dest/rcprobe" scripts/forkjoin-racecheck-probe.cu
# PROBE2_DEFS (optional): macros (-DNAME=VALUE ...) for a second build of the cost probe, whose
# library rows (PROBE2_GROUPS, default "lib-fj:;lone-fj:") time the device library's protocol
# variants beside the first build's; its lines read "fjprobe v2:<variant> ...".
if [[ -n "${PROBE2_DEFS:-}" ]]; then
  # shellcheck disable=SC2086
  nvcc -std=c++17 -arch=sm_90 -lineinfo $PROBE2_DEFS -I"$dev" -o "$dest/probe2" scripts/forkjoin-cost-probe.cu
  strip "$dest/probe2" || true
  echo "$PROBE2_DEFS" >"$dest/probe2-defs.txt"
  echo "${PROBE2_GROUPS:-lib-fj:;lone-fj:}" | tr ';' '\n' >"$dest/probe2-groups.txt"
fi
strip "$dest/probe" "$dest/rcprobe" || true
rm -rf "$dev"
# LATE_S: steps that would start past this many seconds are skipped (default 180).
echo "${LATE_S:-180}" >"$dest/late-s.txt"
# BENCH_RUNS: the bench step's runs, "NAME EXTRA-ARGS" separated by ";" (old* runs use OLD_CLI).
echo "${BENCH_RUNS:-new;old;lone --lone-master;new2;old2}" | tr ';' '\n' >"$dest/bench-runs.txt"
# NESTED_RUNS: the nested step's runs, "NAME EXTRA-ARGS" separated by ";" (e.g. "new;w31
# --adaptive-warps 31").
echo "${NESTED_RUNS:-new;old}" | tr ';' '\n' >"$dest/nested-runs.txt"
# PROBE_GROUPS: the cost probe's groups of variants (substrings of their names), ";"-separated.
echo "${PROBE_GROUPS:-team_barrier;sync0+sync1/master-converged;arrive0+sync1/lanes-exit+slot;ladder;lib-fj:;lone-fj:;lib-fj_x:;lib-fj_prev:;lib-fj_old:;lib-fj_oldx:}" |
  tr ';' '\n' >"$dest/probe-groups.txt"
# RC_DEFAULT: 0 skips racecheck of the racecheck probe's default mode (~10 s: it times 2000
# regions of 992 workers under the sanitizer).
echo "${RC_DEFAULT:-1}" >"$dest/rc-default.txt"
# RC_JOBS: the racecheck probe's epcc runs, "MASK:W[:REPS]" separated by spaces.
echo "${RC_JOBS:-0:2 31:2 1:2 2:2 4:2 8:2 16:2 0:31 31:31 8:31}" >"$dest/rc-jobs.txt"
echo "${SAN_DEFINES:-}" >"$dest/san-defines.txt"
# SAN_JOBS: the sanitizer runs, TOOL:WHAT separated by spaces (WHAT forkjoin-v / lone-v: the
# EPCC bench with SAN_DEFINES).
echo "${SAN_JOBS:-racecheck:forkjoin racecheck:lone racecheck:semantics racecheck:semlone racecheck:nested synccheck:forkjoin synccheck:lone synccheck:semantics synccheck:semlone synccheck:nested}" >"$dest/san-jobs.txt"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-forkjoin.sh). Writes $OUT/results.tar.gz and
# $OUT/summary.txt only.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
steps="${*:-tests llvm bench probe rcprobe sanitize nested}"
t_start=$(date +%s)
late_s=$(cat "$here/late-s.txt")
late() { # late NAME: true (and noted) once the run is past late_s (default 180) seconds
  if (($(date +%s) - t_start > late_s)); then echo "skipped $1: past $late_s s" >>"$sum"; return 0; fi
  return 1
}
llvm_ok=""
for s in $steps; do
  late "$s" && continue
  case $s in
    tests)
      step test-gpu_forkjoin 60 "$here/test-occupant-gpu_forkjoin" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked" "$res/test-gpu_forkjoin.log" >>"$sum" ;;
    probe)
      # One process per group of variants (a group that hangs loses only itself).
      while read -r f; do
        [[ -z "$f" ]] && continue
        timeout -k 2 15 "$here/probe" "$f" >>"$res/probe-run.log" 2>&1 || echo "variant $f: rc $?" >>"$res/probe-run.log"
      done <"$here/probe-groups.txt"
      if [[ -x "$here/probe2" ]]; then
        echo "probe2: $(cat "$here/probe2-defs.txt")" >>"$res/probe-run.log"
        while read -r f; do
          [[ -z "$f" ]] && continue
          timeout -k 2 15 "$here/probe2" "$f" 2>&1 | sed 's/^fjprobe /fjprobe v2:/' >>"$res/probe-run.log" || echo "variant v2:$f: rc $?" >>"$res/probe-run.log"
        done <"$here/probe2-groups.txt"
      fi
      grep -E "^fjprobe|^variant|^probe2" "$res/probe-run.log" | sed 's/ ref_per_delay=[0-9. ]*//' >>"$sum"
      tar -C "$res" -czf "$out/results.tar.gz" . ;;
    rcprobe)
      step rcprobe-run 20 "$here/rcprobe"
      cat "$res/rcprobe-run.log" >>"$sum"
      if [[ $(cat "$here/rc-default.txt") == 1 ]]; then
        step rcprobe-racecheck 40 compute-sanitizer --tool racecheck "$here/rcprobe"
        grep -E "RACECHECK SUMMARY|Race reported|probe:" "$res/rcprobe-racecheck.log" | head -6 >>"$sum"
      fi
      # Which construct before the back-to-back reductions makes racecheck report the partials.
      for job in $(cat "$here/rc-jobs.txt"); do
        IFS=: read -r mask w reps <<<"$job"
        reps=${reps:-10}
        late "rcprobe-epcc-$mask-$w-$reps" && break
        step "rcprobe-epcc-$mask-$w-$reps" 30 compute-sanitizer --tool racecheck "$here/rcprobe" epcc "$mask" "$w" "$reps" 100
        grep -E "RACECHECK SUMMARY|probe:" "$res/rcprobe-epcc-$mask-$w-$reps.log" | head -3 >>"$sum"
      done ;;
    llvm)
      [[ -f "$here/llvm-openmp.tar.xz" ]] || { echo "llvm: no comparator in the bundle" >>"$sum"; continue; }
      lt=$(mktemp -d)
      tar -C "$lt" -xJf "$here/llvm-openmp.tar.xz"
      ld="$lt/$(cat "$here/LLVM_DIR_NAME")"
      for f in run.sh epcc_target; do
        [[ -f "$here/llvm-$f" ]] && cp "$here/llvm-$f" "$ld/$f" && chmod +x "$ld/$f"
      done
      step llvm-epcc_target 60 env LLVM_EPCC_BIN=epcc_target bash -c "'$ld/run.sh' 1000 100 5 >'$res/llvm-epcc_target.jsonl'"
      head -c 600 "$res/llvm-epcc_target.log" >>"$sum"; wc -l "$res/llvm-epcc_target.jsonl" >>"$sum"
      grep -q '"threads_seen": [1-9]' "$res/llvm-epcc_target.jsonl" && llvm_ok="$res/llvm-epcc_target.jsonl"
      rm -rf "$lt" ;;
    bench)
      # Without the comparator in this run, the stored comparator run carried in the bundle.
      [[ -z "$llvm_ok" ]] && llvm_ok="$here/llvm-stored.jsonl"
      echo "llvm comparator used: $llvm_ok" >>"$sum"
      # bench-runs.txt: one run a line, "NAME EXTRA-ARGS..." (old* runs use the old binary).
      while read -r r rest; do
        [[ -z "$r" ]] && continue
        exe="$here/occupant"
        read -r -a extra <<<"$rest"
        [[ $r == old* ]] && exe="$here/occupant-old"
        [[ -x "$exe" ]] || continue
        late "bench-forkjoin-$r" && break
        step "bench-forkjoin-$r" 60 "$exe" bench forkjoin --backend cuda --out "$res/forkjoin-$r" --llvm "$llvm_ok" "${extra[@]}"
        echo "-- $r" >>"$sum"
        cat "$res/bench-forkjoin-$r.log" >>"$sum"
      done <"$here/bench-runs.txt" ;;
    nested)
      # nested-runs.txt: one run a line, "NAME EXTRA-ARGS..." (old* runs use the old binary).
      while read -r r rest; do
        [[ -z "$r" ]] && continue
        read -r -a extra <<<"$rest"
        exe="$here/occupant"; [[ $r == old* ]] && exe="$here/occupant-old"
        [[ -x "$exe" ]] || continue
        late "bench-nested-$r" && break
        step "bench-nested-$r" 60 "$exe" bench nested --out "$res/nested-$r" "${extra[@]}"
        echo "-- $r" >>"$sum"
        cat "$res/bench-nested-$r.log" >>"$sum"
      done <"$here/nested-runs.txt" ;;
    sanitize)
      for job in $(cat "$here/san-jobs.txt"); do
        tool=${job%%:*} what=${job#*:}
        late "sanitizer-$tool-$what" && break
        case $what in
          forkjoin) cmd=("$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 --out "$res/sanitizer-$tool") ;;
          lone) cmd=("$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 --lone-master --out "$res/sanitizer-$tool-lone") ;;
          nested) cmd=("$here/occupant" bench nested --small --reps 1 --out "$res/sanitizer-$tool") ;;
          # SAN_DEFINES: the EPCC bench compiled with these --define arguments (a variant).
          forkjoin-v) read -r -a vdefs <"$here/san-defines.txt"
            cmd=("$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 "${vdefs[@]}" --out "$res/sanitizer-$tool-v") ;;
          lone-v) read -r -a vdefs <"$here/san-defines.txt"
            cmd=("$here/occupant" bench forkjoin --backend cuda --reps 10 --rounds 1 --workers 64,96,992 --lone-master "${vdefs[@]}" --out "$res/sanitizer-$tool-lone-v") ;;
          semantics) cmd=("$here/test-occupant-gpu_forkjoin" --exact semantics_match_the_cpu_twin --test-threads=1) ;;
          semlone) cmd=("$here/test-occupant-gpu_forkjoin" --exact semantics_match_the_cpu_twin_with_a_one_thread_master_warp --test-threads=1) ;;
          semvar) cmd=("$here/test-occupant-gpu_forkjoin" --exact semantics_match_the_cpu_twin_under_the_protocol_variants --test-threads=1) ;;
          desc) cmd=("$here/test-occupant-gpu_forkjoin" --exact repeated_and_alternating_descriptors_run_the_right_region --test-threads=1) ;;
        esac
        step "sanitizer-$tool-$what" 45 compute-sanitizer --tool $tool "${cmd[@]}"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|rror|test result" "$res/sanitizer-$tool-$what.log" | head -8 >>"$sum"
      done ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
echo "total $(($(date +%s) - t_start)) s" >>"$sum"
tar -C "$res" -czf "$out/results.tar.gz" .
rm -rf "$res"
cat "$sum"
RUN
chmod +x "$dest/run.sh"
# PACK_BIN=1: the executables go into one bin.tar.xz (with the LLVM tarball the bundle must
# stay under the 64 MiB carry limit, which counts the ~14 MB tracked tree too); go.sh unpacks
# them on the device and runs run.sh: `bash .gpu-forkjoin/go.sh [steps...]`.
if [[ "${PACK_BIN:-0}" == 1 ]]; then
  rm -f "$dest/rcprobe"
  bins=()
  for f in occupant occupant-old probe probe2 test-occupant-gpu_forkjoin; do
    [[ -f "$dest/$f" ]] && bins+=("$f")
  done
  tar -C "$dest" -cJf "$dest/bin.tar.xz" "${bins[@]}"
  (cd "$dest" && rm -f "${bins[@]}")
  cat >"$dest/go.sh" <<'GO'
#!/usr/bin/env bash
# Unpacks the executables (packed to fit the carry limit), then runs run.sh with the arguments.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tar -C "$here" -xJf "$here/bin.tar.xz" || { mkdir -p "${OUT:-/tmp/occupant-out}"; echo "unpack failed" >"${OUT:-/tmp/occupant-out}/summary.txt"; exit 1; }
exec bash "$here/run.sh" "$@"
GO
  chmod +x "$dest/go.sh"
fi
du -sh "$dest"
ls -la "$dest"
