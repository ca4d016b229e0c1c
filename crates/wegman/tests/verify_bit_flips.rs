//! Every verify path, on every backend this CPU has, accepts the right tag
//! and rejects each of its single-bit flips (128 for a 16-byte tag), at
//! lengths on both sides of each backend's thresholds. A comparison that
//! skips a byte, or a bit, of the tag fails here (a review planted one that
//! compared 15 of 16 bytes in `ExpandedKey::verify` and in the streaming
//! `Poly1305::verify`, and no test gave those paths a wrong tag).

mod common;

use rand::{Rng, RngCore, SeedableRng};
use wegman::Error;
use wegman::mmh::{self, Alg, MacKey};
use wegman::poly1305aes::{self, ExpandedKey, Item, Key, Poly1305, Poly1305Aes, verify_many};
use wegman_ref::poly1305aes as reference;

/// Around the vector thresholds (256, 384, 1024 bytes) and block edges.
const LENGTHS: [usize; 12] = [0, 1, 16, 17, 255, 256, 383, 384, 1023, 1024, 1025, 4099];

/// Each single-bit flip of `tag`, then `tag` itself last.
fn flips(tag: &[u8]) -> impl Iterator<Item = (Option<usize>, Vec<u8>)> + '_ {
    (0..tag.len() * 8)
        .map(|bit| {
            let mut t = tag.to_vec();
            t[bit / 8] ^= 1 << (bit % 8);
            (Some(bit), t)
        })
        .chain(core::iter::once((None, tag.to_vec())))
}

fn check(what: &str, bit: Option<usize>, got: Result<(), Error>) {
    match bit {
        Some(bit) => assert!(matches!(got, Err(Error::TagMismatch)), "{what}: tag with bit {bit} flipped accepted"),
        None => assert!(got.is_ok(), "{what}: the right tag refused"),
    }
}

#[test]
fn poly1305aes_every_verify_path_rejects_every_tag_bit_flip() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(128);
    let mut levels = common::distinct_levels(|b| (b.poly1305, b.aes_pad));
    levels.push(wegman::cpu::Features::float64());
    for len in LENGTHS {
        let mut kr = [0u8; 32];
        rng.fill_bytes(&mut kr);
        let key = Key::from_bytes_clamped(&kr);
        let (k, r): ([u8; 16], [u8; 16]) = (kr[..16].try_into().unwrap(), key.to_bytes()[16..].try_into().unwrap());
        let nonce: [u8; 16] = rng.random();
        let m: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let want = reference::poly1305aes(&k, &r, &nonce, &m);
        let s: [u8; 16] = rng.random();
        let want_core = reference::poly1305(&r, &s, &m);
        for (bit, t) in flips(&want) {
            let t: [u8; 16] = t.try_into().unwrap();
            check(&format!("poly1305aes::verify len {len}"), bit, poly1305aes::verify(&key, &t, &nonce, &m));
            let items = [Item { key: &key, nonce: &nonce, message: &m }];
            let mut ok = [false];
            let all = verify_many(&items, &[t], &mut ok).unwrap();
            assert_eq!((all, ok[0]), (bit.is_none(), bit.is_none()), "verify_many len {len} bit {bit:?}");
            for &f in &levels {
                let ek = ExpandedKey::with_features(&key, f);
                check(&format!("ExpandedKey::verify {} len {len}", ek.platform()), bit, ek.verify(&t, &nonce, &m));
                let mut st = Poly1305Aes::with_features(&key, &nonce, f);
                let (a, b) = m.split_at(len / 3);
                st.update(a);
                st.update(b);
                check(&format!("Poly1305Aes::verify {} len {len}", st.platform()), bit, st.verify(&t));
            }
        }
        for (bit, t) in flips(&want_core) {
            let t: [u8; 16] = t.try_into().unwrap();
            for &f in &levels {
                let mut p = Poly1305::with_features(&r, &s, f).unwrap();
                p.update(&m);
                check(&format!("Poly1305::verify {} len {len}", p.platform()), bit, p.verify(&t));
            }
        }
    }
}

#[test]
fn mmh_every_verify_path_rejects_every_tag_bit_flip() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(129);
    let levels = common::distinct_levels(|b| (b.mmh32, b.mmh64));
    for alg in Alg::ALL {
        for len in [0usize, 1, alg.block_bytes() - 1, alg.block_bytes(), alg.block_bytes() + 1, 4099] {
            let key: [u8; 32] = rng.random();
            let nonce: [u8; 16] = rng.random();
            let m: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let want = mmh::mac(alg, &key, &nonce, &m).unwrap();
            let want = want.as_bytes().to_vec();
            for (bit, t) in flips(&want) {
                let what = |path: &str| format!("{path} {} len {len}", alg.name());
                check(&what("mmh::verify"), bit, mmh::verify(alg, &key, &t, &nonce, &m));
                let mk = MacKey::new(alg, &key);
                let items = [mmh::Item { key: &mk, nonce: &nonce, message: &m }];
                let mut ok = [false];
                let all = mmh::verify_many(&items, std::slice::from_ref(&t), &mut ok).unwrap();
                assert_eq!((all, ok[0]), (bit.is_none(), bit.is_none()), "{} bit {bit:?}", what("verify_many"));
                for &f in &levels {
                    let mk = MacKey::with_features(alg, &key, f);
                    check(&what(&format!("MacKey::verify {}", mk.platform())), bit, mk.verify(&t, &nonce, &m));
                    let mut st = mk.start(&nonce);
                    let (a, b) = m.split_at(len / 3);
                    st.update(a).unwrap();
                    st.update(b).unwrap();
                    check(&what(&format!("Mmh::verify {}", mk.platform())), bit, st.verify(&t));
                }
            }
        }
    }
}
