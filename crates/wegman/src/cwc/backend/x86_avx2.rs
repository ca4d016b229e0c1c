//! AVX2 CWC-HASH: four lanes of radix-2^26 limbs modulo p = 2^127 − 1,
//! 32×32→64-bit products (`vpmuludq`), each 32-bit word of each coefficient
//! multiplied by its own precomputed power of Kh.
//!
//! # Method
//! Horner's rule (paper §6) in blocks of up to 64 coefficients (the 96-bit
//! big-endian chunks Y_i, 16 groups of 4): with V the running value spread
//! over four lanes (their sum is R mod p),
//!
//! ```text
//! V ← V · Kh^n + Σ_{j<n} Y_j · Kh^(n−j)     (n = the block's coefficients)
//! ```
//!
//! The sum is a sum of independent products, added unreduced into 64-bit
//! sums; only V · Kh^n and one carry step per block are chained. A
//! coefficient is not split into limbs: with Y = w0 + w1·2^32 + w2·2^64 (its
//! 32-bit words),
//!
//! ```text
//! Y · Kh^e = w0 · Kh^e + w1 · (2^32·Kh^e mod p) + w2 · (2^64·Kh^e mod p)
//! ```
//!
//! and each of the three is a word times the five limbs of a precomputed
//! power: 15 `vpmuludq` (powers read from memory) and 15 additions per
//! coefficient-lane, against 20 and 20 for a coefficient split into four
//! 26-bit limbs times Kh^e (whose high limbs need the wrapped 8·k_j), and no
//! shifts or masks to split it. Since the lanes are only added at the end,
//! any word may sit in any lane, under its own power: the loader puts them
//! where three 16-byte loads, each broadcast to both halves of a register
//! (`vbroadcasti128`, a load alone), and three `vpshufb` can ([`WORDS`]).
//! Each byte is loaded once, so a run can store what it loaded as its copy
//! of the data ([`Keeper`]: one-pass decryption's private copy).
//!
//! CWC-AES-128 encryption (key made once, hot, VAES-256 counter mode), 16
//! KiB, on an Intel Xeon (family 6, model 167, capped to `avx2-vaes`), ticks
//! per byte: Horner with a broadcast Kh^8 and two register sets (25 products
//! and a carry step per group of four) 0.58–0.62; coefficients in four limbs
//! under their own powers 0.46–0.49; words under their own powers
//! 0.38–0.39 (the hash alone: 0.34 and 0.25).
//!
//! A block of n < 64 coefficients (a run's last) uses the last n/4 groups'
//! powers and Kh^n, so its powers run n, n−1, … 1 as well. R from the
//! chunks before the run starts in lane 0 of V; at the end the four lanes
//! are added.
//!
//! Powers: Kh^(64−4g−c) for chunk c of group g of a block (coefficient 4g +
//! c): four lanes in chunk order, Kh^4 … Kh^1 for group 15, group g's from
//! group g + j's times Kh^(4j); each times 2^32 and 2^64 by moving limbs (2^130
//! ≡ 8) and carrying; then every word's lane given its word's power. Built
//! once the key has offered the lanes [`BUILD_AFTER_BYTES`] (7.5 KiB per
//! key, [`Powers::new`]). Until then a run of at least [`SHORT_MIN_BYTES`]
//! builds the last four groups alone on the stack ([`Short`]: Kh^16 …
//! Kh^1) and goes in blocks of 16 coefficients under them
//! ([`absorb_short`]): a quarter of the build, one chained product V ·
//! Kh^16 per 192 bytes instead of V · Kh^64 per 768.
//!
//! # Arithmetic
//! x = Σ x_i·2^(26i), i = 0..5. A word times a power needs no wrap: the five
//! products are the five limbs of the sum. V · Kh^n is Poly1305's AVX2
//! product with 8 for its 5 (2^130 = 8·2^127 ≡ 8), with s_j = 8·k_j:
//!
//! ```text
//! d0 = a0k0 + a1s4 + a2s3 + a3s2 + a4s1     d3 = a0k3 + a1k2 + a2k1 + a3k0 + a4s4
//! d1 = a0k1 + a1k0 + a2s4 + a3s3 + a4s2     d4 = a0k4 + a1k3 + a2k2 + a3k1 + a4k0
//! d2 = a0k2 + a1k1 + a2k0 + a3s4 + a4s3
//! ```
//!
//! The carry differs from Poly1305's: limb 4 holds bits 104 and up, so bits
//! 127 and up are limb 4's bits 23 and up, which 2^127 ≡ 1 folds into limb
//! 0 unscaled.
//!
//! # Limb bounds (64-bit lanes; `vpmuludq` multiplies the low 32 bits)
//! * "At rest" (after a carry step): limbs 0, 2, 3 < 2^26, limb 1 < 2^26 +
//!   2^14.7, limb 4 < 2^23 + 2^11.7: all < 2^26.001. V is always at rest; so
//!   is R from the scalar code (<= 2^127: limbs < 2^26, limb 4 <= 2^23).
//! * Powers: Kh^1 … Kh^4 canonical, the others at rest (a product of
//!   at-rest values, carried), and so are their multiples by 2^32 and 2^64
//!   (limbs < 2^32.01 before their carry step): k_j < 2^26.001, s_j <
//!   2^29.001.
//! * A word < 2^32.
//! * One block's sums: 16 groups of three products per limb, each < 2^32 ·
//!   2^26.001, 48 in all: < 2^63.586; V · Kh^n, five products each <
//!   2^26.001 · 2^29.001: < 2^57.33; in all < 2^63.61: no lane overflows.
//! * Carry step (chains 0→1→2→3 and 3→4→0→1, then 3→4) on sums < 2^63.61:
//!   carries out of limbs 0–3 < 2^37.62, out of limb 4 (its bits 23 up) <
//!   2^40.62, added to limb 0 (< 2^26) and carried on at once: the result is
//!   at rest again (lazy reduction; the scalar code reduces fully at the
//!   end of the hash). Computing the powers carries sums < 2^57.33.
//! * The final lane sum: four at-rest lanes, < 2^28.01 per limb, carried in
//!   scalar.
//!
//! Constant time: straight-line vector arithmetic; the only branches are on
//! lengths. Tested equal to the portable hash at every run length and on
//! extreme keys and coefficients (here, under the qemu CPU models and
//! through the CWC tests of every backend).

