//! MMH / NMH reference model: shared/spec/mmh.md and Halevi & Krawczyk's
//! Definitions 5 and 10 written out with big integers.
//!
//! Every formula is computed as printed: the whole inner product over the
//! integers, then `mod 2^64` (or `2^128`), then `mod p`, then `mod 2^32` (or
//! `2^64`); the key stream by encrypting counters; the tree by building each
//! padded level in memory. Words are carried in `u64`s whatever the family.

use aes::Aes128;
use cipher::{BlockCipherEncrypt, KeyInit};
use num_bigint::BigUint;

/// k, words per block (spec conventions).
pub const K: usize = 32;
/// Tree levels with keys (spec §2).
pub const MAX_LEVELS: usize = 16;

/// The block function of an algorithm (spec §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Definition 5.
    Mmh32,
    /// Definition 10.
    Nmh32,
    /// MMH64 over p = 2^64 + 13.
    Mmh64,
}

/// One row of spec §1's table.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// Block function.
    pub family: Family,
    /// Toeplitz fold n.
    pub n: usize,
}

impl Params {
    /// Bytes per word.
    pub fn word_bytes(&self) -> usize {
        if self.family == Family::Mmh64 { 8 } else { 4 }
    }

    /// B, bytes per block.
    pub fn block_bytes(&self) -> usize {
        K * self.word_bytes()
    }

    /// w, output bytes per block.
    pub fn out_bytes(&self) -> usize {
        self.n * self.word_bytes()
    }
}

/// The table of spec §1, by name.
pub fn params(alg: &str) -> Params {
    let (family, n) = match alg {
        "mmh32" => (Family::Mmh32, 1),
        "mmh32x2" => (Family::Mmh32, 2),
        "mmh32x3" => (Family::Mmh32, 3),
        "mmh32x4" => (Family::Mmh32, 4),
        "nmh32" => (Family::Nmh32, 1),
        "mmh64" => (Family::Mmh64, 1),
        "mmh64x2" => (Family::Mmh64, 2),
        _ => panic!("unknown algorithm {alg}"),
    };
    Params { family, n }
}

fn two_to(e: u32) -> BigUint {
    BigUint::from(1u8) << e
}

fn to_u64(v: &BigUint) -> u64 {
    let d = v.to_u64_digits();
    assert!(d.len() <= 1);
    d.first().copied().unwrap_or(0)
}

/// p32 = 2^32 + 15.
pub fn p32() -> BigUint {
    two_to(32) + BigUint::from(15u8)
}

/// p64 = 2^64 + 13.
pub fn p64() -> BigUint {
    two_to(64) + BigUint::from(13u8)
}

/// Definition 5: `(((Σ_{i<32} m[i]·x[i]) mod 2^64) mod p32) mod 2^32`.
pub fn mmh32(x: &[u64], m: &[u64]) -> u64 {
    let sum: BigUint = (0..K).map(|i| BigUint::from(m[i]) * BigUint::from(x[i])).sum();
    to_u64(&(((sum % two_to(64)) % p32()) % two_to(32)))
}

/// Definition 10: `(((Σ_{i<16} ((m[2i]+x[2i]) mod 2^32)·((m[2i+1]+x[2i+1]) mod 2^32)) mod 2^64) mod p32) mod 2^32`.
pub fn nmh32(x: &[u64], m: &[u64]) -> u64 {
    let sum: BigUint = (0..K / 2)
        .map(|i| {
            let a = (BigUint::from(m[2 * i]) + BigUint::from(x[2 * i])) % two_to(32);
            let b = (BigUint::from(m[2 * i + 1]) + BigUint::from(x[2 * i + 1])) % two_to(32);
            a * b
        })
        .sum();
    to_u64(&(((sum % two_to(64)) % p32()) % two_to(32)))
}

/// MMH64 (spec §1): `(((Σ_{i<32} m[i]·x[i]) mod 2^128) mod p64) mod 2^64`.
pub fn mmh64(x: &[u64], m: &[u64]) -> u64 {
    let sum: BigUint = (0..K).map(|i| BigUint::from(m[i]) * BigUint::from(x[i])).sum();
    to_u64(&(((sum % two_to(128)) % p64()) % two_to(64)))
}

/// The family's block function under key words `x[0..32)`.
pub fn block(family: Family, x: &[u64], m: &[u64]) -> u64 {
    match family {
        Family::Mmh32 => mmh32(x, m),
        Family::Nmh32 => nmh32(x, m),
        Family::Mmh64 => mmh64(x, m),
    }
}

/// Spec §2 Toeplitz: output t under key words `x[t..t+32)`, t < n.
pub fn toeplitz(family: Family, n: usize, x: &[u64], m: &[u64]) -> Vec<u64> {
    (0..n).map(|t| block(family, &x[t..t + K], m)).collect()
}

/// AES_k(b).
pub fn aes128(k: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    let cipher = Aes128::new(&(*k).into());
    let mut block = (*b).into();
    cipher.encrypt_block(&mut block);
    block.into()
}

