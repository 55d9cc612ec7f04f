//! Issue 11, the misses left (helper i11-misses): the small-grid combining lock (lab `duo`
//! variants, tests/mutex_lab.cu) against the library's mutex kinds at 1–8 contending blocks
//! (2 and 3 blocks five times, interleaved), its exact counters; the barrier kinds with and
//! without the polls' throttle (`-DOCC_POLL_PAUSE_SHIFT=1`) beside grid.sync() in every shape,
//! with all blocks arriving together and with skewed arrivals (seeded random per-block delays
//! before each barrier, kernels/barrier.cu). Records `i11_misses_mutex.json`,
//! `i11_misses_barrier.json` under $OCCUPANT_RESULTS_DIR and prints the device's name first.
//! Skips with one line without a GPU.

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::sync::run::{
    run_barrier, run_barrier_lab, run_barrier_with, run_grid_sync, run_grid_sync_with, run_mutex,
    skew_option,
};
use occupant::cuda::sync::{BarrierKind, MutexKind};
use occupant::cuda::{CompileOptions, Gpu, LaunchConfig, Module};
use occupant::model::Watchdog;
use std::time::Duration;

const LAB_CU: &str = include_str!("mutex_lab.cu");
const OPS: usize = 200_000;
const COMB_WORDS: usize = 32 * (4096 + 2) + 4096;
/// The lab's small-grid designs (at most 3 blocks).
const DUOS: [&str; 3] = ["duo_p1", "lazy_duo", "lazy_duo_h64"];

/// The polls' throttle: none (-DOCC_POLL_PAUSE_SHIFT=-1), sleep (missing << 1) ns (t1), and
/// t1 only while more arrivals are missing than the GPU has SMs (t1g).
const THROTTLES: [(&str, &[&str]); 3] = [
    (" t-", &["-DOCC_POLL_PAUSE_SHIFT=-1"]),
    (
        " t1",
        &["-DOCC_POLL_PAUSE_SHIFT=1", "-DOCC_POLL_PAUSE_GATE=0"],
    ),
    (
        " t1g",
        &["-DOCC_POLL_PAUSE_SHIFT=1", "-DOCC_POLL_PAUSE_GATE=1"],
    ),
];

fn wd() -> Watchdog {
    Watchdog::default().with_timeout(Duration::from_secs(2))
}

/// (Mops/s over the span of all blocks, final counter) of lab kernel `lab_<name>`.
fn run_lab(
    m: &Module,
    name: &str,
    gpu: &Gpu,
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
    let c = counter.to_vec().unwrap();
    if name.starts_with("lazy") && !work {
        // The lazy designs' statistics: turns as combiner and others' requests served, by block.
        let turns: Vec<u32> = (0..blocks.min(3)).map(|b| c[4 + b]).collect();
        let others: Vec<u32> = (0..blocks.min(3)).map(|b| c[8 + b]).collect();
        println!(
            "    {name} at {blocks}: turns {turns:?}, others served {others:?}, {mops:.2} Mops/s"
        );
    }
    Ok((mops, u64::from(c[0])))
}

fn device_line(gpu: &Gpu) {
    let i = gpu.info();
    println!("device: {} ({} SMs)", i.name, i.sm_count);
}

