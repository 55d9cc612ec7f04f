#!/usr/bin/env bash
# Builds the LLVM OpenMP offload comparator of `occupant bench forkjoin`
# (bench/llvm-openmp/epcc_target.cpp) for sm_90 and packs it, with the libomptarget runtime
# and the libraries it needs, into a folder that can be carried to a GPU machine without LLVM.
#
#   scripts/build-llvm-openmp.sh [OUT_DIR]      (default: target/llvm-openmp)
#
# Needs (installed here if missing): Debian's clang-19 + libomp-19-dev (libomptarget and the
# sm_90 device runtime libomptarget-nvptx-sm_90.bc), and from PyPI `nvidia-cuda-nvcc-cu12`
# 12.6 (ptxas: LLVM 19 emits PTX 8.5, so ptxas >= 12.5). No nvlink: CUDA 13's nvlink (the
# only one on PyPI) writes the CUDA 13 ELF layout, which LLVM 19's libomptarget misreads ("No
# images found compatible with the installed hardware"). Instead the device code is built with
# offload LTO (-foffload-lto: the device runtime is bitcode, so the whole device program is one
# PTX module) and two small shims stand in for the CUDA tools: `ptxas` runs ptxas 12.x as asked
# and keeps the PTX; `nvlink` (called by clang-nvlink-wrapper with that one relocatable cubin)
# compiles the kept PTX again without -c into the final image (CUDA 12 layout, ET_EXEC).
# On the GPU machine: `OUT_DIR/run.sh [reps] [delay] [rounds]` (sets LD_LIBRARY_PATH and the
# `libcuda.so` name that libomptarget dlopens, which a driver-only machine has only as
# libcuda.so.1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/target/llvm-openmp}
TOOLS=${LLVM_OPENMP_TOOLS:-$ROOT/target/llvm-openmp-tools}
mkdir -p "$OUT/lib" "$TOOLS"

if ! command -v clang-19 >/dev/null || [ ! -f /usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc ]; then
  apt-get update -qq && apt-get install -y -qq clang-19 libomp-19-dev
fi
if [ ! -x "$TOOLS/venv12/bin/python" ]; then
  python3 -m venv "$TOOLS/venv12" && "$TOOLS/venv12/bin/pip" install -q "nvidia-cuda-nvcc-cu12==12.6.*"
fi
N12=$(ls -d "$TOOLS"/venv12/lib/python3*/site-packages/nvidia/cuda_nvcc)
CUDA="$TOOLS/cuda"
mkdir -p "$CUDA/bin" "$CUDA/nvvm/libdevice" "$CUDA/include"
ln -sf "$N12/bin/ptxas" "$CUDA/bin/ptxas.real"
rm -f "$CUDA/bin/ptxas" "$CUDA/bin/nvlink"
cat > "$CUDA/bin/ptxas" <<'SHIM'
#!/bin/sh
# ptxas 12.x as asked (relocatable, -c); keeps a copy of the PTX for the nvlink shim.
real=$(dirname "$0")/ptxas.real
ptx=""
for a in "$@"; do
  case "$a" in *.s|*.ptx) ptx="$a";; esac
done
"$real" "$@" || exit $?
[ -n "$ptx" ] && cp "$ptx" "${SHIM_PTX:?}"
exit 0
SHIM
cat > "$CUDA/bin/nvlink" <<'SHIM'
#!/bin/sh
# One relocatable cubin in (offload LTO: one whole device program): compiles the PTX that the
# ptxas shim kept again, without -c, into the final image (CUDA 12 ELF layout).
real=$(dirname "$0")/ptxas.real
out=""; arch=sm_90; ins=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    -arch) arch="$2"; shift 2;;
    -L) shift 2;;
    -*) shift;;
    *) ins="$ins $1"; shift;;
  esac
