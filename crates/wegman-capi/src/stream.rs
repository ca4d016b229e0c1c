//! Streaming Poly1305-AES for C: a fixed-size, 64-byte-aligned opaque state
//! the caller can keep on its stack (libsodium's shape), driven by
//! `wegman_poly1305aes_init` / `_update` / `_final` / `_final_verify`.
//!
//! # Layout of the 512 opaque bytes
//! * `[0, size_of::<Poly1305Aes>())`: the Rust [`Poly1305Aes`] value, moved
//!   in by init and moved out by final. 512 bytes and 64-byte alignment leave
//!   room for future SIMD backends without changing the C ABI.
//! * `[504, 512)`: an "initialized" marker, written last by a successful
//!   init. update and final refuse a state without it, so a zero-initialized
//!   state, a state after final (which wipes all 512 bytes), and a state
//!   whose init failed give -1 rather than undefined behaviour. A
//!   never-initialized state of random stack bytes is still the caller's
//!   bug: the marker only makes it very unlikely to go unnoticed.

use core::ffi::c_int;
use core::sync::atomic::{Ordering, compiler_fence};

use wegman::poly1305aes::{KEY_BYTES, Key, NONCE_BYTES, Poly1305Aes, TAG_BYTES};

use crate::ffi::{FAIL, OK, array, guard, message, write_tag_or_zeros};
use crate::{STATE_ALIGN, WEGMAN_POLY1305AES_STATEBYTES as STATE_BYTES};

/// C `wegman_poly1305aes_state`: `typedef struct wegman_poly1305aes_state {
/// _Alignas(64) unsigned char opaque[512]; } wegman_poly1305aes_state;`
#[repr(C, align(64))]
pub struct Poly1305AesState {
    opaque: [u8; STATE_BYTES],
}

impl Poly1305AesState {
    /// An all-zero state, as C's `= {0}` gives; init must still be called.
    pub const fn new() -> Self {
        Poly1305AesState { opaque: [0; STATE_BYTES] }
    }

    /// The raw bytes, for tests that check the wipe.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> &[u8; STATE_BYTES] {
        &self.opaque
    }
}

impl Default for Poly1305AesState {
    fn default() -> Self {
        Self::new()
    }
}

/// Offset of the initialized marker: the last 8 bytes.
const MAGIC_OFFSET: usize = STATE_BYTES - 8;
/// "initialized" marker; any value that zeroed memory is unlikely to hold.
const MAGIC: u64 = u64::from_le_bytes(*b"wgmP13AS");

// The C header promises 512 bytes aligned to 64, and the Rust value plus
// the marker must fit inside without overlapping.
const _: () = {
    assert!(size_of::<Poly1305AesState>() == STATE_BYTES);
    assert!(align_of::<Poly1305AesState>() == STATE_ALIGN);
    assert!(size_of::<Poly1305Aes>() <= MAGIC_OFFSET);
    assert!(align_of::<Poly1305Aes>() <= STATE_ALIGN);
    assert!(MAGIC_OFFSET.is_multiple_of(align_of::<u64>()));
};

/// `st`, if it is non-NULL and aligned as the C type declares. (A state
/// from plain `malloc` may be only 16-byte aligned; it is refused so that a
/// future 64-byte-aligned backend cannot break such callers silently.)
fn checked(st: *mut Poly1305AesState) -> Option<*mut Poly1305AesState> {
    (!st.is_null() && st.addr().is_multiple_of(STATE_ALIGN)).then_some(st)
}

/// The marker's address inside `st`.
fn magic(st: *mut Poly1305AesState) -> *mut u64 {
    st.cast::<u8>().wrapping_add(MAGIC_OFFSET).cast()
}

/// Overwrite all 512 bytes with zeros in a way the optimizer keeps.
///
/// # Safety
/// `st` must be non-NULL, aligned, and point to a writable state with no
/// Rust reference into it in use.
unsafe fn wipe(st: *mut Poly1305AesState) {
    let bytes = st.cast::<u8>();
    for i in 0..STATE_BYTES {
        // SAFETY: i < 512 = size of *st, which the caller lets us write.
        unsafe { bytes.add(i).write_volatile(0) };
    }
    compiler_fence(Ordering::SeqCst);
}

/// The live [`Poly1305Aes`] inside `st`, if init succeeded on it.
///
/// # Safety
/// `st` must be NULL or point to a `wegman_poly1305aes_state` that nothing
/// else accesses during `'a`, and that is initialized memory (zeroed, or
/// last written by this module).
unsafe fn live<'a>(st: *mut Poly1305AesState) -> Option<&'a mut Poly1305Aes> {
    let st = checked(st)?;
    // SAFETY: st is non-NULL and 64-aligned, so the u64 at offset 504 is
    // in bounds and aligned; the caller guarantees it is readable.
    if unsafe { magic(st).read() } != MAGIC {
        return None;
    }
    // SAFETY: the marker is only written after a Poly1305Aes was moved to
    // offset 0 (aligned: align_of::<Poly1305Aes>() <= 64, asserted above),
    // and final wipes the marker when it moves the value out; the caller
    // guarantees exclusive access for 'a.
    Some(unsafe { &mut *st.cast::<Poly1305Aes>() })
}

