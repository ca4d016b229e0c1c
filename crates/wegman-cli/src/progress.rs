//! A progress bar on stderr for large inputs, only when stderr is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs at least this large (in total) get a progress bar.
const THRESHOLD: u64 = 64 << 20;

/// A bar over `total` bytes, or a hidden one.
pub fn bar(total: u64) -> ProgressBar {
    if total < THRESHOLD || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}") {
        pb.set_style(style);
    }
    pb
}
