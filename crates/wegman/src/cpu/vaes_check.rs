//! The known-answer test behind the [`Vaes256`](super::Vaes256) token: one
//! 256-bit `vaesenc` and `vaesenclast` must give, in both lanes, what
//! 128-bit `aesenc` and `aesenclast` give. An emulator can report
//! instructions it gets wrong (qemu 7.2's TCG computes the upper lane of a
//! 256-bit `vaesenc` wrongly), so `crate::cpu` withholds the token from a
//! CPU that fails. Fixed inputs, nothing secret.
//!
//! This leaf runs where the tokens are made, so it is entered on the
//! standard library's detection of the same flags rather than on a token;
//! it depends on nothing else in the crate.

use core::arch::x86_64::*;

/// Whether this CPU reports AES-NI, VAES and AVX2 and computes the test
/// right (false if it reports any of them missing).
pub(super) fn vaes256_agrees() -> bool {
    use std::is_x86_feature_detected as has;
    if !(has!("aes") && has!("vaes") && has!("avx2")) {
        return false;
    }
    // SAFETY: the CPU reports AES-NI, VAES and AVX2 (checked just above),
    // all that `check` enables; it touches no memory.
    unsafe { check() }
}

#[target_feature(enable = "avx2,vaes,aes")]
fn check() -> bool {
    let x =
        _mm256_set_epi64x(0x0f0e_0d0c_0b0a_0908, 0x0706_0504_0302_0100, 0x1f1e_1d1c_1b1a_1918, 0x1716_1514_1312_1110);
    let k = _mm256_set_epi64x(
        0x2b7e_1516_28ae_d2a6,
        0xabf7_1588_09cf_4f3cu64 as i64,
        0x6bc1_bee2_2e40_9f96,
        0xe93d_7e11_7393_172au64 as i64,
    );
    let (xl, xh) = (_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
    let (kl, kh) = (_mm256_castsi256_si128(k), _mm256_extracti128_si256::<1>(k));
    let same = |wide: __m256i, lo: __m128i, hi: __m128i| {
        let eq = _mm256_cmpeq_epi8(wide, _mm256_set_m128i(hi, lo));
        _mm256_movemask_epi8(eq) == -1
    };
    same(_mm256_aesenc_epi128(x, k), _mm_aesenc_si128(xl, kl), _mm_aesenc_si128(xh, kh))
        && same(_mm256_aesenclast_epi128(x, k), _mm_aesenclast_si128(xl, kl), _mm_aesenclast_si128(xh, kh))
}
