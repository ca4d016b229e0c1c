//! Eight AES-128 blocks under eight keys used once, with VAES on 512-bit
//! registers: the fused key schedule of `x86_fused.rs`, four keys per
//! register (VAES works on each 128-bit lane; `vpshufb` and the byte shifts
//! stay inside lanes too), two registers. For batches of one-shot
//! Poly1305-AES tags under eight different keys.
//!
//! One key's schedule is a chain of ten dependent rounds; eight independent
//! chains in two registers cost about what one did. Tested equal to the
//! `aes` crate on random keys and nonces (`super::tests::check_pads8`). The
//! steps are `x86_fused.rs`'s `pads8_leaf!`.

use core::arch::x86_64::*;

use crate::cpu::Vaes512;

pads8_leaf! {
    token: Vaes512,
    features: "avx512f,avx512bw,vaes,aes",
    vector: __m512i,
    keys: 4,
    set1: _mm512_set1_epi32,
    xor: _mm512_xor_si512,
    shuffle: _mm512_shuffle_epi8,
    bslli4: _mm512_bslli_epi128::<4>,
    bslli8: _mm512_bslli_epi128::<8>,
    aesenclast: _mm512_aesenclast_epi128,
    aesenc: _mm512_aesenc_epi128,
    store: _mm512_store_si512,
}

/// Four 16-byte blocks, one per 128-bit lane, lane i from `b[i]`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn load(b: &[&[u8; 16]]) -> __m512i {
    // SAFETY: each `b[i]` is 16 readable bytes: one unaligned 16-byte load each.
    let x: [__m128i; 4] = core::array::from_fn(|i| unsafe { _mm_loadu_si128(b[i].as_ptr().cast()) });
    let lo = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x[0]), x[1]);
    let hi = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x[2]), x[3]);
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_pads_equal_the_aes_crate_and_call_between_nine_times() {
        let Some(token) = crate::cpu::token_for_test("Vaes512", crate::cpu::Features::vaes512) else { return };
        super::super::tests::check_pads8(&|k, n, out, between| super::pads8(token, k, n, out, between));
    }
}
