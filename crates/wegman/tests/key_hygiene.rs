//! Key hygiene of the library's printable surface: 1,000 random keys go
//! through every key-holding type's `Debug` and every error a key can meet
//! (`Debug` and `Display`), and no piece of any key may show (see
//! `leak_scan`: raw, hex, byte lists, decimal words). Errors come from the
//! calls users make with that key: a key with a forbidden bit of r, keys
//! of the wrong length, a wrong tag, a tag of the wrong length. Freed heap
//! memory is checked separately (`tests/zeroize_heap/`). The nonce store's
//! key binding is checked by the `wegman-store` crate's own key-hygiene test.

mod common;

use aead::KeyInit;
use digest::Mac;
use digest::common::KeyIvInit;
use rand::{RngCore, SeedableRng};
use wegman::cwc::{CwcAes128, CwcAes256, CwcKey};
use wegman::mmh::{self, Alg, MacKey, Mmh, Mmh32Mac, Mmh64x2Mac, Nmh32Mac};
use wegman::poly1305aes::{self, ExpandedKey, Key, Poly1305, Poly1305Aes};

use wegman_testkit::leak_scan;

const KEYS: usize = 1000;

/// Everything printed for one 32-byte key `raw` (and the keys cut from it).
fn printed(raw: &[u8; 32]) -> Vec<String> {
    let mut out = Vec::new();
    let nonce = [7u8; 16];
    let message = b"key hygiene";

    // Poly1305-AES: the key as given (r clamped, so it is valid), and with
    // a forbidden bit of r set.
    let key = Key::from_bytes_clamped(raw);
    out.push(format!("{key:?}"));
    out.push(format!("{:?}", ExpandedKey::new(&key)));
    let mut stream = Poly1305Aes::new(&key, &nonce);
    stream.update(message);
    out.push(format!("{stream:?}"));
    let mut kr = *raw;
    poly1305aes::clamp((&mut kr[16..]).try_into().unwrap());
    let r: [u8; 16] = kr[16..].try_into().unwrap();
    let s: [u8; 16] = kr[..16].try_into().unwrap();
    out.push(format!("{:?}", Poly1305::new(&r, &s).unwrap()));
    kr[16 + 3] |= 0x10;
    let err = Key::from_bytes(&kr).unwrap_err();
    out.extend([format!("{err}"), format!("{err:?}")]);
    let err = Key::from_slice(&raw[..31]).unwrap_err();
    out.extend([format!("{err}"), format!("{err:?}")]);
    let err = poly1305aes::verify(&key, &[0u8; 16], &nonce, message).unwrap_err();
    out.extend([format!("{err}"), format!("{err:?}")]);

    // MMH: every algorithm's expanded key and stream, the RustCrypto types,
    // a wrong tag and a tag of the wrong length.
    for alg in Alg::ALL {
        let k = MacKey::new(alg, raw);
        out.push(format!("{k:?}"));
        let mut m = Mmh::new(&k, &nonce);
        m.update(message).unwrap();
        out.push(format!("{m:?}"));
        for tag in [vec![0u8; alg.tag_bytes()], vec![0u8; alg.tag_bytes() + 1]] {
            let err = mmh::verify(alg, raw, &tag, &nonce, message).unwrap_err();
            out.extend([format!("{err}"), format!("{err:?}")]);
        }
    }
    out.push(format!("{:?}", <Mmh32Mac as KeyIvInit>::new_from_slices(raw, &nonce).unwrap()));
    out.push(format!("{:?}", <Nmh32Mac as KeyIvInit>::new_from_slices(raw, &nonce).unwrap()));
    let mut mac = <Mmh64x2Mac as KeyIvInit>::new_from_slices(raw, &nonce).unwrap();
    mac.update(message);
    out.push(format!("{mac:?}"));
    let err = <Mmh32Mac as KeyIvInit>::new_from_slices(&raw[..31], &nonce).unwrap_err();
    out.extend([format!("{err}"), format!("{err:?}")]);

    // CWC-AES: every key size, the AEAD types, a key of a wrong length, a
    // forged tag.
    for len in [16, 24, 32] {
        let k = CwcKey::new(&raw[..len]).unwrap();
        out.push(format!("{k:?}"));
        let sealed = k.encrypt(&[1u8; 11], b"", message, 16).unwrap();
        let mut forged = sealed.clone();
        forged[0] ^= 1;
        let err = k.decrypt(&[1u8; 11], b"", &forged, 16).unwrap_err();
        out.extend([format!("{err}"), format!("{err:?}")]);
    }
    out.push(format!("{:?}", <CwcAes128 as KeyInit>::new_from_slice(&raw[..16]).unwrap()));
    out.push(format!("{:?}", <CwcAes256 as KeyInit>::new_from_slice(raw).unwrap()));
    let long = [&raw[..], &raw[..1]].concat();
    for len in [0, 15, 17, 31, 33] {
        let err = CwcKey::new(&long[..len]).unwrap_err();
        out.extend([format!("{err}"), format!("{err:?}")]);
    }
    out
}

#[test]
fn no_key_byte_in_any_debug_display_or_error_output() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b65_7973);
    let mut outputs = 0usize;
    for i in 0..common::scaled(KEYS) {
        let mut raw = [0u8; 32];
        rng.fill_bytes(&mut raw);
        for text in printed(&raw) {
            outputs += 1;
            if let Some(found) = leak_scan::shows(&text, &raw) {
                panic!("key {i}: {found} in {text:?}");
            }
        }
    }
    println!("key hygiene: {KEYS} random keys, {outputs} Debug/Display/error outputs, 0 showing a key byte");
}

/// The scan itself must find a key that a type does print (a negative
/// control: a `Debug` deriving over the key bytes).
#[test]
fn the_scan_finds_a_derived_debug_of_the_key() {
    #[derive(Debug)]
    #[allow(dead_code)]
    struct Careless {
        key: [u8; 32],
    }
    let mut raw = [0u8; 32];
    rand::rngs::StdRng::seed_from_u64(1).fill_bytes(&mut raw);
    assert!(leak_scan::shows(&format!("{:?}", Careless { key: raw }), &raw).is_some());
    assert!(leak_scan::shows(&hex::encode_upper(raw), &raw).is_some());
}
