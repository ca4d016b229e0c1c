//! AVX-512 IFMA MMH64 and MMH64x2: eight 64-bit words of a block per step,
//! each 64×64-bit product as six 52-bit multiply-adds.
//!
//! # Limbs
//! A message word is split in 32-bit halves, m = a + b·2^32 (a, b < 2^32);
//! a key word is used as c + d·2^52, where c is its low 52 bits (which is
//! all `vpmadd52*` reads of it, so no mask) and d = x >> 52 < 2^12. Then
//!
//! ```text
//! m·x = a·c + a·d·2^52 + b·c·2^32 + b·d·2^84
//!     a·c < 2^84   low 52 bits at weight 2^0,  high 52 at 2^52
//!     a·d < 2^44   exact in the low 52 bits,           at 2^52
//!     b·c < 2^84   low 52 bits at weight 2^32, high 52 at 2^84
//!     b·d < 2^44   exact in the low 52 bits,           at 2^84
//! ```
//!
//! six multiply-adds (the fewest for two 64-bit factors in 52-bit
//! multipliers: a 12-bit limb times anything of at most 40 bits needs no
//! high half). Each goes to its own accumulator (six independent chains of
//! latency 4, so the loop runs at the multiply-adds' throughput).
//!
//! # Bounds
//! A multiply-add adds less than 2^52. A 256-byte block is four steps, so
//! each lane of each accumulator stays below 4·2^52 = 2^54; the two at
//! weight 2^52 (and the two at 2^84) added, below 2^55; the eight lanes
//! added, below 2^58: no 64-bit lane wraps. The block's inner product is
//! then exactly W0 + W32·2^32 + W52·2^52 + W84·2^84, taken mod 2^128 with
//! wrapping `u128` arithmetic (shifted-out bits are multiples of 2^128), as
//! the definition's sum mod 2^128 (spec §1), and the portable
//! [`reduce128`] finishes it.
//!
//! Output t of MMH64x2 uses key words t .. t+32: the same message halves
//! against a key load one word further on.
//!
//! Constant time: straight-line vector code; loops and branches depend on
//! the algorithm and the number of blocks only.

use core::arch::x86_64::*;

use super::soft::reduce128;
use crate::cpu::Avx512Ifma;
use crate::mmh::alg::{Alg, K};

/// Hash every 256-byte block of `blocks` under the level key `x`
/// (`alg.level_key_words()` words), writing `alg.toeplitz()` little-endian
/// 64-bit words per block to `out`. `alg` is MMH64 or MMH64x2.
pub(crate) fn compress64(token: Avx512Ifma, alg: Alg, x: &[u64], blocks: &[u8], out: &mut [u8]) {
    assert!(x.len() >= alg.level_key_words(), "a level key of the algorithm's size");
    assert!(blocks.len().is_multiple_of(8 * K) && out.len() == blocks.len() / (8 * K) * 8 * alg.toeplitz());
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F and IFMA on this CPU; the asserts above are
    // the length preconditions of the loads and stores.
    unsafe {
        match alg {
            Alg::Mmh64 => blocks64::<1>(token, x, blocks, out),
            Alg::Mmh64x2 => blocks64::<2>(token, x, blocks, out),
            _ => unreachable!("32-bit algorithms run the AVX2 code"),
        }
    }
}

