// occupant-apps coop_cuda: work stealing for cooperative kernels (seed 000 Fig. 2) — one task
// queue per group id, each behind a spin lock; a group pops from its own queue (newest first)
// or steals from the others (oldest first). The main loop (steal_loop) offers the group to the
// scheduler (offer_kill) and asks for more (request_fork) before every task, as seed 000 §3.2
// places them; a killed group holds no task, and its queue stays for the others to steal from
// (and for a group forked later with its id). Tasks are u32 indices into an app's pool.
//
// Memory: `ctr` (u32 words, device memory, set by the host before a launch): pending tasks
// (created, not finished) at word 0, queued tasks at 32, pool allocation counters at 64/65,
// error flags at 66, tasks processed at 67. `q`: 32 words per queue (lock, head, tail);
// `items`: `cap` task slots per queue (a ring). Queue operations are thread 0's; the app's
// process() runs in every thread of the block.
#ifndef OCC_APP_COOP_STEAL
#define OCC_APP_COOP_STEAL
#include <occupant.cuh>

#define OCC_APP_STEAL_PRIM 23u  // occ::Worklist, the primitive the watchdog names

namespace occ_app {

enum : unsigned {
  kStealPending = 0u,
  kStealQueued = 32u,
  kStealAlloc0 = 64u,
  kStealAlloc1 = 65u,
  kStealError = 66u,
  kStealTasks = 67u,
  kStealWords = 128u
};
enum : unsigned { kErrQueueFull = 1u, kErrPoolFull = 2u, kErrIdle = 4u };

/// The queues of one launch (every field the same in every group).
struct Steal {
  unsigned* ctr;
  unsigned* q;
  unsigned* items;
  unsigned nq;
  unsigned cap;

  __device__ bool lock(unsigned i) const {
    unsigned* l = &q[32u * i];
    return occ::wait_until(OCC_APP_STEAL_PRIM,
                           [l] { return occ::atomic_cas_acquire(l, 0u, 1u) == 0u; });
  }
  __device__ void unlock(unsigned i) const { occ::st_release(&q[32u * i], 0u); }

  /// Raises an error flag (the host reports it after the launch).
  __device__ void error(unsigned bit) const { atomicOr(&ctr[kStealError], bit); }

  /// Thread 0: adds task t to queue i (counted pending first, so that the count never drops
  /// to 0 while a task is being created). False when the queue is full or the launch aborted.
  __device__ bool push(unsigned i, unsigned t) const {
    occ::atomic_add_relaxed(&ctr[kStealPending], 1u);
    if (!lock(i)) return false;
    unsigned* rec = &q[32u * i];
    const unsigned head = occ::ld_relaxed(&rec[1]), tail = occ::ld_relaxed(&rec[2]);
    const bool ok = tail - head < cap;
    if (ok) {
      items[i * cap + tail % cap] = t;
      occ::st_relaxed(&rec[2], tail + 1u);
    }
    unlock(i);
    if (ok) occ::atomic_add_release(&ctr[kStealQueued], 1u);
    else error(kErrQueueFull);
    return ok;
  }

  /// Thread 0: a task from queue `own` (newest) or stolen from another (oldest).
  __device__ bool pop_or_steal(unsigned own, unsigned* t) const {
    for (unsigned k = 0u; k < nq; ++k) {
      if (occ::ld_acquire(&ctr[kStealQueued]) == 0u) return false;
      const unsigned i = (own + k) % nq;
      unsigned* rec = &q[32u * i];
      if (occ::ld_relaxed(&rec[1]) == occ::ld_relaxed(&rec[2])) continue;
      if (!lock(i)) return false;
      const unsigned head = occ::ld_relaxed(&rec[1]), tail = occ::ld_relaxed(&rec[2]);
      bool got = false;
      if (head != tail) {
        if (k == 0u) {
          *t = items[i * cap + (tail - 1u) % cap];
          occ::st_relaxed(&rec[2], tail - 1u);
        } else {
          *t = items[i * cap + head % cap];
          occ::st_relaxed(&rec[1], head + 1u);
        }
        got = true;
      }
      unlock(i);
      if (got) {
        occ::atomic_add_relaxed(&ctr[kStealQueued], 0u - 1u);
        return true;
      }
    }
    return false;
  }

  /// Thread 0: one task finished (after pushing its children).
  __device__ void done() const {
    occ::atomic_add_relaxed(&ctr[kStealTasks], 1u);
    occ::atomic_add_release(&ctr[kStealPending], 0u - 1u);
  }

  __device__ bool finished() const { return occ::ld_acquire(&ctr[kStealPending]) == 0u; }

  /// Thread 0, with no task: waits at most 20 µs for one to appear (or the work to end), so
  /// that an idle group soon offers itself again.
  __device__ bool idle_wait() const {
    const unsigned long long t0 = occ::globaltimer();
    unsigned* c = ctr;
    return occ::wait_until(OCC_APP_STEAL_PRIM, [c, t0] {
      return occ::ld_acquire(&c[kStealQueued]) != 0u ||
             occ::ld_acquire(&c[kStealPending]) == 0u || occ::globaltimer() - t0 > 20000ull;
    });
  }
};

/// Makes the block's writes visible device-wide before thread 0 publishes (every thread).
__device__ __forceinline__ void publish_fence() {
  __threadfence();
  __syncthreads();
}

/// Makes what thread 0 acquired visible to the whole block (every thread).
__device__ __forceinline__ void acquire_fence() {
  __syncthreads();
  __threadfence();
}

/// The work-stealing main loop. App: void process(occ::coop::Group& g, const Steal& s,
/// unsigned task) — every thread of the block, thread 0 pushes children with s.push(g.id, ..).
/// mode 0: the persistent baseline (no offer_kill / request_fork); else cooperative. An idle
/// group that sees no task finish for `idle_ns` raises kErrIdle and leaves (nothing hangs).
template <class App>
__device__ void steal_loop(occ::coop::Group& g, unsigned mode, const Steal& s, App& app,
                           unsigned long long idle_ns) {
  __shared__ unsigned task, what;
  __shared__ unsigned long long idle_since;
  __shared__ unsigned seen_tasks;
  if (threadIdx.x == 0u) {
    idle_since = occ::globaltimer();
    seen_tasks = occ::ld_relaxed(&s.ctr[kStealTasks]);
  }
  for (;;) {
    if (mode != 0u) {
      if (occ::coop::offer_kill(g)) return;
      occ::coop::request_fork(g);
    }
    if (threadIdx.x == 0u) {
      unsigned t = 0u;
      if (s.pop_or_steal(g.id, &t)) {
        task = t;
        what = 1u;
      } else if (s.finished()) {
        what = 2u;
      } else if (occ::aborted()) {
        what = 3u;
      } else {
        const unsigned seen = occ::ld_relaxed(&s.ctr[kStealTasks]);
        const unsigned long long now = occ::globaltimer();
        if (seen != seen_tasks) {
          seen_tasks = seen;
          idle_since = now;
        }
        if (now - idle_since > idle_ns) {
          s.error(kErrIdle);
          what = 3u;
        } else {
          what = s.idle_wait() ? 0u : 3u;
        }
      }
    }
    acquire_fence();
    const unsigned w = what;
    if (w == 1u) {
      app.process(g, s, task);
      publish_fence();
      if (threadIdx.x == 0u) s.done();
    } else if (w == 2u) {
      break;
    } else if (w == 3u) {
      return;
    }
    __syncthreads();
  }
  occ::coop::leave(g);
}

}  // namespace occ_app
#endif  // OCC_APP_COOP_STEAL
