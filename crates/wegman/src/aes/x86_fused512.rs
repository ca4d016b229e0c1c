//! Eight AES-128 blocks under eight keys used once, with VAES on 512-bit
//! registers: the fused key schedule of `x86_fused.rs`, four keys per
//! register (VAES works on each 128-bit lane; `vpshufb` and the byte shifts
//! stay inside lanes too), two registers. For batches of one-shot
//! Poly1305-AES tags under eight different keys.
//!
//! One key's schedule is a chain of ten dependent rounds; eight independent
//! chains in two registers cost about what one did. Tested equal to the
//! `aes` crate on random keys and nonces (`super::tests::check_pads8`).

use core::arch::x86_64::*;

use crate::cpu::Vaes512;

/// AES-128_{k[i]}(n[i]) for i in 0..8 into `out`, `between(i)` after the
/// (i+1)-th of the nine middle rounds, as `x86_fused::pads8` does.
pub(crate) fn pads8<B: super::Between>(
    token: Vaes512,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    between: B,
) {
    // SAFETY: `token` is a `Vaes512`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU.
    unsafe { encrypt8(token, k, n, out, between) }
}

/// The next round key of four keys, with round constant `rcon` in every column.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn next(k: __m512i, rcon: __m512i) -> __m512i {
    let rot = _mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f_0e0d));
    let t = _mm512_aesenclast_epi128(rot, rcon);
    let k = _mm512_xor_si512(k, _mm512_bslli_epi128::<4>(k));
    let k = _mm512_xor_si512(k, _mm512_bslli_epi128::<8>(k));
    _mm512_xor_si512(k, t)
}

/// Four 16-byte blocks, one per 128-bit lane, lane i from `b[i]`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn gather4(b: &[&[u8; 16]]) -> __m512i {
    // SAFETY: each `b[i]` is 16 readable bytes: one unaligned 16-byte load each.
    let x: [__m128i; 4] = core::array::from_fn(|i| unsafe { _mm_loadu_si128(b[i].as_ptr().cast()) });
    let lo = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x[0]), x[1]);
    let hi = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x[2]), x[3]);
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn encrypt8<B: super::Between>(
    _proof: Vaes512,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    mut between: B,
) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let (mut ka, mut kb) = (gather4(&k[..4]), gather4(&k[4..]));
    let mut sa = _mm512_xor_si512(gather4(&n[..4]), ka);
    let mut sb = _mm512_xor_si512(gather4(&n[4..]), kb);
    for (round, rcon) in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b].into_iter().enumerate() {
        let rc = _mm512_set1_epi32(rcon);
        ka = next(ka, rc);
        kb = next(kb, rc);
        sa = _mm512_aesenc_epi128(sa, ka);
        sb = _mm512_aesenc_epi128(sb, kb);
        between.round(round);
    }
    let rc = _mm512_set1_epi32(0x36);
    let op = out.0.as_mut_ptr().cast::<__m512i>();
    // SAFETY: `out` is 128 contiguous writable bytes, 64-byte aligned: two
    // aligned 64-byte stores.
    unsafe {
        _mm512_store_si512(op.cast(), _mm512_aesenclast_epi128(sa, next(ka, rc)));
        _mm512_store_si512(op.add(1).cast(), _mm512_aesenclast_epi128(sb, next(kb, rc)));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_pads_equal_the_aes_crate_and_call_between_nine_times() {
        let Some(token) = crate::cpu::token_for_test("Vaes512", crate::cpu::Features::vaes512) else { return };
        super::super::tests::check_pads8(&|k, n, out, between| super::pads8(token, k, n, out, between));
    }
}
