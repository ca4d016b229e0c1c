//! AVX2 Poly1305 for runs of 8 KiB and more: each 32-bit word of a block
//! multiplied by its own precomputed power of r, the products added
//! unreduced.
//!
//! # Method
//! Horner's rule in spans of up to 62 blocks (992 bytes; 32 blocks, 512
//! bytes, in the half table a one-shot call builds for a run under 64 KiB):
//! with V the running value spread over four lanes (their sum is h mod p),
//!
//! ```text
//! V ← V · r^n + Σ_{j<n} m_j · r^(n−j)     (n = the span's blocks)
//! ```
//!
//! A block is not split into limbs: with m = w0 + w1·2^32 + w2·2^64 +
//! w3·2^96 + 2^128 (its little-endian 32-bit words and the high bit),
//!
//! ```text
//! m · r^e = Σ_t w_t · (2^(32t)·r^e mod p) + 2^128·r^e
//! ```
//!
//! Each word times a precomputed power is five products, one per limb, and
//! no wrap: 20 `vpmuludq` (powers read from memory) and 20 additions per
//! four blocks, against 25 products, 20 additions, a carry step and 17
//! operations to split the blocks into limbs in [`super::x86_avx2`]'s
//! lanes. The high bits' part, Σ 2^128·r^e over the span, is one
//! precomputed constant added to lane 0. Only V · r^n and one carry step
//! per span sit on the chain. The lanes are only added at the end, so any
//! word may sit in any lane under its own power: one 32-byte load holds two
//! blocks, words 0 and 2 of each in the low halves of the 64-bit lanes
//! (which `vpmuludq` reads) and, in a second load 4 bytes on, words 1 and 3
//! (a run's last pair, whose next 4 bytes are not the run's, shifts them
//! down instead). Per span, the multiplier r^n, its wrap multiples and the
//! high bits' constant come from the table by loads too: the vector ALUs
//! are the bound here, and these took 3 % of their work (Intel Xeon 6/207
//! capped to `avx2-vaes`, 1 MiB: 0.587 → 0.571× OpenSSL's time).
//!
//! Why 62 blocks: each span also costs V · r^n (25 products, 20 additions)
//! and a carry step (about 20 operations), a fifth more on a 512-byte
//! span's 320 operations, a ninth on a 992-byte span's 620. 62 is the most
//! the lanes hold (the bounds below). Same Xeon, capped, hot, 1 MiB, an
//! `ExpandedKey`: 0.241 → 0.212 ticks a byte, 0.57 → 0.50× OpenSSL's time
//! (two runs). The bound of the loop alone is 40 operations per 64 bytes
//! at the 2.31 `vpmuludq`/`vpaddq` a cycle `tools/port-probe` measures
//! there: 0.206 ticks a byte at the 1.31 core cycles per tick the bench
//! estimates.
//!
//! (CWC-HASH's AVX2 lanes, `cwc/backend/x86_avx2.rs`, do the same modulo
//! 2^127 − 1.)
//!
//! Table ([`Table`] of P pairs: 11.9 KiB for an `ExpandedKey`'s 31, 6.1
//! KiB for 16; the 16-pair build took about 1,100 TSC ticks on that Xeon,
//! and the 31-pair build is twice its instructions, 20,200 against 10,400
//! under callgrind): for pair q of a span (blocks 2q and 2q + 1, powers e =
//! 2P − 2q and e − 1) the ten rows of its two word vectors, and for each q
//! the high bits' constant and the wrap multiples 5·k_1 … 5·k_4 of r^e for
//! a span that starts at pair q. A span of n < 2P blocks (a run's last)
//! starts at pair P − n/2, so its powers run n … 1 as well, and its r^n is
//! that pair's first row's lane 0.
//!
//! # Limb bounds (64-bit lanes; `vpmuludq` multiplies the low 32 bits)
//! * "At rest" (after [`carry`] on sums below 2^64): limbs 0, 2, 3 <
//!   2^26, limb 1 < 2^26 + 2^14.4, limb 4 < 2^26 + 2^12.1: all < 2^26.001.
//!   V is always at rest, but for h from the portable state in lane 0
//!   (limb 4 < 5·2^24 < 2^26.33).
//! * Powers: r^1 … r^8 from the scalar chain (limbs <= 2^26), the others
//!   products of at-rest values, carried; times 2^32 by moving the limbs
//!   up one place, limb 4 into limb 0 times 5·2^6 (2^130 ≡ 5; limbs <
//!   2^34.4 before their carry step): every row limb < 2^26.001, and 5·k <
//!   2^28.33 for the multiplier of V.
//! * A word < 2^32, so a product < 2^58.002; a span gives each limb of each
//!   lane two per pair, 62 in all (31 pairs): < 2^63.955. V · r^n: five
//!   products each < 2^26.33 · 2^28.33, < 2^56.99. The high bits' constant
//!   < 2^26.01. In all < 2^63.97: no lane overflows (a 32nd pair would
//!   reach 2^64.02).
//! * The carry step on sums < 2^63.97: carries out of limbs 0–3 < 2^37.97,
//!   limb 4's (times 5) < 2^40.3, added to limb 0 (< 2^26) and carried on:
//!   at rest again (lazy reduction; the portable code reduces fully at the
//!   end). The four lanes' sum, < 2^28.4 per limb, is carried in scalar.
//!
//! Constant time: straight-line vector arithmetic; branches only on
//! lengths and on the high bit (public: 1 for message blocks, 0 only for a
//! padded final block). Tested against the portable code at every span
//! length and run length to three spans, on extreme r, h and blocks, for
//! both tables.

