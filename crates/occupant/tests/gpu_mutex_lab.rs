//! The mutex lab (issue 11, part 3): what a lock/unlock pair is made of on this GPU
//! (`lab_costs`: atomic and load round trips, the release fence, the pair's variants) and lock
//! designs side by side at every contention of `occupant bench primitives` (1 … full occupancy
//! of 128-thread blocks, 200 000 pairs per point, empty critical section), each also checked
//! with an exact counter. Records `mutex_lab_costs.json` and `mutex_lab.json` under
//! $OCCUPANT_RESULTS_DIR. Skips with one line without a GPU.

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::{CompileOptions, Gpu, LaunchConfig, Module};
use occupant::model::Watchdog;
use std::time::Duration;

const LAB_CU: &str = include_str!("mutex_lab.cu");
const OPS: usize = 200_000;

const COSTS: [&str; 20] = [
    "atom.relaxed.gpu.exch round trip",
    "atom.acquire.gpu.exch round trip (+CCTL.IVALL)",
    "ld.relaxed.gpu round trip",
    "fence.acq_rel.gpu alone",
    "st.relaxed.gpu + fence.acq_rel.gpu",
    "st.release.gpu back to back",
    "pair: exch.acquire + st.release",
    "pair: exch.relaxed + st.release",
    "pair: exch.acquire + atom.release.exch",
    "pair: cas.acquire + st.release",
    "pair: exch.acquire + fence.sc + st.relaxed",
    "pair: library SpinMutex",
    "pair: exch.acquire + ld/st counter + st.release",
    "globaltimer read",
    "ld.acquire.gpu round trip",
    "fence.acq_rel.cluster alone",
    "pair without fence: exch.acquire + st.relaxed (not a lock)",
    "pair: ld.relaxed + exch.acquire + st.release (ttas)",
    "st.release + dependent ld.relaxed of the same word",
    "atom.relaxed.gpu.add round trip",
];

/// The combining variants' state: occ::sync::combining_state_words(4096).
const COMB_WORDS: usize = 32 * (4096 + 2) + 4096;

/// (kernel lab_<name>, u32 words of state)
const DESIGNS: [(&str, usize); 15] = [
    ("lock_spin", 64),
    ("lock_lean_spin", 64),
    ("lock_lean_ttas", 64),
    ("lock_lean_ttas_backoff", 64),
    ("lock_lean_spin_backoff", 64),
    ("lock_lean_ticket", 64),
    ("lock_sticky32", 64),
    ("comb_cc", COMB_WORDS),
    ("comb_lib", COMB_WORDS),
    ("comb_lean_r4", COMB_WORDS),
    ("comb_lean_r8", COMB_WORDS),
    ("comb_lean_norel4", COMB_WORDS),
    ("comb_lean_fence4", COMB_WORDS),
    ("comb_lean_sleep4", COMB_WORDS),
    ("comb_lean_r16", COMB_WORDS),
];

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

/// The lab at 32 registers (full occupancy), or without a register cap (as the bench compiles
/// below full occupancy).
fn compile(gpu: &Gpu, capped: bool) -> Module {
    let opts = if capped {
        CompileOptions::default().option("-maxrregcount=32")
    } else {
        CompileOptions::default()
    };
    let name = if capped {
        "occupant_mutex_lab.cu[regs=32]"
    } else {
        "occupant_mutex_lab.cu"
    };
    gpu.compile(name, LAB_CU, &opts).expect("the lab compiles")
}

fn contention_points(gpu: &Gpu) -> Vec<usize> {
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    let mut counts = vec![1usize, 2, 4, 8, 16, 33, 66, sms, 2 * sms, 4 * sms, 8 * sms];
    counts.retain(|&c| c < full);
    counts.push(full);
    counts
}

