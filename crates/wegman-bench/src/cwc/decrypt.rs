//! The decrypt contenders: wegman CWC, OpenSSL (GCM, ChaCha20-Poly1305) and
//! RustCrypto GCM, one-shot and with the key made once.
//!
//! Each returns 1 if the call accepted the tag and 0 if it returned an
//! error; its output is that byte followed by what the call released: the
//! plaintext it returned, or whatever it left in the caller's buffer (for
//! the forged-tag checks: wegman zeroes it (one pass, wiped on failure),
//! OpenSSL's EVP has decrypted into it before the tag check).

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{AeadInOut, KeyInit};
use wegman::cwc::CwcKey;

use super::sealed::Given;
use super::{Keys, Window, ossl_name};
use crate::contender::{Contender, Input, Label};
use crate::peers::openssl::{self, AeadAlg, Libcrypto};

/// wegman's decrypt call given `given`'s tags: one-shot or with a `CwcKey`
/// made once per key.
pub fn wegman(keys: &Keys, given: Given, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(WegmanPrecomputed {
            keys: keys.aes().iter().map(|k| CwcKey::new(k).expect("16-byte key")).collect(),
            nonce: keys.cwc_nonce(),
            given,
            buf: Window::default(),
            ok: false,
        })
    } else {
        Box::new(WegmanOneShot { key: keys.aes(), nonce: keys.cwc_nonce(), given, out: None })
    }
}

/// OpenSSL's `alg` decrypt call given `given`'s tags: one-shot or with a
/// context keyed once per key.
pub fn openssl(alg: AeadAlg, keys: &Keys, lib: Libcrypto, given: Given, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(OsslPrecomputed {
            alg,
            ctx: keys.key.iter().map(|k| openssl::Aead::with_key_to_open(lib, alg, &k[..alg.key_len()])).collect(),
            nonce: keys.nonce.clone(),
            given,
            out: Window::default(),
            ok: false,
        })
    } else {
        Box::new(OsslOneShot {
            alg,
            ctx: openssl::Aead::new(lib, alg),
            key: keys.key.clone(),
            nonce: keys.nonce.clone(),
            given,
            out: Window::default(),
            ok: false,
        })
    }
}

/// RustCrypto's AES-128-GCM decrypt call given `given`'s tags: one-shot or
/// with an `Aes128Gcm` made once per key.
pub fn rustcrypto(keys: &Keys, given: Given, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(RcGcmPrecomputed {
            gcm: keys.aes().iter().map(|k| Aes128Gcm::new(&(*k).into())).collect(),
            nonce: keys.nonce.clone(),
            given,
            buf: Window::default(),
            ok: false,
        })
    } else {
        Box::new(RcGcmOneShot { key: keys.aes(), nonce: keys.nonce.clone(), given, out: None })
    }
}

/// The output of a call that returns the plaintext or an error.
fn returned(plaintext: &Option<Vec<u8>>) -> Vec<u8> {
    match plaintext {
        Some(p) => [&[1][..], p].concat(),
        None => vec![0],
    }
}

/// The output of a call that decrypts into the caller's buffer.
pub(super) fn left(ok: bool, buf: &[u8]) -> Vec<u8> {
    [&[u8::from(ok)][..], buf].concat()
}

// ---------------------------------------------------------------- wegman

/// `CwcKey::new(k)?` and `decrypt_into` a new zeroed `Vec`: the work of
/// `decrypt(n, &[], c || tag, 16) -> Vec`, reading the cell's ciphertext
/// where every other contender reads it (see the module docs).
struct WegmanOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 11]>,
    given: Given,
    out: Option<Vec<u8>>,
}

impl Contender for WegmanOneShot {
    fn label(&self) -> Label {
        Label {
            name: "wegman CWC",
            ours: true,
            call: "wegman::cwc::CwcKey::new(k)?.decrypt_into(&n11, &[], c, &tag, vec![0; len]) -> Result",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = CwcKey::new(&self.key[input.slot]).expect("a 16-byte key");
        let mut out = vec![0u8; input.msg.len()];
        let ok = key.decrypt_into(&self.nonce[input.slot], &[], input.msg, self.given.tag(input.slot), &mut out);
        self.out = ok.ok().map(|()| out);
        u8::from(self.out.is_some())
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        returned(&self.out)
    }
}

/// A `CwcKey` per key, made once; `decrypt_into` a reused buffer (out of
/// place, as OpenSSL's contender writes its output).
struct WegmanPrecomputed {
    keys: Vec<CwcKey>,
    nonce: Vec<[u8; 11]>,
    given: Given,
    buf: Window,
    ok: bool,
}

impl Contender for WegmanPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "wegman CWC",
            ours: true,
            call: "CwcKey (made once per key).decrypt_into(&n11, &[], c, &tag, buf) into a reused buffer",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        self.ok = self.keys[input.slot]
            .decrypt_into(&self.nonce[input.slot], &[], input.msg, self.given.tag(input.slot), buf)
            .is_ok();
        u8::from(self.ok)
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        left(self.ok, self.buf.bytes())
    }
}

