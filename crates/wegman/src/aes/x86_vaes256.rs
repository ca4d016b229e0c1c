//! Counter mode with VAES on 256-bit registers (the AVX2 encoding: Zen 3,
//! Alder Lake and later), `x86_ctr.rs`'s skeleton: two counter blocks per
//! register, eight registers in flight (16 blocks, 256 bytes, per step),
//! for long runs of whole blocks; an odd last block is the low lane of one
//! more register.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::Vaes256;

/// Runs of whole blocks shorter than this stay with the caller's AES (below
/// it the round-key broadcasts cost more than the wide step saves).
pub(crate) const MIN_BYTES: usize = 128;

ctr_leaf! {
    token: Vaes256,
    features: "avx2,vaes,aes",
    vector: __m256i,
    blocks: 2,
    zero: _mm256_setzero_si256,
    broadcast: _mm256_broadcastsi128_si256,
    xor: _mm256_xor_si256,
    add: _mm256_add_epi32,
    shuffle: _mm256_shuffle_epi8,
    aesenc: _mm256_aesenc_epi128,
    aesenclast: _mm256_aesenclast_epi128,
    loadu: _mm256_loadu_si256,
    storeu: _mm256_storeu_si256,
    tail: tail,
}

/// Counter blocks `first` and `first + 1`.
#[target_feature(enable = "avx2,vaes,aes")]
#[inline]
fn counters(template: __m256i, first: u32) -> __m256i {
    let f = first as i32;
    _mm256_add_epi32(template, _mm256_set_epi32(f.wrapping_add(1), 0, 0, 0, f, 0, 0, 0))
}

/// Two blocks on.
#[target_feature(enable = "avx2,vaes,aes")]
#[inline]
fn step() -> __m256i {
    _mm256_set_epi32(2, 0, 0, 0, 2, 0, 0, 0)
}

/// One block (`bytes` is 16): the low lane of `ks` (with `KEEP`, the block
/// as loaded stored at `keep` too).
///
/// # Safety
/// `src` readable and `dst` writable for `bytes` bytes, the same or
/// disjoint; with `KEEP`, `keep` writable for as many, apart from both.
#[target_feature(enable = "avx2,vaes,aes")]
#[inline]
unsafe fn tail<const KEEP: bool>(src: *const u8, dst: *mut u8, keep: *mut u8, bytes: usize, ks: __m256i) {
    debug_assert_eq!(bytes, 16);
    // SAFETY: the caller's contract: one unaligned 16-byte load, one or two
    // stores.
    unsafe {
        let x = _mm_loadu_si128(src.cast());
        if KEEP {
            _mm_storeu_si128(keep.cast(), x);
        }
        _mm_storeu_si128(dst.cast(), _mm_xor_si128(x, _mm256_castsi256_si128(ks)));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("Vaes256", crate::cpu::Features::vaes256) else { return };
        super::super::tests::check_ctr_leaf(
            &|keys, prefix, first, data| super::apply(token, keys, prefix, first, data),
            // SAFETY: the check passes its own buffers, `keep.len()` bytes each.
            &|keys, prefix, first, src, dst, keep| unsafe {
                super::apply_keeping(token, keys, prefix, first, src, dst, keep)
            },
        );
    }
}
