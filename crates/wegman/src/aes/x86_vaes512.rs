//! Counter mode with 512-bit VAES (AVX-512 machines), `x86_ctr.rs`'s
//! skeleton: four counter blocks per register, eight registers in flight
//! (32 blocks, 512 bytes, per step), for long runs of whole blocks; the last
//! one to three blocks by a masked load and store. Shorter runs, partial
//! blocks and single blocks stay with the caller (`key.rs`: AES-NI blocks).

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::Vaes512;

/// Runs of whole blocks shorter than this use the `aes` crate (below it the
/// round-key broadcasts and the short step cost more than they save).
pub(crate) const MIN_BYTES: usize = 256;

ctr_leaf! {
    token: Vaes512,
    features: "avx512f,avx512bw,vaes,aes",
    vector: __m512i,
    blocks: 4,
    zero: _mm512_setzero_si512,
    broadcast: _mm512_broadcast_i32x4,
    xor: _mm512_xor_si512,
    add: _mm512_add_epi32,
    shuffle: _mm512_shuffle_epi8,
    aesenc: _mm512_aesenc_epi128,
    aesenclast: _mm512_aesenclast_epi128,
    loadu: _mm512_loadu_si512,
    storeu: _mm512_storeu_si512,
    tail: tail,
}

/// Counter blocks `first` … `first + 3`.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn counters(template: __m512i, first: u32) -> __m512i {
    let lanes = _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    _mm512_add_epi32(_mm512_add_epi32(template, lanes), _mm512_maskz_set1_epi32(0x8888, first as i32))
}

/// Four blocks on.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn step() -> __m512i {
    _mm512_maskz_set1_epi32(0x8888, 4)
}

/// One to three blocks: a masked load and store of just those bytes (with
/// `KEEP`, a masked store of them as loaded at `keep` too).
///
/// # Safety
/// `src` readable and `dst` writable for `bytes` (16 to 48) bytes, the same
/// or disjoint; with `KEEP`, `keep` writable for as many, apart from both.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
unsafe fn tail<const KEEP: bool>(src: *const u8, dst: *mut u8, keep: *mut u8, bytes: usize, ks: __m512i) {
    let mask: __mmask64 = (1u64 << bytes) - 1;
    // SAFETY: the mask covers exactly the `bytes` bytes the caller's
    // contract makes readable and writable; masked-off bytes are neither
    // read nor written.
    unsafe {
        let x = _mm512_maskz_loadu_epi8(mask, src.cast());
        if KEEP {
            _mm512_mask_storeu_epi8(keep.cast(), mask, x);
        }
        _mm512_mask_storeu_epi8(dst.cast(), mask, _mm512_xor_si512(x, ks));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("Vaes512", crate::cpu::Features::vaes512) else { return };
        super::super::tests::check_ctr_leaf(
            &|keys, prefix, first, data| super::apply(token, keys, prefix, first, data),
            // SAFETY: the check passes its own buffers, `keep.len()` bytes each.
            &|keys, prefix, first, src, dst, keep| unsafe {
                super::apply_keeping(token, keys, prefix, first, src, dst, keep)
            },
        );
    }
}
