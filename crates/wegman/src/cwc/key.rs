//! CWC-AES keys and the one-shot CWC-ENC / CWC-DEC of §3.

use core::fmt;

use aead::inout::InOutBuf;
use zeroize::Zeroize;

use super::backend::{Dispatch, HashKey};
use super::ctr::{Ctr, counter_block};
use super::hash::{self, Hasher};
use super::{MAX_BYTES, NONCE_BYTES, TAG_BYTES};
use crate::aes::Key;
use crate::cpu::Features;
use crate::ct;
use crate::error::Error;

/// A CWC tag: the first `len` (1..=16) bytes of τ. `==` compares in
/// constant time (no early exit on the first differing byte).
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: [u8; TAG_BYTES],
    len: usize,
}

impl PartialEq for Tag {
    fn eq(&self, other: &Self) -> bool {
        // Bytes past `len` are always zero, so comparing all 16 is exact.
        ct::eq16(&self.bytes, &other.bytes) & (self.len == other.len)
    }
}

impl Eq for Tag {}

impl Tag {
    /// The tag bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag(")?;
        for b in self.as_slice() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// `mine` (computed with `tag.len()` bytes) equals `tag`, in constant time:
/// both zero-padded to 16 bytes (the length is public) and compared as two
/// words (`ct::eq16`), not byte by byte.
pub(crate) fn tag_eq(mine: &Tag, tag: &[u8]) -> bool {
    debug_assert_eq!(mine.len, tag.len());
    if let Ok(full) = <&[u8; TAG_BYTES]>::try_from(tag) {
        // The usual 16-byte tag: compared where it lies (a padded copy made
        // by a variable-length store stalls the 16-byte load that follows).
        return ct::eq16(&mine.bytes, full);
    }
    let mut given = [0u8; TAG_BYTES];
    given[..tag.len()].copy_from_slice(tag);
    ct::eq16(&mine.bytes, &given)
}

/// Whether a tag verified, made public: the one place CWC branches on a
/// value computed from the secrets.
///
/// The verdict is public by design (decryption must act on it: release the
/// plaintext, or nothing), and everything before it is computed without a
/// branch (`tag_eq`). Here it decides by a jump, so the `Result` handed back
/// is a plain value that callers may branch on. The failure arm passes
/// through `black_box`, which the optimizer can neither drop nor execute
/// speculatively, so the choice stays a jump rather than a select; and the
/// function stays out of line, so that the constant-time check
/// (`crates/wegman-ctgrind`) can allow this branch, by this name, and no
/// other.
#[inline(never)]
pub(crate) fn public_verdict(ok: bool) -> Result<(), Error> {
    if ok { Ok(()) } else { Err(core::hint::black_box(Error::TagMismatch)) }
}

pub(crate) fn check_tag_len(tag_len: usize) -> Result<(), Error> {
    if (1..=TAG_BYTES).contains(&tag_len) {
        Ok(())
    } else {
        Err(Error::InvalidTagLength { got: tag_len, min: 1, max: TAG_BYTES })
    }
}

pub(crate) fn check_len(what: &'static str, len: u64) -> Result<(), Error> {
    if len <= MAX_BYTES { Ok(()) } else { Err(Error::TooLong { what, max: MAX_BYTES }) }
}

/// A CWC-AES key: the AES key schedule, the hash key Kh (computed once) and
/// its powers Kh^1..Kh^4 (paper §6).
///
/// ```
/// use wegman::cwc::CwcKey;
/// let key = CwcKey::new(&[7u8; 16])?;                 // CWC-AES-128
/// let nonce = [1u8; 11];                               // never reuse with this key
/// let sealed = key.encrypt(&nonce, b"header", b"payload", 16)?;
/// assert_eq!(key.decrypt(&nonce, b"header", &sealed, 16)?, b"payload");
/// let mut bad = sealed.clone();
/// bad[0] ^= 1;
/// assert!(key.decrypt(&nonce, b"header", &bad, 16).is_err());
/// # Ok::<(), wegman::Error>(())
/// ```
#[derive(Clone)]
pub struct CwcKey {
    pub(crate) cipher: Key,
    pub(crate) hash: HashKey,
}

impl CwcKey {
    /// A 16-, 24- or 32-byte AES key (CWC-AES-128/192/256).
    #[inline]
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        Self::with_features(key, Features::detect())
    }

    /// Which backend computes this key's CWC-HASH.
    pub fn platform(&self) -> crate::backend::Platform {
        self.hash.platform()
    }

