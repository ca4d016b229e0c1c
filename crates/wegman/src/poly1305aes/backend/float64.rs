//! Poly1305 in IEEE binary64 floating point: the paper's own §4 method,
//! in portable Rust, with the 53-bit-mantissa change its last paragraph of
//! §4 describes. Never chosen automatically (it is slower than `soft.rs`);
//! selected with [`Features::float64`](crate::cpu::Features::float64).
//!
//! # The method (§4)
//!
//! h, c and r are each a sum of four doubles at 2^0, 2^32, 2^64, 2^96: every
//! double is an integer multiple of its *weight* and is called a limb; its
//! *coefficient* is the limb divided by its weight.
//!
//! ```text
//! r = r0 + r1 + r2 + r3     r_j = 2^(32j) * rho_j, rho_j < 2^28, 4 | rho_j for j >= 1   (§2 clamp)
//! sigma_j = 5 * 2^-130 * r_j = 2^(32(j-4)) * (5 rho_j / 4)  for j = 1..3, an integer coefficient < 1.25 * 2^28
//! c = d0 + d1 + d2 + d3     d_i = 2^(32i) * (32-bit word i), plus 2^128 = 2^96 * 2^32 in d3
//! ```
//!
//! Carries are the paper's: `y = (a + alpha) - alpha` with `alpha = 3 * 2^51 * W`
//! rounds `a` to the nearest multiple of `W` (the sum lies in [2^52 W, 2^53 W),
//! whose spacing is exactly W, as long as |a| <= 2^51 W), and `x = a - y` is
//! the remainder, |x| <= W/2. A carry out of 2^130 re-enters at 2^0 times
//! 5 * 2^-130 (2^130 ≡ 5 mod 2^130 - 5), one exact multiplication.
//!
//! # What changes for 53-bit mantissas, and why every operation is exact
//!
//! The paper multiplies 32-bit-coefficient limbs of h by 28-bit r limbs and
//! sums four products: up to 2^62, which the x87's 64-bit mantissa holds and
//! binary64 does not. So, as the paper's §4 says for 53-bit CPUs, each limb
//! of h is broken into two 16-bit-scale pieces before multiplying: the split
//! is itself a carry, `u_i` (weight 2^(32i+16)) and `v_i` (weight 2^(32i),
//! |coefficient| <= 2^15). The products go to eight accumulators, `L_k`
//! (from the v, weight 2^(32k)) and `H_k` (from the u, weight 2^(32k+16)),
//! each a sum of four products, and the paper's four parallel carries are
//! done on these eight. A double is exact whenever the exact value is an
//! integer multiple of a power of two w with coefficient below 2^53 in
//! magnitude; IEEE addition, subtraction and multiplication return the exact
//! value whenever it is representable. Every value below is such a
//! multiple, with these bounds (C is the invariant below):
//!
//! ```text
//! between blocks   |h_i| coefficient < C = 2^35                      (invariant; h = 0 at the start)
//! h += c           |h_i| < 2^35 + 2^33 = 1.25 * 2^35
//! split            |U_i| <= 1.25 * 2^19 + 1/2 (weight 2^(32i+16)),  |V_i| <= 2^15
//! L_k = sum of 4   <= 2^15 * (2^28 + 3 * 1.25 * 2^28) = 4.75 * 2^43 < 2^46
//! H_k = sum of 4   <= (1.25 * 2^19 + 1/2) * 4.75 * 2^28 < 1.49 * 2^49 < 2^50
//! carry L_k, H_k   at W = 2^(32(k+1)) for k < 3 and W = 2^130 for k = 3:
//!                  |x| <= 2^31 (2^33 for k = 3, relative to 2^96), y's coefficient
//!                  <= 4.75 * 2^11 + 1 (L) and <= 1.49 * 2^33 + 1 (H, k < 3) or
//!                  <= 1.49 * 2^31 + 1 (H_3, relative to 2^130)
//! new h_0 = xL0 + xH0 + 5 (yL3 + yH3)   <= 2^32 + 5 * (1.49 * 2^31 + 2^13) < 1.19 * 2^34 < 2^35
//! new h_k = xLk + xHk + yL(k-1) + yH(k-1), k = 1, 2   <= 2^32 + 1.49 * 2^33 + 2^14 < 2^34
//! new h_3 = xL3 + xH3 + yL2 + yH2        <= 2^34 + 1.49 * 2^33 + 2^14 < 1.75 * 2^34 < 2^35
//! ```
//!
//! So the invariant holds after every block, every coefficient stays below
//! 2^50, and every carry's input is far below its 2^51 W limit; the debug
//! build checks each bound and exactness on every block (`check`). No value
//! is ever subnormal (each is 0 or at least 2^-96 in magnitude), so add and
//! multiply take the same time for every input on x86-64.
//!
//! Rust's `f64` on x86-64 is SSE2 binary64 with round-to-nearest-even: the
//! x87's precision control (the paper's `fldcw` warning) plays no part, Rust
//! never reassociates or contracts floating-point expressions (the carries'
//! `(a + alpha) - alpha` stays as written), and since every product and sum
//! here is exact, an FMA would not change a result either.
//!
//! The output conversion turns each coefficient into an `i64` (exact: an
//! integer below 2^35, read from the bits of its sum with 3 * 2^51, without
//! a branch), propagates signed 32-bit carries, adds 4p to make the
//! value positive and hands h < 5 * 2^128 to the portable backend's constant-
//! time final reduction and the addition of s.

