// Occupancy discovery kernels. discovery_probe: every block runs occ::discover (or
// occ::discover_clusters when compiled with -DOCC_CLUSTER_SIZE=k) with the given method and
// dynamic shared memory as launched. ids[native block] = p_group_id or 0xffffffff;
// nseen[native block] = p_num_groups as seen by that participant; times[2b], times[2b+1]:
// %globaltimer at entry and at the protocol's return in native block b. Participants then meet
// at one HierarchicalBarrier (state `bstate`) so that they are provably co-resident.
#include <occupant.cuh>
#include <occupant_sync.cuh>

using occ::u32;
using occ::u64;

extern "C" __global__ void OCC_KATTR discovery_probe(u32 method, u32 hint, u32* bstate, u32* ids,
                                                     u32* nseen, u64* times) {
  extern __shared__ unsigned char dyn_smem[];
  const unsigned t = occ::local_linear_id();
  const u64 t0 = occ::globaltimer();
  occ::Env env;
  const bool part = OCC_DISCOVER(env, method, hint);
  const u64 t1 = occ::globaltimer();
  const unsigned b = occ::block_linear_id();
  if (t == 0u) {
    dyn_smem[0] = (unsigned char)b;  // the dynamic shared memory is really allocated
    ids[b] = part ? env.group_id : 0xffffffffu;
    nseen[b] = part ? env.num_groups : 0u;
    times[2u * b] = t0;
    times[2u * b + 1u] = t1;
  }
  if (!part) return;
  occ::sync::HierarchicalBarrier bar(bstate, env);
  bar.wait();
}