    /// Use at most `features` (tests and benchmarks; [`Features::portable`]
    /// forces the portable backend).
    #[inline]
    pub fn with_features(key: &[u8], features: Features) -> Result<Self, Error> {
        let Some(cipher) = Key::new(key, features) else {
            return Err(Error::UnsupportedKeyLength { what: "CWC-AES", got: key.len(), allowed: "16, 24 or 32" });
        };
        let mut kh = kh(&cipher);
        let hash = HashKey::select(&kh, features);
        kh.zeroize();
        Ok(CwcKey { cipher, hash })
    }

    /// The AES key length in bytes (16, 24 or 32).
    pub fn key_bytes(&self) -> usize {
        self.cipher.len()
    }

    /// CWC-ENC in place: encrypts `buf` and returns the `tag_len`-byte tag.
    /// Checks every length before touching `buf`.
    pub fn encrypt_detached(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.seal(nonce, aad, InOutBuf::from(buf), tag_len)
    }

    /// CWC-ENC from one buffer to another: the encryption of `plaintext` is
    /// written to `out` (as long as `plaintext`), and the `tag_len`-byte tag
    /// returned. One pass of counter mode from `plaintext` to `out`, then the
    /// hash of `out`: no copy of the plaintext first (as OpenSSL's
    /// `EVP_EncryptUpdate` writes its output); on CPUs with AVX-512 IFMA and
    /// 512-bit VAES, once the key's hash has its table, both in one loop
    /// that hashes the ciphertext registers it writes. Checks every length
    /// before touching `out`.
    ///
    /// ```
    /// use wegman::cwc::CwcKey;
    /// let key = CwcKey::new(&[7u8; 16])?;
    /// let nonce = [1u8; 11];
    /// let plaintext = b"attack at dawn";
    /// let mut ciphertext = [0u8; 14];
    /// let tag = key.encrypt_into(&nonce, b"header", plaintext, &mut ciphertext, 16)?;
    /// let mut sealed = ciphertext.to_vec();
    /// sealed.extend_from_slice(tag.as_slice());
    /// assert_eq!(sealed, key.encrypt(&nonce, b"header", plaintext, 16)?);
    /// # Ok::<(), wegman::Error>(())
    /// ```
    pub fn encrypt_into(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        let got = out.len();
        let buf = InOutBuf::new(plaintext, out).map_err(|_| Error::InvalidLength {
            what: "output",
            expected: plaintext.len(),
            got,
        })?;
        self.seal(nonce, aad, buf, tag_len)
    }

    /// CWC-ENC of the input of `buf` into its output (the same bytes, or
    /// others), after checking every length.
    pub(super) fn seal(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        mut buf: InOutBuf<'_, '_, u8>,
        tag_len: usize,
    ) -> Result<Tag, Error> {
        check_tag_len(tag_len)?;
        check_len("associated data", aad.len() as u64)?;
        check_len("message", buf.len() as u64)?;
        self.prefetch_for(aad.len(), buf.len());
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = self.hash.one_loop(&self.cipher, buf.len()) {
            return Ok(self.seal_in_one_loop(&one, nonce, aad, buf, tag_len));
        }
        let mut pad = [0u8; 16];
        Ctr::new(nonce).apply_inout(&self.cipher, buf.reborrow(), Some(&mut pad));
        Ok(self.tag_whole(aad, buf.get_out(), &mut pad, tag_len))
    }

    /// [`seal`](Self::seal) (lengths checked) with the message's whole
    /// steps in `one`'s loop of counter mode and hash; the rest as `seal`
    /// does it.
    #[cfg(target_arch = "x86_64")]
    fn seal_in_one_loop(
        &self,
        one: &super::backend::OneLoop<'_>,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        tag_len: usize,
    ) -> Tag {
        let len = buf.len();
        let mut ctr = Ctr::new(nonce);
        let (prefix, first) = ctr.position().expect("a new keystream is at a block boundary");
        let r = hash::absorb_padded(&self.hash, 0, aad);
        let done = super::backend::OneLoop::bytes_of(len);
        let (head, mut rest) = buf.split_at(done);
        let r = one.encrypt(&prefix, first, r, head);
        ctr.advance(done / 16);
        ctr.apply_inout(&self.cipher, rest.reborrow(), None);
        // `done` is whole steps, so whole 12-byte chunks: R goes on.
        let r = hash::absorb_padded(&self.hash, r, rest.get_out());
        self.tag_of(nonce, r, aad.len(), len, tag_len)
    }

