//! CWC-AES on several threads (`CwcKey::encrypt_parallel`,
//! `decrypt_parallel` and the `_from` forms that read and write piece by
//! piece): the same bytes as the one-thread calls (which the vector and
//! reference tests pin) past the 8 MiB where threads start, on every
//! distinct backend; a wrong tag releases nothing; a ciphertext that
//! changes between the two passes of `decrypt_parallel_from` is refused.

mod common;

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use wegman::Error;
use wegman::cwc::CwcKey;

const NONCE: [u8; 11] = [5; 11];

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

fn message() -> Vec<u8> {
    (0..(9usize << 20) + 13).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8).collect()
}

#[test]
fn the_same_bytes_as_one_thread_on_every_backend() {
    let m = message();
    for features in common::distinct_levels(|b| (b.cwc_hash, b.cwc_ctr)) {
        for key_bytes in [16usize, 32] {
            let key = CwcKey::with_features(&vec![0x3c; key_bytes], features).unwrap();
            let want = key.encrypt(&NONCE, b"associated", &m, 16).unwrap();
            for t in [1, 2, 3].into_iter().skip(usize::from(common::emulated())) {
                let sealed = key.encrypt_parallel(&NONCE, b"associated", &m, 16, threads(t)).unwrap();
                assert!(sealed == want, "{features:?} AES-{} {t} threads", key_bytes * 8);
                let opened = key.decrypt_parallel(&NONCE, b"associated", &sealed, 16, threads(t)).unwrap();
                assert!(opened == m);
            }
            let short = key.encrypt_parallel(&NONCE, b"", &m, 5, threads(2)).unwrap();
            assert!(short == key.encrypt(&NONCE, b"", &m, 5).unwrap());
            // A flipped bit in the second thread's share: nothing released.
            let mut bad = want.clone();
            bad[6 << 20] ^= 4;
            assert_eq!(key.decrypt_parallel(&NONCE, b"associated", &bad, 16, threads(2)), Err(Error::TagMismatch));
        }
    }
}

/// `fill` from a slice.
fn filler(src: &[u8]) -> impl Fn(u64, &mut [u8]) -> Result<(), Error> + Sync + '_ {
    move |at: u64, b: &mut [u8]| {
        b.copy_from_slice(&src[at as usize..at as usize + b.len()]);
        Ok(())
    }
}

/// `sink` into an output of the message's length.
fn sinker(out: &Mutex<Vec<u8>>) -> impl Fn(u64, &[u8]) -> Result<(), Error> + Sync + '_ {
    move |at: u64, b: &[u8]| {
        out.lock().unwrap()[at as usize..at as usize + b.len()].copy_from_slice(b);
        Ok(())
    }
}

#[test]
fn piece_by_piece_the_same_and_a_change_between_passes_is_refused() {
    let m = message();
    let key = CwcKey::new(&[0x77; 24]).unwrap();
    let want = key.encrypt(&NONCE, b"a", &m, 16).unwrap();
    let out = Mutex::new(vec![0u8; m.len()]);
    let tag = { key.encrypt_parallel_from(&NONCE, b"a", m.len(), 16, threads(3), &filler(&m), &sinker(&out)).unwrap() };
    let c = out.into_inner().unwrap();
    assert!(c[..] == want[..m.len()] && tag.as_slice() == &want[m.len()..]);

    let plain = Mutex::new(vec![0u8; m.len()]);
    {
        key.decrypt_parallel_from(&NONCE, b"a", c.len(), tag.as_slice(), threads(2), &filler(&c), &sinker(&plain))
            .unwrap();
    }
    assert!(plain.into_inner().unwrap() == m);
    let fill = filler(&c);

    // A wrong tag: the first pass refuses, the sink sees nothing.
    let seen = AtomicUsize::new(0);
    let counting = |_: u64, b: &[u8]| {
        seen.fetch_add(b.len(), Ordering::Relaxed);
        Ok::<(), Error>(())
    };
    let mut bad = tag.as_slice().to_vec();
    bad[0] ^= 1;
    let r = key.decrypt_parallel_from(&NONCE, b"a", c.len(), &bad, threads(2), &fill, &counting);
    assert_eq!((r, seen.load(Ordering::Relaxed)), (Err(Error::TagMismatch), 0));

    // The ciphertext changes after the first pass (a concurrent writer):
    // the second pass's tag check refuses it.
    let reads = AtomicUsize::new(0);
    let runs = c.len().div_ceil(192 << 10);
    let changing = |at: u64, b: &mut [u8]| {
        b.copy_from_slice(&c[at as usize..at as usize + b.len()]);
        if reads.fetch_add(1, Ordering::Relaxed) >= runs && at == 0 {
            b[100] ^= 1;
        }
        Ok::<(), Error>(())
    };
    let r = key.decrypt_parallel_from(&NONCE, b"a", c.len(), tag.as_slice(), threads(2), &changing, &counting);
    assert_eq!(r, Err(Error::TagMismatch));

    // A failing read stops it with that error.
    let failing =
        |at: u64, _: &mut [u8]| if at >= 4 << 20 { Err(Error::TooLong { what: "test", max: 0 }) } else { Ok(()) };
    let r = key.encrypt_parallel_from(&NONCE, b"a", m.len(), 16, threads(2), &failing, &counting);
    assert_eq!(r.unwrap_err(), Error::TooLong { what: "test", max: 0 });
}
