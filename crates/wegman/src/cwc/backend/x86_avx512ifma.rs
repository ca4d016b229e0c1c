//! AVX-512 IFMA CWC-HASH: eight lanes of radix-2^44 limbs modulo
//! p = 2^127 − 1, 52-bit multiply-adds (`vpmadd52luq`/`vpmadd52huq`).
//!
//! # Method
//! Two independent sets of eight lanes, A and B: of every 16 coefficients
//! of a run (the 96-bit big-endian chunks Y_i), lane j of A holds number j
//! and lane j of B number 8 + j; each step multiplies every lane by Kh^16
//! and adds the next 16 coefficients; at the end lane j of A is multiplied
//! by Kh^(16−j), lane j of B by Kh^(8−j), and all lanes are added. The two
//! multiply-and-carry chains are independent, so the core overlaps them
//! (one chain per step waits on `vpmadd52`'s latency). A run with an odd
//! number of 8-coefficient groups ends with one more step of A alone (its
//! last group), and then A's lanes take Kh^(8−j) and B's Kh^(16−j). The
//! running R of the chunks before the run enters lane 0 of A before the
//! first step, so it is multiplied by Kh^n for a run of n coefficients, as
//! Horner's rule has it (paper §6: powers of the hash key make the lanes
//! independent).
//!
//! Loading: a group of 96 bytes is one 64-byte and one 32-byte load; two
//! `vpermt2b` (VBMI) byte permutes put each chunk's low eight bytes,
//! reversed, into lane j of one vector (the big-endian low 64 bits) and its
//! first four, reversed, into lane j of another (the top 32 bits); shifts
//! and masks cut them into limbs.
//!
//! # Arithmetic
//! x = x0 + x1·2^44 + x2·2^88. With 2^127 ≡ 1, 2^132 ≡ 2^5 = 32 and
//! 2^176 ≡ 32·2^44, and s_i = 32·k_i:
//!
//! ```text
//! d0 = a0·k0 + a1·s2 + a2·s1      d1 = a0·k1 + a1·k0 + a2·s2      d2 = a0·k2 + a1·k1 + a2·k0
//! ```
//!
//! Each product is taken as its low 52 bits (weight 1) and bits 52–103
//! (`madd52hi`, weight 2^52 = 2^8·2^44): high sums move one limb up, shifted
//! left by 8; d2's high sum has weight 2^140 = 2^13·2^127 ≡ 2^13 and is
//! added to limb 0 times 8192.
//!
//! # Limb bounds (64-bit lanes; `vpmadd52*` reads the low 52 bits)
//! * Powers (canonical, < 2^127): limbs < 2^44, 2^44, 2^39; s_i < 32·2^44 = 2^49.
//! * A coefficient (< 2^96): limbs < 2^44, 2^44, 2^8.
//! * Accumulator at rest (after a carry): limbs < 2^44, 2^44 + 2^13, 2^39;
//!   plus a coefficient: < 2^45, 2^45.01, 2^39.01 (R from the scalar code,
//!   at most 2^127, has limbs < 2^44, 2^44, 2^39 + 1).
//! * Products < 2^45.01 · 2^49 = 2^94.01: low parts < 2^52, high parts
//!   < 2^42.01; three-term sums: low < 2^53.6, high < 2^43.6. Then
//!   t0 = low0 + 8192·high2 < 2^53.6 + 2^56.6 < 2^56.8, t1, t2 < 2^53.6 +
//!   2^51.6 < 2^54: no lane overflows. The final products (by Kh^(16−j)
//!   and Kh^(8−j)) obey the same bounds; A's and B's added < 2^57.8, their
//!   8-lane sums < 2^60.8, carried in scalar.
//! * Carry 0→1→2, bits of limb 2 from 2^127 up (c < 2^16) folded into limb 0
//!   times 1, then 0→1: the at-rest bounds hold again (lazy reduction; the
//!   scalar code reduces fully at the end of the hash).
//!
//! Constant time: straight-line vector arithmetic; the only branches are on
//! lengths. valgrind cannot run AVX-512, so this leaf is constant time by
//! construction, not by a memcheck run; it is tested equal to the portable
//! hash at every run length and on extreme keys and coefficients.