use core::arch::x86_64::*;

use super::way::Way;
use super::x86_avx2_limbs::{carry, carry_scalar, limbs26, mul26, to_radix64};
use crate::avx2_mul::{Limbs26 as Limbs, broadcast, hsum, mul32_at, products26 as mul, splat};
use crate::cpu::Avx2;

/// Runs at least this long take the table, shorter ones the lanes of
/// [`super::x86_avx2`]. With one hot key the table is faster from 2 KiB
/// (quick mode, Intel Xeon 6/207 capped to `avx2-vaes`, against OpenSSL's
/// AVX2 code: 0.55–0.79× at 2 KiB against 0.83–0.87, 0.57–0.67 at 4 KiB
/// against 0.92), but a key among many (1000 `ExpandedKey`s cycled) reads
/// its table from beyond L2: with the 16-pair table (96 lines), 4 KiB took
/// 0.87–0.96× with the table against 0.79–0.82 without, 8 KiB 0.83–0.90
/// against 0.84–0.88 (two alternating runs of each build), and in full mode
/// the table put 2,721 cold cells of 4–8 KiB above 1.05× (none without it).
/// The 31-pair table (190 lines), cold, 8 KiB: 0.84–0.86× against the
/// 16-pair table's 0.84–0.85 (two alternating runs).
pub(crate) const MIN_RUN_BYTES: usize = 8192;
/// An `ExpandedKey` builds its table once it has offered this many bytes in
/// runs of at least [`MIN_RUN_BYTES`] (its 128th run of 8 KiB, or a first of
/// 1 MiB). Building it (r^9 … r^62, each power times 2^32, 2^64, 2^96) takes
/// about twice the 1,100 TSC ticks the 16-pair table took on that Xeon; but
/// its heap block's first touch is page faults, and 1000 keys building
/// theirs on their second 8 KiB run put that call's cost above 1.05× OpenSSL
/// (full mode, capped to `avx2-vaes` on AMD Zen 4: worst 1.85×). After
/// 1 MiB offered the build is at most a few percent of what the key has done.
pub(crate) const BUILD_AFTER_BYTES: usize = 1 << 20;
/// Without an `ExpandedKey` (one-shot and streaming calls from a `Key`) the
/// table is built for a run at least this long, and wiped after it: one-shot
/// `authenticate` with the 16-pair table at 8 KiB took what the lanes take
/// (hot, that Xeon); at 16 KiB 13 % less, from 64 KiB 37–43 % less.
pub(crate) const ONE_SHOT_MIN_BYTES: usize = 16384;
/// One-shot runs at least this long build the 31-pair table, shorter ones
/// (from [`ONE_SHOT_MIN_BYTES`]) the 16-pair one: its build is half the
/// work, which the longer spans repay only from about 64 KiB (one-shot
/// `authenticate`, hot, that Xeon capped: with the 31-pair table from 16
/// KiB, 16 KiB took 0.95× OpenSSL's time against 0.76 before; at 64 KiB
/// 0.62 either way; at 1 MiB 0.51 against 0.57).
pub(crate) const ONE_SHOT_LONG_BYTES: usize = 65536;

