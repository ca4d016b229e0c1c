//! The nonce state files earlier versions wrote (format version 2), written
//! from the format's description rather than by the store, for the tests and
//! the fuzz target that check the store reads and migrates them. The
//! shipped store only reads this format.
//!
//! A version-2 state is four lines: `wegman-nonce-state v2`, `key ID`,
//! `safe NONCE` (16 bytes, little-endian) and `mac HMAC`, in lowercase hex,
//! the HMAC-SHA-256 over the first three lines under the state key. The key
//! id and the state key are HMAC-SHA-256 keyed by the key material over
//! `wegman nonce state`, the purpose (`key id`: its first 16 bytes;
//! `state authentication key`) and the algorithm name, each followed by a
//! zero byte.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

fn prf(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length");
    for part in parts {
        m.update(part);
        m.update(&[0]);
    }
    m.finalize().into_bytes().into()
}

/// The bytes of a version-2 state of the key `material` for algorithm `alg`
/// (the name its key file gives, e.g. `poly1305aes`) with safe nonce `safe`.
pub fn state_bytes(alg: &str, material: &[u8], safe: u128) -> Vec<u8> {
    let derive = |purpose: &str| prf(material, &[b"wegman nonce state", purpose.as_bytes(), alg.as_bytes()]);
    let id = &derive("key id")[..16];
    let body = format!("wegman-nonce-state v2\nkey {}\nsafe {}\n", hex::encode(id), hex::encode(safe.to_le_bytes()));
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(&derive("state authentication key")).expect("32 bytes");
    m.update(body.as_bytes());
    format!("{body}mac {}\n", hex::encode(m.finalize().into_bytes())).into_bytes()
}
