//! AVX-512 IFMA MMH64 and MMH64x2: each 64×64-bit product as six 52-bit
//! multiply-adds, on eight blocks at once (one per lane) and on the last
//! few blocks one at a time (eight of a block's words per step).
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
//! # Bounds (one block at a time)
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
//! # Eight blocks at once
//! Runs of eight blocks take [`eight_blocks`]: the same six multiply-adds
//! per word, but with one block per lane. A transpose of the message (an
//! insert from memory, an unpack and a 128-bit shuffle per register) puts
//! word j of eight blocks in one register, which meets key word j + t
//! broadcast from memory (and its high 12 bits from a copy made once per
//! call). Each accumulator lane then holds its block's sum: no horizontal
//! adds, and [`finish8`] takes the eight blocks' sums mod 2^128, mod p64 and
//! mod 2^64 in the vector registers, where one block alone needs about 35
//! scalar instructions per output word. Per 256-byte block of MMH64x2 that
//! is 48 multiply-adds + 8 splits + 12 transpose µops + ~9 finishing on
//! ports 0 and 5, against ~95 vector and ~70 scalar µops one block at a
//! time. Measured on the leaf (Intel Xeon 6/207, 2 KiB to 64 KiB of
//! blocks, best of 2,000): 31–34 ticks a block against 48–50 (MMH64x2),
//! 21–23 against 27–30 (MMH64).
//! Bounds: a lane adds 32 multiply-adds (each below 2^52), below 2^57; the
//! two accumulators of one weight, below 2^58.
//!
//! Constant time: straight-line vector code; loops and branches depend on
//! the algorithm and the number of blocks only.

use core::arch::x86_64::*;

use zeroize::Zeroize;

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
    let whole = blocks.len() / (GROUP * 8 * K);
    if whole > 0 {
        // The key words' high 12 bits (d of the limbs above), broadcast from
        // here; key material, so wiped after.
        let mut high = [0u64; K + 1];
        for (h, &w) in high.iter_mut().zip(&x[..K + N - 1]) {
            *h = w >> 52;
        }
        let groups = blocks.chunks_exact(GROUP * 8 * K).zip(out.chunks_exact_mut(GROUP * 8 * N));
        for (g, (group, o)) in groups.enumerate() {
            // The same lines two groups on, if the run has them (see
            // `eight_blocks`).
            let ahead = blocks.get((g + 2) * GROUP * 8 * K..(g + 3) * GROUP * 8 * K);
            // SAFETY: the caller's key length; `group` is eight whole
            // blocks and `o` their 8·N output bytes.
            unsafe { eight_blocks::<N>(x, &high, group, ahead, o) };
        }
        high.zeroize();
    }
    let low32 = _mm512_set1_epi64(0xffff_ffff);
    let (blocks, out) = (&blocks[whole * GROUP * 8 * K..], &mut out[whole * GROUP * 8 * N..]);
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
                madd6(s, a, b, c, d);
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

/// Blocks hashed at once by [`eight_blocks`]: one per 64-bit lane.
const GROUP: usize = 8;

