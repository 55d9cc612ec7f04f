//! Barrier latency in every launch shape: every library kind (the hierarchical one also in
//! clusters of 2, 4 and 8), grid.sync() and the naive counter barrier in the same run, the lab
//! variants, and the per-shape summary (best of ours, ratio to grid.sync(), the defaults).

use super::PrimitivesConfig;
use crate::cuda::sync::builtin_shape_table;
use crate::cuda::sync::kinds::BarrierKind;
use crate::cuda::sync::run::{
    run_barrier_lab, run_barrier_lab_clustered, run_barrier_placed, run_grid_sync_with,
    run_naive_barrier, skew_option, BarrierRun, BARRIER_LAB, BARRIER_LAB_CLUSTER,
    BARRIER_LAB_CLUSTER_PROBES, BARRIER_LAB_PROBES,
};
use crate::cuda::{DeviceInfo, Gpu, PERSISTENT_POLL_PAUSE_SHIFT};
use crate::model::{median, LaunchShape, ShapeClass, ShapeTable};
use serde::Serialize;

/// One launch shape of the barrier benchmark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchShape {
    /// `"<blocks>x<threads>"`.
    pub name: String,
    /// Blocks launched.
    pub blocks: usize,
    /// Threads per block.
    pub threads: usize,
}

impl BenchShape {
    /// A shape given as `"<blocks>x<threads>"` (e.g. `396x128`), checked against `info`: at
    /// least one block, 1 to `max_threads_per_block` threads, and no more blocks than can be
    /// resident at once (the hardware bound: a barrier over more would deadlock). The error
    /// names the limit and the numbers.
    ///
    /// ```no_run
    /// # fn main() -> occupant::Result<()> {
    /// use occupant::cuda::sync::bench::BenchShape;
    /// let gpu = occupant::cuda::Gpu::open(0)?;
    /// let s = BenchShape::parse("264x1024", gpu.info())?;
    /// assert_eq!((s.blocks, s.threads), (264, 1024));
    /// assert!(BenchShape::parse("264x2048", gpu.info()).is_err());
    /// # Ok(()) }
    /// ```
    pub fn parse(spec: &str, info: &DeviceInfo) -> crate::Result<BenchShape> {
        let bad = |why: String| crate::Error::Input(format!("shape `{spec}`: {why}"));
        let (b, t) = spec
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| bad("expected <blocks>x<threads>, e.g. 396x128".into()))?;
        let num = |v: &str, what: &str| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| bad(format!("{what} `{v}` is not a whole number")))
        };
        let (blocks, threads) = (num(b, "blocks")?, num(t, "threads")?);
        let max_t = info.max_threads_per_block as usize;
        if threads == 0 || threads > max_t {
            return Err(bad(format!(
                "{threads} threads per block; this GPU takes 1 to {max_t}"
            )));
        }
        let bound = info.resident_blocks_bound(threads as u32) as usize;
        if blocks == 0 || blocks > bound {
            return Err(bad(format!(
                "{blocks} blocks; 1 to {bound} blocks of {threads} threads can be resident at \
                 once on this GPU ({} SMs)",
                info.sm_count
            )));
        }
        Ok(BenchShape {
            name: format!("{blocks}x{threads}"),
            blocks,
            threads,
        })
    }
}

/// The shapes: one block per SM of 128, 256 and 1024 threads, full occupancy at the same block
/// sizes (the hardware's resident-block bound), and between them 2 blocks per SM of 128, 256
/// and 512 threads and 4 of 128 and 256 (where the shape table answers for a shape it has not
/// measured with the nearest one: on an H200, 264 x 256 took 132 x 256's kind, 1.06x
/// grid.sync, where another was 0.93x).
pub fn barrier_shapes(info: &DeviceInfo) -> Vec<BenchShape> {
    let sms = info.sm_count as usize;
    let mut v = standard_barrier_shapes(info);
    for (per_sm, t) in [(2usize, 128usize), (2, 256), (2, 512), (4, 128), (4, 256)] {
        let b = per_sm * sms;
        if b <= info.resident_blocks_bound(t as u32) as usize
            && !v.iter().any(|s| s.blocks == b && s.threads == t)
        {
            v.push(BenchShape {
                name: format!("{b}x{t}"),
                blocks: b,
                threads: t,
            });
        }
    }
    v
}

