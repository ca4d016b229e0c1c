//! AES-NI on expanded round keys: blocks in place (eight in flight), and
//! counter mode with eight blocks in flight (128 bytes per step) for long
//! runs of whole blocks on CPUs without VAES. Counter blocks as
//! in `x86_vaes512.rs`: `P || i`, i big-endian in the last four bytes, kept
//! little-endian in the top dword and turned into the block by one
//! `pshufb` (SSSE3); the caller keeps i below 2^32.
//!
//! Constant time: the keys and keystream go through AES instructions and
//! XORs only; the branches are on lengths.

use core::arch::x86_64::*;

use aead::inout::InOutBuf;
use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::AesNi;

/// Runs of whole blocks shorter than this stay with the caller's AES.
pub(crate) const MIN_BYTES: usize = 128;

/// The input XOR the keystream blocks `first`, `first + 1`, … of `prefix`,
/// written to the output (`buf`: in place, or two slices; a multiple of 16
/// bytes; `first + buf.len() / 16` at most 2^32).
pub(crate) fn apply(token: AesNi, keys: &RoundKeys, prefix: &[u8; 12], first: u32, buf: InOutBuf<'_, '_, u8>) {
    let (src, dst, len) = super::buffer(first, buf);
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only
    // after detecting AES-NI and SSSE3 on this CPU; the pointers are
    // `buffer`'s (its contract).
    unsafe { ctr(token, keys, prefix, first, src, dst, len) }
}

/// AES of each block of `blocks`, in place.
pub(crate) fn blocks(token: AesNi, keys: &RoundKeys, blocks: &mut [[u8; 16]]) {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only
    // after detecting AES-NI and SSSE3 on this CPU.
    unsafe { ecb(token, keys, blocks) }
}

/// The round keys in registers (the caller wipes them).
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn load(keys: &RoundKeys) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
        // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
        *v = unsafe { _mm_loadu_si128(k.as_ptr().cast()) };
    }
    rk
}

/// [`blocks`]: eight at a time, then one at a time.
#[target_feature(enable = "aes,ssse3")]
fn ecb(_proof: AesNi, keys: &RoundKeys, blocks: &mut [[u8; 16]]) {
    let mut rk = load(keys);
    let get = |b: &[u8; 16]| {
        // SAFETY: `b` is 16 readable bytes: one unaligned load.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    };
    let put = |b: &mut [u8; 16], x: __m128i| {
        // SAFETY: `b` is 16 writable bytes: one unaligned store.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
    };
    let (eights, rest) = blocks.as_chunks_mut::<8>();
    for c in eights {
        let out = encrypt::<8>(core::array::from_fn(|j| get(&c[j])), &rk, keys.rounds);
        for (b, x) in c.iter_mut().zip(out) {
            put(b, x);
        }
    }
    for b in rest {
        let [x] = encrypt::<1>([get(b)], &rk, keys.rounds);
        put(b, x);
    }
    for k in rk.iter_mut() {
        *k = _mm_setzero_si128();
    }
}

/// AES of `N` blocks under the round keys `rk[..=rounds]`.
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn encrypt<const N: usize>(mut b: [__m128i; N], rk: &[__m128i; 15], rounds: usize) -> [__m128i; N] {
    for x in b.iter_mut() {
        *x = _mm_xor_si128(*x, rk[0]);
    }
    for k in &rk[1..rounds] {
        for x in b.iter_mut() {
            *x = _mm_aesenc_si128(*x, *k);
        }
    }
    for x in b.iter_mut() {
        *x = _mm_aesenclast_si128(*x, rk[rounds]);
    }
    b
}

/// Load the 16 bytes at `src`, XOR them with `ks`, store them at `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for 16 bytes, the same or disjoint.
#[target_feature(enable = "aes,ssse3")]
#[inline]
unsafe fn xor16(src: *const u8, dst: *mut u8, ks: __m128i) {
    // SAFETY: the caller's contract: one unaligned load and store.
    unsafe { _mm_storeu_si128(dst.cast(), _mm_xor_si128(_mm_loadu_si128(src.cast()), ks)) }
}

/// # Safety
/// As [`apply`]'s buffer: `src` readable and `dst` writable for `len` bytes
/// (a multiple of 16), the same or disjoint.
#[target_feature(enable = "aes,ssse3")]
unsafe fn ctr(
    _proof: AesNi,
    keys: &RoundKeys,
    prefix: &[u8; 12],
    first: u32,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let mut rk = load(keys);
    let mut t = [0u8; 16];
    t[..12].copy_from_slice(prefix);
    // SAFETY: `t` is 16 readable bytes.
    let template = unsafe { _mm_loadu_si128(t.as_ptr().cast()) };
    let mut ctr = _mm_add_epi32(template, _mm_set_epi32(first as i32, 0, 0, 0));
    let one = _mm_set_epi32(1, 0, 0, 0);
    let swap = _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let mut next = || {
        let b = _mm_shuffle_epi8(ctr, swap);
        ctr = _mm_add_epi32(ctr, one);
        b
    };
    // Offsets: whole steps, then single blocks, all inside the `len` bytes
    // of the caller's buffers.
    let steps = len / 128 * 128;
    for o in (0..steps).step_by(128) {
        let ks = encrypt::<8>(core::array::from_fn(|_| next()), &rk, keys.rounds);
        for (j, k) in ks.into_iter().enumerate() {
            // SAFETY: bytes o + 16j .. o + 16j + 16 <= steps <= len.
            unsafe { xor16(src.add(o + 16 * j), dst.add(o + 16 * j), k) };
        }
    }
    for o in (steps..len).step_by(16) {
        let [k] = encrypt::<1>([next()], &rk, keys.rounds);
        // SAFETY: bytes o .. o + 16 <= len (`len` is whole blocks).
        unsafe { xor16(src.add(o), dst.add(o), k) };
    }
    t.zeroize();
    for k in rk.iter_mut() {
        *k = _mm_setzero_si128();
    }
}

#[cfg(test)]
mod tests {
    /// Every count of blocks around the eight-block step, under keys of all
    /// three sizes, against the `aes` crate.
    #[test]
    fn blocks_in_place_equal_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        super::super::tests::check_blocks(&|keys, blocks| super::blocks(token, keys, blocks));
    }

    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        super::super::tests::check_ctr_leaf(&|keys, prefix, first, data| {
            super::apply(token, keys, prefix, first, data)
        });
    }
}
