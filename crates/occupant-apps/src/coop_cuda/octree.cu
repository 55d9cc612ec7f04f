// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative octree partitioning by work stealing (occupant_apps::coop_cuda::GpuOctree; the
// CUDA twin of occupant_apps::coop::octree, seed 000 Table 1): a task is a cell with its range
// of the shared index array `ids`; the group holding it splits the range into its 8 octants in
// place (counting, scattering through `scratch`, copying back — every thread of the block) and
// pushes the non-empty children as new tasks; a cell of at most max_points points or at
// max_depth is a leaf and is recorded. `rounds` instances of the point set are partitioned in
// one launch (instance r owns ids[r*n .. (r+1)*n); the host seeds their roots). The main loop
// is steal.cuh's: offer_kill and request_fork before every task.
//
// The octant test is the CPU version's, in f32: bit d set when p[d] >= lo[d] + size / 2.
#include <occupant.cuh>

namespace occ_app {

/// A cell (40 bytes; host twin: coop_cuda::octree::DeviceCell).
struct OctCell {
  float lo[3];
  float size;
  unsigned depth;
  unsigned start;
  unsigned count;
  unsigned pad;
  unsigned long long path;
};

/// A leaf (24 bytes; host twin: coop_cuda::octree::DeviceLeaf).
struct OctLeaf {
  unsigned start;
  unsigned count;
  unsigned depth;
  unsigned pad;
  unsigned long long path;
};

struct Octree {
  const float* pts;  // x, y, z per point
  unsigned* ids;
  unsigned* scratch;
  OctCell* cells;
  unsigned cell_cap;
  OctLeaf* leaves;
  unsigned leaf_cap;
  unsigned max_points;
  unsigned max_depth;

  __device__ unsigned octant(unsigned id, const OctCell& c) const {
    const float h = c.size / 2.0f;
    unsigned o = 0u;
    for (unsigned d = 0u; d < 3u; ++d)
      if (pts[3u * id + d] >= c.lo[d] + h) o |= 1u << d;
    return o;
  }

  __device__ void process(occ::coop::Group& g, const Steal& s, unsigned ci) {
    __shared__ OctCell c;
    __shared__ unsigned cnt[8], at[8];
    if (threadIdx.x == 0u) c = cells[ci];
    for (unsigned o = threadIdx.x; o < 8u; o += blockDim.x) cnt[o] = 0u;
    __syncthreads();
    if (c.count <= max_points || c.depth >= max_depth) {
      if (threadIdx.x == 0u) {
        const unsigned li = atomicAdd(&s.ctr[kStealAlloc1], 1u);
        if (li < leaf_cap) {
          OctLeaf l;
          l.start = c.start;
          l.count = c.count;
          l.depth = c.depth;
          l.pad = 0u;
          l.path = c.path;
          leaves[li] = l;
        } else {
          s.error(kErrPoolFull);
        }
      }
      return;
    }
    for (unsigned i = threadIdx.x; i < c.count; i += blockDim.x)
      atomicAdd(&cnt[octant(ids[c.start + i], c)], 1u);
    __syncthreads();
    if (threadIdx.x == 0u) {
      unsigned sum = 0u;
      for (unsigned o = 0u; o < 8u; ++o) {
        at[o] = sum;
        sum += cnt[o];
      }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < c.count; i += blockDim.x) {
      const unsigned id = ids[c.start + i];
      scratch[c.start + atomicAdd(&at[octant(id, c)], 1u)] = id;
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < c.count; i += blockDim.x)
      ids[c.start + i] = scratch[c.start + i];
    publish_fence();
    if (threadIdx.x == 0u) {
      const float h = c.size / 2.0f;
      unsigned start = c.start;
      for (unsigned o = 0u; o < 8u; ++o) {
        if (cnt[o] == 0u) continue;
        const unsigned k = atomicAdd(&s.ctr[kStealAlloc0], 1u);
        if (k >= cell_cap) {
          s.error(kErrPoolFull);
          break;
        }
        OctCell ch;
        for (unsigned d = 0u; d < 3u; ++d) ch.lo[d] = c.lo[d] + (((o >> d) & 1u) ? h : 0.0f);
        ch.size = h;
        ch.depth = c.depth + 1u;
        ch.start = start;
        ch.count = cnt[o];
        ch.pad = 0u;
        ch.path = (c.path << 3) | (unsigned long long)o;
        cells[k] = ch;
        start += cnt[o];
        if (!s.push(g.id, k)) break;
      }
    }
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_octree(occ::coop::State* st, occ::coop::Mailbox* mb,
                                       const float* pts, unsigned* ids, unsigned* scratch,
                                       occ_app::OctCell* cells, unsigned cell_cap,
                                       occ_app::OctLeaf* leaves, unsigned leaf_cap,
                                       unsigned max_points, unsigned max_depth, unsigned* ctr,
                                       unsigned* queues, unsigned* items, unsigned nq,
                                       unsigned qcap, unsigned long long idle_ns, unsigned mode) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  const occ_app::Steal s = {ctr, queues, items, nq, qcap};
  occ_app::Octree app = {pts,      ids,      scratch,    cells,    cell_cap,
                         leaves,   leaf_cap, max_points, max_depth};
  occ_app::steal_loop(g, mode, s, app, idle_ns);
}
