//! Kernel arguments: [`Arg`] and the [`args!`](crate::args) macro.

use super::buffer::{DeviceBuffer, DeviceCopy};
use std::marker::PhantomData;

/// One kernel argument: a scalar, or a [`DeviceBuffer`] passed as a device pointer. The
/// lifetime ties a buffer argument to the buffer, so it cannot be freed while in use.
///
/// The launch checks the count and the byte size of every argument against the kernel's
/// parameters (`cuFuncGetParamInfo`); pass `u32` for `unsigned`, `u64` for `unsigned long long`
/// and `&buffer` for `T*`.
#[derive(Debug, Clone, Copy)]
pub struct Arg<'a> {
    pub(crate) bits: u64,
    pub(crate) size: usize,
    pub(crate) what: &'static str,
    /// Context of a buffer argument (checked against the launching GPU).
    pub(crate) buffer_of: Option<*const ()>,
    _borrow: PhantomData<&'a ()>,
}

// SAFETY: `buffer_of` is only compared as an address, never dereferenced.
unsafe impl Send for Arg<'_> {}
// SAFETY: as above.
unsafe impl Sync for Arg<'_> {}

macro_rules! scalar_arg {
    ($($t:ty => $name:literal, $bits:expr;)*) => {$(
        impl From<$t> for Arg<'static> {
            fn from(v: $t) -> Self {
                #[allow(clippy::redundant_closure_call)]
                Arg { bits: ($bits)(v), size: std::mem::size_of::<$t>(), what: $name, buffer_of: None, _borrow: PhantomData }
            }
        }
    )*};
}

scalar_arg! {
    u32 => "u32", |v: u32| u64::from(v);
    i32 => "i32", |v: i32| u64::from(v as u32);
    u64 => "u64", |v: u64| v;
    i64 => "i64", |v: i64| v as u64;
    f32 => "f32", |v: f32| u64::from(v.to_bits());
    f64 => "f64", |v: f64| v.to_bits();
}

impl<'a, T: DeviceCopy> From<&'a DeviceBuffer<T>> for Arg<'a> {
    fn from(b: &'a DeviceBuffer<T>) -> Self {
        Arg {
            bits: b.device_ptr(),
            size: 8,
            what: "pointer",
            buffer_of: Some(b.ctx_id()),
            _borrow: PhantomData,
        }
    }
}

impl<'a> Arg<'a> {
    /// A pointer to element `index` of `b` (a buffer's interior, e.g. a barrier's state at its
    /// chosen place); `None` past the buffer's end.
    ///
    /// ```no_run
    /// let gpu = occupant::cuda::Gpu::open(0)?;
    /// let b = gpu.alloc_zeroed::<u32>(64)?;
    /// assert!(occupant::cuda::Arg::element_of(&b, 32).is_some());
    /// assert!(occupant::cuda::Arg::element_of(&b, 64).is_none());
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn element_of<T: DeviceCopy>(b: &'a DeviceBuffer<T>, index: usize) -> Option<Self> {
        (index < b.len()).then(|| {
            let mut a = Arg::from(b);
            a.bits += (index * std::mem::size_of::<T>()) as u64;
            a
        })
    }
}

impl<'a, T: DeviceCopy> From<&'a mut DeviceBuffer<T>> for Arg<'a> {
    fn from(b: &'a mut DeviceBuffer<T>) -> Self {
        Arg::from(&*b)
    }
}

/// Builds a `[Arg; N]` from buffers (`&buf`) and scalars: `args![&data, n, 3u32]`.
///
/// ```
/// let a = occupant::args![1u32, 2.5f32, 7u64];
/// assert_eq!(a.len(), 3);
/// ```
#[macro_export]
macro_rules! args {
    ($($a:expr),* $(,)?) => { [$($crate::cuda::Arg::from($a)),*] };
}
