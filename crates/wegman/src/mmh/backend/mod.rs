//! MMH/NMH backends behind one per-key dispatch.
//!
//! A backend owns its form of the level keys (a SIMD backend may widen or
//! interleave them) and offers three operations: take the next level's key
//! words (`push_level`), hash whole blocks under one level's key
//! (`absorb`), and wipe. [`Keys`] holds
//! the best backend the key's [`Features`] allow, chosen when the key was made;
//! the `match` runs once per run of blocks, never per block.
//!
//! - `soft.rs`: portable, every algorithm.
//! - `x86_avx2.rs`: AVX2 `vpmuludq` for the 32-bit algorithms (MMH32, its
//!   Toeplitz variants, NMH32).
//! - `x86_avx2_64.rs`: AVX2 `vpmuludq` for MMH64 and MMH64x2 (32-bit by
//!   22-bit limb products), on CPUs without IFMA.
//! - `x86_avx512ifma.rs`: AVX-512 IFMA for MMH64 and MMH64x2.
//!
//! The key words are the portable backend's; only `absorb` differs.

mod soft;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2_64;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx512ifma;

use super::alg::Alg;
pub(crate) use crate::backend::Dispatch;
use crate::backend::{MmhLeaf, Platform};
use crate::cpu::Features;

pub(crate) use soft::{mmh32, mmh32_toeplitz, mmh64, mmh64_toeplitz, nmh32};

#[derive(Clone)]
pub(crate) enum Keys {
    Portable(soft::Keys),
    #[cfg(target_arch = "x86_64")]
    Avx2(soft::Keys, crate::cpu::Avx2),
    #[cfg(target_arch = "x86_64")]
    /// MMH64 on AVX2: the key words and their 22-bit limbs.
    Avx2Mmh64(soft::Keys, x86_avx2_64::Limbs, crate::cpu::Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512Ifma(soft::Keys, crate::cpu::Avx512Ifma),
}

impl Dispatch for Keys {
    /// The algorithm (its word size decides the leaf).
    type Seed<'a> = Alg;

    /// No levels yet; add them with [`Keys::push_level`].
    fn select(alg: Alg, features: Features) -> Self {
        match crate::backend::mmh(alg.word_bytes(), features) {
            #[cfg(target_arch = "x86_64")]
            MmhLeaf::Avx2Words32(token) => Keys::Avx2(soft::Keys::new(alg), token),
            #[cfg(target_arch = "x86_64")]
            MmhLeaf::Ifma64(token) => Keys::Avx512Ifma(soft::Keys::new(alg), token),
            #[cfg(target_arch = "x86_64")]
            MmhLeaf::Avx2Words64(token) => Keys::Avx2Mmh64(soft::Keys::new(alg), x86_avx2_64::Limbs::new(alg), token),
            MmhLeaf::Portable => Keys::Portable(soft::Keys::new(alg)),
        }
    }

    fn platform(&self) -> Platform {
        match self {
            Keys::Portable(_) => Platform::Portable,
            #[cfg(target_arch = "x86_64")]
            Keys::Avx2(..) | Keys::Avx2Mmh64(..) => Platform::Avx2,
            #[cfg(target_arch = "x86_64")]
            Keys::Avx512Ifma(..) => Platform::Avx512Ifma,
        }
    }

    fn wipe(&mut self) {
        self.words_mut().wipe();
        #[cfg(target_arch = "x86_64")]
        if let Keys::Avx2Mmh64(_, limbs, _) = self {
            limbs.wipe();
        }
    }
}

impl Keys {
    /// The portable form of the key words, which every backend keeps.
    #[inline]
    fn words(&self) -> &soft::Keys {
        match self {
            Keys::Portable(k) => k,
            #[cfg(target_arch = "x86_64")]
            Keys::Avx2(k, _) | Keys::Avx2Mmh64(k, ..) | Keys::Avx512Ifma(k, _) => k,
        }
    }

    fn words_mut(&mut self) -> &mut soft::Keys {
        match self {
            Keys::Portable(k) => k,
            #[cfg(target_arch = "x86_64")]
            Keys::Avx2(k, _) | Keys::Avx2Mmh64(k, ..) | Keys::Avx512Ifma(k, _) => k,
        }
    }

    /// Levels whose keys are present.
    #[inline]
    pub(crate) fn levels(&self) -> usize {
        self.words().levels()
    }

    /// Append the next level's key: its `alg.level_key_words()` words as
    /// little-endian bytes of the key-word stream (spec §2).
    pub(crate) fn push_level(&mut self, bytes: &[u8]) {
        self.words_mut().push_level(bytes);
        #[cfg(target_arch = "x86_64")]
        if let Keys::Avx2Mmh64(k, limbs, _) = self {
            let x = k.level64(k.levels() - 1).expect("MMH64 key words");
            limbs.push_level(x);
        }
    }

    /// Absorb whole blocks of level `level`'s input under its key, writing
    /// w bytes of the next level's input per block.
    #[inline]
    pub(crate) fn absorb(&self, level: usize, blocks: &[u8], out: &mut [u8]) {
        match self {
            Keys::Portable(k) => k.compress(level, blocks, out),
            #[cfg(target_arch = "x86_64")]
            Keys::Avx2(k, token) => match k.level32(level) {
                Some(x) => x86_avx2::compress32(*token, k.alg(), x, blocks, out),
                None => k.compress(level, blocks, out),
            },
            #[cfg(target_arch = "x86_64")]
            Keys::Avx2Mmh64(k, limbs, token) => match k.level64(level) {
                Some(x) => x86_avx2_64::compress64(*token, k.alg(), x, limbs, level, blocks, out),
                None => k.compress(level, blocks, out),
            },
            #[cfg(target_arch = "x86_64")]
            Keys::Avx512Ifma(k, token) => match k.level64(level) {
                Some(x) => x86_avx512ifma::compress64(*token, k.alg(), x, blocks, out),
                None => k.compress(level, blocks, out),
            },
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.wipe();
    }
}
