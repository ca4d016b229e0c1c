//! Counter mode with 512-bit VAES: four counter blocks per register, eight
//! registers in flight (32 blocks, 512 bytes, per step), for long runs of
//! whole blocks. Shorter runs, partial blocks and single blocks stay with
//! the caller (`cwc/cipher.rs`: the `aes` crate).
//!
//! # Counter blocks
//! Block i is `P || i`: a 12-byte prefix P (CWC's `0x80 || N`) and i
//! big-endian in the last four bytes.
//! Each 128-bit lane keeps i little-endian in its top dword; one `vpshufb`
//! that reverses only bytes 12..16 turns it into the block, and one 32-bit
//! add moves every lane on by four. The caller keeps i below 2^32 (the
//! mode's limit), so the add never wraps.
//!
//! Constant time: the keys and keystream go through AES instructions and
//! XORs only; the branches are on lengths.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::Vaes512;

/// Runs of whole blocks shorter than this use the `aes` crate (below it the
/// round-key broadcasts and the short step cost more than they save).
pub(crate) const MIN_BYTES: usize = 256;

/// XOR the keystream blocks `first`, `first + 1`, … of `prefix` into
/// `data` (a multiple of 16 bytes; `first + data.len() / 16` at most 2^32).
pub(crate) fn apply(token: Vaes512, keys: &RoundKeys, prefix: &[u8; 12], first: u32, data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16));
    assert!(u64::from(first) + (data.len() / 16) as u64 <= 1 << 32);
    // SAFETY: `token` is a `Vaes512`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU.
    unsafe { ctr(token, keys, prefix, first, data) }
}

/// AES of four blocks under the broadcast round keys `rk[..=rounds]`.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn encrypt<const N: usize>(mut b: [__m512i; N], rk: &[__m512i; 15], rounds: usize) -> [__m512i; N] {
    for x in b.iter_mut() {
        *x = _mm512_xor_si512(*x, rk[0]);
    }
    for k in &rk[1..rounds] {
        for x in b.iter_mut() {
            *x = _mm512_aesenc_epi128(*x, *k);
        }
    }
    for x in b.iter_mut() {
        *x = _mm512_aesenclast_epi128(*x, rk[rounds]);
    }
    b
}

/// Load 64 bytes, XOR them with `ks`, store them back.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn xor64(chunk: &mut [u8], ks: __m512i) {
    debug_assert!(chunk.len() == 64);
    let p = chunk.as_mut_ptr().cast::<__m512i>();
    // SAFETY: `chunk` is 64 writable bytes: one unaligned load and store.
    unsafe { _mm512_storeu_si512(p, _mm512_xor_si512(_mm512_loadu_si512(p), ks)) }
}

#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn ctr(_proof: Vaes512, keys: &RoundKeys, prefix: &[u8; 12], first: u32, data: &mut [u8]) {
    let mut rk = [_mm512_setzero_si512(); 15];
    for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
        // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
        *v = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
    }
    // Bytes 0..12 as in the block, the counter little-endian in 12..16.
    let mut t = [0u8; 16];
    t[..12].copy_from_slice(prefix);
    // SAFETY: `t` is 16 readable bytes.
    let template = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(t.as_ptr().cast()) });
    let lanes = _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0);
    let mut ctr = _mm512_add_epi32(template, lanes);
    ctr = _mm512_add_epi32(ctr, _mm512_maskz_set1_epi32(0x8888, first as i32));
    let four = _mm512_maskz_set1_epi32(0x8888, 4);
    let swap = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    let mut next = || {
        let b = _mm512_shuffle_epi8(ctr, swap);
        ctr = _mm512_add_epi32(ctr, four);
        b
    };
    let mut steps = data.chunks_exact_mut(512);
    for step in &mut steps {
        let ks = encrypt::<8>(core::array::from_fn(|_| next()), &rk, keys.rounds);
        for (chunk, k) in step.chunks_exact_mut(64).zip(ks) {
            xor64(chunk, k);
        }
    }
    let rest = steps.into_remainder();
    let mut fours = rest.chunks_exact_mut(64);
    for chunk in &mut fours {
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        xor64(chunk, k);
    }
    let tail = fours.into_remainder();
    if !tail.is_empty() {
        // One to three blocks: a masked load and store of just those bytes.
        let mask: __mmask64 = (1u64 << tail.len()) - 1;
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        let p = tail.as_mut_ptr();
        // SAFETY: the mask covers exactly `tail.len()` bytes from `p`,
        // all writable; masked-off bytes are neither read nor written.
        unsafe {
            let x = _mm512_maskz_loadu_epi8(mask, p.cast());
            _mm512_mask_storeu_epi8(p.cast(), mask, _mm512_xor_si512(x, k));
        }
    }
    t.zeroize();
    for k in rk.iter_mut() {
        *k = _mm512_setzero_si512();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::Features::detect().vaes512() else {
            // a capped build, or a CPU without the instructions, skips this
            let uncapped = crate::cpu::Features::uncapped().vaes512().is_some();
            eprintln!("skipped: {}", crate::cpu::Features::explain_missing("Vaes512", uncapped));
            return;
        };
        super::super::tests::check_ctr_leaf(&|keys, prefix, first, data| {
            super::apply(token, keys, prefix, first, data)
        });
    }
}
