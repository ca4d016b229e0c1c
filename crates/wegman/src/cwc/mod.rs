//! CWC-AES (Kohno, Viega & Whiting, "CWC: A high-performance conventional
//! authenticated encryption mode"), exactly as §3 of the paper defines it;
//! `shared/spec/cwc.md` restates it without the OCR damage.
//!
//! * CWC-CTR encrypts with counter blocks `0x80 || N || i` (i = 1, 2, ...).
//! * CWC-HASH is a polynomial in Kh modulo 2^127 - 1 over 96-bit big-endian
//!   coefficients of `A || pad || σ || pad`, then the byte lengths.
//! * CWC-MAC encrypts the hash and XORs the pad block `0x80 || N || 0`.
//!
//! Nonces are 11 bytes and must never repeat under one key; tags are 1..=16
//! bytes (16 by default); A and M are limited to 2^32 - 1 blocks of 16
//! bytes, checked before any output. Decryption reads each ciphertext byte
//! once (`one_pass.rs`), checks the tag in constant time and zeroes its
//! output if it is wrong: nothing unauthenticated is returned as success.
//!
//! **The tag length is part of the protocol, never of the message.** A
//! shorter CWC tag is the prefix of the 16-byte one (§3: the first tl bytes),
//! so a message sealed with a 16-byte tag and cut by one byte *opens* with
//! `tag_len` 15, and by 15 bytes with `tag_len` 1. A receiver must fix
//! `tag_len` in advance (as `seal`/`open` take `--tag-len`), never read it
//! from the sender or derive it from the message's length; and should not
//! accept several tag lengths for one key.
//!
//! Layout: `ctr.rs` (CWC-CTR), `hash.rs` (CWC-HASH),
//! `backend/` (arithmetic mod 2^127 - 1, chosen per key), `key.rs`
//! (one-shot ENC/DEC), `one_pass.rs` (the DEC every API ends in),
//! `stream.rs` (streaming), `parallel.rs` (one message on several threads),
//! `aead.rs` (RustCrypto).

mod aead;
mod backend;
mod ctr;
mod hash;
mod key;
// Raw pointers: the ciphertext may be memory another thread writes.
#[allow(unsafe_code)]
mod one_pass;
mod parallel;
mod stream;

pub use self::aead::{Cwc, CwcAes128, CwcAes192, CwcAes256, CwcTagSize};
pub use key::{CwcKey, Tag};
pub use one_pass::RawDecryptor;

/// The backends of CWC-HASH and of CWC-CTR for `features`, as labels.
pub(crate) fn backend_names(features: crate::cpu::Features) -> (&'static str, &'static str) {
    let hash = crate::backend::leaf_name::<backend::HashKey>(&1, features);
    let ctr = crate::aes::Key::new128(&[0; 16], features).ctr_name();
    (hash, ctr)
}
pub use stream::{Decryptor, Encryptor, Verifier};

/// Nonce length in bytes (88 bits).
pub const NONCE_BYTES: usize = 11;
/// The largest (and default) tag length in bytes.
pub const TAG_BYTES: usize = 16;
/// The most blocks of 16 bytes A or M may have: 2^32 - 1.
pub const MAX_BLOCKS: u64 = (1 << 32) - 1;
/// The longest A or M in bytes: 16 · (2^32 - 1).
pub const MAX_BYTES: u64 = 16 * MAX_BLOCKS;
