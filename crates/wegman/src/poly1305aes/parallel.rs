//! One long message on several cores (§1, "Parallelizability").
//!
//! The polynomial is linear in the message's chunks: cut the message into
//! runs of whole 16-byte blocks, evaluate each run's polynomial from h = 0
//! on its own thread with the key's usual backend, and combine,
//!
//! ```text
//! h = Σ_j h_j · r^(blocks after run j)  mod 2^130 − 5
//! ```
//!
//! by Horner's rule over the runs (`field.rs`: one r^n by
//! square-and-multiply and one product per run, a few microseconds in all).
//! The threads are `crate::parallel`'s (scoped, started for the call).

use std::num::NonZeroUsize;

use zeroize::Zeroize;

use super::backend::finalize;
use super::backend::{Dispatch, Precomputed, State};
use super::field::{add44, from_h64, mul44, pow44, r44, to_h64};
use super::poly1305::absorb_last;
pub use crate::parallel::Fill;
use crate::parallel::{each_run, run_start, thread_count};

/// The runs the threads take turns at: small enough that a thread which
/// starts late, or runs on a slower core, leaves little for the others to
/// wait for (a run is 25–75 µs of work), and that a run read into a buffer
/// stays in the core's L2 (512 KiB on Zen 3) between the read that fills
/// it and the pass that hashes it; large enough that combining them costs
/// nothing (one product and one sum per run, about 15 ns).
pub(crate) const RUN_BYTES: usize = 256 << 10;

/// Where the runs of a `len`-byte message end: every `RUN_BYTES` and at
/// `len`.
pub(crate) fn run_ends(len: usize) -> Vec<usize> {
    crate::parallel::run_ends(len, RUN_BYTES)
}

/// How a `len`-byte message is shared by at most `threads` threads: where
/// its runs end (multiples of `RUN_BYTES` but the last, which is `len`) and
/// how many threads take them.
pub(crate) fn plan(len: usize, threads: NonZeroUsize) -> (Vec<usize>, usize) {
    let threads = thread_count(len, threads);
    if threads == 1 {
        return (vec![len], 1);
    }
    (run_ends(len), threads)
}

/// h (not reduced mod p) of one run from h = 0 on a copy of `start`: whole
/// blocks, and for the message's last run its final partial chunk (§2's
/// padding).
fn run_h(start: &State, pre: &Precomputed, run: &[u8]) -> [u64; 3] {
    let mut state = start.clone();
    let full = run.len() & !15;
    state.absorb(&run[..full], 1, pre);
    absorb_last(&mut state, &run[full..]);
    let h = state.h();
    state.wipe();
    h
}

/// Poly1305_r(message, s) from [`h_runs`]'s polynomial.
pub(crate) fn tag_runs(
    start: &State,
    pre: &Precomputed,
    r: &[u8; 16],
    s: &[u8; 16],
    message: &[u8],
    ends: &[usize],
    threads: usize,
) -> [u8; 16] {
    let mut h = h_runs(start, pre, r, message, ends, threads);
    let tag = finalize(h[0], h[1], h[2], s);
    h.zeroize();
    tag
}

/// The polynomial h of `message` (as 64-bit limbs, h2 <= 4; not reduced
/// mod p), with `message` cut after each offset of `ends`
/// (increasing multiples of 16 but the last, which is the message's
/// length; runs may be empty), the runs taken in turn by `threads` threads
/// (the calling one and `threads − 1` started here). `start` is the key's
/// fresh backend state (h = 0), `pre` its powers.
pub(crate) fn h_runs(
    start: &State,
    pre: &Precomputed,
    r: &[u8; 16],
    message: &[u8],
    ends: &[usize],
    threads: usize,
) -> [u64; 3] {
    debug_assert!(ends.last() == Some(&message.len()));
    let h = h_runs_with(r, ends, threads, |from, to, _| {
        Ok::<_, core::convert::Infallible>(run_h(start, pre, &message[from..to]))
    });
    match h {
        Ok(h) => h,
        Err(never) => match never {},
    }
}

