//! AVX-512 IFMA Poly1305 for long runs: each block's three limbs multiplied
//! by the block's own precomputed power of r, the products summed
//! unreduced, by limb place.
//!
//! # Method
//! Horner's rule in spans of [`GROUPS`] groups of eight blocks (4 KiB; 2 KiB
//! in runs below [`FULL_SPANS_BYTES`], whose cold keys would otherwise read
//! more table than message):
//! with V the running value spread over eight lanes (their sum is h mod p),
//!
//! ```text
//! V ← V · r^n + Σ_{j<n} m_j · r^(n−j)     (n = the span's blocks)
//! ```
//!
//! A block m = m0 + m1·2^44 + m2·2^88 (radix-2^44 limbs, the high bit at
//! bit 40 of m2) times a power e = e0 + e1·2^44 + e2·2^88 is nine products
//! m_t·e_i, each of weight 2^(44(t+i)): `vpmadd52luq` adds its low 52 bits
//! to the accumulator of place t + i, `vpmadd52huq` its bits 52 and up (a
//! product of two limbs is below 2^88.001, so those are below 2^37) to the
//! high accumulator of that place, worth 2^8 times the next place. Ten
//! accumulators (places 0 … 4, low and high), no carry and no wrap per
//! block: 18 `vpmadd52*` per eight blocks with three rows of powers, and
//! the nine instructions of the limb split. The lanes of
//! [`super::x86_avx512ifma`] take the same 18 products per eight blocks but
//! also a recombination and a carry step on the chain, about 20 more
//! instructions. Per span: V · r^n (V's limbs are three more pieces: 18
//! products into the same accumulators), the places folded (place 3 + i
//! wraps to place i times 20, as 2^132 ≡ 20) and one carry step.
//! The lanes are only added at the end, so any block may sit in any lane
//! under its own power: the two 64-byte loads of a group are unpacked into
//! lanes holding blocks 0, 4, 1, 5, 2, 6, 3, 7, and the table follows.
//!
//! Table ([`Table`], 6 KiB, built in the lanes): for group g of a span the
//! three limbs of r^e, e = 8·(32 − g) − k for the block k in each lane. A
//! span of n < 32 groups (a half span, a run's last) starts at group 32 − n,
//! so its powers run 8n … 1 as well, and its r^(8n) is that group's lane 0.
//!
//! # Limb bounds (radix 2^44: limbs of 44, 44, 42 bits at rest)
//! * Powers from [`super::x86_avx512ifma::Powers`] (limbs < 2^44 + 2^11,
//!   2^44 + 2^11, 2^42) and lane products of them, carried (< 2^44,
//!   2^44 + 1, 2^42): every limb < 2^44.0001.
//! * Block limbs < 2^44, 2^44, 2^41; V at rest (the first span's lane 0
//!   holds h from the portable state: limb 2 < 2^42.33). A product <
//!   2^88.34: low half < 2^52, high half < 2^36.34.
//! * A span of 32 groups and V (33 pieces per lane and limb) adds to place
//!   j as many terms as there are (t, i) with t + i = j (1, 2, 3, 2, 1),
//!   times 33: low sums < 2^57.05, 2^58.05, 2^58.63, 2^58.05, 2^57.05; high
//!   sums < 2^42.97 (place 4's < 2^41.4). Folded, S_j = low_j +
//!   2^8·high_(j−1) (S_5 = 2^8·high_4 < 2^49.4), then t_i = S_i +
//!   20·S_(3+i): t0 < 2^57.1 + 2^62.38 < 2^62.45, t1 < 2^58.1 + 2^61.38 <
//!   2^61.6, t2 < 2^58.7 + 2^53.8 < 2^58.8: no lane overflows.
//! * The carry step on those: carries < 2^18.45, 2^17.6 and (limb 2's,
//!   times 5) 2^19.1, then 0 → 1 once more: at rest (< 2^44, 2^44 + 1,
//!   2^42; lazy reduction, the portable code reduces fully at the end). The
//!   eight lanes' sum, < 2^47 per limb, is carried in scalar.
//!
//! Constant time: straight-line vector arithmetic; branches only on
//! lengths (public). Tested against the portable code at every span length
//! and run length to three spans, on extreme r, h and blocks.

use core::arch::x86_64::*;

use super::way::Way;
use crate::cpu::Avx512Ifma;
pub(crate) use crate::ifma_table::Table;
use crate::ifma_table::{Field, GROUPS};
use crate::ifma44::Limbs;
use crate::poly1305aes::field::{M44, limbs44, to_radix64};

