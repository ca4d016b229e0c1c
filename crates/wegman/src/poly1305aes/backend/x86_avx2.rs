//! AVX2 Poly1305: four independent lanes of radix-2^26 limbs, with the
//! portable code for short inputs and between calls.
//!
//! # Method
//! For blocks m_1 … m_n (n a multiple of 4) the polynomial step
//! h' = (((h + m_1) r + m_2) r + … + m_n) r is computed as four lanes: lane
//! j accumulates blocks j+1, j+5, j+9, …, the first group as
//! A_0 = h + m_1, A_j = m_{j+1}, every later group as A_j = A_j·r^4 + m;
//! then h' = A_0·r^4 + A_1·r^3 + A_2·r^2 + A_3·r. (For n = 4 that is
//! (h + m_1)r^4 + m_2 r^3 + m_3 r^2 + m_4 r, the polynomial itself.)
//!
//! Runs of 8 blocks use two such sets of lanes, A for blocks 1–4 and B for
//! blocks 5–8 of every 8, each step multiplied by r^8, combined as
//! Σ A_j·r^(8−j) + Σ B_j·r^(4−j): the two multiply-and-carry chains are
//! independent, so the core overlaps them instead of waiting on one
//! (the single chain is latency-bound). A last 4-block group, if any, runs
//! through one set of lanes.
//!
//! The powers r^1 … r^8 ([`Powers`]) are an `ExpandedKey`'s, computed once
//! per key and lent to each call ([`PRECOMPUTED_MIN_BYTES`]); without them
//! (a one-shot or streaming computation from a `Key`) they are computed on
//! the stack, and wiped, only for an input long enough to repay them
//! ([`LAZY_MIN_BYTES`]), so a short message keeps §1's key agility and the
//! per-message state is no bigger than the portable one. Between calls h
//! lives in the portable state (radix 2^64), so streaming splits of any
//! size, and the final padded block, go through the same code.
//!
//! Loading: two 32-byte loads hold blocks (0, 1) and (2, 3); `unpacklo/hi`
//! put their low and high halves into the 64-bit lanes in the order blocks
//! 0, 2, 1, 3, so the final multipliers per lane are r^4, r^2, r^3, r^1.
//!
//! # Limb bounds (all lanes 64-bit; `vpmuludq` multiplies the low 32 bits)
//! * Powers r^k: 26-bit limbs after the scalar carry chain, limb 1 at most
//!   2^26 (all < 2^26 + 1); their 5× multiples < 5·(2^26 + 1) < 2^28.33.
//! * A message block: limbs < 2^26, limb 4 < 2^24 + 2^24 (the 2^128 bit).
//! * h from the portable state (h < 5·2^128): limbs < 2^26, limb 4 < 5·2^24.
//! * Accumulator after the carry step below: limbs 0, 2, 3 < 2^26, limb 1 <
//!   2^26 + 2^8.4, limb 4 < 2^26 + 2^6.2; plus a message limb: every limb <
//!   2^27.01, and < 2^32, as `vpmuludq` needs.
//! * A product sum d_i = Σ of five products < 5 · 2^27.01 · 2^28.33 < 2^57.7:
//!   no 64-bit lane overflows; the final A and B products added < 2^58.7,
//!   and their 4-lane horizontal sum < 2^60.7, which the scalar carry chain
//!   takes (its carries stay below 2^35).
//! * Carry step (two interleaved chains, 0→1→2→3 and 3→4→0·5→1): each carry
//!   is < 2^32.1, so after it the bounds above hold again. One carry step
//!   per group (lazy reduction): limbs stay below 2^27.01 without full
//!   reduction, which happens only in `finalize` (portable code).
//!
//! Constant time: no branch or index depends on h, r or the message; the
//! vector path is taken or not on the input's length only.

use core::arch::x86_64::*;

use super::soft;
use super::way::Way;
use super::x86_avx2_limbs::{M26, carry, limbs26, powers_of_r, to_radix64};
use super::x86_avx2_words as words;
use crate::avx2_mul::{Limbs26 as Limbs, broadcast, hsum, mul32, mul32_at, products26 as mul, splat};
use crate::cpu::Avx2;
use crate::lazy::Lazy;

