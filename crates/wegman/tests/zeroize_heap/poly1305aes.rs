//! Poly1305-AES: its only heap blocks are the vector tiers' tables of
//! powers of r for long runs (an `ExpandedKey`'s, and a one-shot call's,
//! wiped on drop); no freed block may hold key material, for every type,
//! clones included.

use aes::Aes128Enc;
use cipher::{BlockCipherEncrypt, KeyInit};
use digest::Mac;
use digest::common::KeyIvInit;
use wegman::poly1305aes::{self, ExpandedKey, Key, Poly1305, Poly1305Aes};

use crate::{assert_no_freed_copies, le8, message};

/// `k || r`, r already valid (clamping changes nothing), so that the
/// checked, clamped and RustCrypto constructors all hold the same key.
const KR: [u8; 32] = [
    0x4b, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x66, 0x6f, 0x72, 0x20, 0x41, 0x45, 0x53, 0x2e, 0x2e, 0x2e, // k
    0x3b, 0x9a, 0xc5, 0x07, 0x64, 0x51, 0x2e, 0x0d, 0x18, 0x77, 0xa3, 0x0e, 0x90, 0xd4, 0x61, 0x02, // r
];
const NONCE: [u8; 16] = *b"another nonce!!!";

fn needles() -> Vec<(&'static str, u64)> {
    let mut s = NONCE.into();
    Aes128Enc::new(&KR[..16].try_into().unwrap()).encrypt_block(&mut s);
    vec![
        ("k[0..8]", le8(&KR, 0)),
        ("k[8..16]", le8(&KR, 8)),
        ("r[0..8]", le8(&KR, 16)),
        ("r[8..16]", le8(&KR, 24)),
        ("s = AES_k(n)", le8(&s, 0)),
    ]
}

#[test]
fn poly1305aes_keys_and_states_free_no_key_material() {
    let msg = message(100_003);
    let want = poly1305aes::authenticate(&Key::from_bytes(&KR).unwrap(), &NONCE, &msg);
    assert_no_freed_copies("poly1305aes", &needles(), || {
        let key = Key::from_bytes(&KR).unwrap();
        let clamped = Key::from_bytes_clamped(&KR);
        assert_eq!(key.to_bytes(), clamped.to_bytes());
        drop(clamped.clone());
        // A key on the heap: its Drop must wipe both halves before the block is freed.
        drop(Box::new(Key::from_bytes(&KR).unwrap()));
        let expanded = ExpandedKey::new(&key);
        drop(expanded.clone());
        assert_eq!(expanded.authenticate(&NONCE, &msg), want);

        let mut m = Poly1305Aes::new(&key, &NONCE);
        m.update(&msg[..33]);
        let mut c = m.clone();
        c.update(&msg[33..]);
        assert_eq!(c.finalize(), want);
        drop(m);

        let mut rc = <Poly1305Aes as KeyIvInit>::new(&KR.into(), &NONCE.into());
        Mac::update(&mut rc, &msg[..1000]);
        let mut c = rc.clone();
        Mac::update(&mut c, &msg[1000..]);
        assert_eq!(Mac::finalize(c).into_bytes().as_slice(), want);
        drop(rc);

        let mut p = Poly1305::new(&KR[16..].try_into().unwrap(), &[7; 16]).unwrap();
        p.update(&msg[..17]);
        drop(p.clone());
        drop(p);
        assert!(poly1305aes::verify(&clamped, &want, &NONCE, &msg).is_ok());
        // One-shot runs of 16 KiB to 64 KiB build the AVX2 tier's half word
        // table (the 100,003 bytes above, the whole one).
        let part = poly1305aes::authenticate(&key, &NONCE, &msg[..20_000]);
        assert!(poly1305aes::verify(&key, &part, &NONCE, &msg[..20_000]).is_ok());
        drop(expanded);
        drop(clamped);
        drop(key);
    });
}
