//! The sealed CWC format, version 1: what `wegman seal cwc` writes and
//! `wegman open cwc` reads (docs/sealed-format.md has the layout, the
//! rules and a test vector).
//!
//! ```text
//! header (30 bytes) ‖ ciphertext ‖ tag
//! header = magic "WEGMCWC\0" ‖ version 1 ‖ algorithm ‖ key id (8) ‖ tag length ‖ nonce (11)
//! ```
//!
//! The file says how it is to be opened: which algorithm, which key (by
//! its [`key_id`], which reveals nothing about the key), how long the tag
//! is, which nonce. The header is authenticated: the CWC associated data
//! is `u16be(30) ‖ header ‖ the caller's associated data` ([`Header::aad`]),
//! so a header edited in any byte fails the tag, and a tag cut short does
//! too, whatever length the verifier would have accepted.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use wegman::cwc::NONCE_BYTES;

/// The first 8 bytes of a sealed file.
pub const MAGIC: [u8; 8] = *b"WEGMCWC\0";

/// The format version this code writes and reads.
pub const VERSION: u8 = 1;

/// Bytes in a key id.
pub const KEY_ID_BYTES: usize = 8;

/// Bytes in a version-1 header: magic, version, algorithm, key id, tag
/// length, nonce.
pub const HEADER_BYTES: usize = MAGIC.len() + 1 + 1 + KEY_ID_BYTES + 1 + NONCE_BYTES;

/// What a key id is the HMAC-SHA-256 of, under the key.
const KEY_ID_LABEL: &[u8] = b"wegman key id v1";

/// The algorithm byte of a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// CWC-AES-128 (byte 1).
    CwcAes128,
    /// CWC-AES-192 (byte 2).
    CwcAes192,
    /// CWC-AES-256 (byte 3).
    CwcAes256,
}

impl Alg {
    /// The algorithm of an AES key of `len` bytes.
    pub fn for_key_bytes(len: usize) -> Option<Alg> {
        match len {
            16 => Some(Alg::CwcAes128),
            24 => Some(Alg::CwcAes192),
            32 => Some(Alg::CwcAes256),
            _ => None,
        }
    }

    /// Its byte in a header.
    pub fn byte(self) -> u8 {
        match self {
            Alg::CwcAes128 => 1,
            Alg::CwcAes192 => 2,
            Alg::CwcAes256 => 3,
        }
    }

    fn from_byte(b: u8) -> Option<Alg> {
        [Alg::CwcAes128, Alg::CwcAes192, Alg::CwcAes256].into_iter().find(|a| a.byte() == b)
    }

    /// Its name, as `keygen --alg` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Alg::CwcAes128 => "cwc-aes-128",
            Alg::CwcAes192 => "cwc-aes-192",
            Alg::CwcAes256 => "cwc-aes-256",
        }
    }
}

/// The id of an AES key: the first 8 bytes of HMAC-SHA-256(key, "wegman
/// key id v1" ‖ the key's length in bytes as one byte). It tells keys
/// apart; finding the key from it is as hard as inverting HMAC-SHA-256
/// under a 128-bit or longer key. The length is in the message because
/// HMAC pads its key with zeros: the 16- and 24-byte keys of all zeros
/// would otherwise have one id.
pub fn key_id(key: &[u8]) -> [u8; KEY_ID_BYTES] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(KEY_ID_LABEL);
    mac.update(&[key.len() as u8]);
    let full = mac.finalize().into_bytes();
    full[..KEY_ID_BYTES].try_into().expect("8 of 32 bytes")
}

/// Which key a header names: its algorithm and key id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyIdent {
    /// The algorithm (from the key's length).
    pub alg: Alg,
    /// [`key_id`] of the key.
    pub id: [u8; KEY_ID_BYTES],
}

impl KeyIdent {
    /// The ident of an AES key of 16, 24 or 32 bytes.
    pub fn of(key: &[u8]) -> Result<KeyIdent, String> {
        let alg = Alg::for_key_bytes(key.len())
            .ok_or_else(|| format!("a CWC-AES key is 16, 24 or 32 bytes, not {}", key.len()))?;
        Ok(KeyIdent { alg, id: key_id(key) })
    }
}

/// A version-1 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The key it was sealed under.
    pub key: KeyIdent,
    /// The tag's length, 1 to 16.
    pub tag_len: usize,
    /// The CWC nonce.
    pub nonce: [u8; NONCE_BYTES],
}

