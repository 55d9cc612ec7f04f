// Host stand-ins for the CUDA the graph apps' phase bodies use (apps/cuda/*.cu compiled with
// -DOCC_APP_HOST_LOOP, coop_cuda/graph.cu, bc.cu, sssp_worklist.cu): every CUDA thread is a
// std::thread; a warp is 32 of them that meet at a std::barrier in every warp intrinsic, so the
// bodies run as written (every lane calls the shuffles and ballots at the same points). Atomics
// are std::atomic_ref; volatile accesses stay volatile (x86: coherent). Only the phase bodies
// and the apps' init / converged / check run here; the cooperative runtime (loop.cuh's
// phase_loop, coop.cuh) is stubbed so that the kernels compile, never called.
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>

#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __launch_bounds__(...)

struct OccDim3 {
  unsigned x, y, z;
};
inline thread_local OccDim3 threadIdx = {0u, 0u, 0u};
inline thread_local OccDim3 blockIdx = {0u, 0u, 0u};
inline thread_local OccDim3 blockDim = {32u, 1u, 1u};
inline thread_local OccDim3 gridDim = {1u, 1u, 1u};

/// One warp: 32 threads exchange values through `slot` between two barrier phases.
struct SimWarp {
  std::barrier<> bar{32};
  unsigned long long slot[32];
};
inline thread_local SimWarp* sim_warp = nullptr;

template <class T>
inline T sim_exchange(T v, unsigned src) {
  const unsigned lane = threadIdx.x & 31u;
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  sim_warp->slot[lane] = bits;
  sim_warp->bar.arrive_and_wait();
  const unsigned long long got = sim_warp->slot[src & 31u];
  sim_warp->bar.arrive_and_wait();
  T out;
  std::memcpy(&out, &got, sizeof(T));
  return out;
}

template <class T>
inline T __shfl_sync(unsigned, T v, unsigned src) {
  return sim_exchange(v, src);
}
template <class T>
inline T __shfl_up_sync(unsigned, T v, unsigned d) {
  const unsigned lane = threadIdx.x & 31u;
  const T x = sim_exchange(v, lane >= d ? lane - d : lane);
  return x;
}
template <class T>
inline T __shfl_down_sync(unsigned, T v, unsigned d) {
  const unsigned lane = threadIdx.x & 31u;
  return sim_exchange(v, lane + d < 32u ? lane + d : lane);
}
inline unsigned __ballot_sync(unsigned, bool p) {
  const unsigned lane = threadIdx.x & 31u;
  sim_warp->slot[lane] = p ? 1u : 0u;
  sim_warp->bar.arrive_and_wait();
  unsigned m = 0u;
  for (unsigned i = 0u; i < 32u; ++i) m |= (unsigned)sim_warp->slot[i] << i;
  sim_warp->bar.arrive_and_wait();
  return m;
}
/// A block barrier; the groups here are one warp.
inline void __syncthreads() { sim_warp->bar.arrive_and_wait(); }
/// A block barrier that ORs a predicate over the block (one warp here).
inline int __syncthreads_or(bool p) { return __ballot_sync(0xffffffffu, p) != 0u ? 1 : 0; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }

template <class T, class U>
inline T atomicAdd(T* p, U v) {
  return std::atomic_ref<T>(*p).fetch_add(static_cast<T>(v));
}
template <class T, class U>
inline T atomicMin(T* p, U v) {
  std::atomic_ref<T> a(*p);
  const T x = static_cast<T>(v);
  T old = a.load();
  while (x < old && !a.compare_exchange_weak(old, x)) {
  }
  return old;
}
template <class T, class U>
inline T atomicExch(T* p, U v) {
  return std::atomic_ref<T>(*p).exchange(static_cast<T>(v));
}

namespace occ {
inline void st_relaxed(unsigned* p, unsigned v) { std::atomic_ref<unsigned>(*p).store(v, std::memory_order_relaxed); }
}  // namespace occ

// coop.cuh as far as loop.cuh and graph.cu name it (the kernels compile; nothing calls them).
namespace occ::coop {
struct State {};
struct Mailbox {};
struct Group {
  unsigned id, m;
  bool forked;
  unsigned epoch;
};
inline bool enter(Group&, State*, Mailbox*) { return false; }
template <class T>
inline T received(const Group&, unsigned) {
  return T();
}
template <class T>
inline void transmit(Group&, unsigned, T) {}
inline bool fixed_barrier(Group&) { return false; }
inline bool resizing_barrier(Group&, bool) { return false; }
inline void leave(Group&) {}
}  // namespace occ::coop
