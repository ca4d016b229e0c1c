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
//!
//! A key file, and tags whose nonces come from its store:
//!
//! ```
//! use wegman_store::algs::{AnyKey, MacAlg};
//! use wegman_store::keyfile;
//! use wegman_store::nonce::{NonceStore, state_path_for_key};
//!
//! let dir = tempfile::tempdir()?;
//! let key_path = dir.path().join("link.key");
//! keyfile::keygen(&key_path, MacAlg::Poly1305aes)?;      // mode 0600, and link.key.nonce
//! let (key, binding) = keyfile::read_managed(&key_path, None)?;
//! let AnyKey::Poly1305Aes(key, _) = key else { unreachable!() };
//! let mut store = NonceStore::open(&state_path_for_key(&key_path)?, &binding)?;
//! let (n1, n2) = (store.next_nonce()?, store.next_nonce()?);
//! assert_ne!(n1, n2);                                   // and never again, in any process
//! let tag = wegman::poly1305aes::authenticate(&key, &n1, b"message");
//! assert!(wegman::poly1305aes::verify(&key, &tag, &n1, b"message").is_ok());
//! store.close()?;                                       // gives back what it reserved and did not use
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(unsafe_code)]

/// The crate README's example (crates.io's page), compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct CrateReadmeDoctests;

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
