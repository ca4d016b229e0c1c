//! `wegman_cwc_encrypt_parallel` and `wegman_cwc_decrypt_parallel`: the
//! combined CWC functions of `cwc.rs` on up to `threads` threads (one per
//! 4 MiB of message at most, none below 8 MiB), through the core's
//! `CwcKey::encrypt_parallel_from` / `decrypt_parallel_from`: the same
//! bytes. Below 8 MiB, or with one thread, they are the one-thread calls.
//!
//! Decryption keeps the one-thread call's promise under a concurrent
//! writer: `c` is only ever copied out through its address (never borrowed
//! as a slice another thread could change), in two passes: the first
//! checks the tag and writes nothing; the second decrypts into `m` and
//! checks the tag again over the bytes it decrypted. Unless both pass, `m`
//! is zeroed (`m == c` included) and -1 returned.

use core::ffi::c_int;
use std::num::NonZeroUsize;
use std::sync::Mutex;

use wegman::cwc::TAG_BYTES;

use crate::cwc::{lengths_ok, wegman_cwc_decrypt, wegman_cwc_encrypt};
use crate::ffi::{FAIL, OK, guard, message, message_mut, overlap, write_len};

/// Messages shorter than this go to the one-thread functions (the core
/// starts no thread below it).
const THREADS_MIN_BYTES: usize = wegman::parallel::MIN_PARALLEL_BYTES;

/// An address several threads of one call read from or write to, each at
/// offsets of its own (`Sync`, unlike a bare pointer).
#[derive(Clone, Copy)]
struct Shared(*mut u8);

// SAFETY: only dereferenced by `copy_nonoverlapping` at disjoint offsets
// (each run of the message is one thread's), while the caller's buffer
// lives (the call does not return before every thread is joined).
unsafe impl Sync for Shared {}
// SAFETY: as above.
unsafe impl Send for Shared {}

impl Shared {
    fn at(self, offset: u64) -> *mut u8 {
        self.0.wrapping_add(offset as usize)
    }
}

/// `int wegman_cwc_encrypt_parallel(uint8_t *c, size_t *c_len_p, const
/// uint8_t *m, size_t m_len, const uint8_t *ad, size_t ad_len, size_t
/// tag_len, const uint8_t nonce[11], const uint8_t *key, size_t key_len,
/// size_t threads)`.
///
/// [`wegman_cwc_encrypt`] on up to `threads` threads; -1 (and `*c_len_p`
/// 0) also for `threads` 0.
///
/// # Safety
/// As [`wegman_cwc_encrypt`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape, and the threads
pub unsafe extern "C" fn wegman_cwc_encrypt_parallel(
    c: *mut u8,
    c_len_p: *mut usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    tag_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
    threads: usize,
) -> c_int {
    let Some(threads) = NonZeroUsize::new(threads) else {
        // SAFETY: caller contract: c_len_p is NULL or a writable size_t.
        unsafe { write_len(c_len_p, 0) };
        return FAIL;
    };
    if threads.get() == 1 || m_len < THREADS_MIN_BYTES {
        // SAFETY: forwarded caller contract.
        return unsafe { wegman_cwc_encrypt(c, c_len_p, m, m_len, ad, ad_len, tag_len, nonce, key, key_len) };
    }
    guard(FAIL, || {
        // SAFETY: forwarded caller contract.
        let rc = unsafe { encrypt(c, m, m_len, ad, ad_len, tag_len, nonce, key, key_len, threads) };
        // SAFETY: caller contract: c_len_p is NULL or a writable size_t.
        unsafe { write_len(c_len_p, if rc == OK { m_len + tag_len } else { 0 }) };
        rc
    })
}

/// The body of [`wegman_cwc_encrypt_parallel`] from 8 MiB: the checks of
/// `cwc.rs`'s `encrypt_raw` (the tag's place is `c + m_len`), then the
/// threads read `m` (or `c`, in place) and write `c`, run by run.
///
/// # Safety
/// As [`wegman_cwc_encrypt`].
#[allow(clippy::too_many_arguments)]
unsafe fn encrypt(
    c: *mut u8,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    tag_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
    threads: NonZeroUsize,
) -> c_int {
    if c.is_null() || !lengths_ok(tag_len, m_len, ad_len) || m_len.checked_add(tag_len).is_none() {
        return FAIL;
    }
    let in_place = c.cast_const() == m;
    let all = m_len + tag_len;
    if (!in_place && overlap(c, all, m, m_len)) || overlap(c, all, ad, ad_len) {
        return FAIL;
    }
    // SAFETY: caller contract for key and nonce.
    let Some((cwc, nonce)) = (unsafe { crate::cwc::key_and_nonce(key, key_len, nonce) }) else { return FAIL };
    // SAFETY: caller contract: ad is NULL or ad_len readable bytes, not
    // overlapping c (checked), the only buffer written.
    let Some(ad) = (unsafe { message(ad, ad_len) }) else { return FAIL };
    let src = if in_place {
        None
    } else {
        // SAFETY: caller contract: m is NULL or m_len readable bytes, not
        // overlapping c (checked).
        let Some(src) = (unsafe { message(m, m_len) }) else { return FAIL };
        Some(src)
    };
    // SAFETY: caller contract: c is m_len + tag_len writable bytes (non-NULL,
    // checked), overlapping neither ad nor src.
    let Some(out) = (unsafe { message_mut(c, all) }) else { return FAIL };
    let (body, tail) = out.split_at_mut(m_len);
    let body = Mutex::new(body);
    let fill = |at: u64, buf: &mut [u8]| {
        let at = at as usize;
        match src {
            Some(src) => buf.copy_from_slice(&src[at..at + buf.len()]),
            None => buf.copy_from_slice(&body.lock().unwrap_or_else(|e| e.into_inner())[at..at + buf.len()]),
        }
        Ok::<(), wegman::Error>(())
    };
    let sink = |at: u64, buf: &[u8]| {
        let at = at as usize;
        body.lock().unwrap_or_else(|e| e.into_inner())[at..at + buf.len()].copy_from_slice(buf);
        Ok::<(), wegman::Error>(())
    };
    match cwc.encrypt_parallel_from(&nonce, ad, m_len, tag_len, threads, &fill, &sink) {
        Ok(tag) => {
            tail.copy_from_slice(tag.as_slice());
            OK
        }
        Err(_) => {
            // Unreachable (lengths were checked); leave no plaintext copy.
            if !in_place {
                body.into_inner().unwrap_or_else(|e| e.into_inner()).fill(0);
            }
            FAIL
        }
    }
}

