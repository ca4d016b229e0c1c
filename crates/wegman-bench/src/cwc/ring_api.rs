//! aws-lc-rs and ring, AES-128-GCM and ChaCha20-Poly1305: the two crates
//! share one AEAD API (aws-lc-rs keeps ring's), so one set of contenders
//! serves both, over the few calls a Rust user makes:
//! `LessSafeKey::new(UnboundKey::new(&ALG, k)?)`, then
//! `seal_in_place_separate_tag(nonce, Aad::empty(), buf)` or
//! `open_in_place(nonce, Aad::empty(), buf)` on `ciphertext || tag`.
//!
//! Both APIs work in place, so every call first copies the message (with
//! the tag, to open) into a reused buffer, as the other in-place
//! contenders do. One-shot makes the key inside the call; precomputed makes
//! it once per key.

use super::decrypt::left;
use super::sealed::Given;
use super::{Keys, TAG, Window};
use crate::contender::{Contender, Input, Label};
use crate::peers::openssl::AeadAlg;

/// The calls both crates spell the same way.
pub trait RingApi {
    /// `aead::LessSafeKey`.
    type Key: 'static;
    /// Table names: [AES-128-GCM, ChaCha20-Poly1305].
    const NAMES: [&'static str; 2];
    /// `LessSafeKey::new(UnboundKey::new(&ALG, key)?)`.
    fn key(alg: AeadAlg, key: &[u8]) -> Self::Key;
    /// `seal_in_place_separate_tag(nonce, Aad::empty(), buf)`: the tag.
    fn seal(key: &Self::Key, nonce: &[u8; 12], buf: &mut [u8]) -> [u8; TAG];
    /// `open_in_place(nonce, Aad::empty(), ciphertext || tag)`: whether the
    /// tag verifies (the plaintext is then at the start of `buf`).
    fn open(key: &Self::Key, nonce: &[u8; 12], buf: &mut [u8]) -> bool;
}

/// One `RingApi` impl per crate: the calls are spelled the same in both,
/// only the crate path and the names differ.
macro_rules! ring_api {
    ($(#[$doc:meta])* $ty:ident, $krate:ident, $names:expr) => {
        $(#[$doc])*
        pub enum $ty {}

        impl RingApi for $ty {
            type Key = $krate::aead::LessSafeKey;
            const NAMES: [&'static str; 2] = $names;

            #[inline]
            fn key(alg: AeadAlg, key: &[u8]) -> Self::Key {
                use $krate::aead::{AES_128_GCM, CHACHA20_POLY1305, LessSafeKey, UnboundKey};
                let alg = match alg {
                    AeadAlg::Aes128Gcm => &AES_128_GCM,
                    AeadAlg::ChaCha20Poly1305 => &CHACHA20_POLY1305,
                };
                LessSafeKey::new(UnboundKey::new(alg, key).expect("the algorithm's key length"))
            }

            #[inline]
            fn seal(key: &Self::Key, nonce: &[u8; 12], buf: &mut [u8]) -> [u8; TAG] {
                use $krate::aead::{Aad, Nonce};
                let tag = key
                    .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*nonce), Aad::empty(), buf)
                    .expect("length within the AEAD's limit");
                tag.as_ref().try_into().expect("16-byte tag")
            }

            #[inline]
            fn open(key: &Self::Key, nonce: &[u8; 12], buf: &mut [u8]) -> bool {
                use $krate::aead::{Aad, Nonce};
                key.open_in_place(Nonce::assume_unique_for_key(*nonce), Aad::empty(), buf).is_ok()
            }
        }
    };
}

ring_api!(
    /// aws-lc-rs: Rust bindings to AWS-LC (BoringSSL's descendant, with its
    /// assembly).
    AwsLc,
    aws_lc_rs,
    ["aws-lc-rs GCM", "aws-lc-rs ChaCha"]
);
ring_api!(
    /// ring: BoringSSL-derived assembly behind a Rust API.
    Ring,
    ring,
    ["ring GCM", "ring ChaCha"]
);

/// `C`'s table name for `alg`.
fn name<C: RingApi>(alg: AeadAlg) -> &'static str {
    match alg {
        AeadAlg::Aes128Gcm => C::NAMES[0],
        AeadAlg::ChaCha20Poly1305 => C::NAMES[1],
    }
}

/// What one call does, for the report (the crate is in the row's name).
fn call_text(alg: AeadAlg, precomputed: bool, open: bool) -> &'static str {
    match (alg, precomputed, open) {
        (AeadAlg::Aes128Gcm, false, false) => {
            "LessSafeKey::new(UnboundKey::new(&AES_128_GCM, k)?); copy m into a reused buffer; \
             seal_in_place_separate_tag(n12, Aad::empty(), buf)"
        }
        (AeadAlg::ChaCha20Poly1305, false, false) => {
            "LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, k)?); copy m into a reused buffer; \
             seal_in_place_separate_tag(n12, Aad::empty(), buf)"
        }
        (AeadAlg::Aes128Gcm, false, true) => {
            "LessSafeKey::new(UnboundKey::new(&AES_128_GCM, k)?); copy c || tag into a reused buffer; \
             open_in_place(n12, Aad::empty(), buf)"
        }
        (AeadAlg::ChaCha20Poly1305, false, true) => {
            "LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, k)?); copy c || tag into a reused buffer; \
             open_in_place(n12, Aad::empty(), buf)"
        }
        (_, true, false) => {
            "copy m into a reused buffer; LessSafeKey (made once per key).seal_in_place_separate_tag(n12, Aad::empty(), buf)"
        }
        (_, true, true) => {
            "copy c || tag into a reused buffer; LessSafeKey (made once per key).open_in_place(n12, Aad::empty(), buf)"
        }
    }
}

