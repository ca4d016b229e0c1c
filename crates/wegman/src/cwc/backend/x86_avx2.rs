//! AVX2 CWC-HASH: four lanes of radix-2^26 limbs modulo p = 2^127 − 1,
//! 32×32→64-bit products (`vpmuludq`), each coefficient multiplied by its
//! own precomputed power of Kh.
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
//! The sum is a sum of independent products: each group of 4 coefficients
//! is multiplied, lane by lane, by a precomputed vector of powers and
//! added, unreduced, into 64-bit sums; only V · Kh^n and one carry step per
//! block are chained. A coefficient has four limbs (< 2^96), so a group costs
//! 20 `vpmuludq` with the powers read from memory, and no carry; the block's
//! V · Kh^n (25 products) and carry are shared by its 16 groups. The Horner
//! form with a broadcast Kh^8 and two register sets did 25 products and a
//! carry step per group: CWC-AES-128 encryption (key made once, hot, VAES-256
//! counter mode) took 0.58–0.62 ticks/B at 16 KiB on an Intel Xeon (family 6,
//! model 167, capped to `avx2-vaes`) against 0.47–0.48 now; blocks of 8
//! groups took 0.50–0.55.
//!
//! A block of n < 64 coefficients (a run's last) uses the last n/4 group
//! vectors and Kh^n, so its powers run n, n−1, … 1 as well. R from the
//! chunks before the run starts in lane 0 of V; at the end the four lanes
//! are added (no per-lane powers: every coefficient already has its own).
//!
//! Loading 4 coefficients (48 bytes): two registers of two 16-byte windows
//! each, chunk c at byte 0 of its window (c = 0, 1, 2) or byte 4 (c = 3,
//! whose window ends the group: no byte past the 48 is read); one `vpshufb`
//! per register puts each chunk's low 8 bytes, reversed, in qword 0 of its
//! half (the low 64 bits of Y) and its first 4, reversed, in qword 1 (the
//! top 32 bits); `unpacklo/hi` gather them, lanes in chunk order 0, 2, 1, 3.
//! Group g of 16 (chunk c of it is coefficient 4g + c of a full block) has
//! the powers Kh^(64−4g−c) in that lane order: Kh^(64−4g), Kh^(62−4g),
//! Kh^(63−4g), Kh^(61−4g); group 15's are Kh^4, Kh^2, Kh^3, Kh^1, and group
//! g's are group g + j's times Kh^(4j), computed with these same lanes once
//! the key has offered them [`BUILD_AFTER_BYTES`] (4.5 KiB per key,
//! [`Powers::new`]). Kh^(4r) is lane 0 of group 16 − r.
//!
//! # Arithmetic
//! x = Σ x_i·2^(26i), i = 0..5. 2^130 = 8·2^127 ≡ 8, so with s_j = 8·k_j
//!
//! ```text
//! d0 = a0k0 + a1s4 + a2s3 + a3s2 + a4s1     d3 = a0k3 + a1k2 + a2k1 + a3k0 + a4s4
//! d1 = a0k1 + a1k0 + a2s4 + a3s3 + a4s2     d4 = a0k4 + a1k3 + a2k2 + a3k1 + a4k0
//! d2 = a0k2 + a1k1 + a2k0 + a3s4 + a4s3
//! ```
//!
//! — Poly1305's AVX2 product with 8 for its 5 (a coefficient's a4 is 0: its
//! five terms drop); the carry differs: limb 4 holds bits 104 and up, so
//! bits 127 and up are limb 4's bits 23 and up, which 2^127 ≡ 1 folds into
//! limb 0 unscaled.
//!
//! # Limb bounds (64-bit lanes; `vpmuludq` multiplies the low 32 bits)
//! * "At rest" (after a carry step): limbs 0, 2, 3 < 2^26, limb 1 < 2^26 +
//!   2^12.2, limb 4 < 2^23 + 2^9.2: all < 2^26.01. V is always at rest; so
//!   is R from the scalar code (<= 2^127: limbs < 2^26, limb 4 <= 2^23).
//! * Powers: Kh^1 … Kh^4 canonical, the others at rest (a product of
//!   at-rest values, carried): k_j < 2^26.01, s_j < 2^29.01.
//! * A coefficient (< 2^96): limbs < 2^26, limb 3 < 2^18, limb 4 = 0.
//! * One block's sums: V · Kh^n, five products each < 2^26.01 · 2^29.01,
//!   < 2^57.35; 16 groups of four products each < 2^26 · 2^29.01, < 2^61.01;
//!   in all < 2^61.1: no lane overflows.
//! * Carry step (chains 0→1→2→3 and 3→4→0→1, then 3→4) on sums < 2^61.1:
//!   carries out of limbs 0–3 < 2^35.2, out of limb 4 (its bits 23 up) <
//!   2^38.1, added to limb 0 (< 2^26) and carried on at once: the result is
//!   at rest again (lazy reduction; the scalar code reduces fully at the
//!   end of the hash). Computing the powers carries sums < 2^57.35.
//! * The final lane sum: four at-rest lanes, < 2^28.01 per limb, carried in
//!   scalar.
//!
//! Constant time: straight-line vector arithmetic; the only branches are on
//! lengths. Tested equal to the portable hash at every run length and on
//! extreme keys and coefficients (here, under the qemu CPU models and
//! through the CWC tests of every backend).

