//! Every MMH backend this CPU has (`Features::every_level`) against the
//! big-integer reference model, through `MacKey` (the tree, every level's
//! key, the final AES): every length 0..=4096 for each algorithm, all-0xff
//! messages, random lengths up to 1 MiB + 17, and streaming with random
//! splits. Each case checks the backend's label too, so a test cannot pass
//! on the portable code while claiming a SIMD one.

mod common;

use rand::{Rng, RngCore, SeedableRng};
use wegman::cpu::Features;
use wegman::mmh::{Alg, MacKey};
use wegman::platform::Backends;
use wegman_ref::mmh as reference;

/// The label a key of `alg` must report on `features`: what the library's
/// one report of its choices says (`Backends::for_features`; the table of
/// CPU classes in the core's unit tests pins that report).
fn expected(alg: Alg, features: Features) -> &'static str {
    let b = Backends::for_features(features);
    if alg.word_bytes() == 4 { b.mmh32 } else { b.mmh64 }
}

fn key_on(alg: Alg, key: &[u8; 32], features: Features) -> MacKey {
    let k = MacKey::with_features(alg, key, features);
    assert_eq!(k.platform().name(), expected(alg, features), "{alg}");
    k
}

#[test]
fn every_length_0_to_4096_every_alg_every_backend() {
    for features in common::distinct_levels(|b| (b.mmh32, b.mmh64)) {
        for alg in Alg::ALL {
            let mut rng = rand::rngs::StdRng::seed_from_u64(4096);
            let key: [u8; 32] = rng.random();
            let mk = key_on(alg, &key, features);
            let mut m = vec![0u8; 4096];
            rng.fill_bytes(&mut m);
            for len in 0..=4096usize {
                // every length to 1100, then every 7th (all block and level
                // boundaries of every algorithm lie on or near them)
                if len > 1100 && len % 7 != 0 && len != 4096 {
                    continue;
                }
                let nonce: [u8; 16] = rng.random();
                let want = reference::mac(alg.name(), &key, &nonce, &m[..len]).unwrap();
                assert_eq!(
                    mk.mac(&nonce, &m[..len]).unwrap().as_bytes(),
                    want,
                    "{alg} {:?} len {len}",
                    expected(alg, features)
                );
            }
        }
    }
}

#[test]
fn all_ones_messages_and_long_random_lengths() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    for features in common::distinct_levels(|b| (b.mmh32, b.mmh64)) {
        for alg in Alg::ALL {
            let key: [u8; 32] = rng.random();
            let mk = key_on(alg, &key, features);
            let nonce: [u8; 16] = rng.random();
            for len in [127usize, 128, 129, 4095, 4096, 4097, 65536 + 3] {
                let m = vec![0xffu8; len];
                let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
                assert_eq!(mk.mac(&nonce, &m).unwrap().as_bytes(), want, "{alg} all-ones len {len}");
            }
            let len = if alg == Alg::Mmh32 { (1 << 20) + 17 } else { rng.random_range(100_000..300_000) };
            let mut m = vec![0u8; len];
            rng.fill_bytes(&mut m);
            let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
            assert_eq!(mk.mac(&nonce, &m).unwrap().as_bytes(), want, "{alg} random len {len}");
            // the same message streamed in random pieces
            let mut s = mk.start(&nonce);
            let mut rest = &m[..];
            while !rest.is_empty() {
                let n = rng.random_range(0..=rest.len().min(5000));
                s.update(&rest[..n]).unwrap();
                rest = &rest[n..];
            }
            assert_eq!(s.finalize().unwrap().as_bytes(), want, "{alg} streamed len {len}");
        }
    }
}

#[test]
fn one_shot_messages_shorter_than_a_block() {
    // mmh::mac computes these from level 0's key alone, AES schedules fused
    // with AES-NI: every length below one block, every algorithm, random
    // keys and all-0xff messages, against the reference (and verify).
    let mut rng = rand::rngs::StdRng::seed_from_u64(128);
    for alg in Alg::ALL {
        for len in 0..alg.block_bytes() {
            for i in 0..12 {
                let key: [u8; 32] = if i == 0 { [0xff; 32] } else { rng.random() };
                let nonce: [u8; 16] = rng.random();
                let m: Vec<u8> = if i % 2 == 0 { vec![0xff; len] } else { (0..len).map(|_| rng.random()).collect() };
                let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
                let tag = wegman::mmh::mac(alg, &key, &nonce, &m).unwrap();
                assert_eq!(tag.as_bytes(), want, "{alg} len {len} key {i}");
                assert!(wegman::mmh::verify(alg, &key, &want, &nonce, &m).is_ok());
            }
        }
    }
}