use core::arch::x86_64::*;

use super::soft;
use super::source::{Keeping, Slice, Source};
use crate::cpu::Avx512Ifma;
use crate::ifma44::Limbs;

const M44: u64 = (1 << 44) - 1;
const M39: u64 = (1 << 39) - 1;

/// Runs shorter than this go through the portable code. Measured (encrypt
/// with the key made once, hot): with 768 a 576-byte message cost 1,214
/// ticks and a 1,024-byte one 1,200; from two groups of eight coefficients
/// 576 bytes cost 885 and 256 bytes 653 (718 with the portable hash).
pub(crate) const MIN_BYTES: usize = 2 * 96;

/// A key without its boxed table takes runs from this long into the lanes,
/// under powers built for the run ([`absorb_unbuilt`]); shorter ones stay
/// portable. One-shot encryption on Zen 4 (eight alternating processes,
/// best): powers built for runs from 192 bytes cost 192- and 256-byte
/// messages 5–8 % more than the portable hash, from 384 bytes they save
/// 3–6 % (576 bytes 1,037 → 990 ticks).
pub(crate) const SHORT_MIN_BYTES: usize = 4 * 96;

/// Kh^1 … Kh^16 in radix-2^44 limbs, limb-major and descending: `.0[i][m]`
/// is limb i of Kh^(16 − m), so each limb of the final combination's
/// per-lane powers (Kh^16 … Kh^9, Kh^8 … Kh^1) is one load.
#[derive(Clone)]
pub(crate) struct Powers([[u64; 16]; 3]);

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.0.as_flattened_mut().zeroize();
    }
}

/// The limbs of x < 2^128 (limb 2 takes bits 88 and up).
fn limbs(x: u128) -> [u64; 3] {
    [x as u64 & M44, (x >> 44) as u64 & M44, (x >> 88) as u64]
}

impl Powers {
    /// From Kh^1 … Kh^4 (canonical) of the portable backend, in the lanes
    /// (two vector products, where the portable code took twelve; a one-shot
    /// key builds this table on its first long message).
    /// Built in its box (moving a table just stored stalls its loads on
    /// store forwarding).
    pub(crate) fn new(token: Avx512Ifma, p: &soft::Powers) -> Box<Self> {
        let mut out = Box::new(Powers([[0; 16]; 3]));
        // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out
        // only after detecting AVX-512 F, VL and IFMA on this CPU.
        unsafe { build(token, &p.all(), &mut out) };
        out
    }

    /// Kh^e, e counted from 1.
    pub(super) fn get(&self, e: usize) -> [u64; 3] {
        core::array::from_fn(|i| self.0[i][16 - e])
    }
}

/// Kh^5 … Kh^8 = Kh^4 · (Kh^1 … Kh^4) in four lanes, then Kh^9 … Kh^16 =
/// Kh^8 · (Kh^1 … Kh^8) in eight: the hot loop's lane product and carry
/// (powers are operands like any accumulator, within its bounds), then the
/// canonical form; all in registers until the table is stored.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn build(_: Avx512Ifma, k: &[u128; 4], out: &mut Powers) {
    let l = k.map(limbs);
    let lane = |i: usize| _mm512_set_epi64(0, 0, 0, 0, l[3][i] as i64, l[2][i] as i64, l[1][i] as i64, l[0][i] as i64);
    let low = [lane(0), lane(1), lane(2)];
    let (k4, s4) = broadcast(&l[3]);
    let next = canonical(carry(mul(&low, &k4, &s4)));
    // Lanes 0–3 of `low`, then lanes 0–3 of `next`: Kh^1 … Kh^8.
    let low: Limbs = core::array::from_fn(|i| _mm512_shuffle_i64x2::<0b01_00_01_00>(low[i], next[i]));
    let k8: Limbs = core::array::from_fn(|i| _mm512_permutexvar_epi64(splat(3), next[i]));
    let s8 = [_mm512_slli_epi64::<5>(k8[1]), _mm512_slli_epi64::<5>(k8[2])];
    let high = canonical(carry(mul(&low, &k8, &s8)));
    // Lane j takes lane 7 − j: descending powers.
    let reverse = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    for (i, row) in out.0.iter_mut().enumerate() {
        for (half, v) in row.chunks_exact_mut(8).zip([high[i], low[i]]) {
            // SAFETY: `half` is eight writable u64s; an unaligned store.
            unsafe { _mm512_storeu_si512(half.as_mut_ptr().cast(), _mm512_permutexvar_epi64(reverse, v)) };
        }
    }
}