use core::arch::x86_64::*;

use super::soft;
use crate::avx2_mul::{Limbs26 as Limbs, hsum, mul32_at, products26 as mul};
use crate::cpu::Avx2;

const M26: u64 = (1 << 26) - 1;
const M23: u64 = (1 << 23) - 1;

/// Groups of 4 coefficients (48 bytes) in a full block.
const GROUPS: usize = 16;
/// A full block's bytes.
const BLOCK: usize = 48 * GROUPS;

/// Runs shorter than this go through the portable code (below it the lane
/// set-up and the final combination cost more than the lanes save).
pub(crate) const MIN_BYTES: usize = 2 * 96;

/// One group's powers in lane order (see the module documentation): the
/// five limbs k, then s_j = 8·k_j for j = 1..4, four lanes each.
#[derive(Clone)]
#[repr(C, align(32))]
struct Group([[u64; 4]; 9]);

/// The powers of every group of a full block, Kh^64 … Kh^1.
#[derive(Clone)]
pub(crate) struct Powers([Group; GROUPS]);

/// A key's lanes repay building [`Powers`] (about 700 TSC ticks on an Intel
/// Xeon, 6/167, with its allocation and wipe) once it has hashed this many
/// bytes in runs the lanes could take: there the portable code took 0.72
/// ticks/B and the lanes 0.36. A key used once for a short message never
/// builds them (`HashKey::absorb` counts).
pub(crate) const BUILD_AFTER_BYTES: usize = 2048;

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
    /// straight into their heap block (4.5 KiB: no copy through the stack).
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

/// The last group's powers (Kh^4, Kh^2, Kh^3, Kh^1), and every other
/// group's from it: group 14 steps by Kh^4, groups 13 and 12 by Kh^8 (from
/// 15 and 14), then each group g < 12 is group g + 4's times Kh^16, so four
/// products are independent at each step (5 steps in a chain, not 15).
/// Every row of `out` is written.
///
/// # Safety
/// AVX2 present; `out` valid for writing one `Powers`.
#[target_feature(enable = "avx2")]
unsafe fn powers(_proof: Avx2, p: &soft::Powers, out: *mut Powers) {
    use zeroize::Zeroize;
    const { assert!(GROUPS == 16) };
    let mut k = p.all().map(limbs);
    let lane = |i: usize| _mm256_set_epi64x(k[0][i] as i64, k[2][i] as i64, k[1][i] as i64, k[3][i] as i64);
    let mut v: [Limbs; GROUPS] = [[_mm256_setzero_si256(); 5]; GROUPS];
    v[15] = core::array::from_fn(lane);
    let times = |x: &Limbs, (k, s): &(Limbs, [__m256i; 4])| carry(mul(x, k, s));
    // Kh^e broadcast from lane 0 of group 16 − e/4 (limbs at rest, < 2^32)
    let splat_lane0 = |x: &Limbs| broadcast(&x.map(|l| _mm256_cvtsi256_si32(l) as u32 as u64));
    let k4 = broadcast(&k[3]);
    v[14] = times(&v[15], &k4);
    let k8 = splat_lane0(&v[14]);
    v[13] = times(&v[15], &k8);
    v[12] = times(&v[14], &k8);
    let k16 = splat_lane0(&v[12]);
    for g in (0..12).rev() {
        v[g] = times(&v[g + 4], &k16);
    }
    for (g, x) in v.iter().enumerate() {
        for i in 0..9 {
            let y = if i < 5 { x[i] } else { _mm256_slli_epi64::<3>(x[i - 4]) };
            // SAFETY: row i of group g of `*out`: 32 writable bytes (the
            // caller's precondition), written without reading.
            unsafe { _mm256_storeu_si256((&raw mut (*out).0[g].0[i]).cast(), y) };
        }
    }
    k.as_flattened_mut().zeroize();
    // Every power of Kh passed through `v` on this stack frame.
    v.as_flattened_mut().iter_mut().for_each(Zeroize::zeroize);
}

