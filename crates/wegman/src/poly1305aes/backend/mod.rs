//! Poly1305 backends behind one per-key dispatch.
//!
//! Each backend is a leaf file with the same operations: build from a valid
//! r, absorb 16-byte blocks with a given high bit, finalize with s, wipe.
//! [`State`] holds the best backend the key's [`Features`] allow, chosen
//! once when the key's state is made; the `match` runs once per run of
//! blocks, never per block.
//!
//! - `soft.rs`: portable, radix 2^64, no `unsafe`.

mod soft;

use crate::cpu::Features;
use crate::platform::Platform;

#[derive(Clone)]
pub(crate) enum State {
    Portable(soft::State),
}

impl State {
    /// Backend state for a valid r (§2 restrictions already checked): the
    /// best backend `features` allow. A SIMD backend computes its powers of
    /// r only when an input long enough to repay them arrives.
    pub(crate) fn new(r: &[u8; 16], features: Features) -> Self {
        let _ = features;
        State::Portable(soft::State::new(r))
    }

    /// Precompute what the backend can precompute per key (powers of r), for
    /// a key that will authenticate many messages.
    pub(crate) fn precompute(&mut self) {
        match self {
            State::Portable(_) => {}
        }
    }

    pub(crate) fn platform(&self) -> Platform {
        match self {
            State::Portable(_) => Platform::Portable,
        }
    }

    /// Absorb whole 16-byte blocks; `hibit` is 1 for message chunks and 0 for
    /// an already padded final partial chunk.
    #[inline]
    pub(crate) fn blocks(&mut self, blocks: &[u8], hibit: u64) {
        match self {
            State::Portable(s) => s.blocks(blocks, hibit),
        }
    }

    #[inline]
    pub(crate) fn finalize(&self, s: &[u8; 16]) -> [u8; 16] {
        match self {
            State::Portable(st) => st.finalize(s),
        }
    }

    pub(crate) fn wipe(&mut self) {
        match self {
            State::Portable(s) => s.wipe(),
        }
    }
}