/// The six shapes of the issue-11 goals: one block per SM of 128, 256 and 1024 threads, and
/// full occupancy at the same block sizes (the hardware's resident-block bound).
pub fn standard_barrier_shapes(info: &DeviceInfo) -> Vec<BenchShape> {
    let sms = info.sm_count as usize;
    let mut v = Vec::new();
    for t in [128usize, 256, 1024] {
        v.push(BenchShape {
            name: format!("{sms}x{t}"),
            blocks: sms,
            threads: t,
        });
    }
    for t in [128usize, 256, 1024] {
        let b = info.resident_blocks_bound(t as u32) as usize;
        v.push(BenchShape {
            name: format!("{b}x{t}"),
            blocks: b,
            threads: t,
        });
    }
    v
}

/// One design in one shape.
#[derive(Debug, Clone, Serialize)]
pub struct BarrierPoint {
    /// The shape, `"<blocks>x<threads>"`.
    pub shape: String,
    /// The design: a kind's name, `"hierarchical (cluster c)"`, a lab kernel, or a
    /// comparator (`"grid.sync (cooperative)"`, `"naive counter (no discovery)"`).
    pub design: String,
    /// Blocks that took part.
    pub blocks: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// Median over blocks of ns per barrier.
    pub ns_per_barrier: Option<f64>,
    /// Why it could not be measured.
    pub error: Option<String>,
    /// The run's details (ours only; the first of several runs).
    pub run: Option<BarrierRun>,
    /// Every run's ns per barrier when there were several
    /// ([`PrimitivesConfig::runs`](super::PrimitivesConfig)); `ns_per_barrier` is their median.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ns_runs: Vec<f64>,
}

/// Per shape: our fastest barrier, grid.sync(), and the shape-aware default.
#[derive(Debug, Clone, Serialize)]
pub struct ShapeSummary {
    /// The shape.
    pub shape: String,
    /// Our fastest design and its ns per barrier.
    pub best: Option<(String, f64)>,
    /// grid.sync()'s ns per barrier.
    pub grid_sync_ns: Option<f64>,
    /// best / grid.sync.
    pub best_over_grid_sync: Option<f64>,
    /// The default this run's table chooses.
    pub default_kind: String,
    /// Its ns over the best's.
    pub default_over_best: Option<f64>,
    /// The default the library's built-in table (an earlier run) chooses, and its cost in
    /// this run over this run's best: an independent check of the shape-aware default.
    pub builtin_default_kind: Option<String>,
    /// See `builtin_default_kind`.
    pub builtin_default_over_best: Option<f64>,
    /// With several runs (places) per design: the fastest single place of any kind of ours
    /// and its ns per barrier, what [`Barrier::placed`](crate::cuda::sync::Barrier::placed)
    /// can find (`None` with one run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_place: Option<(String, f64)>,
    /// `best_place` / grid.sync.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_place_over_grid_sync: Option<f64>,
}

enum Design {
    Kind(BarrierKind, u32),
    GridSync,
    Naive,
}

