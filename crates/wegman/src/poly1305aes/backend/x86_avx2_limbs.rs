//! Poly1305's numbers in radix-2^26 limbs (p = 2^130 − 5), for the AVX2
//! leaves (`x86_avx2.rs`, `x86_avx2_words.rs`): the scalar conversions and
//! products that build their powers of r, and the lanes' carry step.
//!
//! Constant time: straight-line arithmetic, no branch on a value.

use crate::avx2_mul::{Limbs26 as Limbs, carry26};

pub(super) const M26: u64 = (1 << 26) - 1;

/// 26-bit limbs of a number below 2^130 given as 64-bit limbs (h2 < 2^2 + 1).
pub(super) fn limbs26(lo: u64, hi: u64, top: u64) -> [u64; 5] {
    [lo & M26, (lo >> 26) & M26, ((lo >> 52) | (hi << 12)) & M26, (hi >> 14) & M26, (hi >> 40) | (top << 24)]
}

/// r^1 … r^8 in 26-bit limbs, for r = r0 + 2^64·r1 (clamped: limbs <=
/// 2^26 after each product's carry).
pub(super) fn powers_of_r(r0: u64, r1: u64) -> [[u64; 5]; 8] {
    let r = limbs26(r0, r1, 0);
    let r2 = mul26(&r, &r);
    let r3 = mul26(&r2, &r);
    let r4 = mul26(&r2, &r2);
    let r5 = mul26(&r4, &r);
    let r6 = mul26(&r4, &r2);
    let r7 = mul26(&r4, &r3);
    let r8 = mul26(&r4, &r4);
    [r, r2, r3, r4, r5, r6, r7, r8]
}

/// a·b mod 2^130-5 in 26-bit limbs (inputs < 2^26 + 1 per limb), carried to
/// limbs < 2^26 except limb 1 <= 2^26.
pub(super) fn mul26(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    let s = |i: usize| 5 * b[i];
    let d = [
        a[0] * b[0] + a[1] * s(4) + a[2] * s(3) + a[3] * s(2) + a[4] * s(1),
        a[0] * b[1] + a[1] * b[0] + a[2] * s(4) + a[3] * s(3) + a[4] * s(2),
        a[0] * b[2] + a[1] * b[1] + a[2] * b[0] + a[3] * s(4) + a[4] * s(3),
        a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0] + a[4] * s(4),
        a[0] * b[4] + a[1] * b[3] + a[2] * b[2] + a[3] * b[1] + a[4] * b[0],
    ];
    carry_scalar(d)
}

/// Full carry chain 0→1→2→3→4, fold 4 into 0 times 5, then 0→1: limbs
/// < 2^26 except limb 1 (< 2^26 + 2^12 for sums below 2^61; <= 2^26 for
/// the products of two carried numbers, below 2^56).
pub(super) fn carry_scalar(mut d: [u64; 5]) -> [u64; 5] {
    for i in 0..4 {
        d[i + 1] += d[i] >> 26;
        d[i] &= M26;
    }
    let c = d[4] >> 26;
    d[4] &= M26;
    d[0] += 5 * c;
    d[1] += d[0] >> 26;
    d[0] &= M26;
    d
}

/// The 130-bit value of carried 26-bit limbs (each < 2^60 before carrying)
/// as the portable state's `[h0, h1, h2]`, h2 <= 4.
pub(super) fn to_radix64(sums: [u64; 5]) -> [u64; 3] {
    let d = carry_scalar(sums);
    let low = u128::from(d[0]) + (u128::from(d[1]) << 26) + (u128::from(d[2]) << 52) + (u128::from(d[3]) << 78);
    let (v, carry) = low.overflowing_add(u128::from(d[4] & ((1 << 24) - 1)) << 104);
    [v as u64, (v >> 64) as u64, (d[4] >> 24) + u64::from(carry)]
}

/// One lazy carry step per lane modulo 2^130 − 5 (see the leaves' bounds).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn carry(d: Limbs) -> Limbs {
    carry26::<26, true>(d)
}