/// With precomputed powers, inputs shorter than this go through the
/// portable code: below it the vector path's fixed costs (lane set-up, the
/// final combination) are not repaid.
pub(crate) const PRECOMPUTED_MIN_BYTES: usize = 256;
/// Without them, the powers are computed too: shorter inputs stay portable.
/// Measured on Zen 3 (one-shot `authenticate`, median of 2001 batches,
/// three alternating runs of each build): the vector path with its powers
/// computed is 4 % faster at 512 bytes (430 against 451 ticks), 14 % at
/// 640, 27 % at 960, and 10 % slower at 448. It was 1024, measured on
/// Zen 4, which left 700–1023 bytes to the scalar code here, behind
/// OpenSSL's AVX2 code.
pub(crate) const LAZY_MIN_BYTES: usize = 512;

/// r^1 … r^8 in radix-2^26 limbs: an `ExpandedKey`'s precomputation; and,
/// once the key has offered it [`words::BUILD_AFTER_BYTES`] in long runs,
/// the powers of every word of a span ([`words::Table`]).
#[derive(Clone)]
pub(crate) struct Powers(pub(super) [[u64; 5]; 8], Lazy<words::Table<{ words::KEPT_PAIRS }>>);

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.0.iter_mut().for_each(|l| l.zeroize());
    }
}

/// AVX2 Poly1305 state: the portable state (no bigger) and the token.
#[derive(Clone)]
pub(crate) struct State {
    scalar: soft::State,
    token: Avx2,
}

impl State {
    /// `r` must satisfy §2 (checked by the caller); `token` proves AVX2.
    pub(crate) fn new(r: &[u8; 16], token: Avx2) -> Self {
        State { scalar: soft::State::new(r), token }
    }

    /// The powers of r, for a key that will see many messages.
    pub(crate) fn powers(&self) -> Powers {
        let (r0, r1) = self.scalar.r();
        Powers::new(r0, r1)
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
        let (head, tail) = blocks.split_at(blocks.len() & !63);
        let (token, h) = (self.token, self.scalar.h());
        let way = words::way_of(head.len(), powers.is_some());
        let absorbed = match (way, powers) {
            (Way::Kept, Some(p)) => {
                p.1.offer(head.len(), words::BUILD_AFTER_BYTES, || words::Table::new(token, &p.0))
                    .map(|t| words::absorb(token, t, h, head, hibit))
            }
            (Way::Whole, _) => {
                Some(words::absorb_once::<{ words::KEPT_PAIRS }>(token, &self.powers().0, h, head, hibit))
            }
            (Way::Half, _) => {
                Some(words::absorb_once::<{ words::ONE_SHOT_PAIRS }>(token, &self.powers().0, h, head, hibit))
            }
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
                computed = self.powers();
                &computed
            }
        };
        // SAFETY: `token` (`self.token`) is an `Avx2`, which `crate::cpu`
        // hands out only after detecting AVX2 on this CPU.
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

impl Powers {
    fn new(r0: u64, r1: u64) -> Self {
        Powers(powers_of_r(r0, r1), Lazy::default())
    }
}

/// Limb i of four numbers, one per lane (lane 0 first).
#[target_feature(enable = "avx2")]
fn lanes(p: [&[u64; 5]; 4], i: usize) -> __m256i {
    _mm256_set_epi64x(p[3][i] as i64, p[2][i] as i64, p[1][i] as i64, p[0][i] as i64)
}

/// Four blocks as 26-bit limbs, lanes in block order 0, 2, 1, 3.
#[target_feature(enable = "avx2")]
fn load(group: &[u8], hibit: __m256i) -> Limbs {
    debug_assert_eq!(group.len(), 64);
    // SAFETY: `group` is 64 readable bytes: two unaligned 32-byte loads.
    let (a, b) =
        unsafe { (_mm256_loadu_si256(group.as_ptr().cast()), _mm256_loadu_si256(group[32..].as_ptr().cast())) };
    let lo = _mm256_unpacklo_epi64(a, b);
    let hi = _mm256_unpackhi_epi64(a, b);
    let m = splat(M26);
    [
        _mm256_and_si256(lo, m),
        _mm256_and_si256(_mm256_srli_epi64::<26>(lo), m),
        _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)), m),
        _mm256_and_si256(_mm256_srli_epi64::<14>(hi), m),
        _mm256_or_si256(_mm256_srli_epi64::<40>(hi), hibit),
    ]
}

/// h' for `blocks` (a non-empty multiple of 64 bytes) starting from `h`.
/// Takes the token so that only a holder of the proof can name the call.
#[target_feature(enable = "avx2")]
fn groups(_proof: Avx2, h: [u64; 3], blocks: &[u8], p: &Powers, hibit: u64) -> [u64; 3] {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let hib = splat(hibit << 24);
    let (pairs, last) = blocks.split_at(blocks.len() & !127);
    let mut h = h;
    if !pairs.is_empty() {
        h = two_sets(h, pairs, p, hib);
    }
    if !last.is_empty() {
        h = one_set(h, last, p, hib);
    }
    h
}

