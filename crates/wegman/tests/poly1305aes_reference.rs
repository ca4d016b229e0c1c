//! Differential tests: the fast paths against the big-integer reference
//! model (wegman-ref), at every length 0..=2048, long messages, adversarial
//! all-0xff inputs and random split points.

mod common;

use proptest::prelude::*;
use rand::{Rng, RngCore, SeedableRng};
use wegman::poly1305aes::{self, Key, Poly1305, Poly1305Aes, clamp};
use wegman_ref::poly1305aes as reference;

/// r with every bit §2 allows set: the largest limbs the arithmetic sees.
const R_MAX: [u8; 16] =
    [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

fn random_key(rng: &mut impl RngCore) -> ([u8; 16], [u8; 16]) {
    let mut k = [0u8; 16];
    let mut r = [0u8; 16];
    rng.fill_bytes(&mut k);
    rng.fill_bytes(&mut r);
    clamp(&mut r);
    (k, r)
}

fn key(k: &[u8; 16], r: &[u8; 16]) -> Key {
    Key::from_parts(*k, *r).unwrap()
}

#[test]
fn every_length_0_to_2048_random_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1305);
    for len in common::lengths(2048, 300) {
        let (k, r) = random_key(&mut rng);
        let mut n = [0u8; 16];
        rng.fill_bytes(&mut n);
        let mut m = vec![0u8; len];
        rng.fill_bytes(&mut m);
        let want = reference::poly1305aes(&k, &r, &n, &m);
        assert_eq!(poly1305aes::authenticate(&key(&k, &r), &n, &m), want, "len {len}");
    }
}

#[test]
fn one_block_messages_many_keys() {
    // authenticate() computes messages of at most 16 bytes straight from the
    // bytes (one block, no backend state): 500 random keys per length, and
    // all-0xff / all-zero messages under the largest r.
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for len in 0..=16usize {
        for i in 0..500 {
            let (k, mut r) = random_key(&mut rng);
            if i % 5 == 0 {
                r = R_MAX;
            }
            let mut n = [0u8; 16];
            rng.fill_bytes(&mut n);
            let mut m = vec![[0u8, 0xff][i % 2]; len];
            if i % 3 == 0 {
                rng.fill_bytes(&mut m);
            }
            let want = reference::poly1305aes(&k, &r, &n, &m);
            assert_eq!(poly1305aes::authenticate(&key(&k, &r), &n, &m), want, "len {len} key {i}");
        }
    }
}

#[test]
fn adversarial_all_ones_every_length_and_extreme_r() {
    // All-0xff messages with the largest allowed r and s = ff..ff push every
    // limb to its bound and make the final addition wrap.
    for r in [R_MAX, [0u8; 16], {
        let mut one = [0u8; 16];
        one[0] = 1;
        one
    }] {
        for s in [[0xffu8; 16], [0u8; 16]] {
            for len in common::lengths(600, 300) {
                let m = vec![0xffu8; len];
                let mut p = Poly1305::new(&r, &s).unwrap();
                p.update(&m);
                assert_eq!(p.finalize(), reference::poly1305(&r, &s, &m), "len {len} r {r:02x?}");
            }
        }
    }
}

#[test]
fn long_messages() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    for len in [4096 + 15, 16384, 65536 + 1, 100_003] {
        let (k, r) = random_key(&mut rng);
        let n = [9u8; 16];
        let mut m = vec![0u8; len];
        rng.fill_bytes(&mut m);
        assert_eq!(poly1305aes::authenticate(&key(&k, &r), &n, &m), reference::poly1305aes(&k, &r, &n, &m));
        let ff = vec![0xffu8; len];
        assert_eq!(poly1305aes::authenticate(&key(&k, &R_MAX), &n, &ff), reference::poly1305aes(&k, &R_MAX, &n, &ff));
    }
}

#[test]
fn block_boundaries_with_every_split() {
    // lengths around 16-byte blocks, every two-piece split
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    for len in [0usize, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 127, 128, 129] {
        let (k, r) = random_key(&mut rng);
        let n = [3u8; 16];
        let m: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let want = reference::poly1305aes(&k, &r, &n, &m);
        let key = key(&k, &r);
        for cut in 0..=len {
            let mut mac = Poly1305Aes::new(&key, &n);
            mac.update(&m[..cut]);
            mac.update(&[]);
            mac.update(&m[cut..]);
            assert_eq!(mac.finalize(), want, "len {len} cut {cut}");
        }
    }
}

#[test]
fn invalid_r_is_never_silently_used() {
    // Every forbidden bit on its own is rejected by every constructor.
    for byte in 0..16 {
        for bit in 0..8 {
            let mut r = [0u8; 16];
            r[byte] = 1 << bit;
            let valid = reference::r_is_valid(&r);
            assert_eq!(Key::from_parts([0; 16], r).is_ok(), valid);
            assert_eq!(Poly1305::new(&r, &[0; 16]).is_ok(), valid);
            let mut c = r;
            clamp(&mut c);
            assert!(reference::r_is_valid(&c));
            assert_eq!(c == r, valid);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_splits_match_the_reference(
        k in any::<[u8; 16]>(),
        r in any::<[u8; 16]>(),
        n in any::<[u8; 16]>(),
        m in proptest::collection::vec(any::<u8>(), 0..1200),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let mut r = r;
        clamp(&mut r);
        let want = reference::poly1305aes(&k, &r, &n, &m);
        let key = key(&k, &r);
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(m.len() + 1)).collect();
        points.sort();
        let mut mac = Poly1305Aes::new(&key, &n);
        let mut at = 0;
        for p in points {
            mac.update(&m[at..p]);
            at = p;
        }
        mac.update(&m[at..]);
        prop_assert_eq!(mac.finalize(), want);
        prop_assert!(poly1305aes::verify(&key, &want, &n, &m).is_ok());
    }

    #[test]
    fn any_other_tag_is_rejected(
        k in any::<[u8; 16]>(),
        r in any::<[u8; 16]>(),
        m in proptest::collection::vec(any::<u8>(), 0..100),
        flip in 0usize..128,
    ) {
        let mut r = r;
        clamp(&mut r);
        let key = key(&k, &r);
        let mut tag = poly1305aes::authenticate(&key, &[0; 16], &m);
        tag[flip / 8] ^= 1 << (flip % 8);
        prop_assert!(poly1305aes::verify(&key, &tag, &[0; 16], &m).is_err());
    }
}
