#!/usr/bin/env bash
# Builds the PoCL harness of `occupant bench cpu-vs-pocl`: bench/pocl/build.sh OUTPUT.
# Installs the Debian packages pocl-opencl-icd, ocl-icd-opencl-dev and opencl-headers with
# apt-get if they are missing (needs root or sudo), then compiles harness.c with gcc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUTPUT}"
missing=()
for p in pocl-opencl-icd ocl-icd-opencl-dev opencl-headers; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing ${missing[*]} with apt-get" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=199309L -Wall -o "$out" "$here/harness.c" -lOpenCL
