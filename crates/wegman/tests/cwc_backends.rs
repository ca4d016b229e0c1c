//! Every CWC-HASH backend this CPU has (`Features::every_level`) against the
//! reference model through the whole AEAD: runs of every length around the
//! IFMA and AVX2 backends' 192-byte threshold and their 96- and 48-byte steps, in associated data
//! and in the message, all-0xff data, long messages, and streaming splits.
//! Each key checks its backend's label. Encryption and decryption in place
//! and from one buffer to another (`encrypt_into`, `decrypt_into`).

mod common;

use rand::{Rng, RngCore, SeedableRng};
use wegman::cpu::Features;
use wegman::cwc::CwcKey;
use wegman::platform::Backends;
use wegman_ref::cwc as reference;

/// The label the best backend of `features` must report: what the
/// library's one report of its choices says (`Backends::for_features`; the
/// table of CPU classes in the core's unit tests pins that report).
fn expected(features: Features) -> &'static str {
    Backends::for_features(features).cwc_hash
}

#[test]
fn every_backend_at_run_lengths_around_its_thresholds() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(768);
    for features in common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr)) {
        // every key size, all-0xff then random (random twice natively)
        for round in 0..if common::emulated() { 3 } else { 6 } {
            let k: Vec<u8> =
                (0..[16, 24, 32][round % 3]).map(|_| if round == 0 { 0xff } else { rng.random() }).collect();
            let key = CwcKey::with_features(&k, features).unwrap();
            assert_eq!(key.platform().name(), expected(features));
            let n: [u8; 11] = rng.random();
            // message lengths across 150..260 and 700..900 (every one) and multiples of 48 +- 1
            let lens: Vec<usize> =
                (150..260).chain(700..900).chain((1..80).flat_map(|g| [48 * g - 1, 48 * g, 48 * g + 1])).collect();
            for &len in lens.iter().filter(|&&n| common::keep(n, 0, &[12, 16, 48, 96])) {
                let fill = round == 0 || len % 7 == 0;
                let m: Vec<u8> = (0..len).map(|_| if fill { 0xff } else { rng.random() }).collect();
                let a: Vec<u8> =
                    (0..[0, 5, 800, 1000][len % 4]).map(|_| if fill { 0xff } else { rng.random() }).collect();
                let want = reference::encrypt(&k, &n, &a, &m, 16);
                let got = key.encrypt(&n, &a, &m, 16).unwrap();
                assert_eq!(got, want, "{:?} key {} len {len} aad {}", expected(features), k.len(), a.len());
                assert_eq!(key.decrypt(&n, &a, &got, 16).unwrap(), m);
                // from one buffer to another (counter mode out of place)
                let mut out = vec![0xa5u8; len];
                let tag = key.encrypt_into(&n, &a, &m, &mut out, 16).unwrap();
                assert_eq!([&out[..], tag.as_slice()].concat(), want, "encrypt_into, len {len}");
                let mut back = vec![0xa5u8; len];
                key.decrypt_into(&n, &a, &out, tag.as_slice(), &mut back).unwrap();
                assert_eq!(back, m, "decrypt_into, len {len}");
            }
        }
    }
}

#[test]
fn every_backend_long_messages_and_streaming() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1 << 20);
    for features in common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr)) {
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

#[test]
fn every_aad_length_0_to_300_against_messages_around_chunk_and_block_boundaries() {
    // A grid: associated data of every length 0..=300 (the hash's
    // first part, padded to 12 bytes) against messages around 12, 48 and 64
    // bytes and the short-decrypt and lane thresholds; encrypt against the
    // reference, decrypt back (the short path below 496 bytes), and a
    // flipped tag bit refused with the buffer zeroed.
    let mut rng = rand::rngs::StdRng::seed_from_u64(300);
    for features in common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr)) {
        let k: [u8; 16] = rng.random();
        let key = CwcKey::with_features(&k, features).unwrap();
        let n: [u8; 11] = rng.random();
        let a_all: Vec<u8> = (0..300).map(|_| rng.random()).collect();
        for m_len in [0usize, 1, 11, 12, 13, 47, 48, 49, 63, 64, 65, 191, 192, 193, 495, 496, 497] {
            let m: Vec<u8> = (0..m_len).map(|_| rng.random()).collect();
            for a_len in (0..=300).filter(|&n| common::keep(n, 48, &[12, 16])) {
                let a = &a_all[..a_len];
                let want = reference::encrypt(&k, &n, a, &m, 16);
                let got = key.encrypt(&n, a, &m, 16).unwrap();
                assert_eq!(got, want, "{:?} aad {a_len} msg {m_len}", expected(features));
                let (c, tag) = got.split_at(m_len);
                let mut buf = c.to_vec();
                key.decrypt_detached(&n, a, &mut buf, tag).unwrap();
                assert_eq!(buf, m);
                let mut bad = tag.to_vec();
                bad[(a_len + m_len) % 16] ^= 1 << (a_len % 8);
                let mut buf = c.to_vec();
                assert!(key.decrypt_detached(&n, a, &mut buf, &bad).is_err());
                assert!(buf.iter().all(|&b| b == 0), "a refused message leaves the buffer zeroed");
            }
        }
    }
}

