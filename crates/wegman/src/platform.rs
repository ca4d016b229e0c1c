//! The one place that decides which backend runs.
//!
//! Every keyed object (a Poly1305 state today; MMH and CWC keys later) asks
//! [`Platform::detect`] once, when it is created, and keeps the answer: the
//! backend is chosen per key, never per block. A SIMD backend is added by
//! giving it a variant here, a run-time check in `detect`, and a leaf file
//! under the algorithm's `backend/` folder; callers do not change.

/// The instruction-set level a key's backend was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Platform {
    /// Portable Rust with 64-bit limbs; runs everywhere, contains no `unsafe`.
    Portable,
}

impl Platform {
    /// The best backend this CPU supports.
    ///
    /// Setting the environment variable is not consulted here on purpose:
    /// tests force a backend by constructing it directly.
    #[inline]
    pub fn detect() -> Self {
        Platform::Portable
    }

    /// A short name for diagnostics and benchmark labels.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Portable => "portable",
        }
    }
}
