//! A tag recomputed after a small change to a long message (§1,
//! "Incrementality"), reading only the runs of the message the change
//! touches — and checking them first.
//!
//! Poly1305's polynomial is linear in the message's chunks. Cut the
//! message's q whole 16-byte blocks into runs of [`Incremental::RUN_BYTES`]
//! (4096 blocks; the last run may be shorter) and keep, for each run j, its
//! own polynomial v_j (from h = 0, each block with its 2^128 bit), and
//!
//! ```text
//! h = Σ_j v_j · r^(blocks after run j)   mod 2^130 − 5
//! ```
//!
//! with the message's final 0–15 bytes as they are. Then:
//!
//! - **replace** bytes (same length): the caller shows the *old* bytes of
//!   every run the change touches (and the final bytes, if it reaches
//!   them). Each run's polynomial is computed from what was shown and
//!   compared with the kept v_j; any difference refuses the change and
//!   leaves the state as it was. Only then is the new v'_j computed from the
//!   shown bytes with the new ones in place, and
//!   h' = h + Σ_j (v'_j − v_j) · r^(blocks after run j), one power of r by
//!   square-and-multiply per run touched;
//! - **append**: the last run is extended, new runs are added, and
//!   h' = h · r^n + (the appended blocks' own polynomial), on the key's
//!   usual backend; the final bytes are kept, so nothing before the old end
//!   is read;
//! - **tag** under a nonce: (h + c_last) · r for a final partial chunk as §2
//!   pads it, reduced, plus AES_k(n).
//!
//! Why the check matters: an update that believed the old bytes (h' = h +
//! (new − old)·r^k) authenticates `new + (actual − old)` whenever the
//! bytes really there differ from the ones believed — content the one who
//! supplied the "old" bytes can compute and choose. Here shown bytes that
//! differ from the run's are accepted only if their polynomial equals v_j
//! at the secret r: two different runs of L ≤ 4096 blocks agree at r for at
//! most L of the clamped r's possible values, so by §3's count (at most
//! 8⌈ℓ/16⌉ of the 2^106 values of r for ℓ-byte strings) a forged run
//! passes with probability at most 8L/2^106 ≤ 2^-91 per try.
//!
//! h and each v_j are as secret as the key (with the message they give an
//! equation in r). They live only in this object, which wipes them on drop
//! and never prints them; [`Incremental::to_secret_bytes`] hands them out
//! for a caller that stores them **encrypted and authenticated** (the
//! `wegman-store` crate seals them with CWC-AES). A new tag needs a
//! **fresh nonce**, as every Poly1305-AES tag does (§3).

use core::fmt;
use core::ops::Range;
use std::num::NonZeroUsize;

use zeroize::{Zeroize, Zeroizing};

use super::backend::{Dispatch, Precomputed, State, finalize};
use super::field::{add44, canonical, eq44, from_h64, limbs44, mul44, pow44, r44, sub44, to_h64};
use super::key::{Key, NONCE_BYTES, TAG_BYTES};
use super::mac::one_shot_pad;
use crate::cpu::Features;
use crate::error::Error;
use crate::parallel::{each_run, run_ends, thread_count};

/// Whole blocks per run.
const RUN_BLOCKS: u64 = (Incremental::RUN_BYTES / 16) as u64;

/// The state of a Poly1305-AES computation kept for updates: the message's
/// polynomial in r without the one-time pad, each run's own polynomial, and
/// the last partial chunk.
///
/// ```
/// use wegman::poly1305aes::{authenticate, Incremental, Key};
/// let key = Key::from_bytes_clamped(&[5u8; 32]);
/// let mut message = vec![7u8; 100_000];
/// let mut kept = Incremental::new(&key, &message);
/// // Change 4 bytes at offset 50,000: show the message as it stands (only
/// // the run around the change is read, and checked against the state).
/// kept.replace(&message, 50_000, b"edit").unwrap();
/// message[50_000..50_004].copy_from_slice(b"edit");
/// kept.append(b" and more");
/// message.extend_from_slice(b" and more");
/// let nonce = [1u8; 16]; // a fresh nonce for each tag (§3)
/// assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
///
/// // Old bytes that are not the message's are refused; nothing changes.
/// let mut forged = message.clone();
/// forged[60_000] ^= 1;
/// assert!(kept.replace(&forged, 60_001, b"x").is_err());
/// assert_eq!(kept.tag(&nonce), authenticate(&key, &nonce, &message));
/// ```
pub struct Incremental {
    key: Key,
    features: Features,
    /// r in radix-2^44 limbs.
    r: [u64; 3],
    /// r^RUN_BLOCKS.
    r_run: [u64; 3],
    /// The polynomial of the whole blocks, radix-2^44 limbs.
    h: [u64; 3],
    /// Each run's polynomial (radix-2^44 limbs); `ceil(blocks / RUN_BLOCKS)` of them.
    runs: Vec<[u64; 3]>,
    /// How many whole blocks the message has.
    blocks: u64,
    /// The message's last `tail_len` (0–15) bytes.
    tail: [u8; 16],
    tail_len: usize,
}

