//! Streaming CWC-AES for inputs too large to hold in memory.
//!
//! Encryption is on-line: [`Encryptor::update`] encrypts in place as data
//! arrives. Decryption must not release plaintext before the tag verifies,
//! so it takes two passes over the ciphertext: a [`Verifier`] hashes it and
//! checks the tag, and only a successful check yields a [`Decryptor`] for the
//! second pass. The decryptor hashes the second pass too, and
//! [`Decryptor::finish`] reports an error if the ciphertext changed between
//! the passes (so callers that write plaintext to a temporary file can
//! still refuse to keep it).
//!
//! What that guarantees: within the second pass each byte is read once
//! (hashed and decrypted from one private copy), so if `finish` returns
//! `Ok`, everything the decryptor wrote is the decryption of a ciphertext
//! whose tag verified. Until then its output is unauthenticated, and on an
//! error it is the caller's to discard: the stream's plaintext is in the
//! caller's buffers, which the decryptor does not keep. A message that fits
//! in memory is better opened in one pass that wipes its own output
//! ([`CwcKey::decrypt_detached`], [`CwcKey::raw_decryptor`]).

use zeroize::Zeroizing;

use super::ctr::Ctr;
use super::hash::Hasher;
use super::key::{CwcKey, Tag, check_len, check_tag_len};
use super::{MAX_BYTES, NONCE_BYTES};
use crate::ct;
use crate::error::Error;

fn start(key: &CwcKey, aad: &[u8], tag_len: usize) -> Result<Hasher, Error> {
    check_tag_len(tag_len)?;
    check_len("associated data", aad.len() as u64)?;
    let mut h = Hasher::new();
    h.update_aad(&key.hash, aad);
    Ok(h)
}

fn room(h: &Hasher, more: usize, what: &'static str) -> Result<(), Error> {
    let (_, done) = h.lengths();
    match done.checked_add(more as u64) {
        Some(total) if total <= MAX_BYTES => Ok(()),
        _ => Err(Error::TooLong { what, max: MAX_BYTES }),
    }
}

/// On-line CWC-ENC.
///
/// ```
/// use wegman::cwc::CwcKey;
/// let key = CwcKey::new(&[3u8; 32])?;
/// let nonce = [9u8; 11];
/// let mut enc = key.encryptor(&nonce, b"aad", 16)?;
/// let mut part1 = *b"hello, ";
/// let mut part2 = *b"world";
/// enc.update(&mut part1)?;
/// enc.update(&mut part2)?;
/// let tag = enc.finalize();
/// let mut whole = [part1.as_slice(), part2.as_slice(), tag.as_slice()].concat();
/// assert_eq!(key.decrypt(&nonce, b"aad", &whole, 16)?, b"hello, world");
/// # Ok::<(), wegman::Error>(())
/// ```
pub struct Encryptor<'k> {
    key: &'k CwcKey,
    nonce: [u8; NONCE_BYTES],
    ctr: Ctr,
    hash: Hasher,
    tag_len: usize,
}

impl CwcKey {
    /// Start streaming encryption of a message under `nonce` with associated data `aad`.
    pub fn encryptor(&self, nonce: &[u8; NONCE_BYTES], aad: &[u8], tag_len: usize) -> Result<Encryptor<'_>, Error> {
        Ok(Encryptor { key: self, nonce: *nonce, ctr: Ctr::new(nonce), hash: start(self, aad, tag_len)?, tag_len })
    }

    /// Start the first (verifying) pass of streaming decryption.
    pub fn verifier(&self, nonce: &[u8; NONCE_BYTES], aad: &[u8], tag_len: usize) -> Result<Verifier<'_>, Error> {
        let first = start(self, aad, tag_len)?;
        let second = start(self, aad, tag_len)?;
        Ok(Verifier { key: self, nonce: *nonce, hash: first, second, tag_len })
    }
}

impl Encryptor<'_> {
    /// Encrypt the next piece in place. Fails, leaving `data` untouched, if
    /// the message would exceed 2^32 - 1 blocks.
    pub fn update(&mut self, data: &mut [u8]) -> Result<(), Error> {
        room(&self.hash, data.len(), "message")?;
        self.ctr.apply(&self.key.cipher, data);
        self.hash.update_ciphertext(&self.key.hash, data);
        Ok(())
    }

    /// The tag.
    pub fn finalize(self) -> Tag {
        self.key.mac(&self.nonce, self.hash, self.tag_len)
    }
}

