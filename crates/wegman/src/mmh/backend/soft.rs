//! Portable MMH/NMH arithmetic: no `unsafe`, no secret-dependent branches or
//! indexes, no division.
//!
//! Representations (all values unsigned unless marked):
//!
//! ```text
//! MMH32 / NMH32   words < 2^32      product < 2^64     sum mod 2^64 in a u64   p32 = 2^32 + 15
//! MMH64           words < 2^64      product < 2^128    sum mod 2^128 in a u128 p64 = 2^64 + 13
//! ```
//!
//! The sums wrap on purpose: Definitions 5 and 10 take the inner product
//! mod 2^64 (and the spec takes MMH64's mod 2^128) *before* reducing mod p,
//! so wrapping addition is the definition, not an overflow.
//!
//! Reduction mod p = 2^W + C follows paper §3.1: write x = a·2^W + b and fold
//! 2^W ≡ −C twice, then subtract p once by mask. [`reduce64`] and
//! [`reduce128`] are generic in W and C so that the tests at the bottom run
//! the very same code exhaustively on scaled-down moduli (2^8 + C, 2^12 + 15)
//! and on every boundary of the real ones.

use super::super::alg::{Alg, Family, K};

/// `((x mod (2^W + C)) mod 2^W)` for `x < 2^(2W)`, with `W ≤ 32`, `1 ≤ C ≤ 15`.
///
/// Bounds, step by step (C ≤ 15, so C·a < 2^(W+4) and every value fits an i64):
///
/// ```text
/// pre:    x = a·2^W + b              0 ≤ a, b ≤ 2^W − 1
/// fold 1: y = b − C·a ≡ x            −C(2^W − 1) ≤ y ≤ 2^W − 1          (signed)
///         y = c·2^W + d              c = y >> W ∈ [−C, 0], 0 ≤ d ≤ 2^W − 1
/// fold 2: z = d − C·c ≡ x            0 ≤ z ≤ 2^W − 1 + C² < 2p          (C² − 1 < 2^W + 2C)
/// final:  r = z − p if z ≥ p else z  0 ≤ r < p; return r mod 2^W
/// ```
///
/// The last step is `z ≥ p`, not the `z > p` of the paper's Appendix A code
/// (which returns C instead of 0 when z lands exactly on p).
#[inline(always)]
pub(crate) fn reduce64<const W: u32, const C: u64>(x: u64) -> u64 {
    let mask = (1u64 << W) - 1;
    let p = (1u64 << W) + C;
    debug_assert!(x.checked_shr(2 * W).unwrap_or(0) == 0);
    let a = x >> W;
    let b = x & mask;
    let y = b as i64 - (C * a) as i64;
    let c = y >> W; // arithmetic shift: floor(y / 2^W)
    let d = (y as u64) & mask;
    let z = d + C * (c.wrapping_neg() as u64);
    // lt = all ones iff z < p (sign of z − p; both below 2^34).
    let lt = crate::ct::opaque(((z as i64 - p as i64) >> 63) as u64);
    let r = (z & lt) | (z.wrapping_sub(p) & !lt);
    r & mask
}

/// `((x mod (2^W + C)) mod 2^W)` for `x < 2^(2W)`, with `W ≤ 64`, `1 ≤ C ≤ 15`:
/// [`reduce64`]'s steps in 128-bit registers, for MMH64 (W = 64, C = 13).
///
/// ```text
/// pre:    x = a·2^W + b              0 ≤ a, b ≤ 2^W − 1
/// fold 1: y = b − C·a ≡ x            −C(2^W − 1) ≤ y ≤ 2^W − 1          (|y| < 2^68, signed)
///         y = c·2^W + d              c ∈ [−C, 0], 0 ≤ d ≤ 2^W − 1
/// fold 2: z = d − C·c ≡ x            0 ≤ z ≤ 2^W − 1 + C² < 2p
/// final:  r = z − p if z ≥ p else z  0 ≤ r < p; return r mod 2^W
/// ```
#[inline(always)]
pub(crate) fn reduce128<const W: u32, const C: u128>(x: u128) -> u128 {
    let mask = (1u128 << W) - 1;
    let p = (1u128 << W) + C;
    debug_assert!(x.checked_shr(2 * W).unwrap_or(0) == 0);
    let a = x >> W;
    let b = x & mask;
    let y = b as i128 - (C * a) as i128;
    let c = y >> W;
    let d = (y as u128) & mask;
    let z = d + C * (c.wrapping_neg() as u128);
    let lt = crate::ct::opaque(((z as i128 - p as i128) >> 127) as u128);
    let r = (z & lt) | (z.wrapping_sub(p) & !lt);
    r & mask
}

