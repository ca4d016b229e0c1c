//! Portable Poly1305 arithmetic: radix 2^64, three limbs, no `unsafe`, no
//! secret-dependent branches or indexes.
//!
//! Representation (all limbs `u64`):
//!
//! ```text
//! h = h0 + h1*2^64 + h2*2^128            accumulator, only partially reduced
//! r = r0 + r1*2^64                       §2: r0, r1 < 2^60 and 4 | r1
//! s1 = r1 + (r1 >> 2) = 5*r1/4           so that h1*r1*2^128 ≡ h1*s1 (mod 2^130-5)
//! ```
//!
//! Invariant between blocks: `h2 <= 4`, i.e. `h < 5*2^128 < 2p`.
//! The clamped bits of r (§2) are exactly what keeps every product below
//! 2^128 and makes `s1` exact; this backend must only be built from a valid r.

/// Poly1305 state for the portable backend.
#[derive(Clone)]
pub(crate) struct State {
    r0: u64,
    r1: u64,
    s1: u64,
    h0: u64,
    h1: u64,
    h2: u64,
}

#[inline(always)]
fn mul(a: u64, b: u64) -> u128 {
    u128::from(a) * u128::from(b)
}

#[inline(always)]
fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

impl State {
    /// `r` must satisfy the §2 bit restrictions (checked by the caller).
    pub(crate) fn new(r: &[u8; 16]) -> Self {
        let r0 = le64(&r[0..8]);
        let r1 = le64(&r[8..16]);
        debug_assert!(r0 >> 60 == 0 && r1 >> 60 == 0 && r1 & 3 == 0);
        State { r0, r1, s1: r1 + (r1 >> 2), h0: 0, h1: 0, h2: 0 }
    }

    /// h = (h + c) * r mod 2^130-5 (partially reduced) for each 16-byte block
    /// of `blocks`, where c = block + hibit*2^128.
    ///
    /// `hibit` is 1 for a full 16-byte chunk of the message and 0 for the
    /// final partial chunk, which the caller has already padded with a 1 byte
    /// and zeros (§2, "Conversion and padding").
    pub(crate) fn blocks(&mut self, blocks: &[u8], hibit: u64) {
        debug_assert!(blocks.len().is_multiple_of(16) && hibit <= 1);
        let (r0, r1, s1) = (self.r0, self.r1, self.s1);
        let (mut h0, mut h1, mut h2) = (self.h0, self.h1, self.h2);
        for c in blocks.chunks_exact(16) {
            // h += c.   Pre: h2 <= 4.   Post: h2 <= 4 + 1 + 1 = 6.
            let (t0, k0) = h0.overflowing_add(le64(&c[0..8]));
            let (t1, k1a) = h1.overflowing_add(le64(&c[8..16]));
            let (t1, k1b) = t1.overflowing_add(u64::from(k0));
            h0 = t0;
            h1 = t1;
            h2 += hibit + u64::from(k1a | k1b);

            // d = h * r, folding 2^130 ≡ 5 through s1.
            //   d0 = h0*r0 + h1*s1          < 2^124 + 1.25*2^124 < 2^126
            //   d1 = h0*r1 + h1*r0 + h2*s1  < 2^124 + 2^124 + 6*1.25*2^60 < 2^126
            //   d2 = h2*r0                  <= 6*(2^60-1) < 2^63
            let d0 = mul(h0, r0) + mul(h1, s1);
            let d1 = mul(h0, r1) + mul(h1, r0) + mul(h2, s1) + (d0 >> 64);
            // With the carry (d0 >> 64) < 2^62, d1 < 2^126, so (d1 >> 64) < 2^62.
            let d2 = h2 * r0 + (d1 >> 64) as u64; // < 6*2^60 + 2^62 < 2^63.4
            h0 = d0 as u64;
            h1 = d1 as u64;

            // Partial reduction: keep 2 bits in h2, fold the rest times 5.
            //   c = (d2 >> 2) * 5 = (d2 & !3) + (d2 >> 2) <= 1.25 * d2 < 2^63.8.
            let c = (d2 & !3) + (d2 >> 2);
            h2 = d2 & 3;
            let (t0, k0) = h0.overflowing_add(c);
            let (t1, k1) = h1.overflowing_add(u64::from(k0));
            h0 = t0;
            h1 = t1;
            h2 += u64::from(k1); // Post: h2 <= 4.
        }
        self.h0 = h0;
        self.h1 = h1;
        self.h2 = h2;
    }

    /// r as two 64-bit limbs (for a SIMD backend's powers of r).
    pub(crate) fn r(&self) -> (u64, u64) {
        (self.r0, self.r1)
    }

    /// The accumulator `[h0, h1, h2]`, with `h2 <= 4`.
    pub(crate) fn h(&self) -> [u64; 3] {
        [self.h0, self.h1, self.h2]
    }

