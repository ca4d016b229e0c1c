//! CWC-HASH backends behind one per-key dispatch.
//!
//! [`HashKey`] holds whichever backend [`Platform::detect`] chose when the
//! key was made; only the portable one exists today.

pub(crate) mod soft;

use crate::platform::Platform;

#[derive(Clone)]
pub(crate) enum HashKey {
    Portable(soft::Powers),
}

impl HashKey {
    /// From Kh (< 2^127).
    pub(crate) fn new(kh: u128, platform: Platform) -> Self {
        match platform {
            Platform::Portable => HashKey::Portable(soft::Powers::new(kh)),
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