/// Why the front of a file is not a header this code can open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// It does not start with [`MAGIC`]: a headerless file, or not a sealed file.
    NoMagic,
    /// It starts like a header but ends before one does.
    Truncated,
    /// A version other than [`VERSION`].
    Version(u8),
    /// An algorithm byte other than 1, 2, 3.
    Alg(u8),
    /// A tag length outside 1 to 16.
    TagLen(u8),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::NoMagic => f.write_str("no sealed-file header"),
            HeaderError::Truncated => write!(f, "the sealed-file header is cut short (it is {HEADER_BYTES} bytes)"),
            HeaderError::Version(v) => {
                write!(f, "sealed-file format version {v} is unknown (this wegman reads version {VERSION})")
            }
            HeaderError::Alg(a) => write!(f, "the sealed-file header names an unknown algorithm (byte {a})"),
            HeaderError::TagLen(t) => write!(f, "the sealed-file header's tag length {t} is not 1 to 16"),
        }
    }
}

impl Header {
    /// The header of a file sealed under `key` (its ident) with these
    /// parameters.
    pub fn new(key: KeyIdent, tag_len: usize, nonce: [u8; NONCE_BYTES]) -> Result<Header, String> {
        if !(1..=16).contains(&tag_len) {
            return Err(format!("tag length {tag_len}: must be 1 to 16"));
        }
        Ok(Header { key, tag_len, nonce })
    }