/// Every design in every shape; each library kind's time goes into `table`.
pub(super) fn measure(
    gpu: &Gpu,
    cfg: &PrimitivesConfig,
    shapes: &[BenchShape],
    table: &mut ShapeTable,
    log: &mut dyn FnMut(&str),
) -> Vec<BarrierPoint> {
    let mut out = Vec::new();
    let skew = skew_option(cfg.skew_ns);
    let extra: Vec<&str> = skew.iter().map(String::as_str).collect();
    // With skewed arrivals the kinds are timed as persistent programs, which choose from these
    // times, run them: with the polls' throttle (grid.sync has no poll of ours to throttle).
    let throttle = format!("-DOCC_POLL_PAUSE_SHIFT={PERSISTENT_POLL_PAUSE_SHIFT}");
    let kind_extra: Vec<&str> = extra
        .iter()
        .copied()
        .chain((cfg.skew_ns > 0).then_some(throttle.as_str()))
        .collect();
    let class = class_of(cfg);
    log(&format!(
        "barrier latency, ns per barrier ({} rounds, median over blocks{}{})",
        cfg.rounds,
        if cfg.runs > 1 {
            format!(", median of {} interleaved launches", cfg.runs)
        } else {
            String::new()
        },
        if cfg.skew_ns > 0 {
            format!(
                ", skewed arrivals: a random delay < {} ns before each; our kinds with the \
                 polls' throttle of persistent programs",
                cfg.skew_ns
            )
        } else {
            String::new()
        }
    ));
    for s in shapes {
        let mut designs: Vec<(String, Design)> = BarrierKind::ALL
            .iter()
            .map(|&k| {
                let name = if k == BarrierKind::Hierarchical {
                    "hierarchical (flat)".to_string()
                } else {
                    k.name().to_string()
                };
                (name, Design::Kind(k, 1))
            })
            .collect();
        for c in [2u32, 4, 8] {
            if s.blocks % c as usize == 0 {
                designs.push((
                    format!("hierarchical (cluster {c})"),
                    Design::Kind(BarrierKind::Hierarchical, c),
                ));
            }
        }
        designs.push(("grid.sync (cooperative)".into(), Design::GridSync));
        if cfg.skew_ns == 0 {
            designs.push(("naive counter (no discovery)".into(), Design::Naive));
        }
        // cfg.runs interleaved rounds over the designs, our kinds' state at another candidate
        // place each round (run_barrier_placed): a design's figure is its median, so that no
        // kind's one lucky or unlucky place in L2 decides the table.
        let (b, t, r, w) = (s.blocks, s.threads, cfg.rounds, cfg.watchdog);
        let mut got: Vec<Vec<(f64, Option<BarrierRun>)>> = vec![Vec::new(); designs.len()];
        let mut errors: Vec<Option<String>> = vec![None; designs.len()];
        for place in 0..cfg.runs.max(1) as usize {
            for (i, (_, d)) in designs.iter().enumerate() {
                let (ns, run, err) = match *d {
                    Design::Kind(kind, c) => {
                        let shape = (b, t, c);
                        match run_barrier_placed(gpu, kind, shape, r, false, w, &kind_extra, place)
                        {
                            Ok(run) => (Some(run.ns_per_barrier), Some(run), None),
                            Err(e) => (None, None, Some(e.to_string())),
                        }
                    }
                    Design::GridSync => split(run_grid_sync_with(gpu, b, t, r, &extra)),
                    Design::Naive => split(run_naive_barrier(gpu, b, t, r, w)),
                };
                match ns {
                    Some(ns) => got[i].push((ns, run)),
                    None => errors[i] = errors[i].take().or(err),
                }
            }
        }
        for (((name, d), runs), err) in designs.into_iter().zip(got).zip(errors) {
            let ns_runs: Vec<f64> = runs.iter().map(|(ns, _)| *ns).collect();
            let ns = (!ns_runs.is_empty()).then(|| median(&ns_runs));
            let run = runs.into_iter().find_map(|(_, run)| run);
            if let (Design::Kind(kind, c), Some(ns), Some(run)) = (&d, ns, &run) {
                // A cluster launch may leave blocks out (at 16 blocks per SM only 8 are
                // resident in clusters on an H100): only a run over every launched block
                // stands for the shape.
                if run.participants == b {
                    let shape = LaunchShape::new(b, t).with_cluster(*c);
                    table.record(class, kind.name(), shape, ns);
                }
            }
            let err = if ns.is_some() { None } else { err };
            let mut p = point(s, name, ns, run, err, log);
            if ns_runs.len() > 1 {
                p.ns_runs = ns_runs;
            }
            out.push(p);
        }
    }
    out
}

/// The table class of the barrier runs: [`ShapeClass::BarrierSkewed`] with skewed arrivals.
pub(super) fn class_of(cfg: &PrimitivesConfig) -> ShapeClass {
    if cfg.skew_ns > 0 {
        ShapeClass::BarrierSkewed
    } else {
        ShapeClass::Barrier
    }
}

