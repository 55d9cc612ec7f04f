// racecheck probe (scripts/gpu-forkjoin.sh): a region member written by thread 0 and copied back
// by the master after the join, a parallel_sum, and a partial-warp region. Built twice by nvcc on
// the GPU machine: against forkjoin.cuh as it is, and against a copy whose master-warp lanes 1-31
// exit at once (the earlier design). Prints the result; exit status 1 if it is wrong. Then times
// 2000 empty regions of 32 and of 992 workers (clock64 in the master: cycles per fork + join),
// to show what the master-warp lanes that follow fork and join cost.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "forkjoin.cuh"

struct Out {
  int base;
  int sum;
  __device__ void operator()(occ::fj::Thread& t) {
    const int s = t.reduce_sum(1);
    t.master([&] { sum = s + base; });
  }
};
struct One {
  __device__ int operator()(occ::fj::Thread&) const { return 1; }
};
struct Nop {
  __device__ void operator()(occ::fj::Thread&) const {}
};

__global__ void timing(long long* out, int reps) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char st[256];
  team.setup(st, sizeof st, nullptr, 0);
  occ::fj::run<Nop>(team, [&](occ::fj::Master<Nop>& m) {
    m.parallel(m.max_threads(), Nop{});  // warm-up
    const long long c0 = clock64();
    for (int r = 0; r < reps; ++r) m.parallel(m.max_threads(), Nop{});
    *out = (clock64() - c0) / reps;
  });
}

__global__ void probe(int* out, int reps) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char st[256];
  team.setup(st, sizeof st, nullptr, 0);
  occ::fj::run<Out, One>(team, [&](occ::fj::Master<Out, One>& m) {
    int acc = 0;
    for (int r = 0; r < reps; ++r) {
      Out a{r, 0};
      m.parallel(m.max_threads(), a);
      acc += a.sum;
      acc += m.parallel_sum(m.max_threads(), One{});
      Out b{r, 0};
      m.parallel(40, b);
      acc += b.sum;
    }
    out[blockIdx.x] = acc;
  });
}

// --- The EPCC bench's racecheck report (issue 8): the `parallel_sum` partials, written by lane
// 0 of each worker warp before the join of region r + 2 and read by the master after the join
// of region r. `epcc MASK W [REPS [D]]` runs, in one block of 32 (W + 1) threads, the EPCC
// constructs whose bit is set in MASK (1 parallel, 2 for, 4 parallel for, 8 barrier, 16 single;
// the same regions as forkjoin_bench.cu), then REPS back-to-back reductions (each thread
// returns 1 after a D-cycle delay), and checks the sum: run each under racecheck to find which
// construct before the reductions makes racecheck report the pair.
__device__ __forceinline__ void rc_delay(long long d) {
  const long long t0 = clock64();
  while (clock64() - t0 < d) {
  }
}
struct RcPar {
  long long d;
  __device__ void operator()(occ::fj::Thread&) const { rc_delay(d); }
};
struct RcFor {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    const long long n = t.num_threads();
    for (int r = 0; r < reps; ++r) t.for_static(0, n, [&](long long) { rc_delay(d); });
  }
};
struct RcParFor {
  long long d;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_nowait(0, t.num_threads(), [&](long long) { rc_delay(d); });
  }
};
struct RcBar {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    for (int r = 0; r < reps; ++r) {
      rc_delay(d);
      t.barrier();
    }
  }
};
struct RcSingle {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    for (int r = 0; r < reps; ++r) t.single([&] { rc_delay(d); });
  }
};
struct RcRed {
  long long d;
  __device__ int operator()(occ::fj::Thread&) const {
    rc_delay(d);
    return 1;
  }
};
#define RC_REGIONS RcPar, RcFor, RcParFor, RcBar, RcSingle, RcRed
__global__ void epcc_mask(int* out, unsigned mask, int reps, long long d) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char st[256];
  team.setup(st, sizeof st, nullptr, 0);
  occ::fj::run<RC_REGIONS>(team, [&](occ::fj::Master<RC_REGIONS>& m) {
    const unsigned n = m.max_threads();
    if (mask & 1u) {
      for (int r = 0; r < reps; ++r) m.parallel(n, RcPar{d});
    }
    if (mask & 2u) m.parallel(n, RcFor{d, reps});
    if (mask & 4u) {
      for (int r = 0; r < reps; ++r) m.parallel(n, RcParFor{d});
    }
    if (mask & 8u) m.parallel(n, RcBar{d, reps});
    if (mask & 16u) m.parallel(n, RcSingle{d, reps});
    int total = 0;
    for (int r = 0; r < reps; ++r) total += m.parallel_sum(n, RcRed{d});
    *out = total;
  });
}

int epcc_main(int argc, char** argv) {
  const unsigned mask = (unsigned)strtoul(argv[2], nullptr, 0);
  const int W = argc > 3 ? atoi(argv[3]) : 2;
  const int reps = argc > 4 ? atoi(argv[4]) : 10;
  const long long d = argc > 5 ? atoll(argv[5]) : 100;
  int* o = nullptr;
  cudaMalloc(&o, sizeof(int));
  cudaMemset(o, 0, sizeof(int));
  epcc_mask<<<1, 32 * (W + 1)>>>(o, mask, reps, d);
  int h = 0;
  const cudaError_t e = cudaMemcpy(&h, o, sizeof h, cudaMemcpyDeviceToHost);
  const int want = reps * 32 * W;
  printf("probe: epcc mask=%u W=%d reps=%d d=%lld: %s, sum %d, expected %d\n", mask, W, reps, d,
         cudaGetErrorString(e), h, want);
  return (e == cudaSuccess && h == want) ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "epcc") == 0) return epcc_main(argc, argv);
  int* d = nullptr;
  const int blocks = 2, threads = 128, reps = 20, w = threads - 32;
  cudaMalloc(&d, blocks * sizeof(int));
  probe<<<blocks, threads>>>(d, reps);
  int h[blocks];
  const cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int want = 0;
  for (int r = 0; r < reps; ++r) want += (w + r) + w + (40 + r);
  printf("probe: %s, block 0 %d, block 1 %d, expected %d\n", cudaGetErrorString(e), h[0], h[1], want);
  long long* c = nullptr;
  cudaMalloc(&c, sizeof(long long));
  const int shapes[2] = {64, 1024};
  for (int t : shapes) {
    long long cyc = -1;
    timing<<<1, t>>>(c, 2000);
    cudaMemcpy(&cyc, c, sizeof cyc, cudaMemcpyDeviceToHost);
    printf("probe: empty region, %d workers: %lld cycles per fork + join\n", t - 32, cyc);
  }
  return (e == cudaSuccess && h[0] == want && h[1] == want) ? 0 : 1;
}
