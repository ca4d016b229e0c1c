//! Every Poly1305 backend this CPU has (`Features::every_level`: portable,
//! then each SIMD level, plus the §4 floating-point backend) against the big-integer reference model: every
//! length 0..=4096, all-0xff messages with the largest r (maximal carries),
//! random lengths up to 1 MiB + 17, streaming with random splits (inside
//! the 64-byte SIMD group and around the vector threshold), and
//! `ExpandedKey`. Each case also checks the backend's label, so a test
//! cannot pass on the portable code while claiming a SIMD one.

mod common;

use common::{lengths, scaled};
use rand::{Rng, RngCore, SeedableRng};
use wegman::cpu::Features;
use wegman::platform::Backends;
use wegman::poly1305aes::{ExpandedKey, Key, Poly1305, clamp};
use wegman_ref::poly1305aes as reference;

/// r with every bit §2 allows set.
const R_MAX: [u8; 16] =
    [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

/// The label the best backend of `features` must report: what the
/// library's one report of its choices says (`Backends::for_features`; the
/// table of CPU classes in the core's unit tests pins that report).
fn expected(features: Features) -> &'static str {
    Backends::for_features(features).poly1305
}

/// Every level this CPU has and `float64`; under emulation the CPU class's
/// own level (`common::distinct_levels`), and `float64` (plain SSE2
/// arithmetic, the same on every class) with the portable class only.
fn levels() -> Vec<Features> {
    let mut levels = if common::emulated() { vec![Features::detect()] } else { Features::detect().every_level() };
    if !common::emulated() || levels == [Features::portable()] {
        levels.push(Features::float64());
    }
    eprintln!("backends under test: {:?}", levels.iter().map(|f| expected(*f)).collect::<Vec<_>>());
    levels
}

fn random_r(rng: &mut impl RngCore) -> [u8; 16] {
    let mut r = [0u8; 16];
    rng.fill_bytes(&mut r);
    clamp(&mut r);
    r
}

fn tag(features: Features, r: &[u8; 16], s: &[u8; 16], pieces: &[&[u8]]) -> [u8; 16] {
    let mut p = Poly1305::with_features(r, s, features).unwrap();
    assert_eq!(p.platform().name(), expected(features));
    for piece in pieces {
        p.update(piece);
    }
    p.finalize()
}

#[test]
fn every_length_0_to_4096() {
    // The reference runs once per input and every backend is checked
    // against it (the slow part under emulation is the big-integer model).
    let levels = levels();
    let mut rng = rand::rngs::StdRng::seed_from_u64(4096);
    for len in lengths(4096, 300) {
        let r = random_r(&mut rng);
        let s: [u8; 16] = rng.random();
        let mut m = vec![0u8; len];
        rng.fill_bytes(&mut m);
        let want = reference::poly1305(&r, &s, &m);
        for &features in &levels {
            assert_eq!(tag(features, &r, &s, &[&m]), want, "{:?} len {len}", expected(features));
        }
    }
}

#[test]
fn maximal_carries_all_ones_and_extreme_r() {
    let mut one = [0u8; 16];
    one[0] = 1;
    let levels = levels();
    for r in [R_MAX, [0u8; 16], one] {
        for s in [[0xffu8; 16], [0u8; 16]] {
            for len in lengths(1200, 300).into_iter().chain([4095, 4096, 4097, 65536 + 15]) {
                let m = vec![0xffu8; len];
                let want = reference::poly1305(&r, &s, &m);
                for &features in &levels {
                    assert_eq!(tag(features, &r, &s, &[&m]), want, "{:?} len {len} r {r:02x?}", expected(features));
                }
            }
        }
    }
}

#[test]
fn random_long_lengths_up_to_1_mib_plus_17() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1 << 20);
    let mut lens: Vec<usize> = (0..scaled(6)).map(|_| rng.random_range(4096..=(1 << 20) + 17)).collect();
    lens.push((1 << 20) + 17);
    let levels = levels();
    for len in lens {
        let r = random_r(&mut rng);
        let s: [u8; 16] = rng.random();
        let mut m = vec![0u8; len];
        rng.fill_bytes(&mut m);
        let want = reference::poly1305(&r, &s, &m);
        for &features in &levels {
            assert_eq!(tag(features, &r, &s, &[&m]), want, "{:?} len {len}", expected(features));
        }
    }
}

