//! Poly1305-AES itself: Poly1305_r(m, AES_k(n)) (§2 "Authenticators").

use core::fmt;
use std::num::NonZeroUsize;

use zeroize::Zeroize;

use super::backend::{Dispatch, Precomputed, State};
use super::key::{Key, NONCE_BYTES, TAG_BYTES, aes_pad};
use super::parallel::{self, Fill};
use super::poly1305::{Poly1305, whole_message};
use crate::backend::Platform;
use crate::cpu::Features;
use crate::error::Error;

/// A key with its AES key schedule expanded and its Poly1305 backend chosen
/// once, for callers that authenticate many messages under one key.
///
/// Poly1305 needs no precomputation (that is the paper's point about key
/// agility), but a SIMD backend runs faster with the powers r^2 … r^4: they
/// are computed here, once, with the AES round keys, and lent to
/// [`ExpandedKey::authenticate`] and [`ExpandedKey::verify`]. (A streaming
/// computation from [`ExpandedKey::start`] owns its state and computes them
/// itself for long inputs.)
///
/// Memory: once a key has authenticated or verified 1 MiB in messages of 8
/// KiB or more, it also keeps a table of powers of r for such messages, on
/// the heap (about 6 KiB on CPUs with AVX-512 IFMA, 11.9 KiB on the AVX2
/// tiers; none on the portable code), wiped when the key is dropped.
#[derive(Clone)]
pub struct ExpandedKey {
    cipher: crate::aes::Key,
    /// The backend's state for r with h = 0; each message starts from a copy.
    poly: State,
    pre: Precomputed,
    /// r itself, for combining the runs of a parallel computation.
    r: [u8; 16],
}

impl ExpandedKey {
    /// Expand `key` for the best backend this CPU supports.
    pub fn new(key: &Key) -> Self {
        Self::with_features(key, Features::detect())
    }

    /// Expand `key` for the best backend `features` allow (tests and
    /// benchmarks; [`Features::portable`] forces the portable one).
    pub fn with_features(key: &Key, features: Features) -> Self {
        let poly = State::select(key.r(), features);
        let pre = poly.precompute();
        ExpandedKey { cipher: key.cipher(features), poly, pre, r: *key.r() }
    }

    /// Which backend computes the polynomial for this key.
    pub fn platform(&self) -> Platform {
        self.poly.platform()
    }

    /// Start a streaming computation for `nonce`.
    pub fn start(&self, nonce: &[u8; NONCE_BYTES]) -> Poly1305Aes {
        let mut s = aes_pad(&self.cipher, nonce);
        let inner = Poly1305::from_state(self.poly.clone(), &s);
        s[..].zeroize();
        Poly1305Aes { inner }
    }

    /// One-shot authenticator of `message` under `nonce`.
    pub fn authenticate(&self, nonce: &[u8; NONCE_BYTES], message: &[u8]) -> [u8; TAG_BYTES] {
        self.pre.prefetch_for(message.len());
        let mut s = aes_pad(&self.cipher, nonce);
        let tag = whole_message(self.poly.clone(), &s, message, &self.pre);
        s[..].zeroize(); // the bulk wipe (see Key's Zeroize), not 16 byte stores
        tag
    }

    /// Constant-time check of `tag`.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(&self, tag: &[u8; TAG_BYTES], nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Result<(), Error> {
        let mut mine = self.authenticate(nonce, message);
        let ok = crate::ct::eq16(&mine, tag);
        mine.zeroize();
        crate::ct::verdict(ok)
    }

    /// [`ExpandedKey::authenticate`] on up to `threads` threads: the same
    /// tag, for long messages sooner. A thread is started for each 4 MiB
    /// of message at most (none below 8 MiB); see
    /// [`authenticate_parallel`].
    pub fn authenticate_parallel(
        &self,
        nonce: &[u8; NONCE_BYTES],
        message: &[u8],
        threads: NonZeroUsize,
    ) -> [u8; TAG_BYTES] {
        let (ends, threads) = parallel::plan(message.len(), threads);
        if threads == 1 {
            return self.authenticate(nonce, message);
        }
        let mut s = aes_pad(&self.cipher, nonce);
        let tag = parallel::tag_runs(&self.poly, &self.pre, &self.r, &s, message, &ends, threads);
        s.zeroize();
        tag
    }

    /// [`authenticate_parallel_from`] with this key (and the backend it
    /// was expanded for).
    pub fn authenticate_parallel_from<E: Send>(
        &self,
        nonce: &[u8; NONCE_BYTES],
        len: usize,
        threads: NonZeroUsize,
        fill: &Fill<'_, E>,
    ) -> Result<[u8; TAG_BYTES], E> {
        let (_, threads) = parallel::plan(len, threads);
        let ends = parallel::run_ends(len);
        let mut h = parallel::h_runs_from(&self.poly, &self.pre, &self.r, &ends, threads, fill)?;
        let mut s = aes_pad(&self.cipher, nonce);
        let tag = super::backend::finalize(h[0], h[1], h[2], &s);
        s.zeroize();
        h.zeroize();
        Ok(tag)
    }

    /// [`ExpandedKey::verify`] on up to `threads` threads.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify_parallel(
        &self,
        tag: &[u8; TAG_BYTES],
        nonce: &[u8; NONCE_BYTES],
        message: &[u8],
        threads: NonZeroUsize,
    ) -> Result<(), Error> {
        let mut mine = self.authenticate_parallel(nonce, message, threads);
        let ok = crate::ct::eq16(&mine, tag);
        mine.zeroize();
        crate::ct::verdict(ok)
    }
}

