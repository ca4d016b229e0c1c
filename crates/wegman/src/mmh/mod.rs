//! MMH / NMH (Halevi & Krawczyk, FSE 1997), byte-exact to `shared/spec/mmh.md`.
//!
//! **Block functions** (spec §1) map a k = 32-word block to one word:
//!
//! ```text
//! MMH32_x(m) = ((Σ m[i]·x[i]) mod 2^64) mod (2^32+15)) mod 2^32                    paper Definition 5
//! NMH32_x(m) = ((Σ (m[2i]+x[2i])·(m[2i+1]+x[2i+1])) mod 2^64) mod (2^32+15)) mod 2^32   paper Definition 10
//! MMH64_x(m) = ((Σ m[i]·x[i]) mod 2^128) mod (2^64+13)) mod 2^64                   paper §3.2's suggestion
//! ```
//!
//! The n-fold Toeplitz variants (paper §2.4) output n words per block, word t
//! under key words `x[t..t+32)`. The **tree** (spec §3, paper §2.4) pads each
//! level's input with `0x01` and zeros to whole blocks, hashes every block
//! under that level's key, and repeats on the concatenated outputs until a
//! level is a single block. The **MAC** (spec §4, Wegman–Carter) adds
//! `AES_kp(nonce)` to the tree output word by word. The key is `kp || ks`;
//! ks expands by AES-CTR into 16 levels of hash keys (spec §2).
//!
//! | [`Alg`] | block fn | n | tag bytes | expanded key bytes |
//! |---|---|---|---|---|
//! | `mmh32` | MMH32 | 1 | 4 | 2048 |
//! | `mmh32x2` | MMH32 | 2 | 8 | 2112 |
//! | `mmh32x3` | MMH32 | 3 | 12 | 2176 |
//! | `mmh32x4` | MMH32 | 4 | 16 | 2240 |
//! | `nmh32` | NMH32 | 1 | 4 | 2048 |
//! | `mmh64` | MMH64 | 1 | 8 | 4096 |
//! | `mmh64x2` | MMH64 | 2 | 16 | 4224 |
//!
//! # Security (spec §5)
//! * Per tree level, MMH32 is ε-AΔU with ε ≤ 6·2^−32 (paper Theorem 8); the
//!   n-fold Toeplitz variant gives about ε^n; NMH32 is "close to 2^−32"
//!   (paper §5, stated without proof). MMH64's ≈ 6·2^−64 follows by the same
//!   argument but is **not proven in the paper**.
//! * The tree multiplies ε by the number of levels, so one forgery attempt
//!   succeeds with probability about ε × levels (plus AES's distinguishing
//!   advantage). A 4-byte `mmh32` or `nmh32` tag is forged with probability
//!   near 2^−29 *per try*: it suits short-lived, high-rate links where the
//!   receiver counts failures, **not** long-term storage. For that use
//!   `mmh32x4`, `mmh64x2` or [`poly1305aes`](crate::poly1305aes).
//! * A nonce must never repeat under one key: two tags under one pad reveal
//!   the difference of two hash values.
//! * Arithmetic has no secret-dependent branches or indexes; tags compare in
//!   constant time; keys are zeroized on drop and never shown by `Debug`.
//!
//! # Entry points
//! * [`mac`] / [`verify`]: one call, raw 32-byte key.
//! * [`MacKey`] (expanded once) with [`MacKey::mac`], [`MacKey::verify`] and
//!   streaming [`Mmh`]; [`mac_many`] / [`verify_many`] for batches.
//! * [`Mmh32Mac`] … [`Mmh64x2Mac`]: RustCrypto `digest::Mac` types.
//! * [`block`]: the block functions on words.
//!
//! ```
//! use wegman::mmh::{self, Alg, MacKey};
//! let alg: Alg = "mmh64x2".parse()?;
//! let key = [0x5au8; 32]; // kp || ks: two independent random AES keys
//! let nonce = [0u8; 16];
//! let tag = mmh::mac(alg, &key, &nonce, b"message")?;
//! mmh::verify(alg, &key, tag.as_bytes(), &nonce, b"message")?;
//! // the same with the level keys expanded once
//! let expanded = MacKey::new(alg, &key);
//! assert_eq!(expanded.mac(&nonce, b"message")?, tag);
//! # Ok::<(), wegman::Error>(())
//! ```
//!
//! # Layout
//! `alg.rs` (the table, lengths, limits), `key.rs` (key stream, [`MacKey`]),
//! `tree.rs` (the streaming tree), `mac.rs` (the MAC, one-shot and
//! streaming), `batch.rs`, `traits.rs` (RustCrypto), `block.rs` (public block
//! functions), `backend/` (arithmetic, chosen per key).

mod alg;
mod backend;
mod batch;
pub mod block;
mod key;
mod mac;
mod parallel;
#[cfg(target_arch = "x86_64")]
mod short;
mod tag;
mod traits;
mod tree;

pub use alg::{Alg, Family, K as BLOCK_WORDS, KEY_BYTES, MAX_LEVELS, MAX_TAG_BYTES, NONCE_BYTES};
pub use batch::{Item, mac_many, verify_many};
pub use key::MacKey;

/// The backends of the 32-bit and the 64-bit algorithms for `features`.
pub(crate) fn backend_names(features: crate::cpu::Features) -> (&'static str, &'static str) {
    let of = |alg| crate::backend::leaf_name::<backend::Keys>(alg, features);
    (of(Alg::Mmh32), of(Alg::Mmh64))
}
pub use mac::{Mmh, mac, verify};
pub use parallel::{mac_parallel, verify_parallel};
pub use tag::Tag;
pub use traits::{Mmh32Mac, Mmh32x2Mac, Mmh32x3Mac, Mmh32x4Mac, Mmh64Mac, Mmh64x2Mac, Nmh32Mac};