#[test]
fn random_streaming_splits() {
    let levels = levels();
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    for round in 0..scaled(300) {
        let len = rng.random_range(0..5000usize);
        let r = if round % 10 == 0 { R_MAX } else { random_r(&mut rng) };
        let s: [u8; 16] = rng.random();
        let mut m = vec![0u8; len];
        if round % 7 == 0 {
            m.fill(0xff);
        } else {
            rng.fill_bytes(&mut m);
        }
        // pieces of 0..=700 bytes: inside a 64-byte group, around the
        // vector threshold, and several groups long
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < len {
            let n = rng.random_range(0..=700usize).min(len - at);
            pieces.push(&m[at..at + n]);
            at += n;
        }
        let want = reference::poly1305(&r, &s, &m);
        for &features in &levels {
            assert_eq!(tag(features, &r, &s, &pieces), want, "{:?} round {round}", expected(features));
        }
    }
}

#[test]
fn expanded_keys_on_every_backend() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for features in levels() {
        for len in [0usize, 1, 16, 255, 256, 257, 1000, 4096, 100_000] {
            let mut kr = [0u8; 32];
            rng.fill_bytes(&mut kr);
            let key = Key::from_bytes_clamped(&kr);
            let (k, r) = (kr[..16].try_into().unwrap(), key.to_bytes()[16..].try_into().unwrap());
            let ek = ExpandedKey::with_features(&key, features);
            assert_eq!(ek.platform().name(), expected(features));
            let n: [u8; 16] = rng.random();
            let mut m = vec![0u8; len];
            rng.fill_bytes(&mut m);
            let want = reference::poly1305aes(&k, &r, &n, &m);
            // the same key twice: the precomputed state is not consumed
            assert_eq!(ek.authenticate(&n, &m), want, "{:?} len {len}", expected(features));
            assert_eq!(ek.authenticate(&n, &m), want);
            assert!(ek.verify(&want, &n, &m).is_ok());
        }
    }
}

#[test]
fn batches_on_every_backend() {
    use wegman::poly1305aes::{Item, authenticate_many_with, verify_many};
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for features in levels() {
        for count in [0usize, 1, 7, 8, 9, 16, 17, 64, 1000] {
            let keys: Vec<([u8; 16], [u8; 16], Key)> = (0..count)
                .map(|_| {
                    let mut kr = [0u8; 32];
                    rng.fill_bytes(&mut kr);
                    let key = Key::from_bytes_clamped(&kr);
                    let r: [u8; 16] = key.to_bytes()[16..].try_into().unwrap();
                    (kr[..16].try_into().unwrap(), r, key)
                })
                .collect();
            let nonces: Vec<[u8; 16]> = (0..count).map(|_| rng.random()).collect();
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|i| {
                    let len = if i % 97 == 5 { rng.random_range(1000..5000) } else { rng.random_range(0..100) };
                    (0..len).map(|_| rng.random()).collect()
                })
                .collect();
            let items: Vec<Item> =
                (0..count).map(|i| Item { key: &keys[i].2, nonce: &nonces[i], message: &msgs[i] }).collect();
            let mut tags = vec![[0u8; 16]; count];
            authenticate_many_with(&items, &mut tags, features).unwrap();
            for i in 0..count {
                let want = reference::poly1305aes(&keys[i].0, &keys[i].1, &nonces[i], &msgs[i]);
                assert_eq!(tags[i], want, "{:?} batch of {count}, item {i}", expected(features));
            }
            let mut ok = vec![false; count];
            assert_eq!(verify_many(&items, &tags, &mut ok), Ok(true));
            if count > 0 {
                let bad = count / 2;
                tags[bad][3] ^= 0x10;
                assert_eq!(verify_many(&items, &tags, &mut ok), Ok(false));
                assert!(ok.iter().enumerate().all(|(i, &v)| v == (i != bad)));
            }
        }
    }
}

