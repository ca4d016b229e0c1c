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
//!
//! The four products are summed by 64-bit column ([`Columns`]): each
//! 64×64→128-bit partial product's halves go into the sums of their
//! columns, carried once per four coefficients, and the product on R's
//! chain is added last, so the other three are computed while the previous
//! group is still being reduced. Against a 256-bit sum of whole products
//! carried at every addition: 0.79 → 0.70 TSC ticks/B (AMD Zen 4, 1.5 KiB,
//! best of 50 runs of 1000).

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

/// A 12-byte chunk as the 96-bit big-endian coefficient Y_i, in 64-bit
/// limbs (low, high < 2^32).
#[inline(always)]
fn coef(chunk: &[u8]) -> (u64, u64) {
    let high: [u8; 4] = chunk[..4].try_into().expect("4 bytes");
    let low: [u8; 8] = chunk[4..12].try_into().expect("8 bytes");
    (u64::from_be_bytes(low), u64::from(u32::from_be_bytes(high)))
}

/// A value in 64-bit limbs (low, high).
#[inline(always)]
fn split(x: u128) -> (u64, u64) {
    (x as u64, (x >> 64) as u64)
}

/// A sum of at most four products a·k (a < 2^128, k < 2^127), kept as the
/// sums of the 64-bit halves of its 64×64-bit partial products by column:
/// column i holds the pieces of weight 2^(64 i). A product adds at most
/// three pieces (each < 2^64) to a column, so every column stays below
/// 2^68 and no addition carries until [`Columns::reduce`].
#[derive(Default)]
struct Columns([u128; 4]);

impl Columns {
    /// Add a·k, both in 64-bit limbs (a = a0 + a1·2^64).
    #[inline(always)]
    fn add(&mut self, (a0, a1): (u64, u64), (k0, k1): (u64, u64)) {
        let p00 = u128::from(a0).wrapping_mul(u128::from(k0));
        let p01 = u128::from(a0).wrapping_mul(u128::from(k1));
        let p10 = u128::from(a1).wrapping_mul(u128::from(k0));
        let p11 = u128::from(a1).wrapping_mul(u128::from(k1));
        let low = |p: u128| u128::from(p as u64);
        let c = &mut self.0;
        c[0] = c[0].wrapping_add(low(p00));
        c[1] = c[1].wrapping_add(p00 >> 64).wrapping_add(low(p01)).wrapping_add(low(p10));
        c[2] = c[2].wrapping_add(p01 >> 64).wrapping_add(p10 >> 64).wrapping_add(low(p11));
        c[3] = c[3].wrapping_add(p11 >> 64);
    }

    /// Add (r + y)·k for R <= 2^127 and a coefficient y < 2^96: r + y <
    /// 2^128 (its high limb < 2^63 + 2^32 + 1).
    #[inline(always)]
    fn add_chain(&mut self, r: u128, (y0, y1): (u64, u64), k: (u64, u64)) {
        let (a0, carry) = (r as u64).overflowing_add(y0);
        let a1 = ((r >> 64) as u64).wrapping_add(y1).wrapping_add(u64::from(carry));
        self.add((a0, a1), k);
    }

