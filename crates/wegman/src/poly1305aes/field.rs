//! Whole values mod p = 2^130 − 5, portable and scalar: what combines the
//! polynomials of separately computed chunks (`parallel.rs`) and updates a
//! kept polynomial after an edit (`incremental.rs`), and what the IFMA
//! backend uses for r^2.
//!
//! Radix 2^44: a value is `[l0, l1, l2]` = l0 + l1·2^44 + l2·2^88, carried
//! (not fully reduced) after every operation: l0 < 2^44, l1 < 2^44 + 2^10,
//! l2 < 2^42 out of [`carry44`]. Inputs up to l2 < 2^43 (what [`limbs44`]
//! makes of an accumulator below 5·2^128) keep every sum in `mul44` below
//! 2^93. No branch or index depends on a value; the exponent of [`pow44`]
//! is a public block count.

pub(crate) const M44: u64 = (1 << 44) - 1;
pub(crate) const M42: u64 = (1 << 42) - 1;

/// p = 2^130 − 5 in 64-bit limbs.
const P64: [u64; 3] = [0xffff_ffff_ffff_fffb, 0xffff_ffff_ffff_ffff, 3];

/// 44-bit limbs of h = lo + hi·2^64 + top·2^128 (top <= 4).
#[inline(always)]
pub(crate) fn limbs44(lo: u64, hi: u64, top: u64) -> [u64; 3] {
    [lo & M44, ((lo >> 44) | (hi << 20)) & M44, (hi >> 24) | (top << 40)]
}

/// Carry 0→1→2, fold limb 2's bits from 2^130 up into limb 0 times 5, then
/// 0→1 (sums below 2^93 in; limbs < 2^44, 2^44 + 2^10, 2^42 out).
#[inline(always)]
pub(crate) fn carry44(mut d: [u128; 3]) -> [u64; 3] {
    d[1] += d[0] >> 44;
    d[0] &= u128::from(M44);
    d[2] += d[1] >> 44;
    d[1] &= u128::from(M44);
    d[0] += 5 * (d[2] >> 42);
    d[2] &= u128::from(M42);
    d[1] += d[0] >> 44;
    d[0] &= u128::from(M44);
    [d[0] as u64, d[1] as u64, d[2] as u64]
}

/// a·b mod 2^130 − 5 (2^132 ≡ 20 folds the high products).
#[inline]
pub(crate) fn mul44(a: &[u64; 3], b: &[u64; 3]) -> [u64; 3] {
    let m = |x: u64, y: u64| u128::from(x) * u128::from(y);
    let (s1, s2) = (20 * b[1], 20 * b[2]);
    carry44([
        m(a[0], b[0]) + m(a[1], s2) + m(a[2], s1),
        m(a[0], b[1]) + m(a[1], b[0]) + m(a[2], s2),
        m(a[0], b[2]) + m(a[1], b[1]) + m(a[2], b[0]),
    ])
}

/// a + b mod 2^130 − 5.
#[inline]
pub(crate) fn add44(a: &[u64; 3], b: &[u64; 3]) -> [u64; 3] {
    carry44([0, 1, 2].map(|i| u128::from(a[i]) + u128::from(b[i])))
}

/// r^k by square-and-multiply over the bits of the public `k` (r^0 = 1).
pub(crate) fn pow44(r: &[u64; 3], k: u64) -> [u64; 3] {
    let mut acc = [1, 0, 0];
    for bit in (0..u64::BITS - k.leading_zeros()).rev() {
        acc = mul44(&acc, &acc);
        if (k >> bit) & 1 == 1 {
            acc = mul44(&acc, r);
        }
    }
    acc
}

/// The same value as 64-bit limbs `[h0, h1, h2]` with h2 <= 4 (below
/// 5·2^128: what `soft::State` and `soft::finalize` take).
#[inline]
pub(crate) fn to_h64(l: &[u64; 3]) -> [u64; 3] {
    let l = carry44(l.map(u128::from)); // value < 2^130 + 2^89
    let mut t = u128::from(l[0]) + (u128::from(l[1]) << 44);
    let h0 = t as u64;
    t = (t >> 64) + (u128::from(l[2]) << 24);
    [h0, t as u64, (t >> 64) as u64]
}

