//! `Incremental` (a Poly1305-AES tag updated after an edit or an append)
//! against the reference computed from scratch: edits of every length at
//! every offset of short messages (block-aligned and not, at both ends,
//! into and across the final partial chunk), edits and appends around
//! every run boundary, random edits and appends in long sequences, on
//! every backend this CPU has; its refusals — of old bytes that are not the
//! message's above all (the attack that a believed `old` allowed); and its
//! serialized form.

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
                    kept.replace(&old, offset as u64, &new).unwrap();
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
                kept.replace(&message, offset as u64, &new).unwrap();
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
    kept.replace(&message, 5_000_003, &new).unwrap();
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
    assert_eq!(kept.replace(&message, 38, &[2, 2, 2]), Err(Error::OutOfRange { offset: 38, len: 3, message_len: 40 }));
    assert_eq!(
        kept.replace(&message, u64::MAX, &[2]),
        Err(Error::OutOfRange { offset: u64::MAX, len: 1, message_len: 40 })
    );
    assert_eq!(
        kept.replace(&message[1..], 0, &[2]),
        Err(Error::InvalidLength { what: "message", expected: 40, got: 39 })
    );
    assert_eq!(
        kept.replace_span(0, &[2], &message[..33]),
        Err(Error::InvalidLength { what: "span of old bytes", expected: 32, got: 33 })
    );
    assert_eq!(kept.replace(&message, 40, &[]), Ok(()));
    assert_eq!(kept.span(40, 0), Ok(40..40));
    assert_eq!(kept.tag(&nonce), before);
    assert!(kept.verify(&before, &[1u8; 16]).is_err());
    assert!(!format!("{kept:?}").contains("h:"));
}

/// The attack a believed `old` allowed: the holder of the message changes
/// X := old − D into the range just before an edit; an update that trusted
/// the bytes it read then authenticated NEW + D. Here the bytes read are
/// checked against the state first: any change is refused, the state is
/// untouched, and a tag made afterwards is still the old message's.
#[test]
fn old_bytes_that_are_not_the_messages_are_refused() {
    let key = hard_key();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0033);
    let run = Incremental::RUN_BYTES;
    for len in [40usize, 1000, run - 1, run, run + 17, 3 * run + 5] {
        let mut message = vec![0u8; len];
        rng.fill_bytes(&mut message);
        let nonce = [6u8; 16];
        for &f in &common::distinct_levels(|b| b.poly1305) {
            let mut kept = Incremental::with_features(&key, &message, f);
            let before = kept.tag(&nonce);
            for _ in 0..scaled(40) {
                let offset = rng.random_range(0..len);
                let n = rng.random_range(1..=(len - offset).min(64));
                let span = kept.span(offset as u64, n).unwrap();
                // One byte of the span changed, anywhere in it (inside the
                // edit or not), by one bit or to a chosen value.
                let mut forged = message.clone();
                let at = rng.random_range(span.start as usize..span.end as usize);
                forged[at] ^= 1 << rng.random_range(0..8);
                let new: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                assert_eq!(kept.replace(&forged, offset as u64, &new), Err(Error::NotTheMessage), "{f:?} {len} {at}");
                let old = &message[span.start as usize..span.end as usize];
                let mut shown = old.to_vec();
                shown[at - span.start as usize] ^= 0x80;
                assert_eq!(kept.replace_span(offset as u64, &new, &shown), Err(Error::NotTheMessage));
                // The whole span of another message of the same length.
                let other: Vec<u8> = (0..old.len()).map(|_| rng.random()).collect();
                assert_eq!(kept.replace_span(offset as u64, &new, &other), Err(Error::NotTheMessage));
                assert_eq!(kept.tag(&nonce), before, "{f:?} a refused change changed the state");
            }
            // The review's exact case: X = old − D written over the range,
            // then NEW + D: refused at the first step.
            let (offset, n) = (len / 2, 16.min(len - len / 2));
            let mut attacked = message.clone();
            for b in &mut attacked[offset..offset + n] {
                *b = b.wrapping_sub(3);
            }
            assert_eq!(kept.replace(&attacked, offset as u64, &vec![b'N'; n]), Err(Error::NotTheMessage));
            assert_eq!(kept.tag(&nonce), before);
        }
    }
}

/// Edits at and across every run boundary (and the final partial chunk),
/// appends that fill a partial run, start a new one, or end exactly on a
/// boundary: the tag is always the one-shot tag of the message, and spans
/// are whole runs.
#[test]
fn edits_and_appends_around_run_boundaries() {
    let key = hard_key();
    let nonce = [4u8; 16];
    let run = Incremental::RUN_BYTES;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x2026);
    for &f in &common::distinct_levels(|b| b.poly1305) {
        for len in [run - 16, run - 1, run, run + 1, run + 15, run + 16, 2 * run, 2 * run + 9] {
            let mut message = vec![0xffu8; len];
            let mut kept = Incremental::with_features(&key, &message, f);
            for at in [0, 15, 16, run - 17, run - 16, run - 1, run, run + 1, len - 1, len.saturating_sub(20)] {
                for n in [1usize, 2, 16, 17, 33] {
                    if at >= len || at + n > len {
                        continue;
                    }
                    let span = kept.span(at as u64, n).unwrap();
                    let full = (len & !15) as u64;
                    assert!(span.start <= at as u64 && span.end >= (at + n) as u64);
                    assert!(span.start.is_multiple_of(run as u64) || span.start == full, "{span:?}");
                    assert!(
                        span.end.is_multiple_of(run as u64) || span.end == full || span.end == len as u64,
                        "{span:?}"
                    );
                    let new = vec![rng.random::<u8>() & 0x0f; n];
                    kept.replace(&message, at as u64, &new).unwrap();
                    message[at..at + n].copy_from_slice(&new);
                    assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message), "{f:?} len {len} at {at} n {n}");
                }
            }
            for more in [0usize, 1, 15, 16, run - (message.len() % run), 17, run + 3] {
                let extra = vec![rng.random::<u8>(); more];
                kept.append(&extra);
                message.extend_from_slice(&extra);
                assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message), "{f:?} append {more}");
                // An edit right at the old end, after the append.
                let at = message.len() - more.min(message.len()).max(1);
                kept.replace(&message, at as u64, &[9]).unwrap();
                message[at] = 9;
                assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
            }
        }
    }
}

