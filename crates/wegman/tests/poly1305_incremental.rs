//! `Incremental` (a Poly1305-AES tag updated after an edit or an append)
//! against the reference computed from scratch: edits of every length at
//! every offset of short messages (block-aligned and not, at both ends,
//! into and across the final partial chunk), random edits and appends in
//! long sequences, on every backend this CPU has; and its refusals.

mod common;

use std::num::NonZeroUsize;

use common::{emulated, scaled};
use rand::{Rng, RngCore, SeedableRng};
use wegman::Error;
use wegman::poly1305aes::{Incremental, Key, authenticate};
use wegman_ref::poly1305aes as reference;

/// The reference's tag of `message` under `key` and `nonce`.
fn want(kr: &[u8; 32], nonce: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let r: [u8; 16] = kr[16..].try_into().unwrap();
    reference::poly1305(&r, &reference::aes128(kr[..16].try_into().unwrap(), nonce), message)
}

/// The largest r §2 allows and an all-0xff message: the most carries.
fn hard_key() -> Key {
    let mut kr = [0xffu8; 32];
    for i in [19, 23, 27, 31] {
        kr[i] = 0x0f;
    }
    for i in [20, 24, 28] {
        kr[i] = 0xfc;
    }
    Key::from_bytes(&kr).unwrap()
}

#[test]
fn every_edit_of_short_messages() {
    let key = hard_key();
    let kr = key.to_bytes();
    let nonce = [3u8; 16];
    let features = common::distinct_levels(|b| b.poly1305);
    for len in [0usize, 1, 15, 16, 17, 33, 47, 48, 64, 100] {
        let old = vec![0xffu8; len];
        for offset in 0..=len {
            for n in (0..=len - offset).filter(|&n| !emulated() || n <= 17 || n == len - offset) {
                let mut message = old.clone();
                // 0x00 against 0xff: each changed byte's Δ is the largest.
                let new = vec![0u8; n];
                message[offset..offset + n].copy_from_slice(&new);
                let expected = want(&kr, &nonce, &message);
                for &f in &features {
                    let mut kept = Incremental::with_features(&key, &old, f);
                    kept.replace(offset as u64, &old[offset..offset + n], &new).unwrap();
                    assert_eq!(kept.tag(&nonce), expected, "{f:?} len {len} offset {offset} n {n}");
                    assert!(kept.verify(&expected, &nonce).is_ok());
                }
            }
        }
    }
}

#[test]
fn random_edits_and_appends_in_a_row() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0013_0522);
    let mut kr = [0u8; 32];
    rng.fill_bytes(&mut kr);
    let key = Key::from_bytes_clamped(&kr);
    let kr = key.to_bytes();
    for &f in &common::distinct_levels(|b| b.poly1305) {
        let mut message = vec![0u8; rng.random_range(0..5000)];
        rng.fill_bytes(&mut message);
        let mut kept = Incremental::with_features(&key, &message, f);
        for step in 0..scaled(300) {
            if rng.random_bool(0.3) && message.len() < 12_000 {
                // Appends from 0 bytes to past the backends' vector thresholds.
                let mut more = vec![0u8; rng.random_range(0..3000)];
                rng.fill_bytes(&mut more);
                kept.append(&more);
                message.extend_from_slice(&more);
            } else if !message.is_empty() {
                let offset = rng.random_range(0..message.len());
                let n = rng.random_range(0..=(message.len() - offset).min(600));
                let mut new = vec![0u8; n];
                rng.fill_bytes(&mut new);
                kept.replace(offset as u64, &message[offset..offset + n], &new).unwrap();
                message[offset..offset + n].copy_from_slice(&new);
            }
            assert_eq!(kept.len(), message.len() as u64);
            let nonce: [u8; 16] = rng.random();
            assert_eq!(kept.tag(&nonce), want(&kr, &nonce, &message), "{f:?} step {step} len {}", message.len());
        }
    }
}

/// (Against the one-thread `authenticate`, which the other tests check
/// against the reference: the reference takes seconds on 8 MiB.)
#[test]
fn built_on_several_threads_it_is_the_same_state() {
    let key = hard_key();
    let mut message = vec![0xffu8; (8 << 20) + 7];
    let nonce = [8u8; 16];
    let mut kept = Incremental::new_parallel(&key, &message, NonZeroUsize::new(3).unwrap());
    assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
    // A 4 KiB edit deep inside, across a block boundary.
    let new = vec![0x11u8; 4096];
    kept.replace(5_000_003, &message[5_000_003..5_004_099], &new).unwrap();
    message[5_000_003..5_004_099].copy_from_slice(&new);
    assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
}

#[test]
fn bad_ranges_are_refused_and_change_nothing() {
    let key = hard_key();
    let message = vec![1u8; 40];
    let mut kept = Incremental::new(&key, &message);
    let nonce = [0u8; 16];
    let before = kept.tag(&nonce);
    assert_eq!(
        kept.replace(38, &[1, 1, 1], &[2, 2, 2]),
        Err(Error::OutOfRange { offset: 38, len: 3, message_len: 40 })
    );
    assert_eq!(
        kept.replace(u64::MAX, &[1], &[2]),
        Err(Error::OutOfRange { offset: u64::MAX, len: 1, message_len: 40 })
    );
    assert_eq!(kept.replace(0, &[1, 1], &[2]), Err(Error::InvalidLength { what: "replacement", expected: 2, got: 1 }));
    assert_eq!(kept.replace(40, &[], &[]), Ok(()));
    assert_eq!(kept.tag(&nonce), before);
    assert!(kept.verify(&before, &[1u8; 16]).is_err());
    assert!(!format!("{kept:?}").contains("h:"));
}

/// A sealed state opens to the same state (same tags, further edits
/// right), under the same key, purpose key, nonce and associated data only.
#[test]
fn a_sealed_state_opens_only_as_it_was_sealed() {
    use wegman::cwc::CwcKey;
    let key = hard_key();
    let kr = key.to_bytes();
    let mut message = vec![0xffu8; 1000 + 7];
    let kept = Incremental::new(&key, &message);
    let kek = CwcKey::new(&[0x11; 16]).unwrap();
    let sealed = kept.seal_state(&kek, &[1; 11], b"file a, line 3");
    assert_eq!(sealed.len(), 56 + 16);
    let mut back = Incremental::open_state(&key, &kek, &[1; 11], b"file a, line 3", &sealed).unwrap();
    let nonce = [9u8; 16];
    assert_eq!(back.tag(&nonce), kept.tag(&nonce));
    back.replace(500, &message[500..510], &[0; 10]).unwrap();
    message[500..510].fill(0);
    back.append(b"more");
    message.extend_from_slice(b"more");
    assert_eq!(back.tag(&nonce), want(&kr, &nonce, &message));
    // Anything else is refused.
    let refuse = |r: Result<Incremental, Error>| assert_eq!(r.err(), Some(Error::TagMismatch));
    refuse(Incremental::open_state(&key, &kek, &[2; 11], b"file a, line 3", &sealed));
    refuse(Incremental::open_state(&key, &kek, &[1; 11], b"file b, line 3", &sealed));
    refuse(Incremental::open_state(&key, &CwcKey::new(&[0x12; 16]).unwrap(), &[1; 11], b"file a, line 3", &sealed));
    for i in [0, 20, 55, 60, 71] {
        let mut bad = sealed.clone();
        bad[i] ^= 1;
        refuse(Incremental::open_state(&key, &kek, &[1; 11], b"file a, line 3", &bad));
    }
    refuse(Incremental::open_state(&key, &kek, &[1; 11], b"file a, line 3", &sealed[..40]));
}
