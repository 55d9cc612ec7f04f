//! GPU tests of the persistent-kernel API (`PersistentProgram`, `occ::PersistentKernel`) with every
//! barrier kind, and of the host-loop tools (`Gpu::capture`, `PinnedScalar`). Skips with one
//! line without a GPU; fails instead under OCCUPANT_REQUIRE_GPU=1.

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{persistent_supports, LaunchConfig, PersistentProgram};

/// Each round every participating thread adds to its own slots, then the barrier; after the
/// barrier block 0 checks that every slot of the round is complete (a missed barrier shows).
const SRC: &str = r#"#include <occupant.cuh>
extern "C" __global__ void rounds(unsigned* data, unsigned n, unsigned rounds, unsigned* errors,
                                  unsigned* groups) {
  occ::PersistentKernel p;
  if (!p.participating()) return;
  if (p.thread_id() == 0) *groups = p.num_groups();
  for (unsigned r = 1; r <= rounds; ++r) {
    for (unsigned i = p.thread_id(); i < n; i += p.num_threads()) data[i] += 1;
    if (!p.barrier()) return;
    for (unsigned i = p.thread_id(); i < n; i += p.num_threads()) {
      const unsigned j = (i + 7919u * p.num_threads()) % n;  // someone else's slot
      if (*(volatile unsigned*)&data[j] < r) atomicAdd(errors, 1u);
    }
    if (!p.barrier()) return;
  }
}
"#;