/// The serialized state gives back the same state (same tags, further
/// edits checked as before); malformed bytes are refused, never a panic.
#[test]
fn secret_bytes_round_trip_and_malformed_ones_are_refused() {
    let key = hard_key();
    let run = Incremental::RUN_BYTES;
    for len in [0usize, 7, 16, 1000 + 7, run, 2 * run + 33] {
        let mut message = vec![0xa5u8; len];
        let kept = Incremental::new_parallel(&key, &message, NonZeroUsize::new(2).unwrap());
        let bytes = kept.to_secret_bytes();
        assert_eq!(bytes.len(), 32 + 17 * (len / 16).div_ceil(run / 16), "len {len}");
        let mut back = Incremental::from_secret_bytes(&key, &bytes).unwrap();
        let nonce = [9u8; 16];
        assert_eq!(back.tag(&nonce), kept.tag(&nonce));
        assert_eq!(back.len(), len as u64);
        if len > 10 {
            back.replace(&message, 5, &[0; 5]).unwrap();
            message[5..10].fill(0);
            let mut wrong = message.clone();
            wrong[len - 1] ^= 1;
            assert_eq!(back.replace(&wrong, (len - 1) as u64, &[1]), Err(Error::NotTheMessage));
        }
        back.append(b"more");
        message.extend_from_slice(b"more");
        assert_eq!(back.tag(&nonce), authenticate(&key, &nonce, &message));
        // Malformed: every header field, a run value at or above 2^130,
        // lengths one off; another key's state gives other tags.
        let refuse =
            |b: &[u8]| assert!(matches!(Incremental::from_secret_bytes(&key, b), Err(Error::InvalidLength { .. })));
        for (i, v) in [(0, 1u8), (0, 3), (1, 16), (2, 1), (4, 1), (6, 0), (6, 2), (8 + 7, 0x80)] {
            let mut bad = bytes.to_vec();
            bad[i] = v;
            refuse(&bad);
        }
        if len % 16 < 15 {
            let mut bad = bytes.to_vec();
            bad[31] = 1; // a byte past the final chunk's length
            refuse(&bad);
        }
        if bytes.len() > 32 {
            let mut bad = bytes.to_vec();
            bad[32 + 16] = 4;
            refuse(&bad);
        }
        refuse(&bytes[..bytes.len() - 1]);
        // The error names the length the header's block count calls for.
        assert_eq!(
            Incremental::from_secret_bytes(&key, &bytes[..bytes.len() - 1]).err(),
            Some(Error::InvalidLength { what: "incremental state", expected: bytes.len(), got: bytes.len() - 1 })
        );
        refuse(&[bytes.to_vec(), vec![0]].concat());
        refuse(&bytes[..31.min(bytes.len())]);
        let other = Key::from_bytes_clamped(&[1; 32]);
        let theirs = Incremental::from_secret_bytes(&other, &bytes).unwrap();
        if len > 0 {
            assert!(theirs.verify(&kept.tag(&nonce), &nonce).is_err());
        }
    }
}

/// The span of a change is exactly the runs it touches (and the final
/// bytes only if it reaches them): no more is read than needed, and what
/// is read is whole runs the state can check.
#[test]
fn spans_are_exactly_the_runs_a_change_touches() {
    let run = Incremental::RUN_BYTES as u64;
    let len = 3 * run + 20; // whole blocks end at 3·run + 16
    let full = 3 * run + 16;
    let kept = Incremental::new(&hard_key(), &vec![0u8; len as usize]);
    for (at, n, want) in [
        (run + 5, 1, run..2 * run),
        (run - 1, 2, 0..2 * run),
        (2 * run + 7, 3, 2 * run..3 * run),
        (full - 1, 1, 3 * run..full),
        (full - 1, 2, 3 * run..len),
        (full, 1, full..len),
        (len - 1, 1, full..len),
        (0, len as usize, 0..len),
        (5, 0, 5..5),
    ] {
        assert_eq!(kept.span(at, n), Ok(want.clone()), "change of {n} at {at}");
        assert!(kept.verify_span(want.clone(), &vec![0u8; (want.end - want.start) as usize]).is_ok(), "{want:?}");
    }
    // Spans that are not runs' bounds are refused by verify_span.
    for bad in [1..run, 0..run - 1, run..len - 1, full + 1..len, 3 * run..4 * run, len + run..len + run] {
        assert!(
            matches!(
                kept.verify_span(bad.clone(), &vec![0u8; (bad.end - bad.start) as usize]),
                Err(Error::OutOfRange { .. })
            ),
            "{bad:?}"
        );
    }
    assert!(matches!(kept.verify_span(0..run, &[0u8; 5]), Err(Error::InvalidLength { .. })));
}
