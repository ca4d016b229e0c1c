//! AVX-512 IFMA Poly1305: eight lanes of radix-2^44 limbs, two independent
//! sets of lanes, 52-bit multiply-adds (`vpmadd52luq`/`vpmadd52huq`); the
//! portable code for short inputs and between calls.
//!
//! # Method
//! As in `x86_avx2.rs`, one step of many lanes: a set of eight lanes holds
//! eight consecutive blocks, lane j accumulating blocks j+1, j+1+16, …; two
//! sets A and B hold blocks 1–8 and 9–16 of every 16, each step multiplied
//! by r^16, and at the end lane j of A is multiplied by r^(16−j), of B by
//! r^(8−j), and everything is added up. The two multiply-and-carry chains
//! are independent, so the core overlaps them (`vpmadd52*` has a latency of
//! about 4 cycles; one chain per step would wait on it). A remaining
//! 8-block group runs through one set (powers r^8 … r^1); fewer blocks go
//! through the portable code. Loads: two 64-byte loads hold blocks 0–3 and
//! 4–7; `unpacklo/hi` put their 64-bit halves into the lanes in block order
//! 0, 4, 1, 5, 2, 6, 3, 7, and the final powers follow that order.
//!
//! Runs of 8 KiB and more may take `x86_avx512ifma_words.rs`'s table of
//! powers instead (an `ExpandedKey` builds it once it has offered 1 MiB in
//! such runs; a bare key for one run of 64 KiB or more).
//!
//! r^1 … r^16 ([`Powers`]) are an `ExpandedKey`'s, computed once per key
//! and lent to each call. Without them they are computed on the stack (and
//! wiped) only for runs long enough to repay them: r^1 … r^8 and one set of
//! lanes from [`LAZY_MIN_BYTES`], all sixteen and two sets from
//! [`LAZY_TWO_SETS_BYTES`].
//!
//! # Arithmetic
//! h = h0 + h1·2^44 + h2·2^88 (limbs of 44, 44 and 42 bits at rest). With
//! 2^132 ≡ 20 (mod 2^130 − 5) and s_i = 20·r_i:
//!
//! ```text
//! d0 = h0·r0 + h1·s2 + h2·s1      d1 = h0·r1 + h1·r0 + h2·s2      d2 = h0·r2 + h1·r1 + h2·r0
//! ```
//!
//! Each product is taken as its low 52 bits (`madd52lo`, weight 1) and its
//! bits 52–103 (`madd52hi`, weight 2^52 = 2^8 · 2^44): so the high sums move
//! one limb up, shifted left by 8, and d2's high sum (weight 2^140 ≡ 5·2^10)
//! is added to limb 0 times 5120.
//!
//! # Limb bounds (64-bit lanes; `vpmadd52*` reads the low 52 bits)
//! * Powers: limbs 0 and 1 < 2^44 + 2^11, limb 2 < 2^42; s_i < 20·(2^44 + 2^11) <
//!   2^48.33.
//! * A block: limbs < 2^44, 2^44, 2^41 (the 2^128 bit at limb 2's bit 40);
//!   h from the portable state (< 5·2^128): limb 2 < 2^42.33.
//! * Accumulator after a carry step: limbs < 2^44, 2^44 + 1, 2^42; plus a
//!   block: every limb < 2^45.01, well below the 52 bits `vpmadd52` reads.
//! * Products < 2^45.01 · 2^48.33 = 2^93.34: low parts < 2^52, high parts <
//!   2^41.34; three-term sums: low < 2^53.6, high < 2^42.9. Then
//!   t0 = low0 + 5120·high2 < 2^53.6 + 2^55.2 < 2^55.7, t1 and t2 <
//!   2^53.6 + 2^50.9 < 2^53.9: no lane overflows. The final A and B
//!   products added < 2^56.7; their 8-lane sum < 2^59.7, carried in scalar.
//! * Carry step 0→1→2→(·5)0→1: carries < 2^11.7, 2^10, 2^11.9, 1; afterwards
//!   the at-rest bounds above hold again (lazy reduction: full reduction
//!   only in `finalize`, portable code).
//!
//! Constant time: no branch or index depends on h, r or the message; the
//! vector path is taken or not on the input's length only. valgrind cannot
//! run AVX-512, so this leaf is constant time by construction (straight-line
//! vector arithmetic; the only branches are on lengths), not by a memcheck
//! run; the AVX2 leaf and the portable code are checked under valgrind.