/// [`h_runs`] of a message the caller hands over run by run:
/// `fill(offset, buffer)` puts the message's bytes at `offset ..
/// offset + buffer.len()` into `buffer` (a file read with `pread`, say),
/// each thread into a buffer of its own. The first error stops the others
/// (a run already begun is finished) and is returned.
pub(crate) fn h_runs_from<E: Send>(
    start: &State,
    pre: &Precomputed,
    r: &[u8; 16],
    ends: &[usize],
    threads: usize,
    fill: &Fill<'_, E>,
) -> Result<[u64; 3], E> {
    h_runs_with(r, ends, threads, |from, to, buffer| {
        buffer.resize(to - from, 0);
        fill(from as u64, buffer)?;
        Ok(run_h(start, pre, buffer))
    })
}

/// The engine of both: run j (bytes `ends[j−1] .. ends[j]`) gives its h by
/// `h_of(from, to, scratch)`, on whichever thread takes it
/// (`crate::parallel::each_run`); the h are combined in run order.
fn h_runs_with<E: Send>(
    r: &[u8; 16],
    ends: &[usize],
    threads: usize,
    h_of: impl Fn(usize, usize, &mut Vec<u8>) -> Result<[u64; 3], E> + Sync,
) -> Result<[u64; 3], E> {
    debug_assert!(ends.windows(2).all(|w| w[0] <= w[1]) && ends[..ends.len() - 1].iter().all(|e| e % 16 == 0));
    let mut hs = each_run(ends, threads, |_, from, to, scratch| h_of(from, to, scratch))?;
    let blocks: Vec<u64> = (0..ends.len()).map(|i| (ends[i] - run_start(ends, i)).div_ceil(16) as u64).collect();
    let h = combine(r, &hs, &blocks);
    hs.zeroize();
    Ok(h)
}

