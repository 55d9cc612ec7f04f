//! The machine abstraction of seed 004 §3–4: twelve memory-system microbenchmarks reduced to
//! three characteristics, stored per device as JSON, and used to choose each primitive's
//! default implementation on that device.
//!
//! The characteristics:
//! - **atomic:volatile** — how much slower an atomic access is than a plain (`ld/st.relaxed`)
//!   one; the geometric mean over {contentious, non-contentious} × {read, write}.
//! - **contentious:non-contentious** — how much slower plain accesses get when every block
//!   hits one word; the geometric mean over {read, write}.
//! - **atomic holds the line** — whether plain accesses right after an atomic on the same
//!   line are slowed as if they were atomics (contentious volatile-after-atomic over volatile
//!   above [`HOLDS_LINE_THRESHOLD`]).
//!
//! ```
//! use occupant::cuda::sync::{Characteristics, Defaults, BarrierKind, MutexKind, SemaphoreKind};
//! let c = Characteristics { atomic_volatile: 3.0, contentious_noncontentious: 4.0,
//!                           atomic_holds_line: false, holds_line_ratio: 1.0 };
//! let d = Defaults::choose(&c, (9, 0));
//! assert_eq!(d.mutex, MutexKind::TicketBackoff);
//! assert_eq!(d.semaphore, SemaphoreKind::Sleeping);
//! assert_eq!(d.barrier, BarrierKind::Hierarchical);
//! ```

use super::kinds::{BarrierKind, MutexKind, SemaphoreKind};
use crate::model::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Atomic slower than plain by more than this: prefer algorithms whose atomics are done up
/// front and whose waiting is plain loads (ticket locks, sleeping semaphores, flag barriers).
pub const ATOMIC_COSTLY: f64 = 1.5;
/// Contended plain accesses slower than uncontended by more than this: back off while waiting.
pub const CONTENTION_COSTLY: f64 = 2.0;
/// Contentious volatile-after-atomic over volatile above this: the atomic unit holds the line.
pub const HOLDS_LINE_THRESHOLD: f64 = 1.5;

/// The six access patterns, each run contentious and non-contentious (twelve benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// `atom.relaxed.gpu.add p, 0`, dependent chain.
    AtomicRead,
    /// `atom.relaxed.gpu.exch`, issued back to back.
    AtomicWrite,
    /// `ld.relaxed.gpu`, dependent chain.
    VolatileRead,
    /// `st.relaxed.gpu`, issued back to back.
    VolatileWrite,
    /// One atomic, then volatile reads.
    VolatileReadAfterAtomic,
    /// One atomic, then volatile writes.
    VolatileWriteAfterAtomic,
}

impl Access {
    /// All six, in the order of the `memory_bench` kernel's `kind` argument.
    pub const ALL: [Access; 6] = [
        Access::AtomicRead,
        Access::AtomicWrite,
        Access::VolatileRead,
        Access::VolatileWrite,
        Access::VolatileReadAfterAtomic,
        Access::VolatileWriteAfterAtomic,
    ];

    /// The kernel's `kind` argument.
    pub fn kernel_kind(self) -> u32 {
        Access::ALL.iter().position(|a| *a == self).unwrap_or(0) as u32
    }

    /// Short name, e.g. `"atomic_read"`.
    pub fn name(self) -> &'static str {
        match self {
            Access::AtomicRead => "atomic_read",
            Access::AtomicWrite => "atomic_write",
            Access::VolatileRead => "volatile_read",
            Access::VolatileWrite => "volatile_write",
            Access::VolatileReadAfterAtomic => "volatile_read_after_atomic",
            Access::VolatileWriteAfterAtomic => "volatile_write_after_atomic",
        }
    }
}

/// One of the twelve microbenchmarks, measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryTiming {
    /// The access pattern.
    pub access: Access,
    /// Every block on one word (true) or each on its own line (false).
    pub contentious: bool,
    /// Wall time of the whole launch's accesses (first start to last end), ns; median of runs.
    pub total_ns: f64,
    /// `total_ns` per access of one block (`total_ns / accesses_per_block`).
    pub ns_per_access: f64,
}