use core::arch::x86_64::*;

use super::soft;
use super::way::Way;
use super::x86_avx512ifma_words as words;
use crate::cpu::Avx512Ifma;
use crate::ifma44::Limbs;
use crate::lazy::Lazy;
use crate::poly1305aes::field::{M42, M44, limbs44, mul44, to_radix64};

/// With precomputed powers, runs shorter than this go through the portable
/// code: from 128 bytes the lanes are as fast with the key's table in cache
/// (127-136 ticks at 128 bytes), but with 1000 keys cycled a cold table's
/// load is waited for at once (518 ticks at 128 bytes, 1.27x OpenSSL, in a
/// full run); from 256 bytes its prefetch has the first group to hide under.
pub(crate) const PRECOMPUTED_MIN_BYTES: usize = 256;
/// Without them, r^1 … r^8 are computed too: shorter runs stay portable.
pub(crate) const LAZY_MIN_BYTES: usize = 384;
/// From here on, without precomputed powers, all sixteen are computed and
/// both sets of lanes run. Measured with the powers computed in the lanes
/// (bench, hot, Zen 4; thresholds 128/384/1024 against 256/512/3072, two
/// runs each): one-shot 511 bytes 469 -> 416 ticks, 1,024 467 -> 432,
/// 2,048 730 -> 612.
pub(crate) const LAZY_TWO_SETS_BYTES: usize = 1024;

/// How many powers of r a run of `len` bytes without precomputed powers
/// computes: all sixteen (both sets of lanes) from [`LAZY_TWO_SETS_BYTES`],
/// r^1 … r^8 (one set) below. Either gives the same h.
fn lazy_powers(len: usize) -> usize {
    if len >= LAZY_TWO_SETS_BYTES { 16 } else { 8 }
}

/// r^1 … r^16 in radix-2^44 limbs (an `ExpandedKey`'s precomputation), or
/// only r^1 … r^8 (`count` 8, the rest zero) for one set of lanes; stored
/// limb by limb (`l[i][k − 1]` is limb i of r^k), so eight powers are one
/// vector load per limb.
///
/// With all sixteen, once the key has offered [`words::BUILD_AFTER_BYTES`]
/// in long runs, also the powers of every piece of a span ([`words::Table`]).
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct Powers {
    pub(super) l: [[u64; 16]; 3],
    count: usize,
    table: Lazy<words::Table>,
}

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.l.as_flattened_mut().zeroize();
    }
}

/// IFMA Poly1305 state: the portable state (no bigger) and the token.
#[derive(Clone)]
pub(crate) struct State {
    scalar: soft::State,
    token: Avx512Ifma,
}

impl State {
    /// `r` must satisfy §2 (checked by the caller); `token` proves IFMA.
    pub(crate) fn new(r: &[u8; 16], token: Avx512Ifma) -> Self {
        State { scalar: soft::State::new(r), token }
    }

    /// All sixteen powers of r, for a key that will see many messages.
    pub(crate) fn powers(&self) -> Powers {
        self.first_powers(16)
    }

    fn first_powers(&self, count: usize) -> Powers {
        let (r0, r1) = self.scalar.r();
        // SAFETY: `self.token` is an `Avx512Ifma`, which `crate::cpu` hands
        // out only after detecting AVX-512 F, VL, IFMA and VBMI on this CPU.
        unsafe { Powers::new(self.token, r0, r1, count) }
    }