// ---------------------------------------------------------------- OpenSSL

/// OpenSSL AEAD, key set-up in the call (`DecryptInit_ex2(key, nonce)`).
struct OsslOneShot {
    alg: AeadAlg,
    ctx: openssl::Aead,
    key: Vec<[u8; 32]>,
    nonce: Vec<[u8; 12]>,
    given: Given,
    out: Window,
    ok: bool,
}

/// OpenSSL AEAD, one context per key keyed once for decryption; only the
/// nonce per call.
struct OsslPrecomputed {
    alg: AeadAlg,
    ctx: Vec<openssl::Aead>,
    nonce: Vec<[u8; 12]>,
    given: Given,
    out: Window,
    ok: bool,
}

impl Contender for OsslOneShot {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM: DecryptInit_ex2(ctx, NULL, k, n12) + DecryptUpdate(c) + SET_TAG(16) + DecryptFinal_ex"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 (256-bit key): DecryptInit_ex2(ctx, NULL, k, n12) + DecryptUpdate(c) + SET_TAG(16) + DecryptFinal_ex"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = &self.key[input.slot][..self.alg.key_len()];
        let out = self.out.place(input.msg);
        self.ok = self.ctx.open_with_key(key, &self.nonce[input.slot], input.msg, self.given.tag(input.slot), out);
        u8::from(self.ok)
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        left(self.ok, self.out.bytes())
    }
}

impl Contender for OsslPrecomputed {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM context keyed once per key: DecryptInit_ex2(ctx, NULL, NULL, n12) + Update + SET_TAG(16) + Final"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 context keyed once per key: DecryptInit_ex2(ctx, NULL, NULL, n12) + Update + SET_TAG(16) + Final"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let out = self.out.place(input.msg);
        self.ok = self.ctx[input.slot].open(&self.nonce[input.slot], input.msg, self.given.tag(input.slot), out);
        u8::from(self.ok)
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        left(self.ok, self.out.bytes())
    }
}

// ---------------------------------------------------------------- RustCrypto

/// `Aes128Gcm::new(k)`, then the ciphertext copied into a new `Vec` and
/// decrypted there (`decrypt_inout_detached`): what its `decrypt(n, c ||
/// tag) -> Vec` does, reading the cell's ciphertext where every other
/// contender reads it (see the module docs).
struct RcGcmOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 12]>,
    given: Given,
    out: Option<Vec<u8>>,
}

impl Contender for RcGcmOneShot {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "aes_gcm::Aes128Gcm::new(k), c.to_vec(), decrypt_inout_detached(n12, &[], buf, &tag) (aes-gcm 0.11)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let gcm = Aes128Gcm::new(&self.key[input.slot].into());
        let mut buf = input.msg.to_vec();
        let tag = (*self.given.tag(input.slot)).into();
        let ok = gcm.decrypt_inout_detached(&self.nonce[input.slot].into(), &[], (&mut buf[..]).into(), &tag);
        self.out = ok.ok().map(|()| buf);
        u8::from(self.out.is_some())
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        returned(&self.out)
    }
}

/// An `Aes128Gcm` per key, made once; `decrypt_inout_detached` in place.
struct RcGcmPrecomputed {
    gcm: Vec<Aes128Gcm>,
    nonce: Vec<[u8; 12]>,
    given: Given,
    buf: Window,
    ok: bool,
}

impl Contender for RcGcmPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "copy c into a reused buffer; Aes128Gcm (made once per key).decrypt_inout_detached(n12, &[], buf, &tag)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        buf.copy_from_slice(input.msg);
        let tag = (*self.given.tag(input.slot)).into();
        self.ok =
            self.gcm[input.slot].decrypt_inout_detached(&self.nonce[input.slot].into(), &[], buf.into(), &tag).is_ok();
        u8::from(self.ok)
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        left(self.ok, self.buf.bytes())
    }
}