/// R after absorbing the 12-byte chunks of `data` (a multiple of 48 bytes,
/// at least [`MIN_BYTES`]) into R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx2, powers: &Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(48) && data.len() >= MIN_BYTES);
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU.
    unsafe { blocks(token, powers, r, data) }
}

#[target_feature(enable = "avx2")]
fn splat(x: u64) -> __m256i {
    _mm256_set1_epi64x(x as i64)
}

/// Two 16-byte windows of `group`, at `lo` and `hi`, as one register.
#[target_feature(enable = "avx2")]
fn windows(group: &[u8], lo: usize, hi: usize) -> __m256i {
    let (a, b) = (&group[lo..lo + 16], &group[hi..hi + 16]);
    // SAFETY: `a` and `b` are 16 readable bytes each: two unaligned loads.
    unsafe { _mm256_loadu2_m128i(b.as_ptr().cast(), a.as_ptr().cast()) }
}

/// Four coefficients (48 bytes) as limb vectors 0–3 (limb 4 is 0), lanes in
/// chunk order 0, 2, 1, 3.
#[target_feature(enable = "avx2")]
fn load(group: &[u8]) -> [__m256i; 4] {
    assert!(group.len() == 48);
    // In a half whose chunk starts at byte `o` of its window: bytes o+11 …
    // o+4 (the low 64 bits, reversed) in qword 0, bytes o+3 … o in qword 1
    // and zeros above them (an index with its top bit set writes 0).
    let order =
        |o: i8| [o + 11, o + 10, o + 9, o + 8, o + 7, o + 6, o + 5, o + 4, o + 3, o + 2, o + 1, o, -1, -1, -1, -1];
    let shuffle = |lo: [i8; 16], hi: [i8; 16]| {
        let b: [i8; 32] = core::array::from_fn(|i| if i < 16 { lo[i] } else { hi[i - 16] });
        // SAFETY: `b` is 32 readable bytes.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    };
    // chunks 0 and 1 at the start of their windows; chunk 2 likewise,
    // chunk 3 at byte 4 of the group's last 16 bytes
    let x = _mm256_shuffle_epi8(windows(group, 0, 12), shuffle(order(0), order(0)));
    let y = _mm256_shuffle_epi8(windows(group, 24, 32), shuffle(order(0), order(4)));
    let lo = _mm256_unpacklo_epi64(x, y); // low 64 bits of chunks 0, 2 | 1, 3
    let hi = _mm256_unpackhi_epi64(x, y); // top 32 bits, likewise
    let m = splat(M26);
    [
        _mm256_and_si256(lo, m),
        _mm256_and_si256(_mm256_srli_epi64::<26>(lo), m),
        _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)), m),
        _mm256_srli_epi64::<14>(hi),
    ]
}

/// `t` plus the lane-wise products of a coefficient group `a` (limb 4 = 0)
/// and a group's powers `p`, read from memory.
#[target_feature(enable = "avx2")]
fn add_products(t: Limbs, a: &[__m256i; 4], p: &Group) -> Limbs {
    let [a0, a1, a2, a3] = *a;
    // Entry i of the group is the 32 bytes at offset 32·i.
    const K0: usize = 0;
    const K1: usize = 1;
    const K2: usize = 2;
    const K3: usize = 3;
    const K4: usize = 4;
    const S2: usize = 6;
    const S3: usize = 7;
    const S4: usize = 8;
    macro_rules! m {
        ($x:expr, $entry:expr) => {
            mul32_at::<{ 32 * $entry }, Group>($x, p)
        };
    }
    let add4 = |t: __m256i, q: [__m256i; 4]| {
        _mm256_add_epi64(t, _mm256_add_epi64(_mm256_add_epi64(q[0], q[1]), _mm256_add_epi64(q[2], q[3])))
    };
    [
        add4(t[0], [m!(a0, K0), m!(a1, S4), m!(a2, S3), m!(a3, S2)]),
        add4(t[1], [m!(a0, K1), m!(a1, K0), m!(a2, S4), m!(a3, S3)]),
        add4(t[2], [m!(a0, K2), m!(a1, K1), m!(a2, K0), m!(a3, S4)]),
        add4(t[3], [m!(a0, K3), m!(a1, K2), m!(a2, K1), m!(a3, K0)]),
        add4(t[4], [m!(a0, K4), m!(a1, K3), m!(a2, K2), m!(a3, K1)]),
    ]
}