#[test]
fn batches_of_messages_up_to_16_bytes_take_the_one_block_path() {
    // Chunks whose messages are all at most one block run a dedicated
    // one-block computation (h = c * r from h = 0): every length 0..=16,
    // mixed within a chunk, random keys and the maximal-carry r with
    // all-0xff messages, against the reference.
    use wegman::poly1305aes::{Item, authenticate_many_with};
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for features in levels() {
        for round in 0..40 {
            let count = 64;
            let kr: Vec<[u8; 32]> = (0..count)
                .map(|i| {
                    let mut kr: [u8; 32] = rng.random();
                    if (i + round) % 3 == 0 {
                        kr[16..].copy_from_slice(&R_MAX);
                    }
                    kr
                })
                .collect();
            let keys: Vec<Key> = kr.iter().map(Key::from_bytes_clamped).collect();
            let nonces: Vec<[u8; 16]> = (0..count).map(|_| rng.random()).collect();
            let msgs: Vec<Vec<u8>> = (0..count)
                .map(|i| {
                    let len = if round % 2 == 0 { round / 2 % 17 } else { rng.random_range(0..=16) };
                    if i % 2 == 0 { vec![0xff; len] } else { (0..len).map(|_| rng.random()).collect() }
                })
                .collect();
            let items: Vec<Item> =
                (0..count).map(|i| Item { key: &keys[i], nonce: &nonces[i], message: &msgs[i] }).collect();
            let mut tags = vec![[0u8; 16]; count];
            authenticate_many_with(&items, &mut tags, features).unwrap();
            for i in 0..count {
                let r: [u8; 16] = keys[i].to_bytes()[16..].try_into().unwrap();
                let k: [u8; 16] = kr[i][..16].try_into().unwrap();
                let want = reference::poly1305aes(&k, &r, &nonces[i], &msgs[i]);
                assert_eq!(tags[i], want, "{:?} round {round} item {i} len {}", expected(features), msgs[i].len());
            }
        }
    }
}

#[test]
fn batches_mixing_runs_of_short_messages_with_longer_ones() {
    // With VAES, the leading run of whole eight-item chunks of messages up
    // to 16 bytes is tagged in one pipelined pass (each chunk's pads beside
    // the previous chunk's polynomials); a longer message ends the run.
    // Runs of every length 0..=40 between longer messages, against the
    // reference.
    use wegman::poly1305aes::{Item, authenticate_many_with};
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    for features in levels() {
        let mut lens = Vec::new();
        for run in 0..=40 {
            lens.extend((0..run).map(|_| rng.random_range(0..=16usize)));
            lens.push(rng.random_range(17..80));
        }
        let count = lens.len();
        let kr: Vec<[u8; 32]> = (0..count).map(|_| rng.random()).collect();
        let keys: Vec<Key> = kr.iter().map(Key::from_bytes_clamped).collect();
        let nonces: Vec<[u8; 16]> = (0..count).map(|_| rng.random()).collect();
        let msgs: Vec<Vec<u8>> = lens.iter().map(|&n| (0..n).map(|_| rng.random()).collect()).collect();
        let items: Vec<Item> =
            (0..count).map(|i| Item { key: &keys[i], nonce: &nonces[i], message: &msgs[i] }).collect();
        for start in [0, 1, 5] {
            let mut tags = vec![[0u8; 16]; count - start];
            authenticate_many_with(&items[start..], &mut tags, features).unwrap();
            for (i, tag) in (start..count).zip(&tags) {
                let r: [u8; 16] = keys[i].to_bytes()[16..].try_into().unwrap();
                let k: [u8; 16] = kr[i][..16].try_into().unwrap();
                let want = reference::poly1305aes(&k, &r, &nonces[i], &msgs[i]);
                assert_eq!(*tag, want, "{:?} from {start}, item {i} len {}", expected(features), msgs[i].len());
            }
        }
    }
}

#[test]
fn batches_of_equal_lengths_run_in_lanes() {
    // Eight messages of one length up to 256 bytes take the IFMA lanes path
    // (each lane under its own r); check every length 0..=260 against the
    // reference, random and all-0xff with the largest r.
    use wegman::poly1305aes::{Item, authenticate_many_with};
    let mut rng = rand::rngs::StdRng::seed_from_u64(88);
    for features in levels() {
        for len in lengths(260, 40) {
            for (extreme, r_is_4) in [(false, false), (true, false), (false, true)] {
                let count = if len % 3 == 0 { 16 } else { 8 };
                let keys: Vec<([u8; 16], [u8; 16], Key)> = (0..count)
                    .map(|_| {
                        let mut kr = [0u8; 32];
                        rng.fill_bytes(&mut kr);
                        if extreme {
                            kr[16..].copy_from_slice(&R_MAX);
                        }
                        if r_is_4 {
                            // h = 4(m + 2^128) >= 2^130 > p: the final
                            // conditional subtraction of p is taken
                            kr[16..].fill(0);
                            kr[16] = 4;
                        }
                        let key = Key::from_bytes_clamped(&kr);
                        let r: [u8; 16] = key.to_bytes()[16..].try_into().unwrap();
                        (kr[..16].try_into().unwrap(), r, key)
                    })
                    .collect();
                let nonces: Vec<[u8; 16]> = (0..count).map(|_| rng.random()).collect();
                let msgs: Vec<Vec<u8>> = (0..count)
                    .map(|_| if extreme { vec![0xff; len] } else { (0..len).map(|_| rng.random()).collect() })
                    .collect();
                let items: Vec<Item> =
                    (0..count).map(|i| Item { key: &keys[i].2, nonce: &nonces[i], message: &msgs[i] }).collect();
                let mut tags = vec![[0u8; 16]; count];
                authenticate_many_with(&items, &mut tags, features).unwrap();
                for i in 0..count {
                    let want = reference::poly1305aes(&keys[i].0, &keys[i].1, &nonces[i], &msgs[i]);
                    assert_eq!(tags[i], want, "{:?} len {len} item {i} extreme {extreme}", expected(features));
                }
            }
        }
    }
}

