//! The only place that turns C pointers into Rust references, plus the
//! panic guards every exported function runs its body in.
//!
//! Every exported function follows one pattern: check pointers here (NULL
//! and lengths are turned into `None`, never dereferenced), compute into a
//! local, then write the result through [`write16`] or [`write()`]. Results
//! are written only after every input has been read, so an output buffer
//! that overlaps an input (`out == m`, as C callers sometimes do) is
//! harmless.
//!
//! The one exception is CWC encryption, which works in its output buffer
//! ([`message_mut`]) and reads the associated data after writing it: there
//! [`overlap`] refuses the overlaps that would change an input before it is
//! read (or alias a `&mut` with a `&`), and `c == m` is the in-place case.

use core::ffi::c_int;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Return value of the `wegman_*` functions on success.
pub(crate) const OK: c_int = 0;
/// Return value of the `wegman_*` functions on any failure.
pub(crate) const FAIL: c_int = -1;

/// Run `body`, turning a panic into `on_panic` instead of unwinding into C.
///
/// The library is not expected to panic on any input; this is belt and
/// braces (and since Rust 1.81 an unwind out of `extern "C"` would abort
/// rather than be undefined, so the guard only picks a gentler outcome).
pub(crate) fn guard(on_panic: c_int, body: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(on_panic)
}

/// [`guard`] for functions that return nothing: a panic aborts the process,
/// since there is no way to tell the caller that no result was written.
pub(crate) fn guard_void(body: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(body)).is_err() {
        std::process::abort();
    }
}

/// Borrow `N` bytes at `ptr`, or `None` if `ptr` is NULL.
///
/// # Safety
/// `ptr` must be NULL or valid for reads of `N` bytes that nothing writes to
/// while the returned reference is in use. (`[u8; N]` has alignment 1, so
/// any non-NULL pointer is aligned.)
pub(crate) unsafe fn array<'a, const N: usize>(ptr: *const u8) -> Option<&'a [u8; N]> {
    // SAFETY: the caller guarantees ptr is NULL or points to N readable,
    // unaliased-by-writers bytes; `as_ref` maps NULL to None.
    unsafe { ptr.cast::<[u8; N]>().as_ref() }
}

/// Borrow `N` bytes at `ptr` mutably, or `None` if `ptr` is NULL.
///
/// # Safety
/// `ptr` must be NULL or valid for reads and writes of `N` bytes that
/// nothing else accesses while the returned reference is in use.
pub(crate) unsafe fn array_mut<'a, const N: usize>(ptr: *mut u8) -> Option<&'a mut [u8; N]> {
    // SAFETY: as for `array`, with exclusive access guaranteed by the caller.
    unsafe { ptr.cast::<[u8; N]>().as_mut() }
}

/// Borrow the message `m[0..len]`. An empty message needs no pointer (C
/// callers pass NULL for it); a NULL `m` with `len > 0` gives `None`, as
/// does a `len` no C object can have.
///
/// # Safety
/// If `len > 0` and `m` is not NULL, `m` must be valid for reads of `len`
/// bytes that nothing writes to while the returned slice is in use.
pub(crate) unsafe fn message<'a>(m: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if m.is_null() || len > isize::MAX as usize {
        return None;
    }
    // SAFETY: m is non-NULL, the caller guarantees len readable bytes, and
    // len <= isize::MAX was checked above, as `from_raw_parts` requires.
    Some(unsafe { core::slice::from_raw_parts(m, len) })
}

/// Borrow `len` bytes at `ptr`, which is required: `None` if `ptr` is NULL
/// (even when `len` is 0) or `len` is larger than any C object. For inputs
/// whose length the caller passes but which may never be absent (a CWC key
/// or tag).
///
/// # Safety
/// If `ptr` is not NULL it must be valid for reads of `len` bytes that
/// nothing writes to while the returned slice is in use.
pub(crate) unsafe fn required<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: ptr is non-NULL; forwarded caller contract.
    unsafe { message(ptr, len) }
}

/// Borrow the output buffer `out[0..len]` mutably. Like [`message`], an
/// empty buffer needs no pointer; a NULL `out` with `len > 0`, or a `len` no
/// C object can have, gives `None`.
///
/// # Safety
/// If `len > 0` and `out` is not NULL, `out` must be valid for reads and
/// writes of `len` bytes that nothing else accesses while the returned slice
/// is in use.
pub(crate) unsafe fn message_mut<'a>(out: *mut u8, len: usize) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if out.is_null() || len > isize::MAX as usize {
        return None;
    }
    // SAFETY: out is non-NULL, the caller guarantees len bytes it alone
    // accesses, and len <= isize::MAX, as `from_raw_parts_mut` requires.
    Some(unsafe { core::slice::from_raw_parts_mut(out, len) })
}

/// Whether the byte ranges `a[0..a_len]` and `b[0..b_len]` share a byte.
/// Empty ranges overlap nothing. Only addresses are compared; nothing is
/// dereferenced.
pub(crate) fn overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    let (a, b) = (a.addr(), b.addr());
    a_len != 0 && b_len != 0 && a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

/// Write `value` to `out` if it is not NULL; returns whether it was.
///
/// # Safety
/// `out` must be NULL or valid for writes of `value.len()` bytes, and no
/// Rust reference into those bytes may be in use.
pub(crate) unsafe fn write(out: *mut u8, value: &[u8]) -> bool {
    if out.is_null() {
        return false;
    }
    // SAFETY: out is non-NULL and, by the caller's contract, writable for
    // value.len() bytes that no Rust reference (so not `value`) covers.
    unsafe { core::ptr::copy_nonoverlapping(value.as_ptr(), out, value.len()) };
    true
}

/// Store `value` in `*p` if `p` is not NULL (a `size_t *` result such as
/// `c_len_p`; it need not be aligned).
///
/// # Safety
/// `p` must be NULL or valid for writes of a `size_t`, with no Rust
/// reference into it in use.
pub(crate) unsafe fn write_len(p: *mut usize, value: usize) {
    if !p.is_null() {
        // SAFETY: p is non-NULL and writable (caller contract);
        // `write_unaligned` needs no alignment.
        unsafe { p.write_unaligned(value) };
    }
}

/// Write 16 bytes to `out` if it is not NULL; returns whether it was.
///
/// # Safety
/// `out` must be NULL or valid for writes of 16 bytes, and no Rust
/// reference into those bytes may be in use.
pub(crate) unsafe fn write16(out: *mut u8, value: &[u8; 16]) -> bool {
    if out.is_null() {
        return false;
    }
    // SAFETY: out is non-NULL and, by the caller's contract, writable for 16
    // bytes; `value` is a distinct Rust object, so the copy cannot overlap.
    unsafe { core::ptr::copy_nonoverlapping(value.as_ptr(), out, 16) };
    true
}

/// Write `result`'s tag to `out`, or 16 zero bytes if there is none, and
/// turn it into the `wegman_*` return convention.
///
/// # Safety
/// As for [`write16`].
pub(crate) unsafe fn write_tag_or_zeros(out: *mut u8, result: Option<[u8; 16]>) -> c_int {
    // SAFETY: forwarded caller contract.
    let written = unsafe { write16(out, result.as_ref().unwrap_or(&[0; 16])) };
    if written && result.is_some() { OK } else { FAIL }
}
