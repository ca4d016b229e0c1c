//! The 3×3-limb product of two numbers in radix-2^44 limbs, eight lanes at
//! a time with AVX-512 IFMA, shared by the Poly1305 and CWC-HASH leaves.
//!
//! Each leaf has its own modulus: it passes `s` = its wrap factor times
//! limbs 1 and 2 of the multiplier (20·k for 2^130 − 5, where 2^132 ≡ 20;
//! 32·k for 2^127 − 1, where 2^132 ≡ 32) and recombines the low and high
//! halves returned here with its own weight for the top high half. The
//! bounds are each leaf's (stated in its file); nothing here branches or
//! indexes on data.

use core::arch::x86_64::*;

/// Three limb vectors of eight lanes.
pub(crate) type Limbs = [__m512i; 3];

/// The low 52 bits (`madd52lo`) and bits 52–103 (`madd52hi`) of the three
/// three-term sums
///
/// ```text
/// d0 = a0·k0 + a1·s2 + a2·s1      d1 = a0·k1 + a1·k0 + a2·s2      d2 = a0·k2 + a1·k1 + a2·k0
/// ```
///
/// as `(low, high)`; every operand's low 52 bits are what the instructions read.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(crate) fn products(a: &Limbs, k: &Limbs, s: &[__m512i; 2]) -> (Limbs, Limbs) {
    let z = _mm512_setzero_si512();
    let [a0, a1, a2] = *a;
    let [k0, k1, k2] = *k;
    let [s1, s2] = *s;
    let lo = |x: [(__m512i, __m512i); 3]| {
        let t = _mm512_madd52lo_epu64(z, x[0].0, x[0].1);
        let t = _mm512_madd52lo_epu64(t, x[1].0, x[1].1);
        _mm512_madd52lo_epu64(t, x[2].0, x[2].1)
    };
    let hi = |x: [(__m512i, __m512i); 3]| {
        let t = _mm512_madd52hi_epu64(z, x[0].0, x[0].1);
        let t = _mm512_madd52hi_epu64(t, x[1].0, x[1].1);
        _mm512_madd52hi_epu64(t, x[2].0, x[2].1)
    };
    let p0 = [(a0, k0), (a1, s2), (a2, s1)];
    let p1 = [(a0, k1), (a1, k0), (a2, s2)];
    let p2 = [(a0, k2), (a1, k1), (a2, k0)];
    ([lo(p0), lo(p1), lo(p2)], [hi(p0), hi(p1), hi(p2)])
}

/// One lazy carry step per lane: limb 0 → 1 → 2, then limb 2's bits from
/// bit `TOP` up (the modulus's 2^(88+TOP)) re-enter limb 0 times 5 (for
/// 2^130 − 5, `TOP` = 42) or times 1 (for 2^127 − 1, `TOP` = 39), then
/// 0 → 1 once more. Each leaf states why its sums stay in range.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(crate) fn carry<const TOP: u32, const TIMES5: bool>(t: Limbs) -> Limbs {
    let [mut t0, mut t1, mut t2] = t;
    let m44 = _mm512_set1_epi64((1 << 44) - 1);
    t1 = _mm512_add_epi64(t1, _mm512_srli_epi64::<44>(t0));
    t0 = _mm512_and_si512(t0, m44);
    t2 = _mm512_add_epi64(t2, _mm512_srli_epi64::<44>(t1));
    t1 = _mm512_and_si512(t1, m44);
    let c = _mm512_srli_epi64::<TOP>(t2);
    t2 = _mm512_and_si512(t2, _mm512_set1_epi64((1 << TOP) - 1));
    let c = if TIMES5 { _mm512_add_epi64(c, _mm512_slli_epi64::<2>(c)) } else { c };
    t0 = _mm512_add_epi64(t0, c);
    t1 = _mm512_add_epi64(t1, _mm512_srli_epi64::<44>(t0));
    t0 = _mm512_and_si512(t0, m44);
    [t0, t1, t2]
}
