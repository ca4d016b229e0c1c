//! Poly1305 backends behind one per-key dispatch.
//!
//! Each backend is a leaf file with the same three operations: build from a
//! valid r, absorb 16-byte blocks with a given high bit, finalize with s.
//! [`State`] holds whichever backend [`Platform::detect`] chose for this key.

mod soft;

use crate::platform::Platform;

#[derive(Clone)]
pub(crate) enum State {
    Portable(soft::State),
}

impl State {
    /// Backend state for a valid r (§2 restrictions already checked) on the
    /// given platform, normally [`Platform::detect`]'s answer.
    pub(crate) fn with_platform(r: &[u8; 16], platform: Platform) -> Self {
        match platform {
            Platform::Portable => State::Portable(soft::State::new(r)),
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