/// MMH32 of one block (paper Definition 5):
/// `((Σ m[i]·x[i]) mod 2^64) mod (2^32 + 15)) mod 2^32`, using `x[0..32)`.
///
/// Accumulator: each product ≤ (2^32 − 1)² = 2^64 − 2^33 + 1; `sum` holds the
/// running total mod 2^64 (any u64).
#[inline]
pub(crate) fn mmh32(x: &[u32], m: &[u32; K]) -> u32 {
    let x = &x[..K];
    let mut sum = 0u64;
    for (&xi, &mi) in x.iter().zip(m) {
        sum = sum.wrapping_add(u64::from(mi) * u64::from(xi));
    }
    reduce64::<32, 15>(sum) as u32
}

/// NMH32 of one block (paper Definition 10): the products
/// `((m[2i] + x[2i]) mod 2^32)·((m[2i+1] + x[2i+1]) mod 2^32)`, summed mod 2^64,
/// then reduced as MMH32.
///
/// Accumulator: each factor ≤ 2^32 − 1, each product ≤ 2^64 − 2^33 + 1; `sum`
/// holds the total of up to 16 products mod 2^64 (any u64).
#[inline]
pub(crate) fn nmh32(x: &[u32], m: &[u32; K]) -> u32 {
    let x = &x[..K];
    let mut sum = 0u64;
    for (xp, mp) in x.chunks_exact(2).zip(m.chunks_exact(2)) {
        let lo = mp[0].wrapping_add(xp[0]);
        let hi = mp[1].wrapping_add(xp[1]);
        sum = sum.wrapping_add(u64::from(lo) * u64::from(hi));
    }
    reduce64::<32, 15>(sum) as u32
}

/// MMH64 of one block (spec §1):
/// `((Σ m[i]·x[i]) mod 2^128) mod (2^64 + 13)) mod 2^64`, using `x[0..32)`.
#[inline]
pub(crate) fn mmh64(x: &[u64], m: &[u64; K]) -> u64 {
    let [h] = mmh64_words::<1>(x, |i| m[i]);
    h
}

/// MMH64's first N Toeplitz outputs of one block whose i-th word is
/// `word(i)`: output t uses `x[t..t+32)`. Each word is read once and
/// multiplied by the N key words it meets.
///
/// Accumulators: each product ≤ (2^64 − 1)² = 2^128 − 2^65 + 1; every sum
/// holds its running total mod 2^128 (any u128), as the definition's. Four
/// independent sums per block (two per output for N = 2), added at the
/// end: one 128-bit add-with-carry chain would serialize the products.
#[inline(always)]
fn mmh64_words<const N: usize>(x: &[u64], word: impl Fn(usize) -> u64) -> [u64; N] {
    const CHAINS: usize = 4;
    let x = &x[..K + N - 1];
    let mut sum = [[0u128; CHAINS]; N];
    for i in (0..K).step_by(CHAINS) {
        let m: [u64; CHAINS] = core::array::from_fn(|c| word(i + c));
        for (t, s) in sum.iter_mut().enumerate() {
            for (c, s) in s.iter_mut().enumerate() {
                *s = s.wrapping_add(u128::from(m[c]) * u128::from(x[t + i + c]));
            }
        }
    }
    core::array::from_fn(|t| {
        let s = &sum[t];
        let total = s[0].wrapping_add(s[1]).wrapping_add(s[2].wrapping_add(s[3]));
        reduce128::<64, 13>(total) as u64
    })
}

/// [`mmh64_words`] over the 8-byte little-endian words of a 256-byte block.
#[inline(always)]
fn mmh64_block<const N: usize>(x: &[u64], block: &[u8]) -> [u64; N] {
    let block: &[u8; 8 * K] = block.try_into().expect("a 256-byte block");
    mmh64_words::<N>(x, |i| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&block[8 * i..8 * i + 8]);
        u64::from_le_bytes(w)
    })
}

/// The n-fold Toeplitz variant (paper §2.4): output t is MMH32 under `x[t..t+32)`.
#[inline]
pub(crate) fn mmh32_toeplitz<const N: usize>(x: &[u32], m: &[u32; K]) -> [u32; N] {
    core::array::from_fn(|t| mmh32(&x[t..], m))
}

/// The n-fold Toeplitz variant of MMH64: output t is MMH64 under `x[t..t+32)`.
#[inline]
pub(crate) fn mmh64_toeplitz<const N: usize>(x: &[u64], m: &[u64; K]) -> [u64; N] {
    mmh64_words::<N>(x, |i| m[i])
}

