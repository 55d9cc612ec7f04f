// Semaphore test and benchmark kernels. sem_<kind>: every block's representative does `iters`
// wait/post pairs. With check = 1, inside the critical section it increments an in-section
// counter (atom.relaxed.gpu.add), counts a violation if the new value exceeds the initial value
// `initial`, and decrements it again before post(). With check = 0 the section is empty.
// times[2b], times[2b+1]: %globaltimer around the loop.
#include <occupant.cuh>
#include <occupant_sync.cuh>

using occ::u32;
using occ::u64;

template <class S>
__device__ __forceinline__ void sem_run(u32* state, u32 initial, u32* inside, u32* violations,
                                        u32 iters, u32 check, u64* times) {
  if (occ::local_linear_id() != 0u) return;
  S s(state);
  const u64 t0 = occ::globaltimer();
  u32 bad = 0u;
  for (u32 i = 0u; i < iters; ++i) {
    if (!s.wait()) return;
    if (check) {
      const u32 now = occ::atomic_add_relaxed(inside, 1u) + 1u;
      if (now > initial) ++bad;
      occ::atomic_add_relaxed(inside, 0xffffffffu);
    }
    if (!s.post()) return;
  }
  const u64 t1 = occ::globaltimer();
  if (bad) atomicAdd(violations, bad);
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

#define OCC_SEM_KERNEL(NAME, TYPE)                                                         \
  extern "C" __global__ void NAME(u32* state, u32 initial, u32* inside, u32* violations,  \
                                  u32 iters, u32 check, u64* times) {                     \
    sem_run<TYPE>(state, initial, inside, violations, iters, check, times);               \
  }

OCC_SEM_KERNEL(sem_spin, occ::sync::SpinSemaphore)
OCC_SEM_KERNEL(sem_spin_backoff, occ::sync::SpinBackoffSemaphore)
OCC_SEM_KERNEL(sem_sleeping, occ::sync::SleepingSemaphore)