    /// Absorb `blocks`, with the key's precomputed powers if it has them.
    /// Short inputs take the portable code straight away (inlined); the
    /// vector path is a call of its own.
    #[inline]
    pub(crate) fn blocks(&mut self, blocks: &[u8], hibit: u64, powers: Option<&Powers>) {
        if blocks.len() < PRECOMPUTED_MIN_BYTES || (powers.is_none() && blocks.len() < LAZY_MIN_BYTES) {
            self.scalar.blocks(blocks, hibit);
        } else {
            self.vector_blocks(blocks, hibit, powers);
        }
    }

    /// The vector paths, and the way the run of whole groups took (what a
    /// test can see of the choice: every way gives the same h).
    #[inline(never)]
    fn vector_blocks(&mut self, blocks: &[u8], hibit: u64, powers: Option<&Powers>) -> Way {
        let (head, tail) = blocks.split_at(blocks.len() & !127);
        let (token, h) = (self.token, self.scalar.h());
        let way = words::way_of(head.len(), powers.is_some());
        let absorbed = match (way, powers) {
            // an `ExpandedKey`'s powers: all sixteen (`State::powers`)
            (Way::Kept, Some(p)) => p
                .table
                .offer(head.len(), words::BUILD_AFTER_BYTES, || {
                    assert_eq!(p.count, 16);
                    words::table(token, &p.l)
                })
                .map(|t| words::absorb(token, t, h, head, hibit)),
            (Way::Whole, _) => Some(words::absorb(token, &words::table(token, &self.powers().l), h, head, hibit)),
            _ => None,
        };
        if let Some(h) = absorbed {
            self.scalar.set_h(h);
            self.scalar.blocks(tail, hibit);
            return way;
        }
        let computed;
        let powers = match powers {
            Some(p) => p,
            None => {
                computed = self.first_powers(lazy_powers(blocks.len()));
                &computed
            }
        };
        // SAFETY: `token` (`self.token`) is an `Avx512Ifma`, which
        // `crate::cpu` hands out only after detecting AVX-512 F, VL and IFMA
        // on this CPU.
        let h = unsafe { groups(token, h, head, powers, hibit) };
        self.scalar.set_h(h);
        self.scalar.blocks(tail, hibit);
        Way::Lanes
    }

    pub(crate) fn finalize(&self, s: &[u8; 16]) -> [u8; 16] {
        self.scalar.finalize(s)
    }

    /// The accumulator as 64-bit limbs (h2 <= 4).
    pub(crate) fn h(&self) -> [u64; 3] {
        self.scalar.h()
    }

    pub(crate) fn wipe(&mut self) {
        self.scalar.wipe();
    }
}

/// Every lane of `x` from its lane `i`.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn lane(x: &Limbs, i: i64) -> Limbs {
    x.map(|v| _mm512_permutexvar_epi64(_mm512_set1_epi64(i), v))
}

/// 20·k_1 and 20·k_2 of limb vectors `k`.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn times20(k: &Limbs) -> [__m512i; 2] {
    let t = |v: __m512i| _mm512_add_epi64(_mm512_slli_epi64::<4>(v), _mm512_slli_epi64::<2>(v));
    [t(k[1]), t(k[2])]
}

impl Powers {
    /// Ask for the table's cache lines now: a cold key's r^16 is read when
    /// the lanes start and r^1 … r^15 only after the last group, where a
    /// miss would wait at the end of the loop instead of under it.
    pub(crate) fn prefetch(&self) {
        crate::prefetch::lines(&self.l);
    }

