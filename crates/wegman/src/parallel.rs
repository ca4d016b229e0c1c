//! The threads behind every family's parallel calls: a message
//! cut into runs, the runs taken in turn by `std::thread::scope` threads
//! started for the call, each run's result kept by its index.
//!
//! No pool: no dependency, no thread left holding key material after the
//! call, and the caller's thread works from the first instant. A thread
//! that starts late or runs on a busy core holds the others up by one run
//! at most; a thread the system refuses leaves its share to the others.
//! The families combine the results (`poly1305aes/parallel.rs`: powers of r
//! mod 2^130 − 5; `cwc/parallel.rs`: powers of Kh mod 2^127 − 1).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use zeroize::Zeroize;

/// What supplies a message piece by piece: `fill(offset, buffer)` puts the
/// message's bytes `offset .. offset + buffer.len()` into `buffer`, from
/// any thread.
pub type Fill<'a, E> = dyn Fn(u64, &mut [u8]) -> Result<(), E> + Sync + 'a;

/// What takes an output piece by piece: `sink(offset, bytes)` stores
/// `bytes` at `offset` of the output (a file written with `pwrite`, say),
/// from any thread, in any order.
pub type Sink<'a, E> = dyn Fn(u64, &[u8]) -> Result<(), E> + Sync + 'a;

/// A thread is started for each this many bytes of message at most: below
/// it, waiting for a thread to start costs more than it saves. A thread's
/// start and join cost 30–60 µs on Zen 3 under KVM, and at times one tick
/// of the host's scheduler, 4 ms (docs/parallel.md).
pub(crate) const MIN_BYTES_PER_THREAD: usize = 4 << 20;

/// The shortest message for which a parallel call of any family starts a
/// thread: below it the call runs on the calling thread alone. Callers that
/// prepare a message for the threads (read a file into per-thread buffers,
/// say) can skip that work below it.
pub const MIN_PARALLEL_BYTES: usize = 2 * MIN_BYTES_PER_THREAD;

/// How many of at most `threads` threads a `len`-byte message gets: one
/// for each [`MIN_BYTES_PER_THREAD`] at most, at least one.
pub(crate) fn thread_count(len: usize, threads: std::num::NonZeroUsize) -> usize {
    threads.get().min((len / MIN_BYTES_PER_THREAD).max(1))
}

/// Where the runs of a `len`-byte message end: every `run_bytes` and at
/// `len`.
pub(crate) fn run_ends(len: usize, run_bytes: usize) -> Vec<usize> {
    let mut ends: Vec<usize> = (1..len.div_ceil(run_bytes)).map(|i| i * run_bytes).collect();
    ends.push(len);
    ends
}

/// The start of run `i` of the runs ending at `ends`.
pub(crate) fn run_start(ends: &[usize], i: usize) -> usize {
    if i == 0 { 0 } else { ends[i - 1] }
}

/// `work(i, from, to, scratch)` for each run i (bytes `from .. to`, with
/// `ends[i] = to`), on `threads` threads (the calling one and `threads − 1`
/// started here), each with a scratch buffer of its own. The results in
/// run order, or the error of the lowest run that failed: a failure stops
/// the threads from taking more runs (a run already begun is finished),
/// and the results computed are wiped.
pub(crate) fn each_run<T: Send + Zeroize, E: Send>(
    ends: &[usize],
    threads: usize,
    work: impl Fn(usize, usize, usize, &mut Vec<u8>) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    // Each thread takes the next run not yet taken until none is left (or
    // one failed), and returns what it computed with the runs' indexes:
    // which thread took which run changes nothing in the result.
    let take = || {
        let mut done = Vec::new();
        let mut scratch = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= ends.len() {
                break;
            }
            let out = work(i, run_start(ends, i), ends[i], &mut scratch);
            if out.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            done.push((i, out));
        }
        scratch.zeroize();
        done
    };
    let mut done = thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.min(ends.len()))
            .filter_map(|_| thread::Builder::new().spawn_scoped(scope, take).ok())
            .collect();
        let mut done = take();
        for helper in helpers {
            done.extend(helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        done
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    let mut results = Vec::with_capacity(done.len());
    let mut first_error = None;
    for (_, out) in done {
        match out {
            Ok(t) => results.push(t),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => {
            results.iter_mut().for_each(Zeroize::zeroize);
            Err(e)
        }
        None => Ok(results),
    }
}
