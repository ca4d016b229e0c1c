//! `wegman_cwc_decrypt_detached`, `wegman_cwc_decrypt` and (from 8 MiB, on
//! two threads, two passes) `wegman_cwc_decrypt_parallel` while another
//! thread writes the ciphertext and tag: each success
//! must have written the original plaintext, each failure a zeroed output.
//! The harness (shared with the Rust API's test) is
//! `wegman_testkit::concurrent_writer`.
//!
//! `short_run` is always on; `long_run` (>= 1000 tries, up to 64 MiB) is
//! `#[ignore]`d: `cargo test -p wegman-capi --release --test
//! concurrent_writer -- --ignored --nocapture`.

use std::sync::atomic::{AtomicUsize, Ordering};

use wegman_c::{wegman_cwc_decrypt, wegman_cwc_decrypt_detached, wegman_cwc_decrypt_parallel};
use wegman_testkit::concurrent_writer::{self, AAD, KEY, NONCE, TAG_LEN, Tally};

/// Alternates between the detached and the combined call.
fn decrypt(key_len: usize, c: *const u8, len: usize, out: *mut u8) -> bool {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let (n, k, ad) = (NONCE.as_ptr(), KEY.as_ptr(), AAD.as_ptr());
    let rc = if CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
        // SAFETY: the harness gives `len + TAG_LEN` readable bytes at `c`
        // (the tag last; another thread writes them, which is what is
        // tested) and `len` writable bytes at `out`, a separate buffer.
        unsafe { wegman_cwc_decrypt_detached(out, c, len, c.add(len), TAG_LEN, ad, AAD.len(), n, k, key_len) }
    } else {
        let mut out_len = usize::MAX;
        // SAFETY: as above; `c` is `ciphertext || tag`.
        let rc =
            unsafe { wegman_cwc_decrypt(out, &mut out_len, c, len + TAG_LEN, ad, AAD.len(), TAG_LEN, n, k, key_len) };
        assert_eq!(out_len, if rc == 0 { len } else { 0 });
        rc
    };
    rc == 0
}

fn report(name: &str, t: Tally) {
    println!(
        "{name}: {} tries ({} raced), {} accepted, {} rejected; wrong plaintext accepted: {}, rejected but not wiped: {}",
        t.tries, t.raced, t.accepted, t.rejected, t.wrong_plaintext, t.not_wiped
    );
}

#[test]
fn short_run() {
    let t = concurrent_writer::run(120, 1 << 20, 0xc0de, concurrent_writer::mixed_sizes, &decrypt);
    report("C short", t);
    assert_eq!(t.failures(), 0, "{t:?}");
}

#[test]
#[ignore = "long: 1000 tries up to 64 MiB; run with --release --ignored"]
fn long_run() {
    let tries = concurrent_writer::long_tries();
    let t = concurrent_writer::run(tries, 64 << 20, 0xfeed, concurrent_writer::long_sizes, &decrypt);
    report("C long", t);
    assert_eq!(t.failures(), 0, "{t:?}");
}

/// The threaded decryption (two passes over the ciphertext) on 8–12 MiB.
fn decrypt_parallel(key_len: usize, c: *const u8, len: usize, out: *mut u8) -> bool {
    let (n, k, ad) = (NONCE.as_ptr(), KEY.as_ptr(), AAD.as_ptr());
    let mut out_len = usize::MAX;
    // SAFETY: as in `decrypt`: `len + TAG_LEN` readable bytes at `c` (another
    // thread writes them), `len` writable bytes at `out`, a separate buffer.
    let rc = unsafe {
        wegman_cwc_decrypt_parallel(out, &mut out_len, c, len + TAG_LEN, ad, AAD.len(), TAG_LEN, n, k, key_len, 2)
    };
    assert_eq!(out_len, if rc == 0 { len } else { 0 });
    rc == 0
}

#[test]
fn threaded_run() {
    let tries = if std::env::var_os("WEGMAN_EMULATED").is_some() { 4 } else { 24 };
    let size = |rng: &mut concurrent_writer::Rng| (8 << 20) + rng.below(4 << 20);
    let t = concurrent_writer::run(tries, 12 << 20, 0x7117, size, &decrypt_parallel);
    report("C threaded", t);
    assert_eq!(t.failures(), 0, "{t:?}");
}
