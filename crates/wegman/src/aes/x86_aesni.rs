//! AES-NI on expanded round keys: blocks in place (eight in flight), and
//! counter mode (`x86_ctr.rs`'s skeleton, one block per register: eight
//! blocks, 128 bytes, per step) for long runs of whole blocks on CPUs
//! without VAES.
//!
//! Constant time: the keys and blocks go through AES instructions and XORs
//! only; the branches are on lengths.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::x86_schedule::RoundKeys;
use crate::cpu::AesNi;

/// Runs of whole blocks shorter than this stay with the caller's AES.
pub(crate) const MIN_BYTES: usize = 128;

ctr_leaf! {
    token: AesNi,
    features: "aes,ssse3",
    vector: __m128i,
    blocks: 1,
    zero: _mm_setzero_si128,
    broadcast: same,
    xor: _mm_xor_si128,
    add: _mm_add_epi32,
    shuffle: _mm_shuffle_epi8,
    aesenc: _mm_aesenc_si128,
    aesenclast: _mm_aesenclast_si128,
    loadu: _mm_loadu_si128,
    storeu: _mm_storeu_si128,
}

/// A register holds one block: the round keys and the template as they are.
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn same(x: __m128i) -> __m128i {
    x
}

/// Counter block `first` (i little-endian in the top dword).
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn counters(template: __m128i, first: u32) -> __m128i {
    _mm_add_epi32(template, _mm_set_epi32(first as i32, 0, 0, 0))
}

/// One block on.
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn step() -> __m128i {
    _mm_set_epi32(1, 0, 0, 0)
}

/// AES of each block of `blocks`, in place.
pub(crate) fn blocks(token: AesNi, keys: &RoundKeys, blocks: &mut [[u8; 16]]) {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only
    // after detecting AES-NI and SSSE3 on this CPU.
    unsafe {
        match keys.rounds {
            10 => ecb::<10>(token, keys, blocks),
            12 => ecb::<12>(token, keys, blocks),
            _ => ecb::<14>(token, keys, blocks),
        }
    }
}

/// AES of one block, in place.
#[inline]
pub(crate) fn block(token: AesNi, keys: &RoundKeys, block: &mut [u8; 16]) {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only
    // after detecting AES-NI and SSSE3 on this CPU.
    unsafe {
        match keys.rounds {
            10 => one::<10>(token, keys, block),
            12 => one::<12>(token, keys, block),
            _ => one::<14>(token, keys, block),
        }
    }
}

/// [`block`] with `R` rounds.
#[target_feature(enable = "aes,ssse3")]
fn one<const R: usize>(_proof: AesNi, keys: &RoundKeys, block: &mut [u8; 16]) {
    group::<1, R>(core::array::from_mut(block), keys);
}

/// AES of `N` blocks with `R` rounds, each round key read from `keys` where
/// it is used: with the rounds a constant the loops unroll, and no copy of
/// the keys is made (none is left on the stack to wipe).
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn rounds<const N: usize, const R: usize>(mut b: [__m128i; N], keys: &RoundKeys) -> [__m128i; N] {
    // SAFETY: `keys.rk[i]` is 16 readable bytes: one unaligned load.
    let k = |i: usize| unsafe { _mm_loadu_si128(keys.rk[i].as_ptr().cast()) };
    for x in b.iter_mut() {
        *x = _mm_xor_si128(*x, k(0));
    }
    for i in 1..R {
        for x in b.iter_mut() {
            *x = _mm_aesenc_si128(*x, k(i));
        }
    }
    for x in b.iter_mut() {
        *x = _mm_aesenclast_si128(*x, k(R));
    }
    b
}

/// [`blocks`] with `R` rounds: eight at a time, then four, two and one, so
/// that a short run is never a chain of single blocks (each one AES's full
/// latency).
#[target_feature(enable = "aes,ssse3")]
fn ecb<const R: usize>(_proof: AesNi, keys: &RoundKeys, blocks: &mut [[u8; 16]]) {
    let (eights, rest) = blocks.as_chunks_mut::<8>();
    for c in eights {
        group::<8, R>(c, keys);
    }
    let (fours, rest) = rest.as_chunks_mut::<4>();
    for c in fours {
        group::<4, R>(c, keys);
    }
    let (twos, rest) = rest.as_chunks_mut::<2>();
    for c in twos {
        group::<2, R>(c, keys);
    }
    for b in rest {
        group::<1, R>(core::array::from_mut(b), keys);
    }
}

/// `N` blocks in place, in flight together.
#[target_feature(enable = "aes,ssse3")]
#[inline]
fn group<const N: usize, const R: usize>(c: &mut [[u8; 16]; N], keys: &RoundKeys) {
    // SAFETY: each `c[j]` is 16 readable bytes: one unaligned load.
    let out = rounds::<N, R>(core::array::from_fn(|j| unsafe { _mm_loadu_si128(c[j].as_ptr().cast()) }), keys);
    for (b, x) in c.iter_mut().zip(out) {
        // SAFETY: `b` is 16 writable bytes: one unaligned store.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) }
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
        super::super::tests::check_ctr_leaf(
            &|keys, prefix, first, data| super::apply(token, keys, prefix, first, data),
            // SAFETY: the check passes its own buffers, `keep.len()` bytes each.
            &|keys, prefix, first, src, dst, keep| unsafe {
                super::apply_keeping(token, keys, prefix, first, src, dst, keep)
            },
        );
    }
}