/// First pass of streaming CWC-DEC: hashes the ciphertext, releases nothing.
pub struct Verifier<'k> {
    key: &'k CwcKey,
    nonce: [u8; NONCE_BYTES],
    hash: Hasher,
    second: Hasher,
    tag_len: usize,
}

impl<'k> Verifier<'k> {
    /// Hash the next piece of ciphertext.
    pub fn update(&mut self, ciphertext: &[u8]) -> Result<(), Error> {
        room(&self.hash, ciphertext.len(), "ciphertext")?;
        self.hash.update_ciphertext(&self.key.hash, ciphertext);
        Ok(())
    }

    /// Check the tag in constant time; only on success get the decryptor
    /// for the second pass over the same ciphertext.
    pub fn verify(self, tag: &[u8]) -> Result<Decryptor<'k>, Error> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidLength { what: "tag", expected: self.tag_len, got: tag.len() });
        }
        let (_, len) = self.hash.lengths();
        // The hash value reveals Kh to anyone who knows A and the
        // ciphertext: wiped whenever it drops, on every path.
        let verified = Zeroizing::new(self.hash.clone().finalize(&self.key.hash));
        let mine = self.key.mac(&self.nonce, self.hash, self.tag_len);
        super::key::public_verdict(super::key::tag_eq(&mine, tag))?;
        Ok(Decryptor { key: self.key, ctr: Ctr::new(&self.nonce), hash: self.second, verified, len })
    }
}

/// Second pass of streaming CWC-DEC, available only after the tag verified.
///
/// **Its output is not yet trustworthy**: [`update`](Self::update) decrypts
/// whatever it is given, and only [`finish`](Self::finish) proves that the
/// second pass saw the very ciphertext the first pass verified (a file can
/// change in between). Write the output somewhere private and release it
/// only after `finish` returns `Ok`, as `wegman open` does.
#[must_use = "call finish() and release the plaintext only if it returns Ok"]
pub struct Decryptor<'k> {
    key: &'k CwcKey,
    ctr: Ctr,
    hash: Hasher,
    verified: Zeroizing<[u8; 16]>,
    len: u64,
}

impl Decryptor<'_> {
    /// Decrypt the next piece of the (already verified) ciphertext in place,
    /// reading each of its bytes once: the plaintext written is the
    /// decryption of exactly the bytes this pass hashed, which
    /// [`finish`](Self::finish) compares with what the first pass verified.
    pub fn update(&mut self, data: &mut [u8]) -> Result<(), Error> {
        room(&self.hash, data.len(), "ciphertext")?;
        let (hash, ctr) = (&mut self.hash, &mut self.ctr);
        super::one_pass::through_private(data, |copy| {
            hash.update_ciphertext(&self.key.hash, copy);
            ctr.apply(&self.key.cipher, copy);
        });
        Ok(())
    }

    /// Confirm the second pass saw exactly the ciphertext the first pass
    /// verified. An error means the input changed in between: discard
    /// everything this decryptor produced.
    #[must_use = "an error means the plaintext produced must be discarded"]
    pub fn finish(self) -> Result<(), Error> {
        let (_, len) = self.hash.lengths();
        let again = Zeroizing::new(self.hash.finalize(&self.key.hash));
        ct::verdict(len == self.len && ct::eq(&*again, &*self.verified))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_refuses_to_cross_the_limit_before_writing() {
        let key = CwcKey::new(&[1u8; 16]).unwrap();
        let mut enc = key.encryptor(&[0; 11], b"", 16).unwrap();
        enc.hash.set_ciphertext_len_for_test(MAX_BYTES - 16);
        let mut ok = [0u8; 16];
        enc.update(&mut ok).unwrap(); // exactly 2^32 - 1 blocks in total
        let mut over = [7u8; 1];
        assert!(matches!(enc.update(&mut over), Err(Error::TooLong { .. })));
        assert_eq!(over, [7], "nothing written past the limit");

        let mut ver = key.verifier(&[0; 11], b"", 16).unwrap();
        ver.hash.set_ciphertext_len_for_test(MAX_BYTES);
        assert!(ver.update(&[0]).is_err());
        assert!(ver.update(&[]).is_ok());
    }
}
