//! What the decrypt calls are given, made before timing.
//!
//! The message pool's random bytes serve as the ciphertexts; the set-up
//! computes, per slot, the tag that authenticates them under the slot's key
//! and nonce (with one bit flipped for the forged-tag tables). So a decrypt
//! call reads the same bytes, at the same addresses, in the same regimes as
//! the encrypt call of its cell, and nothing of the size of the cold set is
//! copied per contender before timing.
//!
//! Not even where an API takes `ciphertext || tag` as one slice (wegman's
//! and RustCrypto's one-shot `decrypt`): those contenders make the same
//! call's work from the cell's ciphertext and the given tag instead. A
//! private `c || tag` copy per contender, read by that contender alone,
//! was colder in the cold regimes than the ciphertext every other
//! contender reads: wegman's one-shot decryption read from its copy took
//! 1.14–1.15x OpenSSL's time at 16 KiB, and 0.89–0.90x reading the cell's
//! ciphertext (Intel Xeon 6/207, `ifma`, two runs each).
//!
//! Why any bytes are a ciphertext: CWC, GCM and ChaCha20-Poly1305 all
//! encrypt in counter mode and authenticate the ciphertext. For bytes c, the
//! plaintext is p = c XOR keystream, and encrypting c gives p (the keystream
//! cancels); encrypting p then gives back c with the tag of c. Two
//! encryptions, no decrypt call: the contenders under test are not used to
//! make their own inputs.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{Aead, KeyInit};
use wegman::cwc::CwcKey;

use super::{Keys, TAG};
use crate::contender::Input;
use crate::peers::openssl::{self, AeadAlg, Libcrypto};

/// The encryptions that make the tags: one implementation per AEAD, keyed
/// once per slot. Which one does not matter: the checks hold the tags made
/// here to the known answers, and every contender to the same answers.
enum Sealer {
    Cwc(Vec<CwcKey>),
    Gcm(Vec<Aes128Gcm>),
    ChaCha(RefCell<Vec<openssl::Aead>>),
}

/// The AEAD a set of tags is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// CWC-AES-128, 11-byte nonces.
    Cwc,
    /// AES-128-GCM, 12-byte nonces.
    Gcm,
    /// ChaCha20-Poly1305, 256-bit keys, 12-byte nonces.
    ChaCha,
}

/// The tag of every (slot, ciphertext) a run meets, for one AEAD: computed
/// the first time, then remembered for the rest of the run, and shared by
/// all that AEAD's decrypt contenders.
pub struct Tags {
    sealer: Sealer,
    keys: Keys,
    /// (slot, address, length) of a ciphertext → its tag. The pool never
    /// changes during a run, so an address and a length always name the
    /// same bytes; the checks build fresh tables for their own buffers.
    known: RefCell<HashMap<(usize, usize, usize), [u8; TAG]>>,
}

impl Tags {
    /// The tags of `alg` under `keys`.
    pub fn new(alg: Alg, keys: &Keys, lib: Libcrypto) -> Rc<Tags> {
        let sealer = match alg {
            Alg::Cwc => Sealer::Cwc(keys.aes().iter().map(|k| CwcKey::new(k).expect("16-byte key")).collect()),
            Alg::Gcm => Sealer::Gcm(keys.aes().iter().map(|k| Aes128Gcm::new(&(*k).into())).collect()),
            Alg::ChaCha => Sealer::ChaCha(RefCell::new(
                keys.key.iter().map(|k| openssl::Aead::with_key(lib, AeadAlg::ChaCha20Poly1305, k)).collect(),
            )),
        };
        Rc::new(Tags { sealer, keys: keys.clone(), known: RefCell::new(HashMap::new()) })
    }

    /// Slots (keys and nonces) there are.
    pub fn slots(&self) -> usize {
        self.keys.key.len()
    }

    /// `ciphertext || tag` of `pt` under slot `slot`.
    fn seal(&self, slot: usize, pt: &[u8]) -> Vec<u8> {
        let nonce = &self.keys.nonce[slot];
        match &self.sealer {
            Sealer::Cwc(keys) => {
                let n: &[u8; 11] = nonce[..11].try_into().expect("11 bytes");
                keys[slot].encrypt(n, &[], pt, TAG).expect("lengths within CWC's limits")
            }
            Sealer::Gcm(keys) => keys[slot].encrypt(&(*nonce).into(), pt).expect("length within GCM's limit"),
            Sealer::ChaCha(ctx) => {
                let mut out = vec![0u8; pt.len() + TAG];
                let (ct, tag) = out.split_at_mut(pt.len());
                tag.copy_from_slice(&ctx.borrow_mut()[slot].seal(nonce, pt, ct));
                out
            }
        }
    }

    /// The plaintext that `ct` decrypts to under slot `slot`.
    pub fn plaintext(&self, slot: usize, ct: &[u8]) -> Vec<u8> {
        let mut p = self.seal(slot, ct);
        p.truncate(ct.len());
        p
    }

    /// The tag that authenticates `ct` under slot `slot`.
    pub fn tag(&self, slot: usize, ct: &[u8]) -> [u8; TAG] {
        let key = (slot, ct.as_ptr() as usize, ct.len());
        if let Some(t) = self.known.borrow().get(&key) {
            return *t;
        }
        let twice = self.seal(slot, &self.plaintext(slot, ct));
        let (again, tag) = twice.split_at(ct.len());
        assert!(again == ct, "encrypting the plaintext does not give back the ciphertext");
        let tag: [u8; TAG] = tag.try_into().expect("16-byte tag");
        self.known.borrow_mut().insert(key, tag);
        tag
    }
}

/// The tags one decrypt contender gives its calls: per slot, for the cell
/// being timed ([`Given::prepare`]), valid or forged.
pub struct Given {
    tags: Rc<Tags>,
    forged: bool,
    tag: Vec<[u8; TAG]>,
}

impl Given {
    /// Valid tags from `tags`, or (`forged`) each with one bit flipped.
    pub fn new(tags: &Rc<Tags>, forged: bool) -> Given {
        Given { tags: Rc::clone(tags), forged, tag: vec![[0; TAG]; tags.slots()] }
    }

    /// The cell's tags: each slot's tag for its ciphertext; forged, the bit
    /// `slot mod 128` flipped (a different bit for each of the first 128 slots).
    pub fn prepare(&mut self, inputs: &[Input<'_>]) {
        for i in inputs {
            let mut tag = self.tags.tag(i.slot, i.msg);
            if self.forged {
                tag[i.slot / 8 % TAG] ^= 1 << (i.slot % 8);
            }
            self.tag[i.slot] = tag;
        }
    }

    /// The tag slot `slot`'s call is given.
    #[inline]
    pub fn tag(&self, slot: usize) -> &[u8; TAG] {
        &self.tag[slot]
    }
}
