//! Where a lane leaf's run takes its groups of coefficients from: a slice,
//! or memory another thread may write, each register stored as loaded (the
//! leaves' `Keeper::run`, one-pass decryption's private copy).

/// Where a lane leaf's run takes its groups of coefficients from, each
/// group as the leaf's registers `G`. Each leaf implements it for [`Slice`]
/// and [`Keeping`] with its own loads and CPU features.
pub(super) trait Source<G> {
    /// The next group.
    ///
    /// # Safety
    /// The leaf's CPU features present, and a group left in the source.
    unsafe fn group(&mut self) -> G;
}

/// Groups of a slice.
pub(super) struct Slice<'a>(pub(super) &'a [u8]);

/// Groups of memory another thread may write, each register stored as
/// loaded to `keep` (a leaf's `Keeper::run`).
pub(super) struct Keeping {
    pub(super) src: *const u8,
    pub(super) keep: *mut u8,
}
