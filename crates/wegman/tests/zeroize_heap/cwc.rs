//! CWC-AES: keys, the AEAD type and the streams hold their secrets inline
//! and allocate only for ciphertext and plaintext; this keeps it that way,
//! clones included.

use aead::consts::U11;
use aead::{Aead, AeadCore, KeyInit, Payload};
use wegman::cwc::{CwcAes128, CwcAes192, CwcAes256, CwcKey};

use crate::{assert_no_freed_copies, le8, message};

const KEY: [u8; 32] = *b"CWC key bytes, up to thirty-two!";
const NONCE: [u8; 11] = *b"cwc nonce!!";
const AAD: &[u8] = b"associated data";

/// The key's bytes and the hash key Kh as the library holds it (a
/// little-endian u128).
fn needles(key: &[u8]) -> Vec<(&'static str, u64)> {
    // Kh from the reference model (the library never reveals its own)
    let be = wegman_ref::cwc::hash_key(key).to_bytes_be();
    let mut kh = [0u8; 16];
    kh[16 - be.len()..].copy_from_slice(&be);
    let kh = u128::from_be_bytes(kh).to_le_bytes();
    let mut out = vec![("Kh low", le8(&kh, 0)), ("Kh high", le8(&kh, 8))];
    for (name, at) in [("key[0..8]", 0), ("key[8..16]", 8), ("key[16..24]", 16), ("key[24..32]", 24)] {
        if at < key.len() {
            out.push((name, le8(key, at)));
        }
    }
    out
}

/// CwcKey one-shot and streaming, and the AEAD type `C`, for `key`.
fn everything<C: KeyInit + Aead + AeadCore<NonceSize = U11> + Clone>(key: &[u8]) {
    let msg = message(70_001);
    let sealed = CwcKey::new(key).unwrap().encrypt(&NONCE, AAD, &msg, 16).unwrap();
    let (ct, tag) = sealed.split_at(msg.len());
    assert_no_freed_copies(&format!("CWC-AES-{}", key.len() * 8), &needles(key), || {
        let k = CwcKey::new(key).unwrap();
        let copy = k.clone();
        drop(k);
        assert_eq!(copy.encrypt(&NONCE, AAD, &msg, 16).unwrap(), sealed);
        assert_eq!(copy.decrypt(&NONCE, AAD, &sealed, 16).unwrap(), msg);

        let mut enc = copy.encryptor(&NONCE, AAD, 16).unwrap();
        let mut buf = msg.clone();
        let (first, rest) = buf.split_at_mut(1000);
        enc.update(first).unwrap();
        enc.update(rest).unwrap();
        assert_eq!(enc.finalize().as_slice(), tag);
        assert_eq!(buf, ct);

        let mut v = copy.verifier(&NONCE, AAD, 16).unwrap();
        v.update(&ct[..5]).unwrap();
        v.update(&ct[5..]).unwrap();
        let mut dec = v.verify(tag).unwrap();
        dec.update(&mut buf).unwrap();
        dec.finish().unwrap();
        assert_eq!(buf, msg);
        drop(copy);

        let aead = C::new_from_slice(key).unwrap();
        let twin = aead.clone();
        drop(aead);
        let out = twin.encrypt(&NONCE.into(), Payload { msg: &msg, aad: AAD }).unwrap();
        assert_eq!(out, sealed);
        assert_eq!(twin.decrypt(&NONCE.into(), Payload { msg: &out, aad: AAD }).unwrap(), msg);
    });
}

#[test]
fn cwc_aes_128_keys_and_streams_free_no_key_material() {
    everything::<CwcAes128>(&KEY[..16]);
}

#[test]
fn cwc_aes_192_keys_and_streams_free_no_key_material() {
    everything::<CwcAes192>(&KEY[..24]);
}

#[test]
fn cwc_aes_256_keys_and_streams_free_no_key_material() {
    everything::<CwcAes256>(&KEY);
}
