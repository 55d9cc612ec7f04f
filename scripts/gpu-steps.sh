# Sourced by a GPU bundle's run.sh on the device machine (copied there as steps.sh by
# scripts/gpu-bundle.sh): the environment every GPU step runs in and `step`, which runs one
# step under a time limit, logs it and packs the results after it, so that a run cut short
# still brings back what it finished.
#
# Sets: here (the bundle), out ($OUT), res (results folder), sum (summary file), status
# (1 once a step failed).
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="${RES_DIR:-$out/res}"
sum="$out/summary.txt"
status=0
mkdir -p "$res"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
export OCCUPANT_COMMIT="$(cat "$here/COMMIT")"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1

# step NAME LIMIT_S COMMAND...: output in $res/NAME.log, "rc N, S s" in the summary.
step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  echo "== $name ($(date +%T))" | tee -a "$sum"
  t0=$(date +%s)
  timeout -k 5 "$limit" "$@" >"$res/$name.log" 2>&1
  rc=$?
  echo "rc $rc, $(($(date +%s) - t0)) s" >>"$sum"
  [[ $rc == 0 ]] || status=1
  tar -C "$res" -czf "$out/results.tar.gz" .
}

# sanitize_smoke LIMIT_S EXE TEST: compute-sanitizer racecheck and synccheck, one step each
# (sanitizer-racecheck, sanitizer-synccheck), on the one test TEST of the test executable EXE;
# their summaries go into the summary file.
sanitize_smoke() {
  local limit=$1 exe=$2 test=$3 tool
  for tool in racecheck synccheck; do
    step "sanitizer-$tool" "$limit" compute-sanitizer --tool $tool "$exe" --exact "$test" --test-threads=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|test result" "$res/sanitizer-$tool.log" | head -10 >>"$sum"
  done
}
