//! libsodium's `crypto_onetimeauth_poly1305` through hand-written
//! declarations, and its ChaCha20-Poly1305 (IETF) as an independent answer
//! for the checks of the ChaCha20-Poly1305 contenders (OpenSSL, aws-lc-rs, ring).

use std::ffi::{CStr, c_char, c_int, c_ulonglong};

// Declarations as in libsodium 1.0.18's headers (core.h, version.h,
// crypto_onetimeauth_poly1305.h, crypto_aead_chacha20poly1305.h).
unsafe extern "C" {
    safe fn sodium_init() -> c_int;
    fn sodium_version_string() -> *const c_char;
    fn crypto_onetimeauth_poly1305(out: *mut u8, inp: *const u8, inlen: c_ulonglong, k: *const u8) -> c_int;
    fn crypto_onetimeauth_poly1305_verify(h: *const u8, inp: *const u8, inlen: c_ulonglong, k: *const u8) -> c_int;
    fn crypto_aead_chacha20poly1305_ietf_encrypt(
        c: *mut u8,
        clen_p: *mut c_ulonglong,
        m: *const u8,
        mlen: c_ulonglong,
        ad: *const u8,
        adlen: c_ulonglong,
        nsec: *const u8,
        npub: *const u8,
        k: *const u8,
    ) -> c_int;
}

/// Proof that `sodium_init` has run (it picks the Poly1305 implementation
/// for this CPU, so calls made before it would time the wrong code).
#[derive(Clone, Copy, Debug)]
pub struct Sodium(());

impl Sodium {
    /// `sodium_init()`: 0 the first time, 1 if already done, -1 on failure.
    pub fn init() -> Result<Self, String> {
        match sodium_init() {
            0 | 1 => Ok(Sodium(())),
            rc => Err(format!("sodium_init() returned {rc}")),
        }
    }

    /// The library version, e.g. "1.0.18".
    pub fn version(self) -> String {
        // SAFETY: sodium_version_string returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(sodium_version_string()) }.to_string_lossy().into_owned()
    }

    /// Poly1305 with the 32-byte key `r || s` (libsodium clamps r itself).
    #[inline]
    pub fn poly1305(self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let mut tag = [0u8; 16];
        // SAFETY: tag has the 16 bytes written; msg.len() bytes are readable at
        // msg.as_ptr(); key has 32 readable bytes; sodium_init has run (self).
        let rc = unsafe { crypto_onetimeauth_poly1305(tag.as_mut_ptr(), msg.as_ptr(), msg.len() as u64, key.as_ptr()) };
        debug_assert_eq!(rc, 0);
        tag
    }

    /// `crypto_onetimeauth_poly1305_verify`: constant-time check of `tag`.
    #[inline]
    pub fn poly1305_verify(self, tag: &[u8; 16], key: &[u8; 32], msg: &[u8]) -> bool {
        // SAFETY: as in poly1305(); tag has 16 readable bytes.
        unsafe { crypto_onetimeauth_poly1305_verify(tag.as_ptr(), msg.as_ptr(), msg.len() as u64, key.as_ptr()) == 0 }
    }

    /// ChaCha20-Poly1305 (RFC 8439, 12-byte nonce), no associated data:
    /// ciphertext || 16-byte tag. Not timed; the answer the ChaCha20-Poly1305
    /// contenders (OpenSSL, aws-lc-rs, ring) are checked against.
    pub fn chacha20poly1305_ietf(self, key: &[u8; 32], nonce: &[u8; 12], msg: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; msg.len() + 16];
        let mut len: c_ulonglong = 0;
        // SAFETY: out has msg.len() + 16 writable bytes (the most the call
        // writes); msg.len() bytes are readable at msg.as_ptr(); no AAD (NULL,
        // 0); nsec must be NULL; nonce has 12 and key 32 readable bytes.
        let rc = unsafe {
            crypto_aead_chacha20poly1305_ietf_encrypt(
                out.as_mut_ptr(),
                &mut len,
                msg.as_ptr(),
                msg.len() as u64,
                std::ptr::null(),
                0,
                std::ptr::null(),
                nonce.as_ptr(),
                key.as_ptr(),
            )
        };
        assert!(rc == 0 && len as usize == out.len(), "crypto_aead_chacha20poly1305_ietf_encrypt failed");
        out
    }
}