use core::arch::x86_64::*;

use super::soft;
use super::source::{Keeping, Slice, Source};
use crate::avx2_mul::{Limbs26 as Limbs, broadcast, carry26, hsum, mul32_at, products26 as mul, splat};
use crate::cpu::Avx2;

const M26: u64 = (1 << 26) - 1;
const M23: u64 = (1 << 23) - 1;

/// Groups of 4 coefficients (48 bytes) in a full block.
const GROUPS: usize = 16;
/// A run of a key without its table takes [`absorb_short`] from this
/// length: below it building the short powers costs more than the lanes
/// save over the portable code. One-shot encryption (key made, then one
/// message) under `valgrind` on the `avx2` tier, instructions per call with
/// the short powers against without: 480 bytes 4,896 against 4,828, 576
/// bytes 5,074 against 5,309, 768 bytes 5,508 against 6,248. In time
/// (capped to `avx2-vaes`, AMD Zen 4, bench medians, two runs, against
/// OpenSSL's one-shot GCM) from 480 bytes, 512 bytes took 1.12–1.15
/// against 1.07–1.09 without; from 768: 1 KiB 1.22–1.23 → 1.10, 1.5 KiB
/// 1.21–1.25 → 0.99–1.00, 2 KiB 1.32 → 0.99–1.02.
pub(crate) const SHORT_MIN_BYTES: usize = 768;

/// Runs shorter than this go through the portable code (below it the lane
/// set-up and the final combination cost more than the lanes save).
pub(crate) const MIN_BYTES: usize = 2 * 96;

/// One group's powers: row 5m + i is limb i of the power of each lane's
/// word in vector m of [`load`] (its chunk's power of Kh times 2^(32j) for
/// word j of the chunk), four lanes.
#[derive(Clone)]
#[repr(C, align(32))]
struct Group([[u64; 4]; 15]);

/// The powers of every group of a full block, Kh^64 … Kh^1.
#[derive(Clone)]
pub(crate) struct Powers([Group; GROUPS]);

/// A key builds [`Powers`] (about 1,100 TSC ticks on an Intel Xeon, 6/167,
/// with its allocation and wipe) once it has hashed this many bytes in
/// runs the lanes could take; before that its runs from
/// [`SHORT_MIN_BYTES`] take [`absorb_short`]. One-shot CWC encryption
/// capped to `avx2-vaes` (AMD Zen 4, bench medians, two runs), against
/// OpenSSL's one-shot GCM, with the table built from 2,048 bytes against
/// from 8,192: 4 KiB 1.14–1.17 against 0.92, 8 KiB 0.95–0.96 against
/// 0.85–0.86, 2 KiB and 16 KiB alike. (Before the short powers, at 2,048:
/// the portable code took 0.72 ticks/B and the lanes 0.25, on that Xeon.)
/// A key used once for a short message never builds the table
/// (`HashKey::absorb` counts).
pub(crate) const BUILD_AFTER_BYTES: usize = 8192;

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        // (32-byte volatile vector stores measured slower than this.)
        self.0.iter_mut().for_each(|g| g.0.as_flattened_mut().zeroize());
    }
}

