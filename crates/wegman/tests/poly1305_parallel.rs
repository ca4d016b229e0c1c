//! Poly1305-AES on several threads (`authenticate_parallel`,
//! `ExpandedKey::authenticate_parallel`, the `verify` forms): the same tag
//! as the one-thread call and the reference, for every backend this CPU
//! has, at lengths around the point where threads start (8 MiB) and the
//! 256 KiB runs, with every thread count from 1 to 9 and far more threads
//! than runs. (The combination itself is tested at every cut of short
//! messages, 1–64 runs, empty runs, in `src/poly1305aes/parallel.rs`.)

mod common;

use std::num::NonZeroUsize;

use common::emulated;
use rand::{RngCore, SeedableRng};
use wegman::poly1305aes::{ExpandedKey, Key, authenticate, authenticate_parallel, verify, verify_parallel};
use wegman_ref::poly1305aes as reference;

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// AES_k(n): the reference's Poly1305 takes s, the API takes the nonce.
fn pad(key: &[u8; 32], nonce: &[u8; 16]) -> [u8; 16] {
    reference::aes128(key[..16].try_into().unwrap(), nonce)
}

#[test]
fn long_messages_match_the_reference_on_every_backend_and_thread_count() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x22);
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    let key = Key::from_bytes_clamped(&bytes);
    let kr: [u8; 32] = key.to_bytes();
    let nonce = [0x5cu8; 16];
    // Just under, at and past the 8 MiB where a second thread starts, a
    // final partial block, and a final partial 256 KiB run.
    // Under an emulator (the CPU-class runs) only the last, the others
    // natively.
    let lens = [(8 << 20) - 1, 8 << 20, (8 << 20) + 17, (9 << 20) + 4096 + 3];
    for len in lens.into_iter().skip(if emulated() { 3 } else { 0 }) {
        let mut message = vec![0u8; len];
        rng.fill_bytes(&mut message);
        // The reference takes about 0.5 s a MiB (17 s for the four
        // lengths), minutes under an emulator: it checks the one-thread
        // call natively at the length past the threshold with a final
        // partial block. Elsewhere that call (held to the reference at long
        // random lengths by tests/poly1305_backends.rs) is what the
        // parallel calls must equal.
        let want = authenticate(&key, &nonce, &message);
        if !emulated() && len == (8 << 20) + 17 {
            let r: [u8; 16] = kr[16..].try_into().unwrap();
            assert_eq!(want, reference::poly1305(&r, &pad(&kr, &nonce), &message), "len {len}");
        }
        let counts: &[usize] = if emulated() { &[2, 1000] } else { &[1, 2, 3, 9, 1000] };
        for &t in counts {
            assert_eq!(authenticate_parallel(&key, &nonce, &message, threads(t)), want, "len {len}, {t} threads");
        }
        for features in common::distinct_levels(|b| b.poly1305) {
            let expanded = ExpandedKey::with_features(&key, features);
            for t in [1, 2, 5].into_iter().skip(usize::from(emulated())) {
                let got = expanded.authenticate_parallel(&nonce, &message, threads(t));
                assert_eq!(got, want, "{:?}, len {len}, {t} threads", expanded.platform());
            }
        }
    }
}

#[test]
fn verify_parallel_accepts_the_tag_and_refuses_any_flipped_bit() {
    let key = Key::from_bytes_clamped(&[0xa5; 32]);
    let expanded = ExpandedKey::new(&key);
    let nonce = [9u8; 16];
    let mut message = vec![0xffu8; (12 << 20) + 5];
    let tag = authenticate(&key, &nonce, &message);
    assert!(verify_parallel(&key, &tag, &nonce, &message, threads(4)).is_ok());
    assert!(expanded.verify_parallel(&tag, &nonce, &message, threads(4)).is_ok());
    for bit in [0, 7, 64, 127] {
        let mut bad = tag;
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(verify_parallel(&key, &bad, &nonce, &message, threads(2)).is_err());
        assert!(expanded.verify_parallel(&bad, &nonce, &message, threads(2)).is_err());
    }
    // A change in the second thread's share, in the last run and in the
    // final partial block.
    for at in [(6 << 20) + 3, (12 << 20) - 1, (12 << 20) + 4] {
        message[at] ^= 0x80;
        assert!(verify_parallel(&key, &tag, &nonce, &message, threads(2)).is_err(), "byte {at}");
        assert!(expanded.verify_parallel(&tag, &nonce, &message, threads(3)).is_err(), "byte {at}");
        assert!(verify(&key, &tag, &nonce, &message).is_err());
        message[at] ^= 0x80;
    }
}
