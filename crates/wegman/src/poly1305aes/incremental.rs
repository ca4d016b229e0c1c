//! A tag recomputed after a small change to a long message (§1,
//! "Incrementality"), without reading the message again.
//!
//! Poly1305's polynomial is linear in the message's chunks. Keep, for the
//! message's q whole 16-byte blocks c_1 … c_q (each with its 2^128 bit),
//!
//! ```text
//! h = c_1 r^q + c_2 r^(q−1) + … + c_q r   mod 2^130 − 5
//! ```
//!
//! and its final 0–15 bytes as they are. Then:
//!
//! - **replace** bytes of blocks i … j (same length): each block changes by
//!   Δ_k = new_k − old_k, the difference of the changed bytes at their
//!   places (the other bytes and the 2^128 bit cancel), so
//!   h' = h + r^(q−j) · Σ_k Δ_k r^(j−k+1): one Horner pass over the changed
//!   blocks and one power of r by square-and-multiply;
//! - **append**: h' = h · r^n + (the appended blocks' own polynomial), on the
//!   key's usual backend;
//! - **tag** under a nonce: (h + c_last) · r for a final partial chunk as §2
//!   pads it, reduced, plus AES_k(n).
//!
//! h is as secret as the key: with the message it gives an equation in r.
//! It lives only in this object, which wipes it on drop and never prints it.
//! A new tag needs a **fresh nonce**, as every Poly1305-AES tag does (§3).

use core::fmt;
use std::num::NonZeroUsize;

use zeroize::Zeroize;

use super::backend::{Dispatch, Precomputed, State, soft};
use super::field::{add44, difference, from_h64, limbs44, mul44, pow44, r44, to_h64};
use super::key::{Key, NONCE_BYTES, TAG_BYTES};
use super::mac::one_shot_pad;
use super::parallel;
use crate::cpu::Features;
use crate::error::Error;

/// The state of a Poly1305-AES computation kept for updates: the message's
/// polynomial in r without the one-time pad, and its last partial chunk.
///
/// ```
/// use wegman::poly1305aes::{authenticate, Incremental, Key};
/// let key = Key::from_bytes_clamped(&[5u8; 32]);
/// let mut message = vec![7u8; 100_000];
/// let mut kept = Incremental::new(&key, &message);
/// // Change 4 bytes at offset 50,000: give the old bytes and the new.
/// kept.replace(50_000, &[7, 7, 7, 7], b"edit").unwrap();
/// message[50_000..50_004].copy_from_slice(b"edit");
/// kept.append(b" and more");
/// message.extend_from_slice(b" and more");
/// let nonce = [1u8; 16]; // a fresh nonce for each tag (§3)
/// assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
/// ```
pub struct Incremental {
    key: Key,
    features: Features,
    /// r in radix-2^44 limbs.
    r: [u64; 3],
    /// The polynomial of the whole blocks, radix-2^44 limbs.
    h: [u64; 3],
    /// How many whole blocks the message has.
    blocks: u64,
    /// The message's last `tail_len` (0–15) bytes.
    tail: [u8; 16],
    tail_len: usize,
}

impl Incremental {
    /// The state of `message` under `key` (reads the message once, on the
    /// best backend this CPU has).
    pub fn new(key: &Key, message: &[u8]) -> Self {
        Self::with_features(key, message, Features::detect())
    }

    /// [`Incremental::new`] on up to `threads` threads (see
    /// [`authenticate_parallel`](super::authenticate_parallel)).
    pub fn new_parallel(key: &Key, message: &[u8], threads: NonZeroUsize) -> Self {
        let mut me = Self::empty(key, Features::detect());
        let full = message.len() & !15;
        let (ends, threads) = parallel::plan(full, threads);
        let mut start = State::select(key.r(), me.features);
        let pre = if threads > 1 { start.precompute() } else { Precomputed::None };
        let mut h = parallel::h_runs(&start, &pre, key.r(), &message[..full], &ends, threads);
        start.wipe();
        me.h = from_h64(&h);
        h.zeroize();
        me.blocks = (full / 16) as u64;
        me.set_tail(&message[full..]);
        me
    }

    /// [`Incremental::new_parallel`] of a `len`-byte message supplied piece
    /// by piece (see [`authenticate_parallel_from`](super::authenticate_parallel_from)):
    /// the first error of `fill` is returned.
    pub fn new_parallel_from<E: Send>(
        key: &Key,
        len: usize,
        threads: NonZeroUsize,
        fill: &crate::parallel::Fill<'_, E>,
    ) -> Result<Self, E> {
        let mut me = Self::empty(key, Features::detect());
        let full = len & !15;
        let (_, threads) = parallel::plan(full, threads);
        let mut start = State::select(key.r(), me.features);
        let pre = start.precompute();
        let h = parallel::h_runs_from(&start, &pre, key.r(), &parallel::run_ends(full), threads, fill);
        start.wipe();
        let mut h = h?;
        me.h = from_h64(&h);
        h.zeroize();
        me.blocks = (full / 16) as u64;
        let mut tail = [0u8; 16];
        fill(full as u64, &mut tail[..len - full])?;
        me.set_tail(&tail[..len - full]);
        tail.zeroize();
        Ok(me)
    }