/// R after absorbing the 12-byte chunks of `data` (a multiple of 96 bytes,
/// at least [`MIN_BYTES`]) into R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx512Ifma, powers: &Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(96) && data.len() >= MIN_BYTES);
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU; the source
    // is `data`'s groups, as many as the run has.
    unsafe { run(token, powers, r, Slice(data), data.len() / 96) }
}

/// The lanes' powers for a run that keeps what it loads ([`Keeper::run`]):
/// the key's boxed table, or the portable powers to build the lanes' from
/// for the run alone (on the stack, wiped when dropped, as
/// [`absorb_unbuilt`] does).
pub(crate) enum Keeper<'a> {
    Built(Avx512Ifma, &'a Powers),
    Unbuilt(Avx512Ifma, &'a soft::Powers),
}

impl Keeper<'_> {
    /// [`absorb`] of the `len` bytes at `src` (a multiple of 96, at least
    /// [`MIN_BYTES`]), storing each 96 bytes as loaded at the same offset
    /// of `keep`: the run is read once, and what was hashed is what `keep`
    /// holds (one-pass decryption's private copy, made by the hash's own
    /// loads).
    ///
    /// # Safety
    /// `src` readable and `keep` writable for `len` bytes, not overlapping;
    /// another thread may write `src` meanwhile.
    pub(crate) unsafe fn run(&self, r: u128, src: *const u8, keep: *mut u8, len: usize) -> u128 {
        assert!(len.is_multiple_of(96) && len >= MIN_BYTES);
        let source = Keeping { src, keep };
        match *self {
            // SAFETY: the token as in `absorb`; the source's `len / 96`
            // groups are the caller's `len` bytes.
            Keeper::Built(token, powers) => unsafe { run(token, powers, r, source, len / 96) },
            Keeper::Unbuilt(token, p) => with_powers_for_run(token, p, |powers| {
                // SAFETY: as above.
                unsafe { run(token, powers, r, source, len / 96) }
            }),
        }
    }
}

/// A group: eight coefficients (96 bytes) as limb vectors, as [`load`]
/// gives them.
impl Source<Limbs> for Slice<'_> {
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    #[inline]
    unsafe fn group(&mut self) -> Limbs {
        let (group, rest) = self.0.split_at(96);
        self.0 = rest;
        load(group)
    }
}

/// A group as [`load`] gives it, its two loads each stored as loaded.
impl Source<Limbs> for Keeping {
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    #[inline]
    unsafe fn group(&mut self) -> Limbs {
        let (src, keep) = (self.src, self.keep);
        // SAFETY: a group left: 96 readable bytes at `src` and 96 writable
        // at `keep`, apart (`Keeper::run`'s contract). One 64-byte and
        // one 32-byte load, each stored as loaded; the limbs come from
        // these registers, not from memory again.
        let (a, b) = unsafe {
            let a = _mm512_loadu_si512(src.cast());
            let b = _mm256_loadu_si256(src.add(64).cast());
            _mm512_storeu_si512(keep.cast(), a);
            _mm256_storeu_si256(keep.add(64).cast(), b);
            (a, b)
        };
        self.src = src.wrapping_add(96);
        self.keep = keep.wrapping_add(96);
        limbs_in::<0>(a, _mm512_zextsi256_si512(b))
    }
}

