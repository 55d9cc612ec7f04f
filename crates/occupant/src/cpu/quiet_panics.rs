//! Keeps kernel panics off stderr: a panic in a kernel is reported once, as
//! [`Error::KernelPanic`](crate::Error::KernelPanic), not also printed by the panic hook (with a
//! backtrace) for every panicking work-item.
//!
//! The executor installs, once per process, a panic hook that stays silent for panics on the
//! threads (and during the calls) where it runs kernels, and passes every other panic to the
//! hook that was installed before it. Set `OCCUPANT_SHOW_KERNEL_PANICS=1` to have kernel panics
//! printed as usual (the variable is read when the first launch installs the hook).

use std::cell::Cell;
use std::sync::Once;

/// The environment variable that, set to anything but `0`, keeps kernel panics printed.
pub const SHOW_KERNEL_PANICS_ENV: &str = "OCCUPANT_SHOW_KERNEL_PANICS";

thread_local! {
    static RUNNING_KERNEL: Cell<bool> = const { Cell::new(false) };
}

static INSTALL: Once = Once::new();

/// Installs the filtering hook (once per process; a no-op under
/// `OCCUPANT_SHOW_KERNEL_PANICS=1`).
pub(crate) fn install_hook() {
    INSTALL.call_once(|| {
        let show = std::env::var_os(SHOW_KERNEL_PANICS_ENV).is_some_and(|v| v != "0");
        if show {
            return;
        }
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !RUNNING_KERNEL.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// While alive, panics on this thread are kernel panics (silenced by the hook).
pub(crate) struct RunningKernel {
    before: bool,
}

impl RunningKernel {
    /// Marks this thread as running kernel code until the guard is dropped.
    pub(crate) fn enter() -> Self {
        Self {
            before: RUNNING_KERNEL.with(|c| c.replace(true)),
        }
    }
}

impl Drop for RunningKernel {
    fn drop(&mut self) {
        RUNNING_KERNEL.with(|c| c.set(self.before));
    }
}
