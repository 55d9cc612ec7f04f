// Fork/join cost probe (issue 8): times, in ONE GPU run, what a fork + join costs with several
// hand-written protocols next to occ::fj as it is and an earlier occ::fj, so that the protocol
// the library should use can be picked from one measurement. Built by nvcc (here or on the GPU
// machine: scripts/gpu-fj-probe.sh) against the device headers and, with -DFJ_OLD, two copies
// of an earlier forkjoin.cuh made by that script with sed (namespace renamed):
//   fj_old.cuh   occ::fj_old   master lanes 1-31 follow fork and join from their own barrier
//                              instructions (the design measured at 1dc2747)
//   fj_oldx.cuh  occ::fj_oldx  the same with master lanes 1-31 exiting at once (a43bc78)
// Every kernel: one block of 32 * (W + 1) threads, the last warp is the master (lane 0 times
// with clock64). EPCC's method: a region runs delay(d) in every worker; overhead per region
// = (T(R regions) - T(R delays in serial code)) / R, in cycles. Printed as one line per
// (variant, W, d): "fjprobe <variant> W=<w> d=<d> cycles_per_region=<x> check=<ok|BAD>".
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "forkjoin.cuh"

__device__ __forceinline__ void delay(long long d) {
  const long long t0 = clock64();
  while (clock64() - t0 < d) {
  }
}
__device__ __forceinline__ void bsync(unsigned id, unsigned n) {
  asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void bsync_aligned(unsigned id, unsigned n) {
  asm volatile("barrier.sync.aligned %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void barrive(unsigned id, unsigned n) {
  asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ unsigned ld_acq(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.cta.shared.u32 %0, [%1];"
               : "=r"(v)
               : "r"((unsigned)__cvta_generic_to_shared(p))
               : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_vol(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.shared.u32 %0, [%1];"
               : "=r"(v)
               : "r"((unsigned)__cvta_generic_to_shared(p))
               : "memory");
  return v;
}
__device__ __forceinline__ void st_rel(unsigned* p, unsigned v) {
  asm volatile("st.release.cta.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(p)),
               "r"(v)
               : "memory");
}
__device__ __forceinline__ void red_rel(unsigned* p, unsigned v) {
  asm volatile("red.release.cta.shared.add.u32 [%0], %1;" ::"r"(
                   (unsigned)__cvta_generic_to_shared(p)),
               "r"(v)
               : "memory");
}

// out[0]: cycles of R regions; out[1]: cycles of R delays in serial code; out[2]: check value.
struct Shared {
  unsigned gen;
  unsigned count;
  unsigned pad[2];
  uint4 slot[2][2];
  int part[2][32];
};

#define MASTER_WARP (blockDim.x / 32u - 1u)
#define IS_MASTER_WARP (threadIdx.x / 32u == MASTER_WARP)
#define LANE (threadIdx.x & 31u)

__device__ __forceinline__ long long ref_time(int R, long long d) {
  const long long c0 = clock64();
  for (int r = 0; r < R; ++r) delay(d);
  return clock64() - c0;
}

// --- 1. EPCC barrier floor: worker warps only, delay then barrier.sync 2 (as Thread::barrier).
__global__ void k_team_barrier(long long* out, int R, long long d) {
  const unsigned workers = blockDim.x - 32u;
  if (IS_MASTER_WARP) return;
  if (threadIdx.x == 0) out[1] = ref_time(R, d);
  bsync(3, workers);
  const long long c0 = clock64();
  for (int r = 0; r < R; ++r) {
    delay(d);
    bsync(2, workers);
  }
  if (threadIdx.x == 0) {
    out[0] = clock64() - c0;
    out[2] = 1;
  }
}

// --- 2. fork = sync 0, join = sync 1; master warp converged (all 32 lanes run the loop).
template <bool ALIGNED>
__global__ void k_sync_conv(long long* out, int R, long long d) {
  const unsigned all = blockDim.x;
  if (IS_MASTER_WARP) {
    long long ref = 0;
    if (LANE == 0) ref = ref_time(R, d);
    __syncwarp();
    const long long c0 = clock64();
    for (int r = 0; r < R; ++r) {
      if (ALIGNED) {
        bsync_aligned(0, all);
        bsync_aligned(1, all);
      } else {
        bsync(0, all);
        bsync(1, all);
      }
    }
    if (LANE == 0) {
      out[0] = clock64() - c0;
      out[1] = ref;
      out[2] = 1;
    }
    return;
  }
  for (int r = 0; r < R; ++r) {
    if (ALIGNED) {
      bsync_aligned(0, all);
      delay(d);
      bsync_aligned(1, all);
    } else {
      bsync(0, all);
      delay(d);
      bsync(1, all);
    }
  }
}

// --- 3. the same, master lane 0 apart from lanes 1-31 (each in its own loop: the library's shape).
__device__ __noinline__ void lanes_follow(int R, unsigned all) {
  for (int r = 0; r < R; ++r) {
    bsync(0, all);
    bsync(1, all);
  }
}
__global__ void k_sync_div(long long* out, int R, long long d) {
  const unsigned all = blockDim.x;
  if (IS_MASTER_WARP) {
    if (LANE != 0) {
      lanes_follow(R, all);
      return;
    }
    const long long ref = ref_time(R, d);
    const long long c0 = clock64();
    for (int r = 0; r < R; ++r) {
      bsync(0, all);
      bsync(1, all);
    }
    out[0] = clock64() - c0;
    out[1] = ref;
    out[2] = 1;
    return;
  }
  for (int r = 0; r < R; ++r) {
    bsync(0, all);
    delay(d);
    bsync(1, all);
  }
}

// --- 4. master lanes 1-31 exit; lane 0 alone.
__global__ void k_sync_exit(long long* out, int R, long long d) {
  const unsigned all = blockDim.x;
  if (IS_MASTER_WARP) {
    if (LANE != 0) return;
    const long long ref = ref_time(R, d);
    const long long c0 = clock64();
    for (int r = 0; r < R; ++r) {
      bsync(0, all);
      bsync(1, all);
    }
    out[0] = clock64() - c0;
    out[1] = ref;
    out[2] = 1;
    return;
  }
  for (int r = 0; r < R; ++r) {
    bsync(0, all);
    delay(d);
    bsync(1, all);
  }
}

// --- 5. fork = master arrive 0 / workers sync 0; join = workers arrive 1 / master sync 1.
// MODE 0: master warp converged; 1: lanes 1-31 exit; 2: lanes 1-31 follow in their own loop.
__device__ __noinline__ void lanes_follow_arrive(int R, unsigned all) {
  for (int r = 0; r < R; ++r) {
    barrive(0, all);
    bsync(1, all);
  }
}
template <int MODE>
__global__ void k_arrive(long long* out, int R, long long d) {
  const unsigned all = blockDim.x;
  if (IS_MASTER_WARP) {
    if (MODE == 1 && LANE != 0) return;
    if (MODE == 2 && LANE != 0) {
      lanes_follow_arrive(R, all);
      return;
    }
    long long ref = 0;
    if (LANE == 0) ref = ref_time(R, d);
    if (MODE == 0) __syncwarp();
    const long long c0 = clock64();
    for (int r = 0; r < R; ++r) {
      barrive(0, all);
      bsync(1, all);
    }
    if (LANE == 0) {
      out[0] = clock64() - c0;
      out[1] = ref;
      out[2] = 1;
    }
    return;
  }
  for (int r = 0; r < R; ++r) {
    bsync(0, all);
    delay(d);
    barrive(1, all);
  }
}

// --- 5b. fork = sync 0 on both sides; join = workers arrive 1 / master sync 1 (workers go back
// to the pool without waiting). MODE 0: master warp converged; 2: lanes 1-31 follow apart;
// 3: lane 0 ARRIVES at 0 while lanes 1-31 SYNC at 0 (mixed flavours in one warp: may hang or
// fault; run alone, last).
template <int MODE>
__global__ void k_mixed(long long* out, int R, long long d) {
  const unsigned all = blockDim.x;
  if (IS_MASTER_WARP) {
    if (MODE >= 2 && LANE != 0) {
      lanes_follow(R, all);
      return;
    }
    long long ref = 0;
    if (LANE == 0) ref = ref_time(R, d);
    if (MODE == 0) __syncwarp();
    const long long c0 = clock64();
    for (int r = 0; r < R; ++r) {
      if (MODE == 3) {
        barrive(0, all);
      } else {
        bsync(0, all);
      }
      bsync(1, all);
    }
    if (LANE == 0) {
      out[0] = clock64() - c0;
      out[1] = ref;
      out[2] = 1;
    }
    return;
  }
  for (int r = 0; r < R; ++r) {
    bsync(0, all);
    delay(d);
    barrive(1, all);
  }
}

// --- 6. arrive/sync (master lanes exit) with a descriptor: master stores a 16-byte slot
// (double-buffered), workers load it after the fork and run `d` from it; + reduction: each
// warp folds 1s with redux.sync, lane 0 stores the warp's partial (double-buffered), the
// master sums the partials after the join. RED 0: none; 1: reduction.
template <int RED>
__global__ void k_arrive_slot(long long* out, int R, long long d) {
  __shared__ Shared sh;
  const unsigned all = blockDim.x;
  const unsigned W = blockDim.x / 32u - 1u;
  if (IS_MASTER_WARP) {
    if (LANE != 0) return;
    const long long ref = ref_time(R, d);
    long long total = 0;
    const long long c0 = clock64();
    for (int r = 1; r <= R; ++r) {
      sh.slot[r & 1][0] = make_uint4(1u, all - 32u, (unsigned)d, (unsigned)(d >> 32));
      barrive(0, all);
      bsync(1, all);
      if (RED) {
        int s = 0;
        for (unsigned w = 0; w < W; ++w) s += sh.part[r & 1][w];
        total += s;
      }
    }
    out[0] = clock64() - c0;
    out[1] = ref;
    out[2] = RED ? (total == (long long)R * (all - 32u)) : 1;
    sh.slot[(R + 1) & 1][0].x = 0u;
    barrive(0, all);
    return;
  }
  for (int r = 1;; ++r) {
    bsync(0, all);
    const uint4 h = sh.slot[r & 1][0];
    if (h.x == 0u) return;
    delay(((long long)h.w << 32) | h.z);
    if (RED) {
      const int s = __reduce_add_sync(0xffffffffu, 1);
      if (LANE == 0) sh.part[r & 1][threadIdx.x / 32u] = s;
    }
    barrive(1, all);
  }
}

// --- 7. polling: fork = master bumps sh.gen (st.release), workers spin on it (ld.acquire);
// join = lane 0 of each worker warp red.release.add 1 to sh.count after __syncwarp, the
// master spins on it (ld.acquire). No barriers. Master lanes 1-31 exit.
// JOIN_BAR 1: the join is a barrier instead (workers arrive 1, master sync 1).
template <int JOIN_BAR>
__global__ void k_poll(long long* out, int R, long long d) {
  __shared__ Shared sh;
  const unsigned all = blockDim.x;
  const unsigned W = blockDim.x / 32u - 1u;
  if (threadIdx.x == 0) {
    sh.gen = 0;
    sh.count = 0;
  }
  __syncthreads();
  if (IS_MASTER_WARP) {
    if (LANE != 0) return;
    const long long ref = ref_time(R, d);
    const long long c0 = clock64();
    for (unsigned r = 1; r <= (unsigned)R; ++r) {
      st_rel(&sh.gen, r);
      if (JOIN_BAR) {
        bsync(1, all);
      } else {
        while (ld_acq(&sh.count) != r * W) {
        }
      }
    }
    out[0] = clock64() - c0;
    out[1] = ref;
    out[2] = 1;
    st_rel(&sh.gen, 0xffffffffu);
    return;
  }
  for (unsigned r = 1;; ++r) {
    unsigned g;
    while ((g = ld_acq(&sh.gen)) < r) {
    }
    if (g == 0xffffffffu) return;
    delay(d);
    if (JOIN_BAR) {
      barrive(1, all);
    } else {
      __syncwarp();
      if (LANE == 0) red_rel(&sh.count, 1u);
    }
  }
}

// --- 7b. fork = master arrive 0 / workers sync 0 (the pool sleeps in the barrier); join =
// polling: lane 0 of each worker warp red.release.add 1 to sh.count after __syncwarp (with
// RED: after storing its warp's redux.sync partial), the master spins on sh.count
// (ld.acquire) and then sums the partials. Master lanes 1-31 exit.
template <int RED>
__global__ void k_bar_poll(long long* out, int R, long long d) {
  __shared__ Shared sh;
  const unsigned all = blockDim.x;
  const unsigned W = blockDim.x / 32u - 1u;
  if (threadIdx.x == 0) sh.count = 0;
  __syncthreads();
  if (IS_MASTER_WARP) {
    if (LANE != 0) return;
    const long long ref = ref_time(R, d);
    long long total = 0;
    const long long c0 = clock64();
    for (unsigned r = 1; r <= (unsigned)R; ++r) {
      sh.slot[r & 1][0] = make_uint4(1u, all - 32u, (unsigned)d, (unsigned)(d >> 32));
      barrive(0, all);
      while (ld_acq(&sh.count) != r * W) {
      }
      if (RED) {
        int s = 0;
        for (unsigned w = 0; w < W; ++w) s += sh.part[r & 1][w];
        total += s;
      }
    }
    out[0] = clock64() - c0;
    out[1] = ref;
    out[2] = RED ? (total == (long long)R * (all - 32u)) : 1;
    sh.slot[(R + 1) & 1][0].x = 0u;
    barrive(0, all);
    return;
  }
  for (int r = 1;; ++r) {
    bsync(0, all);
    const uint4 h = sh.slot[r & 1][0];
    if (h.x == 0u) return;
    delay(((long long)h.w << 32) | h.z);
    if (RED) {
      const int s = __reduce_add_sync(0xffffffffu, 1);
      if (LANE == 0) sh.part[r & 1][threadIdx.x / 32u] = s;
    }
    __syncwarp();
    if (LANE == 0) red_rel(&sh.count, 1u);
  }
}

// --- 9. the ladder from the floor to the library's master-warp shape (issue 8, round 3): a
// 16-byte descriptor (x: region id, y: threads, z/w: the delay) stored by master lane 0 before
// the fork, loaded by every worker after it (one ld.volatile.v4), the join's count computed
// from y as the library does; fork and join both barrier.sync. SHAPE 0: the whole master warp
// runs the loop converged (lane 0's store predicated); 1: lane 0 runs the loop, lanes 1-31
// loop calling the same non-inlined function {syncwarp; sync 0; sync 1}; 2: as 1 with the join
// count shuffled from lane 0 (the shape of main at 51f6949); 3: lanes 1-31 stay inside the
// function's loop and the whole warp loads the header after the fork for the join count (this
// branch's shape); 4: lanes 1-31 exit; 5: a block of 32 W + 1 threads (the master warp is one
// thread: nothing to converge, nothing exited).
__device__ __forceinline__ uint4 ld_vol4(unsigned a) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(a));
  return v;
}
__device__ __forceinline__ unsigned sh_addr(const void* p) {
  unsigned a;
  asm volatile("mov.u32 %0, %1;" : "=r"(a) : "r"((unsigned)__cvta_generic_to_shared(p)));
  return a;
}
__device__ __noinline__ unsigned ladder_fn(unsigned join, unsigned all, bool shfl) {
  __syncwarp();
  if (shfl) join = __shfl_sync(0xffffffffu, join, 0);
  bsync(0, all);
  if (join != 0u) bsync(1, join);
  return join;
}
__device__ __noinline__ void ladder_fn_loop(unsigned slots, unsigned gen, unsigned all, bool follow) {
  for (;;) {
    __syncwarp();
    const unsigned at = slots + (gen & 1u) * 16u;
    bsync(0, all);
    unsigned id, n;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(id), "=r"(n) : "r"(at));
    if (id == 0u) return;
    bsync(1, ((n + 31u) & ~31u) + 32u);
    if (!follow) return;
    ++gen;
  }
}
// SHAPE 7 (issue 8, i8-fj-floor): the library's shape (3) with the fork as barrier.red.or whose
// predicate says "the descriptor changed": lane 0 stores the slot only for the first fork and
// the termination, workers and lanes 1-31 keep the last one in registers (OCC_FJ_CACHE);
// 8: the same with the master warp converged (SHAPE 0 + the cache); 9: SHAPE 3 without the
// warp sync at the top of the function's loop (lane 0 and lanes 1-31 meet at the barrier
// instruction itself; run alone: it may not be legal).
__device__ __forceinline__ bool bsync_or(unsigned id, unsigned n, bool c) {
  unsigned r;
  asm volatile(
      "{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\t"
      "barrier.red.or.pred q, %2, %3, p;\n\tselp.u32 %0, 1, 0, q;\n\t}"
      : "=r"(r)
      : "r"((unsigned)c), "r"(id), "r"(n)
      : "memory");
  return r != 0u;
}
__device__ __noinline__ void ladder_fn_loop_or(unsigned slots, unsigned gen, unsigned all,
                                               bool follow, bool changed, unsigned n0) {
  unsigned id = 1u, n = n0;
  for (;;) {
    __syncwarp();
    const unsigned at = slots + (gen & 1u) * 16u;
    if (bsync_or(0, all, changed)) {
      asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(id), "=r"(n) : "r"(at));
    }
    changed = false;
    if (id == 0u) return;
    bsync(1, ((n + 31u) & ~31u) + 32u);
    if (!follow) return;
    ++gen;
  }
}
__device__ __noinline__ void ladder_fn_loop_nows(unsigned slots, unsigned gen, unsigned all,
                                                 bool follow) {
  for (;;) {
    const unsigned at = slots + (gen & 1u) * 16u;
    bsync(0, all);
    unsigned id, n;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(id), "=r"(n) : "r"(at));
    if (id == 0u) return;
    bsync(1, ((n + 31u) & ~31u) + 32u);
    if (!follow) return;
    ++gen;
  }
}
template <int SHAPE>
__global__ void k_ladder(long long* out, int R, long long d) {
  __shared__ alignas(16) uint4 slot[2];
  __shared__ alignas(16) int part[2][32];  // SHAPE 6: the warps' partials (1 per thread)
  long long total = 0;
  const unsigned all = (blockDim.x + 31u) & ~31u;
  const unsigned workers = all - 32u;
  const unsigned slots = sh_addr(&slot[0]);
  const unsigned master_warp = (blockDim.x - 1u) / 32u;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned join = workers + 32u;
  if (threadIdx.x / 32u == master_warp) {
    if (SHAPE == 4 && lane != 0u) return;
    if (SHAPE == 2 && lane != 0u) {
      while (ladder_fn(0u, all, true) != 0u) {
      }
      return;
    }
    if (SHAPE == 1 && lane != 0u) {  // no shuffle: lanes 1-31 know the count and R
      for (int r = 1; r <= R + 1; ++r) ladder_fn(r == R + 1 ? 0u : join, all, false);
      return;
    }
    if (SHAPE == 3 && lane != 0u) {
      ladder_fn_loop(slots, 1u, all, true);
      return;
    }
    if (SHAPE == 7 && lane != 0u) {
      ladder_fn_loop_or(slots, 1u, all, true, false, 0u);
      return;
    }
    if (SHAPE == 9 && lane != 0u) {
      ladder_fn_loop_nows(slots, 1u, all, true);
      return;
    }
    long long ref = 0;
    if (lane == 0u) ref = ref_time(R, d);
    if (SHAPE == 0 || SHAPE == 8) __syncwarp();
    const long long c0 = clock64();
    for (int r = 1; r <= R + 1; ++r) {
      const bool last = r == R + 1;
      const uint4 h = last ? make_uint4(0u, 0u, 0u, 0u)
                           : make_uint4(1u, workers, (unsigned)d, (unsigned)(d >> 32));
      const bool changed = (SHAPE != 7 && SHAPE != 8) || r == 1 || last;
      if (lane == 0u && changed) slot[r & 1] = h;
      if (SHAPE == 8) {
        bsync_or(0, all, lane == 0u && changed);
        if (!last) bsync(1, join);
      } else if (SHAPE == 7) {
        ladder_fn_loop_or(slots, (unsigned)r, all, false, changed, workers);
      } else if (SHAPE == 9) {
        ladder_fn_loop_nows(slots, (unsigned)r, all, false);
      } else if (SHAPE == 0 || SHAPE == 6) {
        bsync(0, all);
        if (!last) bsync(1, join);
        if (SHAPE == 6 && !last) {  // fold the partials: 16-byte loads issued together
          const int4* q = reinterpret_cast<const int4*>(part[r & 1]);
          int acc = 0;
          for (unsigned w = 0; w < workers / 32u; w += 4u) {
            const int4 v = q[w / 4u];
            acc += v.x + (w + 1u < workers / 32u ? v.y : 0) + (w + 2u < workers / 32u ? v.z : 0) +
                   (w + 3u < workers / 32u ? v.w : 0);
          }
          total += acc;
        }
      } else if (SHAPE == 1 || SHAPE == 2) {
        ladder_fn(last ? 0u : join, all, SHAPE == 2);
      } else if (SHAPE == 3) {
        ladder_fn_loop(slots, (unsigned)r, all, false);
      } else {
        bsync(0, all);
        if (!last) bsync(1, join);
      }
      if (r == R && lane == 0u) {
        out[0] = clock64() - c0;
        out[1] = ref;
        out[2] = SHAPE == 6 ? total == (long long)R * workers : 1;
      }
    }
    return;
  }
  uint4 h = make_uint4(0u, 0u, 0u, 0u);
  for (unsigned r = 1;; ++r) {
    const unsigned at = slots + (r & 1u) * 16u;
    if (SHAPE == 7 || SHAPE == 8) {
      __syncwarp();
      if (bsync_or(0, all, false)) h = ld_vol4(at);
    } else {
      bsync(0, all);
      h = ld_vol4(at);
    }
    if (h.x == 0u) return;
    delay(((long long)h.w << 32) | h.z);
    if (SHAPE == 6) {
      const int v = __reduce_add_sync(0xffffffffu, 1);
      if ((threadIdx.x & 31u) == 0u) part[r & 1u][threadIdx.x / 32u] = v;
    }
    bsync(1, ((h.y + 31u) & ~31u) + 32u);
  }
}