/// The way of a run of `len` bytes (whole 64-byte groups), under an
/// `ExpandedKey`'s powers (`expanded`) or a bare key's.
pub(crate) fn way_of(len: usize, expanded: bool) -> Way {
    match len {
        _ if len < MIN_RUN_BYTES => Way::Lanes,
        _ if expanded => Way::Kept,
        _ if len >= ONE_SHOT_LONG_BYTES => Way::Whole,
        _ if len >= ONE_SHOT_MIN_BYTES => Way::Half,
        _ => Way::Lanes,
    }
}

/// Pairs of blocks in an `ExpandedKey`'s table's span: 62 blocks, the most
/// whose products fit the lanes (see the bounds above).
pub(crate) const KEPT_PAIRS: usize = 31;
/// Pairs of blocks in a one-shot call's table's span, unless the run is at
/// least [`ONE_SHOT_LONG_BYTES`]: half the build.
pub(crate) const ONE_SHOT_PAIRS: usize = 16;

/// One pair of blocks' rows: row i is limb i of the powers of the words in
/// the pair's low word vector (lanes: block 0 word 0, block 0 word 2,
/// block 1 word 0, block 1 word 2), row 5 + i of its high word vector
/// (words 1, 3, 1, 3).
#[derive(Clone)]
#[repr(C, align(32))]
struct Pair([[u64; 4]; 10]);

/// The powers of every word of a full span, and the high bits' constants.
#[derive(Clone)]
pub(crate) struct Table<const PAIRS: usize> {
    pairs: [Pair; PAIRS],
    /// Σ 2^128·r^e for e = 1 … 2·PAIRS − 2q (the span starting at pair
    /// q), carried: limbs < 2^26 but limb 1 < 2^26 + 2^12.
    high_bits: [[u64; 5]; PAIRS],
    /// 5·(limbs 1 to 4 of r^(2·PAIRS − 2q)), the wrap multiples of a span that
    /// starts at pair q (precomputed: vector ALU work saved per span).
    wraps: [[u64; 4]; PAIRS],
}

impl<const PAIRS: usize> Drop for Table<PAIRS> {
    /// One `memset` and a `black_box` the optimizer must assume reads the
    /// zeros (`zeroize`'s volatile loop stores a word a cycle: 700 here).
    fn drop(&mut self) {
        self.pairs.iter_mut().for_each(|p| p.0.as_flattened_mut().fill(0));
        self.high_bits.as_flattened_mut().fill(0);
        self.wraps.as_flattened_mut().fill(0);
        core::hint::black_box(self);
    }
}

impl<const PAIRS: usize> Table<PAIRS> {
    /// A span's bytes.
    const SPAN: usize = 32 * PAIRS;
    /// The last pair (powers r^2 and r^1).
    const LAST: usize = PAIRS - 1;
    /// 62 blocks at most (the lanes' bound), and a step for each power of
    /// two below `PAIRS` in [`build`].
    const FITS: () = assert!(PAIRS >= 2 && PAIRS <= 31);

    /// From a key's r^1 … r^8, written straight into its heap block.
    pub(crate) fn new(token: Avx2, r: &[[u64; 5]; 8]) -> Box<Self> {
        let () = Self::FITS;
        let mut out = Box::<Self>::new_uninit();
        // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only
        // after detecting AVX2 on this CPU; `out` is a live allocation for
        // one `Table`.
        unsafe { build(token, r, out.as_mut_ptr()) };
        // SAFETY: `build` wrote every row and constant (plain integers).
        unsafe { out.assume_init() }
    }
}