/// The limbs of x < 2^130 (limb 4 takes bits 104 and up).
fn limbs(x: u128) -> [u64; 5] {
    core::array::from_fn(|i| if i < 4 { (x >> (26 * i)) as u64 & M26 } else { (x >> 104) as u64 })
}

impl Powers {
    /// From Kh^1 … Kh^4 (canonical) of the portable backend, written
    /// straight into their heap block (7.5 KiB: no copy through the stack).
    pub(crate) fn new(token: Avx2, p: &soft::Powers) -> Box<Self> {
        let mut out = Box::<Powers>::new_uninit();
        // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only
        // after detecting AVX2 on this CPU; `out` is a live allocation for
        // one `Powers`.
        unsafe { powers(token, p, out.as_mut_ptr()) };
        // SAFETY: `powers` wrote every row of every group (plain integers).
        unsafe { out.assume_init() }
    }
}

/// The last four groups' powers, Kh^16 … Kh^1 (index j: group 12 + j),
/// from Kh^1 … Kh^4 (canonical) of the portable backend: group 15 in lanes
/// (Kh^4, Kh^3, Kh^2, Kh^1), group 14 a step of Kh^4, groups 13 and 12
/// steps of Kh^8 from 15 and 14.
#[target_feature(enable = "avx2")]
fn last_four(p: &soft::Powers) -> [Limbs; 4] {
    use zeroize::Zeroize;
    let mut k = p.all().map(limbs);
    let lane = |i: usize| _mm256_set_epi64x(k[0][i] as i64, k[1][i] as i64, k[2][i] as i64, k[3][i] as i64);
    let v15: Limbs = core::array::from_fn(lane);
    let v14 = times(&v15, &broadcast::<8>(&k[3]));
    let k8 = splat_lane0(&v14);
    let v = [times(&v14, &k8), times(&v15, &k8), v14, v15];
    k.as_flattened_mut().zeroize();
    v
}

/// x · Kh^e, carried (the power and its multiples by 8).
#[target_feature(enable = "avx2")]
fn times(x: &Limbs, (k, s): &(Limbs, [__m256i; 4])) -> Limbs {
    carry(mul(x, k, s))
}

/// Kh^e broadcast from lane 0 of a group's powers (limbs at rest, < 2^32),
/// with its multiples by 8.
#[target_feature(enable = "avx2")]
fn splat_lane0(x: &Limbs) -> (Limbs, [__m256i; 4]) {
    broadcast::<8>(&x.map(|l| _mm256_cvtsi256_si32(l) as u32 as u64))
}

/// Write each of `powers` (a group's powers, lane c holding chunk c's) and
/// its multiples by 2^32 and 2^64 into the rows of the group at the same
/// index of `out`.
///
/// # Safety
/// AVX2 present; `out` valid for writing `powers.len()` groups.
#[target_feature(enable = "avx2")]
unsafe fn store_groups(powers: &[Limbs], out: *mut Group) {
    use zeroize::Zeroize;
    for (g, power) in powers.iter().enumerate() {
        let shifted = times_2_32(*power);
        let mut rows = arrange(&[*power, shifted, times_2_32(shifted)]);
        for (m, row) in rows.iter().enumerate() {
            for (i, &y) in row.iter().enumerate() {
                // SAFETY: row 5m + i of group g of `out`: 32 writable bytes
                // (the caller's precondition), written without reading.
                unsafe { _mm256_storeu_si256((&raw mut (*out.add(g)).0[5 * m + i]).cast(), y) };
            }
        }
        rows.as_flattened_mut().iter_mut().for_each(Zeroize::zeroize);
    }
}

/// Every group's powers: the last four ([`last_four`]), then each group g <
/// 12 as group g + 4's times Kh^16, so four products are independent at
/// each step (5 steps in a chain, not 15). Every row of `out` is written.
///
/// # Safety
/// AVX2 present; `out` valid for writing one `Powers`.
#[target_feature(enable = "avx2")]
unsafe fn powers(_proof: Avx2, p: &soft::Powers, out: *mut Powers) {
    use zeroize::Zeroize;
    const { assert!(GROUPS == 16) };
    let mut v: [Limbs; GROUPS] = [[_mm256_setzero_si256(); 5]; GROUPS];
    [v[12], v[13], v[14], v[15]] = last_four(p);
    let k16 = splat_lane0(&v[12]);
    for g in (0..12).rev() {
        v[g] = times(&v[g + 4], &k16);
    }
    // SAFETY: `out` is valid for writing one `Powers`: its GROUPS groups
    // (the caller's precondition).
    unsafe { store_groups(&v, (&raw mut (*out).0).cast()) };
    // Every power of Kh passed through `v` on this stack frame.
    v.as_flattened_mut().iter_mut().for_each(Zeroize::zeroize);
}