/// The lab's variants in every shape (not recorded in the table: not library kinds).
pub(super) fn measure_lab(
    gpu: &Gpu,
    cfg: &PrimitivesConfig,
    shapes: &[BenchShape],
    log: &mut dyn FnMut(&str),
) -> Vec<BarrierPoint> {
    log("barrier lab, ns per barrier (r: lines, d: loads in flight, g: gap cycles, f: fan-in)");
    let mut out = Vec::new();
    // A single block measures a design's fixed cost (no other block to wait for).
    let one = BenchShape {
        name: "1x128".into(),
        blocks: 1,
        threads: 128,
    };
    for s in std::iter::once(&one).chain(shapes) {
        for v in BARRIER_LAB
            .iter()
            .chain(BARRIER_LAB_PROBES)
            .filter(|v| cfg.lab_variants.is_empty() || cfg.lab_variants.iter().any(|w| w == *v))
        {
            let (ns, run, err) =
                match run_barrier_lab(gpu, v, s.blocks, s.threads, cfg.rounds, false, cfg.watchdog)
                {
                    Ok(run) => (Some(run.ns_per_barrier), Some(run), None),
                    Err(e) => (None, None, Some(e.to_string())),
                };
            out.push(point(s, v.to_string(), ns, run, err, log));
        }
    }
    // Cluster launches: the cluster designs and probes in every shape the cluster size divides;
    // one of them again with a 200 us discovery window (do clusters lose blocks to the window
    // or to residency?).
    let sizes: &[u32] = if cfg.barrier_lab_clusters {
        &[2, 4, 8, 16]
    } else {
        &[]
    };
    for &c in sizes {
        for s in shapes.iter().filter(|s| s.blocks % c as usize == 0) {
            for v in BARRIER_LAB_CLUSTER.iter().chain(BARRIER_LAB_CLUSTER_PROBES) {
                let (ns, run, err) = match run_barrier_lab_clustered(
                    gpu,
                    v,
                    s.blocks,
                    s.threads,
                    c,
                    cfg.rounds,
                    false,
                    cfg.watchdog,
                    &[],
                ) {
                    Ok(run) => (Some(run.ns_per_barrier), Some(run), None),
                    Err(e) => (None, None, Some(e.to_string())),
                };
                out.push(point(s, format!("{v} (cluster {c})"), ns, run, err, log));
            }
            let quiet = ["-DOCC_DISCOVERY_QUIET_NS=200000"];
            let v = "lab_cl_dsds";
            let (ns, run, err) = match run_barrier_lab_clustered(
                gpu,
                v,
                s.blocks,
                s.threads,
                c,
                cfg.rounds,
                false,
                cfg.watchdog,
                &quiet,
            ) {
                Ok(run) => (Some(run.ns_per_barrier), Some(run), None),
                Err(e) => (None, None, Some(e.to_string())),
            };
            out.push(point(
                s,
                format!("{v} (cluster {c}, quiet 200us)"),
                ns,
                run,
                err,
                log,
            ));
        }
    }
    out
}

fn split(r: crate::model::Result<f64>) -> (Option<f64>, Option<BarrierRun>, Option<String>) {
    match r {
        Ok(ns) => (Some(ns), None, None),
        Err(e) => (None, None, Some(e.to_string())),
    }
}

fn point(
    s: &BenchShape,
    design: String,
    ns: Option<f64>,
    run: Option<BarrierRun>,
    error: Option<String>,
    log: &mut dyn FnMut(&str),
) -> BarrierPoint {
    let parts = run.as_ref().map(|r| r.participants).unwrap_or(s.blocks);
    match (&ns, &error) {
        (Some(ns), _) => log(&format!(
            "  {:<10} {design:<30} {ns:>8.0} ns  ({parts} blocks)",
            s.name
        )),
        (None, Some(e)) => log(&format!("  {:<10} {design:<30} error: {e}", s.name)),
        _ => {}
    }
    BarrierPoint {
        shape: s.name.clone(),
        design,
        blocks: parts,
        block_threads: s.threads,
        ns_per_barrier: ns,
        error,
        run,
        ns_runs: Vec::new(),
    }
}