/// x · 2^32 (x at rest, or any limbs below 2^26.4), at rest: the limbs
/// moved up one place times 2^6, limb 4 into limb 0 times 5·2^6.
#[target_feature(enable = "avx2")]
fn times_2_32(x: Limbs) -> Limbs {
    let up = _mm256_slli_epi64::<6>;
    let wrapped = _mm256_add_epi64(_mm256_slli_epi64::<8>(x[4]), up(x[4]));
    carry([wrapped, up(x[0]), up(x[1]), up(x[2]), up(x[3])])
}

/// Pair q's powers r^(2P−2q) (lanes 0, 1) and r^(2P−1−2q) (lanes 2, 3)
/// for P = `PAIRS`, the last pair's from r^2 and r^1 and the others from
/// it: the one before it steps by r^2, the two before those by r^4 (from
/// the last two), then four by r^8, eight by r^16, and the rest (14 of 31)
/// by r^32: 5 steps in a chain, not 30. Then each pair's rows, and the high
/// bits' constants. Every row and constant of `out` is written.
///
/// # Safety
/// AVX2 present; `out` valid for writing one `Table`.
#[target_feature(enable = "avx2")]
unsafe fn build<const PAIRS: usize>(_proof: Avx2, r: &[[u64; 5]; 8], out: *mut Table<PAIRS>) {
    let last = Table::<PAIRS>::LAST;
    use zeroize::Zeroize;
    // r^2, r^4, r^8, r^16, r^32: pair q steps from pair q + d by r^(2d), d
    // the largest power of two with q + d <= the last pair
    let mut r16 = mul26(&r[7], &r[7]);
    let mut r32 = if last >= 16 { mul26(&r16, &r16) } else { [0; 5] };
    let steps = [&r[1], &r[3], &r[7], &r16, &r32];
    let times = |x: &Limbs, (k, s): &(Limbs, [__m256i; 4])| carry(mul(x, k, s));
    let mut v: [Limbs; PAIRS] = [[_mm256_setzero_si256(); 5]; PAIRS];
    v[last] =
        core::array::from_fn(|i| _mm256_set_epi64x(r[0][i] as i64, r[0][i] as i64, r[1][i] as i64, r[1][i] as i64));
    for q in (0..last).rev() {
        let d = (last - q).ilog2() as usize;
        v[q] = times(&v[q + (1 << d)], &broadcast::<5>(steps[d]));
    }
    // Σ 2^128·r^e over pairs q … the last, lanes 0 and 2 of each pair's
    // (lanes 1 and 3 repeat them)
    let mut high: Limbs = [_mm256_setzero_si256(); 5];
    for q in (0..PAIRS).rev() {
        let power = v[q];
        let t32 = times_2_32(power);
        let t64 = times_2_32(t32);
        let t96 = times_2_32(t64);
        // qword lanes 1 and 3 from the second operand
        let low = |a: __m256i, b: __m256i| _mm256_blend_epi32::<0b1100_1100>(a, b);
        let mut sum = [0u64; 5];
        for i in 0..5 {
            // SAFETY: rows i and 5 + i of pair q of `*out`: 32 writable
            // bytes each (the caller's precondition), written without reading.
            unsafe {
                _mm256_storeu_si256((&raw mut (*out).pairs[q].0[i]).cast(), low(power[i], t64[i]));
                _mm256_storeu_si256((&raw mut (*out).pairs[q].0[5 + i]).cast(), low(t32[i], t96[i]));
            }
            high[i] = _mm256_add_epi64(high[i], t96[i]);
            sum[i] = (_mm256_extract_epi64::<0>(high[i]) + _mm256_extract_epi64::<2>(high[i])) as u64;
        }
        // 2^96·Σ r^e < 2^32.0 per limb (62 at-rest terms), times 2^32 in
        // scalar (below 2^40.4, well within `carry_scalar`'s 2^61): the limbs
        // moved up one place times 2^6, limb 4 into limb 0 times 5·2^6
        let mut up = [320 * sum[4], sum[0] << 6, sum[1] << 6, sum[2] << 6, sum[3] << 6];
        // SAFETY: constant q of `*out`, 40 writable bytes.
        unsafe { (&raw mut (*out).high_bits[q]).write(carry_scalar(up)) };
        let wraps: [u64; 4] = core::array::from_fn(|i| 5 * _mm256_extract_epi64::<0>(power[i + 1]) as u64);
        // SAFETY: wrap multiples q of `*out`, 32 writable bytes.
        unsafe { (&raw mut (*out).wraps[q]).write(wraps) };
        sum.zeroize();
        up.zeroize();
    }
    high.iter_mut().for_each(|h| *h = _mm256_setzero_si256());
    core::hint::black_box(&mut high);
    r16.zeroize();
    r32.zeroize();
    // Every power of r passed through `v` on this stack frame.
    v.as_flattened_mut().fill(_mm256_setzero_si256());
    core::hint::black_box(&mut v);
}

