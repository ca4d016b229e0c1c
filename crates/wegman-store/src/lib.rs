//! # wegman-store — what wegman keeps in files
//!
//! * [`nonce`] — the nonce store of Poly1305-AES §3: a safe nonce on disk
//!   beside the key, crash-safe, shared by every process that uses the key.
//! * [`keyfile`] — key files (`wegman-key v1`), made with their nonce store.
//! * [`manifest`] — manifest lines; [`tag`] and [`check`] make and verify
//!   manifests of files ([`input`] reads them, [`parallel`] on all cores).
//! * [`cwc`] — CWC-AES keys in key files and their nonces from the store;
//!   [`sealed`] the self-describing format `seal`/`open` use (version 1).
//! * [`incremental`] — the sealed states `tag --keep-state` keeps and
//!   [`patch`] re-tags an edit from.
//! * [`leased`] — tagging with a lease of nonces, on a worker of a
//!   distributed run (the Python package's `wegman.distributed`).
//! * [`algs`] — every algorithm name these files use; [`hex`] their hex.
//!
//! The core crate `wegman` does the cryptography and no file I/O. The
//! `wegman` command and the Python package both use this crate (without
//! clap, without a progress bar: [`sink::Sink`] and [`progress::Progress`]
//! are theirs to implement), so that a key, its nonce store and its
//! manifests mean the same thing whichever of them wrote them.

#![deny(unsafe_code)]

pub mod algs;
pub mod check;
pub mod cwc;
pub mod hex;
pub mod incremental;
pub mod input;
pub mod keyfile;
pub mod leased;
pub mod manifest;
pub mod nonce;
pub mod parallel;
pub mod patch;
pub mod progress;
pub mod sealed;
pub mod sink;
pub mod tag;