/// The three characteristics of seed 004 §4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Characteristics {
    /// Atomic:volatile time ratio (geometric mean of four).
    pub atomic_volatile: f64,
    /// Contentious:non-contentious volatile time ratio (geometric mean of read and write).
    pub contentious_noncontentious: f64,
    /// Whether an atomic unit holds the line (see [`HOLDS_LINE_THRESHOLD`]).
    pub atomic_holds_line: bool,
    /// The ratio behind `atomic_holds_line`: max over read/write of contentious
    /// volatile-after-atomic time over contentious volatile time.
    pub holds_line_ratio: f64,
}

impl Characteristics {
    /// Reduces the twelve timings. Errors if one is missing or not positive.
    pub fn from_timings(t: &[MemoryTiming]) -> Result<Self> {
        let get = |a: Access, c: bool| -> Result<f64> {
            t.iter()
                .find(|m| m.access == a && m.contentious == c)
                .map(|m| m.total_ns)
                .filter(|v| *v > 0.0 && v.is_finite())
                .ok_or_else(|| {
                    Error::Input(format!(
                        "memory timings lack a positive {} ({}contentious) entry",
                        a.name(),
                        if c { "" } else { "non-" }
                    ))
                })
        };
        let gm = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
        let mut av = Vec::new();
        for c in [true, false] {
            av.push(get(Access::AtomicRead, c)? / get(Access::VolatileRead, c)?);
            av.push(get(Access::AtomicWrite, c)? / get(Access::VolatileWrite, c)?);
        }
        let cn = [
            get(Access::VolatileRead, true)? / get(Access::VolatileRead, false)?,
            get(Access::VolatileWrite, true)? / get(Access::VolatileWrite, false)?,
        ];
        let hold = f64::max(
            get(Access::VolatileReadAfterAtomic, true)? / get(Access::VolatileRead, true)?,
            get(Access::VolatileWriteAfterAtomic, true)? / get(Access::VolatileWrite, true)?,
        );
        Ok(Characteristics {
            atomic_volatile: gm(&av),
            contentious_noncontentious: gm(&cn),
            atomic_holds_line: hold > HOLDS_LINE_THRESHOLD,
            holds_line_ratio: hold,
        })
    }
}

/// The default implementation of each primitive on one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Defaults {
    /// Default barrier.
    pub barrier: BarrierKind,
    /// Default mutex.
    pub mutex: MutexKind,
    /// Default semaphore.
    pub semaphore: SemaphoreKind,
}

impl Defaults {
    /// Applies seed 004's guidance (§4–5) to the characteristics:
    /// - mutex: when atomics are costly, take the one atomic up front and wait on plain loads
    ///   (ticket lock), with backoff when atomics hold the line or contention is costly;
    ///   otherwise spin on the atomic, backing off when contention is costly.
    /// - semaphore: the sleeping (fetch-and-add) semaphore, unless atomics hold the line and
    ///   are cheap, where the spinning one needs fewer accesses.
    /// - barrier: flag-based one-phase barriers avoid contended atomics; with thread-block
    ///   clusters (compute capability 9.0+) the hierarchical one, else XF; the atomic counter
    ///   only where atomics are cheap and contention is not costly.
    pub fn choose(c: &Characteristics, compute_capability: (i32, i32)) -> Self {
        let costly_atomics = c.atomic_volatile > ATOMIC_COSTLY;
        let contention = c.contentious_noncontentious > CONTENTION_COSTLY;
        // Costly atomics that also hold the line (Hopper: 10x and yes) are the worst case for
        // a test-and-set loop — every spinning block's exchange queues on the held line — so
        // such devices take the ticket lock with backoff (measured on an H200 at 2112 blocks:
        // spin 0.55, ticket + backoff 1.29 Mops/s; bench/results/nvidia-h200).
        let mutex = match (costly_atomics, c.atomic_holds_line || contention) {
            (true, true) => MutexKind::TicketBackoff,
            (true, false) => MutexKind::Ticket,
            (false, true) if contention => MutexKind::SpinBackoff,
            (false, _) => MutexKind::Spin,
        };
        let semaphore = if c.atomic_holds_line && !costly_atomics {
            if contention {
                SemaphoreKind::SpinBackoff
            } else {
                SemaphoreKind::Spin
            }
        } else {
            SemaphoreKind::Sleeping
        };
        let barrier = if costly_atomics || contention {
            if compute_capability.0 >= 9 {
                BarrierKind::Hierarchical
            } else {
                BarrierKind::Xf
            }
        } else {
            BarrierKind::Atomic
        };
        Defaults {
            barrier,
            mutex,
            semaphore,
        }
    }
}