/// A group's rows from its powers times 2^0, 2^32, 2^64 (`r[j]`, lane c
/// holding chunk c's): vector m, lane l takes `r[j]`'s lane c, for word
/// [`WORDS`]`[m][l]` = 3c + 2 − j (bits 32j … of chunk c):
///
/// ```text
/// vector 0: (c, j) = (0, 2) (0, 1) (0, 0) (1, 2)
/// vector 1:          (1, 1) (1, 0) (2, 2) (2, 1)
/// vector 2:          (2, 0) (3, 2) (3, 1) (3, 0)
/// ```
///
/// (`arrange_follows_the_words` checks every lane against [`WORDS`].)
#[target_feature(enable = "avx2")]
fn arrange(r: &[Limbs; 3]) -> [Limbs; 3] {
    // `permute4x64::<P>` puts source lane (P >> 2q) & 3 in lane q;
    // `blend::<M>(a, b)` takes qword lane q from b where dwords 2q, 2q + 1
    // of M are set: LANE1 and LANE2 take lanes 1 and 2. Each vector is its
    // lanes 0 and 3 from one source, lane 1 from another, lane 2 from the
    // third.
    const LANE1: i32 = 0b0000_1100;
    const LANE2: i32 = 0b0011_0000;
    let rows = |i: usize| {
        let [r0, r1, r2] = [r[0][i], r[1][i], r[2][i]];
        let lanes = |a0_3: __m256i, a1: __m256i, a2: __m256i| {
            _mm256_blend_epi32::<LANE2>(_mm256_blend_epi32::<LANE1>(a0_3, a1), a2)
        };
        let v0 = lanes(
            _mm256_permute4x64_epi64::<0b01_00_00_00>(r2),
            _mm256_permute4x64_epi64::<0>(r1),
            _mm256_permute4x64_epi64::<0>(r0),
        );
        let v1 = lanes(
            _mm256_permute4x64_epi64::<0b10_00_00_01>(r1),
            _mm256_permute4x64_epi64::<0b01_01_01_01>(r0),
            _mm256_permute4x64_epi64::<0b10_10_10_10>(r2),
        );
        let v2 = lanes(
            _mm256_permute4x64_epi64::<0b11_00_00_10>(r0),
            _mm256_permute4x64_epi64::<0b11_11_11_11>(r2),
            _mm256_permute4x64_epi64::<0b11_11_11_11>(r1),
        );
        [v0, v1, v2]
    };
    let by_limb: [[__m256i; 3]; 5] = core::array::from_fn(rows);
    core::array::from_fn(|m| core::array::from_fn(|i| by_limb[i][m]))
}

/// x · 2^32 (x at rest), at rest: x · 2^6 with its limbs moved up one
/// place, limb 4 into limb 0 times 8 (2^130 ≡ 8), then a carry step
/// (its limbs < 2^32.01 before it).
#[target_feature(enable = "avx2")]
fn times_2_32(x: Limbs) -> Limbs {
    let up = _mm256_slli_epi64::<6>;
    carry([_mm256_slli_epi64::<9>(x[4]), up(x[0]), up(x[1]), up(x[2]), up(x[3])])
}

/// R after absorbing the 12-byte chunks of `data` (a multiple of 48 bytes,
/// at least [`MIN_BYTES`]) into R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx2, powers: &Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(48) && data.len() >= MIN_BYTES);
    #[target_feature(enable = "avx2")]
    fn run(_proof: Avx2, powers: &Powers, r: u128, data: &[u8]) -> u128 {
        // SAFETY: the features are this function's own; `data` is its
        // `len / 48` groups.
        unsafe { blocks(&powers.0, r, Slice(data), data.len() / 48) }
    }
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU.
    unsafe { run(token, powers, r, data) }
}

/// The 32-bit words of a group (48 bytes, 12 big-endian words: word d is
/// bytes 4d … 4d + 3, bits 32j … 32j + 31 of chunk d / 3 with j = 2 − d % 3)
/// each vector of [`load`] holds, lane by lane. Vector m is the 16 bytes at
/// 16m in both halves; lane l takes word 4m + l (`vpshufb` stays within
/// 16-byte halves, and each half holds all four). So each vector's words
/// are one load's, and no byte is loaded twice.
const WORDS: [[usize; 4]; 3] = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]];

/// The `vpshufb` pattern of vector m: each lane's word, reversed, in the low
/// 4 bytes of its lane; an index with its top bit set writes 0.
const fn order(m: usize) -> [i8; 32] {
    let mut b = [-1i8; 32];
    let mut l = 0;
    while l < 4 {
        let at = WORDS[m][l] - 4 * m; // the word's place among the 4 loaded
        assert!(at < 4, "a vector's words are its own 16 bytes");
        let mut k = 0;
        while k < 4 {
            b[8 * l + k] = (4 * at + 3 - k) as i8;
            k += 1;
        }
        l += 1;
    }
    b
}

