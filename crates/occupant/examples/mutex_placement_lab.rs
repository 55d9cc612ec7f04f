//! Lab: does a lock's throughput depend on where its state lands in L2, as a barrier's does
//! (4-14 % between places, up to 29 % for one block on an H200)? Runs each mutex kind at
//! candidate places 0..16 of a larger allocation (`run::run_mutex_placed`), interleaved, in a
//! few contention levels, and prints Mops/s per place with the spread.
//! `cargo run --release -p occupant --example mutex_placement_lab -- [BLOCKS ...]`
use occupant::cuda::sync::run::{run_mutex_at, run_mutex_placed};
use occupant::cuda::sync::{Mutex, MutexKind};
use occupant::cuda::Gpu;
use occupant::model::{LaunchShape, Watchdog};
use std::time::Duration;

fn main() -> occupant::Result<()> {
    let gpu = Gpu::open(0)?;
    let mut blocks: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if blocks.is_empty() {
        blocks = vec![1, 2, 33, 132];
    }
    let wd = Watchdog::default().with_timeout(Duration::from_secs(10));
    let kinds = [
        MutexKind::Spin,
        MutexKind::SpinBackoff,
        MutexKind::Ticket,
        MutexKind::TicketBackoff,
        MutexKind::FlatCombining,
        MutexKind::LazyCombining,
    ];
    for &b in &blocks {
        for kind in kinds
            .into_iter()
            .filter(|k| k.capacity().map_or(true, |c| b <= c))
        {
            let iters = (200_000 / b as u32).max(50);
            let mut mops = vec![0.0f64; 16];
            for _sweep in 0..2 {
                for (p, m) in mops.iter_mut().enumerate() {
                    let r = run_mutex_placed(&gpu, kind, (b, 128, 1), iters, true, wd, p)?;
                    assert_eq!(r.counter, b as u64 * u64::from(iters), "lost updates");
                    *m = m.max(r.mops);
                }
            }
            let mut s = mops.clone();
            s.sort_by(f64::total_cmp);
            // Mutex::placed's probe (its own allocation, a fixed counter), then its choice
            // re-timed in two separate launches of the full count.
            let mut m = Mutex::placed(&gpu, kind, LaunchShape::new(b, 128))?;
            let mut retimed = 0.0f64;
            for _ in 0..2 {
                m.reset()?;
                let at = (m.state(), m.offset_words());
                let r = run_mutex_at(&gpu, kind, b, 128, iters, true, at, wd)?;
                retimed = retimed.max(r.mops);
            }
            if let Some(p) = m.places() {
                println!(
                    "{b:>5} blocks {:<16} Mutex::placed: median place {:.3} Mops/s, chosen {:.3} (place {}, {:.0} ms), re-timed {retimed:.3}",
                    kind.name(),
                    1e3 / p.median_ns(),
                    1e3 / p.chosen_ns(),
                    p.chosen,
                    p.probe_ms
                );
            }
            println!(
                "{b:>5} blocks {:<16} Mops/s by place: min {:.3} median {:.3} max {:.3} (max/min {:.3}); place 0 {:.3}; all {:?}",
                kind.name(),
                s[0],
                s[8],
                s[15],
                s[15] / s[0],
                mops[0],
                mops.iter().map(|v| (v * 1000.0).round() / 1000.0).collect::<Vec<_>>()
            );
        }
    }
    Ok(())
}