/// h' after the blocks of `data` (a non-empty multiple of 32 bytes) from h
/// (the portable state's, h2 <= 4), each with the high bit `hibit` (0 or 1).
pub(crate) fn absorb<const PAIRS: usize>(
    token: Avx2,
    table: &Table<PAIRS>,
    h: [u64; 3],
    data: &[u8],
    hibit: u64,
) -> [u64; 3] {
    assert!(data.len().is_multiple_of(32) && !data.is_empty() && hibit <= 1);
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU.
    unsafe { spans(token, table, h, data, hibit) }
}

/// [`absorb`] under a table of `PAIRS` pairs built from r^1 … r^8 for this
/// run alone, and wiped after it (a key without an `ExpandedKey`).
pub(crate) fn absorb_once<const PAIRS: usize>(
    token: Avx2,
    r: &[[u64; 5]; 8],
    h: [u64; 3],
    data: &[u8],
    hibit: u64,
) -> [u64; 3] {
    absorb(token, &Table::<PAIRS>::new(token, r), h, data, hibit)
}

/// A 32-byte chunk as one vector (unaligned load).
#[target_feature(enable = "avx2")]
#[inline]
fn load32(chunk: &[u8]) -> __m256i {
    let bytes: &[u8; 32] = chunk.try_into().expect("32 bytes");
    // SAFETY: `bytes` is 32 readable bytes (its type says so).
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}

/// `t` plus the products of a pair of blocks' words and their powers `p`,
/// read from memory: limb i gains low·(row i) + high·(row 5 + i). `low`
/// holds the pair's words 0 and 2 of each block in the low halves of its
/// 64-bit lanes, `high` words 1 and 3 (`vpmuludq` ignores the high halves).
#[target_feature(enable = "avx2")]
#[inline]
fn add_products(t: Limbs, low: __m256i, high: __m256i, p: &Pair) -> Limbs {
    // Row r of the pair is the 32 bytes at offset 32·r.
    macro_rules! limb {
        ($i:literal) => {
            _mm256_add_epi64(
                t[$i],
                _mm256_add_epi64(mul32_at::<{ 32 * $i }, Pair>(low, p), mul32_at::<{ 32 * (5 + $i) }, Pair>(high, p)),
            )
        };
    }
    [limb!(0), limb!(1), limb!(2), limb!(3), limb!(4)]
}

