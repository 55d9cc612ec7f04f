//! The cell the combining locks keep their requests' arguments and results in: loom's under
//! `cfg(loom)` (so the models check every access), otherwise `std`'s behind loom's interface.

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// `std`'s cell with loom's interface (so the same code runs under the model checker).
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) fn new(v: T) -> Self {
        Self(std::cell::UnsafeCell::new(v))
    }
    pub(crate) fn with_mut<U>(&self, f: impl FnOnce(*mut T) -> U) -> U {
        f(self.0.get())
    }
}