use super::soft;

/// 2^e as an f64 (exact for the exponents used here).
const fn pow2(e: i32) -> f64 {
    // Built from the bit pattern: the exponent field is e + 1023.
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The carry constant that rounds to multiples of 2^e: 3 * 2^51 * 2^e.
const fn alpha(e: i32) -> f64 {
    3.0 * pow2(51 + e)
}

/// Rounding constants: `ALPHA[k]` rounds to multiples of 2^(32(k+1)) for
/// k < 3, `ALPHA[3]` to multiples of 2^130; `BETA[i]` splits limb i at
/// 2^(32i+16).
const ALPHA: [f64; 4] = [alpha(32), alpha(64), alpha(96), alpha(130)];
const BETA: [f64; 4] = [alpha(16), alpha(48), alpha(80), alpha(112)];
const FOLD: f64 = 5.0 * pow2(-130);
const WEIGHT: [f64; 4] = [1.0, pow2(32), pow2(64), pow2(96)];
/// 1 / WEIGHT: coefficients come out by an exact multiplication, never a
/// division (whose latency can depend on the operands).
const INV_WEIGHT: [f64; 4] = [1.0, pow2(-32), pow2(-64), pow2(-96)];

/// Poly1305 state for the float64 backend.
#[derive(Clone)]
pub(crate) struct State {
    /// r_0 … r_3 at their weights.
    r: [f64; 4],
    /// sigma_j = 5 * 2^-130 * r_j (index 0 unused, kept 0).
    sigma: [f64; 4],
    /// h_0 … h_3, carried (|coefficient| < 2^35).
    h: [f64; 4],
}

#[inline(always)]
fn le32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

/// `(y, x)` with y the multiple of the rounding constant's unit nearest to
/// `a` and x = a - y.
#[inline(always)]
fn carry(a: f64, alpha: f64) -> (f64, f64) {
    let y = (a + alpha) - alpha;
    (y, a - y)
}

/// An integer-valued double below 2^51 in magnitude as an `i64`, by the
/// carries' own trick: `a + 3 * 2^51` lies in [2^52, 2^53), where doubles
/// are spaced 1 apart, so its encoding is that of 3 * 2^51 plus `a`. Two
/// exact additions and no branch: Rust's `a as i64` saturates (out-of-range
/// values and NaN), which at opt-level 1 compiled to a compare and a jump on
/// the value, i.e. on the secret (valgrind's ctgrind check found it).
#[inline(always)]
fn to_i64(a: f64) -> i64 {
    const SHIFT: f64 = alpha(0);
    debug_assert!(a.fract() == 0.0 && a.abs() < pow2(51));
    ((a + SHIFT).to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64)
}

impl State {
    /// `r` must satisfy the §2 bit restrictions (checked by the caller).
    pub(crate) fn new(r: &[u8; 16]) -> Self {
        let mut st = State { r: [0.0; 4], sigma: [0.0; 4], h: [0.0; 4] };
        for (j, (rj, sj)) in st.r.iter_mut().zip(st.sigma.iter_mut()).enumerate() {
            let rho = le32(r, j);
            debug_assert!(rho >> 28 == 0 && (j == 0 || rho & 3 == 0));
            *rj = f64::from(rho) * WEIGHT[j];
            if j > 0 {
                // 5 * rho_j / 4 is an integer below 1.25 * 2^28; times 2^(32(j-4)).
                *sj = f64::from(5 * (rho >> 2)) * pow2(32 * (j as i32 - 4));
            }
        }
        st
    }

    /// h = (h + c) * r mod 2^130-5 (carried, not fully reduced) for each
    /// 16-byte block, c = block + hibit * 2^128.
    pub(crate) fn blocks(&mut self, blocks: &[u8], hibit: u64) {
        debug_assert!(blocks.len().is_multiple_of(16) && hibit <= 1);
        let (r, sg) = (self.r, self.sigma);
        let top = hibit as f64 * pow2(32); // 2^128 relative to 2^96
        let mut h = self.h;
        for c in blocks.chunks_exact(16) {
            // h += c: each 32-bit word at its weight (exact conversions).
            h[0] += f64::from(le32(c, 0));
            h[1] += f64::from(le32(c, 1)) * WEIGHT[1];
            h[2] += f64::from(le32(c, 2)) * WEIGHT[2];
            h[3] += (f64::from(le32(c, 3)) + top) * WEIGHT[3];

            // Split each limb into u (weight 2^(32i+16)) and v (|coef| <= 2^15).
            let (u0, v0) = carry(h[0], BETA[0]);
            let (u1, v1) = carry(h[1], BETA[1]);
            let (u2, v2) = carry(h[2], BETA[2]);
            let (u3, v3) = carry(h[3], BETA[3]);

            // The paper's product, once for the v and once for the u.
            let l0 = v0 * r[0] + v1 * sg[3] + v2 * sg[2] + v3 * sg[1];
            let l1 = v0 * r[1] + v1 * r[0] + v2 * sg[3] + v3 * sg[2];
            let l2 = v0 * r[2] + v1 * r[1] + v2 * r[0] + v3 * sg[3];
            let l3 = v0 * r[3] + v1 * r[2] + v2 * r[1] + v3 * r[0];
            let h0 = u0 * r[0] + u1 * sg[3] + u2 * sg[2] + u3 * sg[1];
            let h1 = u0 * r[1] + u1 * r[0] + u2 * sg[3] + u3 * sg[2];
            let h2 = u0 * r[2] + u1 * r[1] + u2 * r[0] + u3 * sg[3];
            let h3 = u0 * r[3] + u1 * r[2] + u2 * r[1] + u3 * r[0];

            // Eight parallel carries, then the fold of 2^130.
            let (yl0, xl0) = carry(l0, ALPHA[0]);
            let (yl1, xl1) = carry(l1, ALPHA[1]);
            let (yl2, xl2) = carry(l2, ALPHA[2]);
            let (yl3, xl3) = carry(l3, ALPHA[3]);
            let (yh0, xh0) = carry(h0, ALPHA[0]);
            let (yh1, xh1) = carry(h1, ALPHA[1]);
            let (yh2, xh2) = carry(h2, ALPHA[2]);
            let (yh3, xh3) = carry(h3, ALPHA[3]);
            h[0] = (xl0 + xh0) + (yl3 + yh3) * FOLD;
            h[1] = (xl1 + xh1) + (yl0 + yh0);
            h[2] = (xl2 + xh2) + (yl1 + yh1);
            h[3] = (xl3 + xh3) + (yl2 + yh2);
            check(&h);
        }
        self.h = h;
    }

    /// ((h mod 2^130-5) + s) mod 2^128, little-endian.
    pub(crate) fn finalize(&self, s: &[u8; 16]) -> [u8; 16] {
        let [lo, mid, hi] = self.h();
        soft::finalize(lo, mid, hi, s)
    }

    /// h as 64-bit limbs `[h0, h1, h2]` with h2 <= 4 (h < 5·2^128).
    pub(crate) fn h(&self) -> [u64; 3] {
        // Exact coefficients: integers below 2^35 in magnitude.
        let mut c = [0i64; 4];
        for ((ci, &hi), &inv) in c.iter_mut().zip(&self.h).zip(&INV_WEIGHT) {
            *ci = to_i64(hi * inv);
        }
        // + 4p = 2^132 - 20 keeps h mod p and makes the top positive.
        c[3] += 1 << 36;
        c[0] -= 20;
        // Signed carries to 32-bit words (arithmetic shifts floor).
        let w0 = c[0] & 0xffff_ffff;
        let t1 = c[1] + (c[0] >> 32);
        let w1 = t1 & 0xffff_ffff;
        let t2 = c[2] + (t1 >> 32);
        let w2 = t2 & 0xffff_ffff;
        let t3 = c[3] + (t2 >> 32); // in (2^35 - 2^4, 2^37): positive
        // Keep 34 bits at 2^96 (up to 2^130); fold q * 2^130 ≡ 5q.
        let q = (t3 >> 34) as u64; // 1 ..= 7
        let w3 = (t3 & ((1 << 34) - 1)) as u64;
        let lo = (w0 as u64) | (w1 as u64) << 32;
        let mid = (w2 as u64) | (w3 & 0xffff_ffff) << 32;
        let hi = w3 >> 32; // <= 3
        let (lo, k0) = lo.overflowing_add(5 * q);
        let (mid, k1) = mid.overflowing_add(u64::from(k0));
        let hi = hi + u64::from(k1); // <= 4: h < 5 * 2^128
        [lo, mid, hi]
    }

    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.r.zeroize();
        self.sigma.zeroize();
        self.h.zeroize();
    }
}

/// Debug builds check the invariant of the module comment on every block:
/// each limb an integer multiple of its weight with coefficient below 2^35.
#[inline(always)]
fn check(h: &[f64; 4]) {
    if cfg!(debug_assertions) {
        for (i, (&limb, &inv)) in h.iter().zip(&INV_WEIGHT).enumerate() {
            let coef = limb * inv;
            debug_assert!(coef.fract() == 0.0 && coef.abs() < pow2(35), "h{i} = {coef}");
        }
    }
}
