//! AVX-512 IFMA CWC-HASH for long runs: each coefficient's three limbs
//! multiplied by the coefficient's own precomputed power of Kh, the
//! products summed unreduced, by limb place (as Poly1305's IFMA table,
//! `poly1305aes/backend/x86_avx512ifma_words.rs`, does modulo 2^130 − 5).
//!
//! # Method
//! Horner's rule in spans of up to [`GROUPS`] groups of eight coefficients
//! (3,072 bytes): with V the running value spread over eight lanes (their
//! sum is R mod p),
//!
//! ```text
//! V ← V · Kh^n + Σ_{j<n} Y_j · Kh^(n−j)     (n = the span's coefficients)
//! ```
//!
//! A coefficient Y = y0 + y1·2^44 + y2·2^88 (y2 < 2^8) times a power
//! e = e0 + e1·2^44 + e2·2^88 is nine products y_t·e_i of weight 2^(44(t+i)):
//! `vpmadd52luq` adds the low 52 bits to the accumulator of place t + i,
//! `vpmadd52huq` bits 52 and up to the high accumulator of that place, worth
//! 2^8 times the next place. y2·e_i < 2^52, so y2 has no high halves: 15
//! `vpmadd52*` per eight coefficients, with three rows of powers and the
//! loading of [`super::x86_avx512ifma`]; the lanes there take 18 and a
//! recombination and carry step per group on the chain. Per span: V · Kh^n
//! (V's three limbs as pieces, 18 products into the same accumulators), the
//! places folded (2^132 ≡ 32 modulo 2^127 − 1: place 3 + i into place i
//! times 32) and one carry step. The lanes are only added at the end, so
//! each coefficient sits in its own lane j under its own power.
//!
//! Table ([`Table`], 6 KiB, built in the lanes from the key's Kh^1 … Kh^16):
//! for group g of a span the three limbs of Kh^e, e = 8·(32 − g) − j for the
//! coefficient j of each lane. A span of n < 32 groups (a run's last)
//! starts at group 32 − n, so its powers run 8n … 1 as well, and its
//! Kh^(8n) is that group's lane 0.
//!
//! # Limb bounds (radix 2^44: limbs of 44, 44, 39 bits at rest)
//! * Powers: Kh^1 … Kh^16 canonical (< 2^44, 2^44, 2^39), the others lane
//!   products carried (< 2^44, 2^44 + 2^13, 2^39): every limb < 2^44.0001.
//! * Coefficient limbs < 2^44, 2^44, 2^8; V at rest (R from the portable
//!   code, at most 2^127: limbs < 2^44, 2^44, 2^39 + 1). A product < 2^88.01:
//!   low half < 2^52, high half < 2^36.01; y2·e_i < 2^8·2^44.0001 — as
//!   integers, 255·(2^44 + 2^13) < 2^52: no high half.
//! * A span of 32 groups and V (33 pieces per lane and limb) adds to place
//!   j (1, 2, 3, 2, 1 pairs (t, i) with t + i = j) 33, 66, 99, 66 and 33 low
//!   terms: low sums < 2^57.05, 2^58.05, 2^58.63, 2^58.05, 2^57.05; high
//!   sums < 2^42.6. Folded, S_j = low_j + 2^8·high_(j−1) (S_3 < 2^58.06,
//!   S_4 < 2^57.1, S_5 < 2^50.6), then t_i = S_i + 32·S_(3+i):
//!   t0 < 2^57.05 + 2^63.06 < 2^63.1, t1 < 2^58.1 + 2^62.1 < 2^62.2,
//!   t2 < 2^58.7 + 2^55.6 < 2^58.9: no lane overflows.
//! * The carry step on those: carries < 2^19.1, 2^18.3 and (limb 2's bits
//!   from 2^127, times 1) 2^19.9, then 0 → 1 once more: at rest (lazy
//!   reduction; the portable code reduces fully at the end of the hash).
//!
//! Constant time: straight-line vector arithmetic; branches only on
//! lengths (public). Tested against the portable hash at every run length
//! to three spans, on extreme keys, running values and coefficients.

use core::arch::x86_64::*;

use super::x86_avx512ifma::{Powers, broadcast, carry, lane_sum, load, mul, per_lane};
use crate::cpu::Avx512Ifma;
use crate::ifma44::Limbs;

/// Runs at least this long take the table. A cold key's table (96 lines)
/// is read from memory on its first span: with 1000 keys cycled (bench,
/// quick mode, Zen 4, against the best GCM) runs of 1–4 KiB took 2–4× the
/// lanes' time from 768 bytes up; 8 KiB messages 1.41–1.53× the best GCM
/// against the lanes' 1.24–1.32 (a hot key: 1.05–1.15 against 1.45).
pub(crate) const MIN_RUN_BYTES: usize = 4096;
/// A key builds its table once it has offered this many bytes in runs of
/// at least [`MIN_RUN_BYTES`]: a one-shot key, for a message of 32 KiB or
/// more (the build is a few hundred ticks; a 16 KiB one-shot message costs
/// about 5,000).
pub(crate) const BUILD_AFTER_BYTES: usize = 32768;

