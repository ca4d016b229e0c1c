//! Every algorithm name wegman's files use, in one place: the MAC
//! algorithms (behind one enum each for the algorithm, the key and a
//! running computation) and the CWC-AES key names.

use std::fmt;

use wegman::cpu::Features;
use wegman::mmh::{self, MacKey, Mmh};
use wegman::poly1305aes::{KEY_BYTES, Key, Poly1305Aes};
use zeroize::Zeroizing;

/// A MAC algorithm as named on the command line (`wegman mac ALG`):
/// Poly1305-AES or one of the library's MMH algorithms (the list is the
/// library's [`mmh::Alg::ALL`], so a new algorithm is added in one place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacAlg {
    /// Poly1305-AES (Bernstein 2005): key = k (16 bytes) || r (16 bytes); 16-byte tag.
    Poly1305aes,
    /// An MMH/NMH algorithm: key = kp || ks.
    Mmh(mmh::Alg),
}

impl MacAlg {
    /// Poly1305-AES, then every MMH algorithm in the library's order.
    pub const ALL: [MacAlg; 1 + mmh::Alg::ALL.len()] = {
        let mut all = [MacAlg::Poly1305aes; 1 + mmh::Alg::ALL.len()];
        let mut i = 0;
        while i < mmh::Alg::ALL.len() {
            all[i + 1] = MacAlg::Mmh(mmh::Alg::ALL[i]);
            i += 1;
        }
        all
    };

    fn mmh(self) -> Option<mmh::Alg> {
        match self {
            MacAlg::Poly1305aes => None,
            MacAlg::Mmh(a) => Some(a),
        }
    }

    /// The name used on the command line and in key files.
    pub fn name(self) -> &'static str {
        self.mmh().map_or("poly1305aes", mmh::Alg::name)
    }

    /// The label at the start of manifest lines.
    pub fn label(self) -> &'static str {
        self.mmh().map_or("POLY1305-AES", mmh::Alg::label)
    }

    /// The length of a tag.
    pub fn tag_bytes(self) -> usize {
        self.mmh().map_or(16, mmh::Alg::tag_bytes)
    }

    /// The algorithm of a command-line or key-file name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The algorithm of a manifest label.
    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.label() == label)
    }
}

/// The key-file names of the CWC-AES keys that `keygen` makes, each with a
/// nonce store, and their key lengths: `cwc-aes-128`, `cwc-aes-192`,
/// `cwc-aes-256`.
pub const CWC_ALGS: [(&str, usize); 3] = [("cwc-aes-128", 16), ("cwc-aes-192", 24), ("cwc-aes-256", 32)];

impl fmt::Display for MacAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key for one of the algorithms.
pub enum AnyKey {
    /// The key and the features its Poly1305 runs on (detected, unless
    /// `--backend` chose).
    Poly1305Aes(Key, Features),
    /// An MMH/NMH key.
    Mmh(Box<MacKey>),
}

impl AnyKey {
    /// From the 32 raw key bytes. `clamp` applies to Poly1305-AES only.
    pub fn from_bytes(alg: MacAlg, bytes: &[u8], clamp: bool) -> Result<Self, String> {
        match alg.mmh() {
            None => key_from_bytes(bytes, clamp).map(|k| AnyKey::Poly1305Aes(k, Features::detect())),
            Some(a) => MacKey::from_slice(a, bytes).map(|k| AnyKey::Mmh(Box::new(k))).map_err(|e| e.to_string()),
        }
    }

    /// The algorithm it is a key for.
    pub fn alg(&self) -> MacAlg {
        match self {
            AnyKey::Poly1305Aes(..) => MacAlg::Poly1305aes,
            AnyKey::Mmh(k) => MacAlg::Mmh(k.alg()),
        }
    }

    /// A computation of the tag under `nonce`.
    pub fn start(&self, nonce: &[u8; 16]) -> AnyMac<'_> {
        match self {
            AnyKey::Poly1305Aes(k, f) => AnyMac::Poly1305Aes(Poly1305Aes::with_features(k, nonce, *f)),
            AnyKey::Mmh(k) => AnyMac::Mmh(k.start(nonce)),
        }
    }
}

/// A MAC computation in progress (one per file, so the size difference
/// between the variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum AnyMac<'k> {
    /// Poly1305-AES.
    Poly1305Aes(Poly1305Aes),
    /// An MMH/NMH algorithm.
    Mmh(Mmh<'k>),
    /// A tag already computed from the whole input (read on several
    /// threads: `input::mac_threads`); it takes no more input.
    Tagged(Vec<u8>),
}

impl AnyMac<'_> {
    /// More of the message.
    pub fn update(&mut self, data: &[u8]) -> Result<(), wegman::Error> {
        match self {
            AnyMac::Poly1305Aes(m) => {
                m.update(data);
                Ok(())
            }
            AnyMac::Mmh(m) => m.update(data),
            AnyMac::Tagged(_) => {
                Err(wegman::Error::InvalidLength { what: "input after the tag", expected: 0, got: data.len() })
            }
        }
    }

    /// The tag.
    pub fn finalize(self) -> Result<Vec<u8>, wegman::Error> {
        match self {
            AnyMac::Poly1305Aes(m) => Ok(m.finalize().to_vec()),
            AnyMac::Mmh(m) => m.finalize().map(|t| t.as_bytes().to_vec()),
            AnyMac::Tagged(t) => Ok(t),
        }
    }

    /// Constant-time check; Ok(false) for a wrong tag (of the right length).
    pub fn verify(self, tag: &[u8]) -> Result<bool, wegman::Error> {
        match self {
            AnyMac::Poly1305Aes(m) => match <&[u8; 16]>::try_from(tag) {
                Ok(t) => Ok(m.verify(t).is_ok()),
                Err(_) => Ok(false),
            },
            AnyMac::Mmh(m) => match m.verify(tag) {
                Ok(()) => Ok(true),
                Err(wegman::Error::TagMismatch) | Err(wegman::Error::InvalidLength { .. }) => Ok(false),
                Err(e) => Err(e),
            },
            AnyMac::Tagged(mine) => Ok(wegman::ct::eq(&mine[..], tag)),
        }
    }
}

/// A Poly1305-AES key from 32 bytes `k || r`.
pub fn key_from_bytes(bytes: &[u8], allow_clamp: bool) -> Result<Key, String> {
    let kr: Zeroizing<[u8; KEY_BYTES]> =
        Zeroizing::new(bytes.try_into().map_err(|_| format!("key: expected {KEY_BYTES} bytes, got {}", bytes.len()))?);
    if allow_clamp {
        Ok(Key::from_bytes_clamped(&kr))
    } else {
        Key::from_bytes(&kr).map_err(|e| format!("{e} (or pass --clamp)"))
    }
}
