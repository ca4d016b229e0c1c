//! CWC-HASH backends behind one per-key dispatch.
//!
//! [`HashKey`] holds the best backend the key's [`Features`] allow, chosen
//! when the key is made; only the portable one exists today, so every
//! feature level gets it.

pub(crate) mod soft;

use crate::cpu::Features;
use crate::platform::Platform;

#[derive(Clone)]
pub(crate) enum HashKey {
    Portable(soft::Powers),
}

impl HashKey {
    /// From Kh (< 2^127).
    pub(crate) fn new(kh: u128, features: Features) -> Self {
        let _ = features; // no SIMD backend yet
        HashKey::Portable(soft::Powers::new(kh))
    }

    /// Which backend this key's hash runs on.
    pub(crate) fn platform(&self) -> Platform {
        match self {
            HashKey::Portable(_) => Platform::Portable,
        }
    }

    /// R = (R + y) Kh.
    #[inline]
    pub(crate) fn absorb1(&self, r: u128, y: u128) -> u128 {
        match self {
            HashKey::Portable(p) => p.absorb1(r, y),
        }
    }

    /// Four coefficients at once.
    #[inline]
    pub(crate) fn absorb4(&self, r: u128, y: [u128; 4]) -> u128 {
        match self {
            HashKey::Portable(p) => p.absorb4(r, y),
        }
    }

    pub(crate) fn wipe(&mut self) {
        match self {
            HashKey::Portable(p) => p.wipe(),
        }
    }
}

pub(crate) use soft::canonical;
