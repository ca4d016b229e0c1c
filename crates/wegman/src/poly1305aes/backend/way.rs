//! Where a vector backend sends a run of whole groups: the one vocabulary
//! of the AVX2 and IFMA tiers' dispatch between their Horner lanes and
//! their per-word tables. Each tier decides with its own thresholds
//! (`way_of` in `x86_avx2_words.rs` and `x86_avx512ifma_words.rs`); its
//! `vector_blocks` returns the way it took, which is all a test can see of
//! the choice: every way gives the same h.

/// Where a run of whole groups goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    /// The tier's two sets of Horner lanes.
    Lanes,
    /// An `ExpandedKey`'s table, once it is built (the lanes until then).
    Kept,
    /// A table of half the pairs, built for this run and wiped after it
    /// (the AVX2 tiers only: half the build).
    Half,
    /// A whole table, built for this run and wiped after it.
    Whole,
}

/// Checks a tier's `ExpandedKey` runs of `min_run` bytes (`kept` runs one
/// and returns its way): the lanes on every run before the one that brings
/// what the key has offered to `build_after`, the table on that run.
#[cfg(test)]
pub(crate) fn assert_kept_from_the_run_that_builds(kept: impl Fn(usize) -> Way, min_run: usize, build_after: usize) {
    let mut offered = 0;
    while offered + min_run < build_after {
        assert_eq!(kept(min_run), Way::Lanes, "before the table, at {offered}");
        offered += min_run;
    }
    assert_eq!(kept(min_run), Way::Kept, "the run that reaches {build_after} bytes builds it");
}
