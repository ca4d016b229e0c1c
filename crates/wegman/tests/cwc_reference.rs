//! CWC-AES against the big-integer reference model: every length 0..=600,
//! long messages, every single-bit flip rejected, random streaming splits.

use proptest::prelude::*;
use rand::{Rng, RngCore, SeedableRng};
use wegman::cwc::CwcKey;
use wegman_ref::cwc as reference;

#[test]
fn round_trip_every_length_0_to_600() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xc3c);
    for len in 0..=600usize {
        let klen = [16, 24, 32][len % 3];
        let mut k = vec![0u8; klen];
        rng.fill_bytes(&mut k);
        let mut n = [0u8; 11];
        rng.fill_bytes(&mut n);
        let mut a = vec![0u8; (len * 7) % 61];
        rng.fill_bytes(&mut a);
        let mut p = vec![0u8; len];
        rng.fill_bytes(&mut p);
        let tl = 1 + len % 16;
        let key = CwcKey::new(&k).unwrap();
        let c = key.encrypt(&n, &a, &p, tl).unwrap();
        assert_eq!(c, reference::encrypt(&k, &n, &a, &p, tl), "len {len}");
        assert_eq!(key.decrypt(&n, &a, &c, tl).unwrap(), p);
    }
}

#[test]
fn long_messages_and_all_ones() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for len in [4096 + 11, 65536 + 5, 200_003] {
        let k = [0xffu8; 32];
        let n = [0xffu8; 11];
        let mut p = vec![0u8; len];
        rng.fill_bytes(&mut p);
        for msg in [p, vec![0xffu8; len]] {
            let a = vec![0xffu8; 1000];
            let key = CwcKey::new(&k).unwrap();
            let c = key.encrypt(&n, &a, &msg, 16).unwrap();
            assert_eq!(c, reference::encrypt(&k, &n, &a, &msg, 16));
        }
    }
}

#[test]
fn streaming_in_long_random_pieces() {
    // Pieces from 0 to 3,000 bytes cross the keystream's 512-byte runs and
    // leave partial blocks between calls at every offset.
    let mut rng = rand::rngs::StdRng::seed_from_u64(512);
    for case in 0..120 {
        let k: [u8; 16] = rng.random();
        let n: [u8; 11] = rng.random();
        let a: Vec<u8> = (0..rng.random_range(0..100)).map(|_| rng.random()).collect();
        let len = if case % 4 == 0 { 512 * rng.random_range(1..8) } else { rng.random_range(0..10_000) };
        let p: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let key = CwcKey::new(&k).unwrap();
        let want = reference::encrypt(&k, &n, &a, &p, 16);
        let mut buf = p.clone();
        let mut enc = key.encryptor(&n, &a, 16).unwrap();
        let mut rest = &mut buf[..];
        while !rest.is_empty() {
            let take = rng.random_range(0..=rest.len().min(3000));
            let (piece, tail) = rest.split_at_mut(take);
            enc.update(piece).unwrap();
            rest = tail;
        }
        let tag = enc.finalize();
        assert_eq!([buf.as_slice(), tag.as_slice()].concat(), want, "case {case} len {len}");
        assert_eq!(key.decrypt(&n, &a, &want, 16).unwrap(), p, "case {case}");
    }
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for (plen, alen) in [(0usize, 0usize), (1, 0), (0, 5), (13, 12), (33, 17), (64, 24)] {
        let mut k = [0u8; 16];
        rng.fill_bytes(&mut k);
        let mut n = [0u8; 11];
        rng.fill_bytes(&mut n);
        let mut a = vec![0u8; alen];
        rng.fill_bytes(&mut a);
        let mut p = vec![0u8; plen];
        rng.fill_bytes(&mut p);
        let key = CwcKey::new(&k).unwrap();
        let c = key.encrypt(&n, &a, &p, 16).unwrap();
        for bit in 0..c.len() * 8 {
            // ciphertext and tag
            let mut bad = c.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(key.decrypt(&n, &a, &bad, 16).is_err(), "ct/tag bit {bit}");
        }
        for bit in 0..88 {
            let mut bn = n;
            bn[bit / 8] ^= 1 << (bit % 8);
            assert!(key.decrypt(&bn, &a, &c, 16).is_err(), "nonce bit {bit}");
        }
        for bit in 0..alen * 8 {
            let mut ba = a.clone();
            ba[bit / 8] ^= 1 << (bit % 8);
            assert!(key.decrypt(&n, &ba, &c, 16).is_err(), "aad bit {bit}");
        }
        // Moving a byte across the A/σ boundary keeps the concatenation
        // A || σ the same, so only the lengths block (and where the padding
        // falls) tells the two apart: still rejected.
        if alen > 0 {
            // A's last byte becomes σ's first.
            let mut a2 = a.clone();
            let mv = a2.pop().unwrap();
            let c2 = [&[mv][..], &c].concat();
            assert!(key.decrypt(&n, &a2, &c2, 16).is_err(), "A -> M, alen {alen}");
            assert!(reference::decrypt(&k, &n, &a2, &c2, 16).is_none(), "A -> M, alen {alen}");
        }
        if plen > 0 {
            // σ's first byte becomes A's last.
            let a2 = [&a[..], &c[..1]].concat();
            let c2 = &c[1..];
            assert!(key.decrypt(&n, &a2, c2, 16).is_err(), "M -> A, plen {plen}");
            assert!(reference::decrypt(&k, &n, &a2, c2, 16).is_none(), "M -> A, plen {plen}");
        }
    }
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    assert!(CwcKey::new(&[0u8; 15]).is_err());
    assert!(CwcKey::new(&[0u8; 33]).is_err());
    let key = CwcKey::new(&[0u8; 16]).unwrap();
    assert!(key.encrypt(&[0; 11], b"", b"x", 0).is_err());
    assert!(key.encrypt(&[0; 11], b"", b"x", 17).is_err());
    assert!(key.decrypt(&[0; 11], b"", &[0u8; 15], 16).is_err());
    assert!(key.decrypt(&[0; 11], b"", &[], 16).is_err());
    assert!(format!("{key:?}").contains("128 bits"));
    let e = CwcKey::new(&[0u8; 20]).unwrap_err().to_string();
    assert!(e.contains("16, 24 or 32"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn streaming_matches_reference(
        k in proptest::collection::vec(any::<u8>(), 16..=16),
        n in any::<[u8; 11]>(),
        a in proptest::collection::vec(any::<u8>(), 0..80),
        p in proptest::collection::vec(any::<u8>(), 0..700),
        step in 1usize..64,
        tl in 1usize..=16,
    ) {
        let key = CwcKey::new(&k).unwrap();
        let want = reference::encrypt(&k, &n, &a, &p, tl);
        let mut buf = p.clone();
        let mut enc = key.encryptor(&n, &a, tl).unwrap();
        for piece in buf.chunks_mut(step) {
            enc.update(piece).unwrap();
        }
        let tag = enc.finalize();
        prop_assert_eq!([buf.as_slice(), tag.as_slice()].concat(), want);
    }
}
