//! Mutex throughput from one contending block to full occupancy (every kind; the cluster-cohort
//! kinds also in clusters of 2, 4 and 8; the combining lock counts applied requests, one
//! critical section each, so its figure compares with the locks' lock/unlock pairs) and
//! semaphore throughput (spinning vs sleeping).

use super::PrimitivesConfig;
use crate::cuda::sync::builtin_shape_table;
use crate::cuda::sync::kinds::{MutexKind, SemaphoreKind};
use crate::cuda::sync::run::{run_mutex_clustered, run_semaphore, MutexRun, SemaphoreRun};
use crate::cuda::Gpu;
use crate::model::{LaunchShape, ShapeClass, ShapeTable};

/// `kind`, with its cluster size when it has one.
pub fn mutex_label(kind: MutexKind, cluster: u32) -> String {
    if cluster > 1 {
        format!("{} (cluster {cluster})", kind.name())
    } else {
        kind.name().to_string()
    }
}

/// The contention points: 1, 2, 3, 4 … 8 blocks per SM, and full occupancy of 128-thread
/// blocks (3: the point where the two-block hand-off still limits the combining locks).
fn contention_points(gpu: &Gpu) -> Vec<usize> {
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    let mut counts = vec![
        1usize,
        2,
        3,
        4,
        8,
        16,
        33,
        66,
        sms,
        2 * sms,
        4 * sms,
        8 * sms,
    ];
    counts.retain(|&c| c < full);
    counts.push(full);
    counts
}

/// Every mutex at every contention point; each time goes into `table` (ns per acquisition).
pub(super) fn measure_mutexes(
    gpu: &Gpu,
    cfg: &PrimitivesConfig,
    table: &mut ShapeTable,
    log: &mut dyn FnMut(&str),
) -> Vec<MutexRun> {
    let counts = contention_points(gpu);
    log("mutex throughput, Mops/s (empty critical section, 128-thread blocks)");
    let mut mutex = Vec::new();
    let mut variants: Vec<(MutexKind, u32)> = MutexKind::ALL.iter().map(|&k| (k, 1)).collect();
    for &kind in MutexKind::ALL.iter().filter(|k| k.uses_clusters()) {
        variants.extend([2u32, 4, 8].map(|c| (kind, c)));
    }
    for (kind, cluster) in variants {
        let mut line = format!("  {:<22}", mutex_label(kind, cluster));
        for &b in &counts {
            // A kind for few blocks (lazy_combining: 3) is measured up to its capacity.
            if kind.capacity().is_some_and(|c| b > c) {
                continue;
            }
            let iters = (cfg.ops as usize / b).max(20) as u32;
            match run_mutex_clustered(gpu, kind, b, 128, cluster, iters, false, cfg.watchdog) {
                Ok(r) => {
                    line += &format!(" {b}:{:.2}", r.mops);
                    if r.mops > 0.0 {
                        let shape = LaunchShape::new(b, 128).with_cluster(cluster);
                        table.record(ShapeClass::Mutex, kind.name(), shape, 1e3 / r.mops);
                    }
                    mutex.push(r);
                }
                Err(e) => line += &format!(" {b}:error({e})"),
            }
        }
        log(&line);
    }
    log("best mutex per contention (cluster 1 / any cluster), Mops/s:");
    let builtin_table = builtin_shape_table(&gpu.info().name);
    for &b in &counts {
        let best = |any: bool| {
            mutex
                .iter()
                .filter(|r| r.blocks == b && (any || r.cluster == 1))
                .max_by(|x, y| x.mops.total_cmp(&y.mops))
                .map(|r| format!("{} {:.2}", mutex_label(r.kind, r.cluster), r.mops))
                .unwrap_or_default()
        };
        let builtin = builtin_table.as_ref().and_then(|t| {
            t.best_where(ShapeClass::Mutex, LaunchShape::new(b, 128), |k| {
                MutexKind::parse(k).is_some_and(MutexKind::is_lock)
            })
            .map(|(k, _)| k.to_string())
        });
        let builtin = builtin
            .and_then(|k| {
                let r = mutex
                    .iter()
                    .find(|r| r.blocks == b && r.cluster == 1 && r.kind.name() == k)?;
                Some(format!("; built-in default {k} {:.2}", r.mops))
            })
            .unwrap_or_default();
        log(&format!(
            "  {b:>5} blocks: {} / {}{builtin}",
            best(false),
            best(true)
        ));
    }
    mutex
}

/// The semaphores at 1 and 4 blocks per SM (the sleeping one also at full occupancy), with
/// 1, 2, 10 and 120 permits.
pub(super) fn measure_semaphores(
    gpu: &Gpu,
    cfg: &PrimitivesConfig,
    log: &mut dyn FnMut(&str),
) -> Vec<SemaphoreRun> {
    let sms = gpu.info().sm_count as usize;
    let full = gpu.info().resident_blocks_bound(128) as usize;
    log("semaphore throughput, Mops/s (wait+post, empty section)");
    let mut semaphore = Vec::new();
    // The spinning semaphores are unfair: beyond a few blocks per SM one block can starve past
    // the watchdog, so they are compared at 1 and 4 blocks per SM; the sleeping one also at full.
    for b in [sms, 4 * sms, full] {
        for &kind in SemaphoreKind::ALL {
            if b == full && b != 4 * sms && kind != SemaphoreKind::Sleeping {
                continue;
            }
            let mut line = format!("  {b:>5} blocks {:<13}", kind.name());
            for initial in [1u32, 2, 10, 120] {
                let iters = (cfg.ops as usize / 4 / b).max(10) as u32;
                match run_semaphore(gpu, kind, initial, b, 128, iters, false, cfg.watchdog) {
                    Ok(r) => {
                        line += &format!(" {initial}:{:.2}", r.mops);
                        semaphore.push(r);
                    }
                    Err(e) => line += &format!(" {initial}:error({e})"),
                }
            }
            log(&line);
        }
    }
    semaphore
}
