//! What every loom model shares: the wait policy that yields to the model checker, and the
//! model builder with a preemption bound. Included by each `loom_*.rs` with `mod loom_common;`.

use loom::thread;
use occupant::cpu::Wait;

/// Failed polls of one wait after which the model stops branching (see [`LoomWait`]).
pub const POLLS_EXPLORED: usize = 2;

/// The wait policy of the models: yield to the model checker between polls.
///
/// Loom cannot tell a spinning thread from one making progress: with two or more waiters (or
/// a spinning read-modify-write) it would explore schedules in which the waiters poll forever
/// and the thread they wait for never runs, and give up ("exceeded maximum number of
/// branches"). So after `POLLS_EXPLORED` failed polls of one wait, the execution stops
/// branching (`loom::skip_branch`) and is finished by loom's default, fair schedule (which runs
/// the thread with the fewest yields); every interleaving up to that point is explored, and the
/// final assertions still run on the finished execution.
pub struct LoomWait;

impl Wait for LoomWait {
    fn spin_until<F: FnMut() -> bool>(&self, _primitive: &'static str, mut cond: F) {
        let mut failed = 0;
        while !cond() {
            failed += 1;
            if failed == POLLS_EXPLORED {
                loom::skip_branch();
            }
            thread::yield_now();
        }
    }
}

/// A model builder exploring schedules with at most `preemption_bound` preemptions.
pub fn builder(preemption_bound: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemption_bound);
    b
}
