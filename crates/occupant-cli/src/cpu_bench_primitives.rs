//! `occupant bench primitives --backend cpu`: operations per second of every barrier, mutex
//! and semaphore implementation against the number of groups (seed 004 §6 on the CPU backend).
//!
//! Each launch runs under the fair model (every group has its own thread, so a barrier over all
//! launched groups is safe, as after discovery, which finds every compute unit: see
//! `occupant discover`), aligns the groups with a barrier and times the primitive loop inside
//! the kernel: from the first group's start to the last one's end. One operation is one barrier episode (all groups pass), one lock+unlock by one group,
//! or one wait+post by one group.

use crate::backend_arg::Backend;
use crate::cli_values::at_least_one;
use crate::output_path::check_files;
use crate::plot::{panels_svg, Panel};
use crate::stats::Summary;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use occupant::cpu::sync::{
    Barrier, BarrierKind, Mutex, MutexKind, Participation, Semaphore, SemaphoreKind,
};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch};
use occupant::model::{LaunchShape, ShapeClass, ShapeTable, Watchdog};
use occupant::NDRange;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// Arguments of `occupant bench primitives`.
#[derive(Args, Debug)]
pub struct PrimitivesArgs {
    /// Backend to run on.
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: Backend,
    /// Group counts, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<usize>, default_values_t = vec![1usize, 2, 4, 8])]
    pub groups: Vec<usize>,
    /// Work-items per group.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 4)]
    pub local_size: usize,
    /// Operations per group (barrier: episodes) per run.
    #[arg(long, value_parser = at_least_one::<u32>, default_value_t = 2000)]
    pub iters: u32,
    /// Runs per point.
    #[arg(long, value_parser = at_least_one::<usize>, default_value_t = 5)]
    pub runs: usize,
    /// Semaphore initial values, comma-separated (seed 004 uses 1, 2, 10, 120).
    #[arg(long, value_delimiter = ',', value_parser = at_least_one::<u32>, default_values_t = vec![1u32, 2, 10, 120])]
    pub semaphore_values: Vec<u32>,
    /// Write the results as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an SVG plot to this file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Write the barrier and mutex costs as a shape table (the CPU backend's shape-aware
    /// defaults, `occupant::cpu::sync::cpu_shape_table`) to this file.
    #[arg(long)]
    pub shape_table: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Prim {
    Barrier {
        implementation: BarrierKind,
    },
    Mutex {
        implementation: MutexKind,
    },
    Semaphore {
        implementation: SemaphoreKind,
        initial: u32,
    },
}

impl Prim {
    fn label(&self) -> String {
        match self {
            Prim::Barrier { implementation } => format!("{implementation}"),
            Prim::Mutex { implementation } => format!("{implementation}"),
            Prim::Semaphore {
                implementation,
                initial,
            } => format!("{implementation} ({initial})"),
        }
    }
}

#[derive(Serialize)]
struct Point {
    primitive: Prim,
    groups: usize,
    ops_per_run: Vec<u64>,
    ops_per_sec: Summary,
}

#[derive(Serialize)]
struct Report {
    experiment: &'static str,
    backend: &'static str,
    host_cores: usize,
    local_size: usize,
    iters: u32,
    runs: usize,
    timing: &'static str,
    points: Vec<Point>,
}

/// One timed launch: (operations, seconds).
fn measure(prim: Prim, groups: usize, args: &PrimitivesArgs) -> Result<(u64, f64), String> {
    let model = ExecModel::Fair;
    let range = NDRange::groups(groups, args.local_size.max(1)).map_err(|e| e.to_string())?;
    let launch = Launch::new(range)
        .model(model)
        .watchdog(Watchdog::default().with_timeout(Duration::from_secs(10)));
    let start_bar = Barrier::with_default_kind(groups);
    let barrier = match prim {
        Prim::Barrier { implementation } => Barrier::new(implementation, groups),
        _ => Barrier::with_default_kind(1),
    };
    let mutex = match prim {
        Prim::Mutex { implementation } => Mutex::new(implementation),
        _ => Mutex::default(),
    };
    let sem = match prim {
        Prim::Semaphore {
            implementation,
            initial,
        } => Semaphore::new(implementation, initial),
        _ => Semaphore::with_default_kind(1),
    };
    let counter = GlobalBuffer::<u64>::new(1);
    let starts = GlobalBuffer::<u64>::filled(groups, u64::MAX);
    let ends = GlobalBuffer::<u64>::new(groups);
    let base = Instant::now();
    let iters = args.iters;
    Executor::new(model)
        .launch_with(
            &launch,
            || (),
            |item, _| {
                let p = Participation::native(item);
                start_bar.wait_group(item, &p);
                let rep = item.local_linear_id() == 0;
                if rep {
                    starts.set(p.p_group_id(), base.elapsed().as_nanos() as u64);
                }
                match prim {
                    Prim::Barrier { .. } => {
                        for _ in 0..iters {
                            barrier.wait_group(item, &p);
                        }
                    }
                    Prim::Mutex { .. } => {
                        for _ in 0..iters {
                            mutex.lock_group(item);
                            if rep {
                                counter.store(0, counter.load(0, Relaxed) + 1, Relaxed);
                            }
                            mutex.unlock_group(item);
                        }
                    }
                    Prim::Semaphore { .. } => {
                        for _ in 0..iters {
                            sem.wait_group(item);
                            sem.post_group(item);
                        }
                    }
                }
                if rep {
                    ends.set(p.p_group_id(), base.elapsed().as_nanos() as u64);
                }
            },
        )
        .map_err(|e| e.to_string())?;
    let n = groups;
    if let Prim::Mutex { implementation } = prim {
        let expect = u64::from(iters) * n as u64;
        if counter.get(0) != expect {
            return Err(format!(
                "mutex {implementation} lost updates: {} of {expect}",
                counter.get(0)
            ));
        }
    }
    let t0 = starts.to_vec()[..n].iter().copied().min().unwrap_or(0);
    let t1 = ends.to_vec()[..n].iter().copied().max().unwrap_or(0);
    let ops = match prim {
        Prim::Barrier { .. } => u64::from(iters),
        _ => u64::from(iters) * n as u64,
    };
    Ok((ops, (t1.saturating_sub(t0)) as f64 * 1e-9))
}

/// Runs the benchmark.
pub fn run(args: &PrimitivesArgs) -> Result<(), String> {
    check_files(&[&args.json, &args.svg, &args.shape_table])?;
    let mut prims: Vec<Prim> = BarrierKind::ALL
        .into_iter()
        .map(|implementation| Prim::Barrier { implementation })
        .collect();
    prims.extend(
        MutexKind::ALL
            .into_iter()
            .map(|implementation| Prim::Mutex { implementation }),
    );
    for &initial in &args.semaphore_values {
        prims.extend(
            SemaphoreKind::ALL
                .into_iter()
                .map(|implementation| Prim::Semaphore {
                    implementation,
                    initial,
                }),
        );
    }
    let groups: Vec<usize> = args.groups.iter().copied().filter(|&g| g > 0).collect();
    let runs = args.runs.max(1);
    let bar = ProgressBar::new((prims.len() * groups.len() * runs) as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut points = vec![];
    for &prim in &prims {
        for &g in &groups {
            bar.set_message(format!("{} x{g}", prim.label()));
            let (mut opsv, mut rates) = (vec![], vec![]);
            for _ in 0..runs {
                let (ops, secs) = measure(prim, g, args)?;
                opsv.push(ops);
                rates.push(if secs > 0.0 { ops as f64 / secs } else { 0.0 });
                bar.inc(1);
            }
            points.push(Point {
                primitive: prim,
                groups: g,
                ops_per_run: opsv,
                ops_per_sec: Summary::of(&rates),
            });
        }
    }
    bar.finish_and_clear();

    println!(
        "primitives on the CPU backend ({} host cores), {} work-items per group, {} ops per group per run, {runs} runs; ops/s mean (min..max)",
        occupant::cpu::available_cores(),
        args.local_size,
        args.iters
    );
    print!("{:<24}", "primitive \\ groups");
    for g in &groups {
        print!(" {:>24}", g);
    }
    println!();
    for prim in &prims {
        let kind = match prim {
            Prim::Barrier { .. } => "barrier",
            Prim::Mutex { .. } => "mutex",
            Prim::Semaphore { .. } => "semaphore",
        };
        print!("{:<24}", format!("{kind} {}", prim.label()));
        for p in points
            .iter()
            .filter(|p| p.primitive.label() == prim.label() && same_kind(&p.primitive, prim))
        {
            let s = &p.ops_per_sec;
            print!(
                " {:>24}",
                format!("{:.3e} ({:.1e}..{:.1e})", s.mean, s.min, s.max)
            );
        }
        println!();
    }

    if let Some(path) = &args.svg {
        let mut panels = vec![];
        for (title, pick) in [
            ("barriers (episodes/s)", 0u8),
            ("mutexes (lock+unlock/s)", 1),
            ("semaphores (wait+post/s)", 2),
        ] {
            let mut series = vec![];
            for prim in prims.iter().filter(|p| kind_index(p) == pick) {
                let pts = points
                    .iter()
                    .filter(|p| {
                        p.primitive.label() == prim.label() && same_kind(&p.primitive, prim)
                    })
                    .map(|p| (p.groups as f64, p.ops_per_sec.mean))
                    .collect();
                series.push((prim.label(), pts));
            }
            panels.push(Panel {
                title: format!("CPU: {title}"),
                x_label: "groups".into(),
                y_label: "operations per second".into(),
                series,
            });
        }
        panels_svg(path, &panels)?;
    }
    if let Some(path) = &args.shape_table {
        let mut t = ShapeTable::new(&format!(
            "CPU executor, fair model, {} host cores",
            occupant::cpu::available_cores()
        ));
        for p in &points {
            let shape = LaunchShape::new(p.groups, args.local_size);
            let rate = p.ops_per_sec.mean;
            // Barrier: one operation is one episode of all groups; mutex: one lock+unlock.
            let (class, kind) = match p.primitive {
                Prim::Barrier { implementation } => (ShapeClass::Barrier, implementation.name()),
                Prim::Mutex { implementation } => (ShapeClass::Mutex, implementation.name()),
                Prim::Semaphore { .. } => continue,
            };
            if rate > 0.0 {
                t.record(class, kind, shape, 1e9 / rate);
            }
        }
        let text = serde_json::to_string_pretty(&t).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let report = Report {
            experiment: "bench primitives",
            backend: "cpu",
            host_cores: occupant::cpu::available_cores(),
            local_size: args.local_size,
            iters: args.iters,
            runs,
            timing: "fair model (one thread per group), inside the kernel: first group's start to last group's end, after an aligning XF barrier",
            points,
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

fn kind_index(p: &Prim) -> u8 {
    match p {
        Prim::Barrier { .. } => 0,
        Prim::Mutex { .. } => 1,
        Prim::Semaphore { .. } => 2,
    }
}

fn same_kind(a: &Prim, b: &Prim) -> bool {
    kind_index(a) == kind_index(b)
}