/// `h` added to lane 0 (block 0 of the first group) of `a`.
#[target_feature(enable = "avx2")]
fn add_h(a: &mut Limbs, h: [u64; 3]) {
    for (limb, hl) in a.iter_mut().zip(limbs26(h[0], h[1], h[2])) {
        *limb = _mm256_add_epi64(*limb, _mm256_set_epi64x(0, 0, 0, hl as i64));
    }
}

/// `a += m`, limb by limb.
#[target_feature(enable = "avx2")]
fn add(a: &mut Limbs, m: Limbs) {
    for (limb, ml) in a.iter_mut().zip(m) {
        *limb = _mm256_add_epi64(*limb, ml);
    }
}

/// The vectors to multiply lanes (blocks 0, 2, 1, 3 of a group) by r^(k+4),
/// r^(k+2), r^(k+3), r^(k+1), and their 5× multiples.
#[target_feature(enable = "avx2")]
fn final_powers(p: &Powers, k: usize) -> (Limbs, [__m256i; 4]) {
    let order = [&p.0[k + 3], &p.0[k + 1], &p.0[k + 2], &p.0[k]];
    let rf: Limbs = core::array::from_fn(|i| lanes(order, i));
    let sf = core::array::from_fn(|i| mul32(rf[i + 1], splat(5)));
    (rf, sf)
}

/// One set of four lanes over `blocks` (a non-empty multiple of 64 bytes).
#[target_feature(enable = "avx2")]
fn one_set(h: [u64; 3], blocks: &[u8], p: &Powers, hib: __m256i) -> [u64; 3] {
    let (r4, s4) = broadcast::<5>(&p.0[3]);
    let mut chunks = blocks.chunks_exact(64);
    let mut a = load(chunks.next().expect("at least one group"), hib);
    add_h(&mut a, h);
    for group in chunks {
        // multiply and carry first, then load the message: its five limb
        // vectors are not live across the multiply (fewer spills)
        a = carry(mul(&a, &r4, &s4));
        add(&mut a, load(group, hib));
    }
    let (rf, sf) = final_powers(p, 0);
    let d = mul(&a, &rf, &sf);
    to_radix64(core::array::from_fn(|i| hsum(d[i])))
}

/// A power's limbs k_0 … k_4 (rows 0–4) and 5·k_1 … 5·k_4 (rows 5–8), each
/// in every lane, for multiplies that read them from memory ([`mul_at`]):
/// held in registers they were 9 of the 16, beside the two sets' 10 limbs,
/// and the loop spilled (54 stack accesses per 128 bytes).
#[repr(C, align(32))]
struct Rows([[u64; 4]; 9]);

impl Rows {
    fn new(k: &[u64; 5]) -> Self {
        Rows(core::array::from_fn(|i| [if i < 5 { k[i] } else { 5 * k[i - 4] }; 4]))
    }
}

impl Drop for Rows {
    fn drop(&mut self) {
        self.0.as_flattened_mut().fill(0);
        core::hint::black_box(self);
    }
}

/// [`mul`] with k and 5·k read from `t`.
#[target_feature(enable = "avx2")]
#[inline]
fn mul_at(a: &Limbs, t: &Rows) -> Limbs {
    // k_i is row i, 5·k_j row 4 + j: the 32 bytes at 32·row
    macro_rules! m {
        ($x:expr, $row:literal) => {
            mul32_at::<{ 32 * $row }, Rows>($x, t)
        };
    }
    let add5 = |t: [__m256i; 5]| {
        _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(t[0], t[1]), _mm256_add_epi64(t[2], t[3])), t[4])
    };
    let [a0, a1, a2, a3, a4] = *a;
    [
        add5([m!(a0, 0), m!(a1, 8), m!(a2, 7), m!(a3, 6), m!(a4, 5)]),
        add5([m!(a0, 1), m!(a1, 0), m!(a2, 8), m!(a3, 7), m!(a4, 6)]),
        add5([m!(a0, 2), m!(a1, 1), m!(a2, 0), m!(a3, 8), m!(a4, 7)]),
        add5([m!(a0, 3), m!(a1, 2), m!(a2, 1), m!(a3, 0), m!(a4, 8)]),
        add5([m!(a0, 4), m!(a1, 3), m!(a2, 2), m!(a3, 1), m!(a4, 0)]),
    ]
}