/// Per shape: the fastest of ours, grid.sync(), the shape-aware default's cost (from the
/// table measured in this run, so it shows the choice) and the built-in table's default's
/// cost in this run (an independent check).
pub(super) fn summarise(
    barrier: &[BarrierPoint],
    shapes: &[BenchShape],
    table: &ShapeTable,
    class: ShapeClass,
    log: &mut dyn FnMut(&str),
) -> Vec<ShapeSummary> {
    log("barrier per shape: best of ours vs grid.sync(), and the shape-aware default");
    let builtin_table = builtin_shape_table(&table.measured_on);
    let mut v = Vec::new();
    for s in shapes {
        let here = |b: &&BarrierPoint| b.shape == s.name && b.ns_per_barrier.is_some();
        let best = barrier
            .iter()
            .filter(here)
            .filter(|b| b.run.is_some() && b.blocks == s.blocks)
            .min_by(|a, b| {
                let (x, y) = (a.ns_per_barrier.unwrap_or(f64::MAX), b.ns_per_barrier);
                x.total_cmp(&y.unwrap_or(f64::MAX))
            })
            .map(|b| (b.design.clone(), b.ns_per_barrier.unwrap_or(0.0)));
        let grid = barrier
            .iter()
            .filter(here)
            .find(|b| b.design.starts_with("grid.sync"))
            .and_then(|b| b.ns_per_barrier);
        let query = LaunchShape::new(s.blocks, s.threads);
        let is_kind = |k: &str| BarrierKind::parse(k).is_some();
        let default = table
            .best_where(class, query, is_kind)
            .map(|(k, ns)| (k.to_string(), ns));
        let ratio = match (&best, grid) {
            (Some((_, b)), Some(g)) if g > 0.0 => Some(b / g),
            _ => None,
        };
        let dob = match (&default, &best) {
            (Some((_, d)), Some((_, b))) if *b > 0.0 => Some(d / b),
            _ => None,
        };
        let builtin = builtin_table.as_ref().and_then(|t| {
            t.best_where(class, query, is_kind)
                .map(|(k, _)| k.to_string())
        });
        let builtin_ratio = builtin.as_ref().and_then(|k| {
            let here = table
                .ranking(class, query)
                .into_iter()
                .find(|(n, _)| n == k)?
                .1;
            Some(here / best.as_ref()?.1)
        });
        log(&format!(
            "  {:<10} best {:<28} grid.sync {:>7.0} ns  ratio {:.2}  default {} ({:.2}x best)",
            s.name,
            best.as_ref()
                .map(|(n, ns)| format!("{n} {ns:.0} ns"))
                .unwrap_or_default(),
            grid.unwrap_or(0.0),
            ratio.unwrap_or(0.0),
            default.as_ref().map(|d| d.0.as_str()).unwrap_or("-"),
            dob.unwrap_or(0.0)
        ));
        if let (Some(k), Some(r)) = (&builtin, builtin_ratio) {
            log(&format!(
                "  {:<10} built-in table's default {k}: {r:.2}x this run's best",
                s.name
            ));
        }
        let best_place = fastest_place(barrier, s);
        let best_place_over_grid_sync = match (&best_place, grid) {
            (Some((_, b)), Some(g)) if g > 0.0 => Some(b / g),
            _ => None,
        };
        if let (Some((k, ns)), Some(r)) = (&best_place, best_place_over_grid_sync) {
            log(&format!(
                "  {:<10} best place: {k} {ns:.0} ns, {r:.2}x grid.sync (what Barrier::placed finds)",
                s.name
            ));
        }
        v.push(ShapeSummary {
            shape: s.name.clone(),
            best,
            grid_sync_ns: grid,
            best_over_grid_sync: ratio,
            default_kind: default.map(|d| d.0).unwrap_or_default(),
            default_over_best: dob,
            builtin_default_kind: builtin,
            builtin_default_over_best: builtin_ratio,
            best_place,
            best_place_over_grid_sync,
        });
    }
    v
}