/// V · r^n plus a span of n blocks (2 to 32, even): the first n blocks of
/// `rest` (the bytes after them may be read, never used), carried.
#[target_feature(enable = "avx2")]
#[inline]
fn span<const PAIRS: usize>(t: &Table<PAIRS>, v: Limbs, rest: &[u8], hibit: u64) -> Limbs {
    let pairs = rest.len().min(Table::<PAIRS>::SPAN) / 32;
    let first = PAIRS - pairs;
    // r^n: the power of the span's first word (row i, lane 0 of its pair)
    let g = &t.pairs[first].0;
    let k: Limbs = core::array::from_fn(|i| splat(g[i][0]));
    let s = t.wraps[first].map(|w| splat(w));
    // The high bits' constant in lane 0: a 64-bit load zero-extended (a
    // load port's work); none for a span of padded blocks.
    let c = &t.high_bits[first];
    let mut acc: Limbs = [_mm256_setzero_si256(); 5];
    if hibit == 1 {
        // SAFETY: `c[i]` is 8 readable bytes (`vmovq`, no alignment needed).
        acc = core::array::from_fn(|i| _mm256_zextsi128_si256(unsafe { _mm_loadl_epi64((&raw const c[i]).cast()) }));
    }
    // Words 1 and 3 of each block reach the low halves by a load 4 bytes
    // on (a load port's work, not a vector ALU's as a shift is) wherever
    // those bytes exist: every pair but a run's last.
    let loaded = if rest.len() >= 32 * pairs + 4 { pairs } else { pairs - 1 };
    let ext = &rest[..32 * loaded + 4];
    let rows = &t.pairs[first..];
    for ((low, high), p) in ext.chunks_exact(32).zip(ext[4..].chunks_exact(32)).zip(rows) {
        acc = add_products(acc, load32(low), load32(high), p);
    }
    if loaded < pairs {
        let low = load32(&rest[32 * loaded..32 * pairs]);
        acc = add_products(acc, low, _mm256_srli_epi64::<32>(low), &rows[loaded]);
    }
    let vk = mul(&v, &k, &s);
    carry(core::array::from_fn(|i| _mm256_add_epi64(acc[i], vk[i])))
}

#[target_feature(enable = "avx2")]
fn spans<const PAIRS: usize>(_proof: Avx2, t: &Table<PAIRS>, h: [u64; 3], data: &[u8], hibit: u64) -> [u64; 3] {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let mut v: Limbs = limbs26(h[0], h[1], h[2]).map(|l| _mm256_set_epi64x(0, 0, 0, l as i64));
    for at in (0..data.len()).step_by(Table::<PAIRS>::SPAN) {
        v = span(t, v, &data[at..], hibit);
    }
    to_radix64(core::array::from_fn(|i| hsum(v[i])))
}

#[cfg(test)]
mod tests {
    use super::super::soft;
    use super::*;

    /// r with every bit §2 allows set.
    const R_MAX: [u8; 16] =
        [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

    /// r^1 … r^8 of a clamped r, as an `ExpandedKey` keeps them.
    fn powers(r: &[u8; 16]) -> [[u64; 5]; 8] {
        let [r0, r1] = [&r[..8], &r[8..]].map(|h| u64::from_le_bytes(h.try_into().unwrap()));
        super::super::x86_avx2_limbs::powers_of_r(r0, r1)
    }

    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        use rand::{RngCore, SeedableRng};
        let mut b = vec![0u8; len];
        rand::rngs::StdRng::seed_from_u64(seed).fill_bytes(&mut b);
        b
    }

