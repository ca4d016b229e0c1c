//! AVX2 MMH64 and MMH64x2: 64×64-bit products from `vpmuludq`'s 32×32→64,
//! for CPUs without IFMA (on which `mulx`, one product per cycle, is the
//! portable code's limit). MMH64x2 computes its second output on the
//! vector units and its first with `mulx` in the same loop ([`block2`]).
//!
//! # Limbs, and why the lanes cannot overflow
//! A message word m is split into 32-bit halves m = m0 + m1·2^32 (`vpmuludq`
//! reads the low half of each 64-bit lane, so m0 costs nothing and m1 one
//! shift), a key word x into 22-bit limbs x = x0 + x1·2^22 + x2·2^44
//! (x0, x1 < 2^22, x2 < 2^20). The six products m_i·x_j are below
//! 2^32 · 2^22 = 2^54 and land at bit offsets 0, 22, 44 (m0) and 32, 54,
//! 76 (m1); each offset has its own accumulator. A 256-byte block is eight
//! vectors of four words, so each lane adds eight products: below 2^57.
//! The lanes' sums (`sums4`: four lanes, below 2^59) are then shifted to
//! their offsets and added as u128 wrapping mod 2^128, which is exactly the
//! definition's inner product mod 2^128 (the sum of the true products, all
//! exact until this last step); [`reduce128`] finishes each output word.
//!
//! Output t of MMH64x2 uses key words t .. t+32: an unaligned load at word
//! offset t, each output in its own pass over the block (the block stays
//! in L1; twelve accumulators and the limbs would not fit 16 registers).
//!
//! Constant time: straight-line vector code and wrapping u128 arithmetic;
//! loops and branches depend on the algorithm and the number of blocks only.

use core::arch::x86_64::*;

use super::soft::reduce128;
use super::x86_avx2::sums4;
use crate::avx2_mul::mul32;
use crate::cpu::Avx2;
use crate::mmh::alg::{Alg, K};

/// The bit offsets of the six products (see the module's comment).
const OFFSETS: [u32; 6] = [0, 22, 44, 32, 54, 76];

/// The level keys' words as 22-bit limbs, made once when a level is added
/// (splitting them per block cost a quarter of the vector work): per
/// level, `stride` words of x0, then of x1, then of x2. Room for all 16
/// levels is made up front, so the vector never reallocates (nor leaves a
/// copy of key material behind); wiped by [`Limbs::wipe`].
pub(crate) struct Limbs {
    v: Vec<u64>,
    stride: usize,
}

impl Limbs {
    pub(crate) fn new(alg: Alg) -> Self {
        let stride = alg.level_key_words();
        Limbs { v: Vec::with_capacity(3 * stride * crate::mmh::alg::MAX_LEVELS), stride }
    }

    /// Append the limbs of the next level's key words `x`.
    pub(crate) fn push_level(&mut self, x: &[u64]) {
        assert!(x.len() == self.stride && 3 * self.stride <= self.v.capacity() - self.v.len(), "room for 16 levels");
        let mask = (1 << 22) - 1;
        self.v.extend(x.iter().map(|w| w & mask));
        self.v.extend(x.iter().map(|w| (w >> 22) & mask));
        self.v.extend(x.iter().map(|w| w >> 44));
    }

    /// Level `level`'s limbs: x0, x1, x2.
    fn level(&self, level: usize) -> [&[u64]; 3] {
        let l = &self.v[3 * level * self.stride..3 * (level + 1) * self.stride];
        core::array::from_fn(|i| &l[i * self.stride..(i + 1) * self.stride])
    }

    /// Zero the limbs (only the used part: the spare capacity never held any).
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.v.as_mut_slice().zeroize();
    }
}

impl Clone for Limbs {
    /// With the same room for 16 levels, so the clone never reallocates either.
    fn clone(&self) -> Self {
        let mut v = Vec::with_capacity(self.v.capacity());
        v.extend_from_slice(&self.v);
        Limbs { v, stride: self.stride }
    }
}