/// The k little-endian 32-bit words of a 128-byte block.
#[inline(always)]
fn words32(block: &[u8]) -> [u32; K] {
    let mut w = [0u32; K];
    for (d, c) in w.iter_mut().zip(block.chunks_exact(4)) {
        *d = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    w
}

/// Apply `f` to every 128-byte block of `blocks`, writing its N words little-endian to `out`.
#[inline(always)]
fn each32<const N: usize>(blocks: &[u8], out: &mut [u8], f: impl Fn(&[u32; K]) -> [u32; N]) {
    for (b, o) in blocks.chunks_exact(4 * K).zip(out.chunks_exact_mut(4 * N)) {
        for (w, d) in f(&words32(b)).iter().zip(o.chunks_exact_mut(4)) {
            d.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// MMH64's N Toeplitz outputs of every 256-byte block of `blocks`, little-endian to `out`.
#[inline(always)]
fn each64<const N: usize>(x: &[u64], blocks: &[u8], out: &mut [u8]) {
    for (b, o) in blocks.chunks_exact(8 * K).zip(out.chunks_exact_mut(8 * N)) {
        for (w, d) in mmh64_block::<N>(x, b).iter().zip(o.chunks_exact_mut(8)) {
            d.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// The level keys of one MAC key, as native words, `levels` levels of
/// `alg.level_key_words()` words each.
///
/// The word vector is allocated once with room for all 16 levels and never
/// reallocates: growing it would move the key words and hand the old block
/// back to the allocator unwiped. Hence no derived `Clone` (which allocates
/// only the levels present, so a clone's next level would grow it).
pub(crate) struct Keys {
    alg: Alg,
    words: Words,
    levels: usize,
}

enum Words {
    W32(Vec<u32>),
    W64(Vec<u64>),
}

/// Append `words` to `v` within its capacity; panics rather than let it
/// reallocate (a public condition: only a 17th level could).
fn append<T>(v: &mut Vec<T>, words: impl ExactSizeIterator<Item = T>) {
    assert!(words.len() <= v.capacity() - v.len(), "level keys never outgrow the room made for 16 levels");
    v.extend(words);
}

impl Keys {
    /// Room for all 16 levels up front, so that pushing levels never
    /// reallocates.
    pub(crate) fn new(alg: Alg) -> Self {
        let cap = super::super::alg::MAX_LEVELS * alg.level_key_words();
        let words = match alg.family() {
            Family::Mmh32 | Family::Nmh32 => Words::W32(Vec::with_capacity(cap)),
            Family::Mmh64 => Words::W64(Vec::with_capacity(cap)),
        };
        Keys { alg, words, levels: 0 }
    }

    pub(crate) fn levels(&self) -> usize {
        self.levels
    }

    /// Ask for the cache lines of the first `levels` levels' keys.
    pub(crate) fn prefetch(&self, levels: usize) {
        let words = levels.min(self.levels) * self.alg.level_key_words();
        match &self.words {
            Words::W32(v) => crate::prefetch::slice(&v[..words]),
            Words::W64(v) => crate::prefetch::slice(&v[..words]),
        }
    }

    /// Append the next level's key: `alg.level_key_words()` little-endian words.
    pub(crate) fn push_level(&mut self, bytes: &[u8]) {
        debug_assert_eq!(bytes.len(), self.alg.level_key_words() * self.alg.word_bytes());
        match &mut self.words {
            Words::W32(v) => append(v, bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
            Words::W64(v) => append(
                v,
                bytes.chunks_exact(8).map(|c| {
                    let mut w = [0u8; 8];
                    w.copy_from_slice(c);
                    u64::from_le_bytes(w)
                }),
            ),
        }
        self.levels += 1;
    }

    /// Hash every whole block of `blocks` with level `level`'s key, writing
    /// w = `alg.output_bytes()` bytes per block to `out` (spec §3's out(b)).
    pub(crate) fn compress(&self, level: usize, blocks: &[u8], out: &mut [u8]) {
        let alg = self.alg;
        debug_assert!(level < self.levels);
        debug_assert!(blocks.len().is_multiple_of(alg.block_bytes()));
        debug_assert_eq!(out.len(), blocks.len() / alg.block_bytes() * alg.output_bytes());
        let stride = alg.level_key_words();
        match &self.words {
            Words::W32(v) => {
                let x = &v[level * stride..(level + 1) * stride];
                match alg {
                    Alg::Mmh32 => each32(blocks, out, |m| [mmh32(x, m)]),
                    Alg::Mmh32x2 => each32(blocks, out, |m| mmh32_toeplitz::<2>(x, m)),
                    Alg::Mmh32x3 => each32(blocks, out, |m| mmh32_toeplitz::<3>(x, m)),
                    Alg::Mmh32x4 => each32(blocks, out, |m| mmh32_toeplitz::<4>(x, m)),
                    Alg::Nmh32 => each32(blocks, out, |m| [nmh32(x, m)]),
                    Alg::Mmh64 | Alg::Mmh64x2 => unreachable!("64-bit algorithms hold 64-bit keys"),
                }
            }
            Words::W64(v) => {
                let x = &v[level * stride..(level + 1) * stride];
                match alg {
                    Alg::Mmh64 => each64::<1>(x, blocks, out),
                    Alg::Mmh64x2 => each64::<2>(x, blocks, out),
                    _ => unreachable!("32-bit algorithms hold 32-bit keys"),
                }
            }
        }
    }

    /// Level `level`'s key words, for a 32-bit algorithm (None for MMH64).
    pub(crate) fn level32(&self, level: usize) -> Option<&[u32]> {
        let stride = self.alg.level_key_words();
        match &self.words {
            Words::W32(v) => Some(&v[level * stride..(level + 1) * stride]),
            Words::W64(_) => None,
        }
    }

    /// Level `level`'s key words, for MMH64 (None for a 32-bit algorithm).
    pub(crate) fn level64(&self, level: usize) -> Option<&[u64]> {
        let stride = self.alg.level_key_words();
        match &self.words {
            Words::W64(v) => Some(&v[level * stride..(level + 1) * stride]),
            Words::W32(_) => None,
        }
    }

    pub(crate) fn alg(&self) -> Alg {
        self.alg
    }

    /// Zero the key words. Only the used part: the vector was allocated at
    /// its final size (by `new` or `clone`) and never reallocated, so its
    /// spare capacity never held key material.
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        match &mut self.words {
            Words::W32(v) => v.as_mut_slice().zeroize(),
            Words::W64(v) => v.as_mut_slice().zeroize(),
        }
    }
}

impl Clone for Keys {
    /// A clone with the same room for 16 levels as [`Keys::new`] makes, so
    /// that it too can take the levels still to come without reallocating.
    fn clone(&self) -> Self {
        let mut copy = Keys::new(self.alg);
        match (&mut copy.words, &self.words) {
            (Words::W32(to), Words::W32(from)) => append(to, from.iter().copied()),
            (Words::W64(to), Words::W64(from)) => append(to, from.iter().copied()),
            _ => unreachable!("Keys::new chose the word size from the same algorithm"),
        }
        copy.levels = self.levels;
        copy
    }
}

#[cfg(test)]
mod tests {
    // The reduction, checked exhaustively where that is cheap and on every
    // boundary where it is not.
    //
    // Why the boundary check covers all inputs: fold 1 is exact integer
    // arithmetic, so the output depends on x only through y = b − C·a. As a
    // function of y, both the implementation and the definition
    // `(y mod p) mod 2^W` are piecewise "y plus a constant"; they can change
    // constant only where
    //   * c = ⌊y / 2^W⌋ changes: y = j·2^W;
    //   * z reaches p: d = p + C·c, so y = (c+1)·p, c ∈ [−C, 0];
    //   * r = z reaches 2^W: y = (c+1)·2^W + C·c;
    //   * y mod p wraps (y = j·p) or reaches 2^W (y = j·p + 2^W), |j| ≤ C.
    // Every such point lies within C·(C+1) ≤ 240 of a multiple of 2^W. So if
    // the two functions agree on every y within 300 of each multiple j·2^W in
    // y's range, then between two such windows both are "y plus a constant"
    // on the whole gap *including* the window edges, and agreeing at an edge
    // they agree on the gap.

    use super::*;

    /// (x mod (2^w + c)) mod 2^w the slow way.
    fn want(x: u128, w: u32, c: u128) -> u128 {
        (x % ((1u128 << w) + c)) % (1u128 << w)
    }

    fn exhaustive64<const W: u32, const C: u64>() {
        for x in 0..1u64 << (2 * W) {
            assert_eq!(u128::from(reduce64::<W, C>(x)), want(x.into(), W, C.into()), "W={W} C={C} x={x}");
        }
    }

    fn exhaustive128<const W: u32, const C: u128>() {
        for x in 0..1u128 << (2 * W) {
            assert_eq!(reduce128::<W, C>(x), want(x, W, C), "W={W} C={C} x={x}");
        }
    }

    #[test]
    fn scaled_down_reductions_are_exact_for_every_input() {
        // Every C the real code could meet (13, 15) and a few more, on 8-bit
        // words (p = 2^8 + C; 257, 263, 269, 271 are prime, which the
        // reduction does not need) and on 12-bit words, every x < 2^(2W).
        exhaustive64::<8, 1>();
        exhaustive64::<8, 7>();
        exhaustive64::<8, 13>();
        exhaustive64::<8, 15>();
        exhaustive128::<8, 13>();
        exhaustive128::<8, 15>();
        exhaustive64::<12, 15>();
        exhaustive128::<12, 13>();
    }

    /// An x whose fold-1 value is y, for y in [−C(2^W − 1), 2^W − 1]: the
    /// smallest a that makes b = y + C·a non-negative (and, when possible, a
    /// second decomposition with a larger a).
    fn preimages(y: i128, w: u32, c: i128) -> Vec<u128> {
        let lim = 1i128 << w;
        let mut out = Vec::new();
        let a0 = if y >= 0 { 0 } else { (-y + c - 1) / c };
        for a in [a0, a0 + 1] {
            let b = y + c * a;
            if a < lim && (0..lim).contains(&b) {
                out.push(((a as u128) << w) | b as u128);
            }
        }
        assert!(!out.is_empty());
        out
    }

    fn boundaries(w: u32, c: i128, check: impl Fn(u128)) {
        let two_w = 1i128 << w;
        let (lo, hi) = (-c * (two_w - 1), two_w - 1);
        for j in -c..=1 {
            for y in (j * two_w - 300)..=(j * two_w + 300) {
                if (lo..=hi).contains(&y) {
                    preimages(y, w, c).into_iter().for_each(&check);
                }
            }
        }
        // a few points inside the gaps, and the extremes
        for j in -c..=0 {
            for y in [j * two_w + two_w / 3, j * two_w + two_w / 2 + 1, lo, hi] {
                preimages(y, w, c).into_iter().for_each(&check);
            }
        }
    }

    #[test]
    fn real_reductions_agree_on_every_boundary() {
        boundaries(32, 15, |x| assert_eq!(u128::from(reduce64::<32, 15>(x as u64)), want(x, 32, 15), "x={x:#x}"));
        boundaries(64, 13, |x| assert_eq!(reduce128::<64, 13>(x), want(x, 64, 13), "x={x:#x}"));
        // and the sums' extremes
        for x in [0, 1, u64::MAX, u64::MAX - 1, 0xffff_ffff, 0x1_0000_000f, 0x1_0000_000e, 0x1_0000_0000] {
            assert_eq!(u128::from(reduce64::<32, 15>(x)), want(x.into(), 32, 15));
        }
        for x in [0, 1, u128::MAX, u128::MAX - 1, u64::MAX.into(), (1u128 << 64) + 13, (1u128 << 64) + 12] {
            assert_eq!(reduce128::<64, 13>(x), want(x, 64, 13));
        }
    }

    #[test]
    fn second_fold_landing_on_p_gives_zero() {
        // The Appendix-A case: z = d − C·c = p. With C = 15 that needs
        // d = 2^32 − 15(|c| − 1) ≤ 2^32 − 1, so |c| ≥ 2; c = −2 gives
        // y = −2·2^32 + 2^32 − 15 = −p. The paper's C code returns 15 here.
        let y: i128 = -((1 << 32) + 15);
        for x in preimages(y, 32, 15) {
            assert_eq!(x % ((1u128 << 32) + 15), 0);
            assert_eq!(reduce64::<32, 15>(x as u64), 0, "x={x:#x}");
        }
    }
}

#[cfg(test)]
mod room_tests {
    // The no-reallocation rule of `Keys`, checked directly rather than
    // through the allocator: whether a growing vector moves is up to the
    // allocator, whether it has to grow is not.

    use super::*;
    use crate::mmh::alg::MAX_LEVELS;

    /// Where the words live and how many fit there.
    fn room(k: &Keys) -> (*const u8, usize) {
        match &k.words {
            Words::W32(v) => (v.as_ptr().cast(), v.capacity()),
            Words::W64(v) => (v.as_ptr().cast(), v.capacity()),
        }
    }

    #[test]
    fn a_clone_takes_every_remaining_level_without_moving_its_words() {
        for alg in Alg::ALL {
            let level = vec![0x5a; alg.level_key_words() * alg.word_bytes()];
            let mut keys = Keys::new(alg);
            keys.push_level(&level);
            let mut copy = keys.clone();
            let (at, cap) = room(&copy);
            assert!(cap >= MAX_LEVELS * alg.level_key_words(), "{alg}: room for {cap} words");
            while copy.levels() < MAX_LEVELS {
                copy.push_level(&level);
            }
            assert_eq!(room(&copy), (at, cap), "{alg}: the words moved");
        }
    }
}