    /// Replace the accumulator; the caller keeps `h2 <= 4` (h < 5*2^128).
    pub(crate) fn set_h(&mut self, h: [u64; 3]) {
        debug_assert!(h[2] <= 4);
        [self.h0, self.h1, self.h2] = h;
    }

    /// ((h mod 2^130-5) + s) mod 2^128, little-endian.
    pub(crate) fn finalize(&self, s: &[u8; 16]) -> [u8; 16] {
        finalize(self.h0, self.h1, self.h2, s)
    }

    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.r0.zeroize();
        self.r1.zeroize();
        self.s1.zeroize();
        self.h0.zeroize();
        self.h1.zeroize();
        self.h2.zeroize();
    }
}

/// h mod 2^130-5, fully reduced, as 64-bit limbs, for h = h0 + h1*2^64 +
/// h2*2^128 with `h2 <= 4` (no branch on h).
#[inline(always)]
pub(crate) fn reduce(h0: u64, h1: u64, h2: u64) -> [u64; 3] {
    // h < 5*2^128 < 2p, so one conditional subtraction of p fully reduces.
    // g = h + 5; h >= p  <=>  g >= 2^130  <=>  g2 >= 4 (g2 <= 5); then
    // h - p = g - 2^130.
    let (g0, k0) = h0.overflowing_add(5);
    let (g1, k1) = h1.overflowing_add(u64::from(k0));
    let g2 = h2 + u64::from(k1);
    let mask = crate::ct::opaque((g2 >> 2).wrapping_neg()); // all-ones iff h >= p
    [(h0 & !mask) | (g0 & mask), (h1 & !mask) | (g1 & mask), (h2 & !mask) | (g2.wrapping_sub(4) & mask)]
}

/// ((h mod 2^130-5) + s) mod 2^128, little-endian, for h = h0 + h1*2^64 +
/// h2*2^128 with `h2 <= 4`.
#[inline(always)]
pub(crate) fn finalize(h0: u64, h1: u64, h2: u64, s: &[u8; 16]) -> [u8; 16] {
    let [f0, f1, _] = reduce(h0, h1, h2);
    let (o0, k) = f0.overflowing_add(le64(&s[0..8]));
    let o1 = f1.wrapping_add(le64(&s[8..16])).wrapping_add(u64::from(k));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&o0.to_le_bytes());
    out[8..].copy_from_slice(&o1.to_le_bytes());
    out
}

/// Poly1305_r(m, s) of a message of at most 16 bytes: one block, h = c * r
/// from h = 0, no state kept (the batch path for short messages under many
/// keys, where a [`State`] per item and its wipe cost as much as the
/// multiply). Bounds as in [`State::blocks`] with h = 0 before the block:
/// c2 = 1 for a full block and 0 for a padded partial one.
#[inline(always)]
pub(crate) fn short_tag(r: &[u8; 16], s: &[u8; 16], m: &[u8]) -> [u8; 16] {
    debug_assert!(m.len() <= 16);
    if m.len() == 16 {
        // A full block: c2 = 1 is a constant here, so its products are adds.
        return one_block(r, s, le64(&m[0..8]), le64(&m[8..16]), 1);
    }
    // The padded partial block assembled in registers (no buffer to copy
    // into and wipe); an empty message is no block at all: c = 0 gives h = 0.
    let (lo, hi) = m.split_at(m.len().min(8));
    let (mut c0, mut c1) = (le_partial(lo), le_partial(hi));
    if m.len() >= 8 {
        c1 |= 1 << (8 * hi.len());
    } else if !m.is_empty() {
        c0 |= 1 << (8 * lo.len());
    }
    one_block(r, s, c0, c1, 0)
}

/// (c · r mod 2^130 − 5) + s mod 2^128 for one block c = c0 + c1·2^64 + c2·2^128.
#[inline(always)]
fn one_block(r: &[u8; 16], s: &[u8; 16], c0: u64, c1: u64, c2: u64) -> [u8; 16] {
    let r0 = le64(&r[0..8]);
    let r1 = le64(&r[8..16]);
    let s1 = r1 + (r1 >> 2);
    let d0 = mul(c0, r0) + mul(c1, s1);
    let d1 = mul(c0, r1) + mul(c1, r0) + mul(c2, s1) + (d0 >> 64);
    let d2 = c2 * r0 + (d1 >> 64) as u64;
    let c = (d2 & !3) + (d2 >> 2);
    let (h0, k0) = (d0 as u64).overflowing_add(c);
    let (h1, k1) = (d1 as u64).overflowing_add(u64::from(k0));
    finalize(h0, h1, (d2 & 3) + u64::from(k1), s)
}

/// Up to 8 bytes as a little-endian u64,
/// in a register.
#[inline(always)]
fn le_partial(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |acc, &x| (acc << 8) | u64::from(x))
}
