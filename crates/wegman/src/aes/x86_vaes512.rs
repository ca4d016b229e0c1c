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

/// The counter-mode keystream, `N` registers (4·N blocks) at a time, for
/// a caller that XORs it in itself: CWC's counter mode and hash in one
/// loop (`cwc/backend/x86_avx512ifma_ctr.rs`). The same counters, round
/// keys and rounds as the leaf's loop; wiped on drop.
pub(crate) struct Keystream<const ROUNDS: usize> {
    rk: [__m512i; 15],
    ctr: __m512i,
}

impl<const ROUNDS: usize> Keystream<ROUNDS> {
    /// The keystream from counter block `first` of `prefix` (the caller
    /// keeps `first` plus the blocks it takes at most 2^32), for a key of
    /// `ROUNDS` rounds (a constant, so the rounds are unrolled; checked).
    #[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
    pub(crate) fn new(_proof: Vaes512, keys: &RoundKeys, prefix: &[u8; 12], first: u32) -> Self {
        assert_eq!(keys.rounds, ROUNDS);
        let mut rk = [_mm512_setzero_si512(); 15];
        for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
            // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
            *v = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
        }
        let mut t = [0u8; 16];
        t[..12].copy_from_slice(prefix);
        // SAFETY: `t` is 16 readable bytes.
        let template = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(t.as_ptr().cast()) });
        Keystream { rk, ctr: counters(template, first) }
    }

    /// The next `N` registers of keystream.
    #[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
    #[inline]
    pub(crate) fn next<const N: usize>(&mut self) -> [__m512i; N] {
        let swap = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
        let blocks = core::array::from_fn(|_| {
            let b = _mm512_shuffle_epi8(self.ctr, swap);
            self.ctr = _mm512_add_epi32(self.ctr, step());
            b
        });
        encrypt::<N>(blocks, &self.rk, ROUNDS)
    }
}

impl<const ROUNDS: usize> Drop for Keystream<ROUNDS> {
    /// Plain stores of zeros, kept by a `black_box` the optimizer must
    /// assume reads them.
    fn drop(&mut self) {
        // SAFETY: vectors of integers: all-zero bits are a valid value.
        self.rk = unsafe { core::mem::zeroed() };
        core::hint::black_box(&mut self.rk);
    }
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
