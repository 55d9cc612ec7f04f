//! The host half of the device watchdog (`device/watchdog.cuh`): the `occ_ctl` record, the
//! primitive-id table, and turning a timed-out launch into [`Error::Deadlock`].

use crate::model::{Error, WaitSite, Watchdog};

/// Host mirror of `occ::Control` (48 bytes, same layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Control {
    /// 1 once a wait gave up; every waiting group then leaves.
    pub abort: u32,
    /// 0 ok, 1 timed out.
    pub status: u32,
    /// Linear block id of the first wait that timed out.
    pub group: u32,
    /// Its primitive id (see [`primitive_name`]).
    pub primitive: u32,
    /// Deadline of one wait in ns (0: none).
    pub timeout_ns: u64,
    /// `%globaltimer` when the launch's first wait began (0: nothing waited).
    pub start_ns: u64,
    /// Back-off rounds of all waits of the launch.
    pub spins: u64,
}

/// Size of [`Control`] in bytes, as the device declares it.
pub const CONTROL_BYTES: usize = std::mem::size_of::<Control>();

impl Control {
    /// The record the host writes before a launch.
    pub fn armed(w: &Watchdog) -> Self {
        Self {
            timeout_ns: u64::try_from(w.timeout.as_nanos()).unwrap_or(u64::MAX),
            ..Self::default()
        }
    }

    /// The record as bytes (native endianness, as the device reads it).
    pub fn to_bytes(self) -> [u8; CONTROL_BYTES] {
        let mut b = [0u8; CONTROL_BYTES];
        b[0..4].copy_from_slice(&self.abort.to_ne_bytes());
        b[4..8].copy_from_slice(&self.status.to_ne_bytes());
        b[8..12].copy_from_slice(&self.group.to_ne_bytes());
        b[12..16].copy_from_slice(&self.primitive.to_ne_bytes());
        b[16..24].copy_from_slice(&self.timeout_ns.to_ne_bytes());
        b[24..32].copy_from_slice(&self.start_ns.to_ne_bytes());
        b[32..40].copy_from_slice(&self.spins.to_ne_bytes());
        b
    }

    /// The record from bytes read back from the device.
    pub fn from_bytes(b: &[u8; CONTROL_BYTES]) -> Self {
        let u32_at = |i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u64_at = |i: usize| {
            let mut x = [0u8; 8];
            x.copy_from_slice(&b[i..i + 8]);
            u64::from_ne_bytes(x)
        };
        Self {
            abort: u32_at(0),
            status: u32_at(4),
            group: u32_at(8),
            primitive: u32_at(12),
            timeout_ns: u64_at(16),
            start_ns: u64_at(24),
            spins: u64_at(32),
        }
    }

    /// `Err(Error::Deadlock)` when a wait timed out (or the launch was aborted), else `Ok`.
    pub fn check(&self) -> crate::Result<()> {
        if self.status == 0 && self.abort == 0 {
            return Ok(());
        }
        let primitive = if self.status == 1 {
            primitive_name(self.primitive)
        } else {
            "host_abort"
        };
        Err(Error::Deadlock {
            primitive: primitive.to_string(),
            waiting: vec![WaitSite {
                group: self.group as usize,
                primitive: primitive.to_string(),
            }],
            not_started: 0,
            timeout_ms: self.timeout_ns / 1_000_000,
        })
    }
}

/// The primitive ids of `occ::Prim` (device/watchdog.cuh), in order.
pub const PRIMITIVES: [&str; 38] = [
    "user",
    "naive_barrier",
    "xf_barrier",
    "atomic_barrier",
    "hierarchical_barrier",
    "discovery",
    "spin_mutex",
    "spin_backoff_mutex",
    "ticket_mutex",
    "ticket_backoff_mutex",
    "spin_semaphore",
    "spin_backoff_semaphore",
    "sleeping_semaphore",
    "message_passing",
    "grid_sync",
    "fork_join",
    "tree_barrier",
    "gather_barrier",
    "spread_barrier",
    "cohort_mutex",
    "resizing_barrier",
    "coop_scheduler",
    "persistent",
    "worklist",
    "mcs_cohort_mutex",
    "lazy_cohort_mutex",
    "replica_barrier",
    "relay_barrier",
    "lean_barrier",
    "combining_mutex",
    "flat_combining_mutex",
    "lean_lines_barrier",
    "lean_bell_barrier",
    "lean_pause_barrier",
    "lazy_combining_mutex",
    "lean_eager_barrier",
    "relay_relaxed_barrier",
    "relay_pause_barrier",
];

/// The name of device primitive id `id` (`occ::Prim`), `"unknown"` for an id not in the table.
///
/// ```
/// assert_eq!(occupant::cuda::primitive_name(2), "xf_barrier");
/// assert_eq!(occupant::cuda::primitive_name(99), "unknown");
/// ```
pub fn primitive_name(id: u32) -> &'static str {
    PRIMITIVES.get(id as usize).copied().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn table_matches_the_header() {
        let h = super::super::headers::header("watchdog.cuh").unwrap();
        for (id, name) in PRIMITIVES.iter().enumerate() {
            let camel: String = name
                .split('_')
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            assert!(
                h.contains(&format!("{camel} = {id},")),
                "watchdog.cuh lacks {camel} = {id}"
            );
        }
    }

    #[test]
    fn bytes_round_trip_and_deadlock_maps() {
        let mut c = Control::armed(&Watchdog::default().with_timeout(Duration::from_millis(250)));
        assert_eq!(c.timeout_ns, 250_000_000);
        assert!(c.check().is_ok());
        c.status = 1;
        c.abort = 1;
        c.group = 7;
        c.primitive = 1;
        assert_eq!(Control::from_bytes(&c.to_bytes()), c);
        match c.check() {
            Err(Error::Deadlock {
                primitive,
                waiting,
                timeout_ms,
                ..
            }) => {
                assert_eq!(primitive, "naive_barrier");
                assert_eq!(waiting[0].group, 7);
                assert_eq!(timeout_ms, 250);
            }
            other => panic!("{other:?}"),
        }
    }
}