#[test]
fn batch_lanes_reduce_h_at_and_just_above_p() {
    // r = 1 and blocks m1 = 2^128 - 3 + d, m2 = m3 = 0 (each with its 2^128
    // bit) give h = 2^130 - 3 + d exactly: p - 1, p, …, p + 4 for
    // d = -3..=2. Lazy reduction never folds these (they are below 2^130),
    // so only the final conditional subtraction of p sees them.
    use wegman::poly1305aes::{Item, authenticate_many_with};
    let mut r = [0u8; 16];
    r[0] = 1;
    for features in levels() {
        let ks: Vec<[u8; 16]> = (0..8u8).map(|i| [i ^ 0x3c; 16]).collect();
        let keys: Vec<Key> = ks
            .iter()
            .map(|k| {
                let mut kr = [0u8; 32];
                kr[..16].copy_from_slice(k);
                kr[16..].copy_from_slice(&r);
                Key::from_bytes(&kr).unwrap()
            })
            .collect();
        let msgs: Vec<Vec<u8>> = (0..8i32)
            .map(|i| {
                let d = (i % 6) - 3;
                let mut m = vec![0xffu8; 16];
                m[0] = (0xfd + d) as u8;
                m.extend_from_slice(&[0u8; 32]);
                m
            })
            .collect();
        let nonce = [7u8; 16];
        let items: Vec<Item> = (0..8).map(|i| Item { key: &keys[i], nonce: &nonce, message: &msgs[i] }).collect();
        let mut tags = vec![[0u8; 16]; 8];
        authenticate_many_with(&items, &mut tags, features).unwrap();
        for i in 0..8 {
            assert_eq!(
                tags[i],
                reference::poly1305aes(&ks[i], &r, &nonce, &msgs[i]),
                "{:?} lane {i}",
                expected(features)
            );
        }
    }
}

#[test]
fn deterministic_splits_around_every_threshold() {
    // Streaming pieces that start, end or cross each threshold (block,
    // 64-byte group, the precomputed, lazy and two-set vector thresholds)
    // with a nonzero accumulator coming in, at every offset within 17 bytes
    // of it: two pieces [t + d, rest], three [1, t + d, rest], and the whole
    // message in pieces of t + d. One message, so one reference tag.
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let levels = levels();
    for fill in [false, true] {
        let mut m = vec![0xffu8; 5000];
        if !fill {
            rng.fill_bytes(&mut m);
        }
        let r = if fill { R_MAX } else { random_r(&mut rng) };
        let s: [u8; 16] = rng.random();
        let want = reference::poly1305(&r, &s, &m);
        for t in [16usize, 64, 128, 256, 384, 512, 1024, 2048] {
            for cut in t.saturating_sub(17)..=t + 17 {
                let (a, b) = m.split_at(cut);
                let (a1, a2) = a.split_at(1.min(a.len()));
                let even: Vec<&[u8]> = m.chunks(cut.max(1)).collect();
                for &features in &levels {
                    let name = expected(features);
                    assert_eq!(tag(features, &r, &s, &[a, b]), want, "{name:?} [{cut}, rest]");
                    assert_eq!(tag(features, &r, &s, &[a1, a2, b]), want, "{name:?} [1, {cut}, rest]");
                    assert_eq!(tag(features, &r, &s, &even), want, "{name:?} pieces of {cut}");
                }
            }
        }
    }
}