// --- 10. the early-join anomaly (issue 8, i8-fj-floor): one region of R team barriers, fork
// and join inlined in the master's code (lone: a block of 32 W + 1 threads; conv: a converged
// master warp of 32 threads). MODE 0 reads clock64 right after the join barrier; MODE 1 first
// loads a word that thread 0 wrote after its last team barrier and reads the clock only on a
// branch that depends on that load (it cannot run before the join has completed); MODE 2 puts
// a __threadfence_block() before the clock read. check=BAD: the loaded word was not R (a join
// that returned before the region ended). If MODE 0 is ~0 cycles per barrier while MODE 1 is
// the team barrier's cost, the anomaly is the clock read, not the join.
template <int MODE, bool LONE>
__global__ void k_join_timing(long long* out, int R, long long d) {
  __shared__ volatile int flag;
  const unsigned all = (blockDim.x + 31u) & ~31u;
  const unsigned workers = all - 32u;
  const unsigned master_warp = (blockDim.x - 1u) / 32u;
  const unsigned lane = threadIdx.x & 31u;
  if (threadIdx.x / 32u == master_warp) {
    long long ref = 0;
    if (lane == 0u) {
      flag = 0;
      ref = ref_time(R, d);
    }
    if (!LONE) __syncwarp();
    const long long c0 = clock64();
    bsync(0, all);
    bsync(1, all);
    long long c1 = 0;
    int v = R;
    if (MODE == 0) {
      c1 = clock64();
      v = flag;
    } else if (MODE == 1) {
      v = flag;
      if (v == R) c1 = clock64();
    } else {
      __threadfence_block();
      c1 = clock64();
      v = flag;
    }
    if (lane == 0u) {
      out[0] = c1 - c0;
      out[1] = ref;
      out[2] = v == R;
    }
    return;
  }
  bsync(0, all);
  for (int r = 0; r < R; ++r) {
    delay(d);
    bsync(2, workers);
  }
  if (threadIdx.x == 0u) flag = R;
  bsync(1, all);
}

