#!/usr/bin/env bash
# The test command: sets up NVRTC (from PyPI, so device code is compiled without a GPU),
# then runs the whole test suite and the loom model checks.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -x scripts/setup-nvrtc.sh ]; then
  if nvrtc_dir=$(bash scripts/setup-nvrtc.sh); then
    export LD_LIBRARY_PATH="${nvrtc_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  else
    echo "warning: NVRTC could not be installed; device-code compile tests will skip" >&2
  fi
fi

cargo test --workspace

if [ -x scripts/loom.sh ]; then
  bash scripts/loom.sh
fi