/// The first `len` bytes of `KS = AES_ks(0) || AES_ks(1) || …`, the counter
/// i as 16 little-endian bytes (spec §2).
pub fn key_stream(ks: &[u8; 16], len: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i: u128 = 0;
    while out.len() < len {
        out.extend_from_slice(&aes128(ks, &i.to_le_bytes()));
        i += 1;
    }
    out.truncate(len);
    out
}

/// The little-endian words of `bytes`.
pub fn words(bytes: &[u8], word_bytes: usize) -> Vec<u64> {
    bytes.chunks(word_bytes).map(|c| to_u64(&BigUint::from_bytes_le(c))).collect()
}

/// Level j's key words (spec §2): `x_j[t] = KS word (64·j + t)`, `t < k + n − 1`.
pub fn level_key(alg: &str, ks: &[u8; 16], j: usize) -> Vec<u64> {
    let p = params(alg);
    let count = K + p.n - 1;
    let wb = p.word_bytes();
    let stream = words(&key_stream(ks, (64 * j + count) * wb), wb);
    stream[64 * j..64 * j + count].to_vec()
}

/// How many levels the tree of spec §3 runs for a `len`-byte message,
/// following the lengths only.
pub fn levels(alg: &str, len: u128) -> usize {
    let p = params(alg);
    let (b, w) = (p.block_bytes() as u128, p.out_bytes() as u128);
    let mut s = len;
    let mut levels = 1;
    loop {
        let padded = (s + 1).div_ceil(b) * b; // S || 0x01 || 0x00…
        if padded == b {
            return levels;
        }
        s = padded / b * w;
        levels += 1;
    }
}

/// The tree hash of spec §3 under ks, literally: pad the level, hash every
/// block, concatenate, repeat until a level is one block. `None` if a 17th
/// level would be needed.
pub fn tree_hash(alg: &str, ks: &[u8; 16], m: &[u8]) -> Option<Vec<u8>> {
    let p = params(alg);
    let b = p.block_bytes();
    let mut s = m.to_vec();
    let mut j = 0;
    loop {
        if j >= MAX_LEVELS {
            return None;
        }
        let mut padded = s.clone();
        padded.push(0x01);
        while !padded.len().is_multiple_of(b) {
            padded.push(0x00);
        }
        let x = level_key(alg, ks, j);
        let mut out = Vec::new();
        for blk in padded.chunks(b) {
            let mw = words(blk, p.word_bytes());
            for v in toeplitz(p.family, p.n, &x, &mw) {
                out.extend_from_slice(&v.to_le_bytes()[..p.word_bytes()]);
            }
        }
        if padded.len() == b {
            return Some(out);
        }
        s = out;
        j += 1;
    }
}

/// The MAC of spec §4: tag word t = (H_t + AES_kp(nonce)_t) mod 2^(8·word).
pub fn mac(alg: &str, key: &[u8; 32], nonce: &[u8; 16], m: &[u8]) -> Option<Vec<u8>> {
    let p = params(alg);
    let wb = p.word_bytes();
    let kp: [u8; 16] = key[..16].try_into().unwrap();
    let ks: [u8; 16] = key[16..].try_into().unwrap();
    let h = tree_hash(alg, &ks, m)?;
    let pad = aes128(&kp, nonce);
    let modulus = two_to(8 * wb as u32);
    let mut tag = Vec::new();
    for t in 0..p.n {
        let ht = BigUint::from_bytes_le(&h[t * wb..(t + 1) * wb]);
        let pt = BigUint::from_bytes_le(&pad[t * wb..(t + 1) * wb]);
        let mut v = ((ht + pt) % &modulus).to_bytes_le();
        v.resize(wb, 0);
        tag.extend_from_slice(&v);
    }
    Some(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appendix_a_edge_case_reduces_to_zero() {
        // x = (c431dd2b, 1, 0, …), m = (ffffffff, 431dd1fc, 0, …): the sum is
        // a multiple of p32, so Definition 5 gives 0 (Appendix A's code, 15).
        let mut x = vec![0u64; K];
        let mut m = vec![0u64; K];
        x[0] = 0xc431dd2b;
        x[1] = 1;
        m[0] = 0xffffffff;
        m[1] = 0x431dd1fc;
        let sum = BigUint::from(x[0] * m[0] + x[1] * m[1]);
        assert_eq!(sum % p32(), BigUint::from(0u8));
        assert_eq!(mmh32(&x, &m), 0);
    }

    #[test]
    fn levels_match_the_spec_examples() {
        assert_eq!(levels("mmh32", 0), 1);
        assert_eq!(levels("mmh32", 127), 1);
        assert_eq!(levels("mmh32", 128), 2); // "a message of exactly B bytes … takes two levels"
        assert_eq!(levels("mmh32x4", 3_860_228_252_031_871), 16);
        assert_eq!(levels("mmh32x4", 3_860_228_252_031_872), 17);
    }
}