/// Hash every 256-byte block of `blocks` under level `level`'s key, `x`
/// (`alg.level_key_words()` words) and its limbs, writing `alg.toeplitz()`
/// little-endian words per block to `out`. `alg` is MMH64 or MMH64x2.
pub(crate) fn compress64(token: Avx2, alg: Alg, x: &[u64], limbs: &Limbs, level: usize, blocks: &[u8], out: &mut [u8]) {
    let l = limbs.level(level);
    assert!(x.len() >= alg.level_key_words(), "a level key of the algorithm's size");
    assert!(l.iter().all(|l| l.len() == x.len()), "limbs of every key word");
    assert!(blocks.len().is_multiple_of(8 * K) && out.len() == blocks.len() / (8 * K) * 8 * alg.toeplitz());
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU; the asserts above are the length
    // preconditions of the loads and stores.
    unsafe {
        match alg {
            Alg::Mmh64 => blocks64::<1>(token, x, l, blocks, out),
            Alg::Mmh64x2 => blocks64::<2>(token, x, l, blocks, out),
            _ => unreachable!("32-bit algorithms run x86_avx2.rs"),
        }
    }
}

/// The six products of group j (words 4j..4j+4) of the block at `bp`
/// with the key limbs at `lp`, added to `acc`.
///
/// # Safety
/// AVX2 present; `bp` points to 256 readable bytes and each `lp[i]` to 32
/// readable words; j < 8.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn group(acc: &mut [__m256i; 6], bp: *const u8, lp: [*const u64; 3], j: usize) {
    // SAFETY: the caller's preconditions cover bytes 32j..32j+32 of the
    // block and words 4j..4j+4 of each limb array.
    let (m, x) =
        unsafe { (_mm256_loadu_si256(bp.add(32 * j).cast()), lp.map(|p| _mm256_loadu_si256(p.add(4 * j).cast()))) };
    let m1 = _mm256_srli_epi64::<32>(m);
    let p = [mul32(m, x[0]), mul32(m, x[1]), mul32(m, x[2]), mul32(m1, x[0]), mul32(m1, x[1]), mul32(m1, x[2])];
    for (a, p) in acc.iter_mut().zip(p) {
        *a = _mm256_add_epi64(*a, p);
    }
}

/// One block's six accumulators for the output whose key limbs start at `lp`.
///
/// # Safety
/// AVX2 present; `bp` points to 256 readable bytes and each `lp[i]` to 32 readable words.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn acc64(bp: *const u8, lp: [*const u64; 3]) -> [__m256i; 6] {
    let mut acc = [_mm256_setzero_si256(); 6];
    for j in 0..8 {
        // SAFETY: the caller's preconditions, j < 8.
        unsafe { group(&mut acc, bp, lp, j) };
    }
    acc
}

/// MMH64x2's block: output 1's vector accumulators (key limbs from `lp`)
/// and, in the same loop, output 0's inner product mod 2^128 from scalar
/// 64×64→128 `mulx` products (key words `kq`). Measured on Zen 3: 0.35
/// ticks/B, against 0.37 for two vector passes and 0.40 with `mul` for
/// `mulx`; splitting one output's words between the two halves (MMH64) was
/// slower than the vector units alone (0.205 against 0.184): both halves
/// cost 4–5 instructions per word, and the core retires about four a cycle.
///
/// # Safety
/// AVX2 and BMI2 present; `bp` points to 256 readable bytes, each `lp[i]`
/// to 32 readable words; `kq` has at least 32 words.
#[target_feature(enable = "avx2,bmi2")]
#[inline]
unsafe fn block2(bp: *const u8, lp: [*const u64; 3], kq: &[u64]) -> ([__m256i; 6], u128) {
    let mut acc = [_mm256_setzero_si256(); 6];
    let mut sum = [0u128; 2];
    for j in 0..8 {
        // SAFETY: the caller's preconditions, j < 8.
        unsafe { group(&mut acc, bp, lp, j) };
        for i in 0..4 {
            // SAFETY: as above, bytes 32j + 8i .. +8 of the block.
            let w = unsafe { bp.add(32 * j + 8 * i).cast::<u64>().read_unaligned() };
            let s = &mut sum[i % 2];
            *s = s.wrapping_add(u128::from(u64::from_le(w)) * u128::from(kq[4 * j + i]));
        }
    }
    (acc, sum[0].wrapping_add(sum[1]))
}