impl Incremental {
    /// The length of a run, the unit a [`replace`](Incremental::replace)
    /// reads and checks: 64 KiB (4096 blocks). A state keeps 17 bytes per
    /// run (272 KiB per GiB of message, serialized).
    pub const RUN_BYTES: usize = 64 << 10;

    /// The state of `message` under `key` (reads the message once, on the
    /// best backend this CPU has).
    pub fn new(key: &Key, message: &[u8]) -> Self {
        Self::with_features(key, message, Features::detect())
    }

    /// [`Incremental::new`] on up to `threads` threads (see
    /// [`authenticate_parallel`](super::authenticate_parallel)).
    pub fn new_parallel(key: &Key, message: &[u8], threads: NonZeroUsize) -> Self {
        let full = message.len() & !15;
        let mut me = Self::empty(key, Features::detect());
        me.blocks = (full / 16) as u64;
        me.set_tail(&message[full..]);
        let filled =
            me.fill_runs(|from, to, _, hash| Ok::<_, core::convert::Infallible>(hash(&message[from..to])), threads);
        filled.unwrap_or_else(|never| match never {});
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
        let full = len & !15;
        let mut me = Self::empty(key, Features::detect());
        me.blocks = (full / 16) as u64;
        me.fill_runs(
            |from, to, scratch, hash| {
                scratch.resize(to - from, 0);
                fill(from as u64, scratch)?;
                Ok(hash(scratch))
            },
            threads,
        )?;
        let mut tail = [0u8; 16];
        fill(full as u64, &mut tail[..len - full])?;
        me.set_tail(&tail[..len - full]);
        tail.zeroize();
        Ok(me)
    }

    /// Compute every run's polynomial by `value(from, to, scratch, hash)`,
    /// which hands `hash` the message's whole blocks `from .. to` (from the
    /// message itself, or read into `scratch`), on up to `threads` threads;
    /// then h from them.
    fn fill_runs<E: Send>(
        &mut self,
        value: impl Fn(usize, usize, &mut Vec<u8>, &dyn Fn(&[u8]) -> [u64; 3]) -> Result<[u64; 3], E> + Sync,
        threads: NonZeroUsize,
    ) -> Result<(), E> {
        let full = (self.blocks * 16) as usize;
        if full == 0 {
            return Ok(());
        }
        let ends = run_ends(full, Self::RUN_BYTES);
        let threads = thread_count(full, threads);
        let mut start = State::select(self.key.r(), self.features);
        let pre = start.precompute();
        let hash = |run: &[u8]| run_value(&start, &pre, run);
        let runs = each_run(&ends, threads, |_, from, to, scratch| value(from, to, scratch, &hash));
        start.wipe();
        self.runs = runs?;
        self.h = self.h_of_runs();
        Ok(())
    }

    /// [`Incremental::new`] on the best backend `features` allow (tests).
    pub fn with_features(key: &Key, message: &[u8], features: Features) -> Self {
        let mut me = Self::empty(key, features);
        me.append(message);
        me
    }

    fn empty(key: &Key, features: Features) -> Self {
        let r = r44(key.r());
        Incremental {
            key: key.clone(),
            features,
            r_run: pow44(&r, RUN_BLOCKS),
            r,
            h: [0; 3],
            runs: Vec::new(),
            blocks: 0,
            tail: [0; 16],
            tail_len: 0,
        }
    }

    /// The message's length in bytes.
    pub fn len(&self) -> u64 {
        self.blocks * 16 + self.tail_len as u64
    }

