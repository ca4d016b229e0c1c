//! When a key's lazily built table has paid for itself.
//!
//! Some leaves need a per-key table before they run (CWC-HASH's AVX2 lane
//! powers, the counter mode's round keys): built on a key's first run, it
//! costs a one-shot call with a short message more than the leaf saves on
//! it. [`Offered`] counts the bytes a key has had in runs the leaf could
//! take; the table is built once they reach what it costs, in the leaf's
//! saving per byte, and until then the runs go to the code that needs no
//! table. Only public lengths are counted.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes offered to a leaf whose table is not built yet.
#[derive(Default)]
pub(crate) struct Offered(AtomicUsize);

impl Clone for Offered {
    fn clone(&self) -> Self {
        Offered(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl Offered {
    /// Count a run of `len` bytes: whether at least `enough` have now been
    /// offered (this run included).
    pub(crate) fn reaches(&self, len: usize, enough: usize) -> bool {
        self.0.fetch_add(len, Ordering::Relaxed).saturating_add(len) >= enough
    }
}

#[cfg(test)]
mod tests {
    use super::Offered;

    #[test]
    fn reaches_counts_every_run_and_its_clone_keeps_the_count() {
        let o = Offered::default();
        assert!(!o.reaches(1000, 2048));
        assert!(!o.reaches(1000, 2048));
        let c = o.clone();
        assert!(o.reaches(48, 2048));
        assert!(c.reaches(48, 2048), "the clone starts from the count so far");
        assert!(Offered::default().reaches(2048, 2048), "one run of the whole amount");
        assert!(Offered::default().reaches(usize::MAX, 1), "no overflow");
    }
}