/// The block's inner product mod 2^128 from its vector accumulators and a
/// scalar part, reduced.
#[target_feature(enable = "avx2")]
#[inline]
fn word(acc: [__m256i; 6], scalar: u128) -> u64 {
    let zero = _mm256_setzero_si256();
    let mut s = [0u64; 8];
    // SAFETY: `s` is 64 writable bytes: two unaligned 32-byte stores.
    unsafe {
        _mm256_storeu_si256(s.as_mut_ptr().cast(), sums4(acc[0], acc[1], acc[2], acc[3]));
        _mm256_storeu_si256(s.as_mut_ptr().add(4).cast(), sums4(acc[4], acc[5], zero, zero));
    }
    let total = s.iter().zip(OFFSETS).fold(scalar, |t, (&s, o)| t.wrapping_add(u128::from(s) << o));
    reduce128::<64, 13>(total) as u64
}

/// # Safety
/// AVX2 and BMI2 present; `x` and each `l[i]` have at least 31 + N words;
/// `blocks` is whole 256-byte blocks and `out` holds 8·N bytes per block.
#[target_feature(enable = "avx2,bmi2")]
unsafe fn blocks64<const N: usize>(_proof: Avx2, x: &[u64], l: [&[u64]; 3], blocks: &[u8], out: &mut [u8]) {
    for (i, (b, o)) in blocks.chunks_exact(8 * K).zip(out.chunks_exact_mut(8 * N)).enumerate() {
        crate::prefetch::run_ahead(blocks, 8 * K * i, 8 * K * (i + 1));
        if N == 1 {
            // SAFETY: `b` is 256 bytes; words 0..32 lie within each l[i].
            let acc = unsafe { acc64(b.as_ptr(), l.map(|l| l.as_ptr())) };
            o.copy_from_slice(&word(acc, 0).to_le_bytes());
        } else {
            // SAFETY: `b` is 256 bytes; words 1..33 of l and 0..32 of x lie within them.
            let (acc, s0) = unsafe { block2(b.as_ptr(), l.map(|l| l[1..].as_ptr()), &x[..K]) };
            o[..8].copy_from_slice(&(reduce128::<64, 13>(s0) as u64).to_le_bytes());
            o[8..16].copy_from_slice(&word(acc, 0).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmh::backend::soft;

    /// `Limbs::wipe` zeroes every limb (it runs from the key's drop; no
    /// output shows it, so its removal survived mutation testing).
    #[test]
    fn wiping_limbs_zeroes_them() {
        let mut limbs = Limbs::new(Alg::Mmh64x2);
        let key: Vec<u64> = (0..Alg::Mmh64x2.level_key_words() as u64).map(|i| u64::MAX - i).collect();
        limbs.push_level(&key);
        limbs.push_level(&key);
        assert!(limbs.v.iter().all(|&l| l != 0), "every limb has bits to clear");
        limbs.wipe();
        assert_eq!(limbs.v.len(), 6 * key.len());
        assert!(limbs.v.iter().all(|&l| l == 0));
    }

    /// Both algorithms against the portable block functions, with key and
    /// message words at their extremes (all ones: every limb product at its
    /// largest, the 128-bit sum wrapping) and random.
    #[test]
    fn equals_the_portable_block_functions() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for round in 0..300 {
            let fill = |r: u64| match round % 5 {
                0 => u64::MAX,
                1 => 0,
                2 if r.is_multiple_of(3) => u64::MAX,
                3 => r | 0xffff_ffff_0000_0000 | (0x3f_ffff << 22),
                _ => r,
            };
            let key: Vec<u64> = (0..K + 1).map(|_| fill(next())).collect();
            let blocks = 1 + round % 5;
            let msg: Vec<u8> = (0..blocks * K).flat_map(|_| fill(next()).to_le_bytes()).collect();
            for (alg, n) in [(Alg::Mmh64, 1), (Alg::Mmh64x2, 2)] {
                let mut got = vec![0u8; blocks * 8 * n];
                let mut limbs = Limbs::new(alg);
                limbs.push_level(&key[..alg.level_key_words()]);
                limbs.push_level(&key[..alg.level_key_words()]);
                compress64(token, alg, &key[..alg.level_key_words()], &limbs, 1, &msg, &mut got);
                for (b, o) in msg.chunks_exact(8 * K).zip(got.chunks_exact(8 * n)) {
                    let m: [u64; K] =
                        core::array::from_fn(|i| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()));
                    let want = soft::mmh64_toeplitz::<2>(&key, &m);
                    let got: Vec<u64> = o.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
                    assert_eq!(got, want[..n], "{alg:?}, round {round}");
                }
            }
        }
    }
}
