//! Issue 11, the last misses (helper i11-last-misses): the flat-combining lock against the old
//! mutex kinds at 1 … full occupancy (the 2- and 4-block points three times, interleaved), its
//! exact counters, and Lean over K lines against lean / replica / relay / grid.sync in the
//! shapes that missed (132×1024, 264×1024) and two others (132×128, full occupancy of 128),
//! each design three times interleaved, with message-passing checks of the K-line barrier.
//! Records `i11_last_mutex.json`, `i11_last_barrier.json` under $OCCUPANT_RESULTS_DIR. Skips
//! with one line without a GPU.

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::sync::run::{run_barrier, run_barrier_lab, run_grid_sync, run_mutex};
use occupant::cuda::sync::{BarrierKind, MutexKind};
use occupant::cuda::{CompileOptions, Gpu, LaunchConfig, Module};
use occupant::model::Watchdog;
use std::time::Duration;

const LAB_CU: &str = include_str!("mutex_lab.cu");
const OPS: usize = 200_000;
const COMB_WORDS: usize = 32 * (4096 + 2) + 4096;

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

fn lab(gpu: &Gpu, capped: bool) -> Module {
    let (opts, name) = if capped {
        (
            CompileOptions::default().option("-maxrregcount=32"),
            "occupant_mutex_lab.cu[regs=32]",
        )
    } else {
        (CompileOptions::default(), "occupant_mutex_lab.cu")
    };
    gpu.compile(name, LAB_CU, &opts).expect("the lab compiles")
}

