//! CWC-AES for C ([`wegman::cwc`]): libsodium-style encrypt / decrypt, both
//! detached (ciphertext and tag in separate buffers) and combined
//! (`ciphertext || tag` in one), with the key length passed explicitly.
//!
//! * Keys are 16, 24 or 32 bytes (CWC-AES-128/192/256), nonces 11 bytes
//!   (never reuse one under a key), tags 1 to 16 bytes.
//! * The associated data and the message are each limited to
//!   [`WEGMAN_CWC_MESSAGEBYTES_MAX`] bytes (2^32 - 1 blocks); every length is
//!   checked, and every pointer NULL-checked, before anything is written.
//! * Encryption works in the output buffer: `m` is copied to `c` (unless
//!   `c == m`, in place) and encrypted there. `c` is written before the
//!   associated data is read and before the tag is written, so `c` may not
//!   overlap `ad` or `tag`, nor straddle `m`; such calls return -1.
//! * Decryption reads each byte of `c` once, in one pass
//!   (`wegman::cwc::RawDecryptor`): chunk by chunk into a private buffer,
//!   hashed and decrypted there, written to `m`; the tag is compared in
//!   constant time at the end, and if it is wrong **`m` is zeroed** (`m ==
//!   c` included) and -1 returned. So a `c` that another thread or process
//!   changes meanwhile (shared memory, a shared mmap) can never make a call
//!   succeed with plaintext that is not the decryption of a ciphertext
//!   whose tag verified. `m` is never read. Failures found before
//!   decryption (lengths, NULL pointers, overlaps) write nothing.
//!   The tag, associated data, nonce and key are read before `m` is
//!   written, so only a partial overlap of `m` and `c` is refused.
//!   `tests/concurrent_writer.rs` checks this with a writer thread.
//!
//! # The one public bit
//! Whether a tag verified is public by design: decryption must act on it.
//! The library branches on it in one function, `wegman`'s
//! `cwc::key::public_verdict`, after computing it without branches; the
//! constant-time test (`tests/ctgrind.rs`) tells valgrind that a branch
//! there is expected and nowhere else.

use core::ffi::c_int;

use wegman::cwc::{CwcKey, MAX_BYTES, NONCE_BYTES, TAG_BYTES};

use crate::ffi::{FAIL, OK, array, guard, message, message_mut, overlap, required, write, write_len};

/// `WEGMAN_CWC_NONCEBYTES`: nonce length.
pub const WEGMAN_CWC_NONCEBYTES: usize = 11;
/// `WEGMAN_CWC_ABYTES`: the longest (and usual) tag; any of 1 to 16 bytes may be asked for.
pub const WEGMAN_CWC_ABYTES: usize = 16;
/// `WEGMAN_CWC_KEYBYTES_MIN`: CWC-AES-128.
pub const WEGMAN_CWC_KEYBYTES_MIN: usize = 16;
/// `WEGMAN_CWC_KEYBYTES_MAX`: CWC-AES-256 (24, CWC-AES-192, is allowed too).
pub const WEGMAN_CWC_KEYBYTES_MAX: usize = 32;
/// `WEGMAN_CWC_MESSAGEBYTES_MAX`: the longest message (and the longest
/// associated data), 16 · (2^32 − 1) bytes.
pub const WEGMAN_CWC_MESSAGEBYTES_MAX: u64 = 68_719_476_720;

const _: () = {
    assert!(WEGMAN_CWC_NONCEBYTES == NONCE_BYTES);
    assert!(WEGMAN_CWC_ABYTES == TAG_BYTES);
    assert!(WEGMAN_CWC_MESSAGEBYTES_MAX == MAX_BYTES);
};

/// `size_t wegman_cwc_noncebytes(void)`: [`WEGMAN_CWC_NONCEBYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_cwc_noncebytes() -> usize {
    WEGMAN_CWC_NONCEBYTES
}

/// `size_t wegman_cwc_abytes(void)`: [`WEGMAN_CWC_ABYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_cwc_abytes() -> usize {
    WEGMAN_CWC_ABYTES
}

/// `size_t wegman_cwc_keybytes_min(void)`: [`WEGMAN_CWC_KEYBYTES_MIN`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_cwc_keybytes_min() -> usize {
    WEGMAN_CWC_KEYBYTES_MIN
}

/// `size_t wegman_cwc_keybytes_max(void)`: [`WEGMAN_CWC_KEYBYTES_MAX`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_cwc_keybytes_max() -> usize {
    WEGMAN_CWC_KEYBYTES_MAX
}

