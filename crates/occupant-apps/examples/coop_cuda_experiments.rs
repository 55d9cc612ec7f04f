//! The cooperative-kernel experiments on a GPU (issue 12, seed 000 §5): writes JSON and SVG
//! under the directory given as the first argument.
//!
//! ```text
//! coop_cuda_experiments OUT_DIR [quick]
//! coop_cuda_experiments OUT_DIR overhead REPS [SPEC ...]   (section 1 alone, REPS interleaved
//!                                                          repetitions of two launches per mode,
//!                                                          default grid:1000x1000)
//! coop_cuda_experiments OUT_DIR mtcmp REPS ROUNDS [CONFIGS [VARIANTS]]
//!     the multitasking co-run (query barrier), variant against variant in one run with paired
//!     launches: CONFIGS `light:quarter,medium:quarter,heavy:half,heavy:quarter:old` (default),
//!     VARIANTS of `old,spread,batch,spread+batch,spread+batch+throttle,spread+batch+keep,
//!     old-idle,spread+batch-idle` (default: every non-idle one); and where the groups land on
//!     the SMs
//! coop_cuda_experiments --child PERIOD_MS BLOCKS N DURATION_MS   (the second process)
//! coop_cuda_experiments --green OTHER_SMS FULL_GPU_US N_LIGHT N_MEDIUM N_HEAVY   (green contexts)
//! ```
//! 1. cooperative vs persistent BFS and SSSP without multitasking (every input, both barrier
//!    variants);
//! 2. co-runs: light / medium / heavy × 1 / quarter / half / all-but-one groups × regular /
//!    query barrier (gather time, other kernel's start latency, period met, slowdown);
//! 3. the same workloads with what CUDA offers, in the same run: a high-priority stream beside
//!    the persistent BFS, a second process (time slicing), and green contexts (a quarter of the
//!    SMs for the matmul, the rest for the persistent BFS; in a child process).
//!
//! Every cooperative co-run is measured with paired repetitions (`Multitasker::paired_corun`:
//! alone, co-run, co-run, alone; OCC_COOP_REPS, default 2); rounds per launch OCC_COOP_ROUNDS
//! (default 80).
//!
//! Without a GPU it prints why and exits 0.