    /// Whether the message is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the message, as it stands, that a change of `len` bytes
    /// at `offset` must be shown ([`Incremental::replace_span`]): every run
    /// the change touches, and the final partial chunk if it reaches it.
    /// Empty for an empty change.
    pub fn span(&self, offset: u64, len: usize) -> Result<Range<u64>, Error> {
        let message_len = self.len();
        let end = offset.checked_add(len as u64).filter(|&end| end <= message_len);
        let Some(end) = end else {
            return Err(Error::OutOfRange { offset, len: len as u64, message_len });
        };
        if len == 0 {
            return Ok(offset..offset);
        }
        let full = self.blocks * 16;
        let run = Self::RUN_BYTES as u64;
        let start = if offset < full { offset / run * run } else { full };
        let stop = if end > full { message_len } else { end.div_ceil(run).saturating_mul(run).min(full) };
        Ok(start..stop)
    }

    /// The bytes at `offset` become `new`, in a message that stands as
    /// `message` now (the whole message, [`Incremental::len`] bytes): only
    /// the runs around the change are read, and they must be the ones this
    /// state was made from ([`Error::NotTheMessage`] otherwise, the state
    /// unchanged). Time proportional to the runs touched, not the message.
    pub fn replace(&mut self, message: &[u8], offset: u64, new: &[u8]) -> Result<(), Error> {
        if message.len() as u64 != self.len() {
            return Err(Error::InvalidLength { what: "message", expected: self.len() as usize, got: message.len() });
        }
        let span = self.span(offset, new.len())?;
        self.replace_span(offset, new, &message[span.start as usize..span.end as usize])
    }

    /// [`Incremental::replace`] for a message held elsewhere (a file, say):
    /// `old_span` is the message's bytes at [`Incremental::span`]`(offset,
    /// new.len())`, read once by the caller. They are checked against the
    /// state before anything is changed: bytes that are not the ones the
    /// state was made from give [`Error::NotTheMessage`] and change nothing.
    /// Use the bytes that were checked — not a second read — for anything
    /// that must agree with the new tag.
    pub fn replace_span(&mut self, offset: u64, new: &[u8], old_span: &[u8]) -> Result<(), Error> {
        let span = self.span(offset, new.len())?;
        let want = (span.end - span.start) as usize;
        if old_span.len() != want {
            return Err(Error::InvalidLength { what: "span of old bytes", expected: want, got: old_span.len() });
        }
        if new.is_empty() {
            return Ok(());
        }
        if !self.check_span(span.start, old_span) {
            return Err(Error::NotTheMessage);
        }
        let mut patched = Zeroizing::new(old_span.to_vec());
        let at = (offset - span.start) as usize;
        patched[at..at + new.len()].copy_from_slice(new);
        let full = self.blocks * 16;
        if span.start < full {
            let first = (span.start / Self::RUN_BYTES as u64) as usize;
            let in_runs = (span.end.min(full) - span.start) as usize;
            let mut start = State::select(self.key.r(), self.features);
            for (i, run) in patched[..in_runs].chunks(Self::RUN_BYTES).enumerate() {
                let j = first + i;
                let v = run_value(&start, &Precomputed::None, run);
                let mut delta = sub44(&v, &self.runs[j]);
                let mut shift = pow44(&self.r, self.blocks - self.run_end_block(j));
                self.h = add44(&self.h, &mul44(&delta, &shift));
                self.runs[j] = v;
                delta.zeroize();
                shift.zeroize();
            }
            start.wipe();
        }
        if span.end > full {
            let from = (full - span.start) as usize;
            self.tail[..self.tail_len].copy_from_slice(&patched[from..]);
        }
        Ok(())
    }

    /// Check, changing nothing, that `bytes` are the message's bytes at
    /// `span` (a range [`Incremental::span`] gave): [`Error::NotTheMessage`]
    /// if they are not the ones the state was made from. What an append
    /// that reads the run before it checks (`span(len − 1, 1)`).
    pub fn verify_span(&self, span: Range<u64>, bytes: &[u8]) -> Result<(), Error> {
        let (full, run) = (self.blocks * 16, Self::RUN_BYTES as u64);
        // An empty span (an empty change's) is anywhere in the message.
        let empty = span.start == span.end;
        let starts = empty || span.start.is_multiple_of(run) || span.start == full;
        let ends = empty || span.end.is_multiple_of(run) || span.end == full || span.end == self.len();
        if !starts || !ends || span.start > span.end || span.end > self.len() {
            return Err(Error::OutOfRange {
                offset: span.start,
                len: span.end.wrapping_sub(span.start),
                message_len: self.len(),
            });
        }
        let want = (span.end - span.start) as usize;
        if bytes.len() != want {
            return Err(Error::InvalidLength { what: "span of old bytes", expected: want, got: bytes.len() });
        }
        if self.check_span(span.start, bytes) { Ok(()) } else { Err(Error::NotTheMessage) }
    }

