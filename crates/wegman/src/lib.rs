//! # wegman — Wegman–Carter message authenticators
//!
//! * [`poly1305aes`] — Poly1305-AES exactly as Bernstein's paper defines it:
//!   one-shot, streaming, batch and the Poly1305 core with any pad. The
//!   crash-safe nonce store for the §3 nonce discipline is the
//!   `wegman-store` crate's: this crate does no file I/O.
//! * [`mmh`] — the MMH/NMH multilinear-modular family and its Wegman–Carter
//!   MAC, byte-exact to the project's spec.
//! * [`cwc`] — CWC-AES authenticated encryption (§3 of the CWC paper).
//!
//! Secrets are handled without secret-dependent branches or indexes, tags are
//! compared in constant time, keys are zeroized on drop and never shown by
//! `Debug`. The portable code contains no `unsafe` but for CWC's one-pass
//! decryption (`cwc/one_pass.rs`), which reads the caller's buffers through
//! raw pointers (another thread may write them); SIMD backends live in
//! leaf files (`x86_*`), entered only with a proof token from [`cpu`]
//! that the CPU has their instructions, and chosen once per key.
//!
//! ```
//! use wegman::poly1305aes::{authenticate, verify, Key};
//! let key = Key::from_bytes(&[0u8; 32]).expect("an all-zero r is valid");
//! let nonce = [0u8; 16];
//! let tag = authenticate(&key, &nonce, b"message");
//! assert!(verify(&key, &tag, &nonce, b"message").is_ok());
//! ```

// `unsafe` is denied everywhere but in the SIMD leaf modules
// (`x86_*` files: `aes/`, each family's `backend/`) and `cwc/one_pass.rs` (raw pointers), each
// allowed by name where it is declared.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod aes;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2_mul;
mod backend;
pub mod cpu;
pub mod ct;
pub mod cwc;
mod error;
mod frame;
#[cfg(target_arch = "x86_64")]
mod ifma44;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod ifma_table;
mod lazy;
pub mod mmh;
pub mod parallel;
pub mod platform;
pub mod poly1305aes;
#[allow(unsafe_code)]
mod prefetch;

pub use error::{Error, RRule};

/// The shared vectors (../shared/vectors), for unit tests that check values
/// the API never reveals; the integration tests' own loader.
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
mod test_vectors;
/// The unit tests' pseudo-random inputs: Marsaglia's xorshift64 from `seed`
/// (not zero), the same sequence on every run.
#[cfg(test)]
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
// The loader names the crate as the integration tests do.
#[cfg(test)]
extern crate self as wegman;

/// The crate README's example (crates.io's page), compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct CrateReadmeDoctests;

/// The README's Rust example, compiled and run as a doctest.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