/// Two sets of four lanes over `blocks` (a non-empty multiple of 128 bytes).
#[target_feature(enable = "avx2")]
fn two_sets(h: [u64; 3], blocks: &[u8], p: &Powers, hib: __m256i) -> [u64; 3] {
    let r8 = Rows::new(&p.0[7]);
    let mut chunks = blocks.chunks_exact(64);
    let mut a = load(chunks.next().expect("at least two groups"), hib);
    let mut b = load(chunks.next().expect("at least two groups"), hib);
    add_h(&mut a, h);
    while let (Some(ga), Some(gb)) = (chunks.next(), chunks.next()) {
        a = carry(mul_at(&a, &r8));
        b = carry(mul_at(&b, &r8));
        add(&mut a, load(ga, hib));
        add(&mut b, load(gb, hib));
    }
    // A holds blocks 1–4 of every 8 (powers 8..5), B blocks 5–8 (4..1).
    let (ra, sa) = final_powers(p, 4);
    let (rb, sb) = final_powers(p, 0);
    let (da, db) = (mul(&a, &ra, &sa), mul(&b, &rb, &sb));
    to_radix64(core::array::from_fn(|i| hsum(_mm256_add_epi64(da[i], db[i]))))
}

#[cfg(test)]
mod tests {
    use super::super::x86_avx2_limbs::carry_scalar;
    use super::*;

    /// `x mod 2^130 - 5` for x < 2^192 given as three 64-bit words, as
    /// (bits 128 and up, bits 0..128) of the canonical residue.
    fn mod_p(x: [u64; 3]) -> (u128, u128) {
        // x = lo + 2^128 * hi, with 2^130 = 5 (mod p).
        let (mut lo, mut hi) = (u128::from(x[0]) | u128::from(x[1]) << 64, u128::from(x[2]));
        while hi >= 4 {
            // hi * 2^128 = (hi >> 2) * 2^130 + (hi & 3) * 2^128
            let (q, rest) = (hi >> 2, hi & 3);
            let (v, c) = lo.overflowing_add(5 * q);
            lo = v;
            hi = rest + u128::from(c);
        }
        // now x = lo + hi * 2^128 < 2^130: one conditional subtraction of p
        let p_lo = u128::MAX - 4; // p = 3 * 2^128 + (2^128 - 5)
        if hi == 3 && lo >= p_lo {
            lo -= p_lo;
            hi = 0;
        }
        (hi, lo)
    }

    /// Σ sums[i] · 2^(26 i) as three 64-bit words (each sum < 2^61).
    fn value(sums: [u64; 5]) -> [u64; 3] {
        let mut acc = [0u128; 3];
        for (i, &s) in sums.iter().enumerate() {
            let bit = 26 * i;
            let (w, off) = (bit / 64, bit % 64);
            let wide = u128::from(s) << off; // < 2^125
            acc[w] += wide & u128::from(u64::MAX);
            acc[w + 1] += wide >> 64;
        }
        let mut out = [0u64; 3];
        let mut carry = 0u128;
        for i in 0..3 {
            let v = acc[i] + carry;
            out[i] = v as u64;
            carry = v >> 64;
        }
        out
    }

    /// The conversion back to radix 2^64 at the sums where its 128-bit
    /// addition carries into h2: a limb 1 of 2^26 after the fold (the
    /// carry chain leaves it up to 2^26 + 2^12) with limb 4's low 24 bits
    /// all ones. Dropping that carry was a planted bug no test reached.
    #[test]
    fn to_radix64_keeps_the_carry_into_h2() {
        let m = (1u64 << 26) - 1;
        let cases = [
            [m, m, m, m, (1 << 26) + (1 << 24) - 1],
            [m, m, m, m, (1 << 24) - 1 + (7 << 26)],
            [m + 7, m, m, m, (1 << 26) + (1 << 24) - 1],
            [0, 0, 0, 0, 0],
            [m; 5],
            [(1 << 60) - 1; 5],
        ];
        let mut carried = 0;
        for sums in cases {
            let got = to_radix64(sums);
            assert!(got[2] <= 4, "h2 = {} for {sums:x?}", got[2]);
            assert_eq!(mod_p(got), mod_p(value(sums)), "sums {sums:x?}");
            let d = carry_scalar(sums);
            carried += usize::from(d[1] >> 26 != 0 && d[4] & ((1 << 24) - 1) == (1 << 24) - 1);
        }
        assert!(carried >= 2, "the cases must reach the carry");
    }

