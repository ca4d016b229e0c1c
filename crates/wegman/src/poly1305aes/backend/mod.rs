//! Poly1305 backends behind one per-key dispatch.
//!
//! Each backend is a leaf file with the same operations: build from a valid
//! r, absorb 16-byte blocks with a given high bit, finalize with s, wipe.
//! [`State`] holds the best backend the key's [`Features`] allow, chosen
//! once when the key's state is made; the `match` runs once per run of
//! blocks, never per block.
//!
//! - `soft.rs`: portable, radix 2^64, no `unsafe`.
//! - `float64.rs`: the paper's §4 floating-point method in binary64,
//!   portable; only when [`Features::float64`] asks for it.
//! - `x86_avx2.rs`: AVX2, two sets of four lanes of radix-2^26 limbs;
//!   `x86_avx2_words.rs` for its long runs: four lanes, each 32-bit word of
//!   a block under its own precomputed power of r.
//! - `x86_avx512ifma.rs`: AVX-512 IFMA, two sets of eight lanes of
//!   radix-2^44 limbs; preferred when the CPU has it.
//!   `x86_avx512ifma_words.rs` for its long runs: eight lanes, each block
//!   under its own precomputed power of r, products summed by limb place.
//! - `way.rs`: the names of the ways a vector tier's run can take (its
//!   lanes, a kept table, a table built for the run).
//!
//! The AES_k(n) of a key not expanded in advance (one, or eight at once in
//! batches) is `crate::aes::PadLeaf`'s.
//!
//! The `x86_*` leaves use `unsafe` only to enter their `#[target_feature]`
//! code with a token from [`crate::cpu`] and for their vector loads (and
//! the shared one-instruction AVX2 multiply, `avx2_mul.rs`).

mod float64;
mod soft;
#[cfg(target_arch = "x86_64")]
mod way;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx2_limbs;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2_words;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86_avx512ifma;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx512ifma_words;

pub(crate) use crate::backend::Dispatch;
use crate::backend::{Lanes, Platform};
use crate::cpu::Features;

/// What a backend precomputes per key (an `ExpandedKey` keeps it and lends
/// it to each message; the per-message [`State`] stays small).
#[derive(Clone)]
// One per ExpandedKey, beside its AES schedule: inline keeps the powers of
// r off the heap (no freed copy to wipe), at a few hundred bytes per key.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Precomputed {
    /// Nothing (the portable backend, or a computation from a bare key).
    None,
    /// r^1 … r^8 for the AVX2 backend.
    #[cfg(target_arch = "x86_64")]
    Avx2(x86_avx2::Powers),
    /// r^1 … r^16 for the IFMA backend.
    #[cfg(target_arch = "x86_64")]
    Ifma(x86_avx512ifma::Powers),
}

#[derive(Clone)]
pub(crate) enum State {
    Portable(soft::State),
    Float64(float64::State),
    #[cfg(target_arch = "x86_64")]
    Avx2(x86_avx2::State),
    #[cfg(target_arch = "x86_64")]
    Ifma(x86_avx512ifma::State),
}

impl Precomputed {
    /// Start loading a key's precomputed powers into the cache if a run of
    /// `len` bytes will use them (a cold key among many: the lanes read
    /// most of them only at the end).
    #[inline]
    pub(crate) fn prefetch_for(&self, len: usize) {
        #[cfg(target_arch = "x86_64")]
        match self {
            Precomputed::Ifma(p) if len >= x86_avx512ifma::PRECOMPUTED_MIN_BYTES => p.prefetch(),
            Precomputed::Avx2(p) if len >= x86_avx2::PRECOMPUTED_MIN_BYTES => crate::prefetch::lines(p),
            _ => {}
        }
        let _ = len;
    }
}

impl Dispatch for State {
    /// A valid r (§2 restrictions already checked).
    type Seed<'a> = &'a [u8; 16];

    /// Backend state for r: the best backend `features` allow. A SIMD
    /// backend computes its powers of r only when an input long enough to
    /// repay them arrives.
    fn select(r: &[u8; 16], features: Features) -> Self {
        match crate::backend::poly1305(features) {
            None => State::Float64(float64::State::new(r)),
            #[cfg(target_arch = "x86_64")]
            Some(Lanes::Ifma(token)) => State::Ifma(x86_avx512ifma::State::new(r, token)),
            #[cfg(target_arch = "x86_64")]
            Some(Lanes::Avx2(token)) => State::Avx2(x86_avx2::State::new(r, token)),
            Some(Lanes::Portable) => State::Portable(soft::State::new(r)),
        }
    }

    fn platform(&self) -> Platform {
        match self {
            State::Portable(_) => Platform::Portable,
            State::Float64(_) => Platform::Float64,
            #[cfg(target_arch = "x86_64")]
            State::Avx2(_) => Platform::Avx2,
            #[cfg(target_arch = "x86_64")]
            State::Ifma(_) => Platform::Avx512Ifma,
        }
    }