    /// The sum mod p, partially reduced to <= 2^127. Pre: the sum is below
    /// 2^255.
    #[inline(always)]
    fn reduce(self) -> u128 {
        let [c0, c1, c2, c3] = self.0;
        // The columns carried into the sum's four 64-bit limbs s0..s3 (s3 <
        // 2^63: the sum is below 2^255).
        let c1 = c1.wrapping_add(c0 >> 64);
        let c2 = c2.wrapping_add(c1 >> 64);
        let c3 = c3.wrapping_add(c2 >> 64);
        let (s0, s1, s2, s3) = (c0 as u64, c1 as u64, c2 as u64, c3 as u64);
        // sum = low + high·2^127 ≡ low + high (2^127 ≡ 1), low < 2^127, high
        // = sum >> 127 < 2^128.
        let low = u128::from(s0) | (u128::from(s1 & (u64::MAX >> 1)) << 64);
        let high = u128::from((s1 >> 63) | (s2 << 1)) | (u128::from((s2 >> 63) | (s3 << 1)) << 64);
        // low + high < 2^129; a carry out of 128 bits is worth 2^128 ≡ 2,
        // and with one the kept 128 bits are below 2^127: fold(t) + 2 < 2^128.
        let (t, carry) = low.overflowing_add(high);
        fold(fold(t).wrapping_add(u128::from(carry) << 1))
    }
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
    ///
    /// Not inlined: inlined into its callers (the lanes' dispatch) it made
    /// one-shot CWC encryption 5–8 % slower at 0–256 bytes on the
    /// `avx2-vaes` tier (benchmark medians, Zen 4), with the same
    /// instruction count.
    #[inline(never)]
    pub(crate) fn absorb(&self, mut r: u128, data: &[u8]) -> u128 {
        debug_assert!(data.len().is_multiple_of(12));
        let k = self.0.map(split);
        let mut quads = data.chunks_exact(48);
        for q in &mut quads {
            // R' = (R + y_0) Kh^4 + y_1 Kh^3 + y_2 Kh^2 + y_3 Kh: (R + y_0) Kh^4
            // < (2^127 + 2^96) 2^127 < 2^254.01, each other product < 2^223;
            // in all < 2^254.02, as `Columns::reduce` needs. The product on
            // R's chain last: the other three do not wait for R.
            let mut sum = Columns::default();
            for (power, at) in [(2, 12), (1, 24), (0, 36)] {
                sum.add(coef(&q[at..]), k[power]);
            }
            sum.add_chain(r, coef(q), k[3]);
            r = sum.reduce();
        }
        for c in quads.remainder().chunks_exact(12) {
            let mut sum = Columns::default();
            sum.add_chain(r, coef(c), k[0]);
            r = sum.reduce(); // (R + y) Kh < 2^254.01
        }
        r
    }

    /// [`absorb`](Self::absorb) of four coefficients (each < 2^96), given
    /// as numbers. Pre/post: R <= 2^127.
    #[cfg(test)]
    fn absorb4(&self, r: u128, y: [u128; 4]) -> u128 {
        let bytes: Vec<u8> = y.iter().flat_map(|y| y.to_be_bytes()[4..].to_vec()).collect();
        self.absorb(r, &bytes)
    }

    /// [`absorb`](Self::absorb) of one coefficient y < 2^96: R = (R + y)
    /// Kh. Pre/post: R <= 2^127.
    #[cfg(test)]
    fn absorb1(&self, r: u128, y: u128) -> u128 {
        self.absorb(r, &y.to_be_bytes()[4..])
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

    /// `Columns::reduce` on sums across its whole domain, [0, 2^255),
    /// against the sum's residue computed limb by limb (2^128 ≡ 2): sums at
    /// and above 2^254 (where low + high carries out of 128 bits, reachable
    /// from R = 2^127, y = 2^96 − 1 and a power near p), at the extremes, and
    /// spread over the columns unevenly (each column as large as four
    /// products can make it).
    #[test]
    fn reduce_equals_the_residue_of_the_sum() {
        let modp = |s: [u64; 4]| {
            let terms = [u128::from(s[0]), u128::from(s[1]) << 64, u128::from(s[2]) << 1, u128::from(s[3]) << 65];
            terms.iter().fold(0u128, |a, t| (a + t % M127) % M127)
        };
        let mut x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let mut rand = || {
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15).wrapping_add(0x0001_2345);
            (x >> 64) as u64
        };
        let top = u64::MAX >> 1;
        let mut sums =
            vec![[u64::MAX, u64::MAX, u64::MAX, top], [0, 0, 0, 1 << 62], [u64::MAX, top, 0, 1 << 62], [0; 4]];
        sums.extend((0..2000).map(|i| {
            let s3 = if i % 2 == 0 { (1 << 62) | (rand() >> 2) } else { rand() >> 1 }; // >= 2^254, or any below 2^255
            [rand(), rand(), rand(), s3]
        }));
        for s in sums {
            let even = Columns(s.map(u128::from));
            let got = even.reduce();
            assert!(got <= 1 << 127);
            assert_eq!(canonical(got), modp(s), "{s:x?}");
            // The same sum with column 0 and 1 holding most of the next
            // column's value (12 pieces of up to 2^64 each).
            if s[1] >= 11 && s[2] >= 11 {
                let spread = Columns([
                    u128::from(s[0]) + (11u128 << 64),
                    u128::from(s[1] - 11) + (11u128 << 64),
                    u128::from(s[2] - 11),
                    u128::from(s[3]),
                ]);
                assert_eq!(canonical(spread.reduce()), modp(s), "{s:x?} spread");
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
