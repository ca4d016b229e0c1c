//! Portable CWC-HASH arithmetic modulo p = 2^127 - 1, in `u128` halves built
//! from 64×64→128-bit products. No `unsafe`, no secret-dependent branches.
//!
//! Representation: a field element is a `u128` holding a value `<= 2^127`
//! ("partially reduced": 2^127 - 1 and 2^127 both stand for small residues);
//! [`canonical`] maps it to `0 <= x < p`.
//!
//! The hash is Horner's rule `R = (R + Y_i) * Kh` over 96-bit coefficients
//! `Y_i`; with the precomputed powers `Kh^1..Kh^4` (paper §6) four
//! coefficients cost four independent products summed before one reduction:
//!
//! ```text
//! R' = (R + Y_1) Kh^4 + Y_2 Kh^3 + Y_3 Kh^2 + Y_4 Kh
//! ```

//! Every addition and multiplication below is `wrapping_*`: the bounds stated
//! beside each make it exact, and plain operators would put overflow-check
//! branches on secret values into debug builds (a `dev`-profile dependent
//! compiles this crate with overflow checks on).

const M127: u128 = (1 << 127) - 1;

/// Full 128×128-bit product as (low, high) halves of a 256-bit integer.
/// Any inputs; no overflow is lost.
#[inline(always)]
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    // 64×64-bit products: each < 2^128.
    let p00 = a0.wrapping_mul(b0);
    let p01 = a0.wrapping_mul(b1);
    let p10 = a1.wrapping_mul(b0);
    let p11 = a1.wrapping_mul(b1);
    let (mid, mid_carry) = p01.overflowing_add(p10); // mid + mid_carry*2^128
    let (lo, c) = p00.overflowing_add(mid << 64);
    // The high half of a 256-bit product: the sum is < 2^128.
    let hi = p11.wrapping_add(mid >> 64).wrapping_add((mid_carry as u128) << 64).wrapping_add(c as u128);
    (lo, hi)
}

/// 256-bit addition; the callers' bounds keep the sum below 2^256.
#[inline(always)]
fn add_wide((lo, hi): (u128, u128), (lo2, hi2): (u128, u128)) -> (u128, u128) {
    let (l, c) = lo.overflowing_add(lo2);
    (l, hi.wrapping_add(hi2).wrapping_add(c as u128))
}

/// x mod p for x < 2^128, as a value <= 2^127: 2^127 ≡ 1.
#[inline(always)]
fn fold(x: u128) -> u128 {
    (x & M127).wrapping_add(x >> 127) // <= (2^127 - 1) + 1
}

/// (lo + hi*2^128) mod p, partially reduced to <= 2^127.
/// Pre: hi < 2^127 (the value is below 2^255).
#[inline(always)]
fn reduce_wide((lo, hi): (u128, u128)) -> u128 {
    // 2^128 ≡ 2, so hi*2^128 ≡ 2*hi; 2*hi < 2^128 fits.
    let s1 = fold(fold(lo)); // <= 2^127 - 1 (fold(x) <= 2^127, and fold(2^127) = 1)
    let s2 = fold(fold(hi << 1)); // <= 2^127 - 1
    fold(s1.wrapping_add(s2)) // s1 + s2 <= 2^128 - 2; result <= 2^127
}

/// a * b mod p, partially reduced. Pre: a < 2^128, b <= 2^127.
#[inline(always)]
pub(crate) fn mul(a: u128, b: u128) -> u128 {
    reduce_wide(mul_wide(a, b)) // a*b < 2^255
}

/// The unique representative in 0..p. Pre: x < 2^128.
#[inline(always)]
pub(crate) fn canonical(x: u128) -> u128 {
    let x = fold(x); // <= 2^127
    // x >= p  <=>  x + 1 >= 2^127; then x - p = (x + 1) - 2^127.
    let t = x.wrapping_add(1); // <= 2^127 + 1
    let mask = crate::ct::opaque((t >> 127).wrapping_neg());
    (x & !mask) | (t & M127 & mask)
}

/// x mod p for x < 2^128, as a value <= 2^127 (for the SIMD backends'
/// final sums).
#[inline(always)]
pub(crate) fn fold_partial(x: u128) -> u128 {
    fold(x)
}

/// A 12-byte chunk as the 96-bit big-endian coefficient Y_i.
#[inline(always)]
fn coef(chunk: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(&chunk[..12]);
    u128::from_be_bytes(b)
}

/// Hash key powers Kh^1..Kh^4, each canonical (< 2^127 - 1).
#[derive(Clone)]
pub(crate) struct Powers([u128; 4]);

impl Powers {
    pub(crate) fn new(kh: u128) -> Self {
        let k1 = canonical(kh);
        let k2 = canonical(mul(k1, k1));
        // Kh^3 and Kh^4 both from Kh^2: two products at once, not a chain.
        let k3 = canonical(mul(k2, k1));
        let k4 = canonical(mul(k2, k2));
        Powers([k1, k2, k3, k4])
    }

    /// Kh^1 … Kh^4.
    pub(crate) fn all(&self) -> [u128; 4] {
        self.0
    }

    /// R after the 12-byte big-endian chunks of `data` (a multiple of 12
    /// bytes), four at a time where possible. Pre/post: R <= 2^127.
    #[inline]
    pub(crate) fn absorb(&self, mut r: u128, data: &[u8]) -> u128 {
        debug_assert!(data.len().is_multiple_of(12));
        let mut quads = data.chunks_exact(48);
        for q in &mut quads {
            r = self.absorb4(r, [coef(&q[0..]), coef(&q[12..]), coef(&q[24..]), coef(&q[36..])]);
        }
        for c in quads.remainder().chunks_exact(12) {
            r = self.absorb1(r, coef(c));
        }
        r
    }