/// `uint64_t wegman_cwc_messagebytes_max(void)`: [`WEGMAN_CWC_MESSAGEBYTES_MAX`]
/// (a `uint64_t`, since it does not fit a 32-bit `size_t`).
#[unsafe(no_mangle)]
pub extern "C" fn wegman_cwc_messagebytes_max() -> u64 {
    WEGMAN_CWC_MESSAGEBYTES_MAX
}

/// A tag length of 1 to 16 and a message (or ciphertext) and associated
/// data within the limit: the checks every function makes first.
pub(crate) fn lengths_ok(tag_len: usize, m_len: usize, ad_len: usize) -> bool {
    (1..=TAG_BYTES).contains(&tag_len) && m_len as u64 <= MAX_BYTES && ad_len as u64 <= MAX_BYTES
}

/// The key schedule and a copy of the nonce; `None` for a NULL pointer or a
/// key length other than 16, 24 or 32. Nothing stays borrowed.
///
/// # Safety
/// `key`: NULL or `key_len` readable bytes; `nonce`: NULL or 11 readable bytes.
pub(crate) unsafe fn key_and_nonce(
    key: *const u8,
    key_len: usize,
    nonce: *const u8,
) -> Option<(CwcKey, [u8; NONCE_BYTES])> {
    // SAFETY: forwarded caller contract; both borrows end in this function.
    let (key, nonce) = unsafe { (required(key, key_len)?, array::<NONCE_BYTES>(nonce)?) };
    Some((CwcKey::new(key).ok()?, *nonce))
}

/// CWC-ENC of `m[0..m_len]` into `c[0..m_len]` and `tag[0..tag_len]`: the
/// body of both encrypt functions. Nothing is written unless it returns 0.
///
/// # Safety
/// `c`: NULL or `m_len` writable bytes; `tag`: NULL or `tag_len` writable
/// bytes; `m`: NULL or `m_len` readable bytes; `ad`: NULL or `ad_len`
/// readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL or
/// `key_len` readable bytes. (Overlaps are checked here.)
#[allow(clippy::too_many_arguments)] // the C signature
unsafe fn encrypt_raw(
    c: *mut u8,
    tag: *mut u8,
    tag_len: usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
) -> c_int {
    if !lengths_ok(tag_len, m_len, ad_len) || tag.is_null() {
        return FAIL;
    }
    let in_place = c.cast_const() == m;
    // c is written while m is read, before ad is read, and before the tag
    // is written.
    if (!in_place && overlap(c, m_len, m, m_len)) || overlap(c, m_len, ad, ad_len) || overlap(c, m_len, tag, tag_len) {
        return FAIL;
    }
    // SAFETY: caller contract for key and nonce.
    let Some((cwc, nonce)) = (unsafe { key_and_nonce(key, key_len, nonce) }) else { return FAIL };
    // SAFETY: caller contract: ad is NULL or ad_len readable bytes; c, the
    // only buffer written while it is borrowed, does not overlap it (checked).
    let Some(ad) = (unsafe { message(ad, ad_len) }) else { return FAIL };
    let src = if in_place {
        None
    } else {
        // SAFETY: caller contract: m is NULL or m_len readable bytes, and it
        // does not overlap c (checked), which is all that is written while
        // it is borrowed.
        let Some(src) = (unsafe { message(m, m_len) }) else { return FAIL };
        Some(src)
    };
    // SAFETY: caller contract: c is NULL or m_len writable bytes; it overlaps
    // neither ad nor src (checked), so this is the only reference to them.
    let Some(buf) = (unsafe { message_mut(c, m_len) }) else { return FAIL };
    // Every check is done: from here on the call succeeds. Out of place,
    // counter mode reads m and writes c (no copy of m into c first).
    let sealed = match src {
        Some(src) => cwc.encrypt_into(&nonce, ad, src, buf, tag_len),
        None => cwc.encrypt_detached(&nonce, ad, buf, tag_len),
    };
    // Unreachable (the library fails only on lengths, checked above, and
    // then before touching buf).
    let Ok(t) = sealed else { return FAIL };
    // SAFETY: caller contract: tag is non-NULL (checked) and tag_len
    // writable bytes; the borrows of c, m and ad are no longer used.
    unsafe { write(tag, t.as_slice()) };
    OK
}

