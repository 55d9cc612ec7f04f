// Semantics tests of occ::fj (forkjoin.cuh), the GPU twin of crates/occupant/tests/cpu_forkjoin.rs.
// One kernel, `fj_semantics`, runs every check in every block and writes one value per check to
// out[block * FJ_CHECKS + i]; the host (occupant::cuda::forkjoin::semantics) compares them with
// the expected values of occupant::cpu::forkjoin::expected_checks.
#include <occupant.cuh>

#define FJ_CHECKS 20

// 1. values shared in and out: every thread adds base + tid to `sum` (atomically) and thread 0
//    writes `seen_n`; the master reads both after the join.
struct ShareInOut {
  int base;
  int sum;
  unsigned seen_n;
  __device__ void operator()(occ::fj::Thread& t) {
    atomicAdd(&sum, base + (int)t.thread_num());
    t.master([&] { seen_n = t.num_threads(); });
  }
};

// 2. reductions of every type; thread 0 stores the results.
struct Reductions {
  long long isum;
  int imin;
  unsigned umax;
  float fsum;
  double dmax;
  unsigned long long usum;
  __device__ void operator()(occ::fj::Thread& t) {
    const unsigned i = t.thread_num();
    const int a = t.reduce_sum((int)i);
    const int b = t.reduce_min((int)i - 7);
    const unsigned c = t.reduce_max(i * 3u);
    const float d = t.reduce_sum(0.5f);
    const double e = t.reduce_max((double)i * 0.25);
    const unsigned long long f = t.reduce_sum((unsigned long long)i << 33);
    t.master([&] {
      isum = a;
      imin = b;
      umax = c;
      fsum = d;
      dmax = e;
      usum = f;
    });
  }
};

// 3. barriers: each thread writes its slot, barrier, reads its neighbour's; three rounds.
struct Barriers {
  int* slots;  // on the data-sharing stack
  int checksum;
  __device__ void operator()(occ::fj::Thread& t) {
    const unsigned n = t.num_threads(), i = t.thread_num();
    int acc = 0;
    for (int round = 0; round < 3; ++round) {
      slots[i] = (int)i * 10 + round;
      t.barrier();
      acc += slots[(i + 1u) % n];
      t.barrier();
    }
    const int total = t.reduce_sum(acc);
    t.master([&] { checksum = total; });
  }
};

// 4. worksharing: every iteration of each schedule is run exactly once.
struct Worksharing {
  unsigned* hits;  // 3 * len counters (global)
  int len;
  __device__ void operator()(occ::fj::Thread& t) {
    t.for_static(0, len, [&](long long i) { atomicAdd(&hits[i], 1u); });
    t.for_static_chunk(0, len, 3, [&](long long i) { atomicAdd(&hits[len + i], 1u); });
    t.for_dynamic(0, len, 5, [&](long long i) { atomicAdd(&hits[2 * len + i], 1u); });
    t.for_dynamic(0, len, 2, [&](long long i) { atomicAdd(&hits[2 * len + i], 1u); });
  }
};

// 5. single: runs once per construct.
struct Single {
  unsigned count;
  __device__ void operator()(occ::fj::Thread& t) {
    for (int k = 0; k < 4; ++k) t.single([&] { count += 1u; });
  }
};

// 6. nested: an inner region runs serially with one thread at level 2.
struct Nested {
  unsigned inner_threads_sum;
  unsigned inner_level_max;
  __device__ void operator()(occ::fj::Thread& t) {
    unsigned threads = 0, level = 0;
    t.parallel(8u, [&](occ::fj::Thread& in) {
      threads = in.num_threads();
      level = in.level();
      int s = 0;
      in.for_static(0, 10, [&](long long i) { s += (int)i; });
      in.barrier();
      s = in.reduce_sum(s);
      if (s != 45) threads = 1000u;
    });
    const unsigned a = t.reduce_sum(threads);
    const unsigned b = t.reduce_max(level);
    t.master([&] {
      inner_threads_sum = a;
      inner_level_max = b;
    });
  }
};

// 7. the data-sharing stack spilled to global memory: a big array pushed by the master.
struct Spill {
  int* big;
  int len;
  long long sum;
  __device__ void operator()(occ::fj::Thread& t) {
    t.for_static(0, len, [&](long long i) { big[i] = (int)i; });
    long long s = 0;
    t.for_static_nowait(0, len, [&](long long i) { s += big[len - 1 - i]; });
    s = t.reduce_sum(s);
    t.master([&] { sum = s; });
  }
};

// 9. parallel_sum/min/max (OpenMP's reduction clause) over const regions: each thread returns a
//    value (its members arrive in registers with the fork), folded at the join.
struct SumIds {
  long long base;
  __device__ long long operator()(occ::fj::Thread& t) const {
    return base + (long long)t.thread_num();
  }
};
struct MaxHalf {
  __device__ double operator()(occ::fj::Thread& t) const { return (double)t.thread_num() * 0.5; }
};
struct MinDown {
  int top;
  __device__ int operator()(occ::fj::Thread& t) const { return top - (int)t.thread_num(); }
};

// 10. a const region larger than the descriptor's inline bytes: it travels on the stack.
struct BigConst {
  int vals[20];
  unsigned pad[4];
  __device__ unsigned operator()(occ::fj::Thread&) const {
    unsigned s = 0;
    for (int i = 0; i < 20; ++i) s += (unsigned)vals[i];
    return s;
  }
};

#define FJ_REGIONS                                                                        \
  ShareInOut, Reductions, Barriers, Worksharing, Single, Nested, Spill, SumIds, MaxHalf, \
      MinDown, BigConst