/// Runs at least this long take the table, shorter ones the lanes of
/// [`super::x86_avx512ifma`]. Measured against OpenSSL (bench, quick mode,
/// `ExpandedKey`, AMD Zen 4, tier ifma): 8 KiB hot 0.58× with the table
/// against 0.86× in the lanes; 1000 keys cycled (cold) 0.82–0.86× against
/// 0.76×, as a cold key's table adds its lines to the message's.
pub(crate) const MIN_RUN_BYTES: usize = 8192;
/// An `ExpandedKey` builds its table once it has offered this many bytes in
/// runs of at least [`MIN_RUN_BYTES`] (its 128th run of 8 KiB, or a first of
/// 1 MiB), as on the AVX2 tier: with 16 KiB, 1000 keys building theirs on
/// their second 8 KiB run (a fresh heap block, page faults on first touch)
/// put that call at 2.8–3.2× OpenSSL (full mode, Zen 4, cold+1, the one
/// pair of cells above 1.00 in 131,152).
pub(crate) const BUILD_AFTER_BYTES: usize = 1 << 20;
/// Without an `ExpandedKey` the table is built for a run at least this
/// long, and wiped after it: one-shot `authenticate` with it at 16 KiB took
/// 0.90–0.93× OpenSSL against the lanes' 0.84–0.87× (the build is about a
/// third of the call); at 64 KiB 0.65× against 0.90×.
pub(crate) const ONE_SHOT_MIN_BYTES: usize = 65536;
/// Runs at least this long take spans of [`GROUPS`] groups, shorter ones
/// spans of half that (the table's second half): 1000 keys cycled at 16 KiB
/// took 0.95–1.06× OpenSSL in full spans, 0.87–0.95× in half spans (the
/// lanes: 0.77×); hot 1 MiB 0.55× in full spans, 0.60× in half spans.
const FULL_SPANS_BYTES: usize = 65536;

/// The way of a run of `len` bytes (whole 128-byte groups), under an
/// `ExpandedKey`'s powers (`expanded`) or a bare key's.
pub(crate) fn way_of(len: usize, expanded: bool) -> Way {
    match len {
        _ if len < MIN_RUN_BYTES => Way::Lanes,
        _ if expanded => Way::Kept,
        _ if len >= ONE_SHOT_MIN_BYTES => Way::Whole,
        _ => Way::Lanes,
    }
}

/// Blocks and arithmetic modulo 2^130 − 5 for the shared span.
struct Blocks {
    /// The high bit (0 or 2^40) at bit 40 of limb 2.
    hib: __m512i,
}

impl Field for Blocks {
    const GROUP_BYTES: usize = 128;
    const HIGH2: bool = true;

    /// Eight blocks as 44-bit limbs, lanes in block order 0, 4, 1, 5, 2, 6,
    /// 3, 7.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    #[inline]
    unsafe fn load(&self, group: &[u8]) -> Limbs {
        let bytes: &[u8; 128] = group.try_into().expect("128 bytes");
        // SAFETY: `bytes` is 128 readable bytes (its type says so): two
        // unaligned 64-byte loads.
        let (a, b) =
            unsafe { (_mm512_loadu_si512(bytes.as_ptr().cast()), _mm512_loadu_si512(bytes[64..].as_ptr().cast())) };
        let lo = _mm512_unpacklo_epi64(a, b);
        let hi = _mm512_unpackhi_epi64(a, b);
        let m = _mm512_set1_epi64(M44 as i64);
        [
            _mm512_and_si512(lo, m),
            _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)), m),
            _mm512_or_si512(_mm512_srli_epi64::<24>(hi), self.hib),
        ]
    }

    /// 20·x (2^132 ≡ 20).
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    #[inline]
    unsafe fn wrap(x: __m512i) -> __m512i {
        _mm512_add_epi64(_mm512_slli_epi64::<4>(x), _mm512_slli_epi64::<2>(x))
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    #[inline]
    unsafe fn carry(t: Limbs) -> Limbs {
        crate::ifma44::carry::<42, true>(t)
    }

    /// x · k per lane (k's limbs 1, 2 times 20 for the wrapped terms; the
    /// low and high halves recombined: high halves one limb place up times
    /// 2^8, limb 2's into limb 0 times 5120, as 2^140 ≡ 5·2^10), carried.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    unsafe fn times(x: &Limbs, k: &Limbs) -> Limbs {
        // SAFETY: the features are this function's own.
        let s = unsafe { [Self::wrap(k[1]), Self::wrap(k[2])] };
        let (l, h) = crate::ifma44::products(x, k, &s);
        let h2x = _mm512_add_epi64(_mm512_slli_epi64::<12>(h[2]), _mm512_slli_epi64::<10>(h[2]));
        let t = [
            _mm512_add_epi64(l[0], h2x),
            _mm512_add_epi64(l[1], _mm512_slli_epi64::<8>(h[0])),
            _mm512_add_epi64(l[2], _mm512_slli_epi64::<8>(h[1])),
        ];
        // SAFETY: as above.
        unsafe { Self::carry(t) }
    }
}

/// The table from a key's r^1 … r^16 (limb i of r^k at `powers[i][k − 1]`),
/// written straight into its heap block: groups 31 and 30 from r^8 … r^1
/// and r^16 … r^9 in the lanes' block order.
pub(crate) fn table(token: Avx512Ifma, powers: &[[u64; 16]; 3]) -> Box<Table> {
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    unsafe fn build(_proof: Avx512Ifma, p: &[[u64; 16]; 3], out: *mut Table) {
        // SAFETY: the features are this function's own; `out` is the
        // caller's, valid for one `Table`.
        unsafe { crate::ifma_table::build::<Blocks>(in_lane_order(p, 0), in_lane_order(p, 8), out) }
    }
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU; the shared
    // `build` writes every row of the `Table` it is given.
    unsafe { Table::new_with(|out| build(token, powers, out)) }
}

