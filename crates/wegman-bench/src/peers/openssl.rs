//! OpenSSL 3 (libcrypto) through hand-written declarations of the few EVP
//! functions the benchmark calls, wrapped in safe types whose slice lengths
//! are fixed by their signatures or checked before each call.
//!
//! Algorithms are fetched once (`EVP_CIPHER_fetch`, `EVP_MAC_fetch`) and
//! contexts are reused across calls, as a careful OpenSSL 3 user does; what
//! each call re-does (the key set-up or only the nonce) is the caller's choice.

use std::ffi::{CStr, c_char, c_int, c_ulong, c_void};
use std::ptr::{self, NonNull};

/// Opaque OpenSSL types.
#[repr(C)]
struct EvpCipher {
    _opaque: [u8; 0],
}
#[repr(C)]
struct EvpCipherCtx {
    _opaque: [u8; 0],
}
#[repr(C)]
struct EvpMac {
    _opaque: [u8; 0],
}
#[repr(C)]
struct EvpMacCtx {
    _opaque: [u8; 0],
}

/// `EVP_CTRL_AEAD_GET_TAG` and `EVP_CTRL_AEAD_SET_TAG` (openssl/evp.h).
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
/// `OPENSSL_VERSION` for `OpenSSL_version` (openssl/crypto.h).
const OPENSSL_VERSION: c_int = 0;

// Declarations as in OpenSSL 3.0's headers (evp.h, crypto.h, err.h).
unsafe extern "C" {
    safe fn OpenSSL_version_num() -> c_ulong;
    fn OpenSSL_version(t: c_int) -> *const c_char;
    safe fn ERR_get_error() -> c_ulong;
    fn ERR_error_string_n(e: c_ulong, buf: *mut c_char, len: usize);

    fn EVP_CIPHER_fetch(libctx: *mut c_void, algorithm: *const c_char, properties: *const c_char) -> *mut EvpCipher;
    fn EVP_CIPHER_free(cipher: *mut EvpCipher);
    fn EVP_CIPHER_get_key_length(cipher: *const EvpCipher) -> c_int;
    fn EVP_CIPHER_get_iv_length(cipher: *const EvpCipher) -> c_int;
    fn EVP_CIPHER_CTX_new() -> *mut EvpCipherCtx;
    fn EVP_CIPHER_CTX_free(ctx: *mut EvpCipherCtx);
    fn EVP_CIPHER_CTX_set_padding(ctx: *mut EvpCipherCtx, pad: c_int) -> c_int;
    fn EVP_CIPHER_CTX_ctrl(ctx: *mut EvpCipherCtx, kind: c_int, arg: c_int, ptr: *mut c_void) -> c_int;
    fn EVP_EncryptInit_ex2(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        key: *const u8,
        iv: *const u8,
        params: *const c_void,
    ) -> c_int;
    fn EVP_EncryptUpdate(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int, inp: *const u8, inl: c_int) -> c_int;
    fn EVP_EncryptFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int) -> c_int;
    fn EVP_DecryptInit_ex2(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        key: *const u8,
        iv: *const u8,
        params: *const c_void,
    ) -> c_int;
    fn EVP_DecryptUpdate(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int, inp: *const u8, inl: c_int) -> c_int;
    fn EVP_DecryptFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int) -> c_int;

    fn EVP_MAC_fetch(libctx: *mut c_void, algorithm: *const c_char, properties: *const c_char) -> *mut EvpMac;
    fn EVP_MAC_free(mac: *mut EvpMac);
    fn EVP_MAC_CTX_new(mac: *mut EvpMac) -> *mut EvpMacCtx;
    fn EVP_MAC_CTX_free(ctx: *mut EvpMacCtx);
    fn EVP_MAC_init(ctx: *mut EvpMacCtx, key: *const u8, keylen: usize, params: *const c_void) -> c_int;
    fn EVP_MAC_update(ctx: *mut EvpMacCtx, data: *const u8, datalen: usize) -> c_int;
    fn EVP_MAC_final(ctx: *mut EvpMacCtx, out: *mut u8, outl: *mut usize, outsize: usize) -> c_int;

    fn CRYPTO_memcmp(a: *const c_void, b: *const c_void, len: usize) -> c_int;
}

