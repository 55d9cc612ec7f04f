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
// g.m * blockDim.x, fixed within an interval (between two barriers).
#ifndef OCC_APP_COOP_LOOP
#define OCC_APP_COOP_LOOP
#include <occupant.cuh>

#define OCC_APP_WORDS 3u

namespace occ_app {

/// This thread's id among the interval's threads, and their count.
struct Span {
  unsigned tid;
  unsigned nthreads;
};

/// Runs `body` as a cooperative kernel's main loop until next() says done; leaves the
/// scheduler then. Returns at once when this group was killed (or the launch aborted).
template <class Body>
__device__ void phase_loop(occ::coop::Group& g, unsigned mode, Body& body) {
  unsigned w[OCC_APP_WORDS];
  for (unsigned i = 0u; i < OCC_APP_WORDS; ++i)
    w[i] = g.forked ? occ::coop::received<unsigned>(g, i) : 0u;
  if (!g.forked) body.first(w);
  while (body.next(g, w)) {
    const Span s = {g.id * blockDim.x + threadIdx.x, g.m * blockDim.x};
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