/// `int wegman_cwc_decrypt_parallel(uint8_t *m, size_t *m_len_p, const
/// uint8_t *c, size_t c_len, const uint8_t *ad, size_t ad_len, size_t
/// tag_len, const uint8_t nonce[11], const uint8_t *key, size_t key_len,
/// size_t threads)`.
///
/// [`wegman_cwc_decrypt`] on up to `threads` threads (see the module
/// docs); -1 (and `*m_len_p` 0, nothing written) also for `threads` 0.
///
/// # Safety
/// As [`wegman_cwc_decrypt`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape, and the threads
pub unsafe extern "C" fn wegman_cwc_decrypt_parallel(
    m: *mut u8,
    m_len_p: *mut usize,
    c: *const u8,
    c_len: usize,
    ad: *const u8,
    ad_len: usize,
    tag_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
    threads: usize,
) -> c_int {
    let Some(threads) = NonZeroUsize::new(threads) else {
        // SAFETY: caller contract: m_len_p is NULL or a writable size_t.
        unsafe { write_len(m_len_p, 0) };
        return FAIL;
    };
    if threads.get() == 1 || c_len < THREADS_MIN_BYTES + tag_len.min(TAG_BYTES) {
        // SAFETY: forwarded caller contract.
        return unsafe { wegman_cwc_decrypt(m, m_len_p, c, c_len, ad, ad_len, tag_len, nonce, key, key_len) };
    }
    guard(FAIL, || {
        // SAFETY: forwarded caller contract.
        let rc = unsafe { decrypt(m, c, c_len, ad, ad_len, tag_len, nonce, key, key_len, threads) };
        // SAFETY: caller contract: m_len_p is NULL or a writable size_t.
        unsafe { write_len(m_len_p, if rc == OK { c_len - tag_len } else { 0 }) };
        rc
    })
}

/// The body of [`wegman_cwc_decrypt_parallel`] from 8 MiB.
///
/// # Safety
/// As [`wegman_cwc_decrypt`].
#[allow(clippy::too_many_arguments)]
unsafe fn decrypt(
    m: *mut u8,
    c: *const u8,
    c_len: usize,
    ad: *const u8,
    ad_len: usize,
    tag_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
    threads: NonZeroUsize,
) -> c_int {
    if c.is_null() || m.is_null() || !lengths_ok(tag_len, c_len, ad_len) || c_len < tag_len {
        return FAIL;
    }
    let m_len = c_len - tag_len;
    // m == c decrypts in place; any other overlap of the two is refused,
    // and so is m over ad (read while m is written).
    if (m.cast_const() != c && overlap(m, m_len, c, c_len)) || overlap(m, m_len, ad, ad_len) {
        return FAIL;
    }
    // SAFETY: caller contract for key and nonce.
    let Some((cwc, nonce)) = (unsafe { crate::cwc::key_and_nonce(key, key_len, nonce) }) else { return FAIL };
    let mut tag = [0u8; TAG_BYTES];
    // SAFETY: caller contract: c has c_len readable bytes, the tag its last
    // tag_len (<= 16, checked); copied once, before m is written.
    unsafe { core::ptr::copy_nonoverlapping(c.add(m_len), tag.as_mut_ptr(), tag_len) };
    // SAFETY: caller contract: ad is NULL or ad_len readable bytes, not
    // overlapping m (checked).
    let Some(ad) = (unsafe { message(ad, ad_len) }) else { return FAIL };
    let (from, to) = (Shared(c.cast_mut()), Shared(m));
    let fill = |at: u64, buf: &mut [u8]| {
        // SAFETY: the core asks for bytes of the ciphertext only (at +
        // buf.len() <= m_len <= c_len), readable while the call runs; copied
        // out through the address, never borrowed.
        unsafe { core::ptr::copy_nonoverlapping(from.at(at), buf.as_mut_ptr(), buf.len()) };
        Ok::<(), wegman::Error>(())
    };
    let sink = |at: u64, buf: &[u8]| {
        // SAFETY: at + buf.len() <= m_len: m's own bytes, each run's written
        // by the one thread that read the same run of c (so in place, a run
        // is read before it is written, and no run is shared).
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), to.at(at), buf.len()) };
        Ok::<(), wegman::Error>(())
    };
    match cwc.decrypt_parallel_from(&nonce, ad, m_len, &tag[..tag_len], threads, &fill, &sink) {
        Ok(()) => OK,
        Err(_) => {
            // SAFETY: m is m_len writable bytes (caller contract, non-NULL).
            unsafe { core::ptr::write_bytes(m, 0, m_len) };
            FAIL
        }
    }
}