    /// The table's h' against the portable code's, for every run of 1 to
    /// 3 spans + all but one pair (every span length, full spans before
    /// it), both high bits, extreme and random r, h and blocks: for an
    /// `ExpandedKey`'s table and a one-shot call's.
    #[test]
    fn equal_to_the_portable_code_at_every_run_length() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        equal_to_the_portable_code::<KEPT_PAIRS>(token);
        equal_to_the_portable_code::<ONE_SHOT_PAIRS>(token);
    }

    fn equal_to_the_portable_code<const PAIRS: usize>(token: Avx2) {
        let span = Table::<PAIRS>::SPAN;
        let mut one = [0u8; 16];
        one[0] = 1;
        let random: [u8; 16] = {
            let mut r: [u8; 16] = bytes(5, 16).try_into().unwrap();
            crate::poly1305aes::clamp(&mut r);
            r
        };
        // h2 <= 4 as the portable state keeps it; the largest h it holds
        let hs = [[0, 0, 0], [u64::MAX, u64::MAX, 4], [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 2]];
        let emulated = std::env::var_os("WEGMAN_EMULATED").is_some();
        for (ri, r) in [R_MAX, random, one].iter().enumerate() {
            let table = Table::<PAIRS>::new(token, &powers(r));
            for fill in [Some(0xffu8), Some(0), None] {
                let data = match fill {
                    Some(b) => vec![b; 3 * span + span - 32],
                    None => bytes(ri as u64 + 11, 3 * span + span - 32),
                };
                for len in (32..=data.len()).step_by(32) {
                    if emulated && len % span > 96 && len % span < span - 96 {
                        continue;
                    }
                    for h in hs {
                        for hibit in [1, 0] {
                            let mut want = soft::State::new(r);
                            want.set_h(h);
                            want.blocks(&data[..len], hibit);
                            let got = absorb(token, &table, h, &data[..len], hibit);
                            let mut have = soft::State::new(r);
                            have.set_h(got);
                            assert!(got[2] <= 4, "h2 {got:x?}");
                            assert_eq!(
                                have.finalize(&[0; 16]),
                                want.finalize(&[0; 16]),
                                "pairs {PAIRS} r {ri} fill {fill:?} len {len} h {h:x?} hibit {hibit}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The lanes' bound, tested where no key reaches it: a 31-pair table
    /// whose every row limb is the largest an at-rest value may have
    /// (2^26.001), the high bits' constant at its largest (2^26.01), h at
    /// the largest the portable state holds and a span of all-ones words
    /// give the exact sum of their products mod p. With 32 pairs (64
    /// products a limb) this test fails: the lanes wrap. A table of real
    /// powers never comes near (their limbs are spread below 2^26), so the
    /// equality tests above pass at 32 pairs too.
    #[test]
    fn a_span_at_the_lanes_bound_does_not_wrap() {
        use num_bigint::BigUint;
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        let (m, c) = ((1u64 << 26) + 46_000, (1u64 << 26) + 466_000);
        let table = Table::<KEPT_PAIRS> {
            pairs: core::array::from_fn(|_| Pair([[m; 4]; 10])),
            high_bits: [[c; 5]; KEPT_PAIRS],
            wraps: [[5 * m; 4]; KEPT_PAIRS],
        };
        let h = [u64::MAX, u64::MAX, 4];
        let data = [0xffu8; 32 * KEPT_PAIRS];
        let got = absorb(token, &table, h, &data, 1);
        let p = (BigUint::from(1u8) << 130u32) - 5u32;
        let big = |x: [u64; 3]| x.iter().rev().fold(BigUint::ZERO, |t, &w| (t << 64u32) + w);
        // Σ over the limbs of what each limb's lanes hold, at its place:
        // two products a pair in each of four lanes, the constant in lane
        // 0; and V · r^n with V = h in lane 0, r^n's limbs all m.
        let limbs = |x: u128| (0..5u32).fold(BigUint::ZERO, |t, i| t + (BigUint::from(x) << (26 * i)));
        let products = 4 * 2 * KEPT_PAIRS as u128 * u128::from(u32::MAX) * u128::from(m);
        let want = (big(h) * limbs(u128::from(m)) + limbs(products + u128::from(c))) % &p;
        assert_eq!(big(got) % &p, want);
    }

    /// Dropping a `Table` zeroes every row and constant: no output shows
    /// it, so a drop made a no-op would survive every other test.
    #[test]
    fn dropping_a_table_zeroes_it() {
        let Some(token) = crate::cpu::Features::detect().avx2() else { return };
        let table = *Table::<KEPT_PAIRS>::new(token, &powers(&R_MAX));
        assert!(table.pairs.iter().all(|p| p.0.as_flattened().iter().any(|&x| x != 0)));
        assert!(table.high_bits.iter().all(|c| c.iter().any(|&x| x != 0)));
        assert!(table.wraps.iter().all(|c| c.iter().any(|&x| x != 0)));
        let mut t = core::mem::MaybeUninit::new(table);
        // SAFETY: `t` holds an initialised `Table`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { t.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `t`'s, and its fields
        // are plain integers, valid for any bits: read through raw pointers.
        let (pairs, high, wraps) = unsafe {
            (
                (&raw const (*t.as_ptr()).pairs).read().map(|p| p.0),
                (&raw const (*t.as_ptr()).high_bits).read(),
                (&raw const (*t.as_ptr()).wraps).read(),
            )
        };
        assert!(pairs.iter().all(|p| p.as_flattened().iter().all(|&x| x == 0)));
        assert_eq!(high, [[0; 5]; KEPT_PAIRS]);
        assert_eq!(wraps, [[0; 4]; KEPT_PAIRS]);
    }
}
