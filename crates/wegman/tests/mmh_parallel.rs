//! MMH/NMH on several threads (`MacKey::mac_parallel`, `verify_parallel`):
//! the one-thread tag (which the vector and reference tests pin) for every
//! algorithm and distinct backend past the 8 MiB where threads start.

mod common;

use std::num::NonZeroUsize;

use wegman::Error;
use wegman::mmh::{Alg, MacKey};

#[test]
fn the_one_thread_tag_for_every_algorithm() {
    let m: Vec<u8> = (0..(9usize << 20) + 77).map(|i| (i.wrapping_mul(40503) >> 5) as u8).collect();
    let algs: &[Alg] = if common::emulated() { &[Alg::Mmh32, Alg::Mmh64x2] } else { &Alg::ALL };
    for &alg in algs {
        for features in common::distinct_levels(|b| (b.mmh32, b.mmh64)) {
            let key = MacKey::with_features(alg, &[0x21; 32], features);
            let want = key.mac(&[4; 16], &m).unwrap();
            for t in [1, 2, 3] {
                let got = key.mac_parallel(&[4; 16], &m, NonZeroUsize::new(t).unwrap()).unwrap();
                assert_eq!(got, want, "{alg:?} {features:?} {t} threads");
            }
            let two = NonZeroUsize::new(2).unwrap();
            assert!(key.verify_parallel(want.as_bytes(), &[4; 16], &m, two).is_ok());
            let mut bad = want.as_bytes().to_vec();
            bad[0] ^= 1;
            assert_eq!(key.verify_parallel(&bad, &[4; 16], &m, two), Err(Error::TagMismatch));
        }
    }
}

/// The free functions give `mmh::mac`'s tag on both sides of the length at
/// which threads start, and verify it (a changed byte fails).
#[test]
fn the_free_functions_around_the_threshold() {
    let key = [0x5au8; 32];
    let nonce = [7u8; 16];
    let edge = wegman::parallel::MIN_PARALLEL_BYTES;
    let message: Vec<u8> = (0..edge + 300).map(|i| (i * 31 % 251) as u8).collect();
    for alg in [Alg::Mmh32, Alg::Mmh64x2] {
        for len in [edge - 1, edge, edge + 300] {
            let m = &message[..len];
            let want = wegman::mmh::mac(alg, &key, &nonce, m).unwrap();
            for threads in [1, 3] {
                let threads = NonZeroUsize::new(threads).unwrap();
                let got = wegman::mmh::mac_parallel(alg, &key, &nonce, m, threads).unwrap();
                assert_eq!(got.as_bytes(), want.as_bytes(), "{alg:?} {len} {threads}");
                assert!(wegman::mmh::verify_parallel(alg, &key, want.as_bytes(), &nonce, m, threads).is_ok());
                let mut bad = m.to_vec();
                bad[len / 2] ^= 1;
                let refused = wegman::mmh::verify_parallel(alg, &key, want.as_bytes(), &nonce, &bad, threads);
                assert_eq!(refused, Err(Error::TagMismatch));
            }
        }
    }
}
