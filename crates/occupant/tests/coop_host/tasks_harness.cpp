// coop_tasks (src/cuda/coop/kernels/coop_selftest.cu: work stealing with offer_kill and
// request_fork outside barriers) on CPU threads, one per group, while a scheduler thread takes
// 1, N/4, N/2, N-1 groups in turn and gives them back as new threads (tests/coop_protocol.rs).
// Exit 0 when every task ran exactly once with the right result. Usage: tasks_harness TASKS [GROUPS]
#include <cstdlib>
#include <vector>
#include "coop_selftest.cu"
#include "scheduler.h"
using namespace occ;

int main(int argc, char** argv) {
  const unsigned tasks = argc > 1 ? (unsigned)std::atoi(argv[1]) : 20000u;
  const unsigned N = argc > 2 ? (unsigned)std::atoi(argv[2]) : 4u;
  std::vector<unsigned> done(tasks, 0u);
  std::vector<unsigned long long> out(tasks, 0ull);
  unsigned next = 0;
  occ_host::Coop c = occ_host::make(N);
  coop::State* st = c.st;
  coop::Mailbox* mb = c.mb;
  occ_host::run(c, [&] { coop_tasks(st, mb, tasks, &next, done.data(), out.data(), 2000u); });
  unsigned wrong = 0;
  for (unsigned t = 0; t < tasks; ++t)
    if (done[t] != 1u || out[t] != (unsigned long long)t * t + 1ull) ++wrong;
  std::printf("tasks cycles=%u killed=%u forked=%u launched=%u wrong_tasks=%u aborted=%u\n", c.cycles,
              mb->killed, mb->forked, c.launched, wrong, g_abort);
  return (wrong != 0u || g_abort != 0u) ? 1 : 0;
}
