//! An MMH tag and how it is made from the tree hash: spec §4's word-by-word
//! sum with the pad (what the streaming MAC, the one-shot AES-NI path and
//! the batches share).

use core::fmt;

use super::alg::{Alg, MAX_TAG_BYTES};

/// A tag, or a tree-hash output H: the algorithm's w bytes (4, 8, 12 or 16),
/// little-endian words.
///
/// Tags are public, so `Debug` shows them in hex; `==` still compares in
/// constant time.
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: [u8; MAX_TAG_BYTES],
    len: u8,
}

impl Tag {
    pub(super) fn new(bytes: [u8; MAX_TAG_BYTES], len: usize) -> Self {
        debug_assert!(len <= MAX_TAG_BYTES && bytes[len..].iter().all(|&b| b == 0));
        Tag { bytes, len: len as u8 }
    }

    /// The tag's bytes (exactly [`Alg::tag_bytes`] of them).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Always false: every algorithm has a tag of at least 4 bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        // Bytes past `len` are zero in every Tag, so the 16-byte compare suffices.
        crate::ct::eq16(&self.bytes, &other.bytes) & (self.len == other.len)
    }
}

impl Eq for Tag {}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tag(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// Spec §4: add the pad to H word by word, mod 2^32 or 2^64.
pub(super) fn seal(alg: Alg, h: &[u8; MAX_TAG_BYTES], pad: &[u8; 16]) -> Tag {
    let w = alg.output_bytes();
    let mut t = [0u8; MAX_TAG_BYTES];
    match alg.word_bytes() {
        4 => {
            for ((d, a), b) in t[..w].chunks_exact_mut(4).zip(h.chunks_exact(4)).zip(pad.chunks_exact(4)) {
                let s = u32::from_le_bytes([a[0], a[1], a[2], a[3]])
                    .wrapping_add(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                d.copy_from_slice(&s.to_le_bytes());
            }
        }
        _ => {
            for ((d, a), b) in t[..w].chunks_exact_mut(8).zip(h.chunks_exact(8)).zip(pad.chunks_exact(8)) {
                let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
                x.copy_from_slice(a);
                y.copy_from_slice(b);
                d.copy_from_slice(&u64::from_le_bytes(x).wrapping_add(u64::from_le_bytes(y)).to_le_bytes());
            }
        }
    }
    Tag::new(t, w)
}