    /// r^1 … r^count (count 8 or 16) by doubling in the lanes: r^2 in
    /// scalar code, then (r, r^2)·r^2 = (r^3, r^4), (r … r^4)·r^4 =
    /// (r^5 … r^8) and (r … r^8)·r^8 = (r^9 … r^16), each one vector
    /// product and carry (limb bounds as for the accumulator: inputs below
    /// the powers' bounds, outputs < 2^44, 2^44 + 1, 2^42).
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn new(_proof: Avx512Ifma, r0: u64, r1: u64, count: usize) -> Self {
        let p1 = limbs44(r0, r1, 0);
        let p2 = mul44(&p1, &p1);
        let mut x: Limbs = core::array::from_fn(|i| _mm512_set_epi64(0, 0, 0, 0, 0, 0, p2[i] as i64, p1[i] as i64));
        // After step `have` (2, then 4): lanes 0 … have−1 hold r … r^have.
        for have in [2usize, 4] {
            let top = lane(&x, have as i64 - 1);
            let t = carry(mul(&x, &top, &times20(&top)));
            // Lanes have … 2·have−1 from the product's lanes 0 … have−1:
            // lanes 2, 3 from 0, 1 (have = 2); lanes 4 … 7 from 0 … 3 (4).
            let idx = _mm512_set_epi64(3, 2, 1, 0, 1, 0, 0, 0);
            let mask = (((1u32 << have) - 1) << have) as __mmask8;
            x = core::array::from_fn(|i| _mm512_mask_permutexvar_epi64(x[i], mask, idx, t[i]));
        }
        let mut p = Powers { l: [[0; 16]; 3], count, table: Lazy::default() };
        for (limb, v) in p.l.iter_mut().zip(x) {
            // SAFETY: `limb[..8]` is 64 writable bytes: one unaligned store.
            unsafe { _mm512_storeu_si512(limb.as_mut_ptr().cast(), v) };
        }
        if count == 16 {
            let top = lane(&x, 7);
            let t = carry(mul(&x, &top, &times20(&top)));
            for (limb, v) in p.l.iter_mut().zip(t) {
                // SAFETY: `limb[8..]` is 64 writable bytes: one unaligned store.
                unsafe { _mm512_storeu_si512(limb[8..].as_mut_ptr().cast(), v) };
            }
        }
        p
    }

    /// r^k, k counted from 1.
    fn get(&self, k: usize) -> [u64; 3] {
        debug_assert!(k >= 1 && k <= self.count);
        [self.l[0][k - 1], self.l[1][k - 1], self.l[2][k - 1]]
    }
}

#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

/// Eight blocks as 44-bit limbs, lanes in block order 0, 4, 1, 5, 2, 6, 3, 7.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn load(group: &[u8], hibit: __m512i) -> Limbs {
    debug_assert_eq!(group.len(), 128);
    // SAFETY: `group` is 128 readable bytes: two unaligned 64-byte loads.
    let (a, b) =
        unsafe { (_mm512_loadu_si512(group.as_ptr().cast()), _mm512_loadu_si512(group[64..].as_ptr().cast())) };
    let lo = _mm512_unpacklo_epi64(a, b);
    let hi = _mm512_unpackhi_epi64(a, b);
    let m = splat(M44);
    [
        _mm512_and_si512(lo, m),
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)), m),
        _mm512_or_si512(_mm512_srli_epi64::<24>(hi), hibit),
    ]
}

/// t = a·r per lane, low and high product halves recombined into three
/// limbs, unreduced; `s` holds 20·r_1 and 20·r_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn mul(a: &Limbs, r: &Limbs, s: &[__m512i; 2]) -> Limbs {
    let ([l0, l1, l2], [h0, h1, h2]) = crate::ifma44::products(a, r, s);
    // 5120·h2 = (h2 << 12) + (h2 << 10)
    let h2x = _mm512_add_epi64(_mm512_slli_epi64::<12>(h2), _mm512_slli_epi64::<10>(h2));
    [
        _mm512_add_epi64(l0, h2x),
        _mm512_add_epi64(l1, _mm512_slli_epi64::<8>(h0)),
        _mm512_add_epi64(l2, _mm512_slli_epi64::<8>(h1)),
    ]
}

/// One lazy carry step per lane (see the limb bounds above).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn carry(t: Limbs) -> Limbs {
    crate::ifma44::carry::<42, true>(t)
}

/// `a += m`, limb by limb.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn add(a: &mut Limbs, m: Limbs) {
    for (limb, ml) in a.iter_mut().zip(m) {
        *limb = _mm512_add_epi64(*limb, ml);
    }
}

