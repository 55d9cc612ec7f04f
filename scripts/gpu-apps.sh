#!/usr/bin/env bash
# The GPU loop of the graph applications (issue 10), step 1 (here, no GPU needed): build the CLI
# and the apps' GPU test executables in release mode and copy them, stripped, with a runner into
# a git-ignored folder that the device tool carries. Step 2 is one device `run` call:
#
#   carry: [".gpu-apps"]      command: bash .gpu-apps/run.sh quick|full|remedy      timeout_s: 480
#
#   quick   gpu_persistent + gpu_apps tests (OCCUPANT_REQUIRE_GPU=1) and `bench apps --quick --runs 3`
#   full    `bench apps --runs 10` (default barrier) and an atomic-barrier pass (persistent,
#           occupancy-api)
#   remedy  `bench apps --runs 10 --min-blocks-per-sm 8` (device-loop kernels at full occupancy;
#           the default since the graph-while change: `--min-blocks-per-sm 0` is the old build)
#   sanitize compute-sanitizer memcheck, racecheck and synccheck over every CUDA app kernel of
#           every variant: `bench apps --runs 1` on a small R-MAT (scale 11, vertices of degree
#           > 256, so the heavy-vertex path runs too)
#   loop    the graph-while change's run: the GPU tests, `bench apps --runs 5` for bfs, sssp,
#           cc, pagerank on the four inputs with every variant, pagerank on BA-4M with the
#           device-loop kernels at 0 (no launch bounds) and 6 blocks per SM, then sanitize
#           (each step bounded; about 4 minutes in all: timeout_s 420)
#   while   the GPU tests, bfs/sssp/cc with graph and graph-while, pagerank with every variant,
#           then sanitize
# Any mode may be followed by more: `run.sh quick sanitize`.
# Results: $OUT/results.tar.gz (what goes under bench/results/<gpu>/apps/) and $OUT/summary.txt.
# The device tool returns at most a few files: everything is packed into the tarball.
#
# Environment: GPU_DIR (default <repo>/.gpu-apps; must be git-ignored where the device tool
# copies from), CARGO_TARGET_DIR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu-apps}"
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"

cargo build --release -p occupant-cli
exe() { # crate test -> path of the release test executable
  cargo test --release --no-run -p "$1" --test "$2" --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    try: m=json.loads(l)
    except ValueError: continue
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' | tail -1
}
rm -rf "$dest"
mkdir -p "$dest"
cp "$target/release/occupant" "$dest/occupant"
cp "$(exe occupant gpu_persistent)" "$dest/test-gpu_persistent"
cp "$(exe occupant-apps gpu_apps)" "$dest/test-gpu_apps"
for f in "$dest"/*; do strip --strip-debug "$f" 2>/dev/null || true; done
git rev-parse HEAD >"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
res="/tmp/occupant-apps-res"
mkdir -p "$res" "$out"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$res"
export OCCUPANT_MACHINE_DIR="$res/machine" OCCUPANT_CACHE_DIR="$(mktemp -d)"
cp "$here/COMMIT" "$res/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$res/nvidia-smi.txt" 2>&1
sum="$out/summary.txt"
step() { local name=$1 limit=$2; shift 2
  echo "== $name ($(date +%T))" | tee -a "$sum"
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$res/$name.log" 2>&1
  echo "rc $?, $(( $(date +%s) - t0 )) s" | tee -a "$sum"
  grep -vE "^\[" "$res/$name.log" | tail -40 >>"$sum"
  tar czf "$out/results.tar.gz" -C "$res" . # after every step: a run cut short keeps the rest
}
sanitize() { # every app, every variant, a small R-MAT with vertices of degree > 256 (racecheck,
  # the slowest, on a smaller one). API errors are not reported: occupant probes optional module
  # globals (cuModuleGetGlobal: not found) and kernel parameters (cuFuncGetParamInfo past the last).
  for tool in memcheck synccheck racecheck; do
    local spec=rmat:scale=11,ef=16,seed=1
    [ "$tool" = racecheck ] && spec=rmat:scale=8,ef=16,seed=1
    step "sanitizer-$tool" 100 compute-sanitizer --tool "$tool" --report-api-errors no \
      --error-exitcode 9 "$here/occupant" bench apps --runs 1 --input "$spec@low-diameter" \
      --out "$res/sanitizer-$tool"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|Invalid|failed|error" \
      "$res/sanitizer-$tool.log" | head -12 >>"$sum"
  done
}
for mode in "${@:-quick}"; do
case "$mode" in
  sanitize) sanitize ;;
  loop)
    step gpu_persistent 60 "$here/test-gpu_persistent" --test-threads=1 --nocapture
    step gpu_apps 90 "$here/test-gpu_apps" --test-threads=1 --nocapture
    step bench-loop 180 "$here/occupant" bench apps --runs 5 --apps bfs,sssp,cc,pagerank \
      --out "$res/apps-loop"
    for k in 0 6; do
      step "bench-pagerank-ba-min-blocks-$k" 40 "$here/occupant" bench apps --runs 5 \
        --apps pagerank --input ba:n=4000000,m=4,seed=1@low-diameter \
        --variants persistent,occupancy-api,cooperative --min-blocks-per-sm "$k" \
        --out "$res/pagerank-ba-min-blocks-$k"
    done
    sanitize ;;
  while)  # after the graph-while unrolling and pagerank's tile counters: what they changed
    step gpu_persistent 60 "$here/test-gpu_persistent" --test-threads=1 --nocapture
    step gpu_apps 90 "$here/test-gpu_apps" --test-threads=1 --nocapture
    step bench-while 150 "$here/occupant" bench apps --runs 5 --apps bfs,sssp,cc \
      --variants graph,graph-while --out "$res/apps-while"
    step bench-pagerank 60 "$here/occupant" bench apps --runs 5 --apps pagerank \
      --out "$res/apps-pagerank"
    sanitize ;;
  quick)
    step gpu_persistent 60 "$here/test-gpu_persistent" --test-threads=1 --nocapture
    step gpu_apps 120 "$here/test-gpu_apps" --test-threads=1 --nocapture
    step bench-quick 90 "$here/occupant" bench apps --quick --runs 3 --out "$res/quick" ;;
  full)
    step bench-full 330 "$here/occupant" bench apps --runs 10 --out "$res/apps"
    step bench-atomic 140 "$here/occupant" bench apps --runs 10 --no-verify --barrier atomic \
      --variants persistent,occupancy-api --out "$res/apps-atomic" ;;
  remedy)
    step bench-remedy 330 "$here/occupant" bench apps --runs 10 --min-blocks-per-sm 8 \
      --out "$res/apps-min-blocks-8" ;;
  *) echo "unknown mode $mode" | tee -a "$sum" ;;
esac
done
tar czf "$out/results.tar.gz" -C "$res" .
RUN
du -sh "$dest"