    /// Whether `bytes`, the message's bytes from `start` (a span's start),
    /// are the ones this state was made from: each whole run they cover
    /// hashes to its kept polynomial, the final bytes equal the kept ones.
    /// Every part is compared, without an early exit.
    fn check_span(&self, start: u64, bytes: &[u8]) -> bool {
        let full = self.blocks * 16;
        let end = start + bytes.len() as u64;
        let mut ok = true;
        if start < full {
            let first = (start / Self::RUN_BYTES as u64) as usize;
            let in_runs = (end.min(full) - start) as usize;
            let mut state = State::select(self.key.r(), self.features);
            for (i, run) in bytes[..in_runs].chunks(Self::RUN_BYTES).enumerate() {
                let mut v = run_value(&state, &Precomputed::None, run);
                ok &= eq44(&v, &self.runs[first + i]);
                v.zeroize();
            }
            state.wipe();
        }
        if end > full {
            let from = (full.max(start) - start) as usize;
            ok &= crate::ct::eq(&bytes[from..], &self.tail[..self.tail_len]);
        }
        ok
    }

    /// The block just after run `j`.
    fn run_end_block(&self, j: usize) -> u64 {
        ((j as u64 + 1) * RUN_BLOCKS).min(self.blocks)
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
            self.tail.zeroize();
            self.tail_len = 0;
            self.absorb_blocks(&block);
        }
        let full = data.len() & !15;
        self.absorb_blocks(&data[..full]);
        self.set_tail(&data[full..]);
    }

    /// Whole blocks added: the last run filled, new runs after it, and
    /// h = h · r^n + (the polynomial of the n new blocks).
    fn absorb_blocks(&mut self, mut blocks: &[u8]) {
        if blocks.is_empty() {
            return;
        }
        let n = (blocks.len() / 16) as u64;
        let mut start = State::select(self.key.r(), self.features);
        let pre = if blocks.len() >= 2 * Self::RUN_BYTES { start.precompute() } else { Precomputed::None };
        // `added`: the new blocks' own polynomial, by Horner over the pieces.
        let mut added = [0u64; 3];
        let room = (RUN_BLOCKS - self.blocks % RUN_BLOCKS) % RUN_BLOCKS;
        if room > 0 {
            let take = room.min(n);
            let (piece, rest) = blocks.split_at(take as usize * 16);
            let mut v = run_value(&start, &pre, piece);
            let mut shift = pow44(&self.r, take);
            let last = self.runs.last_mut().expect("a partial run exists when room > 0");
            *last = add44(&mul44(last, &shift), &v);
            added = v;
            v.zeroize();
            shift.zeroize();
            blocks = rest;
        }
        for piece in blocks.chunks(Self::RUN_BYTES) {
            let v = run_value(&start, &pre, piece);
            let k = (piece.len() / 16) as u64;
            // Only the last piece can be shorter than a run.
            let mut rk = if k == RUN_BLOCKS { self.r_run } else { pow44(&self.r, k) };
            added = add44(&mul44(&added, &rk), &v);
            self.runs.push(v);
            rk.zeroize();
        }
        start.wipe();
        let mut shift = pow44(&self.r, n);
        self.h = add44(&mul44(&self.h, &shift), &added);
        self.blocks += n;
        added.zeroize();
        shift.zeroize();
    }

    /// Σ_j v_j · r^(blocks after run j), by Horner's rule over the runs.
    fn h_of_runs(&self) -> [u64; 3] {
        let mut acc = [0u64; 3];
        for (j, v) in self.runs.iter().enumerate() {
            let k = self.run_end_block(j) - j as u64 * RUN_BLOCKS;
            let mut rk = if k == RUN_BLOCKS { self.r_run } else { pow44(&self.r, k) };
            acc = add44(&mul44(&acc, &rk), v);
            rk.zeroize();
        }
        acc
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
        let tag = finalize(h64[0], h64[1], h64[2], &s);
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

/// The polynomial (from h = 0) of `run`'s whole blocks, on a copy of
/// `start`.
fn run_value(start: &State, pre: &Precomputed, run: &[u8]) -> [u64; 3] {
    debug_assert!(run.len().is_multiple_of(16));
    let mut state = start.clone();
    state.absorb(run, 1, pre);
    let mut h = state.h();
    state.wipe();
    let v = from_h64(&h);
    h.zeroize();
    v
}

/// The serialized state (version 2), little-endian: version, the final
/// chunk's length, 2 zero bytes, the run length in bytes (u32), the whole
/// blocks' count (u64), the final chunk (16 bytes, zero past its length),
/// then each run's polynomial fully reduced mod p in 17 bytes.
const HEADER_BYTES: usize = 32;
const RUN_VALUE_BYTES: usize = 17;
const STATE_VERSION: u8 = 2;

impl Incremental {
    /// The state as bytes, for a caller that keeps it across processes.
    /// **They are as secret as the key**: store them only encrypted and
    /// authenticated (wegman-store seals them with CWC-AES under a key
    /// derived for that purpose), and give [`Incremental::from_secret_bytes`]
    /// only bytes that were authenticated — from unauthenticated bytes, the
    /// check of [`Incremental::replace`] means nothing. 32 + 17 bytes per
    /// run.
    pub fn to_secret_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(HEADER_BYTES + RUN_VALUE_BYTES * self.runs.len()));
        out.push(STATE_VERSION);
        out.push(self.tail_len as u8);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(Self::RUN_BYTES as u32).to_le_bytes());
        out.extend_from_slice(&self.blocks.to_le_bytes());
        out.extend_from_slice(&self.tail);
        for v in &self.runs {
            let mut c = canonical(v);
            out.extend_from_slice(&c[0].to_le_bytes());
            out.extend_from_slice(&c[1].to_le_bytes());
            out.push(c[2] as u8);
            c.zeroize();
        }
        out
    }

    /// A state from [`Incremental::to_secret_bytes`]'s output, for the key
    /// it was made with (h is recomputed from the runs). Malformed bytes
    /// give [`Error::InvalidLength`]; bytes of another key give a state
    /// whose tags do not verify. See [`Incremental::to_secret_bytes`]: the
    /// bytes must have been authenticated.
    pub fn from_secret_bytes(key: &Key, bytes: &[u8]) -> Result<Self, Error> {
        let bad = |expected| Error::InvalidLength { what: "incremental state", expected, got: bytes.len() };
        if bytes.len() < HEADER_BYTES {
            return Err(bad(HEADER_BYTES));
        }
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
        let tail_len = usize::from(bytes[1]);
        let run_bytes = u32::from_le_bytes(bytes[4..8].try_into().unwrap_or_default());
        let blocks = word(8);
        if bytes[0] != STATE_VERSION
            || tail_len >= 16
            || bytes[2..4] != [0, 0]
            || run_bytes as usize != Self::RUN_BYTES
            || bytes[16 + tail_len..32].iter().any(|&b| b != 0)
            || blocks.checked_mul(16).is_none()
        {
            return Err(bad(HEADER_BYTES));
        }
        let runs = blocks.div_ceil(RUN_BLOCKS);
        let want = runs
            .checked_mul(RUN_VALUE_BYTES as u64)
            .and_then(|n| n.checked_add(HEADER_BYTES as u64))
            .filter(|&n| n == bytes.len() as u64);
        if want.is_none() {
            return Err(
                bad(usize::try_from(runs).unwrap_or(usize::MAX).saturating_mul(RUN_VALUE_BYTES) + HEADER_BYTES),
            );
        }
        let mut me = Self::empty(key, Features::detect());
        me.runs.reserve_exact(runs as usize);
        for v in bytes[HEADER_BYTES..].chunks_exact(RUN_VALUE_BYTES) {
            let limbs = [word_at(v, 0), word_at(v, 8), u64::from(v[16])];
            if limbs[2] > 3 {
                return Err(bad(HEADER_BYTES));
            }
            me.runs.push(from_h64(&limbs));
        }
        me.blocks = blocks;
        me.tail_len = tail_len;
        me.tail.copy_from_slice(&bytes[16..32]);
        me.h = me.h_of_runs();
        Ok(me)
    }
}

fn word_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default())
}

impl Drop for Incremental {
    fn drop(&mut self) {
        self.r.zeroize();
        self.r_run.zeroize();
        self.h.zeroize();
        self.runs.zeroize();
        self.tail.zeroize();
    }
}

impl fmt::Debug for Incremental {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Incremental").field("len", &self.len()).finish_non_exhaustive()
    }
}
