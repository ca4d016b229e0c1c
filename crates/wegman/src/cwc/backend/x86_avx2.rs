//! AVX2 CWC-HASH: four lanes of radix-2^26 limbs modulo p = 2^127 − 1,
//! 32×32→64-bit products (`vpmuludq`), two sets of lanes in flight.
//!
//! # Method
//! As the IFMA leaf, with four lanes per register: of every 8 coefficients
//! of a run (the 96-bit big-endian chunks Y_i), set A holds numbers 0–3 and
//! set B numbers 4–7; each step multiplies every lane by Kh^8 and adds the
//! next 8 coefficients; at the end A's lane for coefficient j is multiplied
//! by Kh^(8−j), B's by Kh^(4−j), and all lanes are added. The two
//! multiply-and-carry chains are independent, so the core overlaps them. A
//! run with an odd number of 4-coefficient groups ends with its last group
//! in one set (step Kh^4, final powers Kh^4 … Kh^1). The running R of the
//! chunks before the run enters coefficient 0's lane before the first step,
//! so it is multiplied by Kh^n for a run of n coefficients, as Horner's rule
//! has it (paper §6).
//!
//! Loading 4 coefficients (48 bytes): two registers of two 16-byte windows
//! each, chunk c at byte 0 of its window (c = 0, 1, 2) or byte 4 (c = 3,
//! whose window ends the group: no byte past the 48 is read); one `vpshufb`
//! per register puts each chunk's low 8 bytes, reversed, in qword 0 of its
//! half (the low 64 bits of Y) and its first 4, reversed, in qword 1 (the
//! top 32 bits); `unpacklo/hi` gather them, lanes in chunk order 0, 2, 1, 3
//! (so the final powers per lane are Kh^(k+4), Kh^(k+2), Kh^(k+3), Kh^(k+1)).
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
//! — Poly1305's AVX2 product with 8 for its 5; the carry differs: limb 4
//! holds bits 104 and up, so bits 127 and up are limb 4's bits 23 and up,
//! which 2^127 ≡ 1 folds into limb 0 unscaled.
//!
//! # Limb bounds (64-bit lanes; `vpmuludq` multiplies the low 32 bits)
//! * Powers (canonical, < 2^127): limbs < 2^26, limb 4 < 2^23; s_j < 2^29.
//! * A coefficient (< 2^96): limbs < 2^26, limb 3 < 2^18, limb 4 = 0.
//! * R from the scalar code (<= 2^127): limbs < 2^26, limb 4 <= 2^23.
//! * Accumulator at rest (after the carry step): limbs 0, 2, 3 < 2^26,
//!   limb 1 < 2^26 + 2^9.5, limb 4 < 2^23 + 2^6.6; plus a coefficient
//!   (or R plus a coefficient in the first group): limbs < 2^27.01, limb 3
//!   < 2^26.01, limb 4 < 2^23.01 — all < 2^32, as `vpmuludq` needs.
//! * Products < 2^27.01 · 2^29 = 2^56.01; five-term sums < 2^58.34: no lane
//!   overflows. The final products obey the same bound; A's and B's added
//!   < 2^59.34, their 4-lane sums < 2^61.34, carried in scalar.
//! * Carry step (chains 0→1→2→3 and 3→4→0→1, then 3→4): carries out of
//!   limbs 0–3 < 2^32.5, out of limb 4 (its bits 23 up) < 2^35.4, added to
//!   limb 0 (< 2^26) and carried on at once: the at-rest bounds hold again
//!   (lazy reduction; the scalar code reduces fully at the end of the hash).
//!
//! Constant time: straight-line vector arithmetic; the only branches are on
//! lengths. Tested equal to the portable hash at every run length and on
//! extreme keys and coefficients (here, under the qemu CPU models and
//! through the CWC tests of every backend).

use core::arch::x86_64::*;

use super::soft;
use crate::avx2_mul::{Limbs26 as Limbs, hsum, products26 as mul};
use crate::cpu::Avx2;

const M26: u64 = (1 << 26) - 1;
const M23: u64 = (1 << 23) - 1;

/// Runs shorter than this go through the portable code (below it the lane
/// set-up and the final combination cost more than the lanes save).
pub(crate) const MIN_BYTES: usize = 2 * 96;

/// Kh^1 … Kh^8 in radix-2^26 limbs.
#[derive(Clone)]
pub(crate) struct Powers([[u64; 5]; 8]);

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.0.iter_mut().for_each(|l| l.zeroize());
    }
}

/// The limbs of x < 2^130 (limb 4 takes bits 104 and up).
fn limbs(x: u128) -> [u64; 5] {
    core::array::from_fn(|i| if i < 4 { (x >> (26 * i)) as u64 & M26 } else { (x >> 104) as u64 })
}

impl Powers {
    /// From Kh^1 … Kh^4 (canonical) of the portable backend.
    pub(crate) fn new(p: &soft::Powers) -> Self {
        let k4 = p.all();
        let mut k = [0u128; 8];
        k[..4].copy_from_slice(&k4);
        for e in 5..=8 {
            // Kh^e = Kh^4 · Kh^(e−4)
            k[e - 1] = soft::canonical(soft::mul(k[3], k[e - 5]));
        }
        let out = Powers(k.map(limbs));
        use zeroize::Zeroize;
        k.zeroize();
        out
    }

