//! AVX-512 IFMA CWC-HASH: eight lanes of radix-2^44 limbs modulo
//! p = 2^127 − 1, 52-bit multiply-adds (`vpmadd52luq`/`vpmadd52huq`).
//!
//! # Method
//! Lane j of a set holds coefficients j, j+8, j+16, … of a run (the 96-bit
//! big-endian chunks Y_i); each step multiplies every lane by Kh^8 and adds
//! the next eight coefficients; at the end lane j is multiplied by
//! Kh^(8−j) and the lanes are added. The running R of the chunks before the
//! run enters lane 0 before the first step, so it is multiplied by Kh^n for
//! a run of n coefficients, as Horner's rule has it (paper §6: powers of the
//! hash key make the lanes independent). The coefficients are split into
//! limbs by scalar code (a 96-bit value in three lanes' limb arrays), then
//! loaded as three vectors.
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
//!   2^51.6 < 2^54: no lane overflows. The final products (by Kh^(8−j))
//!   obey the same bounds; their 8-lane sums are < 2^60, carried in scalar.
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
use crate::cpu::Avx512Ifma;
use crate::ifma44::Limbs;

const M44: u64 = (1 << 44) - 1;
const M39: u64 = (1 << 39) - 1;

/// Runs shorter than this go through the portable code. Measured (encrypt
/// with the key made once, hot): with 768 a 576-byte message cost 1,214
/// ticks and a 1,024-byte one 1,200; from two groups of eight coefficients
/// 576 bytes cost 885 and 256 bytes 653 (718 with the portable hash).
pub(crate) const MIN_BYTES: usize = 2 * 96;

/// Kh^1 … Kh^8 in radix-2^44 limbs.
#[derive(Clone)]
pub(crate) struct Powers([[u64; 3]; 8]);

impl Drop for Powers {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.0.iter_mut().for_each(|l| l.zeroize());
    }
}

/// The limbs of x < 2^128 (limb 2 takes bits 88 and up).
fn limbs(x: u128) -> [u64; 3] {
    [x as u64 & M44, (x >> 44) as u64 & M44, (x >> 88) as u64]
}

impl Powers {
    /// From Kh^1 … Kh^4 (canonical) of the portable backend.
    pub(crate) fn new(p: &soft::Powers) -> Self {
        let k = p.all();
        let k8 = soft::canonical(soft::mul(k[3], k[3]));
        let k5 = soft::canonical(soft::mul(k[3], k[0]));
        let k6 = soft::canonical(soft::mul(k[3], k[1]));
        let k7 = soft::canonical(soft::mul(k[3], k[2]));
        Powers([k[0], k[1], k[2], k[3], k5, k6, k7, k8].map(limbs))
    }

    /// Kh^e, e counted from 1.
    fn get(&self, e: usize) -> &[u64; 3] {
        &self.0[e - 1]
    }
}

/// R after absorbing the 12-byte chunks of `data` (a multiple of 96 bytes,
/// at least [`MIN_BYTES`]) into R (<= 2^127). Returns a value <= 2^127.
pub(crate) fn absorb(token: Avx512Ifma, powers: &Powers, r: u128, data: &[u8]) -> u128 {
    assert!(data.len().is_multiple_of(96) && !data.is_empty());
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL and IFMA on this CPU.
    unsafe { lanes(token, powers, r, data) }
}

#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

/// Eight coefficients (96 bytes) as limb vectors, lane j = coefficient j.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn load(group: &[u8]) -> Limbs {
    let mut l = [[0u64; 8]; 3];
    for (j, c) in group.chunks_exact(12).enumerate() {
        let hi = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        let lo = u64::from_be_bytes([c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]]);
        l[0][j] = lo & M44;
        l[1][j] = (lo >> 44) | (u64::from(hi) << 20) & M44;
        l[2][j] = u64::from(hi >> 24);
    }
    // The coefficients are associated data and ciphertext, public: the
    // limb arrays need no wiping.
    // SAFETY: each l[i] is 64 readable bytes: unaligned loads.
    l.map(|a| unsafe { _mm512_loadu_si512(a.as_ptr().cast()) })
}

/// a·k per lane, low and high product halves recombined, unreduced; `s`
/// holds 32·k_1 and 32·k_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn mul(a: &Limbs, k: &Limbs, s: &[__m512i; 2]) -> Limbs {
    let ([l0, l1, l2], [h0, h1, h2]) = crate::ifma44::products(a, k, s);
    [
        _mm512_add_epi64(l0, _mm512_slli_epi64::<13>(h2)),
        _mm512_add_epi64(l1, _mm512_slli_epi64::<8>(h0)),
        _mm512_add_epi64(l2, _mm512_slli_epi64::<8>(h1)),
    ]
}

/// One lazy carry step per lane (see the limb bounds above).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn carry(t: Limbs) -> Limbs {
    crate::ifma44::carry::<39, false>(t)
}

/// `k` broadcast to every lane, with 32·k_1 and 32·k_2.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn broadcast(k: &[u64; 3]) -> (Limbs, [__m512i; 2]) {
    ([splat(k[0]), splat(k[1]), splat(k[2])], [splat(k[1] << 5), splat(k[2] << 5)])
}

#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn lanes(_proof: Avx512Ifma, p: &Powers, r: u128, data: &[u8]) -> u128 {
    let (k8, s8) = broadcast(p.get(8));
    let mut groups = data.chunks_exact(96);
    let mut a = load(groups.next().expect("at least one group"));
    let rl = limbs(r);
    for (limb, x) in a.iter_mut().zip(rl) {
        *limb = _mm512_add_epi64(*limb, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, x as i64));
    }
    for g in groups {
        a = carry(mul(&a, &k8, &s8));
        let m = load(g);
        for (limb, ml) in a.iter_mut().zip(m) {
            *limb = _mm512_add_epi64(*limb, ml);
        }
    }
    // Lane j times Kh^(8−j).
    let per_lane = |i: usize| {
        let v: [i64; 8] = core::array::from_fn(|j| p.get(8 - j)[i] as i64);
        _mm512_set_epi64(v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0])
    };
    let kf = [per_lane(0), per_lane(1), per_lane(2)];
    let sf = [_mm512_slli_epi64::<5>(kf[1]), _mm512_slli_epi64::<5>(kf[2])];
    let t = mul(&a, &kf, &sf);
    let d = t.map(|v| u128::from(_mm512_reduce_add_epi64(v) as u64));
    // The lane sums (< 2^60 each) carried as above, then folded to <= 2^127.
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
