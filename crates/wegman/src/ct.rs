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