/// Everything measured about one device's memory system, as stored in its JSON file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineAbstraction {
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub device: String,
    /// Compute capability.
    pub compute_capability: (i32, i32),
    /// SMs.
    pub sm_count: u32,
    /// Blocks launched per benchmark (one master thread each).
    pub blocks: u32,
    /// Accesses per block.
    pub accesses_per_block: u32,
    /// The twelve timings.
    pub timings: Vec<MemoryTiming>,
    /// The three characteristics.
    pub characteristics: Characteristics,
    /// The defaults chosen from them.
    pub defaults: Defaults,
    /// Measured costs per launch shape (`occupant bench primitives --backend cuda` fills it);
    /// the shape-aware defaults ([`MachineAbstraction::barrier_for`],
    /// [`MachineAbstraction::mutex_for`]) choose from it. Empty: the built-in table of the
    /// device's kind, if any (`src/cuda/sync/shapes/`), else `defaults`.
    #[serde(default)]
    pub shapes: crate::model::ShapeTable,
}

impl MachineAbstraction {
    /// Builds the abstraction from measured timings.
    pub fn from_timings(
        device: &str,
        compute_capability: (i32, i32),
        sm_count: u32,
        blocks: u32,
        accesses_per_block: u32,
        timings: Vec<MemoryTiming>,
    ) -> Result<Self> {
        let characteristics = Characteristics::from_timings(&timings)?;
        Ok(MachineAbstraction {
            device: device.to_string(),
            compute_capability,
            sm_count,
            blocks,
            accesses_per_block,
            defaults: Defaults::choose(&characteristics, compute_capability),
            shapes: crate::model::ShapeTable::new(device),
            timings,
            characteristics,
        })
    }

    /// Where the abstraction of `device` is stored: `$OCCUPANT_MACHINE_DIR`, else
    /// `$XDG_CACHE_HOME/occupant/machine`, else `$HOME/.cache/occupant/machine`, then
    /// `<slug of the device name>.json`. None when no directory can be determined.
    pub fn store_path(device: &str) -> Option<PathBuf> {
        let dir = if let Some(d) = std::env::var_os("OCCUPANT_MACHINE_DIR") {
            PathBuf::from(d)
        } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            PathBuf::from(d).join("occupant/machine")
        } else {
            PathBuf::from(std::env::var_os("HOME")?).join(".cache/occupant/machine")
        };
        Some(dir.join(format!("{}.json", slug(device))))
    }

    /// Reads a stored abstraction.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Io(format!("reading {}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::Input(format!(
                "{} is not a machine abstraction: {e}",
                path.display()
            ))
        })
    }

    /// Writes it as pretty JSON, creating the directory.
    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Io(format!("creating {}: {e}", dir.display())))?;
        }
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Io(format!("serialising the machine abstraction: {e}")))?;
        std::fs::write(path, text)
            .map_err(|e| Error::Io(format!("writing {}: {e}", path.display())))
    }
}

/// A file-name-safe lower-case form of a device name: `NVIDIA H100 80GB HBM3` →
/// `nvidia-h100-80gb-hbm3`.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-').to_string()
}

