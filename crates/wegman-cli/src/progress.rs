//! A progress bar on stderr for large inputs, only when stderr is a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use wegman_store::progress::Progress;

/// Inputs at least this large (in total) get a progress bar.
const THRESHOLD: u64 = 64 << 20;

/// An indicatif bar as the store's [`Progress`].
pub struct Bar(ProgressBar);

impl Progress for Bar {
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    fn suspend(&self, f: &mut dyn FnMut()) {
        self.0.suspend(f);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A bar over `total` bytes, or a hidden one.
pub fn bar(total: u64) -> Bar {
    if total < THRESHOLD || !std::io::stderr().is_terminal() {
        return Bar(ProgressBar::hidden());
    }
    let pb = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}") {
        pb.set_style(style);
    }
    Bar(pb)
}