/// `h` added to lane 0 (block 0 of the first group) of `a`.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn add_h(a: &mut Limbs, h: [u64; 3]) {
    for (limb, hl) in a.iter_mut().zip(limbs44(h[0], h[1], h[2])) {
        *limb = _mm512_add_epi64(*limb, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, hl as i64));
    }
}

/// `r^k` broadcast to every lane (k counted from 1), and 20·r_1, 20·r_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn broadcast(p: &Powers, k: usize) -> (Limbs, [__m512i; 2]) {
    let r = p.get(k);
    ([splat(r[0]), splat(r[1]), splat(r[2])], [splat(20 * r[1]), splat(20 * r[2])])
}

/// Per-lane powers for a set whose lanes hold blocks 0, 4, 1, 5, 2, 6, 3, 7
/// of eight that still need r^(k+8) … r^(k+1) (k = 0 or 8): lane of block
/// o gets r^(k+8−o), and 20·r_1, 20·r_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn final_powers(p: &Powers, k: usize) -> (Limbs, [__m512i; 2]) {
    debug_assert!(k + 8 <= p.count);
    let rf = words::in_lane_order(&p.l, k);
    let s = times20(&rf);
    (rf, s)
}

/// The sum of a vector's eight lanes.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn hsum(v: __m512i) -> u64 {
    _mm512_reduce_add_epi64(v) as u64
}

/// h' for `blocks` (a non-empty multiple of 128 bytes) starting from `h`.
/// Takes the token so that only a holder of the proof can name the call.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn groups(_proof: Avx512Ifma, h: [u64; 3], blocks: &[u8], p: &Powers, hibit: u64) -> [u64; 3] {
    let hib = splat(hibit << 40);
    // two sets need r^16; with only r^1 … r^8 every group goes through one
    let pairs_len = if p.count == 16 { blocks.len() & !255 } else { 0 };
    let (pairs, last) = blocks.split_at(pairs_len);
    let mut h = h;
    if !pairs.is_empty() {
        h = two_sets(h, pairs, p, hib);
    }
    if !last.is_empty() {
        h = one_set(h, last, p, hib);
    }
    h
}

/// Ask for the cache lines `offsets` bytes past the start of `group`: a
/// message not in cache (1000 keys and messages cycled) otherwise waits
/// for each line until the hardware prefetcher has seen a stride
/// (measured: cold 8–64 KiB 0.92–0.94× OpenSSL without, 0.87–0.90× with).
/// A prefetch never faults and reads nothing into the program, so past the
/// end of the message it is harmless; the address is computed with
/// wrapping arithmetic and never dereferenced.
#[target_feature(enable = "avx512f")]
#[inline]
fn prefetch_ahead<const N: usize>(group: &[u8], offsets: [usize; N]) {
    for off in offsets {
        _mm_prefetch::<_MM_HINT_T0>(group.as_ptr().wrapping_add(off).cast());
    }
}

/// One set of eight lanes over `blocks` (a non-empty multiple of 128 bytes).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn one_set(h: [u64; 3], blocks: &[u8], p: &Powers, hib: __m512i) -> [u64; 3] {
    let (r8, s8) = broadcast(p, 8);
    let mut chunks = blocks.chunks_exact(128);
    let mut a = load(chunks.next().expect("at least one group"), hib);
    add_h(&mut a, h);
    for group in chunks {
        prefetch_ahead(group, [1024, 1088]);
        a = carry(mul(&a, &r8, &s8));
        add(&mut a, load(group, hib));
    }
    let (rf, sf) = final_powers(p, 0);
    let t = mul(&a, &rf, &sf);
    to_radix64(t.map(|v| hsum(v)))
}

