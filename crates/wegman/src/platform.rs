//! Which backend a keyed object runs on, as a read-only label for
//! diagnostics and the benchmark.
//!
//! The label is reported by the object that did the work
//! (`Poly1305::platform`, `Poly1305Aes::platform`, `MacKey::platform`, …), so
//! it always names the backend that actually ran. Which backends a key may
//! use is decided in one place, [`crate::cpu`]; each algorithm's
//! `backend/mod.rs` then picks the best one its features allow, once per
//! key. Today Poly1305 has AVX2 and AVX-512 IFMA backends (and the §4
//! float64 one when asked for), the 32-bit MMH algorithms an AVX2 backend,
//! CWC-HASH an AVX-512 IFMA backend; MMH64 runs portable code on every CPU.

/// The instruction-set level of the backend a key runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Platform {
    /// Portable Rust with 64-bit limbs; runs everywhere, contains no `unsafe`.
    Portable,
    /// AVX2: four 64-bit lanes of 26-bit limbs (Poly1305); four 32×32→64-bit
    /// products per instruction (MMH32, its Toeplitz variants, NMH32).
    Avx2,
    /// AVX-512 IFMA: eight 64-bit lanes of 44-bit limbs, 52-bit multiply-adds
    /// (Poly1305, CWC-HASH).
    Avx512Ifma,
    /// The paper's §4 method in IEEE binary64: portable, no `unsafe`, only
    /// when asked for (Poly1305).
    Float64,
}

impl Platform {
    /// A short name for diagnostics and benchmark labels.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Portable => "portable",
            Platform::Avx2 => "avx2",
            Platform::Avx512Ifma => "ifma",
            Platform::Float64 => "float64",
        }
    }
}

impl core::fmt::Display for Platform {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
