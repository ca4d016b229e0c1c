//! The lane backends' hash of a run that stores each register it loads to
//! a private copy ([`super::HashKey::keeping`]; one-pass decryption's copy,
//! `cwc/one_pass.rs`): which leaf's, forwarded with its raw-pointer
//! contract.

use super::{x86_avx2, x86_avx512ifma};

/// A lane backend's hash of a run that stores each register it loads to a
/// private copy ([`super::HashKey::keeping`]).
pub(crate) enum Keeper<'a> {
    Ifma(x86_avx512ifma::Keeper<'a>),
    Avx2(x86_avx2::Keeper<'a>),
}

impl Keeper<'_> {
    /// R after the `len` bytes at `src` (whole groups of 96, at least the
    /// shortest run of the lanes that gave this keeper), each stored as
    /// loaded at the same offset of `keep`: what was hashed is what `keep`
    /// holds.
    ///
    /// # Safety
    /// `src` readable and `keep` writable for `len` bytes, not overlapping;
    /// another thread may write `src` meanwhile.
    #[inline]
    pub(crate) unsafe fn run(&self, r: u128, src: *const u8, keep: *mut u8, len: usize) -> u128 {
        match self {
            // SAFETY: the caller's contract, which is each keeper's.
            Keeper::Ifma(k) => unsafe { k.run(r, src, keep, len) },
            // SAFETY: as above.
            Keeper::Avx2(k) => unsafe { k.run(r, src, keep, len) },
        }
    }
}