/// (Mops/s over the span of all blocks, final counter) of lab kernel `lab_<name>`.
fn run_lab(
    m: &Module,
    gpu: &Gpu,
    name: &str,
    blocks: usize,
    iters: u32,
    work: bool,
) -> Result<(f64, u64), String> {
    let state = gpu.alloc_zeroed::<u32>(COMB_WORDS).unwrap();
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

/// A design's name and its Mops/s by block count (one value per repetition).
type Row = (String, Vec<(usize, Vec<f64>)>);

fn points(gpu: &Gpu) -> Vec<usize> {
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    vec![1, 2, 3, 4, 8, 16, 33, sms, 4 * sms, full]
}

/// Every design at every point; 2 and 4 blocks three times, interleaved over the designs.
#[test]
fn i11_last_mutex() {
    let Some(gpu) = gpu_or_skip("i11_last_mutex") else {
        return;
    };
    let capped = lab(&gpu, true);
    let free = lab(&gpu, false);
    let pts = points(&gpu);
    let full = *pts.last().unwrap();
    let kinds = [
        MutexKind::Spin,
        MutexKind::SpinBackoff,
        MutexKind::LazyCohort,
        MutexKind::Combining,
        MutexKind::FlatCombining,
    ];
    let labs = ["flat_c4", "flat_c2"];
    let mut rows: Vec<serde_json::Value> = Vec::new();
    let mut failures = Vec::new();
    println!("mutex throughput, Mops/s (empty critical section, 128-thread blocks; reps at 2 and 4 blocks)");
    let mut table: Vec<Row> = kinds
        .iter()
        .map(|k| (k.name().to_string(), Vec::new()))
        .chain(labs.iter().map(|l| (format!("lab {l}"), Vec::new())))
        .collect();
    for rep in 0..3 {
        for &b in &pts {
            if rep > 0 && b != 2 && b != 4 {
                continue;
            }
            let iters = (OPS / b).max(20) as u32;
            for (i, row) in table.iter_mut().enumerate() {
                let r = if i < kinds.len() {
                    run_mutex(&gpu, kinds[i], b, 128, iters, false, wd())
                        .map(|r| r.mops)
                        .map_err(|e| format!("{} at {b}: {e}", kinds[i]))
                } else {
                    let m = if b == full { &capped } else { &free };
                    run_lab(m, &gpu, labs[i - kinds.len()], b, iters, false).map(|r| r.0)
                };
                match r {
                    Ok(mops) => match row.1.iter_mut().find(|p| p.0 == b) {
                        Some(p) => p.1.push(mops),
                        None => row.1.push((b, vec![mops])),
                    },
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    for (name, pts) in &table {
        let mut line = format!("  {name:<16}");
        for (b, v) in pts {
            let s: Vec<String> = v.iter().map(|x| format!("{x:.2}")).collect();
            line += &format!(" {b}:{}", s.join("/"));
        }
        println!("{line}");
        rows.push(serde_json::json!({"design": name, "points": pts}));
    }
    // Exact counters of the flat-combining lock (library kind and the lab variants).
    for &b in &[1usize, 2, 3, 4, 33, 132, full] {
        let iters = (40_000 / b).max(24) as u32;
        let want = b as u64 * u64::from(iters);
        match run_mutex(&gpu, MutexKind::FlatCombining, b, 128, iters, true, wd()) {
            Ok(r) if r.counter == want && r.free_after => {}
            Ok(r) => failures.push(format!(
                "flat_combining at {b}: counter {} of {want}, free after {}",
                r.counter, r.free_after
            )),
            Err(e) => failures.push(format!("flat_combining at {b}: {e}")),
        }
        for l in labs {
            let m = if b == full { &capped } else { &free };
            match run_lab(m, &gpu, l, b, iters, true) {
                Ok((_, c)) if c == want => {}
                Ok((_, c)) => failures.push(format!("{l} at {b}: counter {c} of {want}")),
                Err(e) => failures.push(e),
            }
        }
    }
    // The same state reused by a second launch of another size.
    println!(
        "exact counters at 1, 2, 3, 4, 33, 132, {full} blocks: {} failures",
        failures.len()
    );
    common::record("i11_last_mutex", serde_json::Value::Array(rows));
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Small and quick: for compute-sanitizer (racecheck, synccheck).
#[test]
fn i11_last_sanitizer_smoke() {
    let Some(gpu) = gpu_or_skip("i11_last_sanitizer_smoke") else {
        return;
    };
    for b in [2usize, 5] {
        let r = run_mutex(&gpu, MutexKind::FlatCombining, b, 128, 20, true, wd()).unwrap();
        assert_eq!(r.counter, b as u64 * 20);
    }
    for kind in [BarrierKind::LeanBell, BarrierKind::LeanPause] {
        let r = run_barrier(&gpu, kind, 6, 128, 1, 20, true, wd()).unwrap();
        assert_eq!(r.violations, 0);
    }
}

#[test]
fn i11_last_barrier() {
    let Some(gpu) = gpu_or_skip("i11_last_barrier") else {
        return;
    };
    let sms = gpu.info().sm_count as usize;
    let full128 = gpu.info().resident_blocks_bound(128) as usize;
    let full1024 = gpu.info().resident_blocks_bound(1024) as usize;
    let full256 = gpu.info().resident_blocks_bound(256) as usize;
    let shapes = [
        (sms, 1024usize),
        (full1024, 1024),
        (sms, 128),
        (full128, 128),
        (full256, 256),
    ];
    let kinds = [
        BarrierKind::Lean,
        BarrierKind::LeanPause,
        BarrierKind::LeanBell,
        BarrierKind::Relay,
    ];
    let labs = ["lab_lean_pb0"];
    let rounds = 20_000u32;
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    println!(
        "barrier latency, ns per barrier ({rounds} rounds, median over blocks; 3 interleaved reps)"
    );
    for &(b, t) in &shapes {
        let mut res: Vec<(String, Vec<f64>)> = Vec::new();
        let mut push = |name: &str, v: Result<f64, String>, failures: &mut Vec<String>| {
            let row = match res.iter_mut().position(|r| r.0 == name) {
                Some(i) => &mut res[i],
                None => {
                    res.push((name.to_string(), Vec::new()));
                    res.last_mut().unwrap()
                }
            };
            match v {
                Ok(ns) => row.1.push(ns),
                Err(e) => failures.push(format!("{name} at {b}x{t}: {e}")),
            }
        };
        for _rep in 0..3 {
            push(
                "grid.sync",
                run_grid_sync(&gpu, b, t, rounds).map_err(|e| e.to_string()),
                &mut failures,
            );
            for k in kinds {
                let r = run_barrier(&gpu, k, b, t, 1, rounds, false, wd());
                push(
                    k.name(),
                    r.map_err(|e| e.to_string()).and_then(|r| {
                        if r.participants == b {
                            Ok(r.ns_per_barrier)
                        } else {
                            Err(format!("{} of {b} blocks", r.participants))
                        }
                    }),
                    &mut failures,
                );
            }
            for l in labs {
                let r = run_barrier_lab(&gpu, l, b, t, rounds, false, wd());
                push(
                    l,
                    r.map_err(|e| e.to_string()).and_then(|r| {
                        if r.participants == b {
                            Ok(r.ns_per_barrier)
                        } else {
                            Err(format!("{} of {b} blocks", r.participants))
                        }
                    }),
                    &mut failures,
                );
            }
        }
        let gs = res[0].1.iter().cloned().fold(f64::INFINITY, f64::min);
        for (name, v) in &res {
            let best = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let s: Vec<String> = v.iter().map(|x| format!("{x:.0}")).collect();
            println!(
                "  {b}x{t:<5} {name:<14} {:>22} ns  best {best:.0}  /grid.sync {:.3}",
                s.join(" "),
                best / gs
            );
            rows.push(serde_json::json!({"shape": format!("{b}x{t}"), "design": name, "ns": v}));
        }
    }
    // Message passing across the lean_bell kind and two K-line barriers.
    for l in ["lean_bell", "lean_pause"] {
        for &(b, t) in &[
            (1usize, 128usize),
            (2, 128),
            (3, 1024),
            (50, 256),
            (sms, 1024),
            (full1024, 1024),
            (full128, 128),
        ] {
            let kind = BarrierKind::parse(l).unwrap();
            let r = run_barrier(&gpu, kind, b, t, 1, 300, true, wd());
            match r {
                Ok(r) if r.violations == 0 && r.participants == b => {}
                Ok(r) => failures.push(format!(
                    "{l} at {b}x{t}: {} violations, {} participants",
                    r.violations, r.participants
                )),
                Err(e) => failures.push(format!("{l} at {b}x{t}: {e}")),
            }
        }
    }
    println!("message passing (lean_bell, lean_pause at 1, 2, 3, 50, {sms}, {full1024}, {full128} blocks): {} failures", failures.len());
    common::record("i11_last_barrier", serde_json::Value::Array(rows));
    assert!(failures.is_empty(), "{failures:#?}");
}
