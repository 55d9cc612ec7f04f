// Cooperative kernels of the scheduler's own tests (occupant::cuda::coop::SELFTEST_CU).
#include <occupant.cuh>

// `rounds` resizing-barrier intervals. In interval r every group (thread 0) counts itself
// (count[r] += 1, idsum[r] += id), checks its id against g.m, reads what its neighbour wrote
// in the interval before (data[(r-1)%2][(id+1)%m], when that group existed then) and writes
// data[r%2][id] = r + 1; group 0 records ms[r] = g.m. The host checks count[r] == ms[r] and
// idsum[r] == ms[r](ms[r]-1)/2 (contiguous ids) and errors == 0 (ids in range, the barrier
// ordered the data, the transmitted round reached the forked groups). `spin` ns of busy work
// per interval; query != 0: the query variant of the resizing barrier.
extern "C" __global__ void coop_rounds(occ::coop::State* st, occ::coop::Mailbox* mb,
                                       unsigned rounds, unsigned* count, unsigned long long* idsum,
                                       unsigned* ms, unsigned* data, unsigned stride,
                                       unsigned* errors, unsigned spin, unsigned query) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  unsigned r = g.forked ? occ::coop::received<unsigned>(g, 0) : 0u;
  for (; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      const unsigned m = g.m;
      if (g.id == 0u) ms[r] = m;
      atomicAdd(&count[r], 1u);
      atomicAdd(&idsum[r], (unsigned long long)g.id);
      if (g.id >= m) atomicAdd(errors, 1u);
      if (r > 0u) {
        const unsigned j = (g.id + 1u) % m;
        if (j < ms[r - 1u] && data[((r - 1u) % 2u) * stride + j] != r) atomicAdd(errors, 1u);
      }
      data[(r % 2u) * stride + g.id] = r + 1u;
      const unsigned long long t0 = occ::globaltimer();
      while (occ::globaltimer() - t0 < spin) {
      }
    }
    occ::coop::transmit(g, 0, r + 1u);
    if (!occ::coop::resizing_barrier(g, query != 0u)) return;
  }
  occ::coop::leave(g);
}

// A cooperative kernel that never offers a group back: it busy-waits `spin_ns` with no
// scheduling point, then leaves. The scheduler's take() must time out with an error.
extern "C" __global__ void coop_selfish(occ::coop::State* st, occ::coop::Mailbox* mb,
                                        unsigned long long spin_ns, unsigned* out) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  if (threadIdx.x == 0) {
    const unsigned long long t0 = occ::globaltimer();
    while (occ::globaltimer() - t0 < spin_ns) {
    }
    atomicAdd(out, 1u);
  }
  occ::coop::leave(g);
}

// Work stealing with offer_kill / request_fork at the top of the loop (seed 000 §3.2): groups
// take tasks 0..tasks-1 from a global counter; task t writes out[t] = t*t + 1 and counts itself
// in done[t]. The host checks done[t] == 1 and out[t] for every t (no task lost or run twice
// while groups are killed and forked), `spin` ns of work per task.
extern "C" __global__ void coop_tasks(occ::coop::State* st, occ::coop::Mailbox* mb,
                                      unsigned tasks, unsigned* next, unsigned* done,
                                      unsigned long long* out, unsigned spin) {
  __shared__ occ::coop::Group g;
  __shared__ unsigned task;
  if (!occ::coop::enter(g, st, mb)) return;
  for (;;) {
    if (occ::coop::offer_kill(g)) return;
    occ::coop::request_fork(g);
    if (threadIdx.x == 0) task = atomicAdd(next, 1u);
    __syncthreads();
    const unsigned t = task;
    __syncthreads();
    if (t >= tasks) break;
    if (threadIdx.x == 0) {
      out[t] = (unsigned long long)t * t + 1ull;
      atomicAdd(&done[t], 1u);
      const unsigned long long t0 = occ::globaltimer();
      while (occ::globaltimer() - t0 < spin) {
      }
    }
  }
  occ::coop::leave(g);
}