/// Σ_j h_j · r^(blocks after run j), by Horner's rule over the runs (a run's
/// block count is public: its length over 16, rounded up for a final
/// partial chunk). Runs of one length share one power of r, so a run
/// costs one product and one sum (`combine_cost` measures it).
fn combine(r: &[u8; 16], hs: &[[u64; 3]], blocks: &[u64]) -> [u64; 3] {
    let r = r44(r);
    let mut acc = [0u64; 3];
    let mut power: Option<(u64, [u64; 3])> = None;
    for (h, &n) in hs.iter().zip(blocks) {
        let rn = match power {
            Some((m, rn)) if m == n => rn,
            _ => pow44(&r, n),
        };
        power = Some((n, rn));
        acc = add44(&mul44(&acc, &rn), &from_h64(h));
    }
    if let Some((_, mut rn)) = power {
        rn.zeroize();
    }
    to_h64(&acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Features;
    use crate::parallel::MIN_BYTES_PER_THREAD;
    use rand::{RngCore, SeedableRng};
    use wegman_ref::poly1305aes as reference;

    const R_MAX: [u8; 16] =
        [0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f];

    fn levels() -> Vec<Features> {
        let mut levels = crate::cpu::levels_for_test();
        levels.push(Features::float64());
        levels
    }

    /// Every backend, with and without its precomputed powers, threaded or
    /// not, against the reference.
    fn check(r: &[u8; 16], s: &[u8; 16], message: &[u8], ends: &[usize], want: &[u8; 16]) {
        for features in levels() {
            let start = State::select(r, features);
            for pre in [Precomputed::None, start.precompute()] {
                for threads in [1, 3] {
                    let got = tag_runs(&start, &pre, r, s, message, ends, threads);
                    assert_eq!(
                        &got,
                        want,
                        "{:?} len {} ends {ends:?} threads {threads}",
                        start.platform(),
                        message.len()
                    );
                }
            }
        }
    }

    #[test]
    fn every_cut_of_short_messages_matches_the_reference() {
        // Messages around the blocks and the backends' thresholds (256,
        // 384, 1024 bytes), all 0xff under the largest r (the most carries):
        // one cut at every block offset, and two cuts around each other.
        let s = [0xffu8; 16];
        for len in [0usize, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 1040, 2100] {
            let message = vec![0xffu8; len];
            let want = reference::poly1305(&R_MAX, &s, &message);
            let blocks = len / 16;
            for a in 0..=blocks {
                check(&R_MAX, &s, &message, &[a * 16, len], &want);
            }
            for a in (0..=blocks).step_by(7) {
                for b in (a..=blocks).step_by(5) {
                    check(&R_MAX, &s, &message, &[a * 16, b * 16, len], &want);
                }
            }
        }
    }

    #[test]
    fn one_to_sixty_four_runs_empty_ones_included() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(22);
        let mut r = [0u8; 16];
        let mut s = [0u8; 16];
        // (Under an emulator, the CPU-class runs, the longest is left out.)
        let emulated = std::env::var_os("WEGMAN_EMULATED").is_some();
        for len in [4096usize, 65_537, 300_000].into_iter().take(if emulated { 2 } else { 3 }) {
            rng.fill_bytes(&mut r);
            rng.fill_bytes(&mut s);
            crate::poly1305aes::clamp(&mut r);
            let mut message = vec![0u8; len];
            rng.fill_bytes(&mut message);
            let want = reference::poly1305(&r, &s, &message);
            for runs in [1usize, 2, 3, 7, 16, 63, 64] {
                // Random cuts on block boundaries, repeats (empty runs) allowed.
                let mut ends: Vec<usize> = (1..runs).map(|_| (rng.next_u64() as usize % (len / 16 + 1)) * 16).collect();
                ends.sort_unstable();
                ends.push(len);
                check(&r, &s, &message, &ends, &want);
            }
        }
    }

    #[test]
    fn runs_read_by_the_caller_give_the_same_h_and_stop_at_an_error() {
        let message: Vec<u8> = (0..(3 * RUN_BYTES + 21)).map(|i| (i * 7 + 1) as u8).collect();
        let ends = run_ends(message.len());
        let fill = |at: u64, buffer: &mut [u8]| {
            buffer.copy_from_slice(&message[at as usize..at as usize + buffer.len()]);
            Ok::<(), u64>(())
        };
        for features in levels() {
            let start = State::select(&R_MAX, features);
            let pre = start.precompute();
            let want = h_runs(&start, &pre, &R_MAX, &message, &[message.len()], 1);
            for threads in [1, 2, 4] {
                assert_eq!(
                    h_runs_from(&start, &pre, &R_MAX, &ends, threads, &fill),
                    Ok(want),
                    "{:?}",
                    start.platform()
                );
            }
            // A reader that fails at its third run: that error, from every thread count.
            let failing =
                |at: u64, buffer: &mut [u8]| if at == 2 * RUN_BYTES as u64 { Err(at) } else { fill(at, buffer) };
            for threads in [1, 2, 4] {
                assert_eq!(h_runs_from(&start, &pre, &R_MAX, &ends, threads, &failing), Err(2 * RUN_BYTES as u64));
            }
        }
    }

    #[test]
    fn plans_cover_the_message_in_aligned_runs() {
        for len in [0usize, 1, 4096, MIN_BYTES_PER_THREAD * 2 - 1, MIN_BYTES_PER_THREAD * 2 + 5, 1 << 30, 1 << 40] {
            for t in [1usize, 2, 3, 64, 1000] {
                let (ends, threads) = plan(len, NonZeroUsize::new(t).unwrap());
                assert_eq!(ends.last(), Some(&len));
                assert!(threads <= t && threads <= (len / MIN_BYTES_PER_THREAD).max(1), "{len} {t}");
                assert!(ends[..ends.len() - 1].iter().all(|e| e % RUN_BYTES == 0));
                assert!(ends.windows(2).all(|w| w[0] < w[1]));
                assert_eq!(ends.len() == 1, threads == 1);
            }
        }
        let (ends, threads) = plan(8 << 20, NonZeroUsize::new(2).unwrap());
        assert_eq!((ends.len(), threads), (32, 2));
    }

    /// What combining costs per run: 4,096 runs of 256 KiB (a 1 GiB message)
    /// and one final partial run. A measurement, not a check: run with
    /// `cargo test --release -p wegman --lib combine_cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn combine_cost() {
        let blocks: Vec<u64> = std::iter::repeat_n(RUN_BYTES as u64 / 16, 4096).chain([1]).collect();
        let hs = vec![[u64::MAX, u64::MAX, 4]; blocks.len()];
        let start = std::time::Instant::now();
        let reps = 200;
        for _ in 0..reps {
            std::hint::black_box(combine(&R_MAX, std::hint::black_box(&hs), &blocks));
        }
        let ns = start.elapsed().as_nanos() as f64 / (reps * blocks.len()) as f64;
        eprintln!("combine: {ns:.1} ns per run (4,097 runs of a 1 GiB + 5 B message)");
    }
}
