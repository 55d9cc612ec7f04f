// occ::fj's debug mode (OCC_FJ_DEBUG 1): the team barrier is a software barrier watched by the
// watchdog, and barrier counts are compared at the join. `skip` >= 0 makes that thread skip
// the region's barrier: the launch must end with Error::Deadlock (primitive fork_join), not
// hang. out[0] = 1 when parallel() reported success.
#define OCC_FJ_DEBUG 1
#include <occupant.cuh>

struct MaybeSkip {
  int skip;
  int sum;
  __device__ void operator()(occ::fj::Thread& t) {
    if ((int)t.thread_num() != skip) t.barrier();
    const int s = t.reduce_sum(1);
    t.master([&] { sum = s; });
  }
};

extern "C" __global__ void fj_debug(int skip, int* out) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char stack[256];
  team.setup(stack, sizeof stack, nullptr, 0);
  occ::fj::run<MaybeSkip>(team, [&](occ::fj::Master<MaybeSkip>& m) {
    MaybeSkip r{skip, 0};
    const bool ok = m.parallel(m.max_threads(), r);
    out[0] = ok ? 1 : 0;
    out[1] = r.sum;
  });
}