    /// Its bytes.
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut h = [0u8; HEADER_BYTES];
        h[..8].copy_from_slice(&MAGIC);
        h[8] = VERSION;
        h[9] = self.key.alg.byte();
        h[10..18].copy_from_slice(&self.key.id);
        h[18] = self.tag_len as u8;
        h[19..].copy_from_slice(&self.nonce);
        h
    }

    /// The header at the front of `bytes` (the whole file, or at least its
    /// first [`HEADER_BYTES`]). Checks, in order: the magic, the version,
    /// the length, the algorithm, the tag length.
    pub fn parse(bytes: &[u8]) -> Result<Header, HeaderError> {
        let magic = &bytes[..bytes.len().min(MAGIC.len())];
        if magic.is_empty() || magic != &MAGIC[..magic.len()] {
            return Err(HeaderError::NoMagic);
        }
        let Some(&version) = bytes.get(MAGIC.len()) else { return Err(HeaderError::Truncated) };
        if version != VERSION {
            return Err(HeaderError::Version(version));
        }
        let h = bytes.get(..HEADER_BYTES).ok_or(HeaderError::Truncated)?;
        let alg = Alg::from_byte(h[9]).ok_or(HeaderError::Alg(h[9]))?;
        if !(1..=16).contains(&h[18]) {
            return Err(HeaderError::TagLen(h[18]));
        }
        Ok(Header {
            key: KeyIdent { alg, id: h[10..18].try_into().expect("8 bytes") },
            tag_len: h[18] as usize,
            nonce: h[19..].try_into().expect("11 bytes"),
        })
    }

    /// Whether this header was written under the key `mine`: the same
    /// algorithm and key id; the error says which differs.
    pub fn check_key(&self, mine: &KeyIdent) -> Result<(), String> {
        if self.key.alg != mine.alg {
            return Err(format!(
                "sealed with a {} key, but the key given is a {} key",
                self.key.alg.name(),
                mine.alg.name()
            ));
        }
        if self.key.id != mine.id {
            return Err(format!(
                "key id mismatch: sealed under key id {}, but the key given has key id {} (another key)",
                crate::hex::encode(&self.key.id),
                crate::hex::encode(&mine.id)
            ));
        }
        Ok(())
    }

    /// The associated data of the CWC computation: `u16be(30) ‖ header ‖
    /// aad`, the header's length first so that where it ends and the
    /// caller's associated data begins is never in doubt.
    pub fn aad(&self, aad: &[u8]) -> Vec<u8> {
        let mut all = Vec::with_capacity(2 + HEADER_BYTES + aad.len());
        all.extend_from_slice(&(HEADER_BYTES as u16).to_be_bytes());
        all.extend_from_slice(&self.encode());
        all.extend_from_slice(aad);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wegman::cwc::CwcKey;

    fn ident() -> KeyIdent {
        KeyIdent::of(&(0u8..16).collect::<Vec<_>>()).unwrap()
    }

    /// The test vector of docs/sealed-format.md: key 000102…0f, nonce
    /// 0102…0b, associated data "header", plaintext "attack at dawn",
    /// 16-byte tag.
    const VECTOR_KEY: &str = "000102030405060708090a0b0c0d0e0f";
    const VECTOR_SEALED: &str = concat!(
        "5745474d43574300",                 // magic
        "01",                               // version
        "01",                               // CWC-AES-128
        "cd556344033484bb",                 // key id
        "10",                               // tag length 16
        "0102030405060708090a0b",           // nonce
        "d3122ef07022a43c46223a9b9ca6",     // ciphertext
        "f9c26fe15ad8d29cefca7bdf82911402", // tag
    );

    #[test]
    fn the_documented_test_vector() {
        let key = crate::hex::decode_vec("key", VECTOR_KEY).unwrap();
        let nonce: [u8; 11] = core::array::from_fn(|i| i as u8 + 1);
        let header = Header::new(KeyIdent::of(&key).unwrap(), 16, nonce).unwrap();
        let mut sealed = header.encode().to_vec();
        let ct = CwcKey::new(&key).unwrap().encrypt(&nonce, &header.aad(b"header"), b"attack at dawn", 16).unwrap();
        sealed.extend_from_slice(&ct);
        assert_eq!(crate::hex::encode(&sealed), VECTOR_SEALED);
        assert_eq!(crate::hex::encode(&key_id(&key)), &VECTOR_SEALED[20..36]);
    }

    #[test]
    fn headers_round_trip_for_each_algorithm() {
        for (len, alg, byte) in [(16, Alg::CwcAes128, 1), (24, Alg::CwcAes192, 2), (32, Alg::CwcAes256, 3)] {
            let key = vec![7u8; len];
            let ident = KeyIdent::of(&key).unwrap();
            assert_eq!(ident.alg, alg);
            for tag_len in [1, 8, 16] {
                let h = Header::new(ident, tag_len, [9; 11]).unwrap();
                let bytes = h.encode();
                assert_eq!((&bytes[..8], bytes[8], bytes[9], bytes[18]), (&MAGIC[..], 1, byte, tag_len as u8));
                assert_eq!(Header::parse(&bytes), Ok(h));
                // with a body after it
                assert_eq!(Header::parse(&[&bytes[..], b"ciphertext and tag"].concat()), Ok(h));
                assert_eq!(h.check_key(&ident), Ok(()));
            }
        }
        assert!(KeyIdent::of(&[0; 20]).is_err());
        assert!(Header::new(ident(), 0, [0; 11]).is_err() && Header::new(ident(), 17, [0; 11]).is_err());
    }

    #[test]
    fn bad_headers_are_told_apart() {
        let good = Header::new(ident(), 16, [1; 11]).unwrap().encode();
        assert_eq!(Header::parse(b""), Err(HeaderError::NoMagic));
        assert_eq!(Header::parse(b"plaintext, or a headerless file"), Err(HeaderError::NoMagic));
        assert_eq!(Header::parse(b"WEGMCWD\0"), Err(HeaderError::NoMagic));
        for cut in 1..HEADER_BYTES {
            assert_eq!(Header::parse(&good[..cut]), Err(HeaderError::Truncated), "{cut}");
        }
        let edit = |at: usize, v: u8| {
            let mut h = good;
            h[at] = v;
            Header::parse(&h)
        };
        assert_eq!(edit(8, 2), Err(HeaderError::Version(2)));
        assert_eq!(edit(8, 0), Err(HeaderError::Version(0)));
        assert_eq!(edit(9, 0), Err(HeaderError::Alg(0)));
        assert_eq!(edit(9, 4), Err(HeaderError::Alg(4)));
        assert_eq!(edit(18, 0), Err(HeaderError::TagLen(0)));
        assert_eq!(edit(18, 17), Err(HeaderError::TagLen(17)));
        // an unknown version is named before the length is looked at
        assert_eq!(Header::parse(&[&MAGIC[..], &[2]].concat()), Err(HeaderError::Version(2)));
    }

    #[test]
    fn another_key_is_named_by_what_differs() {
        let h = Header::new(ident(), 16, [1; 11]).unwrap();
        let other = KeyIdent::of(&[0xff; 16]).unwrap();
        assert!(h.check_key(&other).unwrap_err().starts_with("key id mismatch"));
        let bigger = KeyIdent::of(&[0; 32]).unwrap();
        assert_eq!(
            h.check_key(&bigger).unwrap_err(),
            "sealed with a cwc-aes-128 key, but the key given is a cwc-aes-256 key"
        );
        // ids differ with the key, and with its length even where HMAC's
        // zero padding makes the keys themselves equivalent
        assert_ne!(key_id(&[0; 16]), key_id(&[1; 16]));
        assert_ne!(key_id(&[0; 16]), key_id(&[0; 24]));
        assert_ne!(key_id(&[0; 24]), key_id(&[0; 32]));
    }

    #[test]
    fn the_aad_is_the_delimited_header_then_the_callers() {
        let h = Header::new(ident(), 12, [3; 11]).unwrap();
        let aad = h.aad(b"user");
        assert_eq!(&aad[..2], &[0, 30]);
        assert_eq!(&aad[2..32], &h.encode());
        assert_eq!(&aad[32..], b"user");
        assert_eq!(h.aad(b"").len(), 32);
    }
}
