//! Which backend a keyed object runs on, as a read-only label for
//! diagnostics and the benchmark.
//!
//! The label is reported by the object that did the work
//! (`Poly1305::platform`, `Poly1305Aes::platform`, `MacKey::platform`, …), so
//! it always names the backend that actually ran. Which backends a key may
//! use is decided in one place, [`crate::cpu`]; each algorithm's
//! `backend/mod.rs` then picks the best one its features allow, once per
//! key. Today every family runs its portable backend on every CPU.

/// The instruction-set level of the backend a key runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Platform {
    /// Portable Rust with 64-bit limbs; runs everywhere, contains no `unsafe`.
    Portable,
}

impl Platform {
    /// A short name for diagnostics and benchmark labels.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Portable => "portable",
        }
    }
}

impl core::fmt::Display for Platform {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
