//! `occupant bench memory --backend cuda`: the twelve memory-system microbenchmarks of seed
//! 004, reduced to the machine abstraction (three characteristics and the per-device default
//! primitives), printed, written to `<out>/memory.json` and stored for the library.

use crate::cuda_bench_common::{open_cuda, out_dir, write_json};
use crate::output_path::check_out_dir;
use occupant::cuda::sync::MachineAbstraction;
use std::path::PathBuf;

/// Arguments.
#[derive(clap::Args)]
pub struct MemoryBenchArgs {
    /// Backend (only `cuda`).
    #[arg(long, default_value = "cuda")]
    backend: String,
    /// Results folder (default bench/results/<gpu>/).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs it.
pub fn run(args: &MemoryBenchArgs) -> Result<(), String> {
    check_out_dir(&args.out)?;
    let gpu = open_cuda(&args.backend)?;
    let m = MachineAbstraction::measure(&gpu).map_err(|e| e.to_string())?;
    println!(
        "{} — {} blocks × {} accesses (one thread per block)",
        m.device, m.blocks, m.accesses_per_block
    );
    println!(
        "{:<30} {:>16} {:>16}",
        "access", "contentious ns", "non-cont. ns"
    );
    for a in occupant::cuda::sync::Access::ALL {
        let get = |c: bool| {
            m.timings
                .iter()
                .find(|t| t.access == a && t.contentious == c)
                .map(|t| t.ns_per_access)
                .unwrap_or(f64::NAN)
        };
        println!("{:<30} {:>16.1} {:>16.1}", a.name(), get(true), get(false));
    }
    let c = &m.characteristics;
    println!("atomic:volatile ratio           {:.2}", c.atomic_volatile);
    println!(
        "contentious:non-contentious     {:.2}",
        c.contentious_noncontentious
    );
    println!(
        "atomic holds the line           {} (volatile-after-atomic / volatile = {:.2})",
        c.atomic_holds_line, c.holds_line_ratio
    );
    println!(
        "defaults: barrier {}, mutex {}, semaphore {}",
        m.defaults.barrier, m.defaults.mutex, m.defaults.semaphore
    );
    let dir = out_dir(&gpu, &args.out)?;
    let p = write_json(&dir, "memory.json", &m)?;
    println!("wrote {}", p.display());
    if let Some(store) = MachineAbstraction::store_path(&m.device) {
        m.save(&store).map_err(|e| e.to_string())?;
        println!("stored for the library at {}", store.display());
    }
    Ok(())
}
