//! Counter mode with VAES on 256-bit registers (the AVX2 encoding: Zen 3,
//! Alder Lake and later): two counter blocks per register, eight registers
//! in flight (16 blocks, 256 bytes, per step), for long runs of whole
//! blocks. Counter blocks as in `x86_vaes512.rs`: `P || i`, i big-endian in
//! the last four bytes, kept little-endian in each lane's top dword and
//! turned into the block by one `vpshufb`; one 32-bit add moves both lanes
//! on by two (the caller keeps i below 2^32).
//!
//! Constant time: the keys and keystream go through AES instructions and
//! XORs only; the branches are on lengths.

use core::arch::x86_64::*;

use aead::inout::InOutBuf;
use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::Vaes256;

/// Runs of whole blocks shorter than this stay with the caller's AES (below
/// it the round-key broadcasts cost more than the wide step saves).
pub(crate) const MIN_BYTES: usize = 128;

/// The input XOR the keystream blocks `first`, `first + 1`, … of `prefix`,
/// written to the output (`buf`: in place, or two slices; a multiple of 16
/// bytes; `first + buf.len() / 16` at most 2^32).
pub(crate) fn apply(token: Vaes256, keys: &RoundKeys, prefix: &[u8; 12], first: u32, buf: InOutBuf<'_, '_, u8>) {
    let (src, dst, len) = super::buffer(first, buf);
    // SAFETY: `token` is a `Vaes256`, which `crate::cpu` hands out only
    // after detecting AES-NI, SSSE3, VAES and AVX2 on this CPU; the pointers
    // are `buffer`'s (its contract).
    unsafe { ctr(token, keys, prefix, first, src, dst, len) }
}

/// AES of two blocks per register under the broadcast round keys `rk[..=rounds]`.
#[target_feature(enable = "avx2,vaes,aes")]
#[inline]
fn encrypt<const N: usize>(mut b: [__m256i; N], rk: &[__m256i; 15], rounds: usize) -> [__m256i; N] {
    for x in b.iter_mut() {
        *x = _mm256_xor_si256(*x, rk[0]);
    }
    for k in &rk[1..rounds] {
        for x in b.iter_mut() {
            *x = _mm256_aesenc_epi128(*x, *k);
        }
    }
    for x in b.iter_mut() {
        *x = _mm256_aesenclast_epi128(*x, rk[rounds]);
    }
    b
}

/// Load the 32 bytes at `src`, XOR them with `ks`, store them at `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for 32 bytes, the same or disjoint.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn xor32(src: *const u8, dst: *mut u8, ks: __m256i) {
    // SAFETY: the caller's contract: one unaligned load and store.
    unsafe { _mm256_storeu_si256(dst.cast(), _mm256_xor_si256(_mm256_loadu_si256(src.cast()), ks)) }
}

/// # Safety
/// As [`apply`]'s buffer: `src` readable and `dst` writable for `len` bytes
/// (a multiple of 16), the same or disjoint.
#[target_feature(enable = "avx2,vaes,aes")]
unsafe fn ctr(
    _proof: Vaes256,
    keys: &RoundKeys,
    prefix: &[u8; 12],
    first: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let mut rk = [_mm256_setzero_si256(); 15];
    for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
        // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
        *v = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
    }
    // Bytes 0..12 as in the block, the counter little-endian in 12..16.
    let mut t = [0u8; 16];
    t[..12].copy_from_slice(prefix);
    // SAFETY: `t` is 16 readable bytes.
    let template = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(t.as_ptr().cast()) });
    let f = first as i32;
    let mut ctr = _mm256_add_epi32(template, _mm256_set_epi32(f.wrapping_add(1), 0, 0, 0, f, 0, 0, 0));
    let two = _mm256_set_epi32(2, 0, 0, 0, 2, 0, 0, 0);
    let swap = _mm256_broadcastsi128_si256(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    let mut next = || {
        let b = _mm256_shuffle_epi8(ctr, swap);
        ctr = _mm256_add_epi32(ctr, two);
        b
    };
    // Offsets: whole steps, then whole pairs, then one block, all inside
    // the `len` bytes of the caller's buffers.
    let steps = len / 256 * 256;
    for o in (0..steps).step_by(256) {
        let ks = encrypt::<8>(core::array::from_fn(|_| next()), &rk, keys.rounds);
        for (j, k) in ks.into_iter().enumerate() {
            // SAFETY: bytes o + 32j .. o + 32j + 32 <= steps <= len.
            unsafe { xor32(src.add(o + 32 * j), dst.add(o + 32 * j), k) };
        }
    }
    let pairs = steps + (len - steps) / 32 * 32;
    for o in (steps..pairs).step_by(32) {
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        // SAFETY: bytes o .. o + 32 <= pairs <= len.
        unsafe { xor32(src.add(o), dst.add(o), k) };
    }
    if pairs < len {
        // One block (`len` is whole blocks): the low lane of one more pair.
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        // SAFETY: bytes pairs .. pairs + 16 = len: one unaligned load and store.
        unsafe {
            let x = _mm_loadu_si128(src.add(pairs).cast());
            _mm_storeu_si128(dst.add(pairs).cast(), _mm_xor_si128(x, _mm256_castsi256_si128(k)));
        }
    }
    t.zeroize();
    for k in rk.iter_mut() {
        *k = _mm256_setzero_si256();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("Vaes256", crate::cpu::Features::vaes256) else { return };
        super::super::tests::check_ctr_leaf(&|keys, prefix, first, data| {
            super::apply(token, keys, prefix, first, data)
        });
    }
}
