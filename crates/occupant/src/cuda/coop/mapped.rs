//! The host-mapped mailbox of a cooperative launch (device twin: `occ::coop::Mailbox` in
//! `device/coop.cuh`): page-locked host memory the GPU reads and writes through `.sys`-scoped
//! accesses (`ld.acquire.sys`, `st.release.sys`, `atom.release.sys`), and the host through
//! acquire/release atomics.

use crate::cuda::gpu::driver_err;
use crate::model::Result;
use cudarc::driver::sys;
use std::sync::atomic::{AtomicU32, Ordering};

/// Words of the mailbox, in `occ::coop::Mailbox` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Word {
    Target = 0,
    Seq = 1,
    Active = 2,
    Killed = 3,
    Forked = 4,
    Finished = 5,
    JoinersExited = 6,
    Barriers = 7,
}

/// Size of `occ::coop::Mailbox` in bytes.
pub(crate) const MAILBOX_BYTES: usize = 64;

/// A mailbox in mapped, page-locked host memory (`cuMemHostAlloc(DEVICEMAP)`).
pub(crate) struct Mailbox {
    host: *mut AtomicU32,
    device: u64,
}

// SAFETY: the memory is only accessed through atomics; it lives until drop.
unsafe impl Send for Mailbox {}
// SAFETY: as above.
unsafe impl Sync for Mailbox {}

impl Mailbox {
    /// Allocates a zeroed mailbox. The GPU's context must be current on this thread.
    pub(crate) fn new() -> Result<Mailbox> {
        let mut p: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a live pointer.
        unsafe {
            sys::cuMemHostAlloc(
                &mut p,
                MAILBOX_BYTES,
                sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }
        .result()
        .map_err(|e| driver_err("cuMemHostAlloc(DEVICEMAP)", e))?;
        // SAFETY: p spans MAILBOX_BYTES of writable host memory.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, MAILBOX_BYTES) };
        let mut d: sys::CUdeviceptr = 0;
        // SAFETY: p is a mapped allocation; out-pointer to a live integer.
        let r = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut d, p, 0) }.result();
        if let Err(e) = r {
            // SAFETY: allocated above, freed once.
            unsafe { sys::cuMemFreeHost(p) };
            return Err(driver_err("cuMemHostGetDevicePointer", e));
        }
        Ok(Mailbox {
            host: p.cast(),
            device: d,
        })
    }

    /// The device address (the kernel's `occ::coop::Mailbox*` argument).
    pub(crate) fn device_ptr(&self) -> u64 {
        self.device
    }

    fn word(&self, w: Word) -> &AtomicU32 {
        // SAFETY: every Word is within the MAILBOX_BYTES allocation, 4-byte aligned.
        unsafe { &*self.host.add(w as usize) }
    }

    /// Acquire load (pairs with the device's `.sys` releases).
    pub(crate) fn load(&self, w: Word) -> u32 {
        self.word(w).load(Ordering::Acquire)
    }

    /// Release store (pairs with the device's `ld.acquire.sys`).
    pub(crate) fn store(&self, w: Word, v: u32) {
        self.word(w).store(v, Ordering::Release)
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc, freed once; no kernel uses it any more (the
        // scheduler waits for its kernels before dropping).
        unsafe { sys::cuMemFreeHost(self.host.cast()) };
    }
}
