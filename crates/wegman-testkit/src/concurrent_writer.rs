//! The concurrent-writer harness: one thread decrypts a
//! CWC-AES message while another flips bytes of its ciphertext and tag at
//! random moments, as another process can in shared memory or a shared
//! mmap of a file. Used by the core's `tests/cwc_concurrent_writer.rs` (the
//! Rust API through raw pointers) and by `wegman-capi`'s
//! `tests/concurrent_writer.rs` (the C ABI).
//!
//! After each try:
//! * a success must have written the plaintext of a ciphertext whose tag
//!   verifies — in practice the original message (a forgery would take
//!   2^128 tries), so `out` must equal the original plaintext, and
//! * a failure must leave `out` all zero (the library wipes it).
//!
//! Decryption that reads the ciphertext twice (once to verify, once to
//! decrypt) fails the first check: a byte flipped after the verifying pass
//! read it is decrypted as flipped, and the call still succeeds.
//!
//! The ciphertext lives in `AtomicU8`s: this thread writes them with atomic
//! operations, and the decryption under test reads them through a raw
//! pointer, as C code does. Those plain reads race with the writes — which
//! is the point: the library must withstand a writer it cannot stop.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use wegman::cwc::CwcKey;

/// The key every try uses (its first 16, 24 or 32 bytes).
pub const KEY: [u8; 32] = [0x3c; 32];
/// The nonce every try uses.
pub const NONCE: [u8; 11] = [0x5e; 11];
/// The associated data every try authenticates.
pub const AAD: &[u8] = b"associated data, 27 bytes..";
/// The tag length every try uses.
pub const TAG_LEN: usize = 16;
/// What the output holds before each try (neither plaintext nor zero).
const SENTINEL: u8 = 0xa5;

/// One decryption under test: `c` is `len` ciphertext bytes followed by
/// the `TAG_LEN`-byte tag (both in memory another thread is writing),
/// `out` has `len` writable bytes; `key_len` picks CWC-AES-128/192/256
/// (the first bytes of [`KEY`]). Returns whether it succeeded.
pub type Decrypt = dyn Fn(usize, *const u8, usize, *mut u8) -> bool + Sync;

/// What the tries came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Decryptions tried.
    pub tries: usize,
    /// Tries that returned success.
    pub accepted: usize,
    /// Tries that returned failure.
    pub rejected: usize,
    /// Tries in which the writer flipped a byte before the decryption
    /// returned.
    pub raced: usize,
    /// Accepted with an output that is not the original plaintext: the bug.
    pub wrong_plaintext: usize,
    /// Rejected with an output that is not all zero.
    pub not_wiped: usize,
}

impl Tally {
    /// Tries that show the bug: wrong plaintext released or a rejection left unwiped.
    pub fn failures(&self) -> usize {
        self.wrong_plaintext + self.not_wiped
    }
}

/// xorshift64*: the test's own small generator (no dependency needed).
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0; the bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// What the writer does in one try, starting `delay` after the decryption
/// does.
#[derive(Clone, Copy, Debug)]
enum Attack {
    /// Flip one byte and leave it flipped.
    Flip,
    /// Flip one byte and flip it back a moment later.
    Blip,
    /// Flip several bytes, one after another.
    Burst,
    /// Flip one byte back within two microseconds: about the time one
    /// chunk of one-pass decryption takes, so that a chunk read twice (once
    /// to decrypt, once to hash) sees the byte once each way.
    Flicker,
}

/// Spin until `until` or until `stop` is set; returns whether `stop` was.
fn spin(until: Instant, stop: &AtomicBool) -> bool {
    while Instant::now() < until {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::hint::spin_loop();
    }
    false
}

