//! The two CPU variants of every application: one launch per step, or one persistent launch
//! with a barrier between steps. Both run the same [`Steps`] with the same workers.

use super::steps::{chunk_counters, clear_next_chunks, Steps, Worker};
use occupant::cpu::{Executor, Launch};
use occupant::{Error, NDRange, Result};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What a run of the steps did.
pub(crate) struct StepsRun {
    pub steps: u32,
    pub elapsed: Duration,
    pub participants: Option<u32>,
}

fn cap_error(name: &str, cap: u32) -> Error {
    Error::Input(format!(
        "{name} did not converge within {cap} steps (it always should: this is a bug)"
    ))
}

/// Multi-launch: the host launches `groups × local_size` workers per step and reads the
/// decision ([`Steps::more`]) between launches.
pub(crate) fn multi_launch<K: Steps>(
    exec: &Executor,
    name: &str,
    k: &K,
    groups: usize,
    local_size: usize,
) -> Result<StepsRun> {
    let range = NDRange::groups(groups, local_size)?;
    let nt = range.global_count();
    let cap = k.max_steps();
    let chunks = chunk_counters();
    let t0 = Instant::now();
    let mut s = 0;
    loop {
        if s == cap {
            if k.cap_is_error() {
                return Err(cap_error(name, cap));
            }
            break;
        }
        clear_next_chunks(&chunks, s);
        k.begin(s);
        exec.launch(range, |_| k.step(s, &Worker::new(nt, s, &chunks)))?;
        s += 1;
        if !k.more(s - 1) {
            break;
        }
    }
    Ok(StepsRun {
        steps: s,
        elapsed: t0.elapsed(),
        participants: None,
    })
}

/// Persistent: one launch of `groups × local_size` in discovery mode; the participants run
/// every step with the default barrier between steps.
pub(crate) fn persistent<K: Steps>(
    exec: &Executor,
    name: &str,
    k: &K,
    groups: usize,
    local_size: usize,
) -> Result<StepsRun> {
    let launch = Launch::new(NDRange::groups(groups, local_size)?);
    let cap = k.max_steps();
    let steps = AtomicU32::new(0);
    let capped = AtomicBool::new(false);
    let chunks = chunk_counters();
    let t0 = Instant::now();
    let report = exec.launch_persistent(launch, |p| {
        let (t, nt) = (p.p_global_id(), p.p_global_size());
        let mut s = 0;
        loop {
            if s == cap {
                capped.store(true, Ordering::Relaxed);
                break;
            }
            if t == 0 {
                clear_next_chunks(&chunks, s);
                k.begin(s);
            }
            k.step(s, &Worker::new(nt, s, &chunks));
            p.barrier();
            s += 1;
            if !k.more(s - 1) {
                break;
            }
        }
        if t == 0 {
            steps.store(s, Ordering::Relaxed);
        }
    })?;
    let elapsed = t0.elapsed();
    if capped.load(Ordering::Relaxed) && k.cap_is_error() {
        return Err(cap_error(name, cap));
    }
    Ok(StepsRun {
        steps: steps.load(Ordering::Relaxed),
        elapsed,
        participants: Some(report.participants),
    })
}
