//! Which leaf each family runs, and the one shape of every family's
//! backend dispatch.
//!
//! **The choice** is made here and nowhere else: [`poly1305`], [`lanes`]
//! (CWC-HASH, and Poly1305 past the §4 float64 request), [`mmh`] and
//! [`aes`] map a set of [`Features`] (`crate::cpu`'s tokens) to the leaf each
//! family runs, and each family's `backend/mod.rs` (and `crate::aes`)
//! builds its per-key state from the answer. How long an input must be
//! before a wide leaf repays its set-up is each leaf's own measured
//! threshold; which leaves exist on a CPU is decided only here.
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
#[cfg(target_arch = "x86_64")]
use crate::cpu::{AesNi, Avx2, Avx512Ifma, Vaes256, Vaes512};

/// The lanes a polynomial hash runs in (Poly1305 modulo 2^130 − 5,
/// CWC-HASH modulo 2^127 − 1): the widest multiply the CPU has.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lanes {
    /// Eight 64-bit lanes of 52-bit multiply-adds.
    #[cfg(target_arch = "x86_64")]
    Ifma(Avx512Ifma),
    /// Four 64-bit lanes of 32×32-bit products.
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// 64-bit integer code.
    Portable,
}

/// The lanes `features` allow: AVX-512 IFMA, else AVX2, else portable.
#[inline]
pub(crate) fn lanes(features: Features) -> Lanes {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = features.avx512ifma() {
        return Lanes::Ifma(t);
    } else if let Some(t) = features.avx2() {
        return Lanes::Avx2(t);
    }
    let _ = features;
    Lanes::Portable
}

/// Poly1305's polynomial: the paper's §4 floating-point code when asked
/// for (`Features::float64`), else [`lanes`].
#[inline]
pub(crate) fn poly1305(features: Features) -> Option<Lanes> {
    if features.prefers_float64() { None } else { Some(lanes(features)) }
}

/// The MMH leaf for `word_bytes`-byte words (4: MMH32, its Toeplitz
/// variants and NMH32; 8: MMH64 and MMH64x2).
#[derive(Clone, Copy, Debug)]
pub(crate) enum MmhLeaf {
    /// 32-bit words, four 32×32-bit products per AVX2 instruction.
    #[cfg(target_arch = "x86_64")]
    Avx2Words32(Avx2),
    /// 32-bit words, eight 32×32-bit products per AVX-512 instruction (on
    /// the IFMA tier: its token proves AVX-512 F).
    #[cfg(target_arch = "x86_64")]
    Avx512Words32(Avx512Ifma),
    /// 64-bit words in AVX-512 IFMA lanes.
    #[cfg(target_arch = "x86_64")]
    Ifma64(Avx512Ifma),
    /// 64-bit words in AVX2 lanes of 32-bit limbs.
    #[cfg(target_arch = "x86_64")]
    Avx2Words64(Avx2),
    /// 64-bit integer code.
    Portable,
}

/// The MMH leaf `features` allow for words of `word_bytes` bytes (MMH32
/// has no IFMA leaf: AVX2 is its widest).
#[inline]
pub(crate) fn mmh(word_bytes: usize, features: Features) -> MmhLeaf {
    #[cfg(target_arch = "x86_64")]
    match (word_bytes, features.avx2(), features.avx512ifma()) {
        (4, _, Some(t)) => return MmhLeaf::Avx512Words32(t),
        (4, Some(t), None) => return MmhLeaf::Avx2Words32(t),
        (8, _, Some(t)) => return MmhLeaf::Ifma64(t),
        (8, Some(t), None) => return MmhLeaf::Avx2Words64(t),
        _ => {}
    }
    let _ = (word_bytes, features);
    MmhLeaf::Portable
}

/// The AES instructions a key may use beyond AES-NI.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(crate) enum AesWide {
    /// VAES on 512-bit registers: four blocks each.
    Vaes512(Vaes512),
    /// VAES on 256-bit registers: two blocks each.
    Vaes256(Vaes256),
    /// AES-NI alone.
    None,
}

/// AES for every family: AES-NI and the widest VAES `features` allow, or
/// `None` (the `aes` crate's portable code, or its own AES-NI detection).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn aes(features: Features) -> Option<(AesNi, AesWide)> {
    let aesni = features.aesni()?;
    let wide = if let Some(t) = features.vaes512() {
        AesWide::Vaes512(t)
    } else if let Some(t) = features.vaes256() {
        AesWide::Vaes256(t)
    } else {
        AesWide::None
    };
    Some((aesni, wide))
}

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
    /// (Poly1305, CWC-HASH, MMH64); on the same tier, eight 32×32→64-bit
    /// products per AVX-512 instruction (MMH32, its Toeplitz variants, NMH32).
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

#[cfg(test)]
mod tests {
    use super::Platform;

    /// A platform prints as its name (cargo-mutants: a `Display` that wrote
    /// nothing survived the library's other tests).
    #[test]
    fn a_platform_displays_its_name() {
        for p in [Platform::Portable, Platform::Avx2, Platform::Avx512Ifma, Platform::Float64] {
            assert_eq!(p.to_string(), p.name());
            assert!(!p.name().is_empty());
        }
    }
}