/// One lazy carry step per lane: two interleaved chains (see the bounds).
#[target_feature(enable = "avx2")]
fn carry(d: Limbs) -> Limbs {
    let m = splat(M26);
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
    // bits 127 and up (limb 4's bits 23 and up): 2^127 ≡ 1
    c = _mm256_srli_epi64::<23>(d4);
    d4 = _mm256_and_si256(d4, splat(M23));
    d0 = _mm256_add_epi64(d0, c);
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

/// `k` broadcast to every lane, and 8·k_1 … 8·k_4.
#[target_feature(enable = "avx2")]
fn broadcast(k: &[u64; 5]) -> (Limbs, [__m256i; 4]) {
    (core::array::from_fn(|i| splat(k[i])), core::array::from_fn(|i| splat(k[i + 1] << 3)))
}

/// R (<= 2^127) in lane 0, at rest.
#[target_feature(enable = "avx2")]
fn lane0(r: u128) -> Limbs {
    limbs(r).map(|v| _mm256_set_epi64x(0, 0, 0, v as i64))
}

/// The sum of the four lanes of `t` (each limb's lanes < 2^59.4), carried
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

/// V · Kh^n plus a block of n coefficients (1 to 16 groups), carried.
#[target_feature(enable = "avx2")]
#[inline]
fn block(p: &Powers, v: Limbs, data: &[u8]) -> Limbs {
    let first = GROUPS - data.len() / 48;
    // Kh^n: lane 0 of the block's first group
    let g = &p.0[first].0;
    let k = core::array::from_fn(|i| splat(g[i][0]));
    let s = core::array::from_fn(|i| splat(g[5 + i][0]));
    let mut t = mul(&v, &k, &s);
    for (group, powers) in data.chunks_exact(48).zip(&p.0[first..]) {
        t = add_products(t, &load(group), powers);
    }
    carry(t)
}

/// Runs of whole groups (a multiple of 48 bytes, at least [`MIN_BYTES`]):
/// full blocks, the last one shorter if the run ends inside a block.
#[target_feature(enable = "avx2")]
fn blocks(_proof: Avx2, p: &Powers, r: u128, data: &[u8]) -> u128 {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let mut v = lane0(r);
    for b in data.chunks(BLOCK) {
        v = block(p, v, b);
    }
    lane_sum(v)
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
        assert!(limbs.iter().all(|g| g.0 == [[0; 4]; 9]));
    }

    /// Both sets and the odd last group against the portable hash, for hash
    /// keys and running values at their extremes and all-0xff or random
    /// coefficients, every run length from 4 to 83 groups of 4.
    #[test]
    fn equals_the_portable_hash_at_the_extremes() {
        let Some(token) = crate::cpu::Features::detect().avx2() else {
            // a capped build, or a CPU without the instructions, skips this
            let uncapped = crate::cpu::Features::uncapped().avx2().is_some();
            eprintln!("skipped: {}", crate::cpu::Features::explain_missing("Avx2", uncapped));
            return;
        };
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
            let lanes = Powers::new(token, &soft);
            for (i, r) in [0u128, 1, p127, 1 << 127, rand() & p127].into_iter().enumerate() {
                for groups in 4..=most {
                    let data: Vec<u8> =
                        (0..48 * groups).map(|_| if (i + groups) % 3 == 0 { 0xff } else { rand() as u8 }).collect();
                    let want = soft::canonical(soft.absorb(r, &data));
                    let got = absorb(token, &lanes, r, &data);
                    assert!(got <= 1 << 127);
                    assert_eq!(soft::canonical(got), want, "kh {kh:x} r {r:x} groups {groups}");
                }
            }
        }
    }

    /// The loader puts every byte of every chunk where the coefficient has
    /// it: one byte set at a time, the lane's limbs read back.
    #[test]
    fn load_places_every_byte() {
        if crate::cpu::Features::detect().avx2().is_none() {
            return;
        }
        for byte in 0..48 {
            let mut g = [0u8; 48];
            g[byte] = 0xa5;
            // SAFETY: the CPU has AVX2 (checked above).
            let limbs = unsafe { load(&g) };
            let chunk = byte / 12;
            let lane = [0, 2, 1, 3][chunk];
            let mut value = 0u128;
            for (i, v) in limbs.iter().enumerate() {
                let mut l = [0u64; 4];
                // SAFETY: `l` is 32 writable bytes.
                unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), *v) };
                for (j, &x) in l.iter().enumerate() {
                    if j != lane {
                        assert_eq!(x, 0, "byte {byte} leaked into lane {j}");
                    }
                }
                value += u128::from(l[lane]) << (26 * i);
            }
            assert_eq!(value, 0xa5u128 << (8 * (11 - byte % 12)), "byte {byte}");
        }
    }
}