    /// [`Incremental::new`] on the best backend `features` allow (tests).
    pub fn with_features(key: &Key, message: &[u8], features: Features) -> Self {
        let mut me = Self::empty(key, features);
        me.append(message);
        me
    }

    fn empty(key: &Key, features: Features) -> Self {
        Incremental { key: key.clone(), features, r: r44(key.r()), h: [0; 3], blocks: 0, tail: [0; 16], tail_len: 0 }
    }

    /// The message's length in bytes.
    pub fn len(&self) -> u64 {
        self.blocks * 16 + self.tail_len as u64
    }

    /// Whether the message is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes at `offset` were `old` and are now `new` (the same
    /// length): update the state in time proportional to their length, not
    /// the message's.
    ///
    /// `old` must be what the message held there: the state cannot check
    /// it, and a wrong `old` leaves a state that matches no message (its
    /// tags then fail to verify; nothing leaks).
    pub fn replace(&mut self, offset: u64, old: &[u8], new: &[u8]) -> Result<(), Error> {
        if old.len() != new.len() {
            return Err(Error::InvalidLength { what: "replacement", expected: old.len(), got: new.len() });
        }
        let len = old.len() as u64;
        let message_len = self.len();
        if offset.checked_add(len).is_none_or(|end| end > message_len) {
            return Err(Error::OutOfRange { offset, len, message_len });
        }
        if len == 0 {
            return Ok(());
        }
        let full = self.blocks * 16;
        // The part among the whole blocks: Δ for each block it touches.
        if offset < full {
            let end = (offset + len).min(full);
            let (first, last) = (offset / 16, (end - 1) / 16);
            let mut sum = [0u64; 3];
            for block in first..=last {
                let (mut n, mut o) = ([0u8; 16], [0u8; 16]);
                let from = (block * 16).max(offset);
                let to = (block * 16 + 16).min(end);
                let (at, i) = ((from - block * 16) as usize, (from - offset) as usize);
                let count = (to - from) as usize;
                n[at..at + count].copy_from_slice(&new[i..i + count]);
                o[at..at + count].copy_from_slice(&old[i..i + count]);
                let mut d = difference(&n, &o);
                sum = mul44(&add44(&sum, &d), &self.r);
                n.zeroize();
                o.zeroize();
                d.zeroize();
            }
            // sum = Σ Δ_k r^(last − k + 1); block k's power is r^(q − k).
            let mut shift = pow44(&self.r, self.blocks - 1 - last);
            self.h = add44(&self.h, &mul44(&sum, &shift));
            sum.zeroize();
            shift.zeroize();
        }
        // The part in the final partial chunk, kept as bytes.
        if offset + len > full {
            let from = offset.max(full);
            let i = (from - offset) as usize;
            let at = (from - full) as usize;
            self.tail[at..at + (len as usize - i)].copy_from_slice(&new[i..]);
        }
        Ok(())
    }

    /// Bytes added at the end of the message: update the state reading only
    /// them.
    pub fn append(&mut self, mut data: &[u8]) {
        if self.tail_len > 0 {
            let take = (16 - self.tail_len).min(data.len());
            self.tail[self.tail_len..self.tail_len + take].copy_from_slice(&data[..take]);
            self.tail_len += take;
            data = &data[take..];
            if self.tail_len < 16 {
                return;
            }
            let block = self.tail;
            self.absorb_blocks(&block);
            self.tail.zeroize();
            self.tail_len = 0;
        }
        let full = data.len() & !15;
        self.absorb_blocks(&data[..full]);
        self.set_tail(&data[full..]);
    }

    /// h = h · r^n + (the polynomial of `blocks`, n whole blocks).
    fn absorb_blocks(&mut self, blocks: &[u8]) {
        if blocks.is_empty() {
            return;
        }
        let mut state = State::select(self.key.r(), self.features);
        state.absorb(blocks, 1, &Precomputed::None);
        let mut part = from_h64(&state.h());
        state.wipe();
        let n = (blocks.len() / 16) as u64;
        let mut shift = pow44(&self.r, n);
        self.h = add44(&mul44(&self.h, &shift), &part);
        self.blocks += n;
        part.zeroize();
        shift.zeroize();
    }

    fn set_tail(&mut self, rest: &[u8]) {
        debug_assert!(rest.len() < 16);
        self.tail.zeroize();
        self.tail[..rest.len()].copy_from_slice(rest);
        self.tail_len = rest.len();
    }

