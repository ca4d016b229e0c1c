//! CWC-AES decryption while another thread writes the ciphertext,
//! through the Rust API's raw-pointer entry: RustCrypto's
//! `decrypt_inout_detached` on an `InOutBuf::from_raw` (a `&[u8]` that
//! changes under the reader would be undefined behaviour in Rust, so the
//! buffer is handed over as pointers, as an mmap's would be). The harness
//! and what it checks: `wegman_testkit::concurrent_writer`.
//!
//! `short_run` is always on; `long_run` (>= 1000 tries, up to 64 MiB) is
//! `#[ignore]`d: `cargo test -p wegman --release --test
//! cwc_concurrent_writer -- --ignored --nocapture`.

use aead::array::Array;
use aead::inout::InOutBuf;
use aead::{AeadInOut, KeyInit};
use wegman::cwc::{CwcAes128, CwcAes192, CwcAes256};
use wegman_testkit::concurrent_writer::{self, KEY, NONCE, TAG_LEN, Tally};

/// `decrypt_inout_detached` of the `len` bytes at `c` (tag after them)
/// into `out`, with the key's length chosen at run time.
fn decrypt(key_len: usize, c: *const u8, len: usize, out: *mut u8) -> bool {
    fn with<A: AeadInOut + KeyInit>(key: &[u8], c: *const u8, len: usize, out: *mut u8) -> bool {
        let a = A::new_from_slice(key).unwrap();
        let mut tag = Array::<u8, A::TagSize>::default();
        // SAFETY: the harness gives `len + TAG_LEN` readable bytes at `c`
        // (another thread may write them, which is what is tested), and
        // `out`, its own private buffer, `len` writable ones; `tag` is a
        // local. A `&[u8]` is never made of `c`.
        unsafe { core::ptr::copy_nonoverlapping(c.add(len), tag.as_mut_ptr(), TAG_LEN) };
        // SAFETY: as above: `c` readable and `out` writable for `len` bytes,
        // not overlapping.
        let buf = unsafe { InOutBuf::from_raw(c, out, len) };
        let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).unwrap();
        a.decrypt_inout_detached(&nonce, concurrent_writer::AAD, buf, &tag).is_ok()
    }
    match key_len {
        16 => with::<CwcAes128>(&KEY[..16], c, len, out),
        24 => with::<CwcAes192>(&KEY[..24], c, len, out),
        _ => with::<CwcAes256>(&KEY[..32], c, len, out),
    }
}

fn report(name: &str, t: Tally) {
    println!(
        "{name}: {} tries ({} raced), {} accepted, {} rejected; wrong plaintext accepted: {}, rejected but not wiped: {}",
        t.tries, t.raced, t.accepted, t.rejected, t.wrong_plaintext, t.not_wiped
    );
}

#[test]
fn short_run() {
    let t = concurrent_writer::run(120, 1 << 20, 0x5107, concurrent_writer::mixed_sizes, &decrypt);
    report("rust short", t);
    assert_eq!(t.failures(), 0, "{t:?}");
}

#[test]
#[ignore = "long: 1000 tries up to 64 MiB; run with --release --ignored"]
fn long_run() {
    let tries = concurrent_writer::long_tries();
    let t = concurrent_writer::run(tries, 64 << 20, 0x1013, concurrent_writer::long_sizes, &decrypt);
    report("rust long", t);
    assert_eq!(t.failures(), 0, "{t:?}");
}