// --- 8. the library: occ::fj as in the tree, occ::fj_old / fj_oldx (see the top).
// KIND 0: parallel (a const region running the delay), 1: parallel_sum (each thread returns 1),
// 2: one region of R user barriers (delay, barrier), 3: parallel of a non-const (shared
// members, copied back) region, 4: R / 100 regions of 100 user barriers each, after which
// thread 0 sets a shared member that the master checks after the join (check=BAD: a join that
// returned before the region ended; cycles_per_region is then per barrier).
#define FJ_LIB(NS)                                                                        \
  namespace probe_##NS {                                                                  \
  struct Nop {                                                                            \
    long long d;                                                                          \
    __device__ void operator()(occ::NS::Thread&) const { delay(d); }                      \
  };                                                                                      \
  struct One {                                                                            \
    long long d;                                                                          \
    __device__ int operator()(occ::NS::Thread&) const {                                   \
      delay(d);                                                                           \
      return 1;                                                                           \
    }                                                                                     \
  };                                                                                      \
  struct Bars {                                                                           \
    long long d;                                                                          \
    int R;                                                                                \
    __device__ void operator()(occ::NS::Thread& t) const {                                \
      for (int r = 0; r < R; ++r) {                                                       \
        delay(d);                                                                         \
        t.barrier();                                                                      \
      }                                                                                   \
    }                                                                                     \
  };                                                                                      \
  /* thread 0 sets `done` after R team barriers: the master must see it after the join */ \
  struct Late {                                                                           \
    long long d;                                                                          \
    int R;                                                                                \
    int done;                                                                             \
    __device__ void operator()(occ::NS::Thread& t) {                                      \
      for (int r = 0; r < R; ++r) {                                                       \
        delay(d);                                                                         \
        t.barrier();                                                                      \
      }                                                                                   \
      if (t.thread_num() == 0u) done = 1;                                                 \
    }                                                                                     \
  };                                                                                      \
  struct Shared {                                                                         \
    long long d;                                                                          \
    int hits;                                                                             \
    __device__ void operator()(occ::NS::Thread& t) {                                      \
      delay(d);                                                                           \
      if (t.thread_num() == 0u) hits += 1;                                                \
    }                                                                                     \
  };                                                                                      \
  /* the same as Nop, 6th in the run's list (the dispatch chain's depth) */               \
  struct Nop6 {                                                                           \
    long long d;                                                                          \
    __device__ void operator()(occ::NS::Thread&) const { delay(d + 1); }                  \
  };                                                                                      \
  template <int KIND>                                                                     \
  __global__ void k(long long* out, int R, long long d) {                                 \
    __shared__ occ::NS::Team team;                                                        \
    __shared__ alignas(16) unsigned char st[256];                                         \
    team.setup(st, sizeof st, nullptr, 0);                                                \
    occ::NS::run<Nop, One, Bars, Shared, Late, Nop6>(                                     \
        team, [&](occ::NS::Master<Nop, One, Bars, Shared, Late, Nop6>& m) {               \
          const long long ref = ref_time(R, d);                                           \
          long long total = 0;                                                            \
          Shared sh{d, 0};                                                                \
          m.parallel(m.max_threads(), Nop{d}); /* warm-up */                              \
          const long long c0 = clock64();                                                 \
          if (KIND == 0) {                                                                \
            for (int r = 0; r < R; ++r) m.parallel(m.max_threads(), Nop{d});              \
          } else if (KIND == 1) {                                                         \
            for (int r = 0; r < R; ++r) total += m.parallel_sum(m.max_threads(), One{d}); \
          } else if (KIND == 2) {                                                         \
            m.parallel(m.max_threads(), Bars{d, R});                                      \
          } else if (KIND == 3) {                                                         \
            for (int r = 0; r < R; ++r) m.parallel(m.max_threads(), sh);                  \
          } else if (KIND == 5) {                                                         \
            for (int r = 0; r < R; ++r) m.parallel(m.max_threads(), Nop6{d});             \
          } else {                                                                        \
            for (int r = 0; r < R / 100; ++r) {                                           \
              Late l{d, 100, 0};                                                          \
              m.parallel(m.max_threads(), l);                                             \
              total += l.done;                                                            \
            }                                                                             \
          }                                                                               \
          out[0] = clock64() - c0;                                                        \
          out[1] = ref;                                                                   \
          out[2] = KIND == 1   ? (total == (long long)R * m.max_threads())                \
                   : KIND == 3 ? (sh.hits == R)                                           \
                   : KIND == 4 ? (total == R / 100)                                       \
                               : 1;                                                       \
        });                                                                               \
  }                                                                                       \
  }

