//! Memory a kernel can use: global buffers (shared by all groups) and local memory (one per group).

use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// A type that can live in a [`GlobalBuffer`]: it has an atomic twin in `std::sync::atomic`.
pub trait AtomicElement: Copy + Send + Sync + 'static {
    /// The atomic type holding one element.
    type Atomic: Send + Sync;
    #[doc(hidden)]
    fn new_atomic(v: Self) -> Self::Atomic;
    #[doc(hidden)]
    fn load(a: &Self::Atomic, o: Ordering) -> Self;
    #[doc(hidden)]
    fn store(a: &Self::Atomic, v: Self, o: Ordering);
    #[doc(hidden)]
    fn fetch_add(a: &Self::Atomic, v: Self, o: Ordering) -> Self;
    #[doc(hidden)]
    fn swap(a: &Self::Atomic, v: Self, o: Ordering) -> Self;
    #[doc(hidden)]
    fn compare_exchange(
        a: &Self::Atomic,
        cur: Self,
        new: Self,
        s: Ordering,
        f: Ordering,
    ) -> Result<Self, Self>;
}

macro_rules! atomic_element {
    ($($t:ty => $a:ty),*) => {$(
        impl AtomicElement for $t {
            type Atomic = $a;
            #[inline(always)]
            fn new_atomic(v: Self) -> $a { <$a>::new(v) }
            #[inline(always)]
            fn load(a: &$a, o: Ordering) -> Self { a.load(o) }
            #[inline(always)]
            fn store(a: &$a, v: Self, o: Ordering) { a.store(v, o) }
            #[inline(always)]
            fn fetch_add(a: &$a, v: Self, o: Ordering) -> Self { a.fetch_add(v, o) }
            #[inline(always)]
            fn swap(a: &$a, v: Self, o: Ordering) -> Self { a.swap(v, o) }
            #[inline(always)]
            fn compare_exchange(a: &$a, c: Self, n: Self, s: Ordering, f: Ordering) -> Result<Self, Self> {
                a.compare_exchange(c, n, s, f)
            }
        }
    )*};
}
atomic_element!(u32 => AtomicU32, u64 => AtomicU64, i32 => AtomicI32, i64 => AtomicI64, usize => AtomicUsize);

/// Global memory: a buffer every work-item of a launch can read and write, from any group.
///
/// Elements are atomics, which is how safe Rust shares mutable data between threads without
/// data races. "Plain" access ([`get`](Self::get)/[`set`](Self::set)) is a `Relaxed` load or
/// store — on x86-64 and AArch64 the same instruction as a non-atomic access — so a kernel pays
/// nothing for the safety, and a read-modify-write built from `get` + `set` can lose updates
/// exactly like non-atomic GPU code (which is how lock tests detect broken mutual exclusion).
/// Ordered and read-modify-write access take an explicit [`Ordering`].
///
/// ```
/// use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
/// use occupant::NDRange;
/// use std::sync::atomic::Ordering;
/// let out = GlobalBuffer::<u32>::new(64);
/// let sum = GlobalBuffer::<u64>::new(1);
/// Executor::new(ExecModel::Fair)
///     .launch(NDRange::d1(64, 16).unwrap(), |item| {
///         out.set(item.global_linear_id(), item.group_linear_id() as u32);
///         sum.fetch_add(0, 1, Ordering::Relaxed);
///     })
///     .unwrap();
/// assert_eq!(out.get(17), 1);
/// assert_eq!(sum.get(0), 64);
/// ```
pub struct GlobalBuffer<T: AtomicElement> {
    data: Box<[T::Atomic]>,
}

impl<T: AtomicElement + Default> GlobalBuffer<T> {
    /// A buffer of `len` default (zero) elements.
    pub fn new(len: usize) -> Self {
        Self::filled(len, T::default())
    }
}

