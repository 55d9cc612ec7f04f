#!/usr/bin/env bash
# Model-checks every algorithm of occupant::cpu::sync with loom (crates/occupant/tests/loom_sync.rs).
# Uses its own target directory so the cfg(loom) build does not invalidate the normal one.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${LOOM_TARGET_DIR:-$PWD/target/loom}"
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}"
exec cargo test -p occupant --release --test loom_sync -- "$@"