/// The 44-bit limbs of an accumulator `[h0, h1, h2]` (h2 <= 4).
#[inline]
pub(crate) fn from_h64(h: &[u64; 3]) -> [u64; 3] {
    limbs44(h[0], h[1], h[2])
}

/// r from its 16 little-endian bytes.
pub(crate) fn r44(r: &[u8; 16]) -> [u64; 3] {
    let (lo, hi) = le128(r);
    limbs44(lo, hi, 0)
}

/// The same value fully reduced: 64-bit limbs of the one representative
/// below p (`[h0, h1, h2]`, h2 <= 3), for comparing values and storing them.
#[inline]
pub(crate) fn canonical(l: &[u64; 3]) -> [u64; 3] {
    let h = to_h64(l);
    super::backend::reduce(h[0], h[1], h[2])
}

/// a − b mod 2^130 − 5: a + (p − b), b fully reduced first (no branch).
#[inline]
pub(crate) fn sub44(a: &[u64; 3], b: &[u64; 3]) -> [u64; 3] {
    let c = canonical(b);
    let (d0, borrow0) = P64[0].overflowing_sub(c[0]);
    // P64[1] is 2^64 − 1: its own subtraction never borrows.
    let (d1, borrow1) = (P64[1] - c[1]).overflowing_sub(u64::from(borrow0));
    let d2 = P64[2] - c[2] - u64::from(borrow1);
    add44(a, &limbs44(d0, d1, d2))
}

/// Whether a ≡ b mod p, without a branch on either (the verdict itself is
/// the caller's to act on).
#[inline]
pub(crate) fn eq44(a: &[u64; 3], b: &[u64; 3]) -> bool {
    use subtle::ConstantTimeEq;
    let (x, y) = (canonical(a), canonical(b));
    let diff = (x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]);
    bool::from(diff.ct_eq(&0))
}

#[inline(always)]
fn le128(b: &[u8; 16]) -> (u64, u64) {
    let v = u128::from_le_bytes(*b);
    (v as u64, (v >> 64) as u64)
}