FJ_LIB(fj)
#ifdef FJ_OLD
#include "fj_old.cuh"
#include "fj_oldx.cuh"
FJ_LIB(fj_old)
FJ_LIB(fj_oldx)
#endif
#ifdef FJ_X
#include "fj_x.cuh"
FJ_LIB(fj_x)
#endif
#ifdef FJ_PREV
#include "fj_prev.cuh"
FJ_LIB(fj_prev)
#endif


typedef void (*Kernel)(long long*, int, long long);
struct Variant {
  const char* name;
  Kernel k;
  int lone;  // 1: a block of 32 W + 1 threads (the master warp is one thread)
};

int main(int argc, char** argv) {
  const Variant vs[] = {
      {"team_barrier(EPCC barrier floor)", k_team_barrier},
      {"sync0+sync1/master-converged", k_sync_conv<false>},
      {"sync0+sync1.aligned/master-converged", k_sync_conv<true>},
      {"sync0+sync1/master-lane0-apart(lib shape)", k_sync_div},
      {"sync0+sync1/master-lanes-exit", k_sync_exit},
      {"arrive0+sync1/master-converged", k_arrive<0>},
      {"arrive0+sync1/master-lanes-exit", k_arrive<1>},
      {"arrive0+sync1/master-lane0-apart", k_arrive<2>},
      {"sync0+(workers arrive1, master sync1)/master-converged", k_mixed<0>},
      {"sync0+(workers arrive1, master sync1)/master-lane0-apart", k_mixed<2>},
      {"arrive0+sync1/lanes-exit+slot", k_arrive_slot<0>},
      {"arrive0+sync1/lanes-exit+slot+reduction", k_arrive_slot<1>},
      {"poll-fork+poll-join", k_poll<0>},
      {"arrive0-fork+poll-join/lanes-exit+slot", k_bar_poll<0>},
      {"arrive0-fork+poll-join/lanes-exit+slot+reduction", k_bar_poll<1>},
      {"poll-fork+arrive/sync-join", k_poll<1>},
      {"ladder0:slot/master-converged", k_ladder<0>},
      {"ladder1:slot/lane0+fn(syncwarp)", k_ladder<1>},
      {"ladder2:slot/lane0+fn(syncwarp+shfl)", k_ladder<2>},
      {"ladder3:slot/lane0+fn-loop(load count)", k_ladder<3>},
      {"ladder4:slot/lanes-exit", k_ladder<4>},
      {"ladder5:slot/lone-master(32W+1)", k_ladder<5>, 1},
      {"ladder6:slot+reduction/master-converged", k_ladder<6>},
      {"ladder7:slot-cached(red.or)/lane0+fn-loop", k_ladder<7>},
      {"ladder7:slot-cached(red.or)/lone-master(32W+1)", k_ladder<7>, 1},
      {"ladder8:slot-cached(red.or)/master-converged", k_ladder<8>},
      {"risky9:slot/lane0+fn-loop(no syncwarp)", k_ladder<9>},
      {"jointime:lone-inline/clock-after-join", k_join_timing<0, true>, 1},
      {"jointime:lone-inline/clock-after-dependent-load", k_join_timing<1, true>, 1},
      {"jointime:lone-inline/fence-then-clock", k_join_timing<2, true>, 1},
      {"jointime:conv-inline/clock-after-join", k_join_timing<0, false>},
      {"jointime:conv-inline/clock-after-dependent-load", k_join_timing<1, false>},
      {"jointime:conv-inline/fence-then-clock", k_join_timing<2, false>},
#define FJ_LIB_ROWS(NS)                                          \
  {"lib-" #NS ":parallel", probe_##NS::k<0>},                    \
      {"lib-" #NS ":parallel_sum", probe_##NS::k<1>},            \
      {"lib-" #NS ":barrier-in-region", probe_##NS::k<2>},       \
      {"lib-" #NS ":parallel(shared members)", probe_##NS::k<3>},           \
      {"lib-" #NS ":join-waits(shared member set after 100 team barriers)", probe_##NS::k<4>}, \
      {"lib-" #NS ":parallel(6th region of the list)", probe_##NS::k<5>},
      FJ_LIB_ROWS(fj)
#define FJ_LIB_LONE_ROWS(NS)                                                      \
  {"lone-" #NS ":parallel", probe_##NS::k<0>, 1},                             \
      {"lone-" #NS ":parallel_sum", probe_##NS::k<1>, 1},                     \
      {"lone-" #NS ":barrier-in-region", probe_##NS::k<2>, 1},                \
      {"lone-" #NS ":parallel(shared members)", probe_##NS::k<3>, 1},         \
      {"lone-" #NS ":join-waits(shared member set after 100 team barriers)", \
       probe_##NS::k<4>, 1},                                                      \
      {"lone-" #NS ":parallel(6th region of the list)", probe_##NS::k<5>, 1},
      FJ_LIB_LONE_ROWS(fj)
#ifdef FJ_X
      FJ_LIB_ROWS(fj_x)
#endif
#ifdef FJ_PREV
      FJ_LIB_ROWS(fj_prev)
#endif

#ifdef FJ_OLD
      FJ_LIB_ROWS(fj_old)
      FJ_LIB_ROWS(fj_oldx)
#endif
      {"UNSAFE:lane0-arrive0,lanes1-31-sync0", k_mixed<3>},  // last: may hang
  };
  // Arguments: [FILTER [R [LAUNCHES]]]. FILTER: a substring of the variant names, "#N" (the
  // N-th variant alone), "--count" (print how many variants there are) or "all".
  const int nv = (int)(sizeof vs / sizeof vs[0]);
  if (argc > 1 && strcmp(argv[1], "--count") == 0) {
    printf("%d\n", nv);
    return 0;
  }
  const char* only = argc > 1 && strcmp(argv[1], "all") != 0 ? argv[1] : nullptr;
  const int index = only != nullptr && only[0] == '#' ? atoi(only + 1) : -1;
  const int R = argc > 2 ? atoi(argv[2]) : 2000;
  const int launches = argc > 3 ? atoi(argv[3]) : 3;
  const int Ws[] = {1, 4, 16, 31};
  const long long ds[] = {0, 100};
  long long* d_out = nullptr;
  cudaMalloc(&d_out, 3 * sizeof(long long));
  int bad = 0;
  for (int vi = 0; vi < nv; ++vi) {
    const Variant& v = vs[vi];
    if (index >= 0 && vi != index) continue;
    if (index < 0 && only != nullptr && strstr(v.name, only) == nullptr) continue;
    if (index < 0 && only == nullptr && strncmp(v.name, "UNSAFE", 6) == 0) continue;
    for (long long d : ds) {
      for (int W : Ws) {
        long long best = -1, ref = 0, ok = 1;
        for (int rep = 0; rep < launches; ++rep) {  // best of the launches (the first warms up)
          cudaMemset(d_out, 0, 3 * sizeof(long long));
          v.k<<<1, v.lone ? 32 * W + 1 : 32 * (W + 1)>>>(d_out, R, d);
          long long h[3] = {0, 0, 0};
          const cudaError_t e = cudaDeviceSynchronize();
          cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
          if (e != cudaSuccess) {
            printf("fjprobe %s W=%d d=%lld error=%s\n", v.name, W, d, cudaGetErrorString(e));
            return 2;
          }
          if (h[2] != 1) ok = 0;
          const long long over = h[0] - h[1];
          if (best < 0 || over < best) {
            best = over;
            ref = h[1];
          }
        }
        if (!ok) bad = 1;
        printf("fjprobe %-44s W=%2d workers=%4d d=%lld cycles_per_region=%8.1f ref_per_delay=%6.1f check=%s\n",
               v.name, W, 32 * W, d, (double)best / R, (double)ref / R, ok ? "ok" : "BAD");
      }
    }
    fflush(stdout);
  }
  return bad;
}
