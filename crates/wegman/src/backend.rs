//! The one shape of every family's backend dispatch.
//!
//! Each family keeps its leaves (`soft.rs`, `x86_<isa>.rs`) behind a
//! per-key enum with one variant per leaf: Poly1305's
//! `poly1305aes::backend::State`, CWC-HASH's `cwc::backend::HashKey`, MMH's
//! `mmh::backend::Keys`. Each implements [`Dispatch`], and each speaks the
//! same four words:
//!
//! - `select(seed, features)`: the best leaf the [`Features`] allow, chosen
//!   once per key (ring's `DynKey`), never per block;
//! - `absorb(…)`: the hot call, one `match` per run of whole units: 16-byte
//!   blocks into Poly1305's h, 12-byte chunks into CWC-HASH's R, whole
//!   blocks of one MMH level into the next level's words (the units and the
//!   running value differ, so `absorb` is each family's own method);
//! - `platform()`: which leaf was chosen, as the label the benchmark prints;
//! - `wipe()`: clear every secret the dispatch holds.
//!
//! Work that spans several keys goes through the same dispatch: Poly1305's
//! batches ask `poly1305aes::backend::tags8` for their eight-lane
//! polynomials, and AES for every family comes from `crate::aes`
//! (`PadLeaf` for keys used once, `RoundKeys` for expanded ones), so no
//! caller outside a family's `backend/mod.rs` or `crate::aes` names a leaf.
//! [`crate::platform::Backends`] reads each family's choice through
//! [`leaf_name`].

use crate::cpu::Features;

/// A family's per-key choice of leaf (see the module documentation).
pub(crate) trait Dispatch: Sized {
    /// What the choice is made for: Poly1305's r, CWC-HASH's Kh, MMH's
    /// algorithm.
    /// algorithm (borrowed where it is secret, so no copy is left behind).
    type Seed<'a>;

    /// The best leaf `features` allow for `seed`.
    fn select(seed: Self::Seed<'_>, features: Features) -> Self;

    /// The leaf chosen.
    fn platform(&self) -> Platform;

    /// Clear every secret held (also done on drop where the type owns
    /// key material).
    fn wipe(&mut self);
}

/// The label of the leaf `D` selects for `features` (any valid seed: the
/// choice never depends on the key's value).
pub(crate) fn leaf_name<D: Dispatch>(seed: D::Seed<'_>, features: Features) -> &'static str {
    let mut d = D::select(seed, features);
    let name = d.platform().name();
    d.wipe();
    name
}

/// The instruction-set level of the backend a key runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Platform {
    /// Portable Rust with 64-bit limbs; runs everywhere, contains no `unsafe`.
    Portable,
    /// AVX2: four 64-bit lanes of 26-bit limbs (Poly1305, CWC-HASH); four 32×32→64-bit
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
