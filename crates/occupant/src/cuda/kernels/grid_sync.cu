// The comparator: cooperative_groups grid.sync() under a cooperative launch (not ours).
// times[2b], times[2b+1]: %globaltimer around `rounds` grid.sync() calls in block b.
#include <occupant.cuh>
#include <cooperative_groups.h>

extern "C" __global__ void grid_sync_bench(unsigned rounds, unsigned long long* times) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  grid.sync();
  const unsigned long long t0 = occ::globaltimer();
  for (unsigned r = 0; r < rounds; ++r) grid.sync();
  const unsigned long long t1 = occ::globaltimer();
  if (threadIdx.x == 0) {
    times[2 * blockIdx.x] = t0;
    times[2 * blockIdx.x + 1] = t1;
  }
}
