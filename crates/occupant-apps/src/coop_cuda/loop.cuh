// occupant-apps coop_cuda: the phase loop of every cooperative graph kernel (seed 000 Fig. 4),
// written once; an application is a body. Every global barrier is a resizing barrier (mode 1:
// regular variant, mode 2: query variant, seed 000 §4.2); mode 0 is the persistent baseline: the
// same kernel and barrier over a fixed grid, no scheduler.
//
// The loop state is OCC_APP_WORDS words (round, phase, iteration, ...: the seed's
// transmit-annotated values): thread 0 of every group holds the same state, and a group forked
// at a resizing barrier receives group 0's. Body (a struct; NVRTC takes no generic lambdas here):
//   bool next(const occ::coop::Group& g, unsigned* w)   top of an interval (forked groups start
//                                                       here): settle the state, false = done
//   void run(occ_app::Span s, unsigned* w)              one phase over the interval's threads,
//                                                       then advance the state
// Work is distributed by participating id: thread g.id * blockDim.x + threadIdx.x of
// g.m * blockDim.x, fixed within an interval (between two barriers). A body that loops over
// items with for_each_item() can have them handed out dynamically instead (mode bit
// OCC_APP_DYNAMIC, with a claims pointer): the first sweep is the static split's (item = tid,
// so a phase with at most g.m * blockDim.x items costs nothing more), the rest goes in chunks of
// OCC_APP_CHUNK * blockDim.x items, claimed by thread 0 of a group from the interval's counter,
// so a slow group (one sharing its SM with another kernel's blocks) takes fewer chunks instead
// of setting the pace of the barrier. The counters: claims[e & 1] in the interval that starts
// with barrier epoch e (every group of an interval holds the same g.epoch, forked ones too);
// group 0 zeroes the other one during the interval — its last use was the previous interval,
// which every group (killed ones included: kills happen only at barriers) finished before the
// barrier that started this one, and its next use follows the barrier that group 0's arrival
// orders after the store. The host zeroes both before a launch. A claimed chunk is always
// done by the group that claimed it before it arrives, so no chunk is lost or done twice
// whatever groups come and go. At most one for_each_item per interval (one counter).
#ifndef OCC_APP_COOP_LOOP
#define OCC_APP_COOP_LOOP
#include <occupant.cuh>

#define OCC_APP_WORDS 3u
/// mode bit: hand the items of for_each_item() out dynamically (with a claims pointer).
#define OCC_APP_DYNAMIC 4u
/// mode bit: spread the interval's thread ids over the groups a warp at a time (see Span).
#define OCC_APP_SPREAD 8u
/// mode bit left to the body (phase_loop ignores it; BFS: the batched expansion, bfs.cu).
#define OCC_APP_BODY_BIT 16u
/// mode bit for comparisons (BFS, SSSP): the claim counters in the queue lengths' line, as
/// before i12-corun (the kernel picks the claims pointer; phase_loop ignores it).
#define OCC_APP_CLAIMS_NEAR 64u
#ifndef OCC_APP_CHUNK
#define OCC_APP_CHUNK 4u  // dynamic: blocks of blockDim.x items per claim
#endif

namespace occ_app {

/// This thread's id among the interval's threads, and their count. By default thread t of
/// group g has id g * blockDim + t, so a phase with few items (a grid BFS's level: ~2000) runs
/// on the first few groups only — all on the SMs where the launch happened to put groups 0..7,
/// near or far from the phase's hot L2 lines. With OCC_APP_SPREAD (blockDim a multiple of 32)
/// the ids go out a warp at a time round the groups: warp w of group g gets ids
/// (w * M + g) * 32 + lane, so the first M * 32 ids are the first warps of every group, and a
/// small phase's items spread over all the interval's groups (and SMs). Any bijection of
/// 0..nthreads works for the bodies (id 0 stays thread 0 of group 0).
struct Span {
  unsigned tid;
  unsigned nthreads;
  /// Dynamic distribution: this interval's claim counter (nullptr: static).
  unsigned* claim;
};

/// Calls f(i) once for every i in [0, len) over the interval's threads: statically (i = tid,
/// tid + nthreads, ...) or, with s.claim, the first sweep statically and the rest in claimed
/// chunks (see the top of this file). Every thread of the block calls it with the same len
/// (dynamic: it synchronises the block); at most once per interval.
template <class F>
__device__ void for_each_item(const Span& s, unsigned len, F f) {
  if (s.claim == nullptr) {
    for (unsigned i = s.tid; i < len; i += s.nthreads) f(i);
    return;
  }
  if (s.tid < len) f(s.tid);
  if (len <= s.nthreads) return;
  const unsigned chunk = OCC_APP_CHUNK * blockDim.x;
  const unsigned chunks = (len - s.nthreads + chunk - 1u) / chunk;
  __shared__ unsigned claimed;
  for (;;) {
    __syncthreads();  // every thread has read the last claim
    if (threadIdx.x == 0u) claimed = atomicAdd(s.claim, 1u);
    __syncthreads();
    const unsigned c = claimed;
    if (c >= chunks) return;
    const unsigned base = s.nthreads + c * chunk;
    for (unsigned k = threadIdx.x; k < chunk; k += blockDim.x)
      if (base + k < len) f(base + k);
  }
}

/// Runs `body` as a cooperative kernel's main loop until next() says done; leaves the
/// scheduler then. Returns at once when this group was killed (or the launch aborted).
/// mode: 0 persistent, 1 regular, 2 query, | OCC_APP_DYNAMIC with `claims` (two words, zeroed
/// by the host before the launch): dynamic distribution in for_each_item, | OCC_APP_SPREAD:
/// ids spread a warp at a time over the groups (Span).
template <class Body>
__device__ void phase_loop(occ::coop::Group& g, unsigned mode, Body& body,
                           unsigned* claims = nullptr) {
  const bool dynamic = (mode & OCC_APP_DYNAMIC) != 0u && claims != nullptr;
  const bool spread = (mode & OCC_APP_SPREAD) != 0u && (blockDim.x & 31u) == 0u;
  mode &= 3u;
  unsigned w[OCC_APP_WORDS];
  for (unsigned i = 0u; i < OCC_APP_WORDS; ++i)
    w[i] = g.forked ? occ::coop::received<unsigned>(g, i) : 0u;
  if (!g.forked) body.first(w);
  while (body.next(g, w)) {
    unsigned* claim = nullptr;
    if (dynamic) {
      claim = &claims[g.epoch & 1u];
      if (g.id == 0u && threadIdx.x == 0u) occ::st_relaxed(&claims[(g.epoch + 1u) & 1u], 0u);
    }
    const unsigned tid = spread ? ((threadIdx.x >> 5) * g.m + g.id) * 32u + (threadIdx.x & 31u)
                                : g.id * blockDim.x + threadIdx.x;
    const Span s = {tid, g.m * blockDim.x, claim};
    body.run(s, w);
    for (unsigned i = 0u; i < OCC_APP_WORDS; ++i) occ::coop::transmit(g, i, w[i]);
    const bool go = mode == 0u ? occ::coop::fixed_barrier(g)
                               : occ::coop::resizing_barrier(g, mode == 2u);
    if (!go) return;
  }
  occ::coop::leave(g);
}

}  // namespace occ_app
#endif  // OCC_APP_COOP_LOOP