/// Proof that the linked libcrypto is OpenSSL 3 (EVP_MAC, `_ex2` inits).
#[derive(Clone, Copy, Debug)]
pub struct Libcrypto(());

impl Libcrypto {
    /// Check the run-time library version.
    pub fn init() -> Result<Self, String> {
        let v = OpenSSL_version_num();
        if v < 0x3000_0000 {
            return Err(format!("OpenSSL 3 is required, the linked libcrypto is {v:#x}"));
        }
        Ok(Libcrypto(()))
    }

    /// The version string, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    pub fn version(self) -> String {
        // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string.
        let s = unsafe { CStr::from_ptr(OpenSSL_version(OPENSSL_VERSION)) };
        s.to_string_lossy().into_owned()
    }
}

/// Abort with OpenSSL's error queue; reached only if a call fails, which for
/// valid inputs means a broken installation.
#[cold]
#[inline(never)]
fn fail(what: &str) -> ! {
    let mut msg = String::new();
    loop {
        let e = ERR_get_error();
        if e == 0 {
            break;
        }
        let mut buf = [0 as c_char; 256];
        // SAFETY: buf is writable for buf.len() bytes; OpenSSL NUL-terminates within it.
        let s = unsafe {
            ERR_error_string_n(e, buf.as_mut_ptr(), buf.len());
            CStr::from_ptr(buf.as_ptr())
        };
        msg.push_str("; ");
        msg.push_str(&s.to_string_lossy());
    }
    panic!("OpenSSL: {what} failed{msg}");
}

fn check(rc: c_int, what: &str) {
    if rc != 1 {
        fail(what);
    }
}

fn c_len(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or_else(|_| panic!("OpenSSL: {n} bytes exceed an int"))
}

/// A fetched cipher algorithm together with one context using it.
struct CipherCtx {
    cipher: NonNull<EvpCipher>,
    ctx: NonNull<EvpCipherCtx>,
    key_len: usize,
    iv_len: usize,
}

impl CipherCtx {
    fn new(_: Libcrypto, name: &CStr) -> Self {
        // SAFETY: name is NUL-terminated; NULL libctx/properties select the defaults.
        let cipher = unsafe { EVP_CIPHER_fetch(ptr::null_mut(), name.as_ptr(), ptr::null()) };
        let Some(cipher) = NonNull::new(cipher) else { fail("EVP_CIPHER_fetch") };
        // SAFETY: cipher is a live fetched EVP_CIPHER.
        let (key_len, iv_len) =
            unsafe { (EVP_CIPHER_get_key_length(cipher.as_ptr()), EVP_CIPHER_get_iv_length(cipher.as_ptr())) };
        // SAFETY: plain constructor.
        let ctx = unsafe { EVP_CIPHER_CTX_new() };
        let Some(ctx) = NonNull::new(ctx) else { fail("EVP_CIPHER_CTX_new") };
        let this = CipherCtx { cipher, ctx, key_len: key_len as usize, iv_len: iv_len as usize };
        // SAFETY: both pointers are live; NULL key and iv are allowed and set later.
        check(
            unsafe { EVP_EncryptInit_ex2(ctx.as_ptr(), cipher.as_ptr(), ptr::null(), ptr::null(), ptr::null()) },
            "EVP_EncryptInit_ex2(cipher)",
        );
        this
    }