    /// CWC-DEC in place: `tag` (its length is the mode's tl, 1..=16) is
    /// checked in constant time, in one pass that reads each byte of `buf`
    /// once (`one_pass.rs`). On success `buf` holds the plaintext; on
    /// failure it is zeroed (length errors fail before touching it).
    pub fn decrypt_detached(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.raw_decryptor(nonce, aad, tag)?.in_place(buf)
    }

    /// CWC-DEC from one buffer to another: `ciphertext` decrypted into `out`
    /// (as long as `ciphertext`), `tag` (its length is the mode's tl,
    /// 1..=16) checked in constant time, in the one pass of
    /// [`decrypt_detached`](Self::decrypt_detached), which reads each byte
    /// of `ciphertext` once and never reads `out`. On failure `out` is
    /// zeroed (length errors fail before touching it).
    ///
    /// ```
    /// use wegman::cwc::CwcKey;
    /// let key = CwcKey::new(&[7u8; 16])?;
    /// let nonce = [1u8; 11];
    /// let mut ciphertext = [0u8; 14];
    /// let tag = key.encrypt_into(&nonce, b"", b"attack at dawn", &mut ciphertext, 16)?;
    /// let mut plaintext = [0u8; 14];
    /// key.decrypt_into(&nonce, b"", &ciphertext, tag.as_slice(), &mut plaintext)?;
    /// assert_eq!(&plaintext, b"attack at dawn");
    /// ciphertext[0] ^= 1;
    /// assert!(key.decrypt_into(&nonce, b"", &ciphertext, tag.as_slice(), &mut plaintext).is_err());
    /// assert_eq!(plaintext, [0u8; 14]);
    /// # Ok::<(), wegman::Error>(())
    /// ```
    pub fn decrypt_into(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        let got = out.len();
        let buf = InOutBuf::new(ciphertext, out).map_err(|_| Error::InvalidLength {
            what: "output",
            expected: ciphertext.len(),
            got,
        })?;
        self.raw_decryptor(nonce, aad, tag)?.inout(buf)
    }

    /// Only the tag check of CWC-DEC (no decryption). The result is still
    /// computed from the secrets (no branch has been taken on it).
    pub fn verify_detached(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        ct::verdict(self.tag_matches(nonce, aad, ciphertext, tag)?)
    }

    /// Whether `tag` is right for the ciphertext, in constant time; errors
    /// only for lengths (public).
    pub(crate) fn tag_matches(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
    ) -> Result<bool, Error> {
        check_tag_len(tag.len())?;
        check_len("associated data", aad.len() as u64)?;
        check_len("ciphertext", ciphertext.len() as u64)?;
        self.prefetch_for(aad.len(), ciphertext.len());
        let mut pad = self.mac_pad(nonce);
        let mine = self.tag_whole(aad, ciphertext, &mut pad, tag.len());
        Ok(tag_eq(&mine, tag))
    }

    /// CWC-ENC: `ciphertext || tag`.
    pub fn encrypt(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        check_len("message", plaintext.len() as u64)?;
        let mut out = Vec::with_capacity(plaintext.len() + tag_len);
        // Zeros, then counter mode from the plaintext into them: writing
        // the buffer costs less than copying the plaintext into it first
        // (a read and a write) and encrypting in place.
        out.resize(plaintext.len(), 0);
        let tag = self.encrypt_into(nonce, aad, plaintext, &mut out, tag_len)?;
        out.extend_from_slice(tag.as_slice());
        Ok(out)
    }

    /// CWC-DEC of `ciphertext || tag` with a `tag_len`-byte tag: the
    /// plaintext, or an error and nothing at all (one pass, each byte of
    /// `sealed` read once; on a wrong tag the plaintext buffer is zeroed
    /// before it is freed). `tag_len` must be fixed by
    /// the protocol, not taken from the sender: shorter tags are prefixes of
    /// longer ones (see the [module docs](super)).
    pub fn decrypt(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        sealed: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        // |C| < tl: INVALID
        let split = sealed.len().checked_sub(tag_len).ok_or(Error::TagMismatch)?;
        let (c, tag) = sealed.split_at(split);
        let dec = self.raw_decryptor(nonce, aad, tag)?;
        let mut out = vec![0u8; split];
        // On failure `out` has been zeroed before it is dropped.
        dec.inout(InOutBuf::new(c, &mut out).expect("equal lengths"))?;
        Ok(out)
    }