/// R after `groups` groups (at least two) from `src`, in the two sets.
///
/// # Safety
/// AVX-512 F, VL, IFMA and VBMI present (the token), and `src` holding
/// `groups` groups.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
unsafe fn run<S: Source<Limbs>>(token: Avx512Ifma, powers: &Powers, r: u128, mut src: S, groups: usize) -> u128 {
    // SAFETY: the features are this function's own; the caller's groups.
    unsafe { two_sets(token, powers, r, &mut src, groups / 2, !groups.is_multiple_of(2)) }
}

#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

/// Eight coefficients (96 bytes) as limb vectors, lane j = coefficient j.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
pub(super) fn load(group: &[u8]) -> Limbs {
    assert!(group.len() == 96);
    let p = group.as_ptr();
    // SAFETY: `group` is 96 readable bytes: a 64-byte and a 32-byte
    // unaligned load (the upper half of `b` is zero, not memory).
    let (a, b) =
        unsafe { (_mm512_loadu_si512(p.cast()), _mm512_zextsi256_si512(_mm256_loadu_si256(p.add(64).cast()))) };
    limbs_in::<0>(a, b)
}

/// Eight coefficients as limb vectors, lane j = coefficient j, from the
/// 96 bytes at byte `OFF` (0 or 32) of the 128 bytes `a || b` (registers
/// already loaded: the fused counter mode's, `x86_avx512ifma_ctr.rs`).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
#[inline]
pub(super) fn limbs_in<const OFF: usize>(a: __m512i, b: __m512i) -> Limbs {
    const { assert!(OFF + 96 <= 128) };
    // Byte t of lane j: chunk j's byte 11 − t (its low 64 bits, reversed),
    // and byte 3 − t for t < 4 (its top 32 bits), else zero (the mask).
    // Indices past 63 select from `b`.
    let lo_idx: [u8; 64] = core::array::from_fn(|i| (OFF + 12 * (i / 8) + 11 - i % 8) as u8);
    let hi_idx: [u8; 64] = core::array::from_fn(|i| (OFF + 12 * (i / 8) + 3 - i % 4) as u8);
    // SAFETY: each index array is 64 readable bytes.
    let (li, hi) = unsafe { (_mm512_loadu_si512(lo_idx.as_ptr().cast()), _mm512_loadu_si512(hi_idx.as_ptr().cast())) };
    let lo = _mm512_permutex2var_epi8(a, li, b);
    let hi = _mm512_maskz_permutex2var_epi8(0x0f0f_0f0f_0f0f_0f0f, a, hi, b);
    let m44 = splat(M44);
    [
        _mm512_and_si512(lo, m44),
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)), m44),
        _mm512_srli_epi64::<24>(hi),
    ]
}

/// a·k per lane, low and high product halves recombined, unreduced; `s`
/// holds 32·k_1 and 32·k_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn mul(a: &Limbs, k: &Limbs, s: &[__m512i; 2]) -> Limbs {
    let ([l0, l1, l2], [h0, h1, h2]) = crate::ifma44::products(a, k, s);
    [
        _mm512_add_epi64(l0, _mm512_slli_epi64::<13>(h2)),
        _mm512_add_epi64(l1, _mm512_slli_epi64::<8>(h0)),
        _mm512_add_epi64(l2, _mm512_slli_epi64::<8>(h1)),
    ]
}

/// One lazy carry step per lane (see the limb bounds above).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn carry(t: Limbs) -> Limbs {
    crate::ifma44::carry::<39, false>(t)
}

