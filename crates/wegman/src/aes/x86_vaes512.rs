//! Counter mode with 512-bit VAES: four counter blocks per register, eight
//! registers in flight (32 blocks, 512 bytes, per step), for long runs of
//! whole blocks. Shorter runs, partial blocks and single blocks stay with
//! the caller (`key.rs`: AES-NI blocks).
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

use aead::inout::InOutBuf;
use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::Vaes512;

/// Runs of whole blocks shorter than this use the `aes` crate (below it the
/// round-key broadcasts and the short step cost more than they save).
pub(crate) const MIN_BYTES: usize = 256;

/// The input XOR the keystream blocks `first`, `first + 1`, … of `prefix`,
/// written to the output (`buf`: in place, or two slices; a multiple of 16
/// bytes; `first + buf.len() / 16` at most 2^32).
pub(crate) fn apply(token: Vaes512, keys: &RoundKeys, prefix: &[u8; 12], first: u32, buf: InOutBuf<'_, '_, u8>) {
    let (src, dst, len) = super::buffer(first, buf);
    // SAFETY: `token` is a `Vaes512`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU; the pointers are
    // `buffer`'s (its contract).
    unsafe { ctr(token, keys, prefix, first, src, dst, len) }
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

/// Load the 64 bytes at `src`, XOR them with `ks`, store them at `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for 64 bytes, the same or disjoint.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn xor64(src: *const u8, dst: *mut u8, ks: __m512i) {
    // SAFETY: the caller's contract: one unaligned load and store.
    unsafe { _mm512_storeu_si512(dst.cast(), _mm512_xor_si512(_mm512_loadu_si512(src.cast()), ks)) }
}

/// # Safety
/// As [`apply`]'s buffer: `src` readable and `dst` writable for `len` bytes
/// (a multiple of 16), the same or disjoint.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
unsafe fn ctr(
    _proof: Vaes512,
    keys: &RoundKeys,
    prefix: &[u8; 12],
    first: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
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
    // Offsets: whole steps, then fours, then one to three blocks, all inside
    // the `len` bytes of the caller's buffers.
    let steps = len / 512 * 512;
    for o in (0..steps).step_by(512) {
        let ks = encrypt::<8>(core::array::from_fn(|_| next()), &rk, keys.rounds);
        for (j, k) in ks.into_iter().enumerate() {
            // SAFETY: bytes o + 64j .. o + 64j + 64 <= steps <= len.
            unsafe { xor64(src.add(o + 64 * j), dst.add(o + 64 * j), k) };
        }
    }
    let fours = steps + (len - steps) / 64 * 64;
    for o in (steps..fours).step_by(64) {
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        // SAFETY: bytes o .. o + 64 <= fours <= len.
        unsafe { xor64(src.add(o), dst.add(o), k) };
    }
    if fours < len {
        // One to three blocks: a masked load and store of just those bytes.
        let mask: __mmask64 = (1u64 << (len - fours)) - 1;
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        // SAFETY: the mask covers exactly the `len - fours` bytes from
        // `fours`, inside both buffers; masked-off bytes are neither read
        // nor written.
        unsafe {
            let x = _mm512_maskz_loadu_epi8(mask, src.add(fours).cast());
            _mm512_mask_storeu_epi8(dst.add(fours).cast(), mask, _mm512_xor_si512(x, k));
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
        let Some(token) = crate::cpu::token_for_test("Vaes512", crate::cpu::Features::vaes512) else { return };
        super::super::tests::check_ctr_leaf(&|keys, prefix, first, data| {
            super::apply(token, keys, prefix, first, data)
        });
    }
}
