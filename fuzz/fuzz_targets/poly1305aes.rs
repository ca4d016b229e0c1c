//! Poly1305-AES on every backend against the big-integer reference model
//! (`wegman_ref::poly1305aes`).
//!
//! Input: `flags, repeat, flip, k[16], r[16], nonce[16]`, split points,
//! the message ([`wegman_fuzz::PolyCase`]). `flags & 1` imports `k || r` as
//! it is (`Key::from_bytes`, which must refuse exactly the r that §2
//! forbids), otherwise clamped (`Key::from_bytes_clamped`, which must clear
//! exactly the 22 forbidden bits).
//!
//! The reference's tag must come out of: the one-shot `authenticate`; on
//! each backend this CPU has (portable, AES-NI, AVX2, IFMA) and the §4
//! float64 one, streaming `Poly1305Aes` and the `Poly1305` core (pad
//! AES_k(n) from the reference) fed in the fuzzer's pieces, `ExpandedKey`
//! one-shot and streaming. For messages up to 512 bytes, a batch of nine
//! items (eight of one length under eight keys: the VAES short run or the
//! IFMA lanes, then one odd item) must give each item's one-shot tag on
//! every backend. Every verify must accept the right tag and refuse it with
//! bit `flip` flipped.
//!
//! Fails on: a carry or reduction slip in a backend (limb bounds, the final
//! subtraction of p, the padded last block), a streaming state that depends
//! on where the message was cut (the SIMD backends buffer 64-byte groups),
//! a batch lane that mixes up keys or pads, a verify that accepts a wrong
//! tag, a key import that lets a forbidden bit through.

#![no_main]

use libfuzzer_sys::fuzz_target;
use wegman::cpu::Features;
use wegman::platform::Backends;
use wegman::poly1305aes::{
    ExpandedKey, Item, Key, Poly1305, Poly1305Aes, authenticate, authenticate_many_with, check_r, clamp, verify,
    verify_many,
};
use wegman_fuzz::{PolyCase, flip_bit, levels, pieces};
use wegman_ref::poly1305aes as reference;

/// The bits of r that §2 allows to be set: r[3], r[7], r[11], r[15] below
/// 16, r[4], r[8], r[12] multiples of 4.
const R_ALLOWED: [u8; 16] =
    [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

/// The label the best backend of `features` must report: what the
/// library's one report of its choices says (`Backends::for_features`; the
/// table of CPU classes in the core's unit tests pins that report).
fn expected(features: Features) -> &'static str {
    Backends::for_features(features).poly1305
}

fn tag16(t: &[u8]) -> [u8; 16] {
    t.try_into().expect("16 bytes")
}

/// Nine items: eight messages of one length under eight related keys and
/// nonces, then a shorter one, on every backend and through `verify_many`
/// with one tag damaged. Each tag must equal the one-shot tag of its item
/// (checked against the reference for item 0 on this input, and for every
/// other key on the inputs that carry it).
fn batch(k: &[u8; 16], r: &[u8; 16], nonce: &[u8; 16], m: &[u8], flip: usize) {
    let keys: Vec<Key> = (0..9u8)
        .map(|i| {
            let (mut ki, mut ri) = (*k, *r);
            ki[0] ^= i;
            ri[0] ^= i; // r[0] has no forbidden bits
            Key::from_parts(ki, ri).expect("r stays valid")
        })
        .collect();
    let nonces: Vec<[u8; 16]> = (0..9u8)
        .map(|i| {
            let mut n = *nonce;
            n[15] ^= i;
            n
        })
        .collect();
    let msgs: Vec<&[u8]> = (0..9).map(|i| if i < 8 { m } else { &m[..m.len() / 2] }).collect();
    let items: Vec<Item> = (0..9).map(|i| Item { key: &keys[i], nonce: &nonces[i], message: msgs[i] }).collect();
    let want: Vec<[u8; 16]> = items.iter().map(|it| authenticate(it.key, it.nonce, it.message)).collect();
    for features in levels().into_iter().chain([Features::float64()]) {
        let mut tags = vec![[0u8; 16]; 9];
        authenticate_many_with(&items, &mut tags, features).expect("lengths match");
        assert_eq!(tags, want, "batch on {:?}", expected(features));
    }
    let mut ok = [false; 9];
    assert_eq!(verify_many(&items, &want, &mut ok), Ok(true));
    let bad = flip % 9;
    let mut damaged = want.clone();
    damaged[bad] = tag16(&flip_bit(&want[bad], flip));
    assert_eq!(verify_many(&items, &damaged, &mut ok), Ok(false));
    assert!(ok.iter().enumerate().all(|(i, &v)| v == (i != bad)), "verify_many verdicts {ok:?}");
}