/// (Mops/s over the span of all blocks, final counter).
fn run_design(
    m: &Module,
    gpu: &Gpu,
    (name, words): (&str, usize),
    blocks: usize,
    iters: u32,
    work: bool,
) -> Result<(f64, u64), String> {
    let state = gpu.alloc_zeroed::<u32>(words).unwrap();
    let counter = gpu.alloc_zeroed::<u32>(32).unwrap();
    let times = gpu.alloc_zeroed::<u64>(2 * blocks).unwrap();
    let cfg = LaunchConfig::plain(blocks, 128).watchdog(wd());
    m.launch(
        &format!("lab_{name}"),
        &cfg,
        &args![&state, &counter, iters, u32::from(work), &times],
    )
    .map_err(|e| format!("{name} at {blocks} blocks: {e}"))?;
    let t = times.to_vec().unwrap();
    let lo = t.chunks_exact(2).map(|p| p[0]).min().unwrap();
    let hi = t.chunks_exact(2).map(|p| p[1]).max().unwrap();
    let mops = blocks as f64 * f64::from(iters) / (hi - lo) as f64 * 1e3;
    Ok((mops, u64::from(counter.to_vec().unwrap()[0])))
}

#[test]
fn mutex_lab_costs() {
    let Some(gpu) = gpu_or_skip("mutex_lab_costs") else {
        return;
    };
    let m = compile(&gpu, true);
    let iters = 20_000u32;
    let lines = 64u32;
    let g = gpu
        .alloc_zeroed::<u32>(1024 + lines as usize * 1056 + 64)
        .unwrap();
    let out = gpu.alloc_zeroed::<u64>(64 + lines as usize).unwrap();
    let mut map = serde_json::Map::new();
    for run in 0..2 {
        m.launch(
            "lab_costs",
            &LaunchConfig::plain(1, 32),
            &args![&g, iters, &out, lines],
        )
        .unwrap();
        let o = out.to_vec().unwrap();
        println!("run {run} (SM {}):", o[63]);
        for (k, name) in COSTS.iter().enumerate() {
            let ns = o[k] as f64 / f64::from(iters);
            println!("  {ns:8.1} ns  {name}");
            if run == 1 {
                map.insert(name.to_string(), serde_json::json!(ns));
            }
        }
        let rt: Vec<u64> = o[64..64 + lines as usize].to_vec();
        let mut sorted = rt.clone();
        sorted.sort_unstable();
        println!(
            "  atomic round trip by line (ns): min {} median {} max {}; all {:?}",
            sorted[0],
            sorted[sorted.len() / 2],
            sorted[sorted.len() - 1],
            rt
        );
        if run == 1 {
            map.insert("sm".into(), serde_json::json!(o[63]));
            map.insert("atomic round trip by line".into(), serde_json::json!(rt));
        }
    }
    common::record("mutex_lab_costs", serde_json::Value::Object(map));
}

#[test]
fn mutex_lab_locks() {
    let Some(gpu) = gpu_or_skip("mutex_lab_locks") else {
        return;
    };
    // Below full occupancy the kernels run without a register cap (as the bench runs them:
    // no spills), at full occupancy with 32 registers.
    let capped = compile(&gpu, true);
    let free = compile(&gpu, false);
    let counts = contention_points(&gpu);
    let full = *counts.last().unwrap();
    let module = |b: usize| if b == full { &capped } else { &free };
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    println!(
        "throughput, Mops/s (empty critical section / CounterOp without work, 128-thread blocks; no register cap below full occupancy)"
    );
    for d in DESIGNS {
        let name = d.0;
        let mut line = format!("  {name:<24}");
        let mut points = Vec::new();
        for &b in &counts {
            let iters = (OPS / b).max(20) as u32;
            match run_design(module(b), &gpu, d, b, iters, false) {
                Ok((mops, _)) => {
                    line += &format!(" {b}:{mops:.2}");
                    points.push(serde_json::json!({"blocks": b, "iters": iters, "mops": mops}));
                }
                Err(e) => {
                    line += &format!(" {b}:error");
                    failures.push(e);
                }
            }
        }
        println!("{line}");
        // Exact counter (a plain read-modify-write inside) at a few contentions.
        for &b in &[1usize, 33, *counts.last().unwrap()] {
            let iters = (20_000 / b).max(20) as u32;
            match run_design(module(b), &gpu, d, b, iters, true) {
                Ok((_, c)) if c == b as u64 * u64::from(iters) => {}
                Ok((_, c)) => failures.push(format!(
                    "{name} at {b} blocks: counter {c}, expected {}",
                    b as u64 * u64::from(iters)
                )),
                Err(e) => failures.push(e),
            }
        }
        rows.push(serde_json::json!({"kind": name, "points": points}));
    }
    common::record("mutex_lab", serde_json::Value::Array(rows));
    assert!(failures.is_empty(), "{failures:#?}");
}