/// Groups of eight coefficients in a full span. Measured (encrypt and
/// decrypt with the key made once, hot, AMD Zen 4, best of three runs of
/// 100–3,000 calls): 32 groups against 16, encrypt 16 KiB 4,482 against
/// 4,668 ticks, 1 MiB 263,482 against 275,219; decrypt 4,848 against
/// 4,993 and 288,676 against 296,739.
const GROUPS: usize = 32;

/// One group's rows: row i is limb i of Kh^e, lane j holding the power of
/// the group's coefficient j.
#[derive(Clone)]
#[repr(C, align(64))]
struct Group([[u64; 8]; 3]);

/// The powers of every coefficient of a full span.
#[derive(Clone)]
pub(crate) struct Table {
    groups: [Group; GROUPS],
}

impl Drop for Table {
    /// One `memset` and a `black_box` the optimizer must assume reads the
    /// zeros.
    fn drop(&mut self) {
        self.groups.iter_mut().for_each(|g| g.0.as_flattened_mut().fill(0));
        core::hint::black_box(self);
    }
}

impl Table {
    /// From a key's Kh^1 … Kh^16, written straight into its heap block.
    pub(crate) fn new(token: Avx512Ifma, powers: &Powers) -> Box<Self> {
        let mut out = Box::<Table>::new_uninit();
        // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out
        // only after detecting AVX-512 F, VL, IFMA and VBMI on this CPU;
        // `out` is a live allocation for one `Table`.
        unsafe { build(token, powers, out.as_mut_ptr()) };
        // SAFETY: `build` wrote every row (plain integers).
        unsafe { out.assume_init() }
    }
}

/// `x` times `k` per lane, carried (inputs at rest, outputs at rest).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn times(x: &Limbs, k: &Limbs) -> Limbs {
    carry(mul(x, k, &[_mm512_slli_epi64::<5>(k[1]), _mm512_slli_epi64::<5>(k[2])]))
}

/// Group q's powers Kh^(8·(16−q) − j) for the coefficient j of each lane:
/// group 15's are Kh^8 … Kh^1 and group 14's Kh^16 … Kh^9 (the key's), the
/// others stepped from them: groups q + have … give groups q … at a step
/// of Kh^(8·have), have = 2, 4, 8. Every row of `out` is written.
///
/// # Safety
/// AVX-512 F, VL and IFMA present; `out` valid for writing one `Table`.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
unsafe fn build(_proof: Avx512Ifma, p: &Powers, out: *mut Table) {
    let z = _mm512_setzero_si512();
    let mut v: [Limbs; GROUPS] = [[z; 3]; GROUPS];
    v[GROUPS - 1] = per_lane(p, 8).0;
    v[GROUPS - 2] = per_lane(p, 16).0;
    let mut k = broadcast(&p.get(16)).0;
    let mut have = 2;
    while have < GROUPS {
        for q in (GROUPS - 2 * have..GROUPS - have).rev() {
            v[q] = times(&v[q + have], &k);
        }
        k = times(&k, &k);
        have *= 2;
    }
    for (q, power) in v.iter().enumerate() {
        for (i, &row) in power.iter().enumerate() {
            // SAFETY: row i of group q of `*out`: 64 writable bytes (the
            // caller's precondition), written without reading.
            unsafe { _mm512_storeu_si512((&raw mut (*out).groups[q].0[i]).cast(), row) };
        }
    }
    // Every power of Kh passed through these on this stack frame.
    k = [z; 3];
    v.as_flattened_mut().fill(z);
    core::hint::black_box((&mut v, &mut k));
}

/// R after the coefficients of `data` (a non-empty multiple of 96 bytes)
/// from R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx512Ifma, table: &Table, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(96) && !data.is_empty());
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU.
    unsafe { spans(token, table, r, data) }
}

/// Ten accumulators: the low halves of the products of each limb place
/// 0 … 4, and their high halves.
type Places = ([__m512i; 5], [__m512i; 5]);

/// `acc` plus the products of pieces `y` and powers `e` (three limbs per
/// lane each), by place; the high halves of piece 2 only if `HIGH2` (a
/// coefficient's y2 < 2^8 has none).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
#[inline]
fn add_products<const HIGH2: bool>(acc: &mut Places, y: &Limbs, e: &Limbs) {
    let (l, h) = acc;
    for (t, &piece) in y.iter().enumerate() {
        for (i, &limb) in e.iter().enumerate() {
            l[t + i] = _mm512_madd52lo_epu64(l[t + i], piece, limb);
            if t < 2 || HIGH2 {
                h[t + i] = _mm512_madd52hi_epu64(h[t + i], piece, limb);
            }
        }
    }
}