/// A group's 12 words as three vectors from its three 16-byte loads `raw`
/// (each broadcast to both halves), each lane's word ([`WORDS`]) in its low
/// 32 bits, 0 above.
#[target_feature(enable = "avx2")]
#[inline]
fn words(raw: [__m256i; 3]) -> [__m256i; 3] {
    const ORDER: [[i8; 32]; 3] = [order(0), order(1), order(2)];
    core::array::from_fn(|m| {
        // SAFETY: `ORDER[m]` is 32 readable bytes (its type says so).
        let o = unsafe { _mm256_loadu_si256(ORDER[m].as_ptr().cast()) };
        _mm256_shuffle_epi8(raw[m], o)
    })
}

/// The 16 bytes at `p`, in both halves (`vbroadcasti128`).
///
/// # Safety
/// AVX2 present; `p` readable for 16 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load16(p: *const u8) -> __m256i {
    // SAFETY: the caller's 16 readable bytes (unaligned load).
    _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(p.cast()) })
}

/// A group's 12 words (48 bytes) as three vectors ([`words`]).
#[target_feature(enable = "avx2")]
fn load(group: &[u8]) -> [__m256i; 3] {
    assert!(group.len() == 48);
    // SAFETY: `group` is 48 readable bytes: three loads of 16.
    words(core::array::from_fn(|m| unsafe { load16(group.as_ptr().wrapping_add(16 * m)) }))
}

/// A group: four coefficients (48 bytes) as [`load`] gives them.
impl Source<[__m256i; 3]> for Slice<'_> {
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn group(&mut self) -> [__m256i; 3] {
        let (group, rest) = self.0.split_at(48);
        self.0 = rest;
        load(group)
    }
}

/// A group as [`load`] gives it, its three 16-byte loads each stored as
/// loaded.
impl Source<[__m256i; 3]> for Keeping {
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn group(&mut self) -> [__m256i; 3] {
        let (src, keep) = (self.src, self.keep);
        // SAFETY: a group left: 48 readable bytes at `src` and 48 writable
        // at `keep`, apart (`Keeper::run`'s contract). Three loads of 16,
        // each stored as loaded (its register's low half); the words come
        // from these registers, not from memory again.
        let raw = core::array::from_fn(|m| unsafe {
            let x = load16(src.add(16 * m));
            _mm_storeu_si128(keep.add(16 * m).cast(), _mm256_castsi256_si128(x));
            x
        });
        self.src = src.wrapping_add(48);
        self.keep = keep.wrapping_add(48);
        words(raw)
    }
}

/// `t` plus the lane-wise products of a coefficient group `a` (its three
/// words) and a group's powers `p`, read from memory: limb i gains
/// a_0·(row i) + a_1·(row 5 + i) + a_2·(row 10 + i).
#[target_feature(enable = "avx2")]
fn add_products(t: Limbs, a: &[__m256i; 3], p: &Group) -> Limbs {
    let [a0, a1, a2] = *a;
    // Row r of the group is the 32 bytes at offset 32·r.
    macro_rules! limb {
        ($i:literal) => {
            _mm256_add_epi64(
                _mm256_add_epi64(t[$i], mul32_at::<{ 32 * $i }, Group>(a0, p)),
                _mm256_add_epi64(
                    mul32_at::<{ 32 * (5 + $i) }, Group>(a1, p),
                    mul32_at::<{ 32 * (10 + $i) }, Group>(a2, p),
                ),
            )
        };
    }
    [limb!(0), limb!(1), limb!(2), limb!(3), limb!(4)]
}

/// One lazy carry step per lane modulo 2^127 − 1 (see the bounds).
#[target_feature(enable = "avx2")]
#[inline]
fn carry(d: Limbs) -> Limbs {
    carry26::<23, false>(d)
}

/// R (<= 2^127) in lane 0, at rest.
#[target_feature(enable = "avx2")]
fn lane0(r: u128) -> Limbs {
    limbs(r).map(|v| _mm256_set_epi64x(0, 0, 0, v as i64))
}

