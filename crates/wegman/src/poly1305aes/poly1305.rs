//! Poly1305_r(m, s) on its own: "Poly1305-AnotherFunction" (§1, §2 "Nonces").
//!
//! The paper notes that nothing is special about AES: any keyed function that
//! maps nonces to 16-byte strings can supply s. [`Poly1305`] takes r and any
//! 16-byte s; [`Poly1305Aes`](super::Poly1305Aes) is this type with
//! s = AES_k(n).

use core::fmt;

use zeroize::Zeroize;

use super::backend::{Dispatch, Precomputed, State};
use super::key::check_r;
use crate::backend::Platform;
use crate::cpu::Features;
use crate::ct;
use crate::error::Error;

/// Streaming Poly1305 with a caller-supplied one-time pad s.
///
/// ```
/// use wegman::poly1305aes::Poly1305;
/// // RFC 8439 §2.5.2: key = r || s, r clamped by the RFC's convention.
/// let key = hex_literal(b"85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
/// let mut mac = Poly1305::new_rfc8439(&key);
/// mac.update(b"Cryptographic Forum ");
/// mac.update(b"Research Group");
/// assert_eq!(mac.finalize()[..4], [0xa8, 0x06, 0x1d, 0xc1]);
/// # fn hex_literal(h: &[u8]) -> [u8; 32] {
/// #     let mut o = [0u8; 32];
/// #     for i in 0..32 { o[i] = u8::from_str_radix(core::str::from_utf8(&h[2*i..2*i+2]).unwrap(), 16).unwrap(); }
/// #     o
/// # }
/// ```
#[derive(Clone)]
pub struct Poly1305 {
    state: State,
    s: [u8; 16],
    buf: [u8; 16],
    buf_len: usize,
}

impl Poly1305 {
    /// Start Poly1305_r(·, s). Rejects an r that breaks §2.
    pub fn new(r: &[u8; 16], s: &[u8; 16]) -> Result<Self, Error> {
        check_r(r)?;
        Ok(Self::from_state(State::select(r, Features::detect()), s))
    }

    /// RFC 8439 layout: 32 bytes `r || s`, r clamped as the RFC prescribes.
    pub fn new_rfc8439(key: &[u8; 32]) -> Self {
        let mut r = [0u8; 16];
        let mut s = [0u8; 16];
        r.copy_from_slice(&key[..16]);
        s.copy_from_slice(&key[16..]);
        super::key::clamp(&mut r);
        let me = Self::from_state(State::select(&r, Features::detect()), &s);
        r.zeroize();
        s.zeroize();
        me
    }

    /// A computation on a backend state made from a checked r.
    pub(crate) fn from_state(state: State, s: &[u8; 16]) -> Self {
        Poly1305 { state, s: *s, buf: [0; 16], buf_len: 0 }
    }

    /// Use at most `features` (the best backend they allow); `r` is
    /// checked. Tests run every backend this CPU has with
    /// [`Features::every_level`]; [`Features::portable`] forces the portable one.
    pub fn with_features(r: &[u8; 16], s: &[u8; 16], features: Features) -> Result<Self, Error> {
        check_r(r)?;
        Ok(Self::from_state(State::select(r, features), s))
    }

    /// Which backend this state runs on.
    pub fn platform(&self) -> Platform {
        self.state.platform()
    }

    /// Absorb more message bytes; any split of a message gives the same tag.
    pub fn update(&mut self, data: &[u8]) {
        self.update_with(data, &Precomputed::None);
    }

    /// [`Poly1305::update`] with the key's precomputation (an `ExpandedKey`'s).
    pub(crate) fn update_with(&mut self, mut data: &[u8], pre: &Precomputed) {
        if self.buf_len > 0 {
            let take = (16 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 16 {
                return;
            }
            self.state.absorb(&self.buf, 1, pre);
            self.buf_len = 0;
        }
        let full = data.len() & !15;
        if full > 0 {
            self.state.absorb(&data[..full], 1, pre);
        }
        let rest = &data[full..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Absorb whole 16-byte blocks only (each gets its 2^128 bit). Used by the
    /// `universal-hash` integration.
    pub(crate) fn update_blocks(&mut self, blocks: &[u8]) {
        debug_assert!(self.buf_len == 0 && blocks.len().is_multiple_of(16));
        self.state.absorb(blocks, 1, &Precomputed::None);
    }

    /// The 16-byte authenticator. Consumes the state, which is then wiped.
    pub fn finalize(mut self) -> [u8; 16] {
        self.finish()
    }

    /// Compare with `tag` in constant time.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(mut self, tag: &[u8; 16]) -> Result<(), Error> {
        let mut mine = self.finish();
        let ok = ct::eq16(&mine, tag);
        mine.zeroize();
        crate::ct::verdict(ok)
    }

    fn finish(&mut self) -> [u8; 16] {
        absorb_last(&mut self.state, &self.buf[..self.buf_len]);
        self.buf_len = 0;
        self.state.finalize(&self.s)
    }
}

/// §2: append a 1 byte to the final 1..15-byte chunk `rest` (if any),
/// zero-pad it to 16 bytes, and absorb it without a 2^128 bit.
pub(crate) fn absorb_last(state: &mut State, rest: &[u8]) {
    if !rest.is_empty() {
        let mut last = [0u8; 16];
        last[..rest.len()].copy_from_slice(rest);
        last[rest.len()] = 1;
        state.absorb(&last, 0, &Precomputed::None);
        last.zeroize();
    }
}

/// Poly1305_r(message, s) of a whole message in one call, on a fresh
/// `state` (the one-shot path: no buffering object to build, move or wipe).
/// The state is wiped before returning.
pub(crate) fn whole_message(mut state: State, s: &[u8; 16], message: &[u8], pre: &Precomputed) -> [u8; 16] {
    let full = message.len() & !15;
    state.absorb(&message[..full], 1, pre);
    absorb_last(&mut state, &message[full..]);
    let tag = state.finalize(s);
    state.wipe();
    tag
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        self.state.wipe();
        self.s.zeroize();
        self.buf.zeroize();
    }
}

impl fmt::Debug for Poly1305 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poly1305").field("platform", &self.platform()).finish_non_exhaustive()
    }
}