/// The canonical limbs (value < p, limbs < 2^44, 2^44, 2^39) of lanes
/// fresh from [`carry`] (limbs < 2^44, 2^44 + 2^13, 2^39): carry limb 1
/// into limb 2 (the value is now at most 2^127 + 2^88), then subtract p
/// where the value plus one reaches 2^127, by a mask (no branch).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn canonical(t: Limbs) -> Limbs {
    let m44 = splat(M44);
    let [t0, mut t1, mut t2] = t;
    t2 = _mm512_add_epi64(t2, _mm512_srli_epi64::<44>(t1));
    t1 = _mm512_and_si512(t1, m44);
    // x + 1, carried: its bit 127 is set exactly when x >= p, and then
    // x − p is x + 1 − 2^127.
    let u0 = _mm512_add_epi64(t0, splat(1));
    let u1 = _mm512_add_epi64(t1, _mm512_srli_epi64::<44>(u0));
    let u2 = _mm512_add_epi64(t2, _mm512_srli_epi64::<44>(u1));
    let ge = _mm512_test_epi64_mask(u2, splat(1 << 39));
    let m39 = splat(M39);
    [
        _mm512_mask_blend_epi64(ge, t0, _mm512_and_si512(u0, m44)),
        _mm512_mask_blend_epi64(ge, t1, _mm512_and_si512(u1, m44)),
        _mm512_mask_blend_epi64(ge, t2, _mm512_and_si512(u2, m39)),
    ]
}

/// `k` broadcast to every lane, with 32·k_1 and 32·k_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn broadcast(k: &[u64; 3]) -> (Limbs, [__m512i; 2]) {
    ([splat(k[0]), splat(k[1]), splat(k[2])], [splat(k[1] << 5), splat(k[2] << 5)])
}

/// Lane j times Kh^(top − j) (`top` 16 or 8), for the final combination.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn per_lane(p: &Powers, top: usize) -> (Limbs, [__m512i; 2]) {
    let limb = |i: usize| {
        let row: &[u64; 8] = p.0[i][16 - top..24 - top].try_into().expect("eight powers");
        // SAFETY: `row` is 64 readable bytes; an unaligned load.
        unsafe { _mm512_loadu_si512(row.as_ptr().cast()) }
    };
    let k = [limb(0), limb(1), limb(2)];
    let s = [_mm512_slli_epi64::<5>(k[1]), _mm512_slli_epi64::<5>(k[2])];
    (k, s)
}

/// `x` plus R in lane 0.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn plus_r(mut x: Limbs, r: u128) -> Limbs {
    for (limb, v) in x.iter_mut().zip(limbs(r)) {
        *limb = _mm512_add_epi64(*limb, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, v as i64));
    }
    x
}

/// Lane-wise a + b.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn add(a: Limbs, b: Limbs) -> Limbs {
    [_mm512_add_epi64(a[0], b[0]), _mm512_add_epi64(a[1], b[1]), _mm512_add_epi64(a[2], b[2])]
}

/// The sum of the eight lanes of `t` (each limb's lanes < 2^61), carried
/// and folded to a value <= 2^127.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn lane_sum(t: Limbs) -> u128 {
    let d = t.map(|v| u128::from(_mm512_reduce_add_epi64(v) as u64));
    let (mut d0, mut d1, mut d2) = (d[0], d[1], d[2]);
    d1 += d0 >> 44;
    d0 &= u128::from(M44);
    d2 += d1 >> 44;
    d1 &= u128::from(M44);
    d0 += d2 >> 39;
    d2 &= u128::from(M39);
    // d0 < 2^44 + 2^22, d1 < 2^44, d2 < 2^39: the value is below 2^128.
    soft::fold_partial(d0 + (d1 << 44) + (d2 << 88))
}

/// [`absorb`] under Kh^1 … Kh^16 built for this run alone, on the stack
/// (wiped when dropped): for a key that has not built its boxed table, so
/// that a one-shot key allocates nothing.
pub(crate) fn absorb_unbuilt(token: Avx512Ifma, p: &soft::Powers, r: u128, data: &[u8]) -> u128 {
    with_powers_for_run(token, p, |powers| absorb(token, powers, r, data))
}

/// `f` of Kh^1 … Kh^16 built from `p` for one run, in place on the stack,
/// never moved (the one copy, wiped when dropped).
fn with_powers_for_run<T>(token: Avx512Ifma, p: &soft::Powers, f: impl FnOnce(&Powers) -> T) -> T {
    let mut powers = Powers([[0; 16]; 3]);
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL and IFMA on this CPU.
    unsafe { build(token, &p.all(), &mut powers) };
    f(&powers)
}

