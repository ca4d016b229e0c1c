//! Every vector of ../shared/vectors/poly1305aes.json through the Rust API:
//! one-shot, streaming (random splits), expanded key, batch, the Poly1305
//! core, the RustCrypto traits, and the reference model itself.

mod common;

use common::{arr16, bytes, has, vectors};
use rand::{Rng, SeedableRng};
use wegman::Error;
use wegman::poly1305aes::{self, Item, Key, Poly1305, Poly1305Aes};

fn key_of(v: &serde_json::Value) -> [u8; 32] {
    let mut kr = [0u8; 32];
    kr[..16].copy_from_slice(&arr16(v, "k"));
    kr[16..].copy_from_slice(&arr16(v, "r"));
    kr
}

/// Vectors with k, r, n, m and an expected tag.
fn full_vectors() -> Vec<(String, serde_json::Value)> {
    vectors("poly1305aes.json").into_iter().filter(|(_, v)| has(v, "k") && has(v, "tag")).collect()
}

#[test]
fn group_counts_are_what_the_file_promises() {
    let all = vectors("poly1305aes.json");
    assert!(all.len() >= 400, "only {} vectors", all.len());
    assert!(full_vectors().len() >= 370);
}

#[test]
fn one_shot_and_reference() {
    let mut n_checked = 0;
    for (group, v) in full_vectors() {
        let kr = key_of(&v);
        let key = Key::from_bytes(&kr).unwrap_or_else(|e| panic!("{group}/{}: {e}", v["name"]));
        let n = arr16(&v, "n");
        let m = bytes(&v, "m");
        let tag = arr16(&v, "tag");
        assert_eq!(
            m.len() as u64,
            v["m_len"].as_u64().unwrap_or_else(|| v["m_len"].as_str().unwrap().parse().unwrap())
        );
        assert_eq!(poly1305aes::authenticate(&key, &n, &m), tag, "{group}/{}", v["name"]);
        assert!(poly1305aes::verify(&key, &tag, &n, &m).is_ok());
        // the reference model agrees, including the intermediate values
        let (k, r) = (arr16(&v, "k"), arr16(&v, "r"));
        assert_eq!(wegman_ref::poly1305aes::aes128(&k, &n), arr16(&v, "aes_k_n"));
        assert_eq!(
            format!("{:033x}", wegman_ref::poly1305aes::m_of_r_mod_p(&r, &m)),
            v["m_of_r_mod_p"].as_str().unwrap()
        );
        assert_eq!(wegman_ref::poly1305aes::poly1305aes(&k, &r, &n, &m), tag);
        // expanded-key path
        let ek = poly1305aes::ExpandedKey::new(&key);
        assert_eq!(ek.authenticate(&n, &m), tag);
        assert!(ek.verify(&tag, &n, &m).is_ok());
        // every single-bit flip of the tag is rejected (first vectors only; cheap)
        if n_checked < 8 {
            for bit in 0..128 {
                let mut bad = tag;
                bad[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(poly1305aes::verify(&key, &bad, &n, &m), Err(Error::TagMismatch));
            }
        }
        n_checked += 1;
    }
    assert!(n_checked > 300);
}

#[test]
fn streaming_random_splits() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed_1305);
    for (group, v) in full_vectors() {
        let key = Key::from_bytes(&key_of(&v)).unwrap();
        let n = arr16(&v, "n");
        let m = bytes(&v, "m");
        let tag = arr16(&v, "tag");
        for _ in 0..4 {
            let mut mac = Poly1305Aes::new(&key, &n);
            let mut rest = &m[..];
            while !rest.is_empty() {
                let take = rng.random_range(0..=rest.len().min(40));
                mac.update(&rest[..take]);
                rest = &rest[take..];
            }
            assert_eq!(mac.finalize(), tag, "{group}/{}", v["name"]);
        }
        // byte at a time
        let mut mac = Poly1305Aes::new(&key, &n);
        for b in &m {
            mac.update(std::slice::from_ref(b));
        }
        assert!(mac.verify(&tag).is_ok());
    }
}

#[test]
fn batch_api() {
    let vs = full_vectors();
    let keys: Vec<Key> = vs.iter().map(|(_, v)| Key::from_bytes(&key_of(v)).unwrap()).collect();
    let nonces: Vec<[u8; 16]> = vs.iter().map(|(_, v)| arr16(v, "n")).collect();
    let msgs: Vec<Vec<u8>> = vs.iter().map(|(_, v)| bytes(v, "m")).collect();
    let want: Vec<[u8; 16]> = vs.iter().map(|(_, v)| arr16(v, "tag")).collect();
    let items: Vec<Item> =
        (0..vs.len()).map(|i| Item { key: &keys[i], nonce: &nonces[i], message: &msgs[i] }).collect();
    let mut tags = vec![[0u8; 16]; items.len()];
    poly1305aes::authenticate_many(&items, &mut tags).unwrap();
    assert_eq!(tags, want);
    let mut ok = vec![false; items.len()];
    assert_eq!(poly1305aes::verify_many(&items, &tags, &mut ok), Ok(true));
    assert!(ok.iter().all(|&b| b));
    tags[7][3] ^= 0x40;
    assert_eq!(poly1305aes::verify_many(&items, &tags, &mut ok), Ok(false));
    assert_eq!(ok.iter().filter(|&&b| !b).count(), 1);
    assert!(!ok[7]);
    // mismatched lengths are an error, not a panic
    assert!(poly1305aes::authenticate_many(&items, &mut tags[..3]).is_err());
    assert!(poly1305aes::verify_many(&items, &tags, &mut ok[..1]).is_err());
}