/// The sum of the four lanes of `t` (at rest), carried
/// and folded to a value <= 2^127.
#[target_feature(enable = "avx2")]
fn lane_sum(t: Limbs) -> u128 {
    let mut d = t.map(|v| u128::from(hsum(v))); // each < 2^61.4
    for i in 0..4 {
        d[i + 1] += d[i] >> 26;
        d[i] &= u128::from(M26);
    }
    d[0] += d[4] >> 23;
    d[4] &= u128::from(M23);
    d[1] += d[0] >> 26;
    d[0] &= u128::from(M26);
    // d0 < 2^26, d1 < 2^26 + 2^13, d2, d3 < 2^26, d4 < 2^23: below 2^128.
    soft::fold_partial(d[0] + (d[1] << 26) + (d[2] << 52) + (d[3] << 78) + (d[4] << 104))
}

/// V · Kh^n plus a block of n coefficients (1 to `groups.len()` groups),
/// carried, under the last n/4 of `groups` (whose last group holds Kh^4 …
/// Kh^1).
///
/// # Safety
/// AVX2 present; `n` groups left in `src`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block<S: Source<[__m256i; 3]>>(groups: &[Group], v: Limbs, src: &mut S, n: usize) -> Limbs {
    let first = groups.len() - n;
    // Kh^n: the block's first chunk's power, unscaled (word 2 of the group:
    // lane 2 of vector 0, rows 0 … 4)
    const { assert!(WORDS[0][2] == 2) };
    let g = &groups[first].0;
    let k: Limbs = core::array::from_fn(|i| splat(g[i][2]));
    let s = core::array::from_fn(|i| _mm256_slli_epi64::<3>(k[i + 1]));
    let mut t = mul(&v, &k, &s);
    for powers in &groups[first..] {
        // SAFETY: one of the caller's `n` groups.
        t = add_products(t, &unsafe { src.group() }, powers);
    }
    carry(t)
}

/// Runs of `n` whole groups (at least [`MIN_BYTES`] / 48) from `src` in
/// blocks of `groups.len()` groups, the last one shorter if the run ends
/// inside a block.
///
/// # Safety
/// AVX2 present; `n` groups in `src`.
#[target_feature(enable = "avx2")]
unsafe fn blocks<S: Source<[__m256i; 3]>>(groups: &[Group], r: u128, mut src: S, mut n: usize) -> u128 {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let mut v = lane0(r);
    while n > 0 {
        let k = n.min(groups.len());
        // SAFETY: `k` of the caller's `n` groups left in `src`.
        v = unsafe { block(groups, v, &mut src, k) };
        n -= k;
    }
    lane_sum(v)
}

/// The last four groups of [`Powers`] alone (Kh^16 … Kh^1, 1.9 KiB), built
/// on the stack for one run of a key whose table is not built: a quarter
/// of the table's products, and a chained product every 16 coefficients
/// instead of 64.
#[repr(C, align(32))]
struct Short([Group; 4]);

/// [`absorb`] for a key without its table: the run in blocks of 16
/// coefficients under [`Short`] powers built for it (and wiped after).
pub(crate) fn absorb_short(token: Avx2, p: &soft::Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(48) && data.len() >= MIN_BYTES);
    // SAFETY: the token as in `absorb`; `data` is its `len / 48` groups.
    unsafe { with_short_powers(token, p, r, Slice(data), data.len() / 48) }
}

/// [`blocks`] of `n` groups from `src` under [`Short`] powers built on the
/// stack for the run (and wiped after).
///
/// # Safety
/// AVX2 present (the token); `n` groups in `src`.
#[target_feature(enable = "avx2")]
unsafe fn with_short_powers<S: Source<[__m256i; 3]>>(
    _proof: Avx2,
    p: &soft::Powers,
    r: u128,
    src: S,
    n: usize,
) -> u128 {
    use zeroize::Zeroize;
    let mut short = core::mem::MaybeUninit::<Short>::uninit();
    let mut v = last_four(p);
    // SAFETY: the local `Short`'s four groups, valid for writing.
    unsafe { store_groups(&v, (&raw mut (*short.as_mut_ptr()).0).cast()) };
    v.as_flattened_mut().iter_mut().for_each(Zeroize::zeroize);
    // SAFETY: `store_group` wrote every row of all four groups (plain
    // integers). Borrowed in place (`assume_init` would copy 1.9 KiB).
    let short = unsafe { short.assume_init_mut() };
    // SAFETY: the caller's groups.
    let r = unsafe { blocks(&short.0, r, src, n) };
    short.0.iter_mut().for_each(|g| g.0.as_flattened_mut().zeroize());
    r
}

