//! The encrypt contenders: wegman CWC, OpenSSL (GCM, ChaCha20-Poly1305) and
//! RustCrypto GCM, one-shot and with the key made once. Each returns a tag
//! byte; its output is `ciphertext || tag`.

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{Aead, AeadInOut, KeyInit};
use wegman::cwc::CwcKey;

use super::{Keys, TAG, Window, ossl_name};
use crate::contender::{Contender, Input, Label};
use crate::peers::openssl::{self, AeadAlg, Libcrypto};

/// wegman's encrypt call: one-shot or with a `CwcKey` made once per key.
pub fn wegman(keys: &Keys, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(WegmanPrecomputed {
            keys: keys.aes().iter().map(|k| CwcKey::new(k).expect("16-byte key")).collect(),
            nonce: keys.cwc_nonce(),
            buf: Window::default(),
            tag: [0; TAG],
        })
    } else {
        Box::new(WegmanOneShot { key: keys.aes(), nonce: keys.cwc_nonce(), out: Vec::new() })
    }
}

/// OpenSSL's `alg` encrypt call: one-shot or with a context keyed once per key.
pub fn openssl(alg: AeadAlg, keys: &Keys, lib: Libcrypto, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(OsslPrecomputed {
            alg,
            ctx: keys.key.iter().map(|k| openssl::Aead::with_key(lib, alg, &k[..alg.key_len()])).collect(),
            nonce: keys.nonce.clone(),
            out: Window::default(),
            tag: [0; TAG],
        })
    } else {
        Box::new(OsslOneShot {
            alg,
            ctx: openssl::Aead::new(lib, alg),
            key: keys.key.clone(),
            nonce: keys.nonce.clone(),
            out: Window::default(),
            tag: [0; TAG],
        })
    }
}

/// RustCrypto's AES-128-GCM encrypt call: one-shot or with an `Aes128Gcm`
/// made once per key.
pub fn rustcrypto(keys: &Keys, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(RcGcmPrecomputed {
            gcm: keys.aes().iter().map(|k| Aes128Gcm::new(&(*k).into())).collect(),
            nonce: keys.nonce.clone(),
            buf: Window::default(),
            tag: [0; TAG],
        })
    } else {
        Box::new(RcGcmOneShot { key: keys.aes(), nonce: keys.nonce.clone(), out: Vec::new() })
    }
}

// ---------------------------------------------------------------- wegman

/// `CwcKey::new(k)?.encrypt(n, &[], m, 16)?`.
struct WegmanOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 11]>,
    out: Vec<u8>,
}

impl Contender for WegmanOneShot {
    fn label(&self) -> Label {
        Label { name: "wegman CWC", ours: true, call: "wegman::cwc::CwcKey::new(k)?.encrypt(&n11, &[], m, 16)? -> Vec" }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = CwcKey::new(&self.key[input.slot]).expect("a 16-byte key");
        self.out = key.encrypt(&self.nonce[input.slot], &[], input.msg, TAG).expect("lengths within CWC's limits");
        self.out[self.out.len() - 1]
    }

    fn output(&self) -> Vec<u8> {
        self.out.clone()
    }
}

/// A `CwcKey` per key, made once; `encrypt_into` a reused buffer (out of
/// place, as OpenSSL's contender writes its output).
struct WegmanPrecomputed {
    keys: Vec<CwcKey>,
    nonce: Vec<[u8; 11]>,
    buf: Window,
    tag: [u8; TAG],
}

impl Contender for WegmanPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "wegman CWC",
            ours: true,
            call: "CwcKey (made once per key).encrypt_into(&n11, &[], m, buf, 16)? into a reused buffer",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        let tag =
            self.keys[input.slot].encrypt_into(&self.nonce[input.slot], &[], input.msg, buf, TAG).expect("lengths");
        self.tag.copy_from_slice(tag.as_slice());
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.buf.bytes(), &self.tag[..]].concat()
    }
}

// ---------------------------------------------------------------- peers

/// OpenSSL AEAD, key set-up in the call (`EncryptInit_ex2(key, nonce)`).
struct OsslOneShot {
    alg: AeadAlg,
    ctx: openssl::Aead,
    key: Vec<[u8; 32]>,
    nonce: Vec<[u8; 12]>,
    out: Window,
    tag: [u8; TAG],
}

/// OpenSSL AEAD, one context per key keyed once; only the nonce per call.
struct OsslPrecomputed {
    alg: AeadAlg,
    ctx: Vec<openssl::Aead>,
    nonce: Vec<[u8; 12]>,
    out: Window,
    tag: [u8; TAG],
}

impl Contender for OsslOneShot {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM: EncryptInit_ex2(ctx, NULL, k, n12) + EncryptUpdate(m) + EncryptFinal_ex + GET_TAG(16)"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 (256-bit key): EncryptInit_ex2(ctx, NULL, k, n12) + EncryptUpdate(m) + EncryptFinal_ex + GET_TAG(16)"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = &self.key[input.slot][..self.alg.key_len()];
        let out = self.out.place(input.msg);
        self.tag = self.ctx.seal_with_key(key, &self.nonce[input.slot], input.msg, out);
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.out.bytes(), &self.tag[..]].concat()
    }
}

impl Contender for OsslPrecomputed {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM context keyed once per key: EncryptInit_ex2(ctx, NULL, NULL, n12) + Update + Final + GET_TAG(16)"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 context keyed once per key: EncryptInit_ex2(ctx, NULL, NULL, n12) + Update + Final + GET_TAG(16)"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let out = self.out.place(input.msg);
        self.tag = self.ctx[input.slot].seal(&self.nonce[input.slot], input.msg, out);
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.out.bytes(), &self.tag[..]].concat()
    }
}

/// `Aes128Gcm::new(k).encrypt(n, m)`.
struct RcGcmOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 12]>,
    out: Vec<u8>,
}

impl Contender for RcGcmOneShot {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "aes_gcm::Aes128Gcm::new(k).encrypt(n12, m) -> Vec (aes-gcm 0.11)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let gcm = Aes128Gcm::new(&self.key[input.slot].into());
        self.out = gcm.encrypt(&self.nonce[input.slot].into(), input.msg).expect("length within GCM's limit");
        self.out[self.out.len() - 1]
    }

    fn output(&self) -> Vec<u8> {
        self.out.clone()
    }
}

/// An `Aes128Gcm` per key, made once; `encrypt_inout_detached` in place.
struct RcGcmPrecomputed {
    gcm: Vec<Aes128Gcm>,
    nonce: Vec<[u8; 12]>,
    buf: Window,
    tag: [u8; TAG],
}

impl Contender for RcGcmPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "copy m into a reused buffer; Aes128Gcm (made once per key).encrypt_inout_detached(n12, &[], buf)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        buf.copy_from_slice(input.msg);
        let tag = self.gcm[input.slot]
            .encrypt_inout_detached(&self.nonce[input.slot].into(), &[], buf.into())
            .expect("length within GCM's limit");
        self.tag = tag.into();
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.buf.bytes(), &self.tag[..]].concat()
    }
}
