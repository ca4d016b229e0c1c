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
//! - `x86_avx512.rs`: AVX-512 `vpmuludq` for the 32-bit algorithms, on the
//!   IFMA tier (`Keys::Avx512Ifma` holds both 512-bit leaves).
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
mod x86_avx512;
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
            MmhLeaf::Ifma64(token) | MmhLeaf::Avx512Words32(token) => Keys::Avx512Ifma(soft::Keys::new(alg), token),
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

    /// Ask for the cache lines of levels 0 and 1's keys if a message of
    /// `len` bytes has a whole block (a key among many is not in cache, and
    /// its words are behind a pointer, read only once the hash starts;
    /// higher levels hash a few blocks at most). Shorter messages hash one
    /// block under level 0's key, which the prefetch only delayed: 1000 keys
    /// cycled, 0–64 bytes 0.82–1.11× the best Poly1305-AES peer with it and
    /// 0.70–1.09 without; one hot key 3–10 % slower with it.
    #[inline]
    pub(crate) fn prefetch_for(&self, alg: Alg, len: usize) {
        if len >= alg.block_bytes() {
            self.words().prefetch(2);
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
            Keys::Avx512Ifma(k, token) => match (k.level32(level), k.level64(level)) {
                (Some(x), _) => x86_avx512::compress32(*token, k.alg(), x, blocks, out),
                (_, Some(x)) => x86_avx512ifma::compress64(*token, k.alg(), x, blocks, out),
                _ => k.compress(level, blocks, out),
            },
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.wipe();
    }
}

/// The checks every 32-bit leaf passes (`x86_avx2.rs`, `x86_avx512.rs`).
#[cfg(all(test, target_arch = "x86_64"))]
mod leaf32_checks {
    use super::soft;
    use crate::mmh::alg::{Alg, K};

    /// A leaf's `compress32` under its token: (algorithm, level key, blocks, out).
    pub(super) type Compress<'a> = &'a dyn Fn(Alg, &[u32], &[u8], &mut [u8]);

    fn words(b: &[u8]) -> [u32; K] {
        core::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
    }

    /// `compress(alg, level key, blocks, out)` for every 32-bit algorithm
    /// against the portable block functions, with key and message words at
    /// their extremes (all ones: every product (2^32 - 1)^2, the 64-bit
    /// lanes wrapping many times) and random, at every block count from 0 to
    /// 25 (none, some and several of the leaves' groups, every remainder).
    pub(super) fn equals_the_portable_block_functions(compress: Compress<'_>) {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1du64);
        for round in 0..4 * 26 {
            let fill = |r: u64| match round % 4 {
                0 => u32::MAX,
                1 => 0,
                2 if r.is_multiple_of(3) => u32::MAX,
                _ => r as u32,
            };
            let key: Vec<u32> = (0..K + 3).map(|_| fill(next())).collect();
            let nblocks = round / 4;
            let msg: Vec<u8> = (0..4 * K * nblocks).map(|_| if round % 4 == 0 { 0xff } else { next() as u8 }).collect();
            for alg in [Alg::Mmh32, Alg::Mmh32x2, Alg::Mmh32x3, Alg::Mmh32x4, Alg::Nmh32] {
                let n = alg.toeplitz();
                let mut got = vec![0u8; 4 * n * nblocks];
                compress(alg, &key[..alg.level_key_words()], &msg, &mut got);
                for (i, (b, o)) in msg.chunks_exact(4 * K).zip(got.chunks_exact(4 * n)).enumerate() {
                    let m = words(b);
                    let want: Vec<u32> = match alg {
                        Alg::Nmh32 => vec![soft::nmh32(&key, &m)],
                        _ => (0..n).map(|t| soft::mmh32(&key[t..], &m)).collect(),
                    };
                    let got: Vec<u32> = o.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
                    assert_eq!(got, want, "{alg} round {round}, block {i} of {nblocks}");
                }
            }
        }
    }

    /// A lane reduction (`lanes` 64-bit values at a time) against the scalar
    /// one on every boundary: around each multiple of p = 2^32 + 15 that fits
    /// 64 bits, 0 and 2^64 - 1.
    pub(super) fn reduction_equals_reduce64(lanes: usize, reduce: &dyn Fn(&[u64]) -> Vec<u32>) {
        let p = (1u64 << 32) + 15;
        let mut xs = vec![0u64, 1, u64::MAX, u64::MAX - 1, p - 1, p, p + 1, 1 << 32, (1 << 32) - 1];
        let mut q = 1u64;
        while let Some(v) = p.checked_mul(q) {
            xs.extend([v - 1, v, v.saturating_add(1), v.saturating_add(14), v.saturating_add(15)]);
            q = q * 3 + 1;
        }
        let top = u64::MAX / p * p;
        xs.extend([top - 1, top, top + 1]);
        for c in xs.chunks(lanes) {
            let mut l = vec![0u64; lanes];
            l[..c.len()].copy_from_slice(c);
            for (x, g) in l.iter().zip(reduce(&l)) {
                assert_eq!(g, soft::reduce64::<32, 15>(*x) as u32, "x = {x:#x}");
            }
        }
    }
}
