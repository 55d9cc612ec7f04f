//! The CUDA primitive implementations, named as on the CPU backend (`occupant::cpu::sync`).

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! kind_enum {
    (
        $(#[$meta:meta])* $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $short:literal, $cxx:literal, $prim:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every kind.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The short name used in reports and on the command line, e.g. `"ticket_backoff"`.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $short,)* }
            }

            /// Parses a name as printed by `name()`.
            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|k| k.name() == s)
            }

            /// The device-library type (or protocol constant) implementing it, as written in
            /// CUDA C++ kernel source.
            pub fn device_type(self) -> &'static str {
                match self { $($name::$variant => $cxx,)* }
            }

            /// The watchdog's primitive id (`occ::Prim`) its waits report.
            pub fn primitive_id(self) -> u32 {
                match self { $($name::$variant => $prim,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

kind_enum! {
    /// Inter-block barriers over the participating blocks.
    BarrierKind {
        /// Xiao–Feng master/slave flags with acquire/release atomics (seed 001 §4.2).
        Xf => "xf", "occ::sync::XfBarrier", 2;
        /// Sense-reversing centralised atomic counter (seed 004 §5).
        Atomic => "atomic", "occ::sync::AtomicBarrier", 3;
        /// Cluster hardware barrier + a one-phase counter among the cluster leaders.
        Hierarchical => "hierarchical", "occ::sync::HierarchicalBarrier", 4;
        /// Combining tree with SM-local leaves (%smid counters), a root counter and one
        /// release line per SM (combining_barrier.cuh).
        Tree => "tree", "occ::sync::TreeBarrier", 16;
        /// One hop: arrivals on up to 32 bucket lines, every block polls every bucket (one
        /// thread per bucket); for few blocks.
        Gather => "gather", "occ::sync::GatherBarrier", 17;
        /// Two hops: arrivals on up to 128 bucket lines gathered by participant 0 (one
        /// thread per bucket), then one release line per bucket (at most 17 pollers a line at
        /// 2112 blocks); for many blocks.
        Spread => "spread", "occ::sync::SpreadBarrier", 18;
        /// One hop over one counter (replica_barrier.cuh): a `red.release` arrival by warp 0
        /// (no returned value), the poll by the last warp with relaxed loads, the clock
        /// checked every 16 polls, one `fence.acquire` (no exit fence).
        Replica => "replica", "occ::sync::ReplicaBarrier", 26;
        /// Leaf counters of 64 consecutive blocks (returned atomic); the last of each leaf
        /// relays one `red.release` to each of up to 32 replicated root lines, which the
        /// blocks poll (replica_barrier.cuh); for many blocks.
        Relay => "relay", "occ::sync::RelayBarrier", 27;
        /// grid.sync()'s structure made cheaper (replica_barrier.cuh): a returned
        /// `atom.acq_rel` arrival on one counter (the last arriver does not poll), relaxed
        /// polls with the clock checked every 16, one `fence.acquire` (no exit fence), and a
        /// 300-cycle pause before the first poll when there are more blocks than SMs.
        Lean => "lean", "occ::sync::LeanBarrier", 28;
        /// Lean whose waiters poll a doorbell line apart from the arrivals
        /// (replica_barrier.cuh): the last arriver stores the epoch there (relaxed), the
        /// others poll it, then read the arrival line once (relaxed) and `fence.acquire`. One
        /// round trip more than Lean; nothing polls the arrival line while blocks arrive, for
        /// phases that end with skewed arrivals.
        LeanBell => "lean_bell", "occ::sync::LeanBellBarrier", 32;
        /// Lean whose pause before the first poll, past one block per SM, is max(300, the
        /// arrivals still missing) cycles (replica_barrier.cuh; the returned arrival says how
        /// many): early arrivers keep their polls off the line while the rest arrive. Lean at
        /// one block per SM or fewer. CPU twin: `occupant::cpu::sync::LeanBarrier`.
        LeanPause => "lean_pause", "occ::sync::LeanPauseBarrier", 33;
        /// Lean without the pause before the first poll, at any number of blocks
        /// (replica_barrier.cuh): for the GPUs and shapes where the pause costs more than the
        /// polls it keeps off the line (an H200 at 2-3 blocks per SM). CPU twin:
        /// `occupant::cpu::sync::LeanBarrier`.
        LeanEager => "lean_eager", "occ::sync::LeanEagerBarrier", 35;
        /// The relay whose poller waits before its first poll from 4 blocks per SM on
        /// (replica_barrier.cuh, `OCC_RELAY_PAUSE_*`): a spin of 2000 cycles up to 12 blocks
        /// per SM, a 1000 ns `__nanosleep` beyond, so that early polls do not queue on the
        /// root lines ahead of the leaves' releases. The relay at fewer blocks per SM. CPU
        /// twin: `occupant::cpu::sync::RelayBarrier` (the wait changes no ordering).
        RelayPause => "relay_pause", "occ::sync::RelayPauseBarrier", 37;
    }
}

kind_enum! {
    /// Mutexes (seed 004 Alg. 2–3).
    MutexKind {
        /// Test-and-set spin lock (atomic exchange), unfair.
        Spin => "spin", "occ::sync::SpinMutex", 6;
        /// Exchange first, then test-and-test-and-set (poll while held) with a `__nanosleep`
        /// back-off after each lost exchange.
        SpinBackoff => "spin_backoff", "occ::sync::SpinBackoffMutex", 7;
        /// Fetch-and-add ticket lock, fair (FIFO).
        Ticket => "ticket", "occ::sync::TicketMutex", 8;
        /// Ticket lock with back-off proportional to the waiter's place in the queue.
        TicketBackoff => "ticket_backoff", "occ::sync::TicketBackoffMutex", 9;
        /// Cohort lock: a ticket lock per thread-block cluster in distributed shared memory
        /// over a global ticket lock, handed within the cluster at most 32 times in a row
        /// (cohort_mutex.cuh). Every thread constructs it; launch with clusters to gain.
        Cohort => "cohort", "occ::sync::CohortMutex", 19;
        /// Cohort lock with an MCS queue in distributed shared memory (each block spins on its
        /// own shared memory; a hand-off in the cluster is one remote store) over a global
        /// ticket lock; releases the global lock when the cohort's queue empties
        /// (mcs_cohort_mutex.cuh). Every thread constructs it; launch with clusters to gain.
        McsCohort => "mcs_cohort", "occ::sync::McsCohortMutex", 24;
        /// The MCS cohort lock that keeps the global lock parked in an idle cohort until
        /// another cohort takes a global ticket, so an uncontended re-acquire is local
        /// (mcs_cohort_mutex.cuh; its destructor releases a parked lock). Every thread
        /// constructs it; a holder's cohort must not wait for a waiter's block between
        /// critical sections.
        LazyCohort => "lazy_cohort", "occ::sync::LazyCohortMutex", 25;
        /// Combining (delegation) lock after CC-Synch (combining_mutex.cuh): each block
        /// publishes its request in a queue node, the block at the head runs up to 64 pending
        /// requests of others per turn and hands back their results. Not a lock/unlock type:
        /// the critical section is the functor `Op` of `occ::sync::CombiningMutex<Op>`
        /// (`apply(arg)` returns its result), so it is never a default for [`super::Mutex`].
        Combining => "combining", "occ::sync::CombiningMutex", 29;
        /// Flat-combining (delegation) lock (flat_combining_mutex.cuh): one request slot per
        /// block and a role word; the block that takes the role runs its own critical section
        /// unpublished, then every request published in the slots, with one fence per turn
        /// (per 8 requests). The other block's request at 2 blocks rides in the combiner's
        /// turn. Functor API as [`MutexKind::Combining`] (`occ::sync::FlatCombiningMutex<Op>`,
        /// argument and result of at most 4 bytes), so never a default for [`super::Mutex`].
        FlatCombining => "flat_combining", "occ::sync::FlatCombiningMutex", 30;
        /// Lazy flat-combining lock for at most 3 contending blocks
        /// (lazy_combining_mutex.cuh): the block that takes the role keeps it between its own
        /// calls (no fence, no role atomic for its own critical sections) and serves the
        /// others' published requests in each call. Parks like [`MutexKind::LazyCohort`]: a
        /// holder must not wait between calls for a block that waits for the lock (or call
        /// `release()` first). Functor API as [`MutexKind::FlatCombining`]
        /// (`occ::sync::LazyCombiningMutex<Op>`), never a default for [`super::Mutex`].
        LazyCombining => "lazy_combining", "occ::sync::LazyCombiningMutex", 34;
    }
}

kind_enum! {
    /// Counting semaphores (seed 004 Alg. 4–5).
    SemaphoreKind {
        /// Spin-lock semaphore: atomic exchange on one word.
        Spin => "spin", "occ::sync::SpinSemaphore", 10;
        /// Spin-lock semaphore with back-off in `wait`.
        SpinBackoff => "spin_backoff", "occ::sync::SpinBackoffSemaphore", 11;
        /// Fetch-and-add "sleeping" semaphore: at most two atomics per operation, fair.
        Sleeping => "sleeping", "occ::sync::SleepingSemaphore", 12;
    }
}

kind_enum! {
    /// How occupancy discovery closes its poll (`occ::DiscoveryMethod`).
    DiscoveryMethod {
        /// Lock-free: an atomic count; the first participant closes when the count reaches the
        /// occupancy hint or stops growing.
        Quiescent => "quiescent", "occ::Quiescent", 5;
        /// Seed 001 Fig. 3 with a ticket lock.
        TicketLock => "ticket_lock", "occ::TicketLock", 5;
        /// Seed 001 Fig. 3 with a spin lock.
        SpinLock => "spin_lock", "occ::SpinLock", 5;
    }
}

impl DiscoveryMethod {
    /// The value of the kernels' `method` argument (`occ::DiscoveryMethod`).
    pub fn device_value(self) -> u32 {
        match self {
            DiscoveryMethod::Quiescent => 0,
            DiscoveryMethod::TicketLock => 1,
            DiscoveryMethod::SpinLock => 2,
        }
    }
}

impl BarrierKind {
    /// u32 words of device state for `groups` participating blocks (or cluster leaders).
    pub fn state_words(self, groups: usize) -> usize {
        match self {
            BarrierKind::Xf => 2 * groups.max(1),
            BarrierKind::Atomic => 64,
            BarrierKind::Hierarchical => 32,
            // OCC_TREE_SMS = 256: root, registration barrier, SM count, then 3 x 256 lines.
            BarrierKind::Tree => 32 * (3 + 3 * 256),
            // OCC_COMBINE_LINES = 128 bucket lines and 128 release lines.
            BarrierKind::Gather | BarrierKind::Spread => 32 * 2 * 128,
            // Up to OCC_REPLICA_LINES = 32 lines (the default uses one).
            BarrierKind::Replica | BarrierKind::Lean => 32 * 32,
            // The arrival line and the doorbell line.
            BarrierKind::LeanBell => 64,
            BarrierKind::LeanPause | BarrierKind::LeanEager => 32,
            // 32 root lines, then OCC_RELAY_LEAVES = 480 leaf lines.
            BarrierKind::Relay | BarrierKind::RelayPause => 32 * (32 + 480),
        }
    }
}

/// Blocks a lazy combining lock serves (`LazyCombiningMutexT::kCapacity`).
pub const LAZY_COMBINING_CAPACITY: usize = 3;

/// u32 words of a lazy combining lock's state: 7 lines (the role word, three request and three
/// result slots; `occ::sync::lazy_combining_state_words()`).
pub const LAZY_COMBINING_STATE_WORDS: usize = 7 * 32;

/// Blocks a flat-combining lock's default state serves (`OCC_FLAT_CAPACITY`).
pub const FLAT_COMBINING_CAPACITY: usize = 4096;

/// u32 words of a flat-combining lock's state for `capacity` blocks: 5 lines (the role word,
/// the served words), then a request and a result word (u64) per block
/// (`occ::sync::flat_combining_state_words`).
pub fn flat_combining_state_words(capacity: usize) -> usize {
    160 + 4 * capacity
}

/// Blocks a combining lock's default state serves (`OCC_COMBINING_CAPACITY`).
pub const COMBINING_CAPACITY: usize = 4096;

/// u32 words of a combining lock's state for `capacity` blocks: the tail line, `capacity + 1`
/// node lines of 32 words, one spare-node word per block (`occ::sync::combining_state_words`).
///
/// The combining lock (`occ::sync::CombiningMutex<Op>`, [`MutexKind::Combining`]) takes the critical section as a functor and returns its result:
///
/// ```no_run
/// use occupant::cuda::{Gpu, LaunchConfig};
/// use occupant::cuda::sync::{combining_state_words, COMBINING_CAPACITY};
/// let gpu = Gpu::open(0)?;
/// let src = r#"#include <occupant.cuh>
/// #include <occupant_sync.cuh>
/// struct Deposit {  // the critical section: runs on whichever block combines
///   typedef unsigned Arg;
///   typedef unsigned long long Result;
///   unsigned long long* balance;
///   __device__ unsigned long long operator()(const unsigned& amount) const {
///     *balance += amount;  // plain accesses: the lock orders them
///     return *balance;
///   }
/// };
/// extern "C" __global__ void k(unsigned* state, unsigned long long* balance,
///                              unsigned long long* seen) {
///   if (threadIdx.x != 0) return;  // one caller per block
///   occ::sync::CombiningMutex<Deposit> m(state, Deposit{balance});
///   unsigned long long after = 0;
///   if (!m.try_apply(1u, &after)) return;  // the launch was aborted (watchdog)
///   seen[blockIdx.x] = after;
/// }"#;
/// let module = gpu.compile("deposit.cu", src, &Default::default())?;
/// let state = gpu.alloc_zeroed::<u32>(combining_state_words(COMBINING_CAPACITY))?;
/// let balance = gpu.alloc_zeroed::<u64>(1)?;
/// let seen = gpu.alloc_zeroed::<u64>(264)?;
/// module.launch("k", &LaunchConfig::plain(264, 128), &occupant::args![&state, &balance, &seen])?;
/// assert_eq!(balance.to_vec()?[0], 264);
/// # Ok::<(), occupant::Error>(())
/// ```
pub fn combining_state_words(capacity: usize) -> usize {
    32 * (capacity + 2) + capacity
}

impl MutexKind {
    /// u32 words of device state.
    pub fn state_words(self) -> usize {
        match self {
            MutexKind::Spin | MutexKind::SpinBackoff => 32,
            MutexKind::Ticket
            | MutexKind::TicketBackoff
            | MutexKind::Cohort
            | MutexKind::McsCohort
            | MutexKind::LazyCohort => 64,
            MutexKind::Combining => combining_state_words(COMBINING_CAPACITY),
            MutexKind::FlatCombining => flat_combining_state_words(FLAT_COMBINING_CAPACITY),
            MutexKind::LazyCombining => LAZY_COMBINING_STATE_WORDS,
        }
    }

    /// Whether the kind is a lock/unlock mutex (`lock()`/`unlock()`, usable with
    /// `occ::block_lock`); false for the combining locks, whose critical section is a functor.
    pub fn is_lock(self) -> bool {
        !matches!(
            self,
            MutexKind::Combining | MutexKind::FlatCombining | MutexKind::LazyCombining
        )
    }

    /// The blocks its default state serves (`None`: any number).
    pub fn capacity(self) -> Option<usize> {
        match self {
            MutexKind::Combining => Some(COMBINING_CAPACITY),
            MutexKind::FlatCombining => Some(FLAT_COMBINING_CAPACITY),
            MutexKind::LazyCombining => Some(LAZY_COMBINING_CAPACITY),
            _ => None,
        }
    }

    /// Whether the kind's cohorts are thread-block clusters (launch it with clusters to gain;
    /// every thread of the block constructs its device object).
    pub fn uses_clusters(self) -> bool {
        matches!(
            self,
            MutexKind::Cohort | MutexKind::McsCohort | MutexKind::LazyCohort
        )
    }
}

impl SemaphoreKind {
    /// u32 words of device state.
    pub fn state_words(self) -> usize {
        match self {
            SemaphoreKind::Spin | SemaphoreKind::SpinBackoff => 32,
            SemaphoreKind::Sleeping => 128,
        }
    }

    /// The initial device state for a semaphore with `initial` permits.
    pub fn initial_state(self, initial: u32) -> Vec<u32> {
        let mut s = vec![0u32; self.state_words()];
        match self {
            SemaphoreKind::Spin | SemaphoreKind::SpinBackoff => s[0] = initial.saturating_add(1),
            SemaphoreKind::Sleeping => s[96] = initial,
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in BarrierKind::ALL {
            assert_eq!(BarrierKind::parse(k.name()), Some(*k));
        }
        for k in MutexKind::ALL {
            assert_eq!(MutexKind::parse(k.name()), Some(*k));
        }
        for k in SemaphoreKind::ALL {
            assert_eq!(SemaphoreKind::parse(k.name()), Some(*k));
        }
        for k in DiscoveryMethod::ALL {
            assert_eq!(DiscoveryMethod::parse(k.name()), Some(*k));
        }
        assert_eq!(MutexKind::parse("nope"), None);
    }

    #[test]
    fn combining_state_matches_the_header() {
        let h = crate::cuda::header("combining_mutex.cuh").unwrap();
        assert!(h.contains("return 32u * (capacity + 2u) + capacity;"));
        assert!(h.contains(&format!(
            "#define OCC_COMBINING_CAPACITY {COMBINING_CAPACITY}"
        )));
        assert_eq!(combining_state_words(1), 97);
        assert!(!MutexKind::Combining.is_lock() && MutexKind::Spin.is_lock());
    }

    #[test]
    fn lazy_combining_state_matches_the_header() {
        let h = crate::cuda::header("lazy_combining_mutex.cuh").unwrap();
        assert!(h.contains("return 7u * 32u;"));
        assert!(h.contains("static constexpr u32 kCapacity = 3u;"));
        assert_eq!(LAZY_COMBINING_STATE_WORDS, 7 * 32);
        assert!(!MutexKind::LazyCombining.is_lock());
        assert_eq!(
            MutexKind::LazyCombining.capacity(),
            Some(LAZY_COMBINING_CAPACITY)
        );
        assert_eq!(
            crate::cuda::primitive_name(MutexKind::LazyCombining.primitive_id()),
            "lazy_combining_mutex"
        );
    }

    #[test]
    fn flat_combining_state_matches_the_header() {
        let h = crate::cuda::header("flat_combining_mutex.cuh").unwrap();
        assert!(h.contains("return 160u + 4u * capacity;"));
        assert!(h.contains(&format!(
            "#define OCC_FLAT_CAPACITY {FLAT_COMBINING_CAPACITY}"
        )));
        assert!(!MutexKind::FlatCombining.is_lock());
        assert_eq!(
            MutexKind::FlatCombining.capacity(),
            Some(FLAT_COMBINING_CAPACITY)
        );
    }

    #[test]
    fn only_the_cohort_mutexes_take_clusters() {
        let clustered: Vec<MutexKind> = MutexKind::ALL
            .iter()
            .copied()
            .filter(|k| k.uses_clusters())
            .collect();
        assert_eq!(
            clustered,
            [
                MutexKind::Cohort,
                MutexKind::McsCohort,
                MutexKind::LazyCohort
            ]
        );
        assert_eq!(MutexKind::LazyCohort.state_words(), 64);
    }

    #[test]
    fn semaphore_state_encodes_initial_value() {
        assert_eq!(SemaphoreKind::Spin.initial_state(3)[0], 4);
        assert_eq!(SemaphoreKind::Sleeping.initial_state(3)[96], 3);
        assert_eq!(SemaphoreKind::Sleeping.initial_state(3)[0], 0);
    }
}
