//! Eight AES-128 blocks under eight keys used once, with VAES on 256-bit
//! registers (the AVX2 encoding: Zen 3, Alder Lake and later): the fused
//! key schedule of `x86_fused.rs`, two keys per register (VAES, `vpshufb`
//! and the byte shifts all work within 128-bit lanes), four registers. For
//! batches of one-shot Poly1305-AES tags under eight different keys: half
//! the instructions of eight AES-NI chains. Tested equal to the `aes` crate
//! on random keys and nonces (`super::tests::check_pads8`).

use core::arch::x86_64::*;

use crate::cpu::Vaes256;

/// AES-128_{k[i]}(n[i]) for i in 0..8 into `out`, `between(i)` after the
/// (i+1)-th of the nine middle rounds, as `x86_fused::pads8` does.
pub(crate) fn pads8<B: super::Between>(
    token: Vaes256,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    between: B,
) {
    // SAFETY: `token` is a `Vaes256`, which `crate::cpu` hands out only
    // after detecting AES-NI, SSSE3, VAES and AVX2 on this CPU (and seeing
    // its 256-bit `vaesenc` pass a known-answer test).
    unsafe { encrypt8(token, k, n, out, between) }
}

/// The next round key of two keys, with round constant `rcon` in every column.
#[target_feature(enable = "avx2,vaes,aes")]
#[inline]
fn next(k: __m256i, rcon: __m256i) -> __m256i {
    let rot = _mm256_shuffle_epi8(k, _mm256_set1_epi32(0x0c0f_0e0d));
    let t = _mm256_aesenclast_epi128(rot, rcon);
    let k = _mm256_xor_si256(k, _mm256_bslli_epi128::<4>(k));
    let k = _mm256_xor_si256(k, _mm256_bslli_epi128::<8>(k));
    _mm256_xor_si256(k, t)
}

/// Two 16-byte blocks, `b[0]` in the low lane and `b[1]` in the high one.
#[target_feature(enable = "avx2")]
#[inline]
fn pair(b: &[&[u8; 16]]) -> __m256i {
    // SAFETY: `b[0]` and `b[1]` are 16 readable bytes each: unaligned loads.
    let (lo, hi) = unsafe { (_mm_loadu_si128(b[0].as_ptr().cast()), _mm_loadu_si128(b[1].as_ptr().cast())) };
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
}

#[target_feature(enable = "avx2,vaes,aes")]
fn encrypt8<B: super::Between>(
    _proof: Vaes256,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    mut between: B,
) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let mut key: [__m256i; 4] = core::array::from_fn(|i| pair(&k[2 * i..]));
    let mut state: [__m256i; 4] = core::array::from_fn(|i| _mm256_xor_si256(pair(&n[2 * i..]), key[i]));
    for (round, rcon) in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b].into_iter().enumerate() {
        let rc = _mm256_set1_epi32(rcon);
        for (s, k) in state.iter_mut().zip(key.iter_mut()) {
            *k = next(*k, rc);
            *s = _mm256_aesenc_epi128(*s, *k);
        }
        between.round(round);
    }
    let rc = _mm256_set1_epi32(0x36);
    let op = out.0.as_mut_ptr().cast::<__m256i>();
    for (i, (s, k)) in state.into_iter().zip(key).enumerate() {
        // SAFETY: `out` is 128 contiguous writable bytes, 64-byte aligned:
        // four aligned 32-byte stores, i < 4.
        unsafe { _mm256_store_si256(op.add(i), _mm256_aesenclast_epi128(s, next(k, rc))) };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_pads_equal_the_aes_crate_and_call_between_nine_times() {
        let Some(token) = crate::cpu::token_for_test("Vaes256", crate::cpu::Features::vaes256) else { return };
        super::super::tests::check_pads8(&|k, n, out, between| super::pads8(token, k, n, out, between));
    }
}