done
set -- $ins
[ $# -eq 1 ] || { echo "nvlink shim: expected one cubin, got:$ins" >&2; exit 1; }
[ -f "${SHIM_PTX:?}" ] || { echo "nvlink shim: no PTX kept for $1" >&2; exit 1; }
exec "$real" -m64 -O3 --gpu-name "$arch" --output-file "$out" "$SHIM_PTX"
SHIM
chmod +x "$CUDA/bin/ptxas" "$CUDA/bin/nvlink"
ln -sf "$N12/nvvm/libdevice/libdevice.10.bc" "$CUDA/nvvm/libdevice/libdevice.10.bc"
echo "CUDA Version 12.6.0" > "$CUDA/version.txt"

SHIM_PTX=$(mktemp --suffix=.ptx) PATH="$CUDA/bin:$PATH" clang-19 -O3 -fopenmp \
  -fopenmp-targets=nvptx64-nvidia-cuda --offload-arch=sm_90 -foffload-lto --cuda-path="$CUDA" \
  "$ROOT/bench/llvm-openmp/epcc_target.cpp" -o "$OUT/epcc_target"
# The same program with the device code kept as LLVM bitcode and compiled by libomptarget's JIT
# at run time (PTX handed to the driver): no nvlink/ptxas image, a fallback if the ahead-of-time
# image is refused ("No images found compatible with the installed hardware").
SHIM_PTX=$(mktemp --suffix=.ptx) PATH="$CUDA/bin:$PATH" clang-19 -O3 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda \
  --offload-arch=sm_90 -foffload-lto -fopenmp-target-jit --cuda-path="$CUDA" \
  "$ROOT/bench/llvm-openmp/epcc_target.cpp" -o "$OUT/epcc_target_jit"

# The host runtime and what it links (the GPU machine has no LLVM): libomptarget (its CUDA
# plugin is built in), libomp, libLLVM and libLLVM's own dependencies.
for f in /usr/lib/llvm-19/lib/libomptarget.so.19.1 /usr/lib/llvm-19/lib/libomp.so.5 \
         /usr/lib/llvm-19/lib/libLLVM.so.19.1; do
  cp -L "$f" "$OUT/lib/"
done
ldd /usr/lib/llvm-19/lib/libLLVM.so.19.1 | awk '/=> \//{print $3}' | while read -r f; do
  case "$(basename "$f")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|libz.so*|libzstd*|liblzma*|ld-linux*) ;;
    *) cp -L "$f" "$OUT/lib/" ;;
  esac
done
strip --strip-unneeded "$OUT"/lib/*.so* 2>/dev/null || true

cat > "$OUT/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the LLVM OpenMP comparator: JSON lines on stdout. Args: [reps] [delay] [rounds].
# LLVM_EPCC_BIN=epcc_target_jit picks the JIT build. OMP_TARGET_OFFLOAD=MANDATORY is set, so a
# missing GPU is an error (with libomptarget's reason), never a silent host fallback.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=$(mktemp -d)
# libomptarget dlopens "libcuda.so"; a driver-only machine has libcuda.so.1.
CUDA1=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}' || true)
if [ -z "$CUDA1" ]; then
  for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 \
           /usr/local/cuda/compat /usr/lib/wsl/lib; do
    if [ -e "$d/libcuda.so.1" ]; then CUDA1="$d/libcuda.so.1"; break; fi
  done
fi
[ -z "$CUDA1" ] && CUDA1=$(find / -xdev -name 'libcuda.so.1' 2>/dev/null | head -1)
echo "libcuda.so -> ${CUDA1:-not found}" >&2
[ -n "$CUDA1" ] && ln -sf "$CUDA1" "$SHIM/libcuda.so"
export LD_LIBRARY_PATH="$HERE/lib:$SHIM${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_TARGET_OFFLOAD=${OMP_TARGET_OFFLOAD:-MANDATORY}
exec "$HERE/${LLVM_EPCC_BIN:-epcc_target}" "$@"
RUN
chmod +x "$OUT/run.sh"
du -sh "$OUT"
