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