#[test]
fn long_runs_around_the_word_table_thresholds() {
    // AVX2 runs of 8 KiB and more take a table of powers of r for every
    // word of a 992-byte span, built by an `ExpandedKey` once it has seen
    // 1 MiB in such runs and by a bare key for a run of 64 KiB or more (of
    // a 512-byte span for a run of 16 KiB to 64 KiB);
    // IFMA runs of 8 KiB and more a table of powers for every block of a
    // 4 KiB span (spans of 2 KiB below 64 KiB), built by an `ExpandedKey` as
    // AVX2's and by a bare key for a run of 64 KiB or more.
    // Lengths within 65 bytes of those thresholds and of span boundaries
    // past them, on a key whose table is built, one-shot, and streamed in
    // two pieces (so the first piece ends there and the second starts
    // there), random and all-0xff with the largest r.
    let mut rng = rand::rngs::StdRng::seed_from_u64(512);
    // Under emulation not the portable and float64 code, which have no word
    // table and so no threshold here (natively they run this test too, as
    // every level does). Under qemu64 and Westmere this test was their
    // longest: a minute of reference tags and 2 MiB of table warm-up.
    let levels: Vec<Features> = levels()
        .into_iter()
        .filter(|&f| !common::emulated() || !matches!(expected(f), "portable" | "float64"))
        .collect();
    if levels.is_empty() {
        eprintln!("no backend with a word table under this CPU class: nothing to run here");
        return;
    }
    let mut lens = Vec::new();
    for base in [8192usize, 8192 + 512, 8192 + 2048, 9 * 992, 10 * 992, 16384, 16384 + 512, 16384 + 3 * 512, 17 * 992] {
        for d in [0usize, 1, 15, 16, 17, 63, 64, 65] {
            lens.extend([base - d, base + d]);
        }
    }
    // fewer around the 64 KiB ones (the reference is the slow part)
    for base in [65536usize, 66 * 992, 67 * 992, 65536 + 2048, 65536 + 4096] {
        for d in [0usize, 17, 64] {
            lens.extend([base - d, base + d]);
        }
    }
    lens.dedup();
    for extreme in [false, true] {
        let mut kr: [u8; 32] = rng.random();
        if extreme {
            kr[16..].copy_from_slice(&R_MAX);
        }
        let key = Key::from_bytes_clamped(&kr);
        let (k, r): ([u8; 16], [u8; 16]) = (kr[..16].try_into().unwrap(), key.to_bytes()[16..].try_into().unwrap());
        let (n, s): ([u8; 16], [u8; 16]) = (rng.random(), rng.random());
        let mut m = vec![0xffu8; 70_000];
        if !extreme {
            rng.fill_bytes(&mut m);
        }
        // The reference once per length; under emulation the portable
        // backend stands in for it (natively this test holds the portable
        // backend to the reference at every one of these lengths; under
        // qemu -cpu Haswell-v4 this test took 57.6 s with the reference,
        // 0.17 s without: its big integers were all of it).
        let portable = ExpandedKey::with_features(&key, Features::portable());
        let oracle = |len: usize| match common::emulated() {
            false => (reference::poly1305aes(&k, &r, &n, &m[..len]), reference::poly1305(&r, &s, &m[..len])),
            true => (portable.authenticate(&n, &m[..len]), tag(Features::portable(), &r, &s, &[&m[..len]])),
        };
        let want: Vec<([u8; 16], [u8; 16])> = lens.iter().map(|&len| oracle(len)).collect();
        let first = oracle(8192).0;
        for &features in &levels {
            let name = expected(features);
            let ek = ExpandedKey::with_features(&key, features);
            // runs of 8 KiB until the table is built (1 MiB offered; both
            // tiers' `BUILD_AFTER_BYTES`), and one more
            for _ in 0..=(1 << 20) / 8192 {
                assert_eq!(ek.authenticate(&n, &m[..8192]), first, "{name:?}");
            }
            for (&len, (with_aes, bare)) in lens.iter().zip(&want) {
                assert_eq!(ek.authenticate(&n, &m[..len]), *with_aes, "{name:?} ExpandedKey len {len}");
                assert_eq!(tag(features, &r, &s, &[&m[..len]]), *bare, "{name:?} one-shot len {len}");
                let (a, b) = m[..len].split_at(len.min(16384 + 16 * (len % 7)));
                assert_eq!(tag(features, &r, &s, &[a, b]), *bare, "{name:?} [{}, rest] of {len}", a.len());
            }
        }
    }
}
