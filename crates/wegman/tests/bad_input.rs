//! The Rust API's bad-input matrix (docs/security.md): keys, nonces and
//! tags of every wrong length up to 64 bytes through the constructors and
//! the RustCrypto traits, every forbidden bit of r, tags of wrong lengths
//! for every MMH algorithm, CWC tag lengths outside 1..=16, sealed CWC
//! messages cut at every length, and every byte of a sealed message, its
//! tag, its associated data and its nonce changed, through the one-shot,
//! in-place, streaming and `aead` paths. Every case must return the
//! documented error; no case may panic (a panic hook counts them, and any
//! panic fails the test); no failed decryption may leave plaintext in the
//! caller's buffer. The test prints the number of cases per row.
//!
//! Lengths past CWC's limit (64 GiB) cannot be made as Rust slices here;
//! the C ABI's matrix and the Python tests (a sparse 64 GiB mapping) cover
//! them. MMH's limit (a 17th tree level) is far past any slice length.

use std::sync::atomic::{AtomicUsize, Ordering};

use aead::{Aead, KeyInit, Payload};
use digest::common::KeyIvInit;
use wegman::Error;
use wegman::cwc::{CwcAes128, CwcAes192, CwcAes256, CwcKey};
use wegman::mmh::{
    self, Alg, MacKey, Mmh, Mmh32Mac, Mmh32x2Mac, Mmh32x3Mac, Mmh32x4Mac, Mmh64Mac, Mmh64x2Mac, Nmh32Mac,
};
use wegman::poly1305aes::{Key, Poly1305, Poly1305Aes};

static PANICS: AtomicUsize = AtomicUsize::new(0);