    /// The way each run takes, at every threshold: the lanes below 8 KiB;
    /// an `ExpandedKey`'s table once it has offered 1 MiB in runs of 8 KiB
    /// and more (the lanes until then); without one, a 16-pair table from
    /// 16 KiB and a 31-pair one from 64 KiB. Every way gives the same h, so
    /// no other test sees a choice made wrong (mutants of the guards
    /// survived them all).
    #[test]
    fn each_run_takes_its_way() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        let data = vec![0x5a; words::ONE_SHOT_LONG_BYTES + 64];
        let bare = |len: usize| State::new(&R_MAX, token).vector_blocks(&data[..len], 1, None);
        assert_eq!(bare(words::MIN_RUN_BYTES), Way::Lanes);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES - 64), Way::Lanes);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES), Way::Half);
        assert_eq!(bare(words::ONE_SHOT_MIN_BYTES + 48), Way::Half);
        assert_eq!(bare(words::ONE_SHOT_LONG_BYTES - 64), Way::Half);
        assert_eq!(bare(words::ONE_SHOT_LONG_BYTES), Way::Whole);
        assert_eq!(bare(words::ONE_SHOT_LONG_BYTES + 48), Way::Whole);
        let st = State::new(&R_MAX, token);
        let powers = st.powers();
        let kept = |len: usize| State::new(&R_MAX, token).vector_blocks(&data[..len], 1, Some(&powers));
        assert_eq!(kept(words::MIN_RUN_BYTES - 64), Way::Lanes);
        super::super::way::assert_kept_from_the_run_that_builds(kept, words::MIN_RUN_BYTES, words::BUILD_AFTER_BYTES);
        assert_eq!(kept(words::MIN_RUN_BYTES - 64), Way::Lanes);
        assert_eq!(kept(words::ONE_SHOT_LONG_BYTES), Way::Kept);
    }

    /// r with every bit §2 allows set.
    const R_MAX: [u8; 16] =
        [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

    /// `wipe` clears r and h. No output shows it (the one-shot path wipes
    /// the state after its tag, `Poly1305` and `ExpandedKey` on drop), so
    /// a wipe made a no-op was a planted bug no other test reached.
    #[test]
    fn wipe_clears_r_and_h() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        let mut st = State::new(&R_MAX, token);
        st.blocks(&[0xff; LAZY_MIN_BYTES], 1, None);
        assert_ne!(st.scalar.h(), [0; 3], "the vector path left something to wipe");
        st.wipe();
        assert_eq!((st.scalar.r(), st.scalar.h()), ((0, 0), [0; 3]));
    }

    /// Dropping the two-set lanes' `Rows` (r^8 and 5·r^8, on the stack for
    /// one run) zeroes them: no output shows it either.
    #[test]
    fn dropping_rows_zeroes_them() {
        let rows = Rows::new(&[3, 1 << 25, 7, 9, (1 << 26) - 1]);
        assert!(rows.0.iter().all(|r| r.iter().all(|&x| x != 0)));
        assert_eq!(rows.0[5], [5 << 25; 4], "row 5 is 5·k_1 in every lane");
        let mut r = core::mem::MaybeUninit::new(rows);
        // SAFETY: `r` holds an initialised `Rows`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { r.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `r`'s, and its rows are
        // plain `u64`s, valid for any bits: read through a raw pointer.
        let words = unsafe { (&raw const (*r.as_ptr()).0).read() };
        assert_eq!(words, [[0; 4]; 9]);
    }

    /// Dropping `Powers` (an `ExpandedKey`'s r^1 … r^8) zeroes every limb.
    /// No output shows it either: its drop made a no-op was a planted bug
    /// no other test reached. Needs no AVX2 (the powers are scalar code).
    #[test]
    fn dropping_powers_zeroes_every_limb() {
        let (r0, r1) =
            (u64::from_le_bytes(R_MAX[..8].try_into().unwrap()), u64::from_le_bytes(R_MAX[8..].try_into().unwrap()));
        let powers = Powers::new(r0, r1);
        assert!(powers.0.iter().all(|l| l.iter().any(|&x| x != 0)), "every power has a limb to zero");
        let mut p = core::mem::MaybeUninit::new(powers);
        // SAFETY: `p` holds an initialised `Powers`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { p.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `p`'s, and its limbs
        // are plain `u64`s, valid for any bits: read through a raw pointer,
        // with no reference to the dropped `Powers`.
        let limbs = unsafe { (&raw const (*p.as_ptr()).0).read() };
        assert_eq!(limbs, [[0; 5]; 8]);
    }
}