fuzz_target!(|data: &[u8]| {
    let case = PolyCase::read(data);
    let kr = case.kr();
    let PolyCase { flags, flip, k, r: r_in, nonce, splits, message } = case;
    let m = &message[..];
    let masked: [u8; 16] = core::array::from_fn(|i| r_in[i] & R_ALLOWED[i]);
    let mut clamped = r_in;
    clamp(&mut clamped);
    assert_eq!(clamped, masked, "clamp");
    let valid = masked == r_in;
    assert_eq!(reference::r_is_valid(&r_in), valid, "the reference's §2 check");
    assert_eq!(check_r(&r_in).is_ok(), valid, "check_r");
    let key = if flags & 1 == 1 {
        match Key::from_bytes(&kr) {
            Ok(key) => {
                assert!(valid, "Key::from_bytes accepted a forbidden r");
                key
            }
            Err(_) => {
                assert!(!valid, "Key::from_bytes refused a valid r");
                return;
            }
        }
    } else {
        Key::from_bytes_clamped(&kr)
    };
    let r: [u8; 16] = key.to_bytes()[16..].try_into().expect("16 bytes");
    assert_eq!(r, masked, "the key's r");

    let want = reference::poly1305aes(&k, &r, &nonce, m);
    let bad = tag16(&flip_bit(&want, flip));
    assert_eq!(authenticate(&key, &nonce, m), want, "authenticate");
    assert!(verify(&key, &want, &nonce, m).is_ok(), "verify refused the right tag");
    assert!(verify(&key, &bad, &nonce, m).is_err(), "verify accepted a wrong tag");

    let s = reference::aes128(&k, &nonce);
    let parts = pieces(m, &splits);
    for features in levels().into_iter().chain([Features::float64()]) {
        let label = expected(features);
        let mut mac = Poly1305Aes::with_features(&key, &nonce, features);
        assert_eq!(mac.platform().name(), label);
        parts.iter().for_each(|p| mac.update(p));
        assert!(mac.clone().verify(&bad).is_err(), "streaming verify accepted a wrong tag on {label:?}");
        assert_eq!(mac.finalize(), want, "streaming on {label:?}");

        let mut core = Poly1305::with_features(&r, &s, features).expect("r is valid");
        parts.iter().for_each(|p| core.update(p));
        assert_eq!(core.finalize(), want, "Poly1305 core on {label:?}");

        let ek = ExpandedKey::with_features(&key, features);
        assert_eq!(ek.platform().name(), label);
        assert_eq!(ek.authenticate(&nonce, m), want, "ExpandedKey on {label:?}");
        assert!(ek.verify(&want, &nonce, m).is_ok(), "ExpandedKey refused the right tag on {label:?}");
        assert!(ek.verify(&bad, &nonce, m).is_err(), "ExpandedKey accepted a wrong tag on {label:?}");
        let mut st = ek.start(&nonce);
        parts.iter().for_each(|p| st.update(p));
        assert_eq!(st.finalize(), want, "ExpandedKey streaming on {label:?}");
    }
    if m.len() <= 512 {
        batch(&k, &r, &nonce, m, flip);
    }
});