use occupant::cuda::coop::{Lane, MATMUL_CU};
use occupant::cuda::{CompileOptions, Gpu};
use occupant_apps::coop_cuda::{
    median, App, BarrierMode, Distribution, GpuBfs, Multitasker, PairedBlock, PairedCoRun, Request,
    Share, Tuning, FIT_FRACTION, WORKLOADS,
};
use occupant_apps::graph::{BuildOptions, Csr, GraphSpec};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn std::error::Error>>;
/// An input that ran: its spec, graph, sources and rounds.
type Input = (&'static str, Csr, Vec<u32>, u32);

fn main() {
    std::env::set_var("CUDA_MODULE_LOADING", "EAGER");
    let args: Vec<String> = std::env::args().collect();
    let r = if args.get(1).map(String::as_str) == Some("--child") {
        child(&args[2..])
    } else if args.get(1).map(String::as_str) == Some("--green") {
        green_child(&args[2..])
    } else if let (Some(out), Some("overhead")) = (args.get(1), args.get(2).map(String::as_str)) {
        let reps = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
        let specs: Vec<&str> = args[4.min(args.len())..]
            .iter()
            .map(String::as_str)
            .collect();
        overhead_only(Path::new(out), reps, &specs)
    } else if let (Some(out), Some("mtcmp")) = (args.get(1), args.get(2).map(String::as_str)) {
        let num = |i: usize, d: u32| args.get(i).and_then(|r| r.parse().ok()).unwrap_or(d);
        let text = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
        mt_compare(Path::new(out), num(3, 3), num(4, 40), text(5), text(6))
    } else if let Some(out) = args.get(1) {
        run(
            Path::new(out),
            args.get(2).map(String::as_str) == Some("quick"),
        )
    } else {
        eprintln!("usage: coop_cuda_experiments OUT_DIR [quick]");
        std::process::exit(2);
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn graph(spec: &str) -> Res<Csr> {
    let spec: GraphSpec = spec.parse()?;
    let el = spec.generate()?;
    Ok(el.to_csr(&BuildOptions::undirected_simple())?)
}

fn write(out: &Path, name: &str, v: &Value) -> Res<()> {
    std::fs::write(out.join(name), serde_json::to_string_pretty(v)?)?;
    Ok(())
}

/// Section 1 alone: cooperative (regular, query) vs persistent BFS and SSSP, `reps`
/// repetitions interleaved (persistent, regular, query in every repetition), each mode launched
/// twice in a row per repetition: on an H100 the grid BFS's time alternated with the parity of
/// the launch (~1.05-1.25 s vs ~1.4-1.65 s, whatever the barrier), so the mean of two
/// consecutive launches is the unit compared. Every time is kept; the ratios of the minima, of
/// the medians and the median of the per-repetition ratios of those means.
fn overhead_only(out: &Path, reps: u32, specs: &[&str]) -> Res<()> {
    std::fs::create_dir_all(out)?;
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let device = gpu.info().name.clone();
    println!("device: {device}");
    let specs = if specs.is_empty() {
        vec!["grid:1000x1000"]
    } else {
        specs.to_vec()
    };
    // The baseline is the persistent kernel with the static split (index 0); the cooperative
    // modes run the dynamic distribution (the default), and the persistent one with it too.
    // Rows 4 and 5: the claim counters in the queue lengths' line, as before i12-corun
    // (Tuning::near_claims), to compare the layouts in the same run.
    use Distribution::{Dynamic, Static};
    let modes = [
        (BarrierMode::Persistent, Static, false),
        (BarrierMode::Regular, Dynamic, false),
        (BarrierMode::Query, Dynamic, false),
        (BarrierMode::Persistent, Dynamic, false),
        (BarrierMode::Persistent, Dynamic, true),
        (BarrierMode::Query, Dynamic, true),
    ];
    // Rounds per launch: OCC_OVERHEAD_ROUNDS="BFS,SSSP" (default 80,10).
    let rounds_env = std::env::var("OCC_OVERHEAD_ROUNDS").unwrap_or_default();
    let mut rounds_it = rounds_env.split(',').map(|r| r.trim().parse::<u32>().ok());
    let (bfs_rounds, sssp_rounds) = (
        rounds_it.next().flatten().unwrap_or(80),
        rounds_it.next().flatten().unwrap_or(10),
    );
    let mut rows = Vec::new();
    for spec in specs {
        let g = graph(spec)?;
        let n = g.num_vertices();
        let sources: Vec<u32> = (0..4u32).map(|i| (i * 7919 + 13) % n).collect();
        for app in [App::Bfs, App::Sssp] {
            let rounds = if app == App::Sssp {
                sssp_rounds
            } else {
                bfs_rounds
            };
            let mut m = Multitasker::with_app(&gpu, &g, &sources, rounds, 256, 2, app)?;
            let _ = m.bfs_alone(BarrierMode::Persistent)?; // warm-up (module, caches)
            let tuning = m.bfs.tuning();
            let mut times = vec![Vec::new(); modes.len()];
            let mut addrs = vec![Vec::new(); modes.len()];
            let mut pairs = vec![Vec::new(); modes.len()];
            let mut wrong = 0;
            for _ in 0..reps.max(1) {
                for (i, &(mode, dist, near)) in modes.iter().enumerate() {
                    m.bfs.set_distribution(dist);
                    m.bfs.set_tuning(Tuning {
                        near_claims: near,
                        ..tuning
                    });
                    let (a, w1) = m.bfs_alone_report(mode)?;
                    let (b, w2) = m.bfs_alone_report(mode)?;
                    times[i].extend([a.elapsed_us, b.elapsed_us]);
                    addrs[i].extend([a.state_addr, b.state_addr]);
                    pairs[i].push((a.elapsed_us + b.elapsed_us) / 2.0);
                    wrong += w1 + w2;
                }
            }
            let min = |v: &[f64]| v.iter().cloned().fold(f64::MAX, f64::min);
            let paired = |i: usize| -> f64 {
                median(
                    &pairs[i]
                        .iter()
                        .zip(&pairs[0])
                        .map(|(a, b)| a / b)
                        .collect::<Vec<f64>>(),
                )
            };
            let row = json!({"app": app.name(), "input": spec, "vertices": n, "edges": g.num_edges(),
                "rounds": rounds, "groups": m.groups(), "repetitions": reps,
                "tuning": tuning.name(),
                "distribution": "persistent: static; regular, query, persistent_dynamic: dynamic",
                "persistent_us": times[0], "regular_us": times[1], "query_us": times[2],
                "persistent_dynamic_us": times[3],
                "persistent_dynamic_near_claims_us": times[4], "query_near_claims_us": times[5],
                "persistent_dynamic_near_claims_over_persistent_dynamic_paired_median":
                    median(&pairs[4].iter().zip(&pairs[3]).map(|(a, b)| a / b).collect::<Vec<f64>>()),
                "query_near_claims_over_query_paired_median":
                    median(&pairs[5].iter().zip(&pairs[2]).map(|(a, b)| a / b).collect::<Vec<f64>>()),
                "query_near_claims_over_persistent_paired_median": paired(5),
                "state_addr": {"persistent": addrs[0], "regular": addrs[1], "query": addrs[2],
                    "persistent_dynamic": addrs[3]},
                "persistent_pair_means_us": pairs[0], "regular_pair_means_us": pairs[1],
                "query_pair_means_us": pairs[2], "persistent_dynamic_pair_means_us": pairs[3],
                "persistent_dynamic_over_persistent_paired_median": paired(3),
                "regular_over_persistent_dynamic_median": median(&pairs[1]) / median(&pairs[3]),
                "query_over_persistent_dynamic_median": median(&pairs[2]) / median(&pairs[3]),
                "regular_over_persistent_min": min(&pairs[1]) / min(&pairs[0]),
                "query_over_persistent_min": min(&pairs[2]) / min(&pairs[0]),
                "regular_over_persistent_median": median(&pairs[1]) / median(&pairs[0]),
                "query_over_persistent_median": median(&pairs[2]) / median(&pairs[0]),
                "regular_over_persistent_paired_median": paired(1),
                "query_over_persistent_paired_median": paired(2),
                "wrong_rounds": wrong});
            println!("{row}");
            rows.push(row);
            write(
                out,
                "overhead-interleaved.json",
                &json!({"device": device, "rows": rows, "partial": true}),
            )?;
        }
    }
    // The goal's figures: geomean and max over every row of the cooperative / persistent
    // ratios (median of the per-repetition ratios of pair means), against the static persistent
    // kernel and against the persistent kernel with the same (dynamic) distribution.
    let summary = |key: &str| -> (f64, f64) {
        let v: Vec<f64> = rows
            .iter()
            .flat_map(|r| {
                [
                    r[format!("regular_over_{key}")].as_f64(),
                    r[format!("query_over_{key}")].as_f64(),
                ]
            })
            .flatten()
            .filter(|x| *x > 0.0)
            .collect();
        let geo = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len().max(1) as f64).exp();
        (geo, v.iter().cloned().fold(0.0, f64::max))
    };
    let (g0, m0) = summary("persistent_paired_median");
    let (g1, m1) = summary("persistent_dynamic_median");
    println!(
        "overhead (paired launches): coop/persistent geomean {g0:.4} max {m0:.4}; coop/persistent-dynamic (medians) geomean {g1:.4} max {m1:.4} (goal ≤ 1.03 / ≤ 1.10)"
    );
    write(
        out,
        "overhead-interleaved.json",
        &json!({"device": device, "rows": rows, "unit": "mean of two consecutive launches",
            "geomean_paired": g0, "max_paired": m0,
            "geomean_vs_persistent_dynamic": g1, "max_vs_persistent_dynamic": m1,
            "goal": {"geomean": 1.03, "max": 1.10}}),
    )?;
    Ok(())
}

/// A variant of the co-run comparison (`mtcmp`): the app's choices, which build of the kernel
/// (`throttle`: compiled with throttled polls while groups are lent), and whether the gathered
/// slots are held idle instead of running the matmul (the protocol's own cost).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Variant {
    name: &'static str,
    tuning: Tuning,
    throttle: bool,
    idle: bool,
}

const fn variant(
    name: &'static str,
    spread: bool,
    batch: bool,
    keep: bool,
    throttle: bool,
    idle: bool,
) -> Variant {
    Variant {
        name,
        tuning: Tuning {
            spread,
            batch,
            keep,
            // `old` is main's kernel before i12-corun: its claim counters in the queue line.
            near_claims: !spread && !batch && !keep,
        },
        throttle,
        idle,
    }
}

const VARIANTS: [Variant; 8] = [
    variant("old", false, false, false, false, false),
    variant("spread", true, false, false, false, false),
    variant("batch", false, true, false, false, false),
    variant("spread+batch", true, true, false, false, false),
    variant("spread+batch+throttle", true, true, false, true, false),
    variant("spread+batch+keep", true, true, true, false, false),
    variant("old-idle", false, false, false, false, true),
    variant("spread+batch-idle", true, true, false, false, true),
];

/// L2 set aside for the `keep` variants' persisting lines while they run: OCC_MT_KEEP_MB
/// (default 32; clamped to the device's maximum).
fn keep_bytes() -> usize {
    std::env::var("OCC_MT_KEEP_MB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(32)
        << 20
}

/// The throttled build's pause: OCC_COOP_POLL_PAUSE_SHIFT (env OCC_MT_THROTTLE_SHIFT, default 5:
/// 8 missing arrivals → 256 ns between polls).
fn throttle_shift() -> u32 {
    std::env::var("OCC_MT_THROTTLE_SHIFT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// The multitasking co-run, variant against variant in one run: the cooperative grid BFS
/// (query barrier unless the config says, dynamic distribution, `rounds` traversals per launch) with the matmul
/// (E on the whole GPU, seed 000 §5.2) on a share every period. `configs`: comma-separated
/// `WORKLOAD:SHARE[:V1/V2...[:regular|query]]` (an empty variant list: every variant; default `light:quarter,medium:quarter,heavy:half,
/// heavy:quarter:old`); `variants`: comma-separated names of [`VARIANTS`] (default every
/// non-idle one). Per configuration, `reps` repetitions; in each, every variant runs one paired
/// block (alone, co-run, co-run, alone: `Multitasker::paired_block`), the variants' order
/// rotating from repetition to repetition. Per variant: the slowdown (median of the blocks'
/// ratios, their spread, the ratio of means), the alone launches' spread, period met and
/// achieved, the barrier rates. Also where the groups land on the SMs (slot probe).
fn mt_compare(out: &Path, reps: u32, rounds: u32, configs: &str, variants: &str) -> Res<()> {
    std::fs::create_dir_all(out)?;
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let device = gpu.info().name.clone();
    println!("device: {device}");
    let spec = "grid:1000x1000";
    let g = graph(spec)?;
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..4u32).map(|i| (i * 7919 + 13) % n).collect();
    let variants: Vec<Variant> = if variants.is_empty() {
        VARIANTS.iter().copied().filter(|v| !v.idle).collect()
    } else {
        variants
            .split(',')
            .map(|name| {
                VARIANTS
                    .iter()
                    .find(|v| v.name == name.trim())
                    .copied()
                    .ok_or_else(|| format!("no variant `{name}`"))
            })
            .collect::<Result<_, _>>()?
    };
    let configs = if configs.is_empty() {
        "light:quarter,medium:quarter,heavy:half,heavy:quarter:old"
    } else {
        configs
    };
    let shift = throttle_shift();
    let mut m = Multitasker::new(&gpu, &g, &sources, rounds, 256, 2)?;
    let mut mt = if variants.iter().any(|v| v.throttle) {
        let opts = CompileOptions::default().option(format!("-DOCC_COOP_POLL_PAUSE_SHIFT={shift}"));
        let bfs = GpuBfs::with_options(&gpu, &g, &sources, rounds, App::Bfs, &opts)?;
        Some(Multitasker::for_kernel(&gpu, Box::new(bfs), 256, 2)?)
    } else {
        None
    };
    let placement = match slot_probe(&gpu, &m) {
        Ok(v) => v,
        Err(e) => json!({"error": e.to_string()}),
    };
    println!("slots: {}", placement["summary"]);
    let mut results = Vec::new();
    for cfg in configs.split(',') {
        let parts: Vec<&str> = cfg.trim().split(':').collect();
        let w = *WORKLOADS
            .iter()
            .find(|w| Some(&w.name) == parts.first())
            .ok_or_else(|| format!("config `{cfg}`: no workload"))?;
        let share = Share::parse(parts.get(1).copied().unwrap_or("quarter"))?;
        let mode = match parts.get(3).copied() {
            None | Some("query") => BarrierMode::Query,
            Some("regular") => BarrierMode::Regular,
            Some(b) => return Err(format!("config `{cfg}`: barrier `{b}`").into()),
        };
        let vs: Vec<Variant> = match parts.get(2).filter(|l| !l.is_empty()) {
            Some(list) => variants
                .iter()
                .copied()
                .filter(|v| list.split('/').any(|x| x == v.name))
                .collect(),
            None => variants.clone(),
        };
        // One configuration; an error (a gather timeout, say) is recorded and the next one runs.
        let mut one = || -> Res<Value> {
            let cal = m.calibrate_for(w, share)?;
            if let Some(mt) = mt.as_mut() {
                mt.set_matmul_n(cal.n)?;
            }
            println!(
                "{} {}: matmul n = {}, {:.0} µs on the whole GPU (E = {} ms), {:.0} µs alone on {} groups (P = {} ms: {})",
                w.name, share.name(), cal.n, cal.full_gpu_us, w.exec_ms, cal.share_us, cal.share_groups,
                w.period_ms, if cal.fits_period { "fits" } else { "does not fit" }
            );
            let mut blocks: Vec<Vec<PairedBlock>> = vec![Vec::new(); vs.len()];
            let mut kept = 0usize;
            for rep in 0..reps.max(1) as usize {
                for k in 0..vs.len() {
                    let i = (k + rep) % vs.len();
                    let v = vs[i];
                    let mm = if v.throttle {
                        mt.as_mut().ok_or("no throttled build")?
                    } else {
                        &mut m
                    };
                    mm.bfs.set_distribution(Distribution::Dynamic);
                    mm.bfs.set_tuning(v.tuning);
                    mm.idle_instead_us = v.idle.then_some(cal.share_us);
                    if v.tuning.keep {
                        kept = gpu.set_persisting_l2(keep_bytes())?;
                    }
                    let b = mm.paired_block(mode, w, share);
                    mm.idle_instead_us = None;
                    if v.tuning.keep {
                        gpu.reset_persisting_l2()?;
                        gpu.set_persisting_l2(0)?;
                    }
                    blocks[i].push(b?);
                }
            }
            let mut per = Vec::new();
            for (i, v) in vs.iter().enumerate() {
                let r = PairedCoRun::from_blocks(&blocks[i], v.tuning, cal.share_us);
                println!(
                    "{} {} {} {}: {}",
                    w.name,
                    share.name(),
                    mode.name(),
                    v.name,
                    r.summary()
                );
                let mut j = serde_json::to_value(&r)?;
                j["variant"] = json!(v.name);
                j["throttle_shift"] = json!(if v.throttle { Some(shift) } else { None });
                j["idle_slots"] = json!(v.idle);
                j["persisting_l2_bytes"] = json!(if v.tuning.keep { kept } else { 0 });
                j["state_addr"] = json!(blocks[i]
                    .iter()
                    .flat_map(|b| b.coruns.iter().map(|c| c.report.state_addr))
                    .collect::<Vec<_>>());
                per.push(j);
            }
            Ok(
                json!({"workload": w, "share": share, "barrier": mode, "calibration": cal,
                "fit_fraction": FIT_FRACTION, "variants": per}),
            )
        };
        match one() {
            Ok(v) => results.push(v),
            Err(e) => {
                println!("{cfg}: failed: {e}");
                results.push(json!({"config": cfg, "error": e.to_string()}));
            }
        }
        write(
            out,
            "mt-compare.json",
            &json!({"device": device, "input": spec, "rounds": rounds, "repetitions": reps,
                "distribution": "dynamic", "placement": placement,
                "method": "per repetition and variant: alone, co-run, co-run, alone; slowdown = median over repetitions of mean(co-runs)/mean(alone)",
                "configs": results, "partial": true}),
        )?;
    }
    write(
        out,
        "mt-compare.json",
        &json!({"device": device, "input": spec, "rounds": rounds, "repetitions": reps,
            "distribution": "dynamic", "placement": placement,
            "method": "per repetition and variant: alone, co-run, co-run, alone; slowdown = median over repetitions of mean(co-runs)/mean(alone)",
            "configs": results}),
    )?;
    println!("done");
    Ok(())
}

/// Where the blocks of a launch like the cooperative one (N blocks, its slot's shared memory,
/// all co-resident: each waits for the others) lie: the SM of every ticket (entry order, which
/// is a group's first id), four launches. Says whether the top quarter of the tickets — the
/// groups the scheduler takes, whose slots the matmul gets — fill whole SMs or share SMs with
/// lower tickets, and where tickets 0..7 (the grid BFS's frontier workers) lie.
fn slot_probe(gpu: &Gpu, m: &Multitasker) -> Res<Value> {
    // Layout of `out`: [0] tickets, [1] go, [2, 2+n) SM of each ticket, [2+n, 2+2n) its
    // atomic round trip to one fixed word (cycles, mean of 16 dependent ones, measured one
    // block at a time in ticket order), [2+2n+32] that word, [2+2n+64] whose turn it is.
    const SRC: &str = r#"
extern "C" __global__ void slot_probe(unsigned* out, unsigned n) {
  extern __shared__ unsigned pad[];
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(&out[0], 1u);
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    out[2 + t] = sm;
    pad[0] = sm;
    const long long c0 = clock64();
    while (atomicAdd(&out[1], 0u) == 0u && atomicAdd(&out[0], 0u) < n && clock64() - c0 < 2000000000ll) {}
    out[1] = 1u;
    unsigned* hot = out + 2 + 2 * n + 32;
    volatile unsigned* turn = out + 2 + 2 * n + 64;
    while (*turn != t && clock64() - c0 < 4000000000ll) {}
    unsigned x = 0u;
    const long long l0 = clock64();
    for (int i = 0; i < 16; ++i) x = atomicAdd(hot + (x >> 31), 1u);
    out[2 + n + t] = (unsigned)((clock64() - l0) / 16) + (x >> 31);
    __threadfence();
    *turn = t + 1u;
  }
}"#;
    let md = gpu.compile("slot_probe.cu", SRC, &CompileOptions::default())?;
    let n = m.groups();
    let q = Share::Quarter.groups(n) as usize;
    let lane = Lane::new(gpu, None)?;
    let mut launches = Vec::new();
    let mut summary = String::new();
    let words = 2 + 2 * n as usize + 96;
    for l in 0..8 {
        let mut buf = gpu.alloc_zeroed::<u32>(words)?;
        buf.copy_from(&vec![0u32; words])?;
        lane.launch(
            &md,
            "slot_probe",
            n,
            256,
            m.config().shared_bytes,
            &occupant::args![&buf, n],
        )?;
        lane.synchronize(Duration::from_secs(10))?;
        let v = buf.to_vec()?;
        let sm: Vec<u32> = v[2..2 + n as usize].to_vec();
        let lat: Vec<u32> = v[2 + n as usize..2 + 2 * n as usize].to_vec();
        let mut sorted = lat.clone();
        sorted.sort_unstable();
        let lat_median = sorted[sorted.len() / 2];
        let lat_first8 = lat[..8.min(lat.len())].iter().sum::<u32>() / 8;
        let top = &sm[n as usize - q..];
        let low = &sm[..n as usize - q];
        let mut top_sms = top.to_vec();
        top_sms.sort_unstable();
        top_sms.dedup();
        let shared = top_sms.iter().filter(|s| low.contains(s)).count();
        let first: Vec<u32> = sm[..8.min(sm.len())].to_vec();
        let first_beside_top = first.iter().filter(|s| top.contains(s)).count();
        let line = format!(
            "launch {l}: {} blocks entered; the top {q} tickets on {} SMs ({} of them shared with a lower ticket); tickets 0..7 on SMs {:?} ({} beside a top ticket), their atomic round trip {lat_first8} cycles (all tickets: median {lat_median}, {}–{})",
            v[0], top_sms.len(), shared, first, first_beside_top, sorted[0], sorted[sorted.len() - 1]
        );
        summary.push_str(&line);
        summary.push_str("; ");
        launches.push(
            json!({"entered": v[0], "sm_of_ticket": sm, "top_quarter_sms": top_sms.len(),
            "top_quarter_sms_shared_with_lower": shared, "first8_sms": first,
            "first8_beside_top": first_beside_top, "atomic_cycles_of_ticket": lat,
            "first8_atomic_cycles": lat_first8, "atomic_cycles_median": lat_median}),
        );
    }
    Ok(json!({"groups": n, "quarter": q, "launches": launches, "summary": summary}))
}

fn run(out: &Path, quick: bool) -> Res<()> {
    std::fs::create_dir_all(out)?;
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no GPU: {e}");
            return Ok(());
        }
    };
    let device = gpu.info().name.clone();
    println!("device: {device}");
    // Rounds per launch: OCC_COOP_ROUNDS (default 80).
    let rounds: u32 = std::env::var("OCC_COOP_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(80);
    let inputs: [(&str, u32); 2] = [("grid:1000x1000", rounds), ("rmat:scale=20,ef=16", rounds)];
    // 1. Cooperative vs persistent, no multitasking.
    let mut overhead = Vec::new();
    let mut graphs = Vec::new();
    for (spec, rounds) in inputs {
        let one = || -> Res<(Value, Input)> {
            let t = Instant::now();
            let g = graph(spec)?;
            let n = g.num_vertices();
            let sources: Vec<u32> = (0..4u32).map(|i| (i * 7919 + 13) % n).collect();
            println!(
                "{spec}: {n} vertices, {} edges ({:.1} s)",
                g.num_edges(),
                t.elapsed().as_secs_f64()
            );
            let reps = if quick { 1 } else { 3 };
            let mut rows = Vec::new();
            for app in [App::Bfs, App::Sssp] {
                let app_rounds = if app == App::Sssp { rounds / 8 } else { rounds };
                let mut m = Multitasker::with_app(&gpu, &g, &sources, app_rounds, 256, 2, app)?;
                let mut best = [f64::MAX; 3];
                let mut wrong = 0;
                for _ in 0..reps {
                    for (i, mode) in [
                        BarrierMode::Persistent,
                        BarrierMode::Regular,
                        BarrierMode::Query,
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        let (us, w) = m.bfs_alone(mode)?;
                        best[i] = best[i].min(us);
                        wrong += w;
                    }
                }
                let row = json!({"app": app.name(), "input": spec, "vertices": n, "edges": g.num_edges(),
                    "rounds": app_rounds, "groups": m.groups(), "persistent_us": best[0],
                    "regular_us": best[1], "query_us": best[2],
                    "regular_slowdown": best[1] / best[0], "query_slowdown": best[2] / best[0],
                    "wrong_rounds": wrong, "repetitions": reps});
                println!("{row}");
                rows.push(row);
            }
            let row = Value::Array(rows);
            Ok((row, (spec, g, sources, rounds)))
        };
        match one() {
            Ok((rows, gr)) => {
                if let Value::Array(rows) = rows {
                    overhead.extend(rows);
                }
                graphs.push(gr);
            }
            Err(e) => {
                println!("{spec}: failed: {e}");
                overhead.push(json!({"input": spec, "error": e.to_string()}));
            }
        }
    }
    let sl: Vec<f64> = overhead
        .iter()
        .flat_map(|r| {
            [
                r["regular_slowdown"].as_f64().unwrap_or(0.0),
                r["query_slowdown"].as_f64().unwrap_or(0.0),
            ]
        })
        .filter(|x| *x > 0.0)
        .collect();
    let geomean = (sl.iter().map(|x| x.ln()).sum::<f64>() / sl.len() as f64).exp();
    let max = sl.iter().cloned().fold(0.0, f64::max);
    write(
        out,
        "overhead.json",
        &json!({"device": device, "rows": overhead,
        "geomean_slowdown": geomean, "max_slowdown": max,
        "goal": {"geomean": 1.03, "max": 1.10}}),
    )?;
    println!("overhead: geomean {geomean:.4} max {max:.4}");

    // 2 + 3. Co-runs on the road-like input.
    let (spec, g, sources, rounds) = graphs.first().ok_or("no input ran")?;
    let mut m = Multitasker::new(&gpu, g, sources, *rounds, 256, 2)?;
    let mut coruns = Vec::new();
    let mut vendor = Vec::new();
    let mut mm_ns = Vec::new();
    // Paired repetitions per co-run (alone, co-run, co-run, alone): OCC_COOP_REPS, default 2.
    let reps: usize = std::env::var("OCC_COOP_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    for w in WORKLOADS {
        let cal = match m.calibrate_for(w, Share::Quarter) {
            Ok(c) => c,
            Err(e) => {
                println!("{}: calibration failed: {e}", w.name);
                continue;
            }
        };
        let (mm_n, full) = (cal.n, cal.full_gpu_us);
        mm_ns.push(mm_n);
        println!(
            "{}: matmul n = {mm_n}, {full:.0} µs on the whole GPU, {:.0} µs alone on a quarter ({} P = {} ms)",
            w.name, cal.share_us, if cal.fits_period { "fits" } else { "does not fit" }, w.period_ms
        );
        let shares: &[Share] = if quick {
            &[Share::Quarter]
        } else {
            &Share::ALL
        };
        for &share in shares {
            for mode in [BarrierMode::Regular, BarrierMode::Query] {
                let tuning = m.bfs.tuning();
                let r = match m.paired_corun(mode, w, share, reps, tuning) {
                    Ok(r) => r,
                    Err(e) => {
                        println!(
                            "coop {} {} {}: failed: {e}",
                            w.name,
                            share.name(),
                            mode.name()
                        );
                        coruns.push(json!({"workload": w, "share": share, "barrier": mode, "error": e.to_string()}));
                        continue;
                    }
                };
                println!(
                    "coop {} {} {}: start latency median {:.1} µs, {}",
                    w.name,
                    share.name(),
                    mode.name(),
                    r.start_latency_us.median,
                    r.summary()
                );
                let mut v = serde_json::to_value(&r)?;
                v["matmul_n"] = json!(mm_n);
                v["matmul_full_gpu_us"] = json!(full);
                v["calibration_quarter"] = serde_json::to_value(cal)?;
                v["input"] = json!(spec);
                coruns.push(v);
                write(
                    out,
                    "coruns.json",
                    &json!({"device": device, "coruns": coruns, "partial": true}),
                )?;
            }
        }
        // High-priority stream beside the persistent kernel.
        let r = match m.corun_priority_stream(w, Share::Quarter) {
            Ok(r) => r,
            Err(e) => {
                println!("priority stream {}: failed: {e}", w.name);
                vendor.push(
                    json!({"mechanism": "priority_stream", "workload": w, "error": e.to_string()}),
                );
                continue;
            }
        };
        println!(
            "priority stream {}: {} requests, start latency median {:.1} µs, period met {:.2}, slowdown {:.3}",
            w.name, r.requests.len(), r.median_start_latency_us, r.period_met_fraction, r.slowdown
        );
        let mut v = serde_json::to_value(&r)?;
        v["matmul_n"] = json!(mm_n);
        v["input"] = json!(spec);
        vendor.push(v);
        write(
            out,
            "vendor.json",
            &json!({"device": device, "runs": vendor, "partial": true}),
        )?;
        // A second process (time slicing).
        let quarter = Share::Quarter.groups(m.groups());
        match second_process(&mut m, w.period_ms, mm_n, quarter) {
            Ok(v) => {
                println!("second process {}: {}", w.name, v["summary"]);
                let mut v = v;
                v["workload"] = serde_json::to_value(w)?;
                v["input"] = json!(spec);
                vendor.push(v);
            }
            Err(e) => {
                println!("second process {}: failed: {e}", w.name);
                vendor.push(
                    json!({"mechanism": "second_process", "workload": w, "error": e.to_string()}),
                );
            }
        }
    }
    // Green contexts, in a child process (a fault there cannot touch this context).
    let full_us = m
        .bfs_alone(BarrierMode::Persistent)
        .map(|r| r.0)
        .unwrap_or(0.0);
    let other_sms = gpu.info().sm_count / 4;
    match green_process(other_sms, full_us, &mm_ns) {
        Ok(runs) => {
            for v in runs {
                println!("green context {}: {}", v["workload"]["name"], v["summary"]);
                vendor.push(v);
            }
        }
        Err(e) => {
            println!("green contexts: failed: {e}");
            vendor.push(json!({"mechanism": "green_context", "error": e.to_string()}));
        }
    }
    write(
        out,
        "coruns.json",
        &json!({"device": device, "coruns": coruns}),
    )?;
    write(
        out,
        "vendor.json",
        &json!({"device": device, "runs": vendor}),
    )?;
    svg_gather(out, &coruns)?;
    svg_slowdown(out, &coruns, &vendor)?;
    println!("done");
    Ok(())
}

/// Runs the persistent BFS here while a child process requests the matmul every period.
fn second_process(m: &mut Multitasker, period_ms: f64, mm_n: u32, blocks: u32) -> Res<Value> {
    let (alone_us, _) = m.bfs_alone(BarrierMode::Persistent)?;
    let exe = std::env::current_exe()?;
    let duration_ms = (alone_us / 1e3).max(200.0);
    let mut child = Command::new(exe)
        .args([
            "--child",
            &period_ms.to_string(),
            &blocks.to_string(),
            &mm_n.to_string(),
            &duration_ms.to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut lines = BufReader::new(child.stdout.take().ok_or("no child stdout")?).lines();
    let ready = lines.next().ok_or("child said nothing")??;
    if ready.trim() != "ready" {
        return Err(format!("child: {ready}").into());
    }
    let (corun_us, wrong) = m.bfs_alone(BarrierMode::Persistent)?;
    let mut rest = String::new();
    for l in lines {
        rest.push_str(&l?);
    }
    let st = child.wait()?;
    if !st.success() {
        return Err(format!("child exited with {st}: {rest}").into());
    }
    let reqs: Vec<Request> = serde_json::from_str::<Vec<Value>>(&rest)?
        .into_iter()
        .map(|v| Request {
            groups: blocks,
            gather_us: 0.0,
            exec_us: v["exec_us"].as_f64().unwrap_or(0.0),
            response_us: v["response_us"].as_f64().unwrap_or(0.0),
            start_latency_us: v["start_latency_us"].as_f64().unwrap_or(0.0),
            period_met: v["period_met"].as_bool().unwrap_or(false),
            ..Request::default()
        })
        .collect();
    let alone_k = m.exec_alone_us(blocks)?;
    let resp: Vec<f64> = reqs.iter().map(|r| r.response_us).collect();
    let lat: Vec<f64> = reqs.iter().map(|r| r.start_latency_us).collect();
    let met = reqs.iter().filter(|r| r.period_met).count() as f64 / reqs.len().max(1) as f64;
    Ok(
        json!({"mechanism": "second_process", "share": "quarter", "requests": reqs,
        "alone_us": alone_us, "corun_us": corun_us, "slowdown": corun_us / alone_us,
        "wrong_rounds": wrong, "period_met_fraction": met,
        "median_start_latency_us": median(&lat),
        "other_slowdown": median(&resp) / alone_k,
        "summary": format!("{} requests, start latency median {:.1} µs, period met {:.2}, BFS slowdown {:.3}, matmul slowdown {:.2}",
            reqs.len(), median(&lat), met, corun_us / alone_us, median(&resp) / alone_k)}),
    )
}

/// The second process: the matmul every period for a while; prints `ready`, then a JSON list.
fn child(args: &[String]) -> Res<()> {
    let num = |i: usize| -> Res<f64> { Ok(args.get(i).ok_or("missing argument")?.parse::<f64>()?) };
    let (period_ms, blocks, n, duration_ms) = (num(0)?, num(1)? as u32, num(2)? as u32, num(3)?);
    let gpu = Gpu::open(0)?;
    let mm = gpu.compile("matmul.cu", MATMUL_CU, &CompileOptions::default())?;
    let len = (n as usize) * (n as usize);
    let a = gpu.upload(&vec![0.5f32; len])?;
    let c = gpu.alloc_zeroed::<f32>(len)?;
    let mut stamps = gpu.upload(&[u64::MAX, 0])?;
    let lane = Lane::new(&gpu, None)?;
    let launch = |stamps: &mut occupant::cuda::DeviceBuffer<u64>| -> Res<f64> {
        stamps.copy_from(&[u64::MAX, 0])?;
        lane.launch(
            &mm,
            "matmul",
            blocks,
            256,
            0,
            &occupant::args![&a, &a, &c, n, &*stamps],
        )?;
        lane.synchronize(Duration::from_secs(60))?;
        let s = stamps.to_vec()?;
        Ok(s[1].saturating_sub(s[0]) as f64 / 1e3)
    };
    launch(&mut stamps)?; // warm-up
    println!("ready");
    std::io::stdout().flush()?;
    let period = Duration::from_secs_f64(period_ms / 1e3);
    let t0 = Instant::now();
    let mut due = t0 + Duration::from_millis(5);
    let mut out = Vec::new();
    while t0.elapsed() < Duration::from_secs_f64(duration_ms / 1e3) {
        while Instant::now() < due {
            std::thread::sleep(Duration::from_micros(50));
        }
        let t = Instant::now();
        let exec_us = launch(&mut stamps)?;
        let response_us = t.elapsed().as_secs_f64() * 1e6;
        out.push(json!({"exec_us": exec_us, "response_us": response_us,
            "start_latency_us": (response_us - exec_us).max(0.0),
            "period_met": t.elapsed() <= period}));
        due = (t + period).max(Instant::now());
    }
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}

fn bars_svg(
    path: PathBuf,
    title: &str,
    unit: &str,
    groups: &[(String, Vec<(String, f64)>)],
) -> Res<()> {
    let series: Vec<String> = {
        let mut s: Vec<String> = Vec::new();
        for (_, bars) in groups {
            for (name, _) in bars {
                if !s.contains(name) {
                    s.push(name.clone());
                }
            }
        }
        s
    };
    let colours = [
        "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377",
    ];
    let max = groups
        .iter()
        .flat_map(|(_, b)| b.iter().map(|x| x.1))
        .filter(|x| x.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let bw = 16.0;
    let gw = bw * series.len() as f64 + 24.0;
    let (w, h, top, left) = (80.0 + gw * groups.len() as f64 + 160.0, 340.0, 40.0, 60.0);
    let ph = 240.0;
    let mut s = format!("<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' font-family='sans-serif' font-size='11'>\n<text x='{left}' y='20' font-size='14'>{title}</text>\n");
    s += &format!(
        "<line x1='{left}' y1='{}' x2='{}' y2='{}' stroke='black'/>\n",
        top + ph,
        left + gw * groups.len() as f64,
        top + ph
    );
    for i in 0..=4 {
        let v = max * i as f64 / 4.0;
        let y = top + ph - ph * i as f64 / 4.0;
        s += &format!("<text x='4' y='{y}'>{v:.3}</text><line x1='{left}' y1='{y}' x2='{}' y2='{y}' stroke='#ddd'/>\n", left + gw * groups.len() as f64);
    }
    s += &format!("<text x='4' y='{}'>{unit}</text>\n", top - 6.0);
    for (gi, (label, bars)) in groups.iter().enumerate() {
        let x0 = left + gi as f64 * gw + 12.0;
        for (name, v) in bars {
            let si = series.iter().position(|x| x == name).unwrap_or(0);
            let hgt = if v.is_finite() { ph * v / max } else { 0.0 };
            s += &format!("<rect x='{}' y='{}' width='{}' height='{hgt}' fill='{}'><title>{name}: {v:.3}</title></rect>\n",
                x0 + si as f64 * bw, top + ph - hgt, bw - 2.0, colours[si % colours.len()]);
        }
        s += &format!("<text x='{x0}' y='{}'>{label}</text>\n", top + ph + 16.0);
    }
    for (si, name) in series.iter().enumerate() {
        let y = top + 14.0 * si as f64;
        let x = left + gw * groups.len() as f64 + 20.0;
        s += &format!("<rect x='{x}' y='{}' width='10' height='10' fill='{}'/><text x='{}' y='{y}'>{name}</text>\n", y - 9.0, colours[si % colours.len()], x + 14.0);
    }
    s += "</svg>\n";
    std::fs::write(path, s)?;
    Ok(())
}

fn svg_gather(out: &Path, coruns: &[Value]) -> Res<()> {
    let mut groups = Vec::new();
    for w in WORKLOADS {
        for share in Share::ALL {
            let mut bars = Vec::new();
            for mode in ["regular", "query"] {
                if let Some(r) = coruns.iter().find(|r| {
                    r["workload"]["name"] == w.name
                        && r["share"] == share.name()
                        && r["barrier"] == mode
                }) {
                    bars.push((
                        format!("gather, {mode}"),
                        r["gather_us"]["median"].as_f64().unwrap_or(0.0),
                    ));
                }
            }
            if !bars.is_empty() {
                groups.push((format!("{} {}", &w.name[..1], share.name()), bars));
            }
        }
    }
    bars_svg(
        out.join("gather.svg"),
        "Median gather time per requested share (light/medium/heavy)",
        "µs",
        &groups,
    )
}

fn svg_slowdown(out: &Path, coruns: &[Value], vendor: &[Value]) -> Res<()> {
    let mut groups = Vec::new();
    for w in WORKLOADS {
        let mut bars = Vec::new();
        for share in Share::ALL {
            if let Some(r) = coruns.iter().find(|r| {
                r["workload"]["name"] == w.name
                    && r["share"] == share.name()
                    && r["barrier"] == "query"
            }) {
                bars.push((
                    format!("coop query {}", share.name()),
                    r["slowdown"].as_f64().unwrap_or(0.0),
                ));
                if share == Share::Quarter {
                    bars.push((
                        "P/(P-D) model".to_string(),
                        r["preemption_model"].as_f64().unwrap_or(0.0),
                    ));
                }
            }
        }
        for v in vendor.iter().filter(|v| v["workload"]["name"] == w.name) {
            if let Some(s) = v["slowdown"].as_f64() {
                bars.push((v["mechanism"].as_str().unwrap_or("?").to_string(), s));
            }
        }
        groups.push((w.name.to_string(), bars));
    }
    bars_svg(
        out.join("slowdown.svg"),
        "Slowdown of the BFS (cooperative vs vendor mechanisms)",
        "×",
        &groups,
    )
}

/// Runs the green-context co-runs in a child process; returns their JSON.
fn green_process(other_sms: u32, full_us: f64, mm_ns: &[u32]) -> Res<Vec<Value>> {
    let exe = std::env::current_exe()?;
    let mut args = vec![
        "--green".to_string(),
        other_sms.to_string(),
        full_us.to_string(),
    ];
    args.extend(mm_ns.iter().map(|n| n.to_string()));
    let o = Command::new(exe)
        .args(&args)
        .stderr(Stdio::inherit())
        .output()?;
    let text = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() {
        return Err(format!("child exited with {}: {}", o.status, text.trim()).into());
    }
    let last = text.lines().last().ok_or("green child said nothing")?;
    Ok(serde_json::from_str(last)?)
}

/// The green-context child: the persistent BFS on the SMs left over, the matmul (as sized in
/// the parent) on a quarter of the SMs, every period, for each workload.
fn green_child(args: &[String]) -> Res<()> {
    let num = |i: usize| -> Res<f64> { Ok(args.get(i).ok_or("missing argument")?.parse::<f64>()?) };
    let (other_sms, full_us) = (num(0)? as u32, num(1)?);
    let (rest, other) = occupant::cuda::coop::green_split(0, other_sms)?;
    eprintln!(
        "green contexts: {} SMs + {} SMs",
        rest.info().sm_count,
        other.info().sm_count
    );
    let g = graph("grid:1000x1000")?;
    let n = g.num_vertices();
    let sources: Vec<u32> = (0..4u32).map(|i| (i * 7919 + 13) % n).collect();
    // The parent's rounds (OCC_COOP_ROUNDS, inherited): bfs_full_gpu_alone_us is its launch.
    // (Until i12-corun this was 80 whatever the parent ran: the green contexts' slowdown in
    // run-aad9c0a-i12-corun-r3, 40 rounds, compared 80 rounds with 40.)
    let rounds: u32 = std::env::var("OCC_COOP_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(80);
    let mut m = Multitasker::new(&rest, &g, &sources, rounds, 256, 2)?;
    let (part_us, wrong0) = m.bfs_alone(BarrierMode::Persistent)?;
    let mm = other.compile("matmul.cu", MATMUL_CU, &CompileOptions::default())?;
    let max_n = (2..5)
        .map(|i| num(i).unwrap_or(1024.0) as u32)
        .max()
        .unwrap_or(1024);
    let len = (max_n as usize) * (max_n as usize);
    let a = other.upload(&vec![0.5f32; len])?;
    let c = other.alloc_zeroed::<f32>(len)?;
    let mut stamps = other.upload(&[u64::MAX, 0])?;
    let lane = Lane::new(&other, None)?;
    let blocks = 2 * other.info().sm_count;
    let mut out = Vec::new();
    for (i, w) in WORKLOADS.into_iter().enumerate() {
        let mm_n = num(2 + i)? as u32;
        let mut f = || -> occupant::Result<Request> {
            let t = Instant::now();
            stamps.copy_from(&[u64::MAX, 0])?;
            lane.launch(
                &mm,
                "matmul",
                blocks,
                256,
                0,
                &occupant::args![&a, &a, &c, mm_n, &stamps],
            )?;
            lane.synchronize(Duration::from_secs(60))?;
            let response_us = t.elapsed().as_secs_f64() * 1e6;
            let s = stamps.to_vec()?;
            let exec_us = s[1].saturating_sub(s[0]) as f64 / 1e3;
            Ok(Request {
                groups: blocks,
                gather_us: 0.0,
                exec_us,
                response_us,
                start_latency_us: (response_us - exec_us).max(0.0),
                period_met: response_us <= w.period_ms * 1e3,
                ..Request::default()
            })
        };
        let r = m.corun_with("green_context", w, Share::Quarter, blocks, &mut f)?;
        let mut v = serde_json::to_value(&r)?;
        v["sms_bfs"] = json!(rest.info().sm_count);
        v["sms_other"] = json!(other.info().sm_count);
        v["matmul_n"] = json!(mm_n);
        v["bfs_partition_alone_us"] = json!(part_us);
        v["bfs_full_gpu_alone_us"] = json!(full_us);
        v["slowdown"] = json!(r.corun_us / full_us);
        v["slowdown_vs_partition"] = json!(r.corun_us / part_us);
        v["wrong_rounds"] = json!(r.wrong_rounds + wrong0);
        let execs: Vec<f64> = r.requests.iter().map(|q| q.exec_us).collect();
        v["summary"] = json!(format!(
            "{}+{} SMs, {} requests, start latency median {:.1} µs, period met {:.2}, BFS slowdown {:.3} vs the whole GPU, matmul median exec {:.0} µs",
            rest.info().sm_count, other.info().sm_count, r.requests.len(), r.median_start_latency_us,
            r.period_met_fraction, r.corun_us / full_us, median(&execs)
        ));
        out.push(v);
    }
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}