/// The N output words of eight consecutive blocks (`group`, 2 KiB), one
/// block per lane, stored at `out` (8·N bytes per block, in block order).
///
/// # Safety
/// AVX-512 F and IFMA present; `x` holds at least 31 + N words and `high`
/// their values shifted right by 52.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
unsafe fn eight_blocks<const N: usize>(
    x: &[u64],
    high: &[u64; K + 1],
    group: &[u8],
    ahead: Option<&[u8]>,
    out: &mut [u8],
) {
    debug_assert!(x.len() >= K + N - 1 && group.len() == GROUP * 8 * K && out.len() == GROUP * 8 * N);
    let low32 = _mm512_set1_epi64(0xffff_ffff);
    let mut acc = [[_mm512_setzero_si512(); 6]; N];
    for step in 0..K / 8 {
        // The lines of `ahead` (the group two on) that this step's loads
        // will read there: the eight blocks are read as eight interleaved
        // streams, which the hardware prefetchers follow worse than one (a
        // message not in cache: 1000 keys and 1 MiB messages cycled). Only
        // inside the run (`crate::prefetch::run_ahead` says why).
        if let Some(ahead) = ahead {
            for b in 0..GROUP {
                _mm_prefetch::<_MM_HINT_T0>(ahead[8 * K * b + 64 * step..].as_ptr().cast());
            }
        }
        // SAFETY: eight words of each block at 64·step < 256.
        let words = unsafe { transpose8(group.as_ptr().add(64 * step)) };
        for (j, m) in words.into_iter().enumerate() {
            let a = _mm512_and_si512(m, low32);
            let b = _mm512_srli_epi64::<32>(m);
            for (t, s) in acc.iter_mut().enumerate() {
                let i = 8 * step + j + t; // at most 31 + t: in both keys
                let c = _mm512_set1_epi64(x[i] as i64);
                let d = _mm512_set1_epi64(high[i] as i64);
                madd6(s, a, b, c, d);
            }
        }
    }
    // A loop, not `map`: a closure does not inherit the target features,
    // so `finish8` was called through memory, not inlined.
    let mut words = [_mm512_setzero_si512(); N];
    for (w, s) in words.iter_mut().zip(&acc) {
        *w = finish8(s[0], s[3], _mm512_add_epi64(s[1], s[2]), _mm512_add_epi64(s[4], s[5]));
    }
    if N == 1 {
        // SAFETY: `out` is 64 writable bytes (N = 1); an unaligned store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), words[0]) };
    } else {
        // Block b's two words side by side: lanes b of words[0], words[1].
        let (w0, w1) = (words[0], words[N - 1]);
        let first = _mm512_permutex2var_epi64(w0, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), w1);
        let second = _mm512_permutex2var_epi64(w0, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), w1);
        // SAFETY: `out` is 128 writable bytes (N = 2); unaligned stores.
        unsafe {
            _mm512_storeu_si512(out.as_mut_ptr().cast(), first);
            _mm512_storeu_si512(out.as_mut_ptr().add(64).cast(), second);
        }
    }
}

/// Words 0..8 of the eight 256-byte blocks at `p`, `p` + 256, … as eight
/// registers: register j holds word j of block b in lane b.
///
/// # Safety
/// AVX-512 F present; the eight blocks' first 64 bytes are readable.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn transpose8(p: *const u8) -> [__m512i; 8] {
    // Half-rows from memory: u[i] = words 0..4 of blocks {r, r + 4} for
    // the i-th of the rows r in ROWS, v[i] words 4..8. Rows go in the order
    // that leaves lane b with block b after the two shuffle stages below.
    const ROWS: [usize; 4] = [0, 1, 4, 5];
    let half = |block: usize, upper: usize| {
        // SAFETY: the caller's precondition: 32 bytes of a block's first 64.
        unsafe { _mm256_loadu_si256(p.add(8 * K * block + 32 * upper).cast()) }
    };
    let rows = |upper: usize| {
        ROWS.map(|r| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(r, upper)), half(r + 2, upper)))
    };
    let (u, v) = (rows(0), rows(1));
    // Words {0, 2} and {1, 3} of each pair of rows, per 128-bit lane.
    let stage = |q: [__m512i; 4]| {
        let (lo01, hi01) = (_mm512_unpacklo_epi64(q[0], q[1]), _mm512_unpackhi_epi64(q[0], q[1]));
        let (lo23, hi23) = (_mm512_unpacklo_epi64(q[2], q[3]), _mm512_unpackhi_epi64(q[2], q[3]));
        [
            _mm512_shuffle_i64x2::<0b10_00_10_00>(lo01, lo23),
            _mm512_shuffle_i64x2::<0b10_00_10_00>(hi01, hi23),
            _mm512_shuffle_i64x2::<0b11_01_11_01>(lo01, lo23),
            _mm512_shuffle_i64x2::<0b11_01_11_01>(hi01, hi23),
        ]
    };
    let (low, upper) = (stage(u), stage(v));
    [low[0], low[1], low[2], low[3], upper[0], upper[1], upper[2], upper[3]]
}