#[test]
fn core_vectors_with_explicit_s() {
    let mut seen = 0;
    for (group, v) in vectors("poly1305aes.json") {
        if !has(&v, "s") {
            continue;
        }
        let m = bytes(&v, "m");
        let s = arr16(&v, "s");
        let tag = arr16(&v, "tag");
        let r = if has(&v, "r_clamped") { arr16(&v, "r_clamped") } else { arr16(&v, "r") };
        let mut p = Poly1305::new(&r, &s).unwrap_or_else(|e| panic!("{group}: {e}"));
        p.update(&m);
        assert_eq!(p.finalize(), tag, "{group}/{}", v["name"]);
        assert_eq!(wegman_ref::poly1305aes::poly1305(&r, &s, &m), tag);
        if has(&v, "key_r_s") {
            let key: [u8; 32] = bytes(&v, "key_r_s").try_into().unwrap();
            let mut p = Poly1305::new_rfc8439(&key);
            p.update(&m);
            assert!(p.verify(&tag).is_ok(), "{group}/{}", v["name"]);
        }
        seen += 1;
    }
    assert_eq!(seen, 24);
}

#[test]
fn invalid_r_is_rejected_with_the_rule_and_clamping_is_explicit() {
    let mut seen = 0;
    for (_, v) in vectors("poly1305aes.json") {
        if !has(&v, "expect") {
            continue;
        }
        let kr = key_of(&v);
        let err = Key::from_bytes(&kr).unwrap_err();
        assert!(matches!(err, Error::ForbiddenRBits { .. }), "{}", v["name"]);
        let msg = err.to_string();
        assert!(msg.contains("§2") && msg.contains("r["), "{msg}");
        // the explicit clamp path gives r_clamped
        let clamped = Key::from_bytes_clamped(&kr);
        assert_eq!(clamped.to_bytes()[16..], arr16(&v, "r_clamped"));
        let mut r = arr16(&v, "r");
        poly1305aes::clamp(&mut r);
        assert_eq!(r, arr16(&v, "r_clamped"));
        // the core type rejects it too
        assert!(Poly1305::new(&arr16(&v, "r"), &[0; 16]).is_err());
        seen += 1;
    }
    assert_eq!(seen, 8);
}

#[test]
fn forbidden_bits_named_exactly() {
    for byte in [3usize, 7, 11, 15] {
        for bit in 4..8 {
            let mut kr = [0u8; 32];
            kr[16 + byte] = 1 << bit;
            let e = Key::from_bytes(&kr).unwrap_err();
            assert_eq!(e, Error::ForbiddenRBits { byte, rule: wegman::RRule::TopFourBitsClear });
        }
    }
    for byte in [4usize, 8, 12] {
        for bit in 0..2 {
            let mut kr = [0u8; 32];
            kr[16 + byte] = 1 << bit;
            let e = Key::from_bytes(&kr).unwrap_err();
            assert_eq!(e, Error::ForbiddenRBits { byte, rule: wegman::RRule::BottomTwoBitsClear });
        }
    }
    // every other bit is allowed
    let mut kr = [0xffu8; 32];
    poly1305aes::clamp((&mut kr[16..]).try_into().unwrap());
    assert!(Key::from_bytes(&kr).is_ok());
    assert!(Key::from_slice(&kr[..31]).is_err());
}

#[test]
fn rustcrypto_mac_trait() {
    use digest::Mac;
    use digest::common::KeyIvInit;
    for (_, v) in full_vectors().into_iter().take(60) {
        let kr = key_of(&v);
        let n = arr16(&v, "n");
        let m = bytes(&v, "m");
        let tag = arr16(&v, "tag");
        let mut mac = <Poly1305Aes as KeyIvInit>::new(&kr.into(), &n.into());
        Mac::update(&mut mac, &m);
        assert_eq!(Mac::finalize(mac).into_bytes().as_slice(), &tag);
        let mac = <Poly1305Aes as KeyIvInit>::new_from_slices(&kr, &n).unwrap();
        assert!(mac.chain_update(&m).verify_slice(&tag).is_ok());
    }
    // new_from_slices refuses an invalid r; new() clamps
    let mut kr = [0u8; 32];
    kr[19] = 0xff;
    assert!(<Poly1305Aes as KeyIvInit>::new_from_slices(&kr, &[0; 16]).is_err());
}

#[test]
fn universal_hash_trait_on_whole_blocks() {
    use universal_hash::UniversalHash;
    let r = [0xffu8, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];
    let s = [0x11u8; 16];
    let msg: Vec<u8> = (0..96u8).map(|i| i.wrapping_mul(37)).collect();
    let mut p = Poly1305::new(&r, &s).unwrap();
    UniversalHash::update_padded(&mut p, &msg);
    let got: [u8; 16] = UniversalHash::finalize(p).into();
    assert_eq!(got, wegman_ref::poly1305aes::poly1305(&r, &s, &msg));
}

#[test]
fn debug_never_shows_key_bytes() {
    let key = Key::from_bytes_clamped(&[0xabu8; 32]);
    for text in [
        format!("{key:?}"),
        format!("{:?}", poly1305aes::ExpandedKey::new(&key)),
        format!("{:?}", Poly1305Aes::new(&key, &[0; 16])),
        format!("{:?}", Poly1305::new_rfc8439(&[0xab; 32])),
    ] {
        // 0xab is 171; neither spelling, nor the hex, may appear
        assert!(!text.contains("171") && !text.contains("0xab") && !text.contains("abab"), "{text}");
    }
}
