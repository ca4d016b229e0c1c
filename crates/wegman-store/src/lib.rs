//! # wegman-store — what wegman keeps in files
//!
//! The [`nonce`] store of Poly1305-AES §3 (a safe nonce on disk beside the
//! key, crash-safe, shared by every process that uses the key). The core
//! crate `wegman` does the cryptography and no file I/O; the `wegman`
//! command and the Python package both use this crate, so that a key's
//! nonce store means the same thing whichever of them wrote it.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(not(any(wegman_nonce_legacy, wegman_broken_nonce_store)))]
pub mod nonce;
/// The store before the generation files (one state file replaced through
/// the fixed temporary name `KEY.nonce.tmp`), compiled only for negative
/// controls: `--cfg wegman_nonce_legacy` (the race harness
/// `scripts/nonce-race` must report reuse with it) and
/// `--cfg wegman_broken_nonce_store` (the kill and fault tests).
#[cfg(any(wegman_nonce_legacy, wegman_broken_nonce_store))]
#[path = "nonce_legacy.rs"]
pub mod nonce;
