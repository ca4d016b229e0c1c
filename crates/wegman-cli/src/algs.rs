//! The MAC algorithms the command line knows, behind one enum each for the
//! algorithm, the key and a running computation.

use std::fmt;

use clap::ValueEnum;
use wegman::mmh::{self, MacKey, Mmh};
use wegman::poly1305aes::{Key, Poly1305Aes};

/// A MAC algorithm as named on the command line (`wegman mac ALG`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MacAlg {
    /// Poly1305-AES (Bernstein 2005): key = k (16 bytes) || r (16 bytes); 16-byte tag.
    Poly1305aes,
    /// MMH32: key = kp || ks; 4-byte tag (short-lived links only).
    Mmh32,
    /// MMH32, 2-fold Toeplitz; 8-byte tag.
    Mmh32x2,
    /// MMH32, 3-fold Toeplitz; 12-byte tag.
    Mmh32x3,
    /// MMH32, 4-fold Toeplitz; 16-byte tag.
    Mmh32x4,
    /// NMH32; 4-byte tag (short-lived links only).
    Nmh32,
    /// MMH64; 8-byte tag.
    Mmh64,
    /// MMH64, 2-fold Toeplitz; 16-byte tag.
    Mmh64x2,
}

impl MacAlg {
    pub const ALL: [MacAlg; 8] = [
        MacAlg::Poly1305aes,
        MacAlg::Mmh32,
        MacAlg::Mmh32x2,
        MacAlg::Mmh32x3,
        MacAlg::Mmh32x4,
        MacAlg::Nmh32,
        MacAlg::Mmh64,
        MacAlg::Mmh64x2,
    ];

    fn mmh(self) -> Option<mmh::Alg> {
        Some(match self {
            MacAlg::Poly1305aes => return None,
            MacAlg::Mmh32 => mmh::Alg::Mmh32,
            MacAlg::Mmh32x2 => mmh::Alg::Mmh32x2,
            MacAlg::Mmh32x3 => mmh::Alg::Mmh32x3,
            MacAlg::Mmh32x4 => mmh::Alg::Mmh32x4,
            MacAlg::Nmh32 => mmh::Alg::Nmh32,
            MacAlg::Mmh64 => mmh::Alg::Mmh64,
            MacAlg::Mmh64x2 => mmh::Alg::Mmh64x2,
        })
    }

    /// The name used on the command line and in key files.
    pub fn name(self) -> &'static str {
        self.mmh().map_or("poly1305aes", mmh::Alg::name)
    }

    /// The label at the start of manifest lines.
    pub fn label(self) -> &'static str {
        self.mmh().map_or("POLY1305-AES", mmh::Alg::label)
    }

    pub fn tag_bytes(self) -> usize {
        self.mmh().map_or(16, mmh::Alg::tag_bytes)
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.label() == label)
    }
}

impl fmt::Display for MacAlg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key for one of the algorithms.
pub enum AnyKey {
    Poly1305Aes(Key),
    Mmh(Box<MacKey>),
}

impl AnyKey {
    /// From the 32 raw key bytes. `clamp` applies to Poly1305-AES only.
    pub fn from_bytes(alg: MacAlg, bytes: &[u8], clamp: bool) -> Result<Self, String> {
        match alg.mmh() {
            None => crate::keyfile::key_from_bytes(bytes, clamp).map(AnyKey::Poly1305Aes),
            Some(a) => MacKey::from_slice(a, bytes).map(|k| AnyKey::Mmh(Box::new(k))).map_err(|e| e.to_string()),
        }
    }

    pub fn alg(&self) -> MacAlg {
        match self {
            AnyKey::Poly1305Aes(_) => MacAlg::Poly1305aes,
            AnyKey::Mmh(k) => MacAlg::ALL.into_iter().find(|a| a.mmh() == Some(k.alg())).expect("every mmh alg"),
        }
    }

    pub fn start(&self, nonce: &[u8; 16]) -> AnyMac<'_> {
        match self {
            AnyKey::Poly1305Aes(k) => AnyMac::Poly1305Aes(Poly1305Aes::new(k, nonce)),
            AnyKey::Mmh(k) => AnyMac::Mmh(k.start(nonce)),
        }
    }
}

/// A MAC computation in progress (one per file, so the size difference
/// between the variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum AnyMac<'k> {
    Poly1305Aes(Poly1305Aes),
    Mmh(Mmh<'k>),
}

impl AnyMac<'_> {
    pub fn update(&mut self, data: &[u8]) -> Result<(), wegman::Error> {
        match self {
            AnyMac::Poly1305Aes(m) => {
                m.update(data);
                Ok(())
            }
            AnyMac::Mmh(m) => m.update(data),
        }
    }

    pub fn finalize(self) -> Result<Vec<u8>, wegman::Error> {
        match self {
            AnyMac::Poly1305Aes(m) => Ok(m.finalize().to_vec()),
            AnyMac::Mmh(m) => m.finalize().map(|t| t.as_bytes().to_vec()),
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
        }
    }
}