// `n_small` is the thread count of the partial-warp regions (e.g. 40: one full warp + 8 lanes).
extern "C" __global__ void __launch_bounds__(1024) fj_semantics(long long* out, unsigned* hits, int hits_len,
                                        unsigned char* spill, unsigned spill_per_block,
                                        unsigned n_small) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char stack[512];
  team.setup(stack, sizeof stack, spill + (size_t)blockIdx.x * spill_per_block, spill_per_block);
  long long* o = out + (size_t)blockIdx.x * FJ_CHECKS;
  unsigned* h = hits + (size_t)blockIdx.x * 3u * (unsigned)hits_len;
  occ::fj::run<FJ_REGIONS>(team, [&](occ::fj::Master<FJ_REGIONS>& m) {
    const unsigned all = m.max_threads();
    ShareInOut s{100, 0, 0};
    m.parallel(all, s);
    o[0] = s.sum;
    o[1] = s.seen_n;
    ShareInOut s2{7, 0, 0};
    m.parallel(n_small, s2);  // fewer threads than the pool, a partial warp
    o[2] = s2.sum;
    Reductions r{};
    m.parallel(n_small, r);
    o[3] = r.isum;
    o[4] = r.imin;
    o[5] = r.umax;
    o[6] = (long long)(r.fsum * 2.0f);
    o[7] = (long long)(r.dmax * 4.0);
    o[8] = (long long)(r.usum >> 33);
    const unsigned long long mk = m.mark();
    Barriers b{m.push<int>(all), 0};
    m.parallel(n_small, b);
    o[9] = b.checksum;
    m.release(mk);
    Worksharing w{h, hits_len};
    m.parallel(all, w);
    Single sg{0};
    m.parallel(n_small, sg);
    o[10] = sg.count;
    Nested nz{0, 0};
    m.parallel(all, nz);
    o[11] = nz.inner_threads_sum;
    o[12] = nz.inner_level_max;
    const int len = 1000;  // 4000 bytes: more than the 512-byte shared stack
    Spill sp{m.push<int>(len), len, 0};
    const bool ran = sp.big != nullptr && m.parallel(all, sp);
    o[13] = ran ? sp.sum : -1;
    o[14] = m.spilled_bytes() >= (unsigned)(len * 4) ? 1 : 0;
    ShareInOut solo{5, 0, 0};
    m.parallel_if(false, all, solo);  // the `if` clause false: the master alone
    o[15] = (long long)solo.sum * 1000 + solo.seen_n;
    o[16] = m.parallel_sum(n_small, SumIds{3});
    o[17] = (long long)(m.parallel_max(all, MaxHalf{}) * 2.0);
    o[18] = m.parallel_min(n_small, MinDown{10});
    BigConst big{};
    for (int i = 0; i < 20; ++i) big.vals[i] = i;
    o[19] = (long long)m.parallel_sum(n_small, big);
  });
}

// fj_descriptors: regions forked again with the same words, with other words, after another
// region type, after a non-const region, with fewer threads and under another reduction - the
// cases where a worker may reuse the descriptor it holds (OCC_FJ_CACHE) or must load it.
// out[block * 16 + i] = the i-th result; the host computes the expected values.
struct DescV {
  int v;
  __device__ int operator()(occ::fj::Thread&) const { return v; }
};
struct DescW {
  long long a;
  int b;
  __device__ int operator()(occ::fj::Thread& t) const { return (int)a + b + (int)(t.thread_num() & 1u); }
};
struct DescShared {
  int hits;
  __device__ void operator()(occ::fj::Thread& t) {
    if (t.thread_num() == 0u) hits += 1;
  }
};
#define FJ_DESC_REGIONS DescV, DescW, DescShared

extern "C" __global__ void __launch_bounds__(1024) fj_descriptors(long long* out, unsigned n_small) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char stack[256];
  team.setup(stack, sizeof stack, nullptr, 0);
  long long* o = out + (size_t)blockIdx.x * 16u;
  occ::fj::run<FJ_DESC_REGIONS>(team, [&](occ::fj::Master<FJ_DESC_REGIONS>& m) {
    const unsigned all = m.max_threads();
    o[0] = m.parallel_sum(all, DescV{1});
    o[1] = m.parallel_sum(all, DescV{1});  // the same words
    o[2] = m.parallel_sum(all, DescV{2});  // the same type, another value
    o[3] = m.parallel_sum(all, DescW{3, 4});  // another type (two words)
    o[4] = m.parallel_sum(all, DescV{2});  // back to the words of two forks ago
    o[5] = m.parallel_sum(n_small, DescV{2});  // fewer threads
    DescShared sh{0};
    m.parallel(all, sh);  // a non-const region (in the slot's shared words)
    o[6] = sh.hits;
    o[7] = m.parallel_sum(n_small, DescV{2});  // the same words as before the shared region
    o[8] = m.parallel_max(n_small, DescV{2});  // another reduction
    long long s = 0;
    for (int i = 0; i < 10; ++i) s += m.parallel_sum(all, DescW{5, 6});
    o[9] = s;
    o[10] = m.parallel_sum(all, DescW{5, 7});
    m.parallel(n_small, sh);
    o[11] = sh.hits;
    o[12] = m.parallel_sum(all, DescW{5, 7});
    o[13] = m.parallel_min(all, DescV{-3});
    o[14] = m.parallel_sum(all, DescV{-3});
    o[15] = m.parallel_sum(1u, DescV{-3});
  });
}
