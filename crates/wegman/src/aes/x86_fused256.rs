//! Eight AES-128 blocks under eight keys used once, with VAES on 256-bit
//! registers (the AVX2 encoding: Zen 3, Alder Lake and later): the fused
//! key schedule of `x86_fused.rs`, two keys per register (VAES, `vpshufb`
//! and the byte shifts all work within 128-bit lanes), four registers. For
//! batches of one-shot Poly1305-AES tags under eight different keys: half
//! the instructions of eight AES-NI chains. Tested equal to the `aes` crate
//! on random keys and nonces (`super::tests::check_pads8`). The steps are
//! `x86_fused.rs`'s `pads8_leaf!`.

use core::arch::x86_64::*;

use crate::cpu::Vaes256;

pads8_leaf! {
    token: Vaes256,
    features: "avx2,vaes,aes",
    vector: __m256i,
    keys: 2,
    set1: _mm256_set1_epi32,
    xor: _mm256_xor_si256,
    shuffle: _mm256_shuffle_epi8,
    bslli4: _mm256_bslli_epi128::<4>,
    bslli8: _mm256_bslli_epi128::<8>,
    aesenclast: _mm256_aesenclast_epi128,
    aesenc: _mm256_aesenc_epi128,
    store: _mm256_store_si256,
}

/// Two 16-byte blocks, `b[0]` in the low lane and `b[1]` in the high one.
#[target_feature(enable = "avx2")]
#[inline]
fn load(b: &[&[u8; 16]]) -> __m256i {
    // SAFETY: `b[0]` and `b[1]` are 16 readable bytes each: unaligned loads.
    let (lo, hi) = unsafe { (_mm_loadu_si128(b[0].as_ptr().cast()), _mm_loadu_si128(b[1].as_ptr().cast())) };
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_pads_equal_the_aes_crate_and_call_between_nine_times() {
        let Some(token) = crate::cpu::token_for_test("Vaes256", crate::cpu::Features::vaes256) else { return };
        super::super::tests::check_pads8(&|k, n, out, between| super::pads8(token, k, n, out, between));
    }
}
