//! A key's table that is built once it has paid for itself.
//!
//! Some leaves need a per-key table before they run (CWC-HASH's AVX2 lane
//! powers, the counter mode's round keys): built on a key's first run, it
//! costs a one-shot call with a short message more than the leaf saves on
//! it. [`Lazy`] counts the bytes a key has had in runs the leaf could take
//! and builds the table on the run that brings them to what it costs (in
//! the leaf's saving per byte); until then the runs go to the code that
//! needs no table. Only public lengths are counted.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A table built after enough bytes were offered to it; dropped (and so
/// wiped, by its own `Drop`) with the key.
pub(crate) struct Lazy<T> {
    built: OnceLock<Box<T>>,
    offered: AtomicUsize,
}

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Lazy { built: OnceLock::new(), offered: AtomicUsize::new(0) }
    }
}

impl<T: Clone> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Lazy { built: self.built.clone(), offered: AtomicUsize::new(self.offered.load(Ordering::Relaxed)) }
    }
}

impl<T> Lazy<T> {
    /// The table, if built.
    pub(crate) fn get(&self) -> Option<&T> {
        self.built.get().map(|b| &**b)
    }

    /// Count a run of `len` bytes: the table, built by `build` on the run
    /// that brings the bytes offered to at least `enough` (this run
    /// included), or `None` before that.
    pub(crate) fn offer(&self, len: usize, enough: usize, build: impl FnOnce() -> Box<T>) -> Option<&T> {
        if let Some(t) = self.get() {
            return Some(t);
        }
        let offered = self.offered.fetch_add(len, Ordering::Relaxed).saturating_add(len);
        (offered >= enough).then(|| &**self.built.get_or_init(build))
    }

    /// As [`offer`](Self::offer) for a run that another path takes if this
    /// one does not: a run that would leave the count below `enough` is not
    /// counted here (that path offers it), so no run is counted twice.
    pub(crate) fn offer_if_enough(&self, len: usize, enough: usize, build: impl FnOnce() -> Box<T>) -> Option<&T> {
        if let Some(t) = self.get() {
            return Some(t);
        }
        if self.offered.load(Ordering::Relaxed).saturating_add(len) < enough {
            return None;
        }
        self.offer(len, enough, build)
    }

    /// Drop the table (its `Drop` wipes it); the count stays.
    pub(crate) fn clear(&mut self) {
        drop(self.built.take());
    }
}

#[cfg(test)]
mod tests {
    use super::Lazy;

    #[test]
    fn offer_if_enough_counts_only_the_run_that_builds() {
        let l = Lazy::<u8>::default();
        let build = || Box::new(9u8);
        assert_eq!(l.offer_if_enough(2000, 2048, build), None);
        assert_eq!(l.offer_if_enough(2000, 2048, build), None, "the first run was not counted");
        assert_eq!(l.offer(1000, 2048, build), None);
        assert_eq!(l.offer_if_enough(1047, 2048, build), None);
        assert_eq!(l.offer_if_enough(1048, 2048, build), Some(&9));
        assert_eq!(l.offer_if_enough(1, 2048, build), Some(&9));
    }

    #[test]
    fn offer_counts_every_run_and_a_clone_keeps_the_count() {
        let l = Lazy::<u8>::default();
        let build = || Box::new(7u8);
        assert_eq!(l.offer(1000, 2048, build), None);
        assert_eq!(l.offer(1000, 2048, build), None);
        let c = l.clone();
        assert_eq!(l.offer(48, 2048, build), Some(&7));
        assert_eq!(l.get(), Some(&7));
        assert_eq!(l.offer(0, usize::MAX, || Box::new(9)), Some(&7), "built once, then always there");
        assert_eq!(c.offer(48, 2048, || Box::new(8)), Some(&8), "the clone starts from the count so far");
        assert_eq!(Lazy::<u8>::default().offer(2048, 2048, build), Some(&7), "one run of the whole amount");
        assert_eq!(Lazy::<u8>::default().offer(usize::MAX, 1, build), Some(&7), "no overflow");
        let mut m = Lazy::<u8>::default();
        m.offer(1, 1, build);
        m.clear();
        assert_eq!(m.get(), None);
    }
}
