//! Bernstein's original C interface (`poly1305aes.h` of his reference
//! software): same names, same argument order, same meaning, so existing C
//! code links against this library unchanged.
//!
//! * `kr` is 32 bytes, the AES key k followed by r (the paper's §2 key
//!   (k, r)), exactly the layout of [`Key::from_bytes`].
//! * Bernstein requires callers to pass a clamped `kr`. Here an unclamped
//!   `kr` is treated as if `poly1305aes_clamp` had been applied to it
//!   ([`Key::from_bytes_clamped`]): a defined result instead of whatever an
//!   implementation that assumes clamping happens to compute.
//! * Pointers other than `m` (when `l == 0`) must not be NULL; if one is,
//!   the function does nothing harmful and reports failure where it can
//!   (see each function).

use core::ffi::{c_int, c_uchar, c_uint};

use wegman::poly1305aes::{self, KEY_BYTES, Key, NONCE_BYTES, TAG_BYTES, clamp};

use crate::ffi::{array, array_mut, guard, guard_void, message, write16};

/// `void poly1305aes_clamp(unsigned char kr[32])`: clear the 22 bits of r
/// (`kr[16..32]`) that §2 requires to be zero, leaving k untouched. Turns any
/// 32 random bytes into a valid key. Does nothing if `kr` is NULL.
///
/// # Safety
/// `kr` must be NULL or point to 32 writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn poly1305aes_clamp(kr: *mut c_uchar) {
    guard_void(|| {
        // SAFETY: caller contract: kr is NULL or 32 writable bytes.
        let Some(kr) = (unsafe { array_mut::<KEY_BYTES>(kr) }) else { return };
        let r: &mut [u8; 16] = (&mut kr[16..]).try_into().expect("kr[16..32] is 16 bytes");
        clamp(r);
    });
}

/// `void poly1305aes_authenticate(unsigned char out[16], const unsigned char
/// kr[32], const unsigned char n[16], const unsigned char m[], unsigned int
/// l)`: `out = Poly1305_r(m, AES_k(n))`.
///
/// `out` may overlap the inputs. If `kr`, `n`, or `m` (with `l > 0`) is
/// NULL, 16 zero bytes are written to `out` (when `out` is not NULL).
///
/// # Safety
/// `out`: NULL or 16 writable bytes; `kr`: NULL or 32 readable bytes; `n`:
/// NULL or 16 readable bytes; `m`: NULL or `l` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn poly1305aes_authenticate(
    out: *mut c_uchar,
    kr: *const c_uchar,
    n: *const c_uchar,
    m: *const c_uchar,
    l: c_uint,
) {
    guard_void(|| {
        // SAFETY: caller contract: each pointer is NULL or valid for its
        // stated length; they are only read, and only before `out` is written.
        let tag = unsafe { authenticate_clamped(kr, n, m, l as usize) };
        // SAFETY: caller contract: out is NULL or 16 writable bytes; the
        // input borrows above have ended.
        unsafe { write16(out, &tag.unwrap_or([0; TAG_BYTES])) };
    });
}

/// `int poly1305aes_verify(const unsigned char a[16], const unsigned char
/// kr[32], const unsigned char n[16], const unsigned char m[], unsigned int
/// l)`: 1 if `a` is the authenticator of `m` under `kr` and `n`, else 0.
/// The comparison takes the same time wherever `a` differs.
///
/// Returns 0 if any required pointer is NULL, and 0 (never a nonzero
/// "true") if anything goes wrong internally.
///
/// # Safety
/// `a`, `n`: NULL or 16 readable bytes; `kr`: NULL or 32 readable bytes;
/// `m`: NULL or `l` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn poly1305aes_verify(
    a: *const c_uchar,
    kr: *const c_uchar,
    n: *const c_uchar,
    m: *const c_uchar,
    l: c_uint,
) -> c_int {
    guard(0, || {
        // SAFETY: caller contract: each pointer is NULL or valid for reads
        // of its stated length.
        let inputs =
            unsafe { (array::<TAG_BYTES>(a), array::<KEY_BYTES>(kr), array::<NONCE_BYTES>(n), message(m, l as usize)) };
        let (Some(a), Some(kr), Some(n), Some(m)) = inputs else { return 0 };
        let key = Key::from_bytes_clamped(kr);
        c_int::from(poly1305aes::verify(&key, a, n, m).is_ok())
    })
}

/// The tag for Bernstein's argument list, or `None` on a NULL input.
///
/// # Safety
/// `kr`: NULL or 32 readable bytes; `n`: NULL or 16 readable bytes; `m`:
/// NULL or `len` readable bytes; none written to during the call.
unsafe fn authenticate_clamped(kr: *const u8, n: *const u8, m: *const u8, len: usize) -> Option<[u8; TAG_BYTES]> {
    // SAFETY: forwarded caller contract.
    let (kr, n, m) = unsafe { (array::<KEY_BYTES>(kr)?, array::<NONCE_BYTES>(n)?, message(m, len)?) };
    let key = Key::from_bytes_clamped(kr);
    Some(poly1305aes::authenticate(&key, n, m))
}