/// The powers for a run that keeps what it loads ([`Keeper::run`]): the
/// key's boxed table, or the portable powers to build [`Short`] powers from
/// for the run alone (as [`absorb_short`] does).
pub(crate) enum Keeper<'a> {
    Built(Avx2, &'a Powers),
    Unbuilt(Avx2, &'a soft::Powers),
}

impl Keeper<'_> {
    /// The run's shortest length: [`MIN_BYTES`] under the table,
    /// [`SHORT_MIN_BYTES`] under powers built for it.
    pub(crate) fn min_bytes(&self) -> usize {
        match self {
            Keeper::Built(..) => MIN_BYTES,
            Keeper::Unbuilt(..) => SHORT_MIN_BYTES,
        }
    }

    /// [`absorb`] (or [`absorb_short`]) of the `len` bytes at `src` (a
    /// multiple of 48, at least [`min_bytes`](Self::min_bytes)), storing
    /// each 16 bytes as loaded at the same offset of `keep`: the run is read
    /// once, and what was hashed is what `keep` holds (one-pass
    /// decryption's private copy, made by the hash's own loads).
    ///
    /// # Safety
    /// `src` readable and `keep` writable for `len` bytes, not overlapping;
    /// another thread may write `src` meanwhile.
    pub(crate) unsafe fn run(&self, r: u128, src: *const u8, keep: *mut u8, len: usize) -> u128 {
        assert!(len.is_multiple_of(48) && len >= self.min_bytes());
        let source = Keeping { src, keep };
        match *self {
            // SAFETY: the token as in `absorb`; the source's `len / 48`
            // groups are the caller's `len` bytes.
            Keeper::Built(token, powers) => unsafe { keep_built(token, powers, r, source, len / 48) },
            // SAFETY: as above.
            Keeper::Unbuilt(token, p) => unsafe { with_short_powers(token, p, r, source, len / 48) },
        }
    }
}

