//! What the fuzz targets share: reading a fuzzer input field by field,
//! cutting a message at fuzzer-chosen points, and the backends to compare.
//!
//! Every target reads its input with [`Input`], whose layout its header
//! documents and `scripts/fuzz-seeds` writes; a field past the end of the
//! input reads as zeros, so every byte string is a valid input.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use wegman::cpu::Features;

/// A fuzzer input, read front to back.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        self.array::<1>()[0]
    }

    /// The next little-endian u16 (zero-padded past the end).
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.array())
    }

    /// The next `N` bytes (zero-padded past the end).
    pub fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        out
    }

    /// The next `n` bytes, or fewer at the end.
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// Split points: a count byte (taken mod 8), then that many u16 piece
    /// lengths.
    pub fn splits(&mut self) -> Vec<usize> {
        let n = self.byte() % 8;
        (0..n).map(|_| usize::from(self.u16())).collect()
    }

    /// Everything not read yet.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }

    /// The rest read as an edit of `original`: how (a byte), where (a u16,
    /// counted back from the end), then the bytes to insert there, to
    /// append after a cut there, to overwrite with, or as many bytes to
    /// delete; the fifth way leaves `original` as it is (a replay). Random
    /// bytes rarely keep a file's structure; an edit keeps all but one place.
    pub fn edit(mut self, original: &[u8]) -> Vec<u8> {
        let (op, at) = (self.byte(), usize::from(self.u16()));
        let bytes = self.rest();
        let mut s = original.to_vec();
        let at = s.len() - at % (s.len() + 1);
        match op % 5 {
            0 => drop(s.splice(at..at, bytes.iter().copied())),
            1 => {
                s.truncate(at);
                s.extend_from_slice(bytes);
            }
            2 => {
                let end = (at + bytes.len()).min(s.len());
                drop(s.splice(at..end, bytes.iter().copied()));
            }
            3 => drop(s.drain(at..(at + bytes.len()).min(s.len()))),
            _ => {}
        }
        s
    }
}

/// `message` cut into pieces of the lengths in `splits`, each cut to what
/// is left (so empty pieces occur), and the remainder as the last piece.
pub fn pieces<'m>(message: &'m [u8], splits: &[usize]) -> Vec<&'m [u8]> {
    let mut out = Vec::with_capacity(splits.len() + 1);
    let mut rest = message;
    for &len in splits {
        let (head, tail) = rest.split_at(len.min(rest.len()));
        out.push(head);
        rest = tail;
    }
    out.push(rest);
    out
}

/// `tail` repeated to `len` bytes (`tail` itself if it is empty): long
/// messages, for the SIMD loops and the MMH tree's upper levels, from short
/// inputs.
pub fn cycled(tail: &[u8], len: usize) -> Cow<'_, [u8]> {
    if len <= tail.len() || tail.is_empty() {
        return Cow::Borrowed(tail);
    }
    Cow::Owned(tail.iter().copied().cycle().take(len).collect())
}

/// Every backend level this CPU has, portable first (as the backend tests
/// run them).
pub fn levels() -> Vec<Features> {
    Features::detect().every_level()
}

/// `tag` with bit `bit` (mod its length in bits) flipped.
pub fn flip_bit(tag: &[u8], bit: usize) -> Vec<u8> {
    let mut t = tag.to_vec();
    let bit = bit % (8 * t.len());
    t[bit / 8] ^= 1 << (bit % 8);
    t
}

/// The input of the two Poly1305-AES targets (`poly1305aes`,
/// `poly1305aes_capi`), which share their seeds: `flags, repeat, flip,
/// k[16], r[16], nonce[16]`, split points, then the message, the rest of
/// the input repeated to `1 + repeat` times its length but at most 2 KiB +
/// 64 bytes: past every backend's thresholds (the largest, 1 KiB, picks the
/// IFMA backend's second set of powers) and no further, as the reference
/// model's cost, most of each run, grows faster than the length.
pub struct PolyCase {
    pub flags: u8,
    /// A bit to flip in a tag (taken mod 128).
    pub flip: usize,
    pub k: [u8; 16],
    /// r as given: it may have forbidden bits set.
    pub r: [u8; 16],
    pub nonce: [u8; 16],
    pub splits: Vec<usize>,
    pub message: Vec<u8>,
}

impl PolyCase {
    pub fn read(data: &[u8]) -> Self {
        let mut input = Input::new(data);
        let (flags, repeat, flip) = (input.byte(), input.byte(), usize::from(input.byte()));
        let (k, r, nonce) = (input.array(), input.array(), input.array());
        let splits = input.splits();
        let tail = input.rest();
        let len = (tail.len() * (1 + usize::from(repeat))).min((2 << 10) + 64);
        PolyCase { flags, flip, k, r, nonce, splits, message: cycled(tail, len).into_owned() }
    }

    /// `k || r`.
    pub fn kr(&self) -> [u8; 32] {
        let mut kr = [0u8; 32];
        kr[..16].copy_from_slice(&self.k);
        kr[16..].copy_from_slice(&self.r);
        kr
    }
}

/// A fresh directory for a target's files, `$TMPDIR/wegman-fuzz-<name>-<pid>`
/// (`scripts/fuzz` points TMPDIR at a directory it removes afterwards).
pub fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wegman-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work directory");
    dir
}

/// Write `seeds` (name, bytes) into the directory `WEGMAN_FUZZ_SEEDS`
/// names, if it does: the genuine manifests and states a target makes at
/// start-up, before libFuzzer reads its corpus.
pub fn write_seeds(seeds: &[(String, Vec<u8>)]) {
    let Some(dir) = std::env::var_os("WEGMAN_FUZZ_SEEDS") else { return };
    std::fs::create_dir_all(&dir).expect("seed directory");
    for (name, bytes) in seeds {
        std::fs::write(Path::new(&dir).join(name), bytes).expect("seed");
    }
}