/// Move the live value out of `st` and wipe all of `st` (whether or not it
/// held a live value), leaving only zeros behind.
///
/// # Safety
/// As for [`live`].
unsafe fn take(st: *mut Poly1305AesState) -> Option<Poly1305Aes> {
    let st_ok = checked(st)?;
    // SAFETY: forwarded caller contract; `live`'s borrow ends in this statement.
    let mac = unsafe { live(st_ok) }.map(|mac| {
        // SAFETY: `mac` is a valid, aligned Poly1305Aes; reading moves it
        // out, and the bytes left behind are wiped below and never used as
        // a Poly1305Aes again (the marker is gone).
        unsafe { core::ptr::read(mac) }
    });
    // SAFETY: checked() ensured non-NULL and aligned; the caller lets us
    // write; no reference into *st is alive any more.
    unsafe { wipe(st_ok) };
    mac
}

/// `int wegman_poly1305aes_init(wegman_poly1305aes_state *st, const uint8_t
/// key[32], const uint8_t nonce[16])`.
///
/// Start authenticating a message under `key = k || r` and `nonce`. Returns
/// 0, or -1 (with `st` wiped) if r has forbidden bits, a pointer is NULL or
/// `st` is not 64-byte aligned. May be called again on a live state to
/// start over.
///
/// # Safety
/// `st`: NULL or a writable `wegman_poly1305aes_state`; `key`: NULL or 32
/// readable bytes; `nonce`: NULL or 16 readable bytes; neither inside `*st`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_init(st: *mut Poly1305AesState, key: *const u8, nonce: *const u8) -> c_int {
    guard(FAIL, || {
        let Some(st) = checked(st) else { return FAIL };
        // SAFETY: caller contract: key and nonce are NULL or readable for
        // their lengths; the borrows end before *st is written.
        let inputs = unsafe { (array::<KEY_BYTES>(key), array::<NONCE_BYTES>(nonce)) };
        let mac = match inputs {
            (Some(key), Some(nonce)) => Key::from_bytes(key).ok().map(|key| Poly1305Aes::new(&key, nonce)),
            _ => None,
        };
        // SAFETY: st is non-NULL, aligned and writable (caller contract). An
        // old live value is overwritten without running its destructor,
        // which only zeroizes, as this wipe does.
        unsafe { wipe(st) };
        let Some(mac) = mac else { return FAIL };
        // SAFETY: offset 0 of *st is aligned for Poly1305Aes and large enough
        // (asserted at compile time); the marker goes in last.
        unsafe {
            st.cast::<Poly1305Aes>().write(mac);
            magic(st).write(MAGIC);
        }
        OK
    })
}

/// `int wegman_poly1305aes_update(wegman_poly1305aes_state *st, const
/// uint8_t *m, size_t len)`.
///
/// Absorb `m[0..len]`; any split of a message gives the same tag. Requires
/// a state on which init succeeded and final has not run since; returns -1
/// (state unchanged) otherwise, or if `m` is NULL with `len > 0`.
///
/// # Safety
/// `st`: NULL or a `wegman_poly1305aes_state` that is zeroed or was passed
/// to init; `m`: NULL or `len` readable bytes outside `*st`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_update(st: *mut Poly1305AesState, m: *const u8, len: usize) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract: st as `live` requires, m readable and not
        // overlapping *st, so the two borrows are disjoint.
        let (Some(mac), Some(m)) = (unsafe { (live(st), message(m, len)) }) else { return FAIL };
        mac.update(m);
        OK
    })
}

/// `int wegman_poly1305aes_final(wegman_poly1305aes_state *st, uint8_t
/// out[16])`.
///
/// Write the authenticator to `out` and wipe `st`. Returns 0, or -1 with
/// `out` zeroed if `st` is not live (see update) or `out` is NULL. `st` is
/// wiped in every case where it is non-NULL and aligned.
///
/// # Safety
/// `st`: as for update; `out`: NULL or 16 writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_final(st: *mut Poly1305AesState, out: *mut u8) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract for st; the value is moved out and *st
        // wiped before `out` (which might point into *st) is written.
        let mac = unsafe { take(st) };
        let tag = mac.map(Poly1305Aes::finalize);
        // SAFETY: caller contract: out is NULL or 16 writable bytes.
        unsafe { write_tag_or_zeros(out, tag) }
    })
}

/// `int wegman_poly1305aes_final_verify(wegman_poly1305aes_state *st, const
/// uint8_t tag[16])`.
///
/// 0 if `tag` authenticates the absorbed message, -1 if it does not, if
/// `st` is not live, or if `tag` is NULL. Constant-time in `tag`. `st` is
/// wiped in every case where it is non-NULL and aligned.
///
/// # Safety
/// `st`: as for update; `tag`: NULL or 16 readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wegman_poly1305aes_final_verify(st: *mut Poly1305AesState, tag: *const u8) -> c_int {
    guard(FAIL, || {
        // SAFETY: caller contract for st; *st is wiped before `tag` is read.
        let mac = unsafe { take(st) };
        // SAFETY: caller contract: tag is NULL or 16 readable bytes.
        let tag = unsafe { array::<TAG_BYTES>(tag) };
        let (Some(mac), Some(tag)) = (mac, tag) else { return FAIL };
        if mac.verify(tag).is_ok() { OK } else { FAIL }
    })
}