/// CWC-DEC of `c[0..c_len]` with `tag[0..tag_len]` into `m[0..c_len]`: the
/// body of both decrypt functions, in one pass ([`CwcKey::raw_decryptor`]):
/// the tag and the associated data are consumed first, then each byte of
/// `c` is read once, and `m` is only written. On a wrong tag `m` is zeroed;
/// on any other failure (checked first) nothing is written.
///
/// # Safety
/// `m`: NULL or `c_len` writable bytes; `c`: NULL or `c_len` readable
/// bytes; `tag`: NULL or `tag_len` readable bytes; `ad`: NULL or `ad_len`
/// readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL or
/// `key_len` readable bytes. (Overlaps are checked here.) Another thread
/// may write `c` or `m` meanwhile.
#[allow(clippy::too_many_arguments)] // the C signature
unsafe fn decrypt_raw(
    m: *mut u8,
    c: *const u8,
    c_len: usize,
    tag: *const u8,
    tag_len: usize,
    ad: *const u8,
    ad_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
) -> c_int {
    if !lengths_ok(tag_len, c_len, ad_len) || (c_len > 0 && (m.is_null() || c.is_null())) {
        return FAIL;
    }
    // m == c decrypts in place; any other overlap of the two is refused.
    // m may overlap the tag, ad, nonce or key: they are all read before m
    // is written.
    if m.cast_const() != c && overlap(m, c_len, c, c_len) {
        return FAIL;
    }
    // SAFETY: caller contract for key and nonce.
    let Some((cwc, nonce)) = (unsafe { key_and_nonce(key, key_len, nonce) }) else { return FAIL };
    let decryptor = {
        // SAFETY: caller contract: tag and ad are NULL or readable for their
        // lengths; nothing is written while these borrows live (they end
        // with this block: the decryptor holds copies and the hash).
        let inputs = unsafe { (required(tag, tag_len), message(ad, ad_len)) };
        let (Some(tag), Some(ad)) = inputs else { return FAIL };
        match cwc.raw_decryptor(&nonce, ad, tag) {
            Ok(d) => d,
            Err(_) => return FAIL,
        }
    };
    // SAFETY: caller contract: c is c_len readable bytes and m c_len
    // writable ones (both non-NULL when c_len > 0, checked), equal or
    // disjoint (checked); no Rust reference into m exists.
    match unsafe { decryptor.decrypt(c, m, c_len) } {
        Ok(()) => OK,
        Err(_) => FAIL,
    }
}

/// `int wegman_cwc_encrypt_detached(uint8_t *c, uint8_t *tag, size_t
/// tag_len, const uint8_t *m, size_t m_len, const uint8_t *ad, size_t
/// ad_len, const uint8_t nonce[11], const uint8_t *key, size_t key_len)`.
///
/// CWC-ENC: the `m_len`-byte ciphertext to `c` and a `tag_len`-byte tag
/// (1 to 16) to `tag`. Returns 0, or -1 with nothing written if `key_len`
/// is not 16, 24 or 32, `tag_len` is out of range, `m_len` or `ad_len`
/// exceeds [`WEGMAN_CWC_MESSAGEBYTES_MAX`], a required pointer is NULL
/// (`c`, `m` and `ad` may be NULL when their length is 0), or the buffers
/// overlap in a way the header forbids. `c == m` encrypts in place.
///
/// # Safety
/// `c`: NULL or `m_len` writable bytes; `tag`: NULL or `tag_len` writable
/// bytes; `m`: NULL or `m_len` readable bytes; `ad`: NULL or `ad_len`
/// readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL or
/// `key_len` readable bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape
pub unsafe extern "C" fn wegman_cwc_encrypt_detached(
    c: *mut u8,
    tag: *mut u8,
    tag_len: usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
) -> c_int {
    // SAFETY: forwarded caller contract.
    guard(FAIL, || unsafe { encrypt_raw(c, tag, tag_len, m, m_len, ad, ad_len, nonce, key, key_len) })
}

/// `int wegman_cwc_decrypt_detached(uint8_t *m, const uint8_t *c, size_t
/// c_len, const uint8_t *tag, size_t tag_len, const uint8_t *ad, size_t
/// ad_len, const uint8_t nonce[11], const uint8_t *key, size_t key_len)`.
///
/// CWC-DEC: if the `tag_len`-byte `tag` (1 to 16; the length is part of the
/// mode) authenticates `ad` and the ciphertext `c`, writes the `c_len`-byte
/// plaintext to `m` and returns 0. Each byte of `c` is read once (one pass)
/// and `m` is only written. On a wrong tag (compared in constant time)
/// returns -1 with `m` zeroed. Returns -1 and writes nothing for a bad key
/// length, an over-long input, a NULL required pointer (`m`, `c`, `ad` may
/// be NULL when their length is 0), or `m` straddling `c` (`m == c`
/// decrypts in place).
///
/// # Safety
/// `m`: NULL or `c_len` writable bytes; `c`: NULL or `c_len` readable
/// bytes; `tag`: NULL or `tag_len` readable bytes; `ad`: NULL or `ad_len`
/// readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL or
/// `key_len` readable bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape
pub unsafe extern "C" fn wegman_cwc_decrypt_detached(
    m: *mut u8,
    c: *const u8,
    c_len: usize,
    tag: *const u8,
    tag_len: usize,
    ad: *const u8,
    ad_len: usize,
    nonce: *const u8,
    key: *const u8,
    key_len: usize,
) -> c_int {
    // SAFETY: forwarded caller contract.
    guard(FAIL, || unsafe { decrypt_raw(m, c, c_len, tag, tag_len, ad, ad_len, nonce, key, key_len) })
}

