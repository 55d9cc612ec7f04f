//! Progress bars for long reads and generations: shown on a terminal, for large jobs only.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// Jobs with fewer units than this (edges, bytes) get no bar.
pub const PROGRESS_THRESHOLD: u64 = 1 << 22;

/// A progress bar over `len` units labelled `what`; hidden when stderr is not a terminal or
/// the job is small.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    if len < PROGRESS_THRESHOLD || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{msg:>12} [{bar:40}] {percent:>3}% {elapsed} eta {eta}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}
