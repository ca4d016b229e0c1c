//! The seven named algorithms of spec §1's table and the sizes they imply.

use core::fmt;
use core::str::FromStr;

use crate::error::Error;

/// Words per block, `k` (paper §3.1, "Fixing the value of k"; spec: `k = 32` throughout).
pub const K: usize = 32;
/// Tree levels that have keys (spec §2); a message needing a 17th is rejected.
pub const MAX_LEVELS: usize = 16;
/// Length of a MAC key `kp || ks` in bytes (spec §2).
pub const KEY_BYTES: usize = 32;
/// Length of a nonce in bytes (spec §4).
pub const NONCE_BYTES: usize = 16;
/// The longest tag or tree output of any algorithm (`mmh32x4`, `mmh64x2`).
pub const MAX_TAG_BYTES: usize = 16;
/// The largest block (MMH64: 32 words of 8 bytes).
pub(crate) const MAX_BLOCK_BYTES: usize = 256;
/// The most key bytes one level needs: MMH64 with n = 2, k + n − 1 = 33 words of 8 bytes.
pub(crate) const MAX_LEVEL_KEY_BYTES: usize = 33 * 8;

/// The block function underneath an [`Alg`] (spec §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// MMH32, paper Definition 5: 32-bit words, p = 2^32 + 15.
    Mmh32,
    /// NMH32, paper Definition 10: 32-bit words, p = 2^32 + 15.
    Nmh32,
    /// MMH64, the paper's §3.2 suggestion: 64-bit words, p = 2^64 + 13.
    Mmh64,
}

/// One of the MAC algorithms of spec §1's table.
///
/// ```
/// use wegman::mmh::Alg;
/// let alg: Alg = "mmh32x4".parse().unwrap();
/// assert_eq!(alg, Alg::Mmh32x4);
/// assert_eq!((alg.name(), alg.label(), alg.tag_bytes()), ("mmh32x4", "MMH32X4", 16));
/// assert_eq!(alg.max_message_len(), 3_860_228_252_031_871); // spec §2
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    /// MMH32, 4-byte tag. ε ≈ 6·2^−32 per level: short-lived links only.
    Mmh32,
    /// MMH32, 2-fold Toeplitz, 8-byte tag.
    Mmh32x2,
    /// MMH32, 3-fold Toeplitz, 12-byte tag.
    Mmh32x3,
    /// MMH32, 4-fold Toeplitz, 16-byte tag.
    Mmh32x4,
    /// NMH32, 4-byte tag. ε close to 2^−32 per level: short-lived links only.
    Nmh32,
    /// MMH64, 8-byte tag.
    Mmh64,
    /// MMH64, 2-fold Toeplitz, 16-byte tag.
    Mmh64x2,
}

impl Alg {
    /// Every algorithm, in the order of spec §1's table.
    pub const ALL: [Alg; 7] =
        [Alg::Mmh32, Alg::Mmh32x2, Alg::Mmh32x3, Alg::Mmh32x4, Alg::Nmh32, Alg::Mmh64, Alg::Mmh64x2];