impl<T: AtomicElement> GlobalBuffer<T> {
    /// A buffer of `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> Self {
        Self {
            data: (0..len).map(|_| T::new_atomic(value)).collect(),
        }
    }

    /// A buffer holding a copy of `values`.
    pub fn from_slice(values: &[T]) -> Self {
        Self {
            data: values.iter().map(|&v| T::new_atomic(v)).collect(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Plain read (a `Relaxed` load).
    #[inline]
    pub fn get(&self, i: usize) -> T {
        T::load(&self.data[i], Ordering::Relaxed)
    }

    /// Plain write (a `Relaxed` store).
    #[inline]
    pub fn set(&self, i: usize, v: T) {
        T::store(&self.data[i], v, Ordering::Relaxed)
    }

    /// Load with an explicit ordering.
    #[inline]
    pub fn load(&self, i: usize, o: Ordering) -> T {
        T::load(&self.data[i], o)
    }

    /// Store with an explicit ordering.
    #[inline]
    pub fn store(&self, i: usize, v: T, o: Ordering) {
        T::store(&self.data[i], v, o)
    }

    /// Atomic add; returns the previous value.
    #[inline]
    pub fn fetch_add(&self, i: usize, v: T, o: Ordering) -> T {
        T::fetch_add(&self.data[i], v, o)
    }

    /// Atomic exchange; returns the previous value.
    #[inline]
    pub fn swap(&self, i: usize, v: T, o: Ordering) -> T {
        T::swap(&self.data[i], v, o)
    }

    /// Atomic compare-and-exchange, as `std::sync::atomic`.
    #[inline]
    pub fn compare_exchange(
        &self,
        i: usize,
        current: T,
        new: T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<T, T> {
        T::compare_exchange(&self.data[i], current, new, success, failure)
    }

    /// The atomic holding element `i`, for operations not wrapped here.
    #[inline]
    pub fn atomic(&self, i: usize) -> &T::Atomic {
        &self.data[i]
    }

    /// A copy of the contents (plain reads).
    pub fn to_vec(&self) -> Vec<T> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}

/// Memory shared by the work-items of one group, created per group by the launch's `init`.
///
/// A group's work-items all run on one thread (one after another, switching at barriers), so
/// local memory needs no atomics: it is made of [`Cell`]s, which safe Rust allows to share
/// within one thread. [`local_bytes`](Self::local_bytes) is checked against the executor's
/// local-memory limit before a launch starts.
pub trait LocalMemory {
    /// Bytes this local memory occupies.
    fn local_bytes(&self) -> usize;
}

impl LocalMemory for () {
    fn local_bytes(&self) -> usize {
        0
    }
}

impl<A: LocalMemory, B: LocalMemory> LocalMemory for (A, B) {
    fn local_bytes(&self) -> usize {
        self.0.local_bytes() + self.1.local_bytes()
    }
}

/// A typed array in local memory.
///
/// ```
/// use occupant::cpu::LocalArray;
/// let a = LocalArray::<u32>::new(4);
/// a.set(2, 7);
/// assert_eq!(a.get(2), 7);
/// assert_eq!(a.len(), 4);
/// ```
pub struct LocalArray<T: Copy> {
    data: Box<[Cell<T>]>,
}

impl<T: Copy + Default> LocalArray<T> {
    /// `len` default (zero) elements.
    pub fn new(len: usize) -> Self {
        Self {
            data: (0..len).map(|_| Cell::new(T::default())).collect(),
        }
    }
}

impl<T: Copy> LocalArray<T> {
    /// Reads element `i`.
    #[inline]
    pub fn get(&self, i: usize) -> T {
        self.data[i].get()
    }

    /// Writes element `i`.
    #[inline]
    pub fn set(&self, i: usize, v: T) {
        self.data[i].set(v)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements as cells.
    pub fn cells(&self) -> &[Cell<T>] {
        &self.data
    }
}

impl<T: Copy> LocalMemory for LocalArray<T> {
    fn local_bytes(&self) -> usize {
        self.data.len() * std::mem::size_of::<T>()
    }
}
