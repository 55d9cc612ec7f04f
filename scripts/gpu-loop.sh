#!/usr/bin/env bash
# The GPU test loop, step 1 (here, no GPU needed): build the CLI and the test executables in
# release mode and copy them, stripped, with a runner script into a git-ignored folder that the
# device machine's `run` call carries. Step 2 is the `run` call (see docs/GPU-LOOP.md):
#
#   carry: [".gpu"]      command: bash .gpu/run.sh
#
# On the device, run.sh runs every test executable with OCCUPANT_REQUIRE_GPU=1 (GPU tests fail
# instead of skipping), then `occupant info` and `occupant bench launch`, and leaves under $OUT:
# info.txt, tests.log, bench-launch.json and one JSON per GPU test that records figures.
#
# Environment:
#   GPU_DIR       destination folder (default: <repo>/.gpu). It must be git-ignored in the
#                 checkout that the device tool sends (e.g. /work/main/.gpu-cuda).
#   GPU_PACKAGES  packages to build (default: occupant occupant-cli).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${GPU_DIR:-$root/.gpu}"
packages=(${GPU_PACKAGES:-occupant occupant-cli})
pkg_args=()
for p in "${packages[@]}"; do pkg_args+=(-p "$p"); done
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

cargo build --release -p occupant-cli
exes=$(cargo test --release --no-run "${pkg_args[@]}" --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        crate = m["package_id"].split("#")[0].rstrip("/").split("/")[-1].split("@")[0]
        print(m["executable"], "test-" + crate + "-" + m["target"]["name"])
')
rm -rf "$dest"
mkdir -p "$dest"
cp "$target/release/occupant" "$dest/occupant"
while read -r exe name; do
  [[ -n "$exe" ]] && cp "$exe" "$dest/$name"
done <<<"$exes"
for f in "$dest"/*; do strip --strip-debug "$f" 2>/dev/null || true; done
git rev-parse HEAD >"$dest/COMMIT"
cat >"$dest/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the device machine (made by scripts/gpu-loop.sh). Writes results under $OUT.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-/tmp/occupant-out}"
mkdir -p "$out"
export OCCUPANT_REQUIRE_GPU=1 OCCUPANT_REQUIRE_NVRTC=1 OCCUPANT_RESULTS_DIR="$out"
export OCCUPANT_COMMIT="$(cat "$here/COMMIT")" OCCUPANT_CACHE_DIR="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$out/info.txt" 2>&1
"$here/occupant" info >>"$out/info.txt" 2>&1
status=0
for t in "$here"/test-*; do
  echo "== $(basename "$t")" >>"$out/tests.log"
  timeout 300 "$t" --test-threads=1 >>"$out/tests.log" 2>&1 || { echo "FAILED: $t" | tee -a "$out/tests.log"; status=1; }
done
grep -E "^test result|FAILED|panicked" "$out/tests.log"
timeout 300 "$here/occupant" bench launch --backend cuda --json "$out/bench-launch.json" || status=1
exit $status
RUN
chmod +x "$dest/run.sh"
du -sh "$dest"
ls -1 "$dest"