#[test]
fn persistent_rounds_with_every_barrier() {
    let Some(gpu) = gpu_or_skip("persistent_rounds_with_every_barrier") else {
        return;
    };
    let n = 1u32 << 20;
    for &kind in BarrierKind::ALL {
        let prog = PersistentProgram::compile_with_barrier(
            &gpu,
            kind,
            "persistent_rounds.cu",
            SRC,
            &Default::default(),
        );
        if !persistent_supports(kind) {
            // Its state does not fit occ_persistent: a clear error, not another barrier.
            let e = prog.unwrap_err().to_string();
            assert!(e.contains(kind.name()), "{kind}: {e}");
            continue;
        }
        let prog = prog.unwrap();
        // The measured shapes' block sizes, and two that are not a multiple of a warp (the
        // last warp partial: Replica's poller, Relay's warp-0 mask).
        for threads in [128usize, 256, 1024, 33, 1000] {
            let data = gpu.alloc_zeroed::<u32>(n as usize).unwrap();
            let errors = gpu.alloc_zeroed::<u32>(1).unwrap();
            let groups = gpu.alloc_zeroed::<u32>(1).unwrap();
            let r = prog
                .launch("rounds", threads, &args![&data, n, 50u32, &errors, &groups])
                .unwrap();
            assert!(
                r.participants >= gpu.info().sm_count,
                "{kind} {threads}: {r:?}"
            );
            assert_eq!(groups.to_vec().unwrap()[0], r.participants);
            assert_eq!(errors.to_vec().unwrap()[0], 0, "{kind} {threads}");
            assert!(data.to_vec().unwrap().iter().all(|&x| x == 50));
            println!(
                "{kind} x{threads}: {} of {} blocks (hint {}), {:.0} µs",
                r.participants, r.launched, r.hint, r.elapsed_us
            );
        }
    }
    // The default barrier (machine abstraction), twice on one program: state is re-zeroed; and
    // the shape-aware one for blocks of 256.
    let prog =
        PersistentProgram::compile(&gpu, "persistent_rounds.cu", SRC, &Default::default()).unwrap();
    let shaped = PersistentProgram::compile_for_block(
        &gpu,
        256,
        "persistent_rounds.cu",
        SRC,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(
        shaped.barrier(),
        occupant::cuda::persistent_barrier_for_block(&gpu, 256).unwrap()
    );
    println!(
        "shape-aware barrier for blocks of 256: {}",
        shaped.barrier()
    );
    // A block size no table measures (the nearest shape's kind).
    let odd = PersistentProgram::compile_for_block(
        &gpu,
        1000,
        "persistent_rounds.cu",
        SRC,
        &Default::default(),
    )
    .unwrap();
    println!("shape-aware barrier for blocks of 1000: {}", odd.barrier());
    for (prog, threads) in [(&prog, 256), (&prog, 256), (&shaped, 256), (&odd, 1000)] {
        let data = gpu.alloc_zeroed::<u32>(n as usize).unwrap();
        let errors = gpu.alloc_zeroed::<u32>(1).unwrap();
        let groups = gpu.alloc_zeroed::<u32>(1).unwrap();
        prog.launch_with(
            "rounds",
            &LaunchConfig::new(occupant::cuda::LaunchMode::Plain, threads),
            &args![&data, n, 20u32, &errors, &groups],
        )
        .unwrap();
        assert_eq!(errors.to_vec().unwrap()[0], 0);
    }
}

/// The placement probe times every candidate place, the first launch keeps the fastest, and the
/// barrier is right at every place (rounds checked at the first, the last and the chosen one);
/// a program compiled with one place has nothing to probe and still runs.
#[test]
fn the_barrier_is_right_at_every_place_and_the_probe_picks_the_fastest() {
    use occupant::cuda::{LaunchMode, PERSISTENT_PLACEMENTS};
    let Some(gpu) =
        gpu_or_skip("the_barrier_is_right_at_every_place_and_the_probe_picks_the_fastest")
    else {
        return;
    };
    let n = 1u32 << 18;
    let run = |prog: &PersistentProgram| {
        let data = gpu.alloc_zeroed::<u32>(n as usize).unwrap();
        let errors = gpu.alloc_zeroed::<u32>(1).unwrap();
        let groups = gpu.alloc_zeroed::<u32>(1).unwrap();
        let r = prog
            .launch("rounds", 256, &args![&data, n, 30u32, &errors, &groups])
            .unwrap();
        assert_eq!(errors.to_vec().unwrap()[0], 0, "{r:?}");
        assert!(data.to_vec().unwrap().iter().all(|&x| x == 30));
        r
    };
    for kind in [
        BarrierKind::LeanPause,
        BarrierKind::Relay,
        BarrierKind::Hierarchical,
    ] {
        let prog = PersistentProgram::compile_with_barrier(
            &gpu,
            kind,
            "persistent_rounds.cu",
            SRC,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(prog.placements(), PERSISTENT_PLACEMENTS);
        assert!(prog.placement().is_none());
        let first = run(&prog);
        let p = prog.placement().expect("the first launch probes");
        assert_eq!(p.candidates.len(), PERSISTENT_PLACEMENTS);
        assert!(p
            .candidates
            .iter()
            .all(|c| c.ns_per_barrier.is_finite() && c.ns_per_barrier > 0.0));
        // The chosen place is the fastest: with the pause, or without it where the probe
        // turned it off (then timed at every place).
        let time = |c: &occupant::cuda::PlacementTiming| {
            if p.no_pause {
                c.no_pause_ns.expect("every place timed without the pause")
            } else {
                c.ns_per_barrier
            }
        };
        let fastest = p.candidates.iter().map(time).fold(f64::MAX, f64::min);
        assert_eq!(time(&p.candidates[p.chosen]), fastest);
        assert_eq!(p.chosen_ns(), fastest);
        assert_eq!(p.no_pause_ns.is_some(), kind == BarrierKind::LeanPause);
        assert_eq!(
            first.barrier_offset_bytes,
            p.candidates[p.chosen].offset_bytes
        );
        println!(
            "{kind} x256: {} blocks; first {:.0} ns, median {:.0}, chosen {:.0} (offset {}), slowest {:.0}",
            p.participants,
            p.first_ns(),
            p.median_ns(),
            p.chosen_ns(),
            first.barrier_offset_bytes,
            p.slowest_ns()
        );
        for c in [0, PERSISTENT_PLACEMENTS - 1, p.chosen] {
            prog.place_at(c).unwrap();
            let r = run(&prog);
            assert_eq!(r.barrier_offset_bytes, p.candidates[c].offset_bytes);
        }
        assert!(prog.place_at(PERSISTENT_PLACEMENTS).is_err());
    }
    let single = PersistentProgram::compile_with_barrier(
        &gpu,
        BarrierKind::LeanPause,
        "persistent_rounds.cu",
        SRC,
        &occupant::cuda::CompileOptions::default().option("-DOCC_PERSISTENT_PLACEMENTS=1"),
    )
    .unwrap();
    assert_eq!(single.placements(), 1);
    assert!(single
        .probe_placement("rounds", &LaunchConfig::new(LaunchMode::Discovery, 256))
        .is_err());
    assert_eq!(run(&single).barrier_offset_bytes, 0);
    assert!(single.placement().is_none());
}

#[test]
fn a_kernel_without_persistent_is_a_clear_error() {
    let Some(gpu) = gpu_or_skip("a_kernel_without_persistent_is_a_clear_error") else {
        return;
    };
    let e = PersistentProgram::compile(
        &gpu,
        "plain.cu",
        "extern \"C\" __global__ void k() {}",
        &Default::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("occ_persistent"), "{e}");
}

#[test]
fn captured_graph_and_pinned_read() {
    let Some(gpu) = gpu_or_skip("captured_graph_and_pinned_read") else {
        return;
    };
    let m = gpu
        .compile(
            "inc_graph.cu",
            "extern \"C\" __global__ void inc(unsigned* p) { if (threadIdx.x == 0) atomicAdd(p, 1u); }",
            &Default::default(),
        )
        .unwrap();
    let counter = gpu.alloc_zeroed::<u32>(2).unwrap();
    let cfg = LaunchConfig::plain(8, 32);
    let graph = gpu
        .capture(|| {
            for _ in 0..3 {
                m.enqueue("inc", &cfg, &args![&counter])?;
            }
            Ok(())
        })
        .unwrap();
    let flag = gpu.pinned_scalar::<u32>().unwrap();
    assert_eq!(flag.read(&counter, 0).unwrap(), 0, "capture ran nothing");
    for i in 1..=4u32 {
        graph.launch().unwrap();
        assert_eq!(flag.read(&counter, 0).unwrap(), 24 * i);
    }
    assert!(flag.read(&counter, 2).is_err());
}

/// A device-side while loop (a CUDA graph WHILE node): the body (8 blocks add 1 each, then one
/// thread counts the iteration and sets the condition) runs until the device says stop; the
/// condition is 1 again at the start of every launch.
#[test]
fn while_graph_loops_on_the_device() {
    let Some(gpu) = gpu_or_skip("while_graph_loops_on_the_device") else {
        return;
    };
    if !gpu.has_conditional_nodes() {
        panic!(
            "driver {} has no conditional nodes",
            gpu.info().driver_version
        );
    }
    let src = r#"#include <occupant.cuh>
extern "C" __global__ void add(unsigned* p) { if (threadIdx.x == 0) atomicAdd(p, 1u); }
extern "C" __global__ void test(unsigned* p, occ::GraphCondition cond, unsigned until) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  p[1] += 1u;                                  // iterations
  occ::graph_continue(cond, p[1] % until != 0u);
}"#;
    let m = gpu
        .compile("while_graph.cu", src, &Default::default())
        .unwrap_or_else(|e| panic!("a module calling cudaGraphSetConditional: {e}"));
    let p = gpu.alloc_zeroed::<u32>(2).unwrap();
    let until = 1000u32;
    let lp = gpu
        .capture_while(|cond| {
            m.enqueue("add", &LaunchConfig::plain(8, 32), &args![&p])?;
            m.enqueue(
                "test",
                &LaunchConfig::plain(1, 32),
                &args![&p, cond.raw(), until],
            )?;
            Ok(())
        })
        .unwrap();
    let flag = gpu.pinned_scalar::<u32>().unwrap();
    assert_eq!(flag.read(&p, 1).unwrap(), 0, "capture ran nothing");
    for i in 1..=2u32 {
        let t0 = std::time::Instant::now();
        lp.launch().unwrap();
        gpu.synchronize().unwrap();
        let us = t0.elapsed().as_secs_f64() * 1e6;
        assert_eq!(flag.read(&p, 1).unwrap(), until * i);
        assert_eq!(flag.read(&p, 0).unwrap(), 8 * until * i);
        println!(
            "while graph: {until} iterations of 2 kernels in {us:.0} µs ({:.2} µs/iteration)",
            us / f64::from(until)
        );
    }
    let e = gpu.capture_while(|_| Ok(())).err().unwrap();
    assert!(e.to_string().contains("no work"), "{e}");
}
