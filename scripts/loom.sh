#!/usr/bin/env bash
# Model-checks the CPU algorithms with loom: every crates/occupant/tests/loom_*.rs file.
# Uses its own target directory so the cfg(loom) build does not invalidate the normal one.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${LOOM_TARGET_DIR:-$PWD/target/loom}"
# Each model sets its own preemption bound (loom::model::Builder) in the test file.
export RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}"
exec cargo test -p occupant --release --test 'loom_*' -- "$@"