/// The 130-bit value of 44-bit limb sums (each < 2^61) as the portable
/// state's `[h0, h1, h2]`, h2 <= 4.
pub(crate) fn to_radix64(sums: [u64; 3]) -> [u64; 3] {
    let d = carry44(sums.map(u128::from));
    let low = u128::from(d[0]) + (u128::from(d[1]) << 44);
    let (v, carry) = low.overflowing_add(u128::from(d[2] & ((1 << 40) - 1)) << 88);
    [v as u64, (v >> 64) as u64, (d[2] >> 40) + u64::from(carry)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use wegman_ref::poly1305aes::p;

    type Big = num_bigint::BigUint;

    fn big(l: &[u64; 3]) -> Big {
        (Big::from(l[2]) << 88u32) + (Big::from(l[1]) << 44u32) + Big::from(l[0])
    }

    fn big64(h: &[u64; 3]) -> Big {
        (Big::from(h[2]) << 128u32) + (Big::from(h[1]) << 64u32) + Big::from(h[0])
    }

    /// Values at the edges: 0, 1, p − 1, p, p + 4, 2^130 − 1, and the
    /// largest limbs each operation's bounds allow.
    fn edges() -> Vec<[u64; 3]> {
        let mut v = vec![[0, 0, 0], [1, 0, 0], [M44, M44, M42], [M44, M44 + (1 << 10), (1 << 43) - 1]];
        for h in [P64, [P64[0] - 1, P64[1], 3], [P64[0] + 4, P64[1], 3], [u64::MAX, u64::MAX, 4]] {
            v.push(from_h64(&h));
        }
        v
    }

    fn randoms(n: usize) -> Vec<[u64; 3]> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x1305);
        (0..n).map(|_| from_h64(&[rng.random(), rng.random(), rng.random_range(0..=4)])).collect()
    }

    #[test]
    fn mul_add_and_conversions_match_big_integers() {
        let p = p();
        let vals: Vec<_> = edges().into_iter().chain(randoms(200)).collect();
        for a in &vals {
            let h = to_h64(a);
            assert!(h[2] <= 4, "{a:?}");
            assert_eq!(big64(&h) % &p, big(a) % &p);
            for b in vals.iter().step_by(3) {
                let m = mul44(a, b);
                assert!(m[0] <= M44 && m[1] < (1 << 44) + (1 << 10) && m[2] <= M42, "{a:?} {b:?}");
                assert_eq!(big(&m) % &p, big(a) * big(b) % &p);
                assert_eq!(big(&add44(a, b)) % &p, (big(a) + big(b)) % &p);
            }
        }
    }

    #[test]
    fn full_reduction_matches_big_integers() {
        let p = p();
        for h in [[0, 0, 0], P64, [P64[0] - 1, P64[1], 3], [P64[0] + 4, P64[1], 3], [u64::MAX, u64::MAX, 4], [7, 9, 4]]
        {
            let r = crate::poly1305aes::backend::reduce(h[0], h[1], h[2]);
            assert_eq!(big64(&r), big64(&h) % &p, "{h:?}");
        }
        for a in randoms(300) {
            let h = to_h64(&a);
            let r = crate::poly1305aes::backend::reduce(h[0], h[1], h[2]);
            assert_eq!(big64(&r), big64(&h) % &p);
        }
    }

    #[test]
    fn powers_match_big_integers() {
        let p = p();
        let r = r44(&[0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f]);
        for k in [0u64, 1, 2, 3, 7, 8, 63, 64, 65, 1000, (1 << 26) + 3, u64::MAX] {
            assert_eq!(big(&pow44(&r, k)) % &p, big(&r).modpow(&Big::from(k), &p), "k = {k}");
        }
    }

    #[test]
    fn subtraction_and_equality_match_big_integers() {
        let p = p();
        let vals: Vec<_> = edges().into_iter().chain(randoms(100)).collect();
        for a in &vals {
            let c = canonical(a);
            assert!(big64(&c) < p && c[2] <= 3, "{a:?}");
            assert_eq!(big64(&c), big(a) % &p);
            for b in vals.iter().step_by(2) {
                let d = sub44(a, b);
                assert!(d[0] <= M44 && d[1] < (1 << 44) + (1 << 10) && d[2] <= M42, "{a:?} {b:?}");
                assert_eq!(big(&d) % &p, (big(a) % &p + &p - big(b) % &p) % &p, "{a:?} {b:?}");
                assert_eq!(eq44(a, b), big(a) % &p == big(b) % &p, "{a:?} {b:?}");
                assert!(eq44(&add44(&d, b), a));
            }
        }
        // p and 0 are one value; p + 4 and 4 too.
        assert!(eq44(&from_h64(&P64), &[0, 0, 0]));
        assert!(eq44(&from_h64(&[P64[0] + 4, P64[1], 3]), &[4, 0, 0]));
        assert!(!eq44(&[1, 0, 0], &[0, 0, 0]) && !eq44(&[0, 0, 1], &[0, 0, 0]) && !eq44(&[0, 1, 0], &[0, 0, 0]));
        // Values that differ by the same bits in two 64-bit limbs (an
        // equality that XORed the limbs' differences would call them equal).
        for h in [[1, 1, 0], [0, 1, 1], [1, 0, 1], [3, 3, 3]] {
            assert!(!eq44(&from_h64(&h), &[0, 0, 0]), "{h:?}");
        }
        // Subtrahends whose low 128 bits are 2^128 − 4 … 2^128 − 1 (the only
        // ones whose middle limb borrows), at each top limb.
        for top in 0..=2 {
            for low in 0..4 {
                let b = from_h64(&[u64::MAX - low, u64::MAX, top]);
                for a in [[0, 0, 0], [7, 0, 0], from_h64(&[1, 2, 3])] {
                    assert_eq!(big(&sub44(&a, &b)) % &p, (big(&a) % &p + &p - big(&b) % &p) % &p, "{top} {low}");
                }
            }
        }
    }
}
