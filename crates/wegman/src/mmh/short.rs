//! The one-shot MAC of a message shorter than one block, with AES-NI.
//!
//! Such a message is one padded block at level 0 (spec §3: `S || 0x01 ||
//! 0…`, no full block hashed, so its output is H), and needs level 0's key
//! only: the first 8, 9, 16 or 17 blocks of KS = AES_ks(0) || AES_ks(1) || …
//! (spec §2), and one pad block AES_kp(nonce). Both AES keys are used once,
//! so their schedules are fused with the rounds (`crate::aes::counter_blocks_and_pad`: round keys
//! never stored) instead of expanded into `aes` structs, and the level key
//! lives on the stack for this call only: no allocation, no key object to
//! build and wipe. The block itself runs the portable block functions (the
//! same ones every backend uses for a lone block). Tested equal to the
//! reference at every length below one block for every algorithm.

use zeroize::Zeroize;

use super::alg::{Alg, K, KEY_BYTES, MAX_TAG_BYTES, NONCE_BYTES};
use super::backend::{mmh32, mmh32_toeplitz, mmh64, mmh64_toeplitz, nmh32};
use super::tag::{Tag, seal};
use crate::cpu::AesNi;

/// Level 0's key words: the first `x.len()` words of KS (N blocks, read
/// as little-endian words of `size_of::<W>()` bytes); and, from the same
/// AES pass (two key schedules interleaved), the pad AES_kp(nonce).
fn level0<const N: usize, W: Copy>(
    token: AesNi,
    (ks, kp, nonce): (&[u8; 16], &[u8; 16], &[u8; 16]),
    x: &mut [W],
    word: impl Fn(&[u8]) -> W,
) -> [u8; 16] {
    let (mut blocks, pad) = crate::aes::counter_blocks_and_pad::<N>(token, ks, kp, nonce);
    for (w, c) in x.iter_mut().zip(blocks.as_flattened().chunks_exact(core::mem::size_of::<W>())) {
        *w = word(c);
    }
    blocks.as_flattened_mut().zeroize();
    pad
}

/// The padded block `S || 0x01 || 0…` as little-endian u64 words, built
/// from the message without a byte buffer.
fn padded_words(message: &[u8]) -> [u64; K] {
    let mut w = [0u64; K];
    for (d, c) in w.iter_mut().zip(message.chunks(8)) {
        *d = c.iter().rev().fold(0, |acc, &b| (acc << 8) | u64::from(b));
    }
    w[message.len() / 8] |= 1 << (8 * (message.len() % 8));
    w
}

/// The tag of `message` (shorter than `alg.block_bytes()`) under `key`.
pub(super) fn mac(alg: Alg, token: AesNi, key: &[u8; KEY_BYTES], nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Tag {
    debug_assert!(message.len() < alg.block_bytes());
    let ([kp, ks], []) = key.as_chunks::<16>() else { unreachable!("32 bytes are two 16-byte halves") };
    let keys = (ks, kp, nonce);
    let mut h = [0u8; MAX_TAG_BYTES];
    let mut pad;
    if alg.word_bytes() == 4 {
        // MMH32 and NMH32 use 32 key words (8 blocks), the Toeplitz ones up to 35 (9).
        let mut x = [0u32; K + 3];
        let word = |c: &[u8]| u32::from_le_bytes(c.try_into().expect("4 bytes"));
        pad = if alg.toeplitz() == 1 {
            level0::<8, u32>(token, keys, &mut x[..K], word)
        } else {
            level0::<9, u32>(token, keys, &mut x, word)
        };
        let mut w = padded_words(message);
        let mut m = [0u32; K];
        for (i, d) in m.iter_mut().enumerate() {
            *d = (w[i / 2] >> (32 * (i % 2))) as u32;
        }
        let out: [u32; 4] = match alg {
            Alg::Mmh32 => [mmh32(&x, &m), 0, 0, 0],
            Alg::Nmh32 => [nmh32(&x, &m), 0, 0, 0],
            Alg::Mmh32x2 => pad4(mmh32_toeplitz::<2>(&x, &m)),
            Alg::Mmh32x3 => pad4(mmh32_toeplitz::<3>(&x, &m)),
            _ => mmh32_toeplitz::<4>(&x, &m),
        };
        for (d, v) in h.chunks_exact_mut(4).zip(out) {
            d.copy_from_slice(&v.to_le_bytes());
        }
        // Slices: one bulk wipe each, not a volatile store per element.
        x.as_mut_slice().zeroize();
        m.as_mut_slice().zeroize();
        w.as_mut_slice().zeroize();
    } else {
        // MMH64 uses 32 key words (16 blocks), MMH64x2 33 (17).
        let mut x = [0u64; K + 1];
        let word = |c: &[u8]| u64::from_le_bytes(c.try_into().expect("8 bytes"));
        pad = if alg.toeplitz() == 1 {
            level0::<16, u64>(token, keys, &mut x[..K], word)
        } else {
            level0::<17, u64>(token, keys, &mut x, word)
        };
        // 64-bit words: the same padded block, now up to 255 bytes.
        let mut m = padded_words(message);
        let out = if alg == Alg::Mmh64 { [mmh64(&x, &m), 0] } else { mmh64_toeplitz::<2>(&x, &m) };
        for (d, v) in h.chunks_exact_mut(8).zip(out) {
            d.copy_from_slice(&v.to_le_bytes());
        }
        x.as_mut_slice().zeroize();
        m.as_mut_slice().zeroize();
    }
    let tag = seal(alg, &h, &pad);
    h.as_mut_slice().zeroize();
    pad.as_mut_slice().zeroize();
    tag
}

fn pad4<const N: usize>(w: [u32; N]) -> [u32; 4] {
    core::array::from_fn(|i| if i < N { w[i] } else { 0 })
}