/// [`blocks`] under the key's table, entered with the token.
///
/// # Safety
/// AVX2 present (the token); `n` groups in `src`.
#[target_feature(enable = "avx2")]
unsafe fn keep_built(_proof: Avx2, powers: &Powers, r: u128, src: Keeping, n: usize) -> u128 {
    // SAFETY: the caller's groups.
    unsafe { blocks(&powers.0, r, src, n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropping `Powers` zeroes every limb of Kh^1 … Kh^64: no output shows
    /// it, so its drop made a no-op survived mutation testing.
    #[test]
    fn dropping_powers_zeroes_them() {
        let Some(token) = crate::cpu::Features::detect().avx2() else { return };
        let powers = *Powers::new(token, &soft::Powers::new(0x1234_5678_9abc_def0_0fed_cba9_8765_4321));
        assert!(
            powers.0.iter().all(|g| g.0.iter().all(|l| l.iter().any(|&x| x != 0))),
            "every power has a limb to zero"
        );
        let mut p = core::mem::MaybeUninit::new(powers);
        // SAFETY: `p` holds an initialised `Powers`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { p.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `p`'s, and its limbs
        // are plain integers, valid for any bits: read through a raw
        // pointer, with no reference to the dropped `Powers`.
        let limbs = unsafe { (&raw const (*p.as_ptr()).0).read() };
        assert!(limbs.iter().all(|g| g.0 == [[0; 4]; 15]));
    }

    /// Both sets and the odd last group against the portable hash, for hash
    /// keys and running values at their extremes and all-0xff or random
    /// coefficients, every run length from 4 to 83 groups of 4.
    #[test]
    fn equals_the_portable_hash_at_the_extremes() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        equals_the_portable_hash(4, &|soft| {
            let lanes = Powers::new(token, soft);
            Box::new(move |r, data| absorb(token, &lanes, r, data))
        });
    }

    /// The same for a key without its table ([`absorb_short`]: blocks of 16
    /// coefficients under the last four groups' powers), from its shortest
    /// run through many blocks and every remainder of one.
    #[test]
    fn short_powers_equal_the_portable_hash_at_the_extremes() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        equals_the_portable_hash(MIN_BYTES / 48, &|soft| {
            let soft = soft.clone();
            Box::new(move |r, data| absorb_short(token, &soft, r, data))
        });
    }

    /// The run that keeps what it loads ([`Keeper::run`]), under the key's
    /// table and under powers built for the run, against the portable hash
    /// at every run length from its shortest to 83 groups; what it kept is
    /// the run, byte for byte, and nothing past it is written.
    #[test]
    fn keeping_runs_equal_the_portable_hash_and_keep_what_they_hashed() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        for built in [false, true] {
            let fewest = if built { MIN_BYTES } else { SHORT_MIN_BYTES } / 48;
            equals_the_portable_hash(fewest, &|soft| {
                let (soft, table) = (soft.clone(), Powers::new(token, soft));
                Box::new(move |r, data| {
                    let keeper = if built { Keeper::Built(token, &table) } else { Keeper::Unbuilt(token, &soft) };
                    assert_eq!(keeper.min_bytes(), 48 * fewest);
                    let mut keep = vec![0x5au8; data.len() + 49];
                    // SAFETY: `data` is readable and `keep` writable for
                    // `data.len()` bytes; they are apart.
                    let got = unsafe { keeper.run(r, data.as_ptr(), keep.as_mut_ptr(), data.len()) };
                    assert_eq!(&keep[..data.len()], data, "built {built}");
                    assert!(keep[data.len()..].iter().all(|&b| b == 0x5a), "built {built}");
                    got
                })
            });
        }
    }

    /// `lanes(powers)` against the portable hash for Kh at the extremes
    /// (every limb of every power as large as canonical allows) and at
    /// random, R at 0, 1, p, 2^127, coefficients all ones or random, runs
    /// of `fewest` to 83 groups (24 under emulation).
    #[allow(clippy::type_complexity)]
    fn equals_the_portable_hash(fewest: usize, lanes: &dyn Fn(&soft::Powers) -> Box<dyn Fn(u128, &[u8]) -> u128>) {
        let p127 = (1u128 << 127) - 1;
        let mut x = 0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15u128;
        let mut rand = || {
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834).wrapping_add(0x1234_5679);
            x
        };
        let mut khs = vec![1u128, 2, p127 - 1, p127 - 2, (1 << 126) + 1, (1 << 104) - 1];
        khs.extend((0..6).map(|_| rand() & p127));
        let most = if std::env::var_os("WEGMAN_EMULATED").is_some() { 24 } else { 83 };
        for kh in khs {
            let soft = soft::Powers::new(kh);
            let hash = lanes(&soft);
            for (i, r) in [0u128, 1, p127, 1 << 127, rand() & p127].into_iter().enumerate() {
                for groups in fewest..=most {
                    let data: Vec<u8> =
                        (0..48 * groups).map(|_| if (i + groups) % 3 == 0 { 0xff } else { rand() as u8 }).collect();
                    let want = soft::canonical(soft.absorb(r, &data));
                    let got = hash(r, &data);
                    assert!(got <= 1 << 127);
                    assert_eq!(soft::canonical(got), want, "kh {kh:x} r {r:x} groups {groups}");
                }
            }
        }
    }

    /// `arrange` gives lane l of vector m the power of word `WORDS[m][l]`:
    /// chunk c's lane of `r[j]`, limb by limb, for every lane of every
    /// vector (each input value marked with its j, limb and lane).
    #[test]
    fn arrange_follows_the_words() {
        if crate::cpu::Features::detect().avx2().is_none() {
            return;
        }
        let mark = |j: usize, i: usize, c: usize| (100 * j + 10 * i + c) as u64 + 1;
        let r: [Limbs; 3] = core::array::from_fn(|j| {
            core::array::from_fn(|i| {
                let v: [u64; 4] = core::array::from_fn(|c| mark(j, i, c));
                // SAFETY: `v` is 32 readable bytes; the CPU has AVX2.
                unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
            })
        });
        // SAFETY: the CPU has AVX2 (checked above).
        let rows = unsafe { arrange(&r) };
        for (m, row) in rows.iter().enumerate() {
            for (i, v) in row.iter().enumerate() {
                let mut got = [0u64; 4];
                // SAFETY: `got` is 32 writable bytes.
                unsafe { _mm256_storeu_si256(got.as_mut_ptr().cast(), *v) };
                let want: [u64; 4] = core::array::from_fn(|l| mark(2 - WORDS[m][l] % 3, i, WORDS[m][l] / 3));
                assert_eq!(got, want, "vector {m}, limb {i}");
            }
        }
    }

    /// The loader puts every byte of a group in the lane [`WORDS`] gives its
    /// word, at its place in the word, and nowhere else: one byte set at a
    /// time, every lane read back. (So every word is taken exactly once.)
    #[test]
    fn load_places_every_byte() {
        if crate::cpu::Features::detect().avx2().is_none() {
            return;
        }
        for byte in 0..48 {
            let mut g = [0u8; 48];
            g[byte] = 0xa5;
            // SAFETY: the CPU has AVX2 (checked above).
            let vectors = unsafe { load(&g) };
            let mut found = vec![];
            for (m, v) in vectors.iter().enumerate() {
                let mut l = [0u64; 4];
                // SAFETY: `l` is 32 writable bytes.
                unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), *v) };
                found.extend(l.iter().enumerate().filter(|&(_, &x)| x != 0).map(|(lane, &x)| (m, lane, x)));
            }
            let want = (0..3)
                .flat_map(|m| (0..4).map(move |l| (m, l)))
                .filter(|&(m, l)| WORDS[m][l] == byte / 4)
                .map(|(m, l)| (m, l, 0xa5u64 << (8 * (3 - byte % 4))))
                .collect::<Vec<_>>();
            assert_eq!(want.len(), 1, "word {} is in one lane", byte / 4);
            assert_eq!(found, want, "byte {byte}");
        }
    }
}