/// The keys of one contender: the raw bytes (one-shot: `C::key` inside the
/// call) and, precomputed, the keys made from them once.
struct KeySet<C: RingApi> {
    alg: AeadAlg,
    raw: Vec<[u8; 32]>,
    made: Vec<C::Key>,
}

impl<C: RingApi> KeySet<C> {
    fn new(alg: AeadAlg, keys: &Keys, precomputed: bool) -> Self {
        let made =
            if precomputed { keys.key.iter().map(|k| C::key(alg, &k[..alg.key_len()])).collect() } else { Vec::new() };
        KeySet { alg, raw: keys.key.clone(), made }
    }

    /// Slot `slot`'s key: made now (one-shot) or taken from those made once.
    #[inline]
    fn with<R>(&self, slot: usize, precomputed: bool, f: impl FnOnce(&C::Key) -> R) -> R {
        if precomputed { f(&self.made[slot]) } else { f(&C::key(self.alg, &self.raw[slot][..self.alg.key_len()])) }
    }
}

/// Encryption; `PRE`: the key made once.
struct Seal<C: RingApi, const PRE: bool> {
    keys: KeySet<C>,
    nonce: Vec<[u8; 12]>,
    buf: Window,
    tag: [u8; TAG],
}

impl<C: RingApi, const PRE: bool> Contender for Seal<C, PRE> {
    fn label(&self) -> Label {
        let alg = self.keys.alg;
        Label { name: name::<C>(alg), ours: false, call: call_text(alg, PRE, false) }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        buf.copy_from_slice(input.msg);
        let nonce = &self.nonce[input.slot];
        self.tag = self.keys.with(input.slot, PRE, |key| C::seal(key, nonce, buf));
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.buf.bytes(), &self.tag[..]].concat()
    }
}

/// Decryption given `given`'s tags; `PRE`: the key made once.
struct Open<C: RingApi, const PRE: bool> {
    keys: KeySet<C>,
    nonce: Vec<[u8; 12]>,
    given: Given,
    buf: Window,
    ok: bool,
}

impl<C: RingApi, const PRE: bool> Contender for Open<C, PRE> {
    fn label(&self) -> Label {
        let alg = self.keys.alg;
        Label { name: name::<C>(alg), ours: false, call: call_text(alg, PRE, true) }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let len = input.msg.len();
        let buf = self.buf.place_len(input.msg, len + TAG);
        buf[..len].copy_from_slice(input.msg);
        buf[len..].copy_from_slice(self.given.tag(input.slot));
        let nonce = &self.nonce[input.slot];
        self.ok = self.keys.with(input.slot, PRE, |key| C::open(key, nonce, buf));
        u8::from(self.ok)
    }

    fn prepare(&mut self, inputs: &[Input<'_>]) {
        self.given.prepare(inputs);
    }

    fn output(&self) -> Vec<u8> {
        let b = self.buf.bytes();
        left(self.ok, &b[..b.len() - TAG])
    }
}

/// `C`'s `alg` encrypt call: one-shot or with keys made once.
pub fn seal<C: RingApi + 'static>(alg: AeadAlg, keys: &Keys, precomputed: bool) -> Box<dyn Contender> {
    let (nonce, buf, tag) = (keys.nonce.clone(), Window::default(), [0; TAG]);
    if precomputed {
        Box::new(Seal::<C, true> { keys: KeySet::new(alg, keys, true), nonce, buf, tag })
    } else {
        Box::new(Seal::<C, false> { keys: KeySet::new(alg, keys, false), nonce, buf, tag })
    }
}

/// `C`'s `alg` decrypt call given `given`'s tags: one-shot or with keys made once.
pub fn open<C: RingApi + 'static>(alg: AeadAlg, keys: &Keys, given: Given, precomputed: bool) -> Box<dyn Contender> {
    let (nonce, buf) = (keys.nonce.clone(), Window::default());
    if precomputed {
        Box::new(Open::<C, true> { keys: KeySet::new(alg, keys, true), nonce, given, buf, ok: false })
    } else {
        Box::new(Open::<C, false> { keys: KeySet::new(alg, keys, false), nonce, given, buf, ok: false })
    }
}