/// The places folded into three limbs: S_j = low_j + 2^8·high_(j−1), and
/// place 3 + i into limb i times 32 (2^132 ≡ 32); unreduced.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn fold(acc: &Places) -> Limbs {
    let (l, h) = acc;
    let up = |x: __m512i| _mm512_slli_epi64::<8>(x);
    let x32 = |x: __m512i| _mm512_slli_epi64::<5>(x);
    let s3 = _mm512_add_epi64(l[3], up(h[2]));
    let s4 = _mm512_add_epi64(l[4], up(h[3]));
    let s5 = up(h[4]);
    [
        _mm512_add_epi64(l[0], x32(s3)),
        _mm512_add_epi64(_mm512_add_epi64(l[1], up(h[0])), x32(s4)),
        _mm512_add_epi64(_mm512_add_epi64(l[2], up(h[1])), x32(s5)),
    ]
}

/// V · Kh^(8n) plus a span of n groups (1 to [`GROUPS`]), carried.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
#[inline]
fn span(t: &Table, v: &Limbs, data: &[u8]) -> Limbs {
    let first = GROUPS - data.len() / 96;
    let z = _mm512_setzero_si512();
    let mut acc: Places = ([z; 5], [z; 5]);
    // Kh^(8n): the power of the span's first coefficient (lane 0 of its group)
    let g = &t.groups[first].0;
    let k: Limbs = core::array::from_fn(|i| _mm512_set1_epi64(g[i][0] as i64));
    add_products::<true>(&mut acc, v, &k);
    for (group, rows) in data.chunks_exact(96).zip(&t.groups[first..]) {
        // SAFETY: each row of `rows` is 64 aligned readable bytes.
        let e: Limbs = core::array::from_fn(|i| unsafe { _mm512_load_si512(rows.0[i].as_ptr().cast()) });
        add_products::<false>(&mut acc, &load(group), &e);
    }
    carry(fold(&acc))
}

#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
fn spans(_proof: Avx512Ifma, t: &Table, r: u128, data: &[u8]) -> u128 {
    let rl = [r as u64 & ((1 << 44) - 1), (r >> 44) as u64 & ((1 << 44) - 1), (r >> 88) as u64];
    let mut v: Limbs = rl.map(|l| _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, l as i64));
    for piece in data.chunks(96 * GROUPS) {
        v = span(t, &v, piece);
    }
    lane_sum(v)
}

#[cfg(test)]
mod tests {
    use super::super::soft;
    use super::*;

    /// The table's R against the portable hash's, for every run of one
    /// group to 3 spans + 15 groups, for hash keys and running values at
    /// their extremes and all-0xff, all-zero or random coefficients.
    #[test]
    fn equals_the_portable_hash_at_every_run_length() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        let p127 = (1u128 << 127) - 1;
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut rand = || (u128::from(next()) << 64) | u128::from(next());
        let mut khs = vec![1u128, 2, p127 - 1, p127 - 2, (1 << 126) + 1];
        khs.extend((0..3).map(|_| rand() & p127));
        let longest = 96 * (4 * GROUPS - 1);
        for (ki, kh) in khs.into_iter().enumerate() {
            let soft = soft::Powers::new(kh);
            let table = Table::new(token, &Powers::new(token, &soft));
            for (i, r) in [0u128, 1, p127, 1 << 127, rand() & p127].into_iter().enumerate() {
                let fill = (ki + i) % 3;
                let data: Vec<u8> = (0..longest)
                    .map(|_| match fill {
                        0 => 0xff,
                        1 => 0,
                        _ => rand() as u8,
                    })
                    .collect();
                for len in (96..=longest).step_by(96) {
                    let want = soft::canonical(soft.absorb(r, &data[..len]));
                    let got = absorb(token, &table, r, &data[..len]);
                    assert!(got <= 1 << 127);
                    assert_eq!(soft::canonical(got), want, "kh {kh:x} r {r:x} len {len}");
                }
            }
        }
    }

    /// Dropping a `Table` zeroes every row: no output shows it, so a drop
    /// made a no-op would survive every other test.
    #[test]
    fn dropping_a_table_zeroes_it() {
        let Some(token) = crate::cpu::Features::detect().avx512ifma() else { return };
        let table = *Table::new(token, &Powers::new(token, &soft::Powers::new(0x1234_5678_9abc_def0_1234)));
        assert!(table.groups.iter().all(|g| g.0.as_flattened().iter().any(|&x| x != 0)));
        let mut t = core::mem::MaybeUninit::new(table);
        // SAFETY: `t` holds an initialised `Table`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { t.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `t`'s, and its fields
        // are plain integers, valid for any bits: read through a raw pointer.
        let groups = unsafe { (&raw const (*t.as_ptr()).groups).read().map(|g| g.0) };
        assert!(groups.iter().all(|g| g.as_flattened().iter().all(|&x| x == 0)));
    }
}