impl Drop for ExpandedKey {
    fn drop(&mut self) {
        self.poly.wipe();
        self.r.zeroize();
    }
}

impl fmt::Debug for ExpandedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("poly1305aes::ExpandedKey { .. }")
    }
}

/// Streaming ("incremental", §1) Poly1305-AES.
///
/// ```
/// use wegman::poly1305aes::{authenticate, Key, Poly1305Aes};
/// let key = Key::from_bytes_clamped(&[7u8; 32]);
/// let nonce = [1u8; 16];
/// let mut mac = Poly1305Aes::new(&key, &nonce);
/// mac.update(b"hello, ");
/// mac.update(b"world");
/// assert_eq!(mac.finalize(), authenticate(&key, &nonce, b"hello, world"));
/// ```
#[derive(Clone)]
pub struct Poly1305Aes {
    inner: Poly1305,
}

impl Poly1305Aes {
    /// Start authenticating a message under `key` and `nonce`.
    pub fn new(key: &Key, nonce: &[u8; NONCE_BYTES]) -> Self {
        Self::with_features(key, nonce, Features::detect())
    }

    /// Start on the best backend `features` allow, instead of the best this
    /// CPU has (tests and benchmarks; [`Features::portable`] forces the
    /// portable backend).
    pub fn with_features(key: &Key, nonce: &[u8; NONCE_BYTES], features: Features) -> Self {
        let mut s = one_shot_pad(key, nonce, features);
        let inner = Poly1305::from_state(State::select(key.r(), features), &s);
        s.zeroize();
        Poly1305Aes { inner }
    }

    /// Absorb message bytes; any split gives the same result.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The 16-byte authenticator.
    pub fn finalize(self) -> [u8; TAG_BYTES] {
        self.inner.finalize()
    }

    /// Constant-time comparison with `tag`.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify(self, tag: &[u8; TAG_BYTES]) -> Result<(), Error> {
        self.inner.verify(tag)
    }

    /// Which backend computes the polynomial.
    pub fn platform(&self) -> Platform {
        self.inner.platform()
    }
}

impl fmt::Debug for Poly1305Aes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poly1305Aes").field("platform", &self.platform()).finish_non_exhaustive()
    }
}

/// AES_k(n) for a key with no cached schedule: with AES-NI the schedule is
/// computed in registers alongside the rounds (`crate::aes::PadLeaf`),
/// otherwise the `aes` crate expands it (and wipes it on drop).
pub(super) fn one_shot_pad(key: &Key, nonce: &[u8; NONCE_BYTES], features: Features) -> [u8; 16] {
    crate::aes::PadLeaf::best(features).pad(key.k(), nonce)
}

/// Poly1305_r(m, AES_k(n)), the exact function of §2, AES key expansion included.
///
/// ```
/// use wegman::poly1305aes::{authenticate, verify, Key};
/// let key = Key::from_bytes_clamped(&[42u8; 32]);
/// let nonce = [0u8; 16];
/// let tag = authenticate(&key, &nonce, b"attack at dawn");
/// assert!(verify(&key, &tag, &nonce, b"attack at dawn").is_ok());
/// assert!(verify(&key, &tag, &nonce, b"attack at dusk").is_err());
/// ```
pub fn authenticate(key: &Key, nonce: &[u8; NONCE_BYTES], message: &[u8]) -> [u8; TAG_BYTES] {
    let features = Features::detect();
    let mut s = one_shot_pad(key, nonce, features);
    let tag = if message.len() <= 16 && !features.prefers_float64() {
        // One block at most: h = c * r straight from the bytes (no backend
        // state to build and wipe); the same arithmetic as the portable
        // backend's, which every backend runs below its vector threshold.
        super::backend::short_tag(key.r(), &s, message)
    } else {
        whole_message(State::select(key.r(), features), &s, message, &Precomputed::None)
    };
    s[..].zeroize();
    tag
}