    /// R = (R + y) * Kh for one coefficient y < 2^96. Pre/post: R <= 2^127.
    #[inline(always)]
    pub(crate) fn absorb1(&self, r: u128, y: u128) -> u128 {
        mul(r.wrapping_add(y), self.0[0]) // r + y < 2^127 + 2^96 < 2^128
    }

    /// Four coefficients at once with independent products.
    /// Pre/post: R <= 2^127; every y < 2^96.
    #[inline(always)]
    pub(crate) fn absorb4(&self, r: u128, y: [u128; 4]) -> u128 {
        let [k1, k2, k3, k4] = self.0;
        // (R + y0) Kh^4 < 2^128 * 2^127 = 2^255 ... tighter: < (2^127 + 2^96) 2^127 < 2^254.01;
        // each y_i Kh^j < 2^223; the sum < 2^254.02 < 2^255, so hi < 2^127 as reduce_wide needs.
        let mut acc = mul_wide(r.wrapping_add(y[0]), k4);
        acc = add_wide(acc, mul_wide(y[1], k3));
        acc = add_wide(acc, mul_wide(y[2], k2));
        acc = add_wide(acc, mul_wide(y[3], k1));
        reduce_wide(acc)
    }

    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.0.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow modular multiplication by doubling (independent of mul_wide).
    fn slow_mul(a: u128, b: u128) -> u128 {
        let p = M127;
        let (mut a, mut b) = (a % p, b % p);
        let mut r = 0u128;
        while b > 0 {
            if b & 1 == 1 {
                r = (r + a) % p;
            }
            a = (a << 1) % p; // a < 2^127, so a << 1 < 2^128
            b >>= 1;
        }
        r
    }

    #[test]
    fn mul_matches_slow_on_extremes() {
        let edge = [0u128, 1, 2, (1 << 96) - 1, 1 << 96, M127 - 1, M127, 1 << 127, (1 << 127) + (1 << 96)];
        for &a in &edge {
            for &b in &edge[..8] {
                assert_eq!(canonical(mul(a, b)), slow_mul(a, b), "{a:x} * {b:x}");
            }
        }
        let mut x = 0x0123_4567_89ab_cdef_0011_2233_4455_6677u128;
        for _ in 0..2000 {
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834).wrapping_add(1);
            let a = x & ((1 << 127) | M127);
            let b = (x >> 1) & M127;
            assert_eq!(canonical(mul(a.min(1 << 127), b)), slow_mul(a.min(1 << 127), b));
        }
    }

    #[test]
    fn canonical_never_returns_p() {
        assert_eq!(canonical(M127), 0);
        assert_eq!(canonical(1 << 127), 1);
        assert_eq!(canonical(M127 - 1), M127 - 1);
        assert_eq!(canonical(u128::MAX), 1); // 2^128 - 1 = 2p + 1
    }

    #[test]
    fn absorb4_at_the_extremes_and_at_random_equals_slow_arithmetic() {
        // R at 0, 1, p, 2^127; coefficients 0 and 2^96 - 1; Kh at 1, 2,
        // p - 1 (every limb of every power as large as canonical allows).
        let edge_y = [0u128, 1, (1 << 96) - 1, (1 << 95) + 1];
        let edge_r = [0u128, 1, M127, 1 << 127, M127 - 1];
        let mut x = 0x9e37_79b9_7f4a_7c15_0123_4567_89ab_cdefu128;
        let mut rand = || {
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15).wrapping_add(0x0001_2345);
            x
        };
        let mut kh_list = vec![1u128, 2, M127 - 1, M127 - 2, (1 << 126) + 1];
        kh_list.extend((0..20).map(|_| rand() & M127));
        for kh in kh_list {
            let pw = Powers::new(kh);
            let kh = canonical(kh);
            let slow = |r: u128, ys: [u128; 4]| {
                let mut acc = r % M127;
                for y in ys {
                    acc = slow_mul((acc + y) % M127, kh);
                }
                acc
            };
            for &r in &edge_r {
                for a in edge_y {
                    for b in edge_y {
                        let ys = [a, b, edge_y[3] ^ a, (1 << 96) - 1];
                        let got = pw.absorb4(r, ys);
                        assert!(got <= 1 << 127);
                        assert_eq!(canonical(got), slow(r, ys), "kh {kh:x} r {r:x} y {ys:x?}");
                    }
                }
            }
            for _ in 0..200 {
                let r = rand() % ((1 << 127) + 1);
                let ys = [rand() >> 32, rand() >> 32, rand() >> 32, rand() >> 32];
                assert_eq!(canonical(pw.absorb4(r, ys)), slow(r, ys));
            }
        }
    }

    #[test]
    fn absorb4_equals_four_absorb1() {
        let kh = 0x34ae_6a6f_e951_7894_accc_bb9e_bae7_208c & M127;
        let pw = Powers::new(kh);
        for r0 in [0u128, 1, M127, 1 << 127, 12345] {
            let ys = [(1u128 << 96) - 1, 0, 7, (1 << 95) + 3];
            let mut r = r0;
            for y in ys {
                r = pw.absorb1(r, y);
            }
            assert_eq!(canonical(pw.absorb4(r0, ys)), canonical(r));
        }
    }
}
