// The comparator: cooperative_groups' grid.sync() under a cooperative launch (not ours).
//
// NVRTC ships no CUDA toolkit headers, so this file reproduces, instruction for instruction,
// what `cooperative_groups::this_grid().sync()` inlines on sm_70+ (CUDA 13:
// cooperative_groups/details/driver_abi.h get_grid_workspace() and details/sync.h sync_grids()):
// the driver's grid workspace address is read from %envreg1/%envreg2 (set only under
// cuLaunchCooperativeKernel); its `barrier` word is a counter whose bit 31 flips once per
// barrier: __syncthreads; thread 0: atom.add.release.gpu(barrier, 1 or, in block 0,
// 0x80000000 - (blocks - 1)); poll ld.acquire.gpu until bit 31 differs; __syncthreads.
// times[2b], times[2b+1]: %globaltimer around `rounds` grid syncs in block b.
#include <occupant.cuh>

namespace {

__device__ __forceinline__ unsigned* grid_barrier_word() {
  unsigned lo, hi;
  asm("mov.u32 %0, %%envreg1;" : "=r"(lo));
  asm("mov.u32 %0, %%envreg2;" : "=r"(hi));
  // struct grid_workspace { unsigned wsSize; unsigned barrier; }
  return reinterpret_cast<unsigned*>(((unsigned long long)hi << 32 | lo) + 4u);
}

__device__ __forceinline__ void grid_sync(unsigned* arrived) {
  __syncthreads();
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0u) {
    const unsigned expected = gridDim.x * gridDim.y * gridDim.z;
    const bool gpu_master = blockIdx.x + blockIdx.y + blockIdx.z == 0u;
    const unsigned nb = gpu_master ? 0x80000000u - (expected - 1u) : 1u;
    unsigned old_arrive;
    asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;" : "=r"(old_arrive) : "l"(arrived), "r"(nb) : "memory");
    unsigned current;
    do {
      asm volatile("ld.acquire.gpu.u32 %0,[%1];" : "=r"(current) : "l"(arrived) : "memory");
    } while (((old_arrive ^ current) & 0x80000000u) == 0u);
  }
  __syncthreads();
}

}  // namespace

extern "C" __global__ void grid_sync_bench(unsigned rounds, unsigned long long* times) {
  unsigned* bar = grid_barrier_word();
  grid_sync(bar);
  const unsigned long long t0 = occ::globaltimer();
  for (unsigned r = 0; r < rounds; ++r) grid_sync(bar);
  const unsigned long long t1 = occ::globaltimer();
  if (threadIdx.x == 0) {
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = t1;
  }
}