    /// `EVP_EncryptInit_ex2(ctx, NULL, key, iv, NULL)`: keep the cipher,
    /// replace the key and/or the nonce.
    #[inline]
    fn encrypt_init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>) {
        assert!(key.is_none_or(|k| k.len() == self.key_len) && iv.is_none_or(|v| v.len() == self.iv_len));
        let key = key.map_or(ptr::null(), <[u8]>::as_ptr);
        let iv = iv.map_or(ptr::null(), <[u8]>::as_ptr);
        // SAFETY: ctx is live and was initialised with a cipher; key and iv are
        // NULL or point to exactly the lengths the cipher reads (asserted above).
        check(unsafe { EVP_EncryptInit_ex2(self.ctx.as_ptr(), ptr::null(), key, iv, ptr::null()) }, "EncryptInit");
    }

    /// `EVP_EncryptUpdate` of `inp` into `out` (at least as long).
    #[inline]
    fn encrypt_update(&mut self, out: &mut [u8], inp: &[u8]) -> usize {
        assert!(out.len() >= inp.len());
        let mut outl: c_int = 0;
        // SAFETY: for the stream-like modes used here (GCM, ChaCha20-Poly1305,
        // and ECB on whole blocks) OpenSSL writes at most inp.len() bytes to out,
        // which holds at least that many.
        check(
            unsafe {
                EVP_EncryptUpdate(self.ctx.as_ptr(), out.as_mut_ptr(), &mut outl, inp.as_ptr(), c_len(inp.len()))
            },
            "EncryptUpdate",
        );
        outl as usize
    }

    /// `EVP_EncryptFinal_ex` (writes nothing for the AEADs) and the 16-byte tag.
    #[inline]
    fn encrypt_final_tag(&mut self) -> [u8; 16] {
        let mut none = [0u8; 16];
        let mut outl: c_int = 0;
        let mut tag = [0u8; 16];
        // SAFETY: Final writes at most one block (16 bytes) to none; GET_TAG
        // writes exactly arg = 16 bytes to tag.
        unsafe {
            check(EVP_EncryptFinal_ex(self.ctx.as_ptr(), none.as_mut_ptr(), &mut outl), "EncryptFinal");
            check(
                EVP_CIPHER_CTX_ctrl(self.ctx.as_ptr(), EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast()),
                "GET_TAG",
            );
        }
        tag
    }
}

impl CipherCtx {
    /// `EVP_DecryptInit_ex2(ctx, NULL, key, iv, NULL)`: keep the cipher,
    /// replace the key and/or the nonce, and decrypt from now on.
    #[inline]
    fn decrypt_init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>) {
        assert!(key.is_none_or(|k| k.len() == self.key_len) && iv.is_none_or(|v| v.len() == self.iv_len));
        let key = key.map_or(ptr::null(), <[u8]>::as_ptr);
        let iv = iv.map_or(ptr::null(), <[u8]>::as_ptr);
        // SAFETY: as in encrypt_init.
        check(unsafe { EVP_DecryptInit_ex2(self.ctx.as_ptr(), ptr::null(), key, iv, ptr::null()) }, "DecryptInit");
    }

    /// `EVP_DecryptUpdate` of `inp` into `out` (at least as long).
    #[inline]
    fn decrypt_update(&mut self, out: &mut [u8], inp: &[u8]) -> usize {
        assert!(out.len() >= inp.len());
        let mut outl: c_int = 0;
        // SAFETY: as in encrypt_update: the AEADs write at most inp.len() bytes.
        check(
            unsafe {
                EVP_DecryptUpdate(self.ctx.as_ptr(), out.as_mut_ptr(), &mut outl, inp.as_ptr(), c_len(inp.len()))
            },
            "DecryptUpdate",
        );
        outl as usize
    }

    /// SET_TAG(16) and `EVP_DecryptFinal_ex`: whether the tag verifies.
    #[inline]
    fn decrypt_final_tag(&mut self, tag: &[u8; 16]) -> bool {
        let mut none = [0u8; 16];
        let mut outl: c_int = 0;
        // SET_TAG takes a non-const pointer but only reads it.
        let mut tag = *tag;
        // SAFETY: SET_TAG reads exactly arg = 16 bytes from tag; Final writes
        // nothing for the AEADs (at most one block) to none.
        unsafe {
            check(
                EVP_CIPHER_CTX_ctrl(self.ctx.as_ptr(), EVP_CTRL_AEAD_SET_TAG, 16, tag.as_mut_ptr().cast()),
                "SET_TAG",
            );
            EVP_DecryptFinal_ex(self.ctx.as_ptr(), none.as_mut_ptr(), &mut outl) == 1
        }
    }
}

