//! The Wegman–Carter MAC of spec §4: tag word t = (H_t + pad_t) mod 2^32
//! (2^64 for MMH64), where H is the tree hash of the message under ks and
//! pad = AES_kp(nonce).

use core::fmt;

use zeroize::Zeroize;

use super::alg::{Alg, KEY_BYTES, NONCE_BYTES};
use super::backend::{Dispatch, Keys};
use super::key::{MacKey, ciphers, pad, push_next_level};
use super::tag::{Tag, seal};
use super::tree::{Tree, WHOLE_MAX, hash_whole};
use crate::cpu::Features;
use crate::error::Error;

/// Constant-time comparison of a computed tag with a received one.
pub(super) fn check(alg: Alg, computed: &Tag, tag: &[u8]) -> Result<(), Error> {
    if tag.len() != alg.tag_bytes() {
        return Err(Error::InvalidLength { what: "tag", expected: alg.tag_bytes(), got: tag.len() });
    }
    crate::ct::verdict(crate::ct::eq(computed.as_bytes(), tag))
}

/// Streaming MMH MAC under a borrowed, fully expanded [`MacKey`].
///
/// ```
/// use wegman::mmh::{self, Alg, MacKey, Mmh};
/// let raw = [9u8; 32];
/// let key = MacKey::new(Alg::Mmh64x2, &raw);
/// let nonce = [1u8; 16];
/// let mut m = Mmh::new(&key, &nonce);
/// m.update(b"hello, ").unwrap();
/// m.update(b"world").unwrap();
/// assert_eq!(m.finalize().unwrap(), mmh::mac(Alg::Mmh64x2, &raw, &nonce, b"hello, world").unwrap());
/// ```
#[derive(Clone)]
pub struct Mmh<'k> {
    key: &'k MacKey,
    tree: Tree,
    pad: [u8; 16],
}

impl<'k> Mmh<'k> {
    /// Start authenticating a message under `key` and `nonce` (never reuse a
    /// nonce under one key, spec §4).
    pub fn new(key: &'k MacKey, nonce: &[u8; NONCE_BYTES]) -> Self {
        Mmh { key, tree: Tree::new(key.alg()), pad: key.pad(nonce) }
    }

    /// The algorithm.
    pub fn alg(&self) -> Alg {
        self.tree.alg()
    }

    /// Absorb message bytes; any split gives the same result.
    ///
    /// Fails with [`Error::TooLong`] as soon as the total length would need a
    /// 17th tree level (spec §2); the state is then refused for good and
    /// [`finalize`](Mmh::finalize) fails too.
    pub fn update(&mut self, data: &[u8]) -> Result<(), Error> {
        self.tree.update(self.key.keys(), data)
    }

    /// The tag.
    pub fn finalize(mut self) -> Result<Tag, Error> {
        let mut h = self.tree.finalize(self.key.keys())?;
        let tag = seal(self.alg(), &h, &self.pad);
        h.zeroize();
        Ok(tag)
    }

    /// Compare with `tag` in constant time.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(self, tag: &[u8]) -> Result<(), Error> {
        let alg = self.alg();
        check(alg, &self.finalize()?, tag)
    }
}

impl Drop for Mmh<'_> {
    fn drop(&mut self) {
        self.pad.zeroize();
    }
}

impl fmt::Debug for Mmh<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mmh").field("alg", &self.alg()).finish_non_exhaustive()
    }
}

impl MacKey {
    /// Start a streaming computation for `nonce`.
    pub fn start(&self, nonce: &[u8; NONCE_BYTES]) -> Mmh<'_> {
        Mmh::new(self, nonce)
    }

    /// The tag of `message` under `nonce`.
    pub fn mac(&self, nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Result<Tag, Error> {
        if message.len() <= WHOLE_MAX {
            self.keys().prefetch_for(self.alg(), message.len());
            // Whole in memory: no streaming state to set up and wipe.
            return Ok(tag_whole(self.alg(), self.keys(), self.pad(nonce), message));
        }
        let mut m = self.start(nonce);
        m.update(message)?;
        m.finalize()
    }

    /// Check `tag` in constant time: `Ok(())`, [`Error::TagMismatch`], or
    /// [`Error::InvalidLength`] for a tag of the wrong length.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(&self, tag: &[u8], nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Result<(), Error> {
        let alg = self.alg();
        check(alg, &self.mac(nonce, message)?, tag)
    }

    /// The tree hash H of spec §3 under ks alone (no pad): w bytes. Exposed
    /// for tests against the vectors' `tree` field; never send it.
    pub fn tree_hash(&self, message: &[u8]) -> Result<Tag, Error> {
        let mut tree = Tree::new(self.alg());
        tree.update(self.keys(), message)?;
        Ok(Tag::new(tree.finalize(self.keys())?, self.alg().output_bytes()))
    }
}

