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

use super::x86_avx512ifma::{Powers, carry, lane_sum, load, mul, per_lane, plus_r};
use crate::cpu::Avx512Ifma;
pub(crate) use crate::ifma_table::Table;
use crate::ifma_table::{Field, GROUPS};
use crate::ifma44::Limbs;

/// Runs at least this long take the table. A cold key's table (96 lines)
/// is read from memory on its first span: with 1000 keys cycled (bench,
/// quick mode, Zen 4, against the best GCM) runs of 1–4 KiB took 2–4× the
/// lanes' time from 768 bytes up; 8 KiB messages 1.41–1.53× the best GCM
/// against the lanes' 1.24–1.32 (a hot key: 1.05–1.15 against 1.45).
/// 4 KiB rounded down to whole 12-byte coefficients: a message's hash run
/// is its whole coefficients (its last partial one goes apart, padded), so
/// at 4096 a message of 4,096 to 4,103 bytes, whose run is 4,092 bytes,
/// was never counted towards the table, and a key encrypting only 4 KiB
/// messages never got it (nor the one loop): a hot 4 KiB encryption took
/// 1,700 ticks against 1,370 for a decryption, which counted the message's
/// length (probe, key made once, Intel Xeon 6/207).
pub(crate) const MIN_RUN_BYTES: usize = 4096 / 12 * 12;
/// A key builds its table once it has offered this many bytes in runs of
/// at least [`MIN_RUN_BYTES`]: a one-shot key, for a message of 16 KiB or
/// more. With the table a key also gets the one loop of counter mode and
/// hash on CPUs with 512-bit VAES (`x86_avx512ifma_ctr.rs`), which paid for
/// the build from about 12 KiB: one-shot encryption, Intel Xeon 6/207, two
/// alternating pairs, best batches, 32 KiB (the threshold before) against
/// 16 KiB: 16 KiB messages 5,941–6,185 against 5,254–5,280 ticks, 24 KiB
/// 8,471–8,477 against 6,740–6,771 (decryption 6,195–6,236 against
/// 5,438–5,522 and 8,987–8,995 against 7,064–7,122). At 8 KiB the build did
/// not pay: 3,660–3,678 against 3,423–3,588 ticks.
pub(crate) const BUILD_AFTER_BYTES: usize = 16384;

/// Coefficients and arithmetic modulo 2^127 − 1 for the shared span.
/// [`GROUPS`] is 32: measured (encrypt and decrypt with the key made once,
/// hot, AMD Zen 4, best of three runs of 100–3,000 calls) against 16,
/// encrypt 16 KiB 4,482 against 4,668 ticks, 1 MiB 263,482 against
/// 275,219; decrypt 4,848 against 4,993 and 288,676 against 296,739.
pub(super) struct Coefficients;

impl Field for Coefficients {
    const GROUP_BYTES: usize = 96;
    const HIGH2: bool = false;

    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    #[inline]
    unsafe fn load(&self, group: &[u8]) -> Limbs {
        load(group)
    }

    /// 32·x (2^132 ≡ 2^5).
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    #[inline]
    unsafe fn wrap(x: __m512i) -> __m512i {
        _mm512_slli_epi64::<5>(x)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    #[inline]
    unsafe fn carry(t: Limbs) -> Limbs {
        carry(t)
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    unsafe fn times(x: &Limbs, k: &Limbs) -> Limbs {
        carry(mul(x, k, &[_mm512_slli_epi64::<5>(k[1]), _mm512_slli_epi64::<5>(k[2])]))
    }
}

/// The table from a key's Kh^1 … Kh^16, written straight into its heap
/// block: groups 31 and 30 are Kh^8 … Kh^1 and Kh^16 … Kh^9.
pub(crate) fn table(token: Avx512Ifma, powers: &Powers) -> Box<Table> {
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    unsafe fn build(_proof: Avx512Ifma, p: &Powers, out: *mut Table) {
        // SAFETY: the features are this function's own; `out` is the
        // caller's, valid for one `Table`.
        unsafe { crate::ifma_table::build::<Coefficients>(per_lane(p, 8).0, per_lane(p, 16).0, out) }
    }
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU; the shared
    // `build` writes every row of the `Table` it is given.
    unsafe { Table::new_with(|out| build(token, powers, out)) }
}

/// R after the coefficients of `data` (a non-empty multiple of 96 bytes)
/// from R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx512Ifma, table: &Table, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(96) && !data.is_empty());
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    fn run(_proof: Avx512Ifma, t: &Table, r: u128, data: &[u8]) -> u128 {
        let v = plus_r([_mm512_setzero_si512(); 3], r);
        // SAFETY: the features are this function's own.
        lane_sum(unsafe { crate::ifma_table::spans(&Coefficients, t, v, data, GROUPS) })
    }
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU.
    unsafe { run(token, table, r, data) }
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
            let table = table(token, &Powers::new(token, &soft));
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
}
