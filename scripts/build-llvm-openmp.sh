#!/usr/bin/env bash
# Builds the LLVM OpenMP offload comparator of `occupant bench forkjoin`
# (bench/llvm-openmp/epcc_target.cpp) for sm_90 and packs it, with the libomptarget runtime
# and the libraries it needs, into a folder that can be carried to a GPU machine without LLVM.
#
#   scripts/build-llvm-openmp.sh [OUT_DIR]      (default: target/llvm-openmp)
#
# Needs (installed here if missing): Debian's clang-19 + libomp-19-dev (libomptarget and the
# sm_90 device runtime libomptarget-nvptx-sm_90.bc), and from PyPI `nvidia-cuda-nvcc-cu12`
# 12.6 (ptxas: LLVM 19 emits PTX 8.5, so ptxas >= 12.5) and `nvidia-cuda-nvcc` 13 (nvlink,
# which the 12.x wheel lacks; clang-nvlink-wrapper links two cubins with it).
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
if [ ! -x "$TOOLS/venv13/bin/python" ]; then
  python3 -m venv "$TOOLS/venv13" && "$TOOLS/venv13/bin/pip" install -q "nvidia-cuda-nvcc"
fi
N12=$(ls -d "$TOOLS"/venv12/lib/python3*/site-packages/nvidia/cuda_nvcc)
N13=$(ls -d "$TOOLS"/venv13/lib/python3*/site-packages/nvidia/cu13)
CUDA="$TOOLS/cuda"
mkdir -p "$CUDA/bin" "$CUDA/nvvm/libdevice" "$CUDA/include"
ln -sf "$N12/bin/ptxas" "$CUDA/bin/ptxas"
ln -sf "$N13/bin/nvlink" "$CUDA/bin/nvlink"
ln -sf "$N12/nvvm/libdevice/libdevice.10.bc" "$CUDA/nvvm/libdevice/libdevice.10.bc"
echo "CUDA Version 12.6.0" > "$CUDA/version.txt"

PATH="$CUDA/bin:$PATH" clang-19 -O3 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda \
  --offload-arch=sm_90 --cuda-path="$CUDA" \
  --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc \
  "$ROOT/bench/llvm-openmp/epcc_target.cpp" -o "$OUT/epcc_target"

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
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=$(mktemp -d)
CUDA1=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
[ -n "$CUDA1" ] && ln -sf "$CUDA1" "$SHIM/libcuda.so"
export LD_LIBRARY_PATH="$HERE/lib:$SHIM${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$HERE/epcc_target" "$@"
RUN
chmod +x "$OUT/run.sh"
du -sh "$OUT"