struct Tally {
    rows: Vec<(&'static str, usize)>,
    plaintext_released: usize,
}

/// Wrong lengths of keys and nonces, 0..=64 bytes.
fn wrong_lengths() -> usize {
    let bytes = [0u8; 65];
    let mut cases = 0;
    for len in (0..=64).filter(|&l| l != 32) {
        assert!(matches!(Key::from_slice(&bytes[..len]), Err(Error::InvalidLength { .. })), "{len}");
        assert!(<Poly1305Aes as KeyIvInit>::new_from_slices(&bytes[..len], &bytes[..16]).is_err());
        for mac in mmh_trait_constructors() {
            assert!(mac(&bytes[..len], &bytes[..16]), "MMH key of {len} bytes");
        }
        cases += 9;
    }
    for len in (0..=64).filter(|&l| l != 16) {
        assert!(<Poly1305Aes as KeyIvInit>::new_from_slices(&bytes[..32], &bytes[..len]).is_err());
        for mac in mmh_trait_constructors() {
            assert!(mac(&bytes[..32], &bytes[..len]), "MMH nonce of {len} bytes");
        }
        cases += 8;
    }
    for len in (0..=64).filter(|l| ![16, 24, 32].contains(l)) {
        assert!(matches!(CwcKey::new(&bytes[..len]), Err(Error::UnsupportedKeyLength { .. })), "{len}");
        assert!(CwcAes128::new_from_slice(&bytes[..len]).is_err() || len == 16);
        assert!(CwcAes192::new_from_slice(&bytes[..len]).is_err() || len == 24);
        assert!(CwcAes256::new_from_slice(&bytes[..len]).is_err() || len == 32);
        cases += 4;
    }
    cases
}

/// A constructor given (key, nonce) slices: true if it refused them.
type Refuses = fn(&[u8], &[u8]) -> bool;

/// Each MMH RustCrypto type's `new_from_slices`.
fn mmh_trait_constructors() -> [Refuses; 7] {
    [
        |k, n| Mmh32Mac::new_from_slices(k, n).is_err(),
        |k, n| Mmh32x2Mac::new_from_slices(k, n).is_err(),
        |k, n| Mmh32x3Mac::new_from_slices(k, n).is_err(),
        |k, n| Mmh32x4Mac::new_from_slices(k, n).is_err(),
        |k, n| Nmh32Mac::new_from_slices(k, n).is_err(),
        |k, n| Mmh64Mac::new_from_slices(k, n).is_err(),
        |k, n| Mmh64x2Mac::new_from_slices(k, n).is_err(),
    ]
}

/// Every forbidden bit of r, alone.
fn forbidden_r_bits() -> usize {
    let mut cases = 0;
    for byte in 0..16 {
        for bit in 0..8 {
            let forbidden = ([3, 7, 11, 15].contains(&byte) && bit >= 4) || ([4, 8, 12].contains(&byte) && bit < 2);
            if !forbidden {
                continue;
            }
            let mut kr = [0u8; 32];
            kr[16 + byte] = 1 << bit;
            let err = Key::from_bytes(&kr).unwrap_err();
            assert!(matches!(err, Error::ForbiddenRBits { byte: b, .. } if b == byte), "{err:?}");
            assert!(err.to_string().contains(&format!("r[{byte}]")));
            let r: [u8; 16] = kr[16..].try_into().unwrap();
            assert!(matches!(Poly1305::new(&r, &[0; 16]), Err(Error::ForbiddenRBits { .. })));
            assert!(<Poly1305Aes as KeyIvInit>::new_from_slices(&kr, &[0; 16]).is_err());
            cases += 3;
        }
    }
    assert_eq!(cases, 66);
    cases
}

/// MMH tags of every wrong length, 0..=32, through every verify path.
fn wrong_tag_lengths() -> usize {
    let (key, nonce, m) = ([9u8; 32], [3u8; 16], [5u8; 100]);
    let mut cases = 0;
    for alg in Alg::ALL {
        let mac_key = MacKey::new(alg, &key);
        for len in (0..=32).filter(|&l| l != alg.tag_bytes()) {
            let tag = vec![0u8; len];
            assert!(matches!(mmh::verify(alg, &key, &tag, &nonce, &m), Err(Error::InvalidLength { .. })));
            assert!(matches!(mac_key.verify(&tag, &nonce, &m), Err(Error::InvalidLength { .. })));
            let mut s = Mmh::new(&mac_key, &nonce);
            s.update(&m).unwrap();
            assert!(matches!(s.verify(&tag), Err(Error::InvalidLength { .. })));
            cases += 3;
        }
    }
    let key = CwcKey::new(&[1u8; 16]).unwrap();
    for tag_len in [0, 17, 32, usize::MAX] {
        assert!(matches!(key.encrypt(&[0; 11], b"", b"m", tag_len), Err(Error::InvalidTagLength { .. })));
        assert!(matches!(key.decrypt(&[0; 11], b"", &[0u8; 40], tag_len), Err(Error::InvalidTagLength { .. })));
        assert!(key.encryptor(&[0; 11], b"", tag_len).is_err());
        assert!(key.verifier(&[0; 11], b"", tag_len).is_err());
        let mut buf = [0u8; 8];
        assert!(key.encrypt_detached(&[0; 11], b"", &mut buf, tag_len).is_err());
        cases += 5;
    }
    for len in [0usize, 15, 17, 32] {
        let mut buf = [0u8; 8];
        assert!(key.decrypt_detached(&[0; 11], b"", &mut buf, &vec![0u8; len]).is_err());
        assert!(key.verify_detached(&[0; 11], b"", &buf, &vec![0u8; len]).is_err());
        cases += 2;
    }
    cases
}

/// Bytes of `plaintext` (where it differs from `ciphertext`) still in `buf`.
fn released(buf: &[u8], plaintext: &[u8], ciphertext: &[u8]) -> usize {
    buf.iter().zip(plaintext).zip(ciphertext).filter(|&((b, p), c)| b == p && p != c).count()
}

/// Sealed messages changed byte by byte, and cut at every length.
fn cwc_tampering(t: &mut Tally) {
    let raw = [0x42u8; 16];
    let key = CwcKey::new(&raw).unwrap();
    let aead = CwcAes128::new_from_slice(&raw).unwrap();
    let nonce = [7u8; 11];
    let ad = [0x61u8; 9];
    let pt: Vec<u8> = (0..50u8).map(|i| i.wrapping_mul(37).wrapping_add(1)).collect();
    let sealed = key.encrypt(&nonce, &ad, &pt, 16).unwrap();
    let n = pt.len();

    // Try one variant through every decryption path; all must refuse.
    let refuse = |t: &mut Tally, sealed: &[u8], ad: &[u8], nonce: &[u8; 11]| {
        assert!(matches!(key.decrypt(nonce, ad, sealed, 16), Err(Error::TagMismatch | Error::InvalidLength { .. })));
        if sealed.len() >= 16 {
            let (c, tag) = sealed.split_at(sealed.len() - 16);
            let mut buf = c.to_vec();
            assert!(key.decrypt_detached(nonce, ad, &mut buf, tag).is_err());
            t.plaintext_released += released(&buf, &pt, c);
            let mut v = key.verifier(nonce, ad, 16).unwrap();
            v.update(c).unwrap();
            assert!(v.verify(tag).is_err());
        }
        assert!(aead.decrypt(nonce.into(), Payload { msg: sealed, aad: ad }).is_err());
        if sealed.len() >= 16 { 4 } else { 2 }
    };

    let mut changed = 0;
    for i in 0..sealed.len() {
        let mut s = sealed.clone();
        s[i] ^= 0x01;
        changed += refuse(t, &s, &ad, &nonce);
    }
    for i in 0..ad.len() {
        let mut a = ad;
        a[i] ^= 0x10;
        changed += refuse(t, &sealed, &a, &nonce);
    }
    for i in 0..nonce.len() {
        let mut nn = nonce;
        nn[i] ^= 0x80;
        changed += refuse(t, &sealed, &ad, &nn);
    }
    let mut truncated = 0;
    for cut in 0..sealed.len() {
        truncated += refuse(t, &sealed[..cut], &ad, &nonce);
    }
    // A streaming decryption whose second pass sees other bytes than the
    // first verified must fail at `finish`.
    let (c, tag) = sealed.split_at(n);
    let mut v = key.verifier(&nonce, &ad, 16).unwrap();
    v.update(c).unwrap();
    let mut d = v.verify(tag).unwrap();
    let mut other = c.to_vec();
    other[0] ^= 1;
    d.update(&mut other).unwrap();
    assert!(d.finish().is_err());
    t.rows.push(("Rust: CWC sealed messages with one byte of ciphertext, tag, AD or nonce changed (4 paths)", changed));
    t.rows.push(("Rust: CWC sealed messages cut at every length (2 or 4 paths)", truncated));
    t.rows.push(("Rust: CWC streaming decryption fed other bytes on its second pass", 1));
}

#[test]
fn the_rust_api_refuses_every_bad_input() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let mut t = Tally { rows: Vec::new(), plaintext_released: 0 };
    t.rows.push(("Rust: key and nonce lengths 0..=64 (constructors, RustCrypto traits)", wrong_lengths()));
    t.rows.push(("Rust: forbidden bits of r (22 bits x 3 constructors)", forbidden_r_bits()));
    t.rows.push(("Rust: tag lengths (MMH 0..=32 x 7 algorithms x 3 paths; CWC)", wrong_tag_lengths()));
    cwc_tampering(&mut t);
    let total: usize = t.rows.iter().map(|r| r.1).sum();
    for (name, cases) in &t.rows {
        println!("{cases:>6}  {name}");
    }
    let panics = PANICS.load(Ordering::SeqCst);
    println!(
        "Rust API bad-input matrix: {total} cases, {panics} panics, {} bytes of plaintext released",
        t.plaintext_released
    );
    assert_eq!((panics, t.plaintext_released), (0, 0));
}
