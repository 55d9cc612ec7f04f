//! The one error type shared by every backend.

use serde::Serialize;
use std::fmt;

/// Where one work-group was waiting when the watchdog gave up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WaitSite {
    /// Linear id of the waiting work-group (in the launched NDRange).
    pub group: usize,
    /// The primitive (or wait site) it was spinning in, e.g. `"xf_barrier"`.
    pub primitive: String,
}

impl fmt::Display for WaitSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "group {} in {}", self.group, self.primitive)
    }
}

/// Everything that can go wrong in occupant, on any backend.
///
/// Every variant says what went wrong and, where there is one, what to do about it.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A launch shape was rejected before anything ran.
    #[error("invalid launch: {0}")]
    InvalidLaunch(String),

    /// A work-group asked for more local (shared) memory than the backend allows.
    #[error("local memory of {requested} bytes per work-group exceeds the limit of {limit} bytes; use less local memory or raise the executor's limit")]
    LocalMemoryTooLarge {
        /// Bytes asked for.
        requested: usize,
        /// The backend's limit in bytes.
        limit: usize,
    },

    /// The watchdog saw work-groups wait past the deadline: the launch could not make progress
    /// (on the CPU backend: no wait of the launch got through for the whole timeout; on CUDA:
    /// one wait lasted the timeout).
    ///
    /// `waiting` names the groups that were blocked and in which primitive; `not_started`
    /// counts groups that never got a compute unit (the occupancy-bound model at work).
    #[error("deadlock in {primitive}: a wait went {timeout_ms} ms without progress, with {} work-group(s) blocked ({}){}; on a GPU this would hang — {}",
        waiting.len(),
        summarize_sites(waiting, primitive),
        if *not_started > 0 { format!(", {not_started} group(s) never started") } else { String::new() },
        deadlock_advice(primitive))]
    Deadlock {
        /// The primitive whose wait first expired.
        primitive: String,
        /// Groups that were blocked when the launch was aborted, and where. On CUDA the group
        /// whose wait expired carries its primitive; the others that were waiting are named
        /// with `aborted_wait` (the device records that they waited, not where).
        waiting: Vec<WaitSite>,
        /// Groups that had not started when the launch was aborted (CPU backend; CUDA cannot
        /// observe blocks that never started and reports 0).
        not_started: usize,
        /// The watchdog's wait timeout in milliseconds.
        timeout_ms: u64,
    },

    /// Work-items of one group did not all reach the same `barrier()`.
    #[error("barrier divergence in work-group {group}: {detail}; every work-item of a group must reach the same barrier() the same number of times")]
    BarrierDivergence {
        /// Linear id of the work-group.
        group: usize,
        /// What was seen (which work-items, which barriers).
        detail: String,
    },

    /// User kernel code panicked.
    #[error("kernel panicked in work-group {group}, work-item {local}: {message}")]
    KernelPanic {
        /// Linear id of the work-group.
        group: usize,
        /// Linear local id of the work-item.
        local: usize,
        /// The panic message.
        message: String,
    },

    /// Device code failed to compile; `log` is the compiler's (NVRTC's) log with file and line.
    #[error("compilation of `{name}` failed:\n{log}")]
    Compile {
        /// Name of the program that failed.
        name: String,
        /// The compiler's log.
        log: String,
    },

    /// No device of the requested backend is usable here.
    #[error("no CUDA device: {reason}")]
    NoDevice {
        /// Why (missing driver library, no GPU, driver error…).
        reason: String,
    },

    /// A backend (driver) call failed.
    #[error("{backend} error in {call}: {message}")]
    Backend {
        /// `"cuda"`, `"nvrtc"`, `"cpu"`.
        backend: &'static str,
        /// The failing call.
        call: String,
        /// The driver's message.
        message: String,
    },

    /// A resource (memory, stacks, threads) could not be obtained.
    #[error("out of resources: {0}")]
    Resource(String),

    /// Bad user input (a file, an argument), with what and where.
    #[error("invalid input: {0}")]
    Input(String),

    /// The computation is not defined for this input (for example betweenness centrality on a
    /// graph whose shortest-path counts overflow `f64`): nothing failed, there is no result to
    /// give. Benchmarks list such cases as skipped, not as failures.
    #[error("not computable for this input: {0}")]
    Unsupported(String),

    /// An I/O failure, with the path or operation involved.
    #[error("I/O error: {0}")]
    Io(String),
}

/// Up to six wait sites, those in `first` (the primitive whose wait expired) first.
/// What to do about a deadlock in `primitive`: a fork-join team waits only for its own threads
/// (a thread that skips a construct of its region), every other primitive for other groups
/// (groups that are not co-occupant).
fn deadlock_advice(primitive: &str) -> &'static str {
    match primitive {
        "fork-join" | "fork_join" => "every thread of a parallel region must reach each of the region's barriers, worksharing loops, singles and reductions in the same order (docs/FORKJOIN.md); a team waits only for its own threads, so occupancy discovery does not help",
        _ => "use occupancy discovery so that only co-occupant groups synchronise",
    }
}

fn summarize_sites(sites: &[WaitSite], first: &str) -> String {
    const SHOW: usize = 6;
    let ordered = sites
        .iter()
        .filter(|w| w.primitive == first)
        .chain(sites.iter().filter(|w| w.primitive != first));
    let mut s: Vec<String> = ordered.take(SHOW).map(|w| w.to_string()).collect();
    if sites.len() > SHOW {
        s.push(format!("… {} more", sites.len() - SHOW));
    }
    s.join(", ")
}

/// Result alias used throughout occupant.
pub type Result<T, E = Error> = std::result::Result<T, E>;
