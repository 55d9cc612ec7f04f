// coop_tasks (src/cuda/coop/kernels/coop_selftest.cu: work stealing with offer_kill and
// request_fork outside barriers) on CPU threads, one per group, while a scheduler thread takes
// 1, N/4, N/2, N-1 groups in turn and gives them back as new threads (tests/coop_protocol.rs).
// Exit 0 when every task ran exactly once with the right result. Usage: tasks_harness TASKS [GROUPS]
#include <cstdlib>
#include <thread>
#include <vector>
#include "coop_selftest.cu"
using namespace occ;

int main(int argc, char** argv) {
  const unsigned tasks = argc > 1 ? (unsigned)std::atoi(argv[1]) : 20000u;
  const unsigned N = argc > 2 ? (unsigned)std::atoi(argv[2]) : 4u;
  std::vector<unsigned> done(tasks, 0u);
  std::vector<unsigned long long> out(tasks, 0ull);
  unsigned next = 0;
  coop::State* st = (coop::State*)std::calloc(1, sizeof(coop::State));
  coop::Mailbox* mb = (coop::Mailbox*)std::calloc(1, sizeof(coop::Mailbox));
  unsigned* w = (unsigned*)st;
  w[0] = w[1] = w[3] = w[50] = w[51] = N;
  mb->target = mb->active = N;
  auto group = [&] { coop_tasks(st, mb, tasks, &next, done.data(), out.data(), 2000u); };
  auto ld = [](const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); };
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < N; ++i) ts.emplace_back(group);
  const unsigned shares[4] = {1u, N / 4u, N / 2u, N - 1u};
  unsigned cycles = 0, launched = 0;
  while (!ld(&mb->finished) && !aborted()) {
    auto t0 = globaltimer();
    while (ld(&mb->forked) + ld(&mb->joiners_exited) < launched && !ld(&mb->finished))
      if (globaltimer() - t0 > 3000000000ull) { std::printf("FAILED: join\n"); std::fflush(stdout); std::_Exit(1); }
    const unsigned active = ld(&mb->active), killed0 = ld(&mb->killed);
    const unsigned k = shares[cycles % 4u];
    const unsigned target = active > k ? active - k : 1u, want = active - target;
    __atomic_store_n(&mb->target, target, __ATOMIC_RELEASE);
    t0 = globaltimer();
    bool finished = false;
    while (ld(&mb->killed) - killed0 < want) {
      if (ld(&mb->finished)) { finished = true; break; }
      if (globaltimer() - t0 > 3000000000ull) { std::printf("FAILED: gather\n"); std::fflush(stdout); std::_Exit(1); }
      std::this_thread::yield();
    }
    if (finished) break;
    __atomic_store_n(&mb->target, N, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < want; ++i) ts.emplace_back(group);
    launched += want;
    ++cycles;
  }
  for (auto& t : ts) t.join();
  unsigned wrong = 0;
  for (unsigned t = 0; t < tasks; ++t)
    if (done[t] != 1u || out[t] != (unsigned long long)t * t + 1ull) ++wrong;
  std::printf("tasks cycles=%u killed=%u forked=%u launched=%u wrong_tasks=%u aborted=%u\n", cycles,
              mb->killed, mb->forked, launched, wrong, g_abort);
  return (wrong != 0u || g_abort != 0u) ? 1 : 0;
}