/// Run `tries` tries of `decrypt` with messages of `size(rng)` bytes (at
/// most `max_len`) under random key lengths, attacks and delays.
pub fn run(tries: usize, max_len: usize, seed: u64, size: impl Fn(&mut Rng) -> usize, decrypt: &Decrypt) -> Tally {
    let mut rng = Rng::new(seed);
    let pt: Vec<u8> = (0..max_len).map(|_| rng.next_u64() as u8).collect();
    // AtomicU8 has the size and alignment of u8, so the decryption can
    // read the buffer as bytes through a raw pointer.
    let shared: Vec<AtomicU8> = (0..max_len + TAG_LEN).map(|_| AtomicU8::new(0)).collect();
    let mut out = vec![0u8; max_len];
    let mut scratch = Vec::with_capacity(max_len);
    // How long decryption takes per byte, to aim the writer's delays (the
    // fastest of five encryptions, which cost about as much: a slow outlier
    // on a busy machine would push every delay past the decryption).
    let ns_per_byte = {
        let key = CwcKey::new(&KEY[..16]).unwrap();
        let mut buf = pt[..max_len.min(1 << 20)].to_vec();
        let fastest = (0..5)
            .map(|_| {
                let start = Instant::now();
                key.encrypt_detached(&NONCE, AAD, &mut buf, TAG_LEN).unwrap();
                start.elapsed()
            })
            .min()
            .unwrap();
        fastest.as_nanos() as f64 / buf.len().max(1) as f64
    };
    eprintln!("concurrent writer: aiming at {ns_per_byte:.2} ns per byte");
    let mut tally = Tally::default();
    for _ in 0..tries {
        let len = size(&mut rng).min(max_len);
        let key_len = [16, 24, 32][rng.below(3)];
        let key = CwcKey::new(&KEY[..key_len]).unwrap();
        scratch.clear();
        scratch.extend_from_slice(&pt[..len]);
        let tag = key.encrypt_detached(&NONCE, AAD, &mut scratch, TAG_LEN).unwrap();
        for (a, &b) in shared.iter().zip(scratch.iter().chain(tag.as_slice())) {
            a.store(b, Ordering::Relaxed);
        }
        out[..len].fill(SENTINEL);

        let attack = [Attack::Flip, Attack::Blip, Attack::Burst, Attack::Flicker][rng.below(4)];
        // Up to 1.3 times the decryption's expected length, so that some
        // flips land before it starts reading, most while it runs, some
        // after it is done.
        let span_ns = (1.3 * ns_per_byte * len as f64) as u64 + 20_000;
        let delay = Duration::from_nanos(rng.next_u64() % span_ns);
        let writer_seed = rng.next_u64();
        let (ready, go) = (AtomicBool::new(false), AtomicBool::new(false));
        let done = AtomicBool::new(false);
        let raced = AtomicBool::new(false);
        let shared = &shared[..len + TAG_LEN];
        let ok = std::thread::scope(|s| {
            s.spawn(|| {
                let mut rng = Rng::new(writer_seed);
                ready.store(true, Ordering::Release);
                while !go.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
                let start = Instant::now();
                if spin(start + delay, &done) {
                    return;
                }
                let flips = match attack {
                    Attack::Flip | Attack::Blip | Attack::Flicker => 1,
                    Attack::Burst => 2 + rng.below(6),
                };
                let longest_pause = if let Attack::Flicker = attack { 2_000 } else { 50_000 };
                for _ in 0..flips {
                    let at = rng.below(shared.len());
                    let mask = 1u8 << rng.below(8);
                    shared[at].fetch_xor(mask, Ordering::Relaxed);
                    if !done.load(Ordering::Relaxed) {
                        raced.store(true, Ordering::Relaxed);
                    }
                    let pause = Instant::now() + Duration::from_nanos(rng.next_u64() % longest_pause);
                    let stopped = spin(pause, &done);
                    if let Attack::Blip | Attack::Flicker = attack {
                        shared[at].fetch_xor(mask, Ordering::Relaxed);
                    }
                    if stopped {
                        return;
                    }
                }
            });
            // Both threads start their clocks together: the writer is
            // spinning before the decryption begins.
            while !ready.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            go.store(true, Ordering::Release);
            let c = shared.as_ptr().cast::<u8>();
            let ok = decrypt(key_len, c, len, out.as_mut_ptr());
            done.store(true, Ordering::Relaxed);
            ok
        });

        tally.tries += 1;
        tally.raced += usize::from(raced.into_inner());
        if ok {
            tally.accepted += 1;
            if out[..len] != pt[..len] {
                tally.wrong_plaintext += 1;
            }
        } else {
            tally.rejected += 1;
            if out[..len].iter().any(|&b| b != 0) {
                tally.not_wiped += 1;
            }
        }
    }
    tally
}

/// Mostly short messages (1 byte to 256 KiB, around the one-pass chunk
/// size often), with a share of 1 MiB ones.
pub fn mixed_sizes(rng: &mut Rng) -> usize {
    match rng.below(8) {
        0 => 1 << 20,
        1 => 1 + rng.below(16 << 10),
        // around multiples of the one-pass chunk (`cwc/one_pass.rs`, CHUNK)
        2 => (15360 * (1 + rng.below(4))).saturating_sub(8) + rng.below(16),
        _ => 1 + rng.below(256 << 10),
    }
}

/// The long run's sizes: [`mixed_sizes`], with one try in sixteen at
/// 4 MiB and one in sixty-four at the full (64 MiB) length.
pub fn long_sizes(rng: &mut Rng) -> usize {
    match rng.below(64) {
        0 => usize::MAX,
        1..=4 => 4 << 20,
        _ => mixed_sizes(rng),
    }
}

/// Tries for the long (`#[ignore]`d) run: `WEGMAN_RACE_TRIES` or 1000.
pub fn long_tries() -> usize {
    std::env::var("WEGMAN_RACE_TRIES").ok().and_then(|s| s.parse().ok()).unwrap_or(1000)
}
