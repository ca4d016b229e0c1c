//! Every CWC-HASH backend this CPU has (`Features::every_level`) against the
//! reference model through the whole AEAD: runs of every length around the
//! IFMA backend's 192-byte threshold and 96-byte step, in associated data
//! and in the message, all-0xff data, long messages, and streaming splits.
//! Each key checks its backend's label.

use rand::{Rng, RngCore, SeedableRng};
use wegman::cpu::Features;
use wegman::cwc::CwcKey;
use wegman::platform::Platform;
use wegman_ref::cwc as reference;

fn expected(features: Features) -> Platform {
    if features.avx512ifma().is_some() { Platform::Avx512Ifma } else { Platform::Portable }
}

#[test]
fn every_backend_at_run_lengths_around_its_thresholds() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(768);
    for features in Features::detect().every_level() {
        for round in 0..6 {
            let k: Vec<u8> =
                (0..[16, 24, 32][round % 3]).map(|_| if round == 0 { 0xff } else { rng.random() }).collect();
            let key = CwcKey::with_features(&k, features).unwrap();
            assert_eq!(key.platform(), expected(features));
            let n: [u8; 11] = rng.random();
            // message lengths across 150..260 and 700..900 (every one) and multiples of 96 +- 1
            let lens: Vec<usize> =
                (150..260).chain(700..900).chain((1..40).flat_map(|g| [96 * g - 1, 96 * g, 96 * g + 1])).collect();
            for &len in &lens {
                let fill = round == 0 || len % 7 == 0;
                let m: Vec<u8> = (0..len).map(|_| if fill { 0xff } else { rng.random() }).collect();
                let a: Vec<u8> =
                    (0..[0, 5, 800, 1000][len % 4]).map(|_| if fill { 0xff } else { rng.random() }).collect();
                let want = reference::encrypt(&k, &n, &a, &m, 16);
                let got = key.encrypt(&n, &a, &m, 16).unwrap();
                assert_eq!(got, want, "{:?} key {} len {len} aad {}", expected(features), k.len(), a.len());
                assert_eq!(key.decrypt(&n, &a, &got, 16).unwrap(), m);
            }
        }
    }
}

#[test]
fn every_backend_long_messages_and_streaming() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1 << 20);
    for features in Features::detect().every_level() {
        let k: [u8; 16] = rng.random();
        let key = CwcKey::with_features(&k, features).unwrap();
        let n: [u8; 11] = rng.random();
        for len in [65536 + 7, (1 << 20) + 17] {
            let mut m = vec![0u8; len];
            rng.fill_bytes(&mut m);
            let a = vec![0xffu8; 3000];
            let want = reference::encrypt(&k, &n, &a, &m, 16);
            assert_eq!(key.encrypt(&n, &a, &m, 16).unwrap(), want, "{:?} len {len}", expected(features));
            let mut buf = m.clone();
            let mut enc = key.encryptor(&n, &a, 16).unwrap();
            let mut rest = &mut buf[..];
            while !rest.is_empty() {
                let take = rng.random_range(0..=rest.len().min(5000));
                let (piece, tail) = rest.split_at_mut(take);
                enc.update(piece).unwrap();
                rest = tail;
            }
            let tag = enc.finalize();
            assert_eq!([buf.as_slice(), tag.as_slice()].concat(), want, "{:?} streamed len {len}", expected(features));
        }
    }
}
