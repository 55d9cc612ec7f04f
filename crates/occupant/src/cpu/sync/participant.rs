//! One thread at a time per participant of the combining mutexes: the index check and the busy
//! flag that their `apply` methods share.

use super::atomic::{AtomicBool, Ordering};
use crate::model::{Error, Result};

/// Participant `p`'s busy flag, held for one call (cleared when dropped).
pub(crate) struct Busy<'a>(&'a AtomicBool);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Claims participant `p` of `n` (`busy`: its flag, `None` when `p` is out of range) for one
/// call; `kind` names the mutex in the errors ([`Error::Input`]: out of range, or in use by
/// another thread).
pub(crate) fn claim<'a>(
    kind: &str,
    p: usize,
    n: usize,
    busy: Option<&'a AtomicBool>,
) -> Result<Busy<'a>> {
    let Some(busy) = busy else {
        return Err(Error::Input(format!(
            "{kind}: participant {p} out of range (0..{n})"
        )));
    };
    if busy.swap(true, Ordering::Acquire) {
        return Err(Error::Input(format!(
            "{kind}: participant {p} is in use by another thread"
        )));
    }
    Ok(Busy(busy))
}