    /// Kh^e, e counted from 1.
    fn get(&self, e: usize) -> &[u64; 5] {
        &self.0[e - 1]
    }
}

/// R after absorbing the 12-byte chunks of `data` (a multiple of 48 bytes,
/// at least [`MIN_BYTES`]) into R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx2, powers: &Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(48) && data.len() >= MIN_BYTES);
    let (pairs, last) = data.split_at(data.len() - data.len() % 96);
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU.
    let r = unsafe { two_sets(token, powers, r, pairs) };
    if last.is_empty() {
        return r;
    }
    // SAFETY: as above.
    unsafe { one_set(token, powers, r, last) }
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

/// Four coefficients (48 bytes) as limb vectors, lanes in chunk order 0, 2, 1, 3.
#[target_feature(enable = "avx2")]
fn load(group: &[u8]) -> Limbs {
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
        _mm256_setzero_si256(),
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

/// The multipliers of the final combination: lanes holding chunks 0, 2, 1,
/// 3 of a group times Kh^(top), Kh^(top − 2), Kh^(top − 1), Kh^(top − 3).
#[target_feature(enable = "avx2")]
fn per_lane(p: &Powers, top: usize) -> (Limbs, [__m256i; 4]) {
    let order = [p.get(top), p.get(top - 2), p.get(top - 1), p.get(top - 3)];
    let limb =
        |i: usize| _mm256_set_epi64x(order[3][i] as i64, order[2][i] as i64, order[1][i] as i64, order[0][i] as i64);
    let k: Limbs = core::array::from_fn(limb);
    let s = core::array::from_fn(|i| _mm256_slli_epi64::<3>(k[i + 1]));
    (k, s)
}

/// `x` plus R in lane 0 (chunk 0 of the first group).
#[target_feature(enable = "avx2")]
fn plus_r(mut x: Limbs, r: u128) -> Limbs {
    for (limb, v) in x.iter_mut().zip(limbs(r)) {
        *limb = _mm256_add_epi64(*limb, _mm256_set_epi64x(0, 0, 0, v as i64));
    }
    x
}

/// Lane-wise a + b.
#[target_feature(enable = "avx2")]
fn add(a: Limbs, b: Limbs) -> Limbs {
    core::array::from_fn(|i| _mm256_add_epi64(a[i], b[i]))
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

/// Runs of 8 coefficients (a non-empty multiple of 96 bytes) in sets A and B.
#[target_feature(enable = "avx2")]
fn two_sets(_proof: Avx2, p: &Powers, r: u128, data: &[u8]) -> u128 {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let (k8, s8) = broadcast(p.get(8));
    let mut steps = data.chunks_exact(96);
    let first = steps.next().expect("at least one step");
    let mut a = plus_r(load(&first[..48]), r);
    let mut b = load(&first[48..]);
    for g in steps {
        // multiply and carry first, then load: the loaded limbs are not
        // live across the multiply (fewer spills)
        a = carry(mul(&a, &k8, &s8));
        b = carry(mul(&b, &k8, &s8));
        a = add(a, load(&g[..48]));
        b = add(b, load(&g[48..]));
    }
    let (ka, sa) = per_lane(p, 8);
    let (kb, sb) = per_lane(p, 4);
    lane_sum(add(mul(&a, &ka, &sa), mul(&b, &kb, &sb)))
}

/// One group of 4 coefficients (48 bytes) or more, a multiple of 48 bytes, in one set.
#[target_feature(enable = "avx2")]
fn one_set(_proof: Avx2, p: &Powers, r: u128, data: &[u8]) -> u128 {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let (k4, s4) = broadcast(p.get(4));
    let mut groups = data.chunks_exact(48);
    let mut a = plus_r(load(groups.next().expect("at least one group")), r);
    for g in groups {
        a = add(carry(mul(&a, &k4, &s4)), load(g));
    }
    let (kf, sf) = per_lane(p, 4);
    lane_sum(mul(&a, &kf, &sf))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropping `Powers` zeroes every limb of Kh^1 … Kh^8: no output shows
    /// it, so its drop made a no-op survived mutation testing.
    #[test]
    fn dropping_powers_zeroes_them() {
        let powers = Powers::new(&soft::Powers::new(0x1234_5678_9abc_def0_0fed_cba9_8765_4321));
        assert!(powers.0.iter().all(|p| p.iter().any(|&l| l != 0)), "every power has a limb to zero");
        let mut p = core::mem::MaybeUninit::new(powers);
        // SAFETY: `p` holds an initialised `Powers`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { p.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `p`'s, and its limbs
        // are plain integers, valid for any bits: read through a raw
        // pointer, with no reference to the dropped `Powers`.
        let limbs = unsafe { (&raw const (*p.as_ptr()).0).read() };
        assert_eq!(limbs, [[0; 5]; 8]);
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
            let lanes = Powers::new(&soft);
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
