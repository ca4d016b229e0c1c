//! `vpmuludq` as one instruction (register or memory operand), for the AVX2 leaves (Poly1305, MMH,
//! CWC-HASH), and the 5×5-limb radix-2^26 product Poly1305's and CWC-HASH's
//! AVX2 leaves share.
//!
//! Written as inline assembly rather than `_mm256_mul_epu32`: LLVM rewrites
//! that intrinsic's masked form into a generic 64-bit vector multiply when it
//! cannot prove the high halves are zero, and AVX2 has no such instruction,
//! so it emitted three `vpmuludq` plus shifts per product (seen in the
//! disassembly of the Poly1305 leaf; 1.5× slower).

use core::arch::x86_64::*;

/// The low 32 bits of each 64-bit lane of `a` and `b`, multiplied into 64.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn mul32(a: __m256i, b: __m256i) -> __m256i {
    let r;
    // SAFETY: a register-only instruction (no memory, no stack, no flags);
    // `#[target_feature(enable = "avx2")]` makes this callable only from
    // code that is itself entered with an `Avx2` token.
    unsafe {
        core::arch::asm!("vpmuludq {r}, {a}, {b}", r = lateout(ymm_reg) r, a = in(ymm_reg) a, b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// [`mul32`] with `b` the 32 bytes at byte offset `OFF` in `*base`, the
/// load folded into the multiply as `[base + OFF]` (for a leaf whose
/// multipliers outnumber the registers). One base register serves a whole
/// table: a pointer operand per multiply made LLVM compute each address
/// with its own `lea`, and those compete with the vector operations for
/// the same ports (CWC-HASH on AVX2: 6 `lea`s per 48 bytes, ~6 % of its
/// time on an Intel Xeon capped to AVX2).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn mul32_at<const OFF: usize, T>(a: __m256i, base: &T) -> __m256i {
    const { assert!(OFF + 32 <= size_of::<T>()) };
    let r;
    // SAFETY: reads the 32 bytes at `OFF` in `*base` (a live, readable
    // reference; the const assertion keeps them inside it; VEX-encoded
    // `vpmuludq` needs no alignment) and touches nothing else (no stack, no
    // flags); `#[target_feature(enable = "avx2")]` makes this callable only
    // from code that is itself entered with an `Avx2` token.
    unsafe {
        core::arch::asm!("vpmuludq {r}, {a}, ymmword ptr [{b} + {off}]", r = lateout(ymm_reg) r, a = in(ymm_reg) a,
            b = in(reg) core::ptr::from_ref(base), off = const OFF, options(pure, readonly, nostack, preserves_flags));
    }
    r
}

/// Five limb vectors of four lanes (radix 2^26).
pub(crate) type Limbs26 = [__m256i; 5];

/// The five five-term sums of a·k modulo a prime 2^130 − c, per lane,
/// unreduced:
///
/// ```text
/// d0 = a0k0 + a1s4 + a2s3 + a3s2 + a4s1     d3 = a0k3 + a1k2 + a2k1 + a3k0 + a4s4
/// d1 = a0k1 + a1k0 + a2s4 + a3s3 + a4s2     d4 = a0k4 + a1k3 + a2k2 + a3k1 + a4k0
/// d2 = a0k2 + a1k1 + a2k0 + a3s4 + a4s3
/// ```
///
/// where `s` holds the wrap factor times k_1 … k_4 (5·k for 2^130 − 5; 8·k
/// for 2^127 − 1, where 2^130 ≡ 8). Each leaf states its operand bounds
/// (every limb below 2^32, the sums below 2^64) and carries in its own way.
#[target_feature(enable = "avx2")]
pub(crate) fn products26(a: &Limbs26, k: &Limbs26, s: &[__m256i; 4]) -> Limbs26 {
    let m = |x, y| mul32(x, y);
    let add5 = |t: [__m256i; 5]| {
        _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(t[0], t[1]), _mm256_add_epi64(t[2], t[3])), t[4])
    };
    let [a0, a1, a2, a3, a4] = *a;
    let [k0, k1, k2, k3, k4] = *k;
    let [s1, s2, s3, s4] = *s;
    [
        add5([m(a0, k0), m(a1, s4), m(a2, s3), m(a3, s2), m(a4, s1)]),
        add5([m(a0, k1), m(a1, k0), m(a2, s4), m(a3, s3), m(a4, s2)]),
        add5([m(a0, k2), m(a1, k1), m(a2, k0), m(a3, s4), m(a4, s3)]),
        add5([m(a0, k3), m(a1, k2), m(a2, k1), m(a3, k0), m(a4, s4)]),
        add5([m(a0, k4), m(a1, k3), m(a2, k2), m(a3, k1), m(a4, k0)]),
    ]
}

/// `x` in every 64-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn splat(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

/// A multiplier for [`products26`]: `k` in every lane, and its wrap
/// multiples `WRAP`·k_1 … `WRAP`·k_4 (5 for 2^130 − 5, 8 for 2^127 − 1).
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn broadcast<const WRAP: u64>(k: &[u64; 5]) -> (Limbs26, [__m256i; 4]) {
    (core::array::from_fn(|i| splat(k[i])), core::array::from_fn(|i| splat(WRAP * k[i + 1])))
}

/// One lazy carry step per lane, two interleaved chains (0 → 1 → 2 → 3
/// and 3 → 4 → 0 → 1), limb 4's bits from bit `TOP` up (the modulus's
/// 2^(104+TOP)) re-entering limb 0 times 5 (2^130 − 5: `TOP` = 26) or
/// times 1 (2^127 − 1: `TOP` = 23). Each leaf states why its sums stay in
/// range.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn carry26<const TOP: i32, const TIMES5: bool>(d: Limbs26) -> Limbs26 {
    let m = splat((1 << 26) - 1);
    let [mut d0, mut d1, mut d2, mut d3, mut d4] = d;
    let mut c = _mm256_srli_epi64::<26>(d0);
    d0 = _mm256_and_si256(d0, m);
    d1 = _mm256_add_epi64(d1, c);
    c = _mm256_srli_epi64::<26>(d3);
    d3 = _mm256_and_si256(d3, m);
    d4 = _mm256_add_epi64(d4, c);
    c = _mm256_srli_epi64::<26>(d1);
    d1 = _mm256_and_si256(d1, m);
    d2 = _mm256_add_epi64(d2, c);
    c = _mm256_srli_epi64::<TOP>(d4);
    d4 = _mm256_and_si256(d4, splat((1 << TOP) - 1));
    d0 = _mm256_add_epi64(d0, if TIMES5 { _mm256_add_epi64(c, _mm256_slli_epi64::<2>(c)) } else { c });
    c = _mm256_srli_epi64::<26>(d2);
    d2 = _mm256_and_si256(d2, m);
    d3 = _mm256_add_epi64(d3, c);
    c = _mm256_srli_epi64::<26>(d0);
    d0 = _mm256_and_si256(d0, m);
    d1 = _mm256_add_epi64(d1, c);
    c = _mm256_srli_epi64::<26>(d3);
    d3 = _mm256_and_si256(d3, m);
    d4 = _mm256_add_epi64(d4, c);
    [d0, d1, d2, d3, d4]
}

/// The sum of a vector's four 64-bit lanes.
#[target_feature(enable = "avx2")]
pub(crate) fn hsum(v: __m256i) -> u64 {
    let x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_cvtsi128_si64(x) as u64).wrapping_add(_mm_extract_epi64::<1>(x) as u64)
}
