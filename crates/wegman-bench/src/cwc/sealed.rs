//! What the decrypt calls are given, made before timing.
//!
//! The message pool's random bytes serve as the ciphertexts; the set-up
//! computes, per slot, the tag that authenticates them under the slot's key
//! and nonce (with one bit flipped for the forged-tag tables). So a decrypt
//! call reads the same bytes, at the same addresses, in the same regimes as
//! the encrypt call of its cell, and nothing of the size of the cold set is
//! copied per contender except where an API takes `ciphertext || tag` as one
//! slice ([`SealedCopies`]).
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
use crate::workload::ALIGN;

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

/// `ciphertext || tag` for every slot of a cell, for the one-shot calls
/// that take a sealed message as one slice: in one buffer, each copy at the
/// address its ciphertext has modulo 64 (so the misaligned regimes misalign
/// it too). Rebuilt for every cell, before timing.
#[derive(Default)]
pub struct SealedCopies {
    buf: Vec<u8>,
    /// Per slot: where its copy starts and how long it is.
    at: Vec<(usize, usize)>,
}

impl SealedCopies {
    /// Copy each input's ciphertext and the tag `given` has for it.
    pub fn prepare(&mut self, given: &Given, inputs: &[Input<'_>]) {
        let size = inputs.iter().map(|i| (i.msg.len() + TAG).next_multiple_of(ALIGN) + ALIGN).sum::<usize>() + ALIGN;
        self.buf.clear();
        self.buf.resize(size, 0);
        self.at.resize(given.tags.slots(), (0, 0));
        // Index `base` is on a cache line; `line` counts from there.
        let base = self.buf.as_ptr().align_offset(ALIGN);
        let mut line = 0;
        for i in inputs {
            let (start, len) = (base + line + i.msg.as_ptr() as usize % ALIGN, i.msg.len());
            self.buf[start..start + len].copy_from_slice(i.msg);
            self.buf[start + len..start + len + TAG].copy_from_slice(given.tag(i.slot));
            self.at[i.slot] = (start, len + TAG);
            line = (start - base + len + TAG).next_multiple_of(ALIGN);
        }
    }

    /// Slot `slot`'s `ciphertext || tag`.
    #[inline]
    pub fn get(&self, slot: usize) -> &[u8] {
        let (start, len) = self.at[slot];
        &self.buf[start..start + len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_copies_keep_the_ciphertext_alignment() {
        let keys = Keys::random(3, 5);
        let tags = Tags::new(Alg::Cwc, &keys, Libcrypto::init().expect("OpenSSL 3"));
        let pool = vec![7u8; 400];
        let inputs: Vec<Input<'_>> =
            (0..3).map(|slot| Input { slot, msg: &pool[slot * 101 + 1..slot * 101 + 1 + 40], tag: [0; 16] }).collect();
        let mut given = Given::new(&tags, false);
        given.prepare(&inputs);
        let mut copies = SealedCopies::default();
        copies.prepare(&given, &inputs);
        for i in &inputs {
            let sealed = copies.get(i.slot);
            assert_eq!(sealed.as_ptr() as usize % ALIGN, i.msg.as_ptr() as usize % ALIGN);
            assert_eq!(&sealed[..40], i.msg);
            assert_eq!(&sealed[40..], tags.tag(i.slot, i.msg));
        }
    }
}
