//! Poly1305-AES (D. J. Bernstein, FSE 2005).
//!
//! The authenticator of a message m under secret key (k, r) and nonce n is
//! the 16-byte little-endian encoding of
//!
//! ```text
//! (((c_1 r^q + c_2 r^(q-1) + ... + c_q r) mod 2^130 - 5) + AES_k(n)) mod 2^128
//! ```
//!
//! where c_i are the message's 16-byte chunks with a 1 byte appended (§2).
//!
//! # Security (§3)
//! * **Never** authenticate two different messages under one key with the
//!   same nonce: that reveals r. The `wegman-store` crate's `NonceStore`
//!   hands out nonces that survive crashes (this crate does no file I/O).
//! * r must have 22 particular bits clear; [`Key::from_bytes`] rejects an r
//!   that does not, [`Key::from_bytes_clamped`] / [`clamp`] clear them.
//! * k and r must be secret and uniformly random. **r = 0** is a valid key by
//!   §2's definition (all its forbidden bits are clear), and so is accepted,
//!   without a warning, by every constructor — as by Bernstein's API, which
//!   has no way to refuse one — but it makes every tag `AES_k(n)`, the same
//!   for every message: anyone who sees one tag can forge under that nonce.
//!   A uniformly random r is 0 with probability 2^-106, so meeting one means
//!   the key was not generated as §3 requires; refusing it would only hide
//!   that. `wegman keygen` draws r from the OS's random generator and
//!   never makes one.
//!
//! # Layout
//! `key.rs` (keys, clamp), `poly1305.rs` (the core with any s),
//! `mac.rs` (Poly1305-AES, streaming and one-shot), `batch.rs`,
//! `parallel.rs` (one message on several threads), `incremental.rs`
//! (a tag updated after an edit), `field.rs` (whole values mod 2^130 − 5,
//! for those two), `traits.rs` (RustCrypto), `backend/` (arithmetic,
//! chosen per key).

pub(crate) mod backend;
mod batch;
pub(crate) mod field;
mod incremental;
mod key;
mod mac;
mod parallel;
mod poly1305;
mod traits;

pub(crate) use batch::backend_names as batch_backend_names;
pub use batch::{Item, authenticate_many, authenticate_many_with, verify_many};
pub use incremental::Incremental;
pub use key::{KEY_BYTES, Key, NONCE_BYTES, TAG_BYTES, check_r, clamp};
pub use mac::{
    ExpandedKey, Poly1305Aes, authenticate, authenticate_parallel, authenticate_parallel_from, verify, verify_parallel,
};
pub use parallel::Fill;
pub use poly1305::Poly1305;