/// `int wegman_cwc_encrypt(uint8_t *c, size_t *c_len_p, const uint8_t *m,
/// size_t m_len, const uint8_t *ad, size_t ad_len, size_t tag_len, const
/// uint8_t nonce[11], const uint8_t *key, size_t key_len)`.
///
/// CWC-ENC into one buffer: `m_len + tag_len` bytes, the ciphertext then the
/// tag, to `c` (which may be `m`, with room for the tag after it). Returns
/// 0 and sets `*c_len_p` (if `c_len_p` is not NULL) to `m_len + tag_len`;
/// on failure (as for the detached function; `c` is always required)
/// returns -1, writes nothing to `c` and sets `*c_len_p` to 0.
///
/// # Safety
/// `c`: NULL or `m_len + tag_len` writable bytes; `c_len_p`: NULL or a
/// writable `size_t`; `m`: NULL or `m_len` readable bytes; `ad`: NULL or
/// `ad_len` readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL
/// or `key_len` readable bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape
pub unsafe extern "C" fn wegman_cwc_encrypt(
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
) -> c_int {
    guard(FAIL, || {
        let c_len = m_len.checked_add(tag_len).filter(|_| !c.is_null() && lengths_ok(tag_len, m_len, ad_len));
        let rc = match c_len {
            // SAFETY: caller contract: c has m_len + tag_len writable bytes,
            // so the tag's place starts m_len bytes in (wrapping_add keeps
            // the arithmetic defined either way).
            Some(_) => unsafe {
                encrypt_raw(c, c.wrapping_add(m_len), tag_len, m, m_len, ad, ad_len, nonce, key, key_len)
            },
            None => FAIL,
        };
        let c_len = if rc == OK { c_len.unwrap_or(0) } else { 0 };
        // SAFETY: caller contract: c_len_p is NULL or a writable size_t.
        unsafe { write_len(c_len_p, c_len) };
        rc
    })
}

/// `int wegman_cwc_decrypt(uint8_t *m, size_t *m_len_p, const uint8_t *c,
/// size_t c_len, const uint8_t *ad, size_t ad_len, size_t tag_len, const
/// uint8_t nonce[11], const uint8_t *key, size_t key_len)`.
///
/// CWC-DEC of `c = ciphertext || tag` with a `tag_len`-byte tag: if it
/// verifies, writes the `c_len - tag_len` plaintext bytes to `m` (which may
/// be `c`), sets `*m_len_p` (if not NULL) to that length and returns 0.
/// Otherwise returns -1 and sets `*m_len_p` to 0, with `m` zeroed for a
/// wrong tag and untouched for the failures of the detached function and
/// `c_len < tag_len`. Each ciphertext byte is read once, as there.
///
/// # Safety
/// `m`: NULL or `c_len - tag_len` writable bytes; `m_len_p`: NULL or a
/// writable `size_t`; `c`: NULL or `c_len` readable bytes; `ad`: NULL or
/// `ad_len` readable bytes; `nonce`: NULL or 11 readable bytes; `key`: NULL
/// or `key_len` readable bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // libsodium's shape
pub unsafe extern "C" fn wegman_cwc_decrypt(
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
) -> c_int {
    guard(FAIL, || {
        let m_len = c_len.checked_sub(tag_len).filter(|_| !c.is_null());
        let rc = match m_len {
            // SAFETY: caller contract: c has c_len readable bytes, the tag
            // being the last tag_len of them; m has m_len writable bytes.
            Some(m_len) => unsafe {
                decrypt_raw(m, c, m_len, c.wrapping_add(m_len), tag_len, ad, ad_len, nonce, key, key_len)
            },
            None => FAIL,
        };
        let m_len = if rc == OK { m_len.unwrap_or(0) } else { 0 };
        // SAFETY: caller contract: m_len_p is NULL or a writable size_t.
        unsafe { write_len(m_len_p, m_len) };
        rc
    })
}
