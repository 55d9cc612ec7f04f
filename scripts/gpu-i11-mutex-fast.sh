#!/usr/bin/env bash
# The GPU loop of issue 11 part 3 (a mutex past 2 Mops/s): step 1 here builds the CLI and the
# GPU test executables (release, stripped) into a git-ignored folder with a runner. Step 2, one
# device `run`:
#   carry: [".gpu-i11-mutex-fast"]   command: bash .gpu-i11-mutex-fast/run.sh [steps...]
# Steps (default: combining sync sanitizer sanitizer-sync primitives lab, in this order; each
# under its own `timeout`, 15+20+10+10+150+30 = 235 s at most):
# combining (the combining lock's exact counters, free queue after), sync (every mutex kind's
# exact counter at full occupancy), sanitizer / sanitizer-sync (racecheck / synccheck on
# combining_sanitizer_smoke), costs (tests/gpu_mutex_lab.rs: what a pair is made
# of), primitives (`occupant bench primitives --backend cuda --no-semaphores`: every mutex kind
# at 1 ... full occupancy, the barrier part with ROUNDS=2000 rounds only to keep it short), lab
# (every lab design at every contention, exact counters).
# Results: $OUT/results.tar.gz (what goes under bench/results/<gpu>/i11-primitives/<run>/) and
# $OUT/summary.txt.
# Environment: GPU_DIR (default <repo>/.gpu-i11-mutex-fast), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-i11-mutex-fast}"
cd "$root"
source scripts/gpu-bundle.sh
gpu_bundle "$dest" occupant --test gpu_combining_mutex --test gpu_sync --test gpu_mutex_lab
git -C "$root" status --short >"$dest/STATUS"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
cp "$here/STATUS" "$res/STATUS"
steps="${*:-combining sync sanitizer sanitizer-sync primitives lab}"
for s in $steps; do
  case $s in
    combining) step test-gpu_combining_mutex 15 "$here/test-occupant-gpu_combining_mutex" --test-threads=1 --nocapture
      grep -E "^test |test result|panicked|Mops" "$res/test-gpu_combining_mutex.log" | head -20 >>"$sum" ;;
    sync) step test-gpu_sync-mutexes 20 "$here/test-occupant-gpu_sync" --exact mutexes_count_every_acquisition --nocapture
      grep -E "^test |test result|panicked|counter" "$res/test-gpu_sync-mutexes.log" | head -20 >>"$sum" ;;
    sanitizer|sanitizer-sync)
      tool=racecheck; [[ $s == sanitizer-sync ]] && tool=synccheck
      step "sanitizer-$tool" 10 compute-sanitizer --tool $tool "$here/test-occupant-gpu_combining_mutex" --exact combining_sanitizer_smoke --test-threads=1
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|test result" "$res/sanitizer-$tool.log" | head -10 >>"$sum" ;;
    costs) step mutex-lab-costs 20 "$here/test-occupant-gpu_mutex_lab" --exact mutex_lab_costs --nocapture
      grep -E "ns  |round trip by line|^run" "$res/mutex-lab-costs.log" | head -50 >>"$sum" ;;
    lab) step mutex-lab 30 "$here/test-occupant-gpu_mutex_lab" --exact mutex_lab_locks --nocapture
      grep -E "^  |test result|panicked|counter" "$res/mutex-lab.log" | head -60 >>"$sum" ;;
    primitives) step bench-primitives 150 "$here/occupant" bench primitives --backend cuda --out "$res" --no-semaphores --rounds ${ROUNDS:-2000} --ops ${OPS:-200000}
      sed -n '/^mutex throughput/,/^wrote/p' "$res/bench-primitives.log" | head -60 >>"$sum" ;;
    *) echo "unknown step $s" | tee -a "$sum" ;;
  esac
done
tar -C "$res" -czf "$out/results.tar.gz" .
cat "$sum"
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