/// `((W0 + W32·2^32 + W52·2^52 + W84·2^84) mod 2^128) mod p64) mod 2^64` in
/// each lane, for lanes below 2^58 (the bounds in the header).
///
/// ```text
/// columns of 2^32:  c0 = W0, c1 = W32 + (W52 mod 2^12)·2^20,
///                   c2 = W52 / 2^12 + (W84 mod 2^12)·2^20, c3 = W84 / 2^12
///                   carried (each below 2^32), c3 mod 2^32: the value mod 2^128,
///                   lo = c0 + c1·2^32, hi = c2 + c3·2^32
/// fold 1:  R = lo − 13·hi + 13·p64 ≡ lo + hi·2^64     0 < R < 2^68
///          in columns d0 = c0 + 169 − 13·c2, d1 = c1 − 13·c3, d2 = 13
///          (signed), carried: R = L + d2·2^64, L < 2^64, d2 ≤ 15
/// fold 2:  S = L − 13·d2 ≡ R                          −196 < S < 2^64
/// final:   S if S ≥ 0 (then S < p64), else S + p64, whose low 64 bits
///          are S + 13 mod 2^64 whichever side of 2^64 it lands
/// ```
#[target_feature(enable = "avx512f")]
#[inline]
fn finish8(w0: __m512i, w32: __m512i, w52: __m512i, w84: __m512i) -> __m512i {
    let m32 = _mm512_set1_epi64(0xffff_ffff);
    let m12 = _mm512_set1_epi64(0xfff);
    let thirteen = _mm512_set1_epi64(13);
    let c0 = w0;
    let c1 = _mm512_add_epi64(w32, _mm512_slli_epi64::<20>(_mm512_and_si512(w52, m12)));
    let c2 = _mm512_add_epi64(_mm512_srli_epi64::<12>(w52), _mm512_slli_epi64::<20>(_mm512_and_si512(w84, m12)));
    let c3 = _mm512_srli_epi64::<12>(w84);
    let c1 = _mm512_add_epi64(c1, _mm512_srli_epi64::<32>(c0));
    let c2 = _mm512_add_epi64(c2, _mm512_srli_epi64::<32>(c1));
    let c3 = _mm512_add_epi64(c3, _mm512_srli_epi64::<32>(c2));
    let (c0, c1) = (_mm512_and_si512(c0, m32), _mm512_and_si512(c1, m32));
    // Fold 1, signed columns. `vpmuludq` reads the low 32 bits of c2 and
    // c3: their carried columns, and c3's mod 2^32 (the value mod 2^128),
    // with no mask.
    let d0 = _mm512_sub_epi64(_mm512_add_epi64(c0, _mm512_set1_epi64(169)), _mm512_mul_epu32(c2, thirteen));
    let d1 = _mm512_sub_epi64(c1, _mm512_mul_epu32(c3, thirteen));
    let d1 = _mm512_add_epi64(d1, _mm512_srai_epi64::<32>(d0));
    // (Only d2's low 32 bits are read below, so the arithmetic shift here
    // could be a logical one: the one mutant of this file that survives.)
    let d2 = _mm512_add_epi64(thirteen, _mm512_srai_epi64::<32>(d1));
    let l = _mm512_or_si512(_mm512_and_si512(d0, m32), _mm512_slli_epi64::<32>(d1));
    // Fold 2 and the final correction.
    let t = _mm512_mul_epu32(d2, thirteen);
    let negative = _mm512_cmplt_epu64_mask(l, t);
    let s = _mm512_sub_epi64(l, t);
    _mm512_mask_add_epi64(s, negative, s, thirteen)
}