/// `steps` runs of 16 coefficients (at least one) from `src`, in sets A
/// and B, then with `odd` one more group of 8. That group goes to A (A ←
/// A·Kh^16 + group), which now ends the run: A's lanes take Kh^(8−j) and
/// B's Kh^(16−j) at the end, where without it A's take Kh^(16−j) and B's
/// Kh^(8−j). One lane sum either way (a second set for the odd group cost
/// its own final products and sum).
///
/// # Safety
/// `src` holding `2 · steps + odd` groups (the features are this
/// function's).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
unsafe fn two_sets<S: Source<Limbs>>(
    _proof: Avx512Ifma,
    p: &Powers,
    r: u128,
    src: &mut S,
    steps: usize,
    odd: bool,
) -> u128 {
    assert!(steps >= 1);
    let (k16, s16) = broadcast(&p.get(16));
    // SAFETY: the features are this function's own, and the caller's
    // `2 · steps + odd` groups are taken in order (here and below).
    let (first_a, first_b) = unsafe { (src.group(), src.group()) };
    let (mut a, mut b) = (plus_r(first_a, r), first_b);
    for _ in 1..steps {
        // SAFETY: as above.
        let (ga, gb) = unsafe { (src.group(), src.group()) };
        a = add(carry(mul(&a, &k16, &s16)), ga);
        b = add(carry(mul(&b, &k16, &s16)), gb);
    }
    let (top_a, top_b) = if odd {
        // SAFETY: as above, the last group.
        let g = unsafe { src.group() };
        a = add(carry(mul(&a, &k16, &s16)), g);
        (8, 16)
    } else {
        (16, 8)
    };
    let (ka, sa) = per_lane(p, top_a);
    let (kb, sb) = per_lane(p, top_b);
    lane_sum(add(mul(&a, &ka, &sa), mul(&b, &kb, &sb)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table built in the lanes is the canonical Kh^1 … Kh^16 of the
    /// portable arithmetic, limb for limb, for hash keys at the extremes
    /// (0, 1, p − 1 whose powers are ±1, p itself) and random ones.
    #[test]
    fn the_lane_built_powers_are_the_canonical_powers() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let p127 = (1u128 << 127) - 1;
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut khs = vec![0u128, 1, 2, p127 - 1, p127, (1 << 126) + 1, (1 << 88) - 1, 1 << 44];
        khs.extend((0..200).map(|_| ((u128::from(next()) << 64) | u128::from(next())) & p127));
        for kh in khs {
            let soft = soft::Powers::new(kh);
            let got = Powers::new(token, &soft);
            let mut want = soft::canonical(kh);
            for e in 1..=16 {
                assert_eq!(got.get(e), limbs(want), "kh {kh:x}, power {e}");
                want = soft::canonical(soft::mul(want, soft::canonical(kh)));
            }
        }
    }

    /// The lane `canonical` against the portable one on every kind of value
    /// a carried product can be: below p, p itself, just above, and the
    /// largest (2^127 + 2^88 − 1, limb 1 carrying into limb 2), written
    /// with limb 1 both carried and not (up to 2^44 + 2^13).
    #[test]
    fn the_lane_canonical_form_equals_the_portable_one() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let _ = token;
        let p127 = (1u128 << 127) - 1;
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d);
        let mut values = vec![0u128, 1, p127 - 1, p127, p127 + 1, p127 + 2, (1 << 127) + (1 << 88) - 1, 1 << 88];
        values.extend((0..64).map(|i| p127 - 40 + i));
        values.extend((0..200).map(|_| ((u128::from(next()) << 64) | u128::from(next())) % ((1 << 127) + (1 << 88))));
        for group in values.chunks(8) {
            // Each value's limbs; in odd lanes, and for every value from
            // 2^127 up (`carry` leaves limb 2 below 2^39), one unit of limb 2
            // moved into limb 1 as 2^44: the form `carry` may hand over.
            let mut l = [[0i64; 8]; 3];
            for (j, &v) in group.iter().enumerate() {
                let mut x = limbs(v);
                if x[2] >= 1 << 39 || (j % 2 == 1 && x[2] > 0) {
                    x[2] -= 1;
                    x[1] += 1 << 44;
                }
                for i in 0..3 {
                    l[i][j] = x[i] as i64;
                }
            }
            // SAFETY: the token above proves AVX-512 F, VL and IFMA.
            let got = unsafe {
                let v = |i: usize| _mm512_loadu_si512(l[i].as_ptr().cast());
                let c = canonical([v(0), v(1), v(2)]);
                let mut out = [[0u64; 8]; 3];
                for i in 0..3 {
                    _mm512_storeu_si512(out[i].as_mut_ptr().cast(), c[i]);
                }
                out
            };
            for (j, &v) in group.iter().enumerate() {
                assert_eq!([got[0][j], got[1][j], got[2][j]], limbs(soft::canonical(v)), "value {v:x}");
            }
        }
    }

    /// [`absorb_unbuilt`] (its powers built on the stack for the run) against
    /// the portable hash, as the test below does [`absorb`], from its
    /// shortest run.
    #[test]
    fn unbuilt_powers_equal_the_portable_hash_at_the_extremes() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        equals_the_portable_hash(SHORT_MIN_BYTES / 96, &|soft, r, data| absorb_unbuilt(token, soft, r, data));
    }

    /// Both sets and the odd last group against the portable hash, for hash
    /// keys and running values at their extremes and all-0xff or random
    /// coefficients, every run length from 2 to 41 groups.
    #[test]
    fn equals_the_portable_hash_at_the_extremes() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        equals_the_portable_hash(2, &|soft, r, data| absorb(token, &Powers::new(token, soft), r, data));
    }

    /// The run that keeps what it loads ([`Keeper::run`]), under the key's
    /// table and under powers built for the run, against the portable hash
    /// at every run length from 2 to 41 groups; what it kept is the run,
    /// byte for byte, and nothing past it is written.
    #[test]
    fn keeping_runs_equal_the_portable_hash_and_keep_what_they_hashed() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        for built in [false, true] {
            equals_the_portable_hash(2, &|soft, r, data| {
                let table = Powers::new(token, soft);
                let keeper = if built { Keeper::Built(token, &table) } else { Keeper::Unbuilt(token, soft) };
                let mut keep = vec![0x5au8; data.len() + 97];
                // SAFETY: `data` is readable and `keep` writable for
                // `data.len()` bytes; they are apart.
                let got = unsafe { keeper.run(r, data.as_ptr(), keep.as_mut_ptr(), data.len()) };
                assert_eq!(&keep[..data.len()], data, "built {built}");
                assert!(keep[data.len()..].iter().all(|&b| b == 0x5a), "built {built}");
                got
            });
        }
    }

    /// `hash(powers, r, data)` against the portable hash for hash keys and
    /// running values at their extremes and all-0xff or random
    /// coefficients, every run length from `fewest` to 41 groups.
    fn equals_the_portable_hash(fewest: usize, hash: &dyn Fn(&soft::Powers, u128, &[u8]) -> u128) {
        let p127 = (1u128 << 127) - 1;
        let mut x = 0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15u128;
        let mut rand = || {
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834).wrapping_add(0x1234_5679);
            x
        };
        let mut khs = vec![1u128, 2, p127 - 1, p127 - 2, (1 << 126) + 1];
        khs.extend((0..6).map(|_| rand() & p127));
        for kh in khs {
            let soft = soft::Powers::new(kh);
            for (i, r) in [0u128, 1, p127, 1 << 127, rand() & p127].into_iter().enumerate() {
                for groups in fewest..=41 {
                    let data: Vec<u8> =
                        (0..96 * groups).map(|_| if (i + groups) % 3 == 0 { 0xff } else { rand() as u8 }).collect();
                    let want = soft::canonical(soft.absorb(r, &data));
                    let got = hash(&soft, r, &data);
                    assert!(got <= 1 << 127);
                    assert_eq!(soft::canonical(got), want, "kh {kh:x} r {r:x} groups {groups}");
                }
            }
        }
    }
}
