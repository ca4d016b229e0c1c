//! One-shot `wegman_*` functions (libsodium conventions: 0 on success, -1 on
//! failure, `size_t` lengths).
//!
//! Unlike Bernstein's interface these reject an r with forbidden bits
//! ([`Key::from_bytes`], §2) instead of clamping it: a key that was never
//! clamped is more likely a bug (wrong buffer, wrong key format) than a
//! request for the nearest valid key.

use core::ffi::c_int;
use std::num::NonZeroUsize;

use wegman::poly1305aes::{self, KEY_BYTES, Key, NONCE_BYTES, Poly1305, TAG_BYTES};

use crate::ffi::{FAIL, OK, array, guard, message, write_tag_or_zeros};

/// `int wegman_poly1305aes_authenticate(uint8_t out[16], const uint8_t
/// key[32], const uint8_t nonce[16], const uint8_t *m, size_t len)`.
///
/// `out = Poly1305_r(m, AES_k(nonce))` with `key = k || r`. Returns 0, or -1
/// with `out` zeroed if r has forbidden bits or a required pointer is NULL.
/// `out` may overlap the inputs.
///
/// # Safety
/// `out`: NULL or 16 writable bytes; `key`: NULL or 32 readable bytes;
/// `nonce`: NULL or 16 readable bytes; `m`: NULL or `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_authenticate(
    out: *mut u8,
    key: *const u8,
    nonce: *const u8,
    m: *const u8,
    len: usize,
) -> c_int {
    // SAFETY: the caller's contract, which is the threaded call's.
    unsafe { wegman_poly1305aes_authenticate_parallel(out, key, nonce, m, len, 1) }
}

/// `int wegman_poly1305aes_verify(const uint8_t tag[16], const uint8_t
/// key[32], const uint8_t nonce[16], const uint8_t *m, size_t len)`.
///
/// 0 if `tag` authenticates `m`, -1 if it does not, if r has forbidden bits,
/// or if a required pointer is NULL. Constant-time in `tag`.
///
/// # Safety
/// `tag`, `nonce`: NULL or 16 readable bytes; `key`: NULL or 32 readable
/// bytes; `m`: NULL or `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_verify(
    tag: *const u8,
    key: *const u8,
    nonce: *const u8,
    m: *const u8,
    len: usize,
) -> c_int {
    // SAFETY: the caller's contract, which is the threaded call's.
    unsafe { wegman_poly1305aes_verify_parallel(tag, key, nonce, m, len, 1) }
}

/// `int wegman_poly1305aes_authenticate_parallel(uint8_t out[16], const
/// uint8_t key[32], const uint8_t nonce[16], const uint8_t *m, size_t len,
/// size_t threads)`.
///
/// [`wegman_poly1305aes_authenticate`] on up to `threads` threads (one per
/// 4 MiB of message at most, none below 8 MiB), started for the call and
/// joined before it returns: the same tag. Returns 0, or -1 with `out`
/// zeroed if r has forbidden bits, a required pointer is NULL or `threads`
/// is 0.
///
/// # Safety
/// `out`: NULL or 16 writable bytes; `key`: NULL or 32 readable bytes;
/// `nonce`: NULL or 16 readable bytes; `m`: NULL or `len` readable bytes,
/// read by several threads at once and not to be changed meanwhile (if it
/// is, the tag is of some mix of old and new bytes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_authenticate_parallel(
    out: *mut u8,
    key: *const u8,
    nonce: *const u8,
    m: *const u8,
    len: usize,
    threads: usize,
) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract: each input is NULL or readable for its
        // stated length; the borrows end before `out` is written.
        let inputs = unsafe { (array::<KEY_BYTES>(key), array::<NONCE_BYTES>(nonce), message(m, len)) };
        let tag = match (inputs, NonZeroUsize::new(threads)) {
            ((Some(key), Some(nonce), Some(m)), Some(threads)) => {
                Key::from_bytes(key).ok().map(|key| poly1305aes::authenticate_parallel(&key, nonce, m, threads))
            }
            _ => None,
        };
        // SAFETY: caller contract: out is NULL or 16 writable bytes.
        unsafe { write_tag_or_zeros(out, tag) }
    })
}

/// `int wegman_poly1305aes_verify_parallel(const uint8_t tag[16], const
/// uint8_t key[32], const uint8_t nonce[16], const uint8_t *m, size_t len,
/// size_t threads)`.
///
/// [`wegman_poly1305aes_verify`] on up to `threads` threads; -1 also for
/// `threads` 0.
///
/// # Safety
/// `tag`, `nonce`: NULL or 16 readable bytes; `key`: NULL or 32 readable
/// bytes; `m`: NULL or `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_verify_parallel(
    tag: *const u8,
    key: *const u8,
    nonce: *const u8,
    m: *const u8,
    len: usize,
    threads: usize,
) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract: each input is NULL or readable for its
        // stated length.
        let inputs =
            unsafe { (array::<TAG_BYTES>(tag), array::<KEY_BYTES>(key), array::<NONCE_BYTES>(nonce), message(m, len)) };
        let (Some(tag), Some(key), Some(nonce), Some(m)) = inputs else { return FAIL };
        let (Ok(key), Some(threads)) = (Key::from_bytes(key), NonZeroUsize::new(threads)) else { return FAIL };
        if poly1305aes::verify_parallel(&key, tag, nonce, m, threads).is_ok() { OK } else { FAIL }
    })
}

/// `int wegman_poly1305(uint8_t out[16], const uint8_t r[16], const uint8_t
/// s[16], const uint8_t *m, size_t len)`.
///
/// The Poly1305 core with any one-time pad: `out = Poly1305_r(m, s)`
/// ("Poly1305-AnotherFunction", §1). Returns 0, or -1 with `out` zeroed if
/// r has forbidden bits (it is not clamped) or a required pointer is NULL.
/// Each s must be used for one message only.
///
/// # Safety
/// `out`: NULL or 16 writable bytes; `r`, `s`: NULL or 16 readable bytes;
/// `m`: NULL or `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305(out: *mut u8, r: *const u8, s: *const u8, m: *const u8, len: usize) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract: each input is NULL or readable for its
        // stated length; the borrows end before `out` is written.
        let inputs = unsafe { (array::<16>(r), array::<16>(s), message(m, len)) };
        let tag = match inputs {
            (Some(r), Some(s), Some(m)) => Poly1305::new(r, s).ok().map(|mut mac| {
                mac.update(m);
                mac.finalize()
            }),
            _ => None,
        };
        // SAFETY: caller contract: out is NULL or 16 writable bytes.
        unsafe { write_tag_or_zeros(out, tag) }
    })
}