/// Powers r^(k+8) … r^(k+1) (k = 0 or 8) of a key's r^1 … r^16 in lanes
/// holding blocks o = 0, 4, 1, 5, 2, 6, 3, 7 of eight: lane of block o gets
/// r^(k+8−o), one load and one permute per limb. (The IFMA lanes' final
/// powers, and this table's last two groups.)
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
pub(super) fn in_lane_order(p: &[[u64; 16]; 3], k: usize) -> Limbs {
    assert!(k == 0 || k == 8);
    // Lane j takes r^(8−o_j) of the eight at k: table index 7 − o_j.
    let idx = _mm512_set_epi64(0, 4, 1, 5, 2, 6, 3, 7);
    core::array::from_fn(|i| {
        // SAFETY: `p[i][k..k + 8]` is 64 readable bytes (k is 0 or 8).
        let v = unsafe { _mm512_loadu_si512(p[i][k..k + 8].as_ptr().cast()) };
        _mm512_permutexvar_epi64(idx, v)
    })
}

/// h' after the blocks of `data` (a non-empty multiple of 128 bytes) from h
/// (the portable state's, h2 <= 4), each with the high bit `hibit` (0 or 1).
pub(crate) fn absorb(token: Avx512Ifma, table: &Table, h: [u64; 3], data: &[u8], hibit: u64) -> [u64; 3] {
    let groups = if data.len() >= FULL_SPANS_BYTES { GROUPS } else { GROUPS / 2 };
    absorb_in_spans(token, table, h, data, hibit, groups)
}

/// As [`absorb`], in spans of `groups` groups (1 to [`GROUPS`]).
fn absorb_in_spans(token: Avx512Ifma, table: &Table, h: [u64; 3], data: &[u8], hibit: u64, groups: usize) -> [u64; 3] {
    assert!(data.len().is_multiple_of(128) && !data.is_empty() && hibit <= 1);
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    fn run(_proof: Avx512Ifma, t: &Table, h: [u64; 3], data: &[u8], hibit: u64, groups: usize) -> [u64; 3] {
        let blocks = Blocks { hib: _mm512_set1_epi64((hibit << 40) as i64) };
        let v = limbs44(h[0], h[1], h[2]).map(|l| _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, l as i64));
        // SAFETY: the features are this function's own.
        let v = unsafe { crate::ifma_table::spans(&blocks, t, v, data, groups) };
        to_radix64(v.map(|l| _mm512_reduce_add_epi64(l) as u64))
    }
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU.
    unsafe { run(token, table, h, data, hibit, groups) }
}

#[cfg(test)]
mod tests {
    use super::super::soft;
    use super::*;

    /// r with every bit §2 allows set.
    const R_MAX: [u8; 16] =
        [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        use rand::{RngCore, SeedableRng};
        let mut b = vec![0u8; len];
        rand::rngs::StdRng::seed_from_u64(seed).fill_bytes(&mut b);
        b
    }

    /// The table's h' against the portable code's, in spans of either size,
    /// for every run of one group to 3 spans + all but one group (every span
    /// length, full spans before it), both high bits, extreme and random r,
    /// h and blocks.
    #[test]
    fn equal_to_the_portable_code_at_every_run_length() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else {
            return;
        };
        let mut one = [0u8; 16];
        one[0] = 1;
        let random: [u8; 16] = {
            let mut r: [u8; 16] = bytes(5, 16).try_into().unwrap();
            crate::poly1305aes::clamp(&mut r);
            r
        };
        // h2 <= 4 as the portable state keeps it; the largest h it holds
        let hs = [[0, 0, 0], [u64::MAX, u64::MAX, 4], [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210, 2]];
        for (ri, r) in [R_MAX, random, one].iter().enumerate() {
            let table = table(token, &super::super::x86_avx512ifma::State::new(r, token).powers().l);
            for (fill, groups) in [Some(0xffu8), Some(0), None].into_iter().flat_map(|f| [(f, GROUPS / 2), (f, GROUPS)])
            {
                let longest = 128 * (4 * groups - 1);
                let data = match fill {
                    Some(b) => vec![b; longest],
                    None => bytes(ri as u64 + 11, longest),
                };
                for len in (128..=data.len()).step_by(128) {
                    for h in hs {
                        for hibit in [1, 0] {
                            let mut want = soft::State::new(r);
                            want.set_h(h);
                            want.blocks(&data[..len], hibit);
                            let got = absorb_in_spans(token, &table, h, &data[..len], hibit, groups);
                            let mut have = soft::State::new(r);
                            have.set_h(got);
                            assert!(got[2] <= 4, "h2 {got:x?}");
                            assert_eq!(
                                have.finalize(&[0; 16]),
                                want.finalize(&[0; 16]),
                                "r {ri} fill {fill:?} groups {groups} len {len} h {h:x?} hibit {hibit}"
                            );
                        }
                    }
                }
            }
        }
    }
}
