# Sourced by the GPU loop scripts (scripts/gpu-loop.sh, gpu-i11*.sh), step 1, here: build the CLI
# and release test executables and copy them, stripped, with the commit id and the device-side
# step helpers (scripts/gpu-steps.sh, as steps.sh) into a bundle folder that a device `run`
# carries. See docs/GPU-LOOP.md.
#
#   gpu_bundle DEST PACKAGE [--test NAME ...] [-- PACKAGE [--test NAME ...] ...]
#
# With no --test, every test executable of the package. Each executable is copied as
# test-<package>-<target> (e.g. test-occupant-gpu_sync).
gpu_bundle() {
  local dest=$1
  shift
  local root target
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  target="${CARGO_TARGET_DIR:-$root/target}"
  (cd "$root" && cargo build --release -p occupant-cli)
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$target/release/occupant" "$dest/occupant"
  while (($#)); do
    local args=(-p "$1")
    shift
    while (($#)) && [[ $1 != -- ]]; do
      args+=("$1")
      shift
    done
    (($#)) && shift
    (cd "$root" && cargo test --release --no-run "${args[@]}" --message-format=json 2>/dev/null) |
      python3 -c '
import json, sys
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        crate = m["package_id"].split("#")[0].rstrip("/").split("/")[-1].split("@")[0]
        print(m["executable"], crate, m["target"]["name"])
' | while read -r exe crate name; do
        cp "$exe" "$dest/test-$crate-$name"
      done
  done
  for f in "$dest"/*; do strip --strip-debug "$f" 2>/dev/null || true; done
  git -C "$root" rev-parse HEAD >"$dest/COMMIT"
  cp "$root/scripts/gpu-steps.sh" "$dest/steps.sh"
}