/// Two sets of eight lanes over `blocks` (a non-empty multiple of 256 bytes).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn two_sets(h: [u64; 3], blocks: &[u8], p: &Powers, hib: __m512i) -> [u64; 3] {
    let (r16, s16) = broadcast(p, 16);
    let mut chunks = blocks.chunks_exact(128);
    let mut a = load(chunks.next().expect("at least two groups"), hib);
    let mut b = load(chunks.next().expect("at least two groups"), hib);
    add_h(&mut a, h);
    while let (Some(ga), Some(gb)) = (chunks.next(), chunks.next()) {
        prefetch_ahead(ga, [1024, 1088, 1152, 1216]);
        a = carry(mul(&a, &r16, &s16));
        b = carry(mul(&b, &r16, &s16));
        add(&mut a, load(ga, hib));
        add(&mut b, load(gb, hib));
    }
    // A holds blocks 1–8 of every 16 (powers 16..9), B blocks 9–16 (8..1).
    let (ra, sa) = final_powers(p, 8);
    let (rb, sb) = final_powers(p, 0);
    let (ta, tb) = (mul(&a, &ra, &sa), mul(&b, &rb, &sb));
    to_radix64(core::array::from_fn(|i| hsum(_mm512_add_epi64(ta[i], tb[i]))))
}

/// Batches: messages at most this long, eight of one length, go through
/// [`tags8`] (longer ones through each item's own backend).
pub(crate) const BATCH_MAX_BYTES: usize = 256;

/// Poly1305_{r_i}(m_i, s_i) for eight messages of one length (at most
/// [`BATCH_MAX_BYTES`]), lane i under its own r_i: the multi-key form of
/// §1's key agility. Everything runs in the eight lanes: the polynomial
/// (same limb bounds as above: each lane's r is a valid r, each step a
/// block of its own message), the full reduction mod 2^130 − 5 and the
/// addition of s_i mod 2^128.
pub(crate) fn tags8(token: Avx512Ifma, r: &[[u8; 16]; 8], s: &[[u8; 16]; 8], msgs: &[&[u8]; 8]) -> [[u8; 16]; 8] {
    debug_assert!(msgs.iter().all(|m| m.len() == msgs[0].len() && m.len() <= BATCH_MAX_BYTES));
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL and IFMA on this CPU.
    unsafe { lanes8(token, r, s, msgs) }
}

/// Block `at..at + 16` of each message as 44-bit limbs, lane i = message i.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn gather(msgs: &[&[u8]; 8], at: usize, hibit: __m512i) -> Limbs {
    let (lo, hi) = (lanes_of(|i| le64(&msgs[i][at..])), lanes_of(|i| le64(&msgs[i][at + 8..])));
    let m = splat(M44);
    [
        _mm512_and_si512(lo, m),
        _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)), m),
        _mm512_or_si512(_mm512_srli_epi64::<24>(hi), hibit),
    ]
}

/// Eight 64-bit words, `w(i)` in lane i.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn lanes_of(w: impl Fn(usize) -> u64) -> __m512i {
    _mm512_set_epi64(
        w(7) as i64,
        w(6) as i64,
        w(5) as i64,
        w(4) as i64,
        w(3) as i64,
        w(2) as i64,
        w(1) as i64,
        w(0) as i64,
    )
}

