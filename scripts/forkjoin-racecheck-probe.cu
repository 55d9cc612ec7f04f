// racecheck probe (scripts/gpu-forkjoin.sh): a region member written by thread 0 and copied back
// by the master after the join, a parallel_sum, and a partial-warp region. Built twice by nvcc on
// the GPU machine: against forkjoin.cuh as it is, and against a copy whose master-warp lanes 1-31
// exit at once (the earlier design). Prints the result; exit status 1 if it is wrong. Then times
// 2000 empty regions of 32 and of 992 workers (clock64 in the master: cycles per fork + join),
// to show what the master-warp lanes that follow fork and join cost.
#include <cstdio>
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

int main() {
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