    /// The Poly1305-AES tag of the message as it now stands, under `nonce`.
    /// **Use a nonce never used before with this key** (§3): a tag of the
    /// edited message under the nonce of an earlier tag gives r away.
    pub fn tag(&self, nonce: &[u8; NONCE_BYTES]) -> [u8; TAG_BYTES] {
        let mut h = self.h;
        if self.tail_len > 0 {
            // §2: the last chunk with a 1 byte appended, no 2^128 bit.
            let mut last = self.tail;
            last[self.tail_len] = 1;
            let v = u128::from_le_bytes(last);
            let mut c = limbs44(v as u64, (v >> 64) as u64, 0);
            h = mul44(&add44(&h, &c), &self.r);
            last.zeroize();
            c.zeroize();
        }
        let mut h64 = to_h64(&h);
        let mut s = one_shot_pad(&self.key, nonce, self.features);
        let tag = soft::finalize(h64[0], h64[1], h64[2], &s);
        h.zeroize();
        h64.zeroize();
        s.zeroize();
        tag
    }

    /// Check `tag` against the message as it now stands, in constant time.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(&self, tag: &[u8; TAG_BYTES], nonce: &[u8; NONCE_BYTES]) -> Result<(), Error> {
        let mut mine = self.tag(nonce);
        let ok = crate::ct::eq16(&mine, tag);
        mine.zeroize();
        crate::ct::verdict(ok)
    }
}

/// The layout of a state before it is sealed: version, the final chunk's
/// length, 6 zero bytes, the whole blocks' count, h (reduced mod p, three
/// 64-bit limbs) and the final chunk, little-endian.
const STATE_BYTES: usize = 56;
const STATE_VERSION: u8 = 1;

impl Incremental {
    /// The state encrypted and authenticated with CWC-AES under `kek` (a
    /// key for this purpose only, derived from the key holder's) and a
    /// `nonce` never used with `kek`, with `aad` bound to it (what the
    /// state belongs to: the file, its manifest line): for keeping it
    /// across processes. 56 bytes of plaintext, a 16-byte tag.
    pub fn seal_state(&self, kek: &crate::cwc::CwcKey, nonce: &[u8; 11], aad: &[u8]) -> Vec<u8> {
        let mut plain = [0u8; STATE_BYTES];
        plain[0] = STATE_VERSION;
        plain[1] = self.tail_len as u8;
        plain[8..16].copy_from_slice(&self.blocks.to_le_bytes());
        let mut h = to_h64(&self.h);
        let mut reduced = soft::reduce(h[0], h[1], h[2]);
        for (i, limb) in reduced.iter().enumerate() {
            plain[16 + 8 * i..24 + 8 * i].copy_from_slice(&limb.to_le_bytes());
        }
        plain[40..56].copy_from_slice(&self.tail);
        // Lengths are fixed and valid: encryption cannot fail.
        let sealed = kek.encrypt(nonce, aad, &plain, 16).unwrap_or_default();
        plain.zeroize();
        h.zeroize();
        reduced.zeroize();
        sealed
    }

    /// A state from [`Incremental::seal_state`]'s output, under the same
    /// `kek`, `nonce` and `aad`, for the Poly1305-AES `key` it was made
    /// with: [`Error::TagMismatch`] for anything else (another key or
    /// purpose, a changed byte, a state of another file or line).
    pub fn open_state(
        key: &Key,
        kek: &crate::cwc::CwcKey,
        nonce: &[u8; 11],
        aad: &[u8],
        sealed: &[u8],
    ) -> Result<Self, Error> {
        let mut plain = kek.decrypt(nonce, aad, sealed, 16)?;
        let state = Self::from_plain(key, &plain);
        plain.zeroize();
        state
    }

    fn from_plain(key: &Key, plain: &[u8]) -> Result<Self, Error> {
        let bad = Error::InvalidLength { what: "incremental state", expected: STATE_BYTES, got: plain.len() };
        if plain.len() != STATE_BYTES || plain[0] != STATE_VERSION || plain[1] >= 16 || plain[2..8] != [0; 6] {
            return Err(bad);
        }
        let word = |i: usize| u64::from_le_bytes(plain[i..i + 8].try_into().unwrap_or_default());
        let h = [word(16), word(24), word(40 - 8)];
        let blocks = word(8);
        if h[2] > 3 || blocks.checked_mul(16).is_none() {
            return Err(bad);
        }
        let mut me = Self::empty(key, Features::detect());
        me.h = from_h64(&h);
        me.blocks = blocks;
        me.tail_len = usize::from(plain[1]);
        me.tail.copy_from_slice(&plain[40..56]);
        Ok(me)
    }
}

impl Drop for Incremental {
    fn drop(&mut self) {
        self.r.zeroize();
        self.h.zeroize();
        self.tail.zeroize();
    }
}

impl fmt::Debug for Incremental {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Incremental").field("len", &self.len()).finish_non_exhaustive()
    }
}
