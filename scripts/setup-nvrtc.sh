#!/usr/bin/env bash
# Creates .venv-nvrtc (at the workspace root) holding NVRTC from PyPI, so that device code can be
# compiled on machines without a GPU or a CUDA toolkit (CI, laptops). Idempotent: a second run
# only prints the library directory. Prints that directory on its last line.
#
#   scripts/setup-nvrtc.sh            # NVRTC only
#   WITH_PTXAS=1 scripts/setup-nvrtc.sh   # also nvidia-cuda-nvcc (ptxas, for register/spill reports)
#
# NVRTC is pinned to 13.0.x: the GPU machines this project measures on ship NVRTC 13.0, which
# rejects code that later 13.x releases accept (generic lambdas at kernel scope,
# __builtin_offsetof). Compiling with the same release here makes CI catch that.
#
# Tests find the library by themselves under .venv-nvrtc (see crates/occupant/src/cuda/probe.rs);
# OCCUPANT_NVRTC_DIR=<dir> or LD_LIBRARY_PATH=<dir> point them elsewhere.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-nvrtc"
find_lib() { find "$venv" -name 'libnvrtc.so.1*' -path '*nvidia*' 2>/dev/null | grep -v builtins | head -n1; }
lib="$(find_lib || true)"
if [[ -z "$lib" ]]; then
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "nvidia-cuda-nvrtc==13.0.*"
  lib="$(find_lib)"
fi
if [[ "${WITH_PTXAS:-0}" == 1 ]] && ! find "$venv" -name ptxas -type f | grep -q .; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "nvidia-cuda-nvcc>=13,<14"
fi
[[ -n "$lib" ]] || { echo "setup-nvrtc: libnvrtc not found under $venv after install" >&2; exit 1; }
dirname "$lib"