/// The results folder name of a GPU (`bench/results/<this>/`): the first two words of its
/// name, e.g. `NVIDIA H100 80GB HBM3` → `nvidia-h100`.
pub fn results_dir_name(name: &str) -> String {
    let two: Vec<&str> = name.split_whitespace().take(2).collect();
    slug(&two.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timings(atomic: f64, cont: f64, after: f64) -> Vec<MemoryTiming> {
        let mut v = Vec::new();
        for c in [true, false] {
            let base = if c { 100.0 * cont } else { 100.0 };
            for a in Access::ALL {
                let t = match a {
                    Access::AtomicRead | Access::AtomicWrite => base * atomic,
                    Access::VolatileReadAfterAtomic | Access::VolatileWriteAfterAtomic => {
                        base * after
                    }
                    _ => base,
                };
                v.push(MemoryTiming {
                    access: a,
                    contentious: c,
                    total_ns: t,
                    ns_per_access: t / 10.0,
                });
            }
        }
        v
    }

    #[test]
    fn characteristics_are_the_ratios() {
        let c = Characteristics::from_timings(&timings(4.0, 3.0, 1.0)).unwrap();
        assert!((c.atomic_volatile - 4.0).abs() < 1e-9);
        assert!((c.contentious_noncontentious - 3.0).abs() < 1e-9);
        assert!(!c.atomic_holds_line);
        let c = Characteristics::from_timings(&timings(1.2, 1.0, 2.0)).unwrap();
        assert!(c.atomic_holds_line);
    }

    #[test]
    fn missing_timing_is_an_error() {
        let mut t = timings(2.0, 2.0, 1.0);
        t.remove(0); // contentious atomic read
        assert!(Characteristics::from_timings(&t).is_err());
    }

    #[test]
    fn defaults_follow_the_seed() {
        // Tesla-like: very costly atomics, no line holding.
        let tesla = Characteristics::from_timings(&timings(10.0, 1.3, 1.0)).unwrap();
        let d = Defaults::choose(&tesla, (1, 3));
        assert_eq!(d.mutex, MutexKind::Ticket);
        assert_eq!(d.semaphore, SemaphoreKind::Sleeping);
        assert_eq!(d.barrier, BarrierKind::Xf);
        // Fermi-like: cheap atomics that hold the line, costly contention.
        let fermi = Characteristics::from_timings(&timings(1.2, 5.0, 2.5)).unwrap();
        let d = Defaults::choose(&fermi, (2, 0));
        assert_eq!(d.mutex, MutexKind::SpinBackoff);
        assert_eq!(d.semaphore, SemaphoreKind::SpinBackoff);
        assert_eq!(d.barrier, BarrierKind::Xf);
        // Hopper-like (H200 measured 10.0, 1.15, 2.21): costly atomics that hold the line.
        let hopper = Characteristics::from_timings(&timings(10.0, 1.15, 2.21)).unwrap();
        let d = Defaults::choose(&hopper, (9, 0));
        assert_eq!(d.mutex, MutexKind::TicketBackoff);
        assert_eq!(d.semaphore, SemaphoreKind::Sleeping);
        assert_eq!(d.barrier, BarrierKind::Hierarchical);
        // Cheap everything: the simple designs.
        let cheap = Characteristics::from_timings(&timings(1.0, 1.0, 1.0)).unwrap();
        let d = Defaults::choose(&cheap, (9, 0));
        assert_eq!(d.barrier, BarrierKind::Atomic);
        assert_eq!(d.mutex, MutexKind::Spin);
    }

    #[test]
    fn json_round_trip_and_names() {
        let m = MachineAbstraction::from_timings(
            "NVIDIA H100 80GB HBM3",
            (9, 0),
            132,
            1056,
            1000,
            timings(2.0, 3.0, 1.0),
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("occupant-machine-{}", std::process::id()));
        let p = dir.join("m.json");
        m.save(&p).unwrap();
        assert_eq!(MachineAbstraction::load(&p).unwrap(), m);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
        assert_eq!(results_dir_name("NVIDIA H200"), "nvidia-h200");
        assert_eq!(results_dir_name("NVIDIA H100 80GB HBM3"), "nvidia-h100");
    }
}