/// The tag of a message of at most `WHOLE_MAX` bytes hashed whole under
/// `keys` (which hold the levels its length needs); H and the pad are wiped.
fn tag_whole(alg: Alg, keys: &Keys, mut pad: [u8; 16], message: &[u8]) -> Tag {
    let mut h = hash_whole(alg, keys, message);
    let tag = seal(alg, &h, &pad);
    h.zeroize();
    pad.zeroize();
    tag
}

/// A MAC computation that owns its key and expands level keys only as the
/// message's length requires them (deterministically: level j's key is
/// expanded the moment the length so far makes level j necessary).
/// Behind the one-shot functions and the RustCrypto types.
#[derive(Clone)]
pub(crate) struct Owned {
    ks: crate::aes::Key,
    keys: Keys,
    tree: Tree,
    pad: [u8; 16],
}

impl Owned {
    pub(crate) fn new(alg: Alg, key: &[u8; KEY_BYTES], nonce: &[u8; NONCE_BYTES]) -> Self {
        let features = Features::detect();
        let (kp, ks) = ciphers(key, features);
        Owned { ks, keys: Keys::select(alg, features), tree: Tree::new(alg), pad: pad(&kp, nonce) }
    }

    fn expand_to(&mut self, levels: usize) {
        while self.keys.levels() < levels {
            push_next_level(&mut self.keys, &self.ks, self.tree.alg());
        }
    }

    pub(crate) fn update(&mut self, data: &[u8]) -> Result<(), Error> {
        let levels = self.tree.admit(data.len())?;
        self.expand_to(levels);
        self.tree.absorb(&self.keys, data);
        Ok(())
    }

    pub(crate) fn finalize(&mut self) -> Result<Tag, Error> {
        let levels = self.tree.admit(0)?;
        self.expand_to(levels);
        let mut h = self.tree.finalize(&self.keys)?;
        let tag = seal(self.tree.alg(), &h, &self.pad);
        h.zeroize();
        Ok(tag)
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        self.pad.zeroize();
    }
}

/// The MAC of spec §4 in one call: `alg`, key `kp || ks`, a 16-byte nonce
/// that never repeats under this key, and the message.
///
/// Expands only the level keys this message's length needs; to authenticate
/// many messages under one key, make a [`MacKey`] once instead.
///
/// Fails only with [`Error::TooLong`], for a message that would need a 17th
/// tree level (longer than [`Alg::max_message_len`]).
///
/// ```
/// use wegman::mmh::{self, Alg};
/// let key = [0x42u8; 32];
/// let nonce = [0u8; 16];
/// let tag = mmh::mac(Alg::Mmh32x4, &key, &nonce, b"attack at dawn").unwrap();
/// assert_eq!(tag.as_bytes().len(), 16);
/// assert!(mmh::verify(Alg::Mmh32x4, &key, tag.as_bytes(), &nonce, b"attack at dawn").is_ok());
/// assert!(mmh::verify(Alg::Mmh32x4, &key, tag.as_bytes(), &nonce, b"attack at dusk").is_err());
/// ```
pub fn mac(alg: Alg, key: &[u8; KEY_BYTES], nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Result<Tag, Error> {
    #[cfg(target_arch = "x86_64")]
    if message.len() < alg.block_bytes()
        && let Some((token, _)) = crate::backend::aes(Features::detect())
    {
        // Shorter than one block: level 0's key only, both AES schedules
        // fused with their rounds (see short.rs).
        return Ok(super::short::mac(alg, token, key, nonce, message));
    }
    if message.len() <= WHOLE_MAX {
        // Whole in memory: expand just the levels this length needs, no
        // streaming state.
        let features = Features::detect();
        let (kp, ks) = ciphers(key, features);
        let mut keys = Keys::select(alg, features);
        while keys.levels() < alg.levels_for_len(message.len() as u128) {
            push_next_level(&mut keys, &ks, alg);
        }
        return Ok(tag_whole(alg, &keys, pad(&kp, nonce), message));
    }
    let mut m = Owned::new(alg, key, nonce);
    m.update(message)?;
    m.finalize()
}

/// Check `tag` against `message` in constant time: `Ok(())`,
/// [`Error::TagMismatch`], [`Error::InvalidLength`] if `tag` is not
/// [`Alg::tag_bytes`] long, or [`Error::TooLong`]. Never panics.
#[must_use = "a failed verification must be acted upon"]
pub fn verify(
    alg: Alg,
    key: &[u8; KEY_BYTES],
    tag: &[u8],
    nonce: &[u8; NONCE_BYTES],
    message: &[u8],
) -> Result<(), Error> {
    check(alg, &mac(alg, key, nonce, message)?, tag)
}