/// [`authenticate`] of a long message on up to `threads` threads (§1,
/// "Parallelizability"): the message is cut into runs of whole blocks, each
/// run's polynomial evaluated on its own thread by the usual backend, and
/// the results combined with powers of r. The tag is the same as
/// [`authenticate`]'s, byte for byte, for every message and thread count.
///
/// Threads are started for the call and joined before it returns, at most
/// one for each 4 MiB of message (none below 8 MiB: waiting for a thread
/// to start would cost more than it saves), and they take the message's
/// 256 KiB runs in turn with the calling thread, so a thread that starts late
/// or runs on a busy core holds the others up by one run at most. A thread
/// the system refuses leaves its share to the others. No call of this
/// crate starts a thread unless asked like this.
///
/// ```
/// use std::num::NonZeroUsize;
/// use wegman::poly1305aes::{authenticate, authenticate_parallel, Key};
/// let key = Key::from_bytes_clamped(&[9u8; 32]);
/// let nonce = [3u8; 16];
/// let message = vec![0x5au8; 9 << 20]; // two threads from 8 MiB
/// let threads = std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN);
/// assert_eq!(authenticate_parallel(&key, &nonce, &message, threads), authenticate(&key, &nonce, &message));
/// ```
pub fn authenticate_parallel(
    key: &Key,
    nonce: &[u8; NONCE_BYTES],
    message: &[u8],
    threads: NonZeroUsize,
) -> [u8; TAG_BYTES] {
    let (ends, threads) = parallel::plan(message.len(), threads);
    if threads == 1 {
        return authenticate(key, nonce, message);
    }
    let features = Features::detect();
    let mut s = one_shot_pad(key, nonce, features);
    let mut state = State::select(key.r(), features);
    let pre = state.precompute();
    let tag = parallel::tag_runs(&state, &pre, key.r(), &s, message, &ends, threads);
    state.wipe();
    s.zeroize();
    tag
}

/// [`authenticate_parallel`] of a `len`-byte message that the caller
/// supplies piece by piece rather than in memory (a file, read with `pread`
/// by several threads at once): `fill(offset, buffer)` must put the
/// message's bytes `offset .. offset + buffer.len()` into `buffer`, from
/// any thread. Pieces are at most 256 KiB, one buffer per thread. The first
/// error `fill` returns stops the computation and is returned; no tag is
/// made from a message that could not be read whole.
///
/// ```
/// use std::num::NonZeroUsize;
/// use wegman::poly1305aes::{authenticate, authenticate_parallel_from, Key};
/// let key = Key::from_bytes_clamped(&[2u8; 32]);
/// let message = vec![1u8; 10 << 20];
/// let fill = |at: u64, buf: &mut [u8]| -> Result<(), ()> {
///     buf.copy_from_slice(&message[at as usize..at as usize + buf.len()]);
///     Ok(())
/// };
/// let tag = authenticate_parallel_from(&key, &[0; 16], message.len(), NonZeroUsize::MIN.saturating_add(1), &fill);
/// assert_eq!(tag, Ok(authenticate(&key, &[0; 16], &message)));
/// ```
pub fn authenticate_parallel_from<E: Send>(
    key: &Key,
    nonce: &[u8; NONCE_BYTES],
    len: usize,
    threads: NonZeroUsize,
    fill: &Fill<'_, E>,
) -> Result<[u8; TAG_BYTES], E> {
    ExpandedKey::new(key).authenticate_parallel_from(nonce, len, threads, fill)
}

/// [`verify`] on up to `threads` threads (see [`authenticate_parallel`]).
#[must_use = "a failed verification must be acted upon"]
pub fn verify_parallel(
    key: &Key,
    tag: &[u8; TAG_BYTES],
    nonce: &[u8; NONCE_BYTES],
    message: &[u8],
    threads: NonZeroUsize,
) -> Result<(), Error> {
    let mut mine = authenticate_parallel(key, nonce, message, threads);
    let ok = crate::ct::eq16(&mine, tag);
    mine.zeroize();
    crate::ct::verdict(ok)
}

/// Check `tag` against `message` in constant time: `Ok(())` or
/// [`Error::TagMismatch`]. Never panics.
#[must_use = "a failed verification must be acted upon"]
pub fn verify(key: &Key, tag: &[u8; TAG_BYTES], nonce: &[u8; NONCE_BYTES], message: &[u8]) -> Result<(), Error> {
    let mut mine = authenticate(key, nonce, message);
    let ok = crate::ct::eq16(&mine, tag);
    mine.zeroize();
    crate::ct::verdict(ok)
}