/// The little-endian 64-bit word at the start of `b`.
fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The eight tags.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn lanes8(_proof: Avx512Ifma, r: &[[u8; 16]; 8], s: &[[u8; 16]; 8], msgs: &[&[u8]; 8]) -> [[u8; 16]; 8] {
    use zeroize::Zeroize;
    let mut rl: [[u64; 3]; 8] = core::array::from_fn(|i| limbs44(le64(&r[i][..8]), le64(&r[i][8..]), 0));
    let rv = [lanes_of(|i| rl[i][0]), lanes_of(|i| rl[i][1]), lanes_of(|i| rl[i][2])];
    rl.zeroize();
    let x20 = |v: __m512i| _mm512_add_epi64(_mm512_slli_epi64::<4>(v), _mm512_slli_epi64::<2>(v));
    let sv = [x20(rv[1]), x20(rv[2])];
    let len = msgs[0].len();
    let z = _mm512_setzero_si512();
    let mut h = [z, z, z];
    let one = splat(1 << 40);
    for at in (0..len & !15).step_by(16) {
        add(&mut h, gather(msgs, at, one));
        h = carry(mul(&h, &rv, &sv));
    }
    let rest = len % 16;
    if rest != 0 {
        // §2: the last chunk with a 1 byte appended, zero-padded, no 2^128 bit
        let mut pads = [[0u8; 16]; 8];
        for (p, m) in pads.iter_mut().zip(msgs) {
            p[..rest].copy_from_slice(&m[len - rest..]);
            p[rest] = 1;
        }
        let padded: [&[u8]; 8] = core::array::from_fn(|i| &pads[i][..]);
        add(&mut h, gather(&padded, 0, z));
        h = carry(mul(&h, &rv, &sv));
        pads.zeroize();
    }
    // Full reduction. After `carry`: h0 < 2^44, h1 <= 2^44, h2 < 2^42.
    // Propagate 1→2, 2→0 (times 5), 0→1, 1→2: limbs < 2^44, 2^44, and
    // h2 <= 2^42, so h < 2^130 + 2^88 < 2p.
    let (m44, m42) = (splat(M44), splat(M42));
    let [mut h0, mut h1, mut h2] = h;
    h2 = _mm512_add_epi64(h2, _mm512_srli_epi64::<44>(h1));
    h1 = _mm512_and_si512(h1, m44);
    let c = _mm512_srli_epi64::<42>(h2);
    h2 = _mm512_and_si512(h2, m42);
    h0 = _mm512_add_epi64(h0, _mm512_add_epi64(c, _mm512_slli_epi64::<2>(c)));
    h1 = _mm512_add_epi64(h1, _mm512_srli_epi64::<44>(h0));
    h0 = _mm512_and_si512(h0, m44);
    h2 = _mm512_add_epi64(h2, _mm512_srli_epi64::<44>(h1));
    h1 = _mm512_and_si512(h1, m44);
    // g = h + 5; h >= p exactly when g >= 2^130 (bit 42 of g's top limb):
    // then h mod p = g - 2^130. Selected by mask, no branch.
    let mut g0 = _mm512_add_epi64(h0, splat(5));
    let mut g1 = _mm512_add_epi64(h1, _mm512_srli_epi64::<44>(g0));
    g0 = _mm512_and_si512(g0, m44);
    let g2 = _mm512_add_epi64(h2, _mm512_srli_epi64::<44>(g1));
    g1 = _mm512_and_si512(g1, m44);
    let over = _mm512_sub_epi64(z, _mm512_srli_epi64::<42>(g2)); // all ones iff g >= 2^130
    let pick = |a: __m512i, b: __m512i| _mm512_or_si512(_mm512_andnot_si512(over, a), _mm512_and_si512(over, b));
    let (f0, f1, f2) = (pick(h0, g0), pick(h1, g1), pick(h2, _mm512_and_si512(g2, m42)));
    // As two 64-bit words (mod 2^128), plus s.
    let lo = _mm512_or_si512(f0, _mm512_slli_epi64::<44>(f1));
    let hi = _mm512_or_si512(_mm512_srli_epi64::<20>(f1), _mm512_slli_epi64::<24>(f2));
    let sum = _mm512_add_epi64(lo, lanes_of(|i| le64(&s[i][..8])));
    let carried = _mm512_cmplt_epu64_mask(sum, lo);
    let top = _mm512_add_epi64(hi, lanes_of(|i| le64(&s[i][8..])));
    let top = _mm512_mask_add_epi64(top, carried, top, splat(1));
    let mut words = [[0u64; 8]; 2];
    // SAFETY: each `words[k]` is 64 writable bytes; unaligned stores.
    unsafe {
        _mm512_storeu_si512(words[0].as_mut_ptr().cast(), sum);
        _mm512_storeu_si512(words[1].as_mut_ptr().cast(), top);
    }
    let tags = core::array::from_fn(|i| {
        let mut t = [0u8; 16];
        t[..8].copy_from_slice(&words[0][i].to_le_bytes());
        t[8..].copy_from_slice(&words[1][i].to_le_bytes());
        t
    });
    words.zeroize();
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs without precomputed powers compute both sets' powers from their
    /// threshold, one set's below it (speed only: no other test sees it).
    #[test]
    fn lazy_runs_take_both_sets_from_their_threshold() {
        assert_eq!(lazy_powers(LAZY_MIN_BYTES), 8);
        assert_eq!(lazy_powers(LAZY_TWO_SETS_BYTES - 16), 8);
        assert_eq!(lazy_powers(LAZY_TWO_SETS_BYTES), 16);
        assert_eq!(lazy_powers(1 << 20), 16);
    }

    /// The way each run takes, at every threshold: the lanes below 8 KiB;
    /// an `ExpandedKey`'s table once it has offered 1 MiB in runs of 8 KiB
    /// and more (the lanes until then); without one, a table built for the
    /// run from 64 KiB. Every way gives the same h, so no other test sees a
    /// choice made wrong.
    #[test]
    fn each_run_takes_its_way() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let mut r = [0xa5u8; 16];
        crate::poly1305aes::clamp(&mut r);
        let data = vec![0x5a; words::ONE_SHOT_MIN_BYTES + 128];
        let bare = |len: usize| State::new(&r, token).vector_blocks(&data[..len], 1, None);
        assert_eq!(bare(words::MIN_RUN_BYTES), Way::Lanes);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES - 128), Way::Lanes);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES - 16), Way::Lanes);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES), Way::Whole);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES + 112), Way::Whole);
        let powers = State::new(&r, token).powers();
        let kept = |len: usize| State::new(&r, token).vector_blocks(&data[..len], 1, Some(&powers));
        assert_eq!(kept(words::MIN_RUN_BYTES - 16), Way::Lanes);
        super::super::way::assert_kept_from_the_run_that_builds(kept, words::MIN_RUN_BYTES, words::BUILD_AFTER_BYTES);
        assert_eq!(kept(words::MIN_RUN_BYTES - 16), Way::Lanes);
        assert_eq!(kept(words::MIN_RUN_BYTES + 112), Way::Kept);
        assert_eq!(kept(words::ONE_SHOT_MIN_BYTES), Way::Kept);
    }

    /// An `ExpandedKey`'s table is built on the run that brings the bytes
    /// it has offered in runs of at least `words::MIN_RUN_BYTES` to
    /// `words::BUILD_AFTER_BYTES`, not before (shorter runs are not
    /// counted), and h is the portable code's on both sides of it.
    #[test]
    fn the_table_is_built_once_the_key_has_offered_enough() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let mut r = [0x5au8; 16];
        crate::poly1305aes::clamp(&mut r);
        let state = State::new(&r, token);
        let powers = state.powers();
        let short: Vec<u8> = (0..words::MIN_RUN_BYTES - 128).map(|i| (i * 13 + 1) as u8).collect();
        let run: Vec<u8> = (0..words::MIN_RUN_BYTES + 256).map(|i| (i * 7 + 3) as u8).collect();
        let check = |data: &[u8]| {
            let mut s = state.clone();
            s.blocks(data, 1, Some(&powers));
            let mut want = soft::State::new(&r);
            want.blocks(data, 1);
            assert_eq!(s.finalize(&[0; 16]), want.finalize(&[0; 16]), "len {}", data.len());
        };
        for _ in 0..(2 * words::BUILD_AFTER_BYTES / short.len()) {
            check(&short);
        }
        assert!(powers.table.get().is_none(), "runs the table does not take are not counted");
        // not on the first run it could take: a key that authenticates a
        // few long messages never pays for it
        check(&run);
        assert!(powers.table.get().is_none(), "built on the first long run");
        let mut offered = run.len();
        while offered + run.len() < words::BUILD_AFTER_BYTES {
            check(&run);
            offered += run.len();
            assert!(powers.table.get().is_none(), "built after {offered} bytes");
        }
        check(&run);
        assert!(powers.table.get().is_some(), "not built after {} bytes", offered + run.len());
        check(&run);
    }
}
