//! How `tag` and `check` report the bytes they read: the command draws a
//! progress bar on a terminal, the Python bindings draw nothing.

/// A display of the bytes read so far (shared by the threads that read).
pub trait Progress: Sync {
    /// `n` more bytes were read.
    fn inc(&self, n: u64);

    /// Run `f`, which writes a warning, with the display out of its way.
    fn suspend(&self, f: &mut dyn FnMut()) {
        f();
    }

    /// Everything was read: take the display away.
    fn finish(&self) {}
}

/// No display.
pub struct NoProgress;

impl Progress for NoProgress {
    fn inc(&self, _n: u64) {}
}
