//! CWC-CTR with VAES: four counter blocks per 512-bit register, eight
//! registers in flight (32 blocks, 512 bytes, per step), for long runs of
//! whole blocks. Shorter runs, partial blocks and the single blocks of the
//! MAC stay with the `aes` crate (`cipher.rs`).
//!
//! # Round keys
//! The `aes` crate does not expose its key schedule, so this leaf expands
//! the key itself, word by word as FIPS-197 §5.2 defines it (Nk = 4, 6 or
//! 8), with `aeskeygenassist` supplying SubWord(RotWord(w)) and
//! SubWord(w). It is computed the first time a key meets a run long enough
//! for this path ([`MIN_BYTES`]), kept beside the `aes` crate's schedule
//! and wiped on drop. Tests check every counter block it produces against
//! the `aes` crate for random keys of all three sizes and lengths around
//! every step boundary, and the shared CWC vectors run through it.
//!
//! # Counter blocks
//! Block i is `0x80 || N || i` with i big-endian in the last four bytes.
//! Each 128-bit lane keeps i little-endian in its top dword; one `vpshufb`
//! that reverses only bytes 12..16 turns it into the block, and one 32-bit
//! add moves every lane on by four. The caller keeps i below 2^32 (the
//! mode's limit), so the add never wraps.
//!
//! Constant time: the keys and keystream go through AES instructions and
//! XORs only; the branches are on lengths.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::cpu::Vaes;

/// Runs of whole blocks shorter than this use the `aes` crate (below it the
/// round-key broadcasts and the short step cost more than they save).
pub(crate) const MIN_BYTES: usize = 256;

/// The expanded key, one 16-byte round key per entry (11, 13 or 15 used).
#[derive(Clone)]
pub(crate) struct RoundKeys {
    rk: [[u8; 16]; 15],
    rounds: usize,
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.rk.as_flattened_mut().zeroize();
    }
}

/// SubWord(RotWord(w)) and SubWord(w) of one little-endian key word, from
/// `aeskeygenassist` (dwords 1 and 0 of its result for w in dword 1).
#[target_feature(enable = "aes,sse4.1")]
fn sub_words(w: u32) -> (u32, u32) {
    let v = _mm_aeskeygenassist_si128::<0>(_mm_set1_epi32(w as i32));
    (_mm_extract_epi32::<1>(v) as u32, _mm_cvtsi128_si32(v) as u32)
}

impl RoundKeys {
    /// FIPS-197 §5.2 for a 16-, 24- or 32-byte key.
    pub(crate) fn new(token: Vaes, key: &[u8]) -> Self {
        let _ = token;
        assert!(matches!(key.len(), 16 | 24 | 32));
        let nk = key.len() / 4;
        let rounds = nk + 6;
        let mut w = [0u32; 60];
        for (wi, k) in w.iter_mut().zip(key.chunks_exact(4)) {
            *wi = u32::from_le_bytes(k.try_into().expect("4 bytes"));
        }
        let mut rcon = 1u32;
        for i in nk..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 || (nk == 8 && i % nk == 4) {
                // SAFETY: `token` is a `Vaes`, which `crate::cpu` hands out
                // only after detecting AES-NI (and SSE4.1 with AVX-512) on
                // this CPU.
                let (rot_sub, sub) = unsafe { sub_words(t) };
                if i % nk == 0 {
                    t = rot_sub ^ rcon;
                    // xtime: the next power of x in GF(2^8).
                    rcon = (rcon << 1) ^ (0x11b & (rcon >> 7).wrapping_neg());
                } else {
                    t = sub;
                }
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; 15];
        for (r, words) in rk.iter_mut().zip(w.chunks_exact(4)) {
            for (b, x) in r.chunks_exact_mut(4).zip(words) {
                b.copy_from_slice(&x.to_le_bytes());
            }
        }
        w.zeroize();
        RoundKeys { rk, rounds }
    }
}

/// XOR the keystream blocks `first`, `first + 1`, … of nonce `nonce` into
/// `data` (a multiple of 16 bytes; `first + data.len() / 16` at most 2^32).
pub(crate) fn apply(token: Vaes, keys: &RoundKeys, nonce: &[u8; 11], first: u32, data: &mut [u8]) {
    assert!(data.len().is_multiple_of(16));
    assert!(u64::from(first) + (data.len() / 16) as u64 <= 1 << 32);
    // SAFETY: `token` is a `Vaes`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU.
    unsafe { ctr(token, keys, nonce, first, data) }
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
fn ctr(_proof: Vaes, keys: &RoundKeys, nonce: &[u8; 11], first: u32, data: &mut [u8]) {
    let mut rk = [_mm512_setzero_si512(); 15];
    for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
        // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
        *v = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
    }
    // Bytes 0..12 as in the block, the counter little-endian in 12..16.
    let mut t = [0u8; 16];
    t[0] = 0x80;
    t[1..12].copy_from_slice(nonce);
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
    use super::*;
    use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
    use cipher::{BlockCipherEncrypt, KeyInit};

    fn aes_block(key: &[u8], b: &mut [u8; 16]) {
        let block = b.into();
        match key.len() {
            16 => Aes128Enc::new(key.try_into().unwrap()).encrypt_block(block),
            24 => Aes192Enc::new(key.try_into().unwrap()).encrypt_block(block),
            _ => Aes256Enc::new(key.try_into().unwrap()).encrypt_block(block),
        }
    }

    #[test]
    fn every_keystream_block_equals_the_aes_crate() {
        let Some(token) = crate::cpu::Features::detect().vaes() else {
            // a capped build, or a CPU without the instructions, skips this
            let uncapped = crate::cpu::Features::uncapped().vaes().is_some();
            eprintln!("skipped: {}", crate::cpu::Features::explain_missing("Vaes", uncapped));
            return;
        };
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for klen in [16, 24, 32] {
            for round in 0..40 {
                let key: Vec<u8> = (0..klen).map(|_| next() as u8).collect();
                let nonce: [u8; 11] = core::array::from_fn(|_| next() as u8);
                let keys = RoundKeys::new(token, &key);
                // Every block count around the 4- and 32-block steps, and
                // counters near the top of the 32-bit range.
                let blocks = [1, 2, 3, 4, 5, 31, 32, 33, 35, 36, 64, 67, 100][round % 13];
                let first = if round % 3 == 0 { u32::MAX - blocks as u32 } else { next() as u32 % 1000 };
                let data: Vec<u8> = (0..16 * blocks).map(|_| next() as u8).collect();
                let mut got = data.clone();
                apply(token, &keys, &nonce, first, &mut got);
                for (i, (g, d)) in got.chunks_exact(16).zip(data.chunks_exact(16)).enumerate() {
                    let mut b = crate::cwc::cipher::counter_block(&nonce, first + i as u32);
                    aes_block(&key, &mut b);
                    let want: Vec<u8> = b.iter().zip(d).map(|(k, m)| k ^ m).collect();
                    assert_eq!(g, &want[..], "key {klen} B, {blocks} blocks from {first}, block {i}");
                }
            }
        }
    }
}