#[test]
fn long_messages_around_6_kib_multiples_and_forgeries_of_each_part() {
    // Lengths around one, two and three 6 KiB steps (where a one-pass
    // encrypt-and-hash would cut; that trial is in the git history of
    // docs/performance.md: `git log -p docs/performance.md`), with AAD that
    // is and is not a multiple of 12 and every tag length: equal to
    // the reference in both encrypt calls, decrypted back; a flipped bit in
    // the tag, the ciphertext's first or last byte or the AAD is refused.
    const STEP: usize = 6144;
    let mut rng = rand::rngs::StdRng::seed_from_u64(6144);
    for features in common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr)) {
        let k: [u8; 32] = rng.random();
        let key = CwcKey::with_features(&k, features).unwrap();
        let n: [u8; 11] = rng.random();
        let lens = (1..=3).flat_map(|s| (STEP * s - 17..=STEP * s + 17).step_by(1)).chain([STEP * 7 + 5, 100_003]);
        for len in lens.filter(|&n| common::keep(n, 0, &[12, 16])) {
            let m: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let a: Vec<u8> = (0..[0, 7, 48, 301][len % 4]).map(|_| rng.random()).collect();
            let tl = 1 + len % 16;
            let want = reference::encrypt(&k, &n, &a, &m, tl);
            let sealed = key.encrypt(&n, &a, &m, tl).unwrap();
            assert_eq!(sealed, want, "{:?} len {len} aad {}", expected(features), a.len());
            let mut buf = m.clone();
            let tag = key.encrypt_detached(&n, &a, &mut buf, tl).unwrap();
            assert_eq!([buf.as_slice(), tag.as_slice()].concat(), want, "detached len {len}");
            assert_eq!(key.decrypt(&n, &a, &sealed, tl).unwrap(), m, "len {len}");
            for at in [0, len - 1, len + tl - 1] {
                let mut bad = sealed.clone();
                bad[at] ^= 0x80;
                assert!(key.decrypt(&n, &a, &bad, tl).is_err(), "flip at {at} of len {len} accepted");
            }
            if !a.is_empty() {
                let mut bad_a = a.clone();
                bad_a[0] ^= 1;
                assert!(key.decrypt(&n, &bad_a, &sealed, tl).is_err(), "changed AAD accepted, len {len}");
            }
        }
    }
}

#[test]
fn keys_with_their_tables_take_long_runs_in_one_loop_and_still_equal_the_reference() {
    // Once a key has offered enough long runs, its hash has the IFMA table,
    // and on a CPU with 512-bit VAES too, a run's counter mode and hash go
    // in one loop (encryption from 4 KiB, decryption of a message longer
    // than its 15 KiB chunks but for its last 1 to 192 bytes): lengths around the loop's 192-byte steps, its 4 KiB
    // threshold and the chunks, with associated data; every encrypt and
    // decrypt call against the reference, and forgeries of the ciphertext's
    // first and last byte refused with the output zeroed.
    //
    // Under emulation the portable backend stands in for the reference (the
    // other tests here hold it to the reference, natively and under the
    // portable class), so a portable hash, which has no table, is not run
    // here: under qemu this test took 14–16 s a class, nearly all of it in
    // the reference.
    let mut rng = rand::rngs::StdRng::seed_from_u64(192);
    let levels = common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr));
    for features in levels.into_iter().filter(|&f| !common::emulated() || expected(f) != "portable") {
        for key_len in [16, 24, 32] {
            let k: Vec<u8> = (0..key_len).map(|_| rng.random()).collect();
            let key = CwcKey::with_features(&k, features).unwrap();
            let portable = CwcKey::with_features(&k, Features::portable()).unwrap();
            let reference_encrypt = |n: &[u8; 11], a: &[u8], m: &[u8]| match common::emulated() {
                false => reference::encrypt(&k, n, a, m, 16),
                true => portable.encrypt(n, a, m, 16).unwrap(),
            };
            let n: [u8; 11] = rng.random();
            // Offer the key 64 KiB of long runs, so that its table is built.
            let warm = vec![0u8; 65536];
            assert_eq!(key.encrypt(&n, b"", &warm, 16).unwrap(), reference_encrypt(&n, b"", &warm));
            const CHUNK: usize = 15360;
            let lens = [4095, 4096, 4097, 4224 - 1, 4224, 4224 + 1, 4224 + 191, 4224 + 193]
                .into_iter()
                .chain((1..=3).flat_map(|c| {
                    [CHUNK * c - 1, CHUNK * c, CHUNK * c + 1, CHUNK * c + 191, CHUNK * c + 192, CHUNK * c + 193]
                }))
                .chain([100_000]);
            for len in lens {
                let m: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                let a: Vec<u8> = (0..[0, 5, 13, 300][len % 4]).map(|_| rng.random()).collect();
                let want = reference_encrypt(&n, &a, &m);
                let case = format!("{:?} key {key_len} len {len} aad {}", expected(features), a.len());
                assert_eq!(key.encrypt(&n, &a, &m, 16).unwrap(), want, "{case}");
                let mut buf = m.clone();
                let tag = key.encrypt_detached(&n, &a, &mut buf, 16).unwrap();
                assert!([buf.as_slice(), tag.as_slice()].concat() == want, "in place, {case}");
                let (c, t) = want.split_at(len);
                assert!(key.decrypt(&n, &a, &want, 16).unwrap() == m, "{case}");
                let mut back = vec![0xa5u8; len];
                key.decrypt_into(&n, &a, c, t, &mut back).unwrap();
                assert!(back == m, "decrypt_into, {case}");
                for at in [0, len - 1] {
                    let mut bad = c.to_vec();
                    bad[at] ^= 0x10;
                    let mut out = vec![0xa5u8; len];
                    assert!(key.decrypt_into(&n, &a, &bad, t, &mut out).is_err(), "flip at {at}, {case}");
                    assert!(out.iter().all(|&b| b == 0), "a refused message leaves zeros, {case}");
                    assert!(key.decrypt_detached(&n, &a, &mut bad, t).is_err(), "in place, flip at {at}, {case}");
                    assert!(bad.iter().all(|&b| b == 0), "in place: zeros, {case}");
                }
            }
        }
    }
}
