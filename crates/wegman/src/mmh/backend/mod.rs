//! MMH/NMH backends behind one per-key dispatch.
//!
//! A backend owns its form of the level keys (a SIMD backend may widen or
//! interleave them) and offers three operations: take the next level's key
//! words, hash whole blocks under one level's key, and wipe. [`Keys`] holds
//! the best backend the key's [`Features`] allow, chosen when the key was made
//! (only the portable one exists today); the
//! `match` runs once per run of blocks, never per block.

mod soft;

use super::alg::Alg;
use crate::cpu::Features;
use crate::platform::Platform;

pub(crate) use soft::{mmh32, mmh32_toeplitz, mmh64, mmh64_toeplitz, nmh32};

#[derive(Clone)]
pub(crate) enum Keys {
    Portable(soft::Keys),
}

impl Keys {
    /// No levels yet; add them with [`Keys::push_level`].
    pub(crate) fn new(alg: Alg, features: Features) -> Self {
        let _ = features; // no SIMD backend yet
        Keys::Portable(soft::Keys::new(alg))
    }

    pub(crate) fn platform(&self) -> Platform {
        match self {
            Keys::Portable(_) => Platform::Portable,
        }
    }

    /// Levels whose keys are present.
    #[inline]
    pub(crate) fn levels(&self) -> usize {
        match self {
            Keys::Portable(k) => k.levels(),
        }
    }

    /// Append the next level's key: its `alg.level_key_words()` words as
    /// little-endian bytes of the key-word stream (spec §2).
    pub(crate) fn push_level(&mut self, bytes: &[u8]) {
        match self {
            Keys::Portable(k) => k.push_level(bytes),
        }
    }

    /// Hash whole blocks under level `level`'s key, w bytes out per block.
    #[inline]
    pub(crate) fn compress(&self, level: usize, blocks: &[u8], out: &mut [u8]) {
        match self {
            Keys::Portable(k) => k.compress(level, blocks, out),
        }
    }

    pub(crate) fn wipe(&mut self) {
        match self {
            Keys::Portable(k) => k.wipe(),
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.wipe();
    }
}
