//! The block functions of spec §1 on word vectors, one k = 32-word block at a
//! time: what the tree of §3 applies to every block, exposed for tests,
//! benchmarks and anyone building a different tree.
//!
//! These run the portable backend's arithmetic (the same code every
//! [`MacKey`](super::MacKey) on [`Platform::Portable`](crate::platform::Platform)
//! uses). Key and message words are secret-safe: no branch or index depends
//! on them.
//!
//! ```
//! use wegman::mmh::block;
//! let key = [0xffff_ffffu32; 35];
//! let msg = [0xffff_ffffu32; 32];
//! // Σ (2^32 − 1)² over 32 words, mod 2^64, mod 2^32 + 15, mod 2^32:
//! assert_eq!(block::mmh32(key[..32].try_into().unwrap(), &msg), 0x4c1);
//! let four: [u32; 4] = block::mmh32_toeplitz(&key, &msg);
//! assert_eq!(four, [0x4c1; 4]);
//! ```

use super::alg::K;
use super::backend;

/// MMH32 (paper Definition 5):
/// `(((Σ_{i<32} m[i]·x[i]) mod 2^64) mod (2^32 + 15)) mod 2^32`.
pub fn mmh32(key: &[u32; K], msg: &[u32; K]) -> u32 {
    backend::mmh32(key, msg)
}

/// NMH32 (paper Definition 10):
/// `(((Σ_{i<16} ((m[2i] + x[2i]) mod 2^32)·((m[2i+1] + x[2i+1]) mod 2^32)) mod 2^64) mod (2^32 + 15)) mod 2^32`.
pub fn nmh32(key: &[u32; K], msg: &[u32; K]) -> u32 {
    backend::nmh32(key, msg)
}

/// MMH64 (spec §1, the paper's §3.2 suggestion):
/// `(((Σ_{i<32} m[i]·x[i]) mod 2^128) mod (2^64 + 13)) mod 2^64`.
pub fn mmh64(key: &[u64; K], msg: &[u64; K]) -> u64 {
    backend::mmh64(key, msg)
}

/// The N-fold Toeplitz MMH32 (paper §2.4): output t is [`mmh32`] under key
/// words `key[t..t+32)`.
///
/// # Panics
/// If `key` has fewer than 31 + N words (a public length).
pub fn mmh32_toeplitz<const N: usize>(key: &[u32], msg: &[u32; K]) -> [u32; N] {
    assert!(key.len() + 1 >= K + N, "an {N}-fold Toeplitz MMH32 needs {} key words, got {}", K + N - 1, key.len());
    backend::mmh32_toeplitz::<N>(key, msg)
}

/// The N-fold Toeplitz MMH64: output t is [`mmh64`] under key words `key[t..t+32)`.
///
/// # Panics
/// If `key` has fewer than 31 + N words (a public length).
pub fn mmh64_toeplitz<const N: usize>(key: &[u64], msg: &[u64; K]) -> [u64; N] {
    assert!(key.len() + 1 >= K + N, "an {N}-fold Toeplitz MMH64 needs {} key words, got {}", K + N - 1, key.len());
    backend::mmh64_toeplitz::<N>(key, msg)
}