/// The fastest single run (place) of any library kind in shape `s`, from the designs timed
/// more than once (`BarrierPoint::ns_runs`).
fn fastest_place(barrier: &[BarrierPoint], s: &BenchShape) -> Option<(String, f64)> {
    barrier
        .iter()
        .filter(|b| b.shape == s.name && b.blocks == s.blocks && b.ns_runs.len() > 1)
        .filter(|b| BarrierKind::parse(&b.design).is_some())
        .filter_map(|b| {
            let ns = b.ns_runs.iter().copied().min_by(f64::total_cmp)?;
            Some((b.design.clone(), ns))
        })
        .min_by(|x, y| x.1.total_cmp(&y.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_place_is_the_fastest_run_of_any_kind_timed_more_than_once() {
        let s = BenchShape {
            name: "264x1024".into(),
            blocks: 264,
            threads: 1024,
        };
        let point = |design: &str, runs: &[f64]| BarrierPoint {
            shape: s.name.clone(),
            design: design.into(),
            blocks: 264,
            block_threads: 1024,
            ns_per_barrier: Some(runs[runs.len() / 2]),
            error: None,
            run: None,
            ns_runs: runs.to_vec(),
        };
        let pts = vec![
            point("lean_eager", &[1040.0, 990.0, 1035.0]),
            point("replica", &[1480.0, 1470.0, 1490.0]),
            point("grid.sync (cooperative)", &[900.0, 900.0]),
        ];
        assert_eq!(
            fastest_place(&pts, &s),
            Some(("lean_eager".to_string(), 990.0))
        );
        let one: Vec<_> = pts
            .iter()
            .map(|p| BarrierPoint {
                ns_runs: vec![1.0],
                ..p.clone()
            })
            .collect();
        assert_eq!(fastest_place(&one, &s), None, "one run: no place to choose");
    }

    fn h200() -> DeviceInfo {
        DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            arch: "sm_90".into(),
            sm_count: 132,
            total_memory: 141 << 30,
            clock_khz: 1_980_000,
            memory_clock_khz: 3_201_000,
            memory_bus_bits: 6144,
            l2_bytes: 60 << 20,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            max_shared_per_block: 232_448,
            shared_per_sm: 233_472,
            registers_per_sm: 65_536,
            cooperative_launch: true,
            driver_version: "13.0".into(),
            nvrtc_version: None,
        }
    }

    #[test]
    fn shapes_parse_within_the_hardware_bounds_and_say_which_limit_otherwise() {
        let info = h200();
        let s = BenchShape::parse(" 396x128", &info).unwrap();
        assert_eq!(
            (s.name.as_str(), s.blocks, s.threads),
            ("396x128", 396, 128)
        );
        assert_eq!(BenchShape::parse("4224X32", &info).unwrap().blocks, 4224);
        assert_eq!(BenchShape::parse("264x1024", &info).unwrap().threads, 1024);
        for (spec, says) in [
            ("396", "expected <blocks>x<threads>"),
            ("ax128", "blocks `a`"),
            ("10x-1", "threads `-1`"),
            ("10x0", "1 to 1024"),
            ("10x2048", "1 to 1024"),
            ("0x128", "1 to 2112 blocks of 128 threads"),
            ("265x1024", "1 to 264 blocks of 1024 threads"),
            ("4225x32", "1 to 4224 blocks"),
        ] {
            let e = BenchShape::parse(spec, &info).unwrap_err().to_string();
            assert!(e.contains(spec.trim()) && e.contains(says), "{spec}: {e}");
        }
    }

    #[test]
    fn a_configuration_measures_its_shapes_or_the_built_in_list() {
        let info = h200();
        let mut cfg = PrimitivesConfig::default();
        assert_eq!(cfg.barrier_shapes(&info), barrier_shapes(&info));
        assert_eq!(barrier_shapes(&info).len(), 11);
        cfg.shapes = vec![BenchShape::parse("396x128", &info).unwrap()];
        assert_eq!(cfg.barrier_shapes(&info), cfg.shapes);
    }
}