impl Drop for CipherCtx {
    fn drop(&mut self) {
        // SAFETY: both were created in new() and are freed exactly once, context first.
        unsafe {
            EVP_CIPHER_CTX_free(self.ctx.as_ptr());
            EVP_CIPHER_free(self.cipher.as_ptr());
        }
    }
}

/// AES-128 on single blocks through EVP AES-128-ECB (padding off).
pub struct AesEcb(CipherCtx);

impl AesEcb {
    /// A context without a key.
    pub fn new(lib: Libcrypto) -> Self {
        let ctx = CipherCtx::new(lib, c"AES-128-ECB");
        // SAFETY: ctx is live.
        check(unsafe { EVP_CIPHER_CTX_set_padding(ctx.ctx.as_ptr(), 0) }, "set_padding");
        AesEcb(ctx)
    }

    /// A context with `key` expanded once.
    pub fn with_key(lib: Libcrypto, key: &[u8; 16]) -> Self {
        let mut a = Self::new(lib);
        a.set_key(key);
        a
    }

    /// Expand a new key (the per-call key set-up).
    #[inline]
    pub fn set_key(&mut self, key: &[u8; 16]) {
        self.0.encrypt_init(Some(key), None);
    }

    /// AES_k(block) under the current key.
    #[inline]
    pub fn encrypt_block(&mut self, block: &[u8; 16]) -> [u8; 16] {
        let mut out = [0u8; 16];
        let n = self.0.encrypt_update(&mut out, block);
        debug_assert_eq!(n, 16);
        out
    }
}

/// The two OpenSSL AEADs the CWC family is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AeadAlg {
    /// AES-128-GCM, 12-byte nonce.
    Aes128Gcm,
    /// ChaCha20-Poly1305 (RFC 8439), 32-byte key, 12-byte nonce.
    ChaCha20Poly1305,
}

impl AeadAlg {
    fn name(self) -> &'static CStr {
        match self {
            AeadAlg::Aes128Gcm => c"AES-128-GCM",
            AeadAlg::ChaCha20Poly1305 => c"ChaCha20-Poly1305",
        }
    }

    /// Key length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            AeadAlg::Aes128Gcm => 16,
            AeadAlg::ChaCha20Poly1305 => 32,
        }
    }
}

/// An OpenSSL AEAD context with 16-byte tags, no AAD, 12-byte nonces.
pub struct Aead(CipherCtx);

impl Aead {
    /// A context without a key.
    pub fn new(lib: Libcrypto, alg: AeadAlg) -> Self {
        let ctx = CipherCtx::new(lib, alg.name());
        assert_eq!((ctx.key_len, ctx.iv_len), (alg.key_len(), 12), "{alg:?} key/nonce lengths");
        Aead(ctx)
    }

    /// A context with `key` set up once (GCM: AES schedule and H table).
    pub fn with_key(lib: Libcrypto, alg: AeadAlg, key: &[u8]) -> Self {
        let mut a = Self::new(lib, alg);
        a.0.encrypt_init(Some(key), None);
        a
    }

    /// Key set-up and encryption in one call: ciphertext into `out`, tag returned.
    #[inline]
    pub fn seal_with_key(&mut self, key: &[u8], nonce: &[u8; 12], pt: &[u8], out: &mut [u8]) -> [u8; 16] {
        self.0.encrypt_init(Some(key), Some(nonce));
        self.0.encrypt_update(out, pt);
        self.0.encrypt_final_tag()
    }

    /// Encryption under the key set earlier: only the nonce is new.
    #[inline]
    pub fn seal(&mut self, nonce: &[u8; 12], pt: &[u8], out: &mut [u8]) -> [u8; 16] {
        self.0.encrypt_init(None, Some(nonce));
        self.0.encrypt_update(out, pt);
        self.0.encrypt_final_tag()
    }