#[test]
fn i11_misses_mutex() {
    let Some(gpu) = gpu_or_skip("i11_misses_mutex") else {
        return;
    };
    device_line(&gpu);
    let m = gpu
        .compile("occupant_mutex_lab.cu", LAB_CU, &CompileOptions::default())
        .expect("the lab compiles");
    let pts = [1usize, 2, 3, 4, 8];
    let kinds = [
        MutexKind::Spin,
        MutexKind::SpinBackoff,
        MutexKind::LazyCohort,
        MutexKind::FlatCombining,
        MutexKind::LazyCombining,
    ];
    let labs: Vec<&str> = DUOS.iter().copied().chain(["flat_c4"]).collect();
    let mut names: Vec<String> = kinds.iter().map(|k| k.name().to_string()).collect();
    names.extend(labs.iter().map(|l| format!("lab {l}")));
    let mut table: Vec<Vec<(usize, Vec<f64>)>> = vec![Vec::new(); names.len()];
    let mut failures = Vec::new();
    println!("mutex throughput, Mops/s (empty critical section, 128-thread blocks; 2 and 3 blocks five times, interleaved)");
    for rep in 0..5 {
        for &b in &pts {
            if rep > 0 && b != 2 && b != 3 {
                continue;
            }
            let iters = (OPS / b).max(20) as u32;
            for (i, row) in table.iter_mut().enumerate() {
                let r = if i < kinds.len() {
                    if kinds[i].capacity().is_some_and(|c| b > c) {
                        continue;
                    }
                    run_mutex(&gpu, kinds[i], b, 128, iters, false, wd())
                        .map(|r| r.mops)
                        .map_err(|e| format!("{} at {b}: {e}", kinds[i]))
                } else {
                    let l = labs[i - kinds.len()];
                    if (l.starts_with("duo") || l.starts_with("lazy")) && b > 3 {
                        continue;
                    }
                    run_lab(&m, l, &gpu, b, iters, false).map(|r| r.0)
                };
                match r {
                    Ok(v) => match row.iter_mut().find(|p| p.0 == b) {
                        Some(p) => p.1.push(v),
                        None => row.push((b, vec![v])),
                    },
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (name, pts) in names.iter().zip(&table) {
        let mut line = format!("  {name:<18}");
        for (b, v) in pts {
            let mut s: Vec<f64> = v.clone();
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let med = s[s.len() / 2];
            let all: Vec<String> = v.iter().map(|x| format!("{x:.2}")).collect();
            line += &format!(" {b}:{med:.2}");
            if v.len() > 1 {
                line += &format!("({})", all.join("/"));
            }
        }
        println!("{line}");
        rows.push(serde_json::json!({"design": name, "points": pts}));
    }
    // Exact counters (a plain read-modify-write inside).
    for &b in &[1usize, 2, 3] {
        for l in DUOS {
            let iters = (60_000 / b) as u32;
            let want = b as u64 * u64::from(iters);
            match run_lab(&m, l, &gpu, b, iters, true) {
                Ok((_, c)) if c == want => {}
                Ok((_, c)) => failures.push(format!("{l} at {b}: counter {c} of {want}")),
                Err(e) => failures.push(e),
            }
        }
    }
    // The library's lazy kind: exact, and free after the launch (the destructors released).
    for &b in &[1usize, 2, 3] {
        let iters = (60_000 / b) as u32;
        match run_mutex(&gpu, MutexKind::LazyCombining, b, 128, iters, true, wd()) {
            Ok(r) if r.counter == b as u64 * u64::from(iters) && r.free_after => {}
            Ok(r) => failures.push(format!(
                "lazy_combining at {b}: counter {} of {}, free after {}",
                r.counter,
                b as u64 * u64::from(iters),
                r.free_after
            )),
            Err(e) => failures.push(format!("lazy_combining at {b}: {e}")),
        }
    }
    println!(
        "exact counters of the duo designs and lazy_combining at 1, 2, 3 blocks: {} failures",
        failures.len()
    );
    common::record(
        "i11_misses_mutex",
        serde_json::json!({"device": gpu.info().name, "rows": rows}),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The barrier kinds with and without the throttle, arrivals together and skewed.
#[test]
fn i11_misses_barrier() {
    let Some(gpu) = gpu_or_skip("i11_misses_barrier") else {
        return;
    };
    device_line(&gpu);
    let sms = gpu.info().sm_count as usize;
    let full = |t: u32| gpu.info().resident_blocks_bound(t) as usize;
    let shapes = [
        (sms, 128usize),
        (sms, 256),
        (sms, 1024),
        (full(128), 128),
        (full(256), 256),
        (full(1024), 1024),
    ];
    let kinds = [
        BarrierKind::Lean,
        BarrierKind::LeanPause,
        BarrierKind::Relay,
    ];
    let skews: Vec<u32> = std::env::var("I11_SKEWS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![0, 3000]);
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    println!("barrier latency, ns per barrier (median over blocks; skew = max random delay before each barrier, ns; t1 = -DOCC_POLL_PAUSE_SHIFT=1)");
    for &skew in &skews {
        let rounds = if skew == 0 { 10_000u32 } else { 2_000 };
        let sk = skew_option(skew);
        for &(b, t) in &shapes {
            let mut res: Vec<(String, Vec<f64>)> = Vec::new();
            let reps = 2;
            for _ in 0..reps {
                let mut push = |name: String, v: Result<f64, String>| match v {
                    Ok(ns) => match res.iter_mut().find(|r| r.0 == name) {
                        Some(r) => r.1.push(ns),
                        None => res.push((name, vec![ns])),
                    },
                    Err(e) => failures.push(format!("{name} at {b}x{t} skew {skew}: {e}")),
                };
                let extra: Vec<&str> = sk.iter().map(String::as_str).collect();
                push(
                    "grid.sync".into(),
                    run_grid_sync_with(&gpu, b, t, rounds, &extra).map_err(|e| e.to_string()),
                );
                for k in kinds {
                    for throttle in THROTTLES {
                        let mut ex = extra.clone();
                        ex.extend(throttle.1.iter().copied());
                        let r = run_barrier_with(&gpu, k, b, t, 1, rounds, false, wd(), &ex);
                        let name = format!("{}{}", k.name(), throttle.0);
                        push(
                            name,
                            r.map_err(|e| e.to_string()).and_then(|r| {
                                if r.participants == b {
                                    Ok(r.ns_per_barrier)
                                } else {
                                    Err(format!("{} of {b} blocks", r.participants))
                                }
                            }),
                        );
                    }
                }
            }
            let gs = res
                .iter()
                .find(|r| r.0 == "grid.sync")
                .map(|r| r.1.iter().cloned().fold(f64::INFINITY, f64::min))
                .unwrap_or(f64::NAN);
            for (name, v) in &res {
                let best = v.iter().cloned().fold(f64::INFINITY, f64::min);
                let s: Vec<String> = v.iter().map(|x| format!("{x:.0}")).collect();
                println!(
                    "  skew {skew:<5} {b}x{t:<5} {name:<14} {:>12} ns  best {best:.0}  /grid.sync {:.3}",
                    s.join(" "),
                    best / gs
                );
                rows.push(serde_json::json!({"skew_ns": skew, "shape": format!("{b}x{t}"), "design": name, "ns": v}));
            }
        }
    }
    // Message passing with the throttle and skewed arrivals.
    for kind in kinds {
        for &(b, t) in &[(3usize, 128usize), (sms, 1024), (full(128), 128)] {
            let ex = [
                "-DOCC_POLL_PAUSE_SHIFT=1",
                "-DOCC_POLL_PAUSE_GATE=1",
                "-DOCC_BENCH_SKEW_CYCLES=4000",
            ];
            match run_barrier_with(&gpu, kind, b, t, 1, 300, true, wd(), &ex) {
                Ok(r) if r.violations == 0 && r.participants == b => {}
                Ok(r) => failures.push(format!(
                    "{kind} t1 skewed at {b}x{t}: {} violations, {} participants",
                    r.violations, r.participants
                )),
                Err(e) => failures.push(format!("{kind} t1 skewed at {b}x{t}: {e}")),
            }
        }
    }
    println!(
        "message passing (throttled, skewed): {} failures",
        failures.len()
    );
    common::record(
        "i11_misses_barrier",
        serde_json::json!({"device": gpu.info().name, "rows": rows}),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Small and quick: for compute-sanitizer (racecheck, synccheck).
#[test]
fn i11_misses_sanitizer_smoke() {
    let Some(gpu) = gpu_or_skip("i11_misses_sanitizer_smoke") else {
        return;
    };
    let m = gpu
        .compile("occupant_mutex_lab.cu", LAB_CU, &CompileOptions::default())
        .expect("the lab compiles");
    for b in [2usize, 3] {
        for l in ["duo_p1", "lazy_duo"] {
            let (_, c) = run_lab(&m, l, &gpu, b, 20, true).unwrap();
            assert_eq!(c, b as u64 * 20, "{l} at {b}");
        }
    }
    for b in [2usize, 3] {
        let r = run_mutex(&gpu, MutexKind::LazyCombining, b, 128, 20, true, wd()).unwrap();
        assert_eq!(r.counter, b as u64 * 20, "lazy_combining at {b}");
    }
    let r = run_barrier(&gpu, BarrierKind::Lean, 6, 128, 1, 20, true, wd()).unwrap();
    assert_eq!(r.violations, 0);
}

/// Lean's arrival made as grid.sync() makes it (the barrier lab's `lab_lean_arr_*`), beside
/// lean and grid.sync(), three interleaved repetitions, where 132x1024 misses 0.9x; message
/// passing of each variant.
#[test]
fn i11_misses_lean_arrive() {
    let Some(gpu) = gpu_or_skip("i11_misses_lean_arrive") else {
        return;
    };
    device_line(&gpu);
    let sms = gpu.info().sm_count as usize;
    let full = |t: u32| gpu.info().resident_blocks_bound(t) as usize;
    let labs = [
        "lab_lean_arr_acq_rel",
        "lab_lean_arr_sc",
        "lab_lean_arr_rel",
        "lab_lean_arr_fence",
        "lab_lean_last_warp",
    ];
    let rounds = 20_000u32;
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    println!(
        "Lean's arrival, ns per barrier ({rounds} rounds, median over blocks; 3 interleaved reps)"
    );
    for (b, t) in [
        (sms, 1024usize),
        (sms, 128),
        (full(1024), 1024),
        (full(256), 256),
    ] {
        let mut res: Vec<(String, Vec<f64>)> = Vec::new();
        let mut push = |name: &str, v: Result<f64, String>, failures: &mut Vec<String>| match v {
            Ok(ns) => match res.iter_mut().find(|r| r.0 == name) {
                Some(r) => r.1.push(ns),
                None => res.push((name.to_string(), vec![ns])),
            },
            Err(e) => failures.push(format!("{name} at {b}x{t}: {e}")),
        };
        let whole = |r: occupant::cuda::sync::run::BarrierRun| {
            if r.participants == b {
                Ok(r.ns_per_barrier)
            } else {
                Err(format!("{} of {b} blocks", r.participants))
            }
        };
        for _ in 0..3 {
            push(
                "grid.sync",
                run_grid_sync(&gpu, b, t, rounds).map_err(|e| e.to_string()),
                &mut failures,
            );
            let r = run_barrier(&gpu, BarrierKind::Lean, b, t, 1, rounds, false, wd());
            push(
                "lean",
                r.map_err(|e| e.to_string()).and_then(whole),
                &mut failures,
            );
            for l in labs {
                let r = run_barrier_lab(&gpu, l, b, t, rounds, false, wd());
                push(
                    l,
                    r.map_err(|e| e.to_string()).and_then(whole),
                    &mut failures,
                );
            }
        }
        let gs = res[0].1.iter().cloned().fold(f64::INFINITY, f64::min);
        for (name, v) in &res {
            let best = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let s: Vec<String> = v.iter().map(|x| format!("{x:.0}")).collect();
            println!(
                "  {b}x{t:<5} {name:<22} {:>16} ns  best {best:.0}  /grid.sync {:.3}",
                s.join(" "),
                best / gs
            );
            rows.push(serde_json::json!({"shape": format!("{b}x{t}"), "design": name, "ns": v}));
        }
    }
    for l in labs {
        for (b, t) in [
            (1usize, 128usize),
            (3, 1024),
            (37, 1024),
            (sms, 1024),
            (full(128), 128),
        ] {
            match run_barrier_lab(&gpu, l, b, t, 500, true, wd()) {
                Ok(r) if r.violations == 0 && r.participants == b => {}
                Ok(r) => failures.push(format!(
                    "{l} at {b}x{t}: {} violations, {} participants",
                    r.violations, r.participants
                )),
                Err(e) => failures.push(format!("{l} at {b}x{t}: {e}")),
            }
        }
    }
    println!(
        "message passing of the lab_lean_arr variants at 1x128, 3x1024, 37x1024, {sms}x1024, {}x128: {} failures",
        full(128),
        failures.len()
    );
    common::record(
        "i11_misses_lean_arrive",
        serde_json::json!({"device": gpu.info().name, "rows": rows}),
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