    /// The spec's name: `"mmh32"`, `"mmh32x2"`, …, `"mmh64x2"` (what the CLI takes).
    pub const fn name(self) -> &'static str {
        match self {
            Alg::Mmh32 => "mmh32",
            Alg::Mmh32x2 => "mmh32x2",
            Alg::Mmh32x3 => "mmh32x3",
            Alg::Mmh32x4 => "mmh32x4",
            Alg::Nmh32 => "nmh32",
            Alg::Mmh64 => "mmh64",
            Alg::Mmh64x2 => "mmh64x2",
        }
    }

    /// The upper-case label for manifests and reports: `"MMH32"`, `"MMH32X2"`, `"NMH32"`, ….
    pub const fn label(self) -> &'static str {
        match self {
            Alg::Mmh32 => "MMH32",
            Alg::Mmh32x2 => "MMH32X2",
            Alg::Mmh32x3 => "MMH32X3",
            Alg::Mmh32x4 => "MMH32X4",
            Alg::Nmh32 => "NMH32",
            Alg::Mmh64 => "MMH64",
            Alg::Mmh64x2 => "MMH64X2",
        }
    }

    /// The block function.
    pub const fn family(self) -> Family {
        match self {
            Alg::Mmh32 | Alg::Mmh32x2 | Alg::Mmh32x3 | Alg::Mmh32x4 => Family::Mmh32,
            Alg::Nmh32 => Family::Nmh32,
            Alg::Mmh64 | Alg::Mmh64x2 => Family::Mmh64,
        }
    }

    /// n, the number of Toeplitz-shifted outputs per block (paper §2.4).
    pub const fn toeplitz(self) -> usize {
        match self {
            Alg::Mmh32 | Alg::Nmh32 | Alg::Mmh64 => 1,
            Alg::Mmh32x2 | Alg::Mmh64x2 => 2,
            Alg::Mmh32x3 => 3,
            Alg::Mmh32x4 => 4,
        }
    }

    /// Bytes per word: 4, or 8 for MMH64.
    pub const fn word_bytes(self) -> usize {
        match self.family() {
            Family::Mmh32 | Family::Nmh32 => 4,
            Family::Mmh64 => 8,
        }
    }

    /// Block size B = k words: 128 bytes, or 256 for MMH64.
    pub const fn block_bytes(self) -> usize {
        K * self.word_bytes()
    }

    /// log2 of [`Alg::block_bytes`], so that lengths divide by shifting.
    const fn block_shift(self) -> u32 {
        self.block_bytes().trailing_zeros()
    }

    /// Output bytes per block, w = n words (spec §1); also the tree output's length.
    pub const fn output_bytes(self) -> usize {
        self.toeplitz() * self.word_bytes()
    }

    /// Tag length in bytes (spec §4): the same as [`Alg::output_bytes`].
    pub const fn tag_bytes(self) -> usize {
        self.output_bytes()
    }

    /// Key words one tree level uses: k + n − 1 (spec §2), 32 for NMH32.
    pub const fn level_key_words(self) -> usize {
        K + self.toeplitz() - 1
    }

    /// Bytes of key-word stream KS between the starts of consecutive levels'
    /// keys: 64 words (spec §2), i.e. 256 bytes, or 512 for MMH64.
    pub(crate) const fn level_stride_bytes(self) -> usize {
        64 * self.word_bytes()
    }

    /// Size of the expanded hash key a [`MacKey`](super::MacKey) caches:
    /// 16 levels × (k + n − 1) words.
    ///
    /// | alg | bytes |
    /// |---|---|
    /// | `mmh32`, `nmh32` | 2048 |
    /// | `mmh32x2` | 2112 |
    /// | `mmh32x3` | 2176 |
    /// | `mmh32x4` | 2240 |
    /// | `mmh64` | 4096 |
    /// | `mmh64x2` | 4224 |
    ///
    /// (Poly1305-AES needs 16 bytes of r; this is the key-size cost the tree
    /// pays, paper §3.4 "Mixing hash functions".)
    pub const fn expanded_key_bytes(self) -> usize {
        MAX_LEVELS * self.level_key_words() * self.word_bytes()
    }

    /// How many tree levels spec §3 runs for a `len`-byte message (1 for
    /// anything shorter than a block; more than 16 means "rejected").
    ///
    /// Level j's input S_j has `(⌊|S_{j−1}| / B⌋ + 1) · w` bytes, and the tree
    /// stops at the first level whose input is shorter than a block.
    pub const fn levels_for_len(self, len: u128) -> usize {
        let (shift, w) = (self.block_shift(), self.output_bytes() as u128);
        let mut s = len;
        let mut levels = 1;
        while s >> shift != 0 {
            s = ((s >> shift) + 1) * w;
            levels += 1;
        }
        levels
    }

    /// The longest message that fits in 16 levels (spec §2): 3,860,228,252,031,871
    /// bytes for `mmh32x4`, 313,775,933,463,009,919 for `mmh32x3`; the others
    /// exceed 2^64.
    pub const fn max_message_len(self) -> u128 {
        match self {
            Alg::Mmh32 | Alg::Nmh32 => const { max_len(Alg::Mmh32) },
            Alg::Mmh32x2 => const { max_len(Alg::Mmh32x2) },
            Alg::Mmh32x3 => const { max_len(Alg::Mmh32x3) },
            Alg::Mmh32x4 => const { max_len(Alg::Mmh32x4) },
            Alg::Mmh64 => const { max_len(Alg::Mmh64) },
            Alg::Mmh64x2 => const { max_len(Alg::Mmh64x2) },
        }
    }
}

/// Largest length whose tree has at most [`MAX_LEVELS`] levels, by running
/// `levels_for_len` backwards: if level j+1's input may be at most `m`
/// bytes, level j's may be at most `B·⌊m/w⌋ − 1`; the top level's at most B − 1.
const fn max_len(alg: Alg) -> u128 {
    let (b, w) = (alg.block_bytes() as u128, alg.output_bytes() as u128);
    let mut m = b - 1;
    let mut level = MAX_LEVELS - 1;
    while level > 0 {
        m = b * (m / w) - 1;
        level -= 1;
    }
    m
}

impl fmt::Display for Alg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Alg {
    type Err = Error;

    /// Accepts [`Alg::name`] or [`Alg::label`], in any letter case.
    fn from_str(s: &str) -> Result<Self, Error> {
        Alg::ALL.into_iter().find(|a| s.eq_ignore_ascii_case(a.name())).ok_or(Error::UnknownAlgorithm)
    }
}