    /// Ask for the key's tables that a message with `aad` and `text` bytes
    /// will read, all at once before the first is needed.
    #[inline]
    pub(super) fn prefetch_for(&self, aad: usize, text: usize) {
        self.cipher.prefetch();
        self.hash.prefetch_for(aad.max(text));
    }

    /// The MAC's pad BC_K(0x80 || N || 0^32) (counter block 0); the caller
    /// wipes it.
    pub(crate) fn mac_pad(&self, nonce: &[u8; NONCE_BYTES]) -> [u8; 16] {
        let mut pad = counter_block(nonce, 0);
        self.cipher.encrypt(&mut pad); // in place: `pad` is the one copy to wipe
        pad
    }

    /// CWC-MAC from a finished hash: first tl bytes of
    /// BC_K(0x80 || N || 0^32) XOR BC_K(CWC-HASH).
    pub(crate) fn mac(&self, nonce: &[u8; NONCE_BYTES], h: Hasher, tag_len: usize) -> Tag {
        let mut pad = self.mac_pad(nonce);
        let tag = self.mac_of(h.finalize(&self.hash), &pad, tag_len);
        pad.zeroize();
        tag
    }

    /// The tag of A and σ whose hash R is `r` (wiped), of `len_a` and
    /// `len_c` bytes.
    pub(super) fn tag_of(&self, nonce: &[u8; NONCE_BYTES], r: u128, len_a: usize, len_c: usize, tag_len: usize) -> Tag {
        let mut pad = self.mac_pad(nonce);
        let tag = self.mac_of(hash::finish(r, len_a as u64, len_c as u64), &pad, tag_len);
        pad.zeroize();
        tag
    }

    /// The tag of a whole message (`aad`, `ciphertext`) hashed at once
    /// (`hash::whole`) under the MAC pad `pad`, which is wiped.
    fn tag_whole(&self, aad: &[u8], ciphertext: &[u8], pad: &mut [u8; 16], tag_len: usize) -> Tag {
        let tag = self.mac_of(hash::whole(&self.hash, aad, ciphertext), pad, tag_len);
        pad.zeroize();
        tag
    }

    /// The tag from the hash value `e` (consumed and wiped) and the pad
    /// BC_K(0x80 || N || 0^32).
    pub(super) fn mac_of(&self, mut e: [u8; 16], pad: &[u8; 16], tag_len: usize) -> Tag {
        self.cipher.encrypt(&mut e);
        let mut bytes = [0u8; TAG_BYTES];
        for i in 0..TAG_BYTES {
            bytes[i] = e[i] ^ pad[i];
        }
        bytes[tag_len..].fill(0);
        e.zeroize();
        Tag { bytes, len: tag_len }
    }
}

/// Kh = the last 127 bits of BC_K(0xC0 || 0^120).
fn kh(cipher: &Key) -> u128 {
    let mut z = [0u8; 16];
    z[0] = 0xc0;
    cipher.encrypt(&mut z); // in place: z is the one copy to wipe
    let kh = u128::from_be_bytes(z) & ((1 << 127) - 1);
    z.zeroize();
    kh
}

impl Drop for CwcKey {
    fn drop(&mut self) {
        self.hash.wipe();
    }
}