/// The six multiply-adds of m·x (m = a + b·2^32, x = c + d·2^52; the
/// header's table) into the six accumulators, at weights 2^0, 2^52, 2^52,
/// 2^32, 2^84, 2^84.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn madd6(s: &mut [__m512i; 6], a: __m512i, b: __m512i, c: __m512i, d: __m512i) {
    s[0] = _mm512_madd52lo_epu64(s[0], a, c);
    s[1] = _mm512_madd52hi_epu64(s[1], a, c);
    s[2] = _mm512_madd52lo_epu64(s[2], a, d);
    s[3] = _mm512_madd52lo_epu64(s[3], b, c);
    s[4] = _mm512_madd52hi_epu64(s[4], b, c);
    s[5] = _mm512_madd52lo_epu64(s[5], b, d);
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
    /// Runs of 0 to 17 and 24 blocks (none, part of a group, one and two
    /// groups with and without a tail), of random words, all-ones words and
    /// all-ones keys (every lane accumulator at its largest), against the
    /// portable block functions block by block.
    #[test]
    fn groups_of_eight_equal_the_portable_block_functions() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1du64);
        for case in 0..12 {
            let ones = |c: usize, r: u64| if case % 3 == c { u64::MAX } else { r };
            let x: Vec<u64> = (0..K + 1).map(|_| ones(1, next())).collect();
            for count in (0..=17).chain([24]) {
                let m: Vec<[u64; K]> = (0..count).map(|_| core::array::from_fn(|_| ones(2, next()))).collect();
                let blocks: Vec<u8> = m.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
                let mut one = vec![0u8; 8 * count];
                compress64(token, Alg::Mmh64, &x[..K], &blocks, &mut one);
                let mut two = vec![0u8; 16 * count];
                compress64(token, Alg::Mmh64x2, &x, &blocks, &mut two);
                for (b, m) in m.iter().enumerate() {
                    let word = |o: &[u8], i: usize| u64::from_le_bytes(o[8 * i..8 * i + 8].try_into().unwrap());
                    assert_eq!(word(&one, b), mmh64(&x, m), "mmh64 case {case} block {b} of {count}");
                    let want = mmh64_toeplitz::<2>(&x, m);
                    assert_eq!(
                        [word(&two, 2 * b), word(&two, 2 * b + 1)],
                        want,
                        "mmh64x2 case {case} block {b} of {count}"
                    );
                }
            }
        }
    }

    /// [`finish8`] against `reduce128` of the exact sum mod 2^128: weights
    /// at their largest, random ones, and sums that land on and around 0,
    /// 13, p64, 2^64, k·p64 and 2^128 (written both as their plain limbs and
    /// with the top limbs at their largest).
    #[test]
    fn finish8_equals_reduce128() {
        let Some(_) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let top = (1u64 << 58) - 1;
        let p = (1u128 << 64) + 13;
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut cases: Vec<[u64; 4]> = vec![[top; 4], [0; 4], [top, 0, 0, top], [0, top, top, 0]];
        let limbs = |v: u128| {
            [v as u64 & 0xffff_ffff, (v >> 32) as u64 & 0xf_ffff, (v >> 52) as u64 & 0xffff_ffff, (v >> 84) as u64]
        };
        let mut targets = vec![0u128, 1, 12, 13, 14, u128::MAX, u128::MAX - 13, 1 << 127];
        for k in [1u128, 2, 13, 14, 1 << 60, u128::MAX / p] {
            for delta in [-2i128, -1, 0, 1, 2, -13, 13] {
                targets.push((k * p).wrapping_add(delta as u128));
            }
        }
        for e in [(1u128 << 64) - 1, 1 << 64, (1 << 64) + 12, (1 << 64) + 14, (1 << 96) - 1] {
            targets.push(e);
        }
        for v in targets {
            cases.push(limbs(v));
            // The same value mod 2^128 with the upper weights raised: W84
            // adds 2^44 (2^128, nothing), W52 gives 2^20 back to W32.
            let [a, b, c, d] = limbs(v);
            if c >= 1 {
                cases.push([a, b + (1 << 20), c - 1, d + (1 << 44)]);
            }
        }
        for _ in 0..2000 {
            cases.push(core::array::from_fn(|_| next() & top));
        }
        for chunk in cases.chunks(GROUP) {
            let mut lanes = [[0u64; GROUP]; 4];
            for (l, c) in chunk.iter().enumerate() {
                for w in 0..4 {
                    lanes[w][l] = c[w];
                }
            }
            // SAFETY: AVX-512 F was detected above.
            let got = unsafe { finish8_test(lanes) };
            for (l, c) in chunk.iter().enumerate() {
                let v = u128::from(c[0])
                    .wrapping_add(u128::from(c[1]) << 32)
                    .wrapping_add(u128::from(c[2]) << 52)
                    .wrapping_add(u128::from(c[3]) << 84);
                assert_eq!(got[l], reduce128::<64, 13>(v) as u64, "{c:x?}");
            }
        }
    }

    /// # Safety
    /// AVX-512 F present.
    #[target_feature(enable = "avx512f")]
    unsafe fn finish8_test(w: [[u64; GROUP]; 4]) -> [u64; GROUP] {
        // SAFETY: each row is 64 readable bytes; unaligned loads and store.
        unsafe {
            let v = w.map(|r| _mm512_loadu_si512(r.as_ptr().cast()));
            let mut out = [0u64; GROUP];
            _mm512_storeu_si512(out.as_mut_ptr().cast(), finish8(v[0], v[1], v[2], v[3]));
            out
        }
    }
}
