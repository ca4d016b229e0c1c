//! Reference models: slow, obviously right, straight from the papers.
//!
//! Big integers (`num-bigint`) and the formulas as printed; no tricks, no
//! limbs, no constant-time care. The only borrowed primitive is AES, from the
//! `aes` crate. Every fast path in `wegman` is tested against this crate.

#![forbid(unsafe_code)]

pub mod cwc;
pub mod mmh;
pub mod poly1305aes;
