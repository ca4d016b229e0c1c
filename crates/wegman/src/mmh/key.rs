//! MAC keys (spec §2): `kp || ks`, two independent AES-128 keys. `kp` makes
//! the pads; `ks` expands, by AES in counter mode, into the key-word stream
//! KS from which every tree level takes its key.

use core::fmt;

use zeroize::Zeroize;

use super::alg::{Alg, KEY_BYTES, MAX_LEVEL_KEY_BYTES, MAX_LEVELS, NONCE_BYTES};
use super::backend::{Dispatch, Keys};
use crate::aes::Key as AesKey;
use crate::backend::Platform;
use crate::cpu::Features;
use crate::error::Error;

/// Split `kp || ks` into the pad cipher (kp) and the key-stream cipher (ks),
/// expanded for the best code `features` allow. Both halves are borrowed
/// in place, so no copy of either is left to wipe.
pub(crate) fn ciphers(key: &[u8; KEY_BYTES], features: Features) -> (AesKey, AesKey) {
    let ([kp, ks], []) = key.as_chunks::<16>() else { unreachable!("32 bytes are two 16-byte halves") };
    (AesKey::new128(kp, features), AesKey::new128(ks, features))
}

/// `AES_kp(nonce)`, the pad of spec §4.
pub(crate) fn pad(kp: &AesKey, nonce: &[u8; NONCE_BYTES]) -> [u8; 16] {
    let mut block = *nonce;
    kp.encrypt(&mut block);
    block
}

/// Append level `keys.levels()`'s key to `keys` (spec §2):
/// `x_j[t] = KS word (64·j + t)` for `t < k + n − 1`, where
/// `KS = AES_ks(0) || AES_ks(1) || …` with i encoded as 16 little-endian bytes.
pub(crate) fn push_next_level(keys: &mut Keys, ks: &AesKey, alg: Alg) {
    let level = keys.levels();
    debug_assert!(level < MAX_LEVELS);
    let start = level * alg.level_stride_bytes(); // a multiple of 16
    let len = alg.level_key_words() * alg.word_bytes();
    let first = (start / 16) as u128;
    let mut blocks = [[0u8; 16]; MAX_LEVEL_KEY_BYTES.div_ceil(16)];
    let blocks = &mut blocks[..len.div_ceil(16)];
    for (i, b) in blocks.iter_mut().enumerate() {
        *b = (first + i as u128).to_le_bytes();
    }
    ks.encrypt_blocks(blocks);
    let stream = blocks.as_flattened_mut();
    keys.push_level(&stream[..len]);
    stream.zeroize();
}

/// A MAC key with all 16 levels' hash keys expanded once, for callers that
/// authenticate many messages under one key.
///
/// Expansion costs 16 × ⌈(k + n − 1)·word / 16⌉ AES blocks (144 to 272) and
/// keeps [`Alg::expanded_key_bytes`] bytes (2–4 KiB) for the key's lifetime:
/// the key-size trade-off of paper §3.4, and the opposite of Poly1305-AES's
/// 16-byte r. The one-shot [`mac`](super::mac) and the RustCrypto types
/// instead expand only the levels a message's length needs, when it needs them.
///
/// Any 32 bytes are a valid key; `kp` and `ks` must be independent random
/// strings (spec §2). Zeroized on drop; `Debug` shows the algorithm only.
///
/// ```
/// use wegman::mmh::{Alg, MacKey};
/// let key = MacKey::new(Alg::Mmh32x4, &[7u8; 32]);
/// let nonce = [0u8; 16];
/// let tag = key.mac(&nonce, b"attack at dawn").unwrap();
/// assert_eq!(tag.len(), 16);
/// assert!(key.verify(tag.as_bytes(), &nonce, b"attack at dawn").is_ok());
/// assert!(key.verify(tag.as_bytes(), &nonce, b"attack at dusk").is_err());
/// assert_eq!(key.expanded_key_bytes(), 2240);
/// ```
#[derive(Clone)]
pub struct MacKey {
    alg: Alg,
    kp: AesKey,
    keys: Keys,
}

impl MacKey {
    /// Expand `kp || ks` for `alg` on the best backend this CPU supports.
    pub fn new(alg: Alg, key: &[u8; KEY_BYTES]) -> Self {
        Self::with_features(alg, key, Features::detect())
    }

    /// Import from a slice of exactly 32 bytes.
    pub fn from_slice(alg: Alg, key: &[u8]) -> Result<Self, Error> {
        let key: &[u8; KEY_BYTES] =
            key.try_into().map_err(|_| Error::InvalidLength { what: "key", expected: KEY_BYTES, got: key.len() })?;
        Ok(Self::new(alg, key))
    }

    /// Expand using at most `features` (tests and benchmarks compare
    /// backends this way; [`Features::portable`] forces the portable one).
    pub fn with_features(alg: Alg, key: &[u8; KEY_BYTES], features: Features) -> Self {
        let (kp, ks) = ciphers(key, features);
        let mut keys = Keys::select(alg, features);
        for _ in 0..MAX_LEVELS {
            push_next_level(&mut keys, &ks, alg);
        }
        MacKey { alg, kp, keys }
    }

    /// The algorithm this key was expanded for.
    pub fn alg(&self) -> Alg {
        self.alg
    }

    /// Which backend hashes under this key.
    pub fn platform(&self) -> Platform {
        self.keys.platform()
    }

    /// Bytes of hash key this object caches: [`Alg::expanded_key_bytes`].
    pub fn expanded_key_bytes(&self) -> usize {
        self.alg.expanded_key_bytes()
    }

    pub(crate) fn keys(&self) -> &Keys {
        &self.keys
    }

    pub(crate) fn pad(&self, nonce: &[u8; NONCE_BYTES]) -> [u8; 16] {
        pad(&self.kp, nonce)
    }
}

impl zeroize::ZeroizeOnDrop for MacKey {}

impl fmt::Debug for MacKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("mmh::MacKey").field("alg", &self.alg).finish_non_exhaustive()
    }
}
