//! Constant-time helpers, all built on `subtle`.

use subtle::ConstantTimeEq;

/// Tag equality without data-dependent branches or early exit.
#[inline]
pub fn eq16(a: &[u8; 16], b: &[u8; 16]) -> bool {
    bool::from(a.ct_eq(b))
}

/// Equality of two byte strings of the same public length.
#[inline]
pub fn eq(a: &[u8], b: &[u8]) -> bool {
    bool::from(a.ct_eq(b))
}

/// Hide a value from the optimizer so that a mask built from a comparison
/// stays a mask: without it LLVM may turn `(a & m) | (b & !m)` back into a
/// compare-and-branch on secret data (seen on MMH32's final reduction under
/// valgrind's ctgrind check). Every constant-time select in the backends
/// passes its mask through here.
#[inline(always)]
pub(crate) fn opaque<T>(x: T) -> T {
    core::hint::black_box(x)
}
