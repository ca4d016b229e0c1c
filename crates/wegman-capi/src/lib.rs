//! # wegman-capi — the C ABI of wegman (`libwegman_c.a` / `libwegman_c.so`)
//!
//! Two interfaces to Poly1305-AES, declared in `include/wegman.h`:
//!
//! * [`bernstein`] — `poly1305aes_clamp`, `poly1305aes_authenticate`,
//!   `poly1305aes_verify`, exactly as in Bernstein's software
//!   (`include/poly1305aes.h`), so existing C programs relink unchanged.
//! * `wegman_*` — libsodium conventions: `size_t` lengths, 0 on success and
//!   -1 on failure, keys with forbidden r bits rejected rather than clamped:
//!   one-shot ([`oneshot`]), streaming with a caller-owned fixed-size state
//!   ([`stream`]), the Poly1305 core with any pad, and `_BYTES` constants
//!   paired with functions.
//!
//! Two more families, `wegman_*` only:
//!
//! * [`mmh`] — the seven MMH/NMH Wegman–Carter MACs (`wegman_mmh32` …
//!   `wegman_mmh64x2`, each with `_verify` and `_BYTES` constants).
//! * [`cwc`] — CWC-AES authenticated encryption, detached and combined.
//!
//! No function panics across the boundary or dereferences a NULL pointer:
//! NULL is checked where the header says a pointer is required, and `m` may
//! be NULL when the length is 0. Pointer conversion lives in one module,
//! `ffi`; every `unsafe` block states the caller contract it relies on.
//! `include/wegman.h` is checked against these exports by
//! `tests/c_api.rs`.

pub mod bernstein;
pub mod cwc;
pub mod cwc_parallel;
mod ffi;
pub mod mmh;
pub mod oneshot;
pub mod stream;
#[cfg(test)]
mod tests;

pub use bernstein::{poly1305aes_authenticate, poly1305aes_clamp, poly1305aes_verify};
pub use cwc::{
    WEGMAN_CWC_ABYTES, WEGMAN_CWC_KEYBYTES_MAX, WEGMAN_CWC_KEYBYTES_MIN, WEGMAN_CWC_MESSAGEBYTES_MAX,
    WEGMAN_CWC_NONCEBYTES, wegman_cwc_abytes, wegman_cwc_decrypt, wegman_cwc_decrypt_detached, wegman_cwc_encrypt,
    wegman_cwc_encrypt_detached, wegman_cwc_keybytes_max, wegman_cwc_keybytes_min, wegman_cwc_messagebytes_max,
    wegman_cwc_noncebytes,
};
pub use cwc_parallel::{wegman_cwc_decrypt_parallel, wegman_cwc_encrypt_parallel};
pub use mmh::*;
pub use oneshot::{
    wegman_poly1305, wegman_poly1305aes_authenticate, wegman_poly1305aes_authenticate_parallel,
    wegman_poly1305aes_verify, wegman_poly1305aes_verify_parallel,
};
pub use stream::{
    Poly1305AesState, wegman_poly1305aes_final, wegman_poly1305aes_final_verify, wegman_poly1305aes_init,
    wegman_poly1305aes_update,
};

use wegman::poly1305aes::{KEY_BYTES, NONCE_BYTES, TAG_BYTES};

/// `WEGMAN_POLY1305AES_KEYBYTES`: a key is `k || r`, 32 bytes.
pub const WEGMAN_POLY1305AES_KEYBYTES: usize = 32;
/// `WEGMAN_POLY1305AES_NONCEBYTES`.
pub const WEGMAN_POLY1305AES_NONCEBYTES: usize = 16;
/// `WEGMAN_POLY1305AES_BYTES`: length of an authenticator.
pub const WEGMAN_POLY1305AES_BYTES: usize = 16;
/// `WEGMAN_POLY1305AES_STATEBYTES`: `sizeof(wegman_poly1305aes_state)`, fixed
/// for the life of the ABI (room for future SIMD backends).
pub const WEGMAN_POLY1305AES_STATEBYTES: usize = 512;
/// `_Alignof(wegman_poly1305aes_state)`.
pub const STATE_ALIGN: usize = 64;

// The header's numbers are the library's numbers.
const _: () = {
    assert!(WEGMAN_POLY1305AES_KEYBYTES == KEY_BYTES);
    assert!(WEGMAN_POLY1305AES_NONCEBYTES == NONCE_BYTES);
    assert!(WEGMAN_POLY1305AES_BYTES == TAG_BYTES);
};

/// `size_t wegman_poly1305aes_keybytes(void)`: [`WEGMAN_POLY1305AES_KEYBYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_poly1305aes_keybytes() -> usize {
    WEGMAN_POLY1305AES_KEYBYTES
}

/// `size_t wegman_poly1305aes_noncebytes(void)`: [`WEGMAN_POLY1305AES_NONCEBYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_poly1305aes_noncebytes() -> usize {
    WEGMAN_POLY1305AES_NONCEBYTES
}

/// `size_t wegman_poly1305aes_bytes(void)`: [`WEGMAN_POLY1305AES_BYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_poly1305aes_bytes() -> usize {
    WEGMAN_POLY1305AES_BYTES
}

/// `size_t wegman_poly1305aes_statebytes(void)`: [`WEGMAN_POLY1305AES_STATEBYTES`].
#[unsafe(no_mangle)]
pub extern "C" fn wegman_poly1305aes_statebytes() -> usize {
    WEGMAN_POLY1305AES_STATEBYTES
}