    fn wipe(&mut self) {
        match self {
            State::Portable(s) => s.wipe(),
            State::Float64(s) => s.wipe(),
            #[cfg(target_arch = "x86_64")]
            State::Avx2(s) => s.wipe(),
            #[cfg(target_arch = "x86_64")]
            State::Ifma(s) => s.wipe(),
        }
    }
}

impl State {
    /// What the backend can precompute per key (powers of r), for a key
    /// that will authenticate many messages.
    pub(crate) fn precompute(&self) -> Precomputed {
        match self {
            State::Portable(_) | State::Float64(_) => Precomputed::None,
            #[cfg(target_arch = "x86_64")]
            State::Avx2(s) => Precomputed::Avx2(s.powers()),
            #[cfg(target_arch = "x86_64")]
            State::Ifma(s) => Precomputed::Ifma(s.powers()),
        }
    }

    /// Absorb whole 16-byte blocks; `hibit` is 1 for message chunks and 0 for
    /// an already padded final partial chunk. `pre` is this key's
    /// precomputation, or [`Precomputed::None`].
    #[inline]
    pub(crate) fn absorb(&mut self, blocks: &[u8], hibit: u64, pre: &Precomputed) {
        match self {
            State::Portable(s) => s.blocks(blocks, hibit),
            State::Float64(s) => s.blocks(blocks, hibit),
            #[cfg(target_arch = "x86_64")]
            State::Avx2(s) => s.blocks(
                blocks,
                hibit,
                match pre {
                    Precomputed::Avx2(p) => Some(p),
                    _ => None,
                },
            ),
            #[cfg(target_arch = "x86_64")]
            State::Ifma(s) => s.blocks(
                blocks,
                hibit,
                match pre {
                    Precomputed::Ifma(p) => Some(p),
                    _ => None,
                },
            ),
        }
    }

    #[inline]
    pub(crate) fn finalize(&self, s: &[u8; 16]) -> [u8; 16] {
        match self {
            State::Portable(st) => st.finalize(s),
            State::Float64(st) => st.finalize(s),
            #[cfg(target_arch = "x86_64")]
            State::Avx2(st) => st.finalize(s),
            #[cfg(target_arch = "x86_64")]
            State::Ifma(st) => st.finalize(s),
        }
    }

    /// The accumulator h (not reduced mod p) as 64-bit limbs `[h0, h1, h2]`
    /// with h2 <= 4: what a chunk computed on its own contributes to the
    /// whole message's polynomial (`parallel.rs`, `incremental.rs`).
    pub(crate) fn h(&self) -> [u64; 3] {
        match self {
            State::Portable(st) => st.h(),
            State::Float64(st) => st.h(),
            #[cfg(target_arch = "x86_64")]
            State::Avx2(st) => st.h(),
            #[cfg(target_arch = "x86_64")]
            State::Ifma(st) => st.h(),
        }
    }
}

/// The final reduction and pad (`finalize`, `reduce`: the same on every CPU,
/// as every leaf hands h back in 64-bit limbs) and the tag of a message of
/// at most 16 bytes (`short_tag`: one multiply, no lanes to fill, so the
/// portable code on every CPU).
pub(crate) use soft::{finalize, reduce, short_tag};

/// The tags of eight messages of one length under eight keys (r, pad),
/// their polynomials in the eight lanes of the best backend `features`
/// allow that has them (IFMA), final reduction and pad included; `None`
/// where none does or the length would not repay it (then each message
/// runs on its own). Batches come here rather than to a leaf.
pub(crate) fn tags8(
    features: Features,
    r: [&[u8; 16]; 8],
    pads: &[[u8; 16]; 8],
    msgs: &[&[u8]; 8],
) -> Option<[[u8; 16]; 8]> {
    #[cfg(target_arch = "x86_64")]
    if let Lanes::Ifma(token) = crate::backend::lanes(features) {
        let len = msgs[0].len();
        // One block per lane does not repay the transposes (measured: even
        // against the per-item path at 16 bytes); two or more do.
        if len > 16 && len <= x86_avx512ifma::BATCH_MAX_BYTES && msgs.iter().all(|m| m.len() == len) {
            // the leaf's one copy of the eight r, wiped after it
            let mut rs = r.map(|x| *x);
            let tags = x86_avx512ifma::tags8(token, &rs, pads, msgs);
            zeroize::Zeroize::zeroize(rs.as_flattened_mut());
            return Some(tags);
        }
    }
    let _ = (features, r, pads, msgs);
    None
}

/// What [`tags8`] runs on with `features`, as a label.
pub(crate) fn lanes8_name(features: Features) -> &'static str {
    match crate::backend::lanes(features) {
        #[cfg(target_arch = "x86_64")]
        Lanes::Ifma(_) => "ifma-lanes",
        _ => "per-item",
    }
}