    /// A context with `key` set up once for decryption.
    pub fn with_key_to_open(lib: Libcrypto, alg: AeadAlg, key: &[u8]) -> Self {
        let mut a = Self::new(lib, alg);
        a.0.decrypt_init(Some(key), None);
        a
    }

    /// Key set-up and decryption in one call: ciphertext `ct` into `out`,
    /// then whether `tag` verifies. As EVP decrypts before it checks, `out`
    /// holds the plaintext even when this returns false: the caller must
    /// discard it then.
    #[inline]
    pub fn open_with_key(&mut self, key: &[u8], nonce: &[u8; 12], ct: &[u8], tag: &[u8; 16], out: &mut [u8]) -> bool {
        self.0.decrypt_init(Some(key), Some(nonce));
        self.0.decrypt_update(out, ct);
        self.0.decrypt_final_tag(tag)
    }

    /// Decryption under the key set earlier ([`Aead::with_key_to_open`]):
    /// only the nonce is new. `out` as in [`Aead::open_with_key`].
    #[inline]
    pub fn open(&mut self, nonce: &[u8; 12], ct: &[u8], tag: &[u8; 16], out: &mut [u8]) -> bool {
        self.0.decrypt_init(None, Some(nonce));
        self.0.decrypt_update(out, ct);
        self.0.decrypt_final_tag(tag)
    }
}

/// EVP_MAC "POLY1305": one context, re-keyed with r || s for every message.
pub struct Poly1305Mac {
    mac: NonNull<EvpMac>,
    ctx: NonNull<EvpMacCtx>,
}

impl Poly1305Mac {
    /// Fetch the algorithm and make a context.
    pub fn new(_: Libcrypto) -> Self {
        // SAFETY: NUL-terminated name; NULL libctx/properties select the defaults.
        let mac = unsafe { EVP_MAC_fetch(ptr::null_mut(), c"POLY1305".as_ptr(), ptr::null()) };
        let Some(mac) = NonNull::new(mac) else { fail("EVP_MAC_fetch(POLY1305)") };
        // SAFETY: mac is live.
        let ctx = unsafe { EVP_MAC_CTX_new(mac.as_ptr()) };
        let Some(ctx) = NonNull::new(ctx) else { fail("EVP_MAC_CTX_new") };
        Poly1305Mac { mac, ctx }
    }

    /// Poly1305 with the 32-byte key `r || s` (OpenSSL clamps r itself).
    #[inline]
    pub fn tag(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let mut tag = [0u8; 16];
        let mut outl = 0usize;
        // SAFETY: ctx is live; key is 32 readable bytes; msg.len() bytes are
        // readable at msg.as_ptr() (a valid dangling pointer when empty, which
        // OpenSSL does not read); final writes at most outsize = 16 bytes.
        unsafe {
            check(EVP_MAC_init(self.ctx.as_ptr(), key.as_ptr(), 32, ptr::null()), "EVP_MAC_init");
            check(EVP_MAC_update(self.ctx.as_ptr(), msg.as_ptr(), msg.len()), "EVP_MAC_update");
            check(EVP_MAC_final(self.ctx.as_ptr(), tag.as_mut_ptr(), &mut outl, 16), "EVP_MAC_final");
        }
        debug_assert_eq!(outl, 16);
        tag
    }
}

impl Drop for Poly1305Mac {
    fn drop(&mut self) {
        // SAFETY: created in new(), freed exactly once, context first.
        unsafe {
            EVP_MAC_CTX_free(self.ctx.as_ptr());
            EVP_MAC_free(self.mac.as_ptr());
        }
    }
}

/// `CRYPTO_memcmp(a, b, 16) == 0`: OpenSSL's constant-time comparison.
#[inline]
pub fn tags_equal(a: &[u8; 16], b: &[u8; 16]) -> bool {
    // SAFETY: both point to 16 readable bytes.
    unsafe { CRYPTO_memcmp(a.as_ptr().cast(), b.as_ptr().cast(), 16) == 0 }
}
