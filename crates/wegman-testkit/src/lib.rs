//! Test harnesses that several of wegman's crates run, kept in one crate so
//! that each crate's tests depend on it instead of including another
//! crate's files by path (which would not survive packaging the crate
//! alone). A dev-dependency only.
//!
//! * [`concurrent_writer`] — decrypt CWC while another thread writes the
//!   ciphertext (the core's Rust API and the C ABI).
//! * [`leak_scan`] — does a text show any piece of a secret (the key-hygiene
//!   tests of the core, the store and the command line)?
//! * [`nonce_v2`] — nonce state files as earlier versions wrote them (the
//!   store's migration tests and fuzz target).

#![forbid(unsafe_code)]

pub mod concurrent_writer;
pub mod leak_scan;
pub mod nonce_v2;