/// # Safety
/// The CPU has AVX-512 F and IFMA (`token`); `x` holds at least 31 + N
/// words; `blocks` is whole 256-byte blocks and `out` 8·N bytes per block.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn blocks64<const N: usize>(_token: Avx512Ifma, x: &[u64], blocks: &[u8], out: &mut [u8]) {
    let low32 = _mm512_set1_epi64(0xffff_ffff);
    for (block, o) in blocks.chunks_exact(8 * K).zip(out.chunks_exact_mut(8 * N)) {
        let mut acc = [[_mm512_setzero_si512(); 6]; N];
        for step in 0..K / 8 {
            // SAFETY: 64 bytes at 64·step < 256 of the block.
            let m = unsafe { _mm512_loadu_si512(block.as_ptr().add(64 * step).cast()) };
            let a = _mm512_and_si512(m, low32);
            let b = _mm512_srli_epi64::<32>(m);
            for (t, s) in acc.iter_mut().enumerate() {
                // SAFETY: words t + 8·step .. + 8, at most 31 + N (the
                // caller's key length).
                let c = unsafe { _mm512_loadu_si512(x.as_ptr().add(t + 8 * step).cast()) };
                let d = _mm512_srli_epi64::<52>(c);
                s[0] = _mm512_madd52lo_epu64(s[0], a, c); // 2^0
                s[1] = _mm512_madd52hi_epu64(s[1], a, c); // 2^52
                s[2] = _mm512_madd52lo_epu64(s[2], a, d); // 2^52
                s[3] = _mm512_madd52lo_epu64(s[3], b, c); // 2^32
                s[4] = _mm512_madd52hi_epu64(s[4], b, c); // 2^84
                s[5] = _mm512_madd52lo_epu64(s[5], b, d); // 2^84
            }
        }
        for (s, word) in acc.iter().zip(o.chunks_exact_mut(8)) {
            let w = sums4(s[0], s[3], _mm512_add_epi64(s[1], s[2]), _mm512_add_epi64(s[4], s[5]));
            let total = u128::from(w[0])
                .wrapping_add(u128::from(w[1]) << 32)
                .wrapping_add(u128::from(w[2]) << 52)
                .wrapping_add(u128::from(w[3]) << 84);
            word.copy_from_slice(&(reduce128::<64, 13>(total) as u64).to_le_bytes());
        }
    }
}

/// The lane sums of four accumulators: `[Σa, Σb, Σc, Σd]` (each below
/// 2^64 by the bounds above).
#[target_feature(enable = "avx512f")]
#[inline]
fn sums4(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [u64; 4] {
    // Per 128-bit chunk: [a0+a1, b0+b1] and [c0+c1, d0+d1].
    let ab = _mm512_add_epi64(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    let cd = _mm512_add_epi64(_mm512_unpacklo_epi64(c, d), _mm512_unpackhi_epi64(c, d));
    // Chunks [ab0+ab1, ab2+ab3, cd0+cd1, cd2+cd3].
    let e =
        _mm512_add_epi64(_mm512_shuffle_i64x2::<0b10_00_10_00>(ab, cd), _mm512_shuffle_i64x2::<0b11_01_11_01>(ab, cd));
    // Chunks [ab0+ab1+ab2+ab3, cd0+cd1+cd2+cd3, ..]: the low half is the answer.
    let f = _mm512_add_epi64(_mm512_shuffle_i64x2::<0b00_00_10_00>(e, e), _mm512_shuffle_i64x2::<0b00_00_11_01>(e, e));
    let mut w = [0u64; 4];
    // SAFETY: `w` is 32 writable bytes.
    unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast(), _mm512_castsi512_si256(f)) };
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmh::backend::soft::{mmh64, mmh64_toeplitz};

    /// Blocks and keys of all-ones words (every accumulator at its largest
    /// contribution), single set bits at every limb edge, and random words,
    /// against the portable block functions.
    #[test]
    fn equals_the_portable_block_functions_at_the_extremes() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let edges = [0, 1, 31, 32, 33, 51, 52, 53, 63];
        for case in 0..200 {
            let word = |i: usize, r: u64| match case {
                0 => u64::MAX,
                1..=9 => 1u64 << edges[case - 1],
                10..=18 => (1u64 << edges[case - 10]).wrapping_sub(1) ^ (i as u64),
                _ => r,
            };
            let x: Vec<u64> = (0..K + 1).map(|i| word(i, next())).collect();
            let m: [u64; K] = core::array::from_fn(|i| word(i, next()));
            let block: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut out = [0u8; 16];
            compress64(token, Alg::Mmh64, &x[..K], &block, &mut out[..8]);
            assert_eq!(out[..8], mmh64(&x, &m).to_le_bytes(), "mmh64 case {case}");
            compress64(token, Alg::Mmh64x2, &x, &block, &mut out);
            let want = mmh64_toeplitz::<2>(&x, &m);
            assert_eq!(out[..8], want[0].to_le_bytes(), "mmh64x2[0] case {case}");
            assert_eq!(out[8..], want[1].to_le_bytes(), "mmh64x2[1] case {case}");
        }
    }
}
