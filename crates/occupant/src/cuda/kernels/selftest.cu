// Kernels the CUDA backend's own tests and benchmarks launch (tests/gpu_*.rs, occupant bench
// launch). Every helper of memory.cuh and watchdog.cuh is used here at least once, so that
// compiling this file (tests/nvrtc_compile.rs, on CI without a GPU) checks the whole library.
#include <occupant.cuh>

// The empty kernel: launch overhead.
extern "C" __global__ void occ_empty() {}

// Adds `v` to every element: buffers, copies, argument passing.
extern "C" __global__ void occ_add(unsigned* data, unsigned n, unsigned v) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += v;
}

// Message passing between block 0 (producer) and block 1 (consumer), `rounds` times: the
// producer writes data[] with plain stores, then st_release(flag, r); the consumer waits for
// ld_acquire(flag) == r, reads data[], counts every stale value in *violations, acknowledges
// with st_release(ack, r). Launch with 2 blocks of 1 thread.
extern "C" __global__ void occ_message_passing(unsigned* flag, unsigned* ack, unsigned* data, unsigned words,
                                               unsigned rounds, unsigned* violations) {
  if (threadIdx.x != 0) return;
  for (unsigned r = 1; r <= rounds; ++r) {
    if (blockIdx.x == 0) {
      for (unsigned w = 0; w < words; ++w) data[w * 32] = r;  // one word per 128-byte line
      occ::st_release(flag, r);
      if (!occ::wait_until(occ::MessagePassing, [&] { return occ::ld_acquire(ack) == r; })) return;
    } else if (blockIdx.x == 1) {
      if (!occ::wait_until(occ::MessagePassing, [&] { return occ::ld_acquire(flag) == r; })) return;
      unsigned bad = 0;
      for (unsigned w = 0; w < words; ++w) bad += occ::ld_relaxed(&data[w * 32]) != r;
      if (bad) occ::atomic_add_relaxed(violations, bad);
      occ::st_release(ack, r);
    }
  }
}

// A naive one-shot spin barrier across the whole grid: deadlocks (and is caught by the
// watchdog) when the grid has more blocks than can be co-resident. *done counts blocks that
// passed.
extern "C" __global__ void occ_naive_barrier(unsigned* count, unsigned* done) {
  __shared__ bool ok;
  if (threadIdx.x == 0) {
    unsigned n = gridDim.x * gridDim.y * gridDim.z;
    occ::atomic_add_acq_rel(count, 1u);
    ok = occ::wait_until(occ::NaiveBarrier, [&] { return occ::ld_acquire(count) >= n; });
  }
  __syncthreads();
  if (!ok) return;
  if (threadIdx.x == 0) occ::atomic_add_relaxed(done, 1u);
}

// Uses the remaining helpers (64-bit, other orders, fences, _sys and _cta scopes) so that all
// of them are compiled; stores results so nothing is optimised away.
extern "C" __global__ void occ_helpers(unsigned* u, unsigned long long* w, unsigned* host_u) {
  __shared__ unsigned s;
  if (threadIdx.x == 0) occ::st_relaxed_cta(&s, 0u);
  __syncthreads();
  occ::atomic_add_relaxed_cta(&s, 1u);
  __syncthreads();
  unsigned a = occ::ld_acquire_cta(&s);
  a += occ::atomic_add_acquire(&u[0], 1u) + occ::atomic_add_release(&u[1], 1u);
  a += occ::atomic_exch_acq_rel(&u[2], a) + occ::atomic_exch_acquire(&u[3], 1u);
  a += occ::atomic_exch_release(&u[4], 2u) + occ::atomic_exch_relaxed(&u[5], 3u);
  a += occ::atomic_cas_acquire(&u[6], 0u, 1u) + occ::atomic_cas_relaxed(&u[7], 0u, 1u);
  occ::fence_acq_rel();
  occ::fence_sc();
  unsigned long long b = occ::ld_acquire(&w[0]) + occ::ld_relaxed(&w[1]);
  b += occ::atomic_add_acq_rel(&w[2], 1ull) + occ::atomic_cas_acq_rel(&w[3], 0ull, b);
  b += occ::atomic_exch_acq_rel(&w[4], b);
  occ::st_release(&w[5], b);
  occ::st_relaxed(&w[6], occ::globaltimer());
  occ::st_release_sys(host_u, a + occ::ld_acquire_sys(host_u) + occ::atomic_add_acq_rel_sys(host_u, 1u));
  occ::fence_sc_sys();
  occ::fence_acq_rel_cta();
  occ::st_relaxed(&u[8], a + (occ::aborted() ? 1u : 0u) + occ::block_linear_id());
}
