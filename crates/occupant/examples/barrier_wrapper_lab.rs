//! Lab: where does `occ::PersistentKernel::barrier()` lose to the raw kind? Times, in one
//! process and shape, the default barrier kind four ways: raw object in registers over a
//! cudaMalloc'd state, raw over the module global `occ_persistent`, `occ::SharedBarrier` over
//! a cudaMalloc'd state, and `occ::PersistentKernel` (SharedBarrier over the module global).
//! `cargo run --release -p occupant --example barrier_wrapper_lab -- BLOCKSxTHREADS ...`
//! Found (H100): the module global costs nothing; the shared-memory wrapper 150-730 ns per
//! barrier, so PersistentKernel now keeps the object in registers unless
//! OCC_PERSISTENT_SHARED_BARRIER=1 (register-capped kernels such as the graph apps).
use occupant::args;
use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{Gpu, LaunchConfig, LaunchMode, PersistentProgram};

const SRC: &str = r#"#include <occupant.cuh>
#define TIMED(B_EXPR)                                                        \
  if (!(B_EXPR)) return;                                                     \
  const unsigned long long t0 = occ::globaltimer();                          \
  for (unsigned r = 0; r < rounds; ++r) if (!(B_EXPR)) return;               \
  const unsigned long long t1 = occ::globaltimer();                          \
  if (occ::local_linear_id() == 0u) { times[2u * g] = t0; times[2u * g + 1u] = t1; }
extern "C" __global__ void raw_alloc(unsigned* st, unsigned rounds, unsigned long long* times) {
  occ::Env env;
  if (!occ::discover(env, occ::Quiescent, 0u)) return;
  const unsigned g = env.group_id;
  occ::PersistentBarrier b(st, env);
  TIMED(b.wait())
}
extern "C" __global__ void raw_global(unsigned* st, unsigned rounds, unsigned long long* times) {
  occ::Env env;
  if (!occ::discover(env, occ::Quiescent, 0u)) return;
  const unsigned g = env.group_id;
  occ::PersistentBarrier b(occ_persistent.barrier + occ_persistent.offset, env);
  TIMED(b.wait())
}
extern "C" __global__ void shared_alloc(unsigned* st, unsigned rounds, unsigned long long* times) {
  occ::Env env;
  if (!occ::discover(env, occ::Quiescent, 0u)) return;
  const unsigned g = env.group_id;
  occ::SharedBarrier<occ::PersistentBarrier> b(st, env);
  TIMED(b.wait())
}
extern "C" __global__ void shared_global(unsigned* st, unsigned rounds, unsigned long long* times) {
  occ::Env env;
  if (!occ::discover(env, occ::Quiescent, 0u)) return;
  const unsigned g = env.group_id;
  occ::SharedBarrier<occ::PersistentBarrier> b(occ_persistent.barrier + occ_persistent.offset, env);
  TIMED(b.wait())
}
"#;

fn main() -> occupant::Result<()> {
    let gpu = Gpu::open(0)?;
    let shapes: Vec<(usize, usize)> = std::env::args()
        .skip(1)
        .filter_map(|s| {
            let (b, t) = s.split_once('x')?;
            Some((b.parse().ok()?, t.parse().ok()?))
        })
        .collect();
    for (blocks, threads) in shapes {
        let kind = occupant::cuda::persistent_barrier_for_block(&gpu, threads)
            .unwrap_or(BarrierKind::Lean);
        let prog = PersistentProgram::compile_with_barrier(
            &gpu,
            kind,
            "wrapper_lab.cu",
            SRC,
            &Default::default(),
        )?;
        let m = prog.module();
        let rounds = 1000u32;
        let mut line = format!("{blocks}x{threads} {kind}:");
        for k in ["raw_alloc", "raw_global", "shared_alloc", "shared_global"] {
            let mut best = f64::MAX;
            for _ in 0..3 {
                let st = gpu.alloc_zeroed::<u32>(kind.state_words(blocks).max(64))?;
                // zero the module-global place too (its state may hold an old epoch)
                let times = gpu.alloc_zeroed::<u64>(2 * blocks)?;
                let cfg = LaunchConfig::new(LaunchMode::Discovery, threads).grid(blocks);
                let r = prog.launch_with(k, &cfg, &args![&st, rounds, &times])?;
                let n = r.participants as usize;
                let t = times.to_vec()?;
                let mut v: Vec<f64> = t
                    .chunks_exact(2)
                    .take(n)
                    .filter(|p| p[1] > p[0])
                    .map(|p| (p[1] - p[0]) as f64 / f64::from(rounds))
                    .collect();
                v.sort_by(f64::total_cmp);
                if let Some(&x) = v.get(v.len() / 2) {
                    best = best.min(x);
                }
            }
            let _ = m;
            line += &format!(" {k} {best:.0} ns");
        }
        println!("{line}");
    }
    Ok(())
}