impl fmt::Debug for CwcKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CwcKey {{ aes: {} bits, .. }}", self.key_bytes() * 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The intermediate values of every positive vector of
    /// ../shared/vectors/cwc.json: the hash key Kh = tostr(Kh, 128) and
    /// CWC-HASH_K(A, σ), computed by the key's own cipher and hash (not
    /// reachable through the public API, which never reveals them).
    #[test]
    fn the_hash_key_and_hash_value_of_every_vector() {
        let mut checked = 0;
        for (group, v) in crate::test_vectors::vectors("cwc.json") {
            if !crate::test_vectors::has(&v, "pt") {
                continue;
            }
            let (k, a, c) = (
                crate::test_vectors::bytes(&v, "key"),
                crate::test_vectors::bytes(&v, "aad"),
                crate::test_vectors::bytes(&v, "ct"),
            );
            let ciphertext = &c[..crate::test_vectors::bytes(&v, "pt").len()];
            let name = format!("{group}/{}", v["name"]);
            let key = CwcKey::new(&k).unwrap();
            assert_eq!(kh(&key.cipher).to_be_bytes(), crate::test_vectors::bytes(&v, "hash_key")[..], "{name}");
            let mut h = Hasher::new();
            h.update_aad(&key.hash, &a);
            h.update_ciphertext(&key.hash, ciphertext);
            assert_eq!(h.finalize(&key.hash), crate::test_vectors::bytes(&v, "hash_value")[..], "{name}");
            checked += 1;
        }
        assert_eq!(checked, 18 + 509 + 82);
    }

    /// `encrypt_into` with an output of the wrong length fails before
    /// writing anything, and leaves the plaintext alone either way.
    #[test]
    fn encrypt_into_checks_the_output_length_first() {
        let key = CwcKey::new(&[9u8; 16]).unwrap();
        let plaintext = [0x3cu8; 100];
        for len in [0, 99, 101, 200] {
            let mut out = vec![0xa5u8; len];
            let err = key.encrypt_into(&[1; 11], b"", &plaintext, &mut out, 16).unwrap_err();
            assert_eq!(err, Error::InvalidLength { what: "output", expected: 100, got: len });
            assert!(out.iter().all(|&b| b == 0xa5), "output written at length {len}");
        }
        let mut out = [0u8; 100];
        let tag = key.encrypt_into(&[1; 11], b"", &plaintext, &mut out, 16).unwrap();
        assert_eq!(plaintext, [0x3cu8; 100]);
        assert_eq!([&out[..], tag.as_slice()].concat(), key.encrypt(&[1; 11], b"", &plaintext, 16).unwrap());
        let mut out = [0u8; 100];
        assert!(key.encrypt_into(&[1; 11], b"", &plaintext, &mut out, 17).is_err(), "tag length checked");
        assert_eq!(out, [0u8; 100]);
        // decrypt_into likewise: a wrong output length fails untouched
        let sealed = key.encrypt(&[1; 11], b"", &plaintext, 16).unwrap();
        let mut short = vec![0xa5u8; 99];
        let err = key.decrypt_into(&[1; 11], b"", &sealed[..100], &sealed[100..], &mut short).unwrap_err();
        assert_eq!(err, Error::InvalidLength { what: "output", expected: 100, got: 99 });
        assert!(short.iter().all(|&b| b == 0xa5));
    }

    #[test]
    fn tag_eq_accepts_equal_tags_and_rejects_every_bit_flip_at_every_length() {
        for len in 1..=TAG_BYTES {
            let mut bytes = [0u8; TAG_BYTES];
            bytes[..len].iter_mut().enumerate().for_each(|(i, b)| *b = (i as u8).wrapping_mul(0x3b) ^ 0xc5);
            let mine = Tag { bytes, len };
            assert!(tag_eq(&mine, &bytes[..len]));
            for bit in 0..8 * len {
                let mut t = bytes;
                t[bit / 8] ^= 1 << (bit % 8);
                assert!(!tag_eq(&mine, &t[..len]), "len {len} bit {bit}");
            }
        }
    }

    #[test]
    fn tag_equality_is_exact() {
        let t = |b: u8, len: usize| {
            let mut bytes = [0u8; TAG_BYTES];
            bytes[..len].fill(b);
            Tag { bytes, len }
        };
        assert!(t(7, 16) == t(7, 16));
        assert!(t(7, 16) != t(6, 16));
        assert!(t(7, 12) != t(7, 16));
        assert!(t(0, 4) != t(0, 8), "same bytes, different lengths");
        let mut a = t(9, 16);
        a.bytes[15] ^= 0x80;
        assert!(a != t(9, 16));
    }
    use crate::cwc::MAX_BLOCKS;

    #[test]
    fn length_limit_is_2_pow_32_minus_1_blocks() {
        assert_eq!(MAX_BYTES, 68_719_476_720);
        assert!(check_len("message", MAX_BLOCKS * 16).is_ok()); // 2^32 - 1 blocks
        assert!(check_len("message", MAX_BLOCKS * 16 + 1).is_err()); // a partial extra block
        assert!(check_len("message", (1u64 << 32) * 16).is_err()); // 2^32 blocks
        assert!(matches!(
            check_len("associated data", u64::MAX),
            Err(Error::TooLong { what: "associated data", max: MAX_BYTES })
        ));
    }

    #[test]
    fn last_counter_value_does_not_wrap() {
        // At the limit the last keystream block is counter 2^32 - 1.
        let key = CwcKey::new(&[5u8; 16]).unwrap();
        let nonce = [1u8; 11];
        let mut ctr = Ctr::new(&nonce);
        ctr.skip_blocks_for_test(MAX_BLOCKS - 1);
        let mut last = [0u8; 16];
        ctr.apply(&key.cipher, &mut last);
        let mut want = counter_block(&nonce, u32::MAX);
        key.cipher.encrypt(&mut want);
        assert_eq!(last, want);
    }
}
