//! Asking for a key's tables, and a message's next lines, before they are
//! needed.
//!
//! With many keys in use (the benchmark's cold regimes: 1000 keys cycled) a
//! key's precomputed tables are not in cache, and a backend reads some of
//! them only at the end of its loop (Poly1305's final powers) or behind a
//! pointer (CWC's boxed tables). Asking for every line of the table at the
//! start of the call overlaps those memory waits with the work before them.

/// Prefetch every cache line `x` occupies. A prefetch never faults and
/// reads nothing into the program.
#[inline]
pub(crate) fn lines<T>(x: &T) {
    slice(core::slice::from_ref(x));
}

/// Prefetch every cache line the elements of `x` occupy.
#[inline]
pub(crate) fn slice<T>(x: &[T]) {
    let p = x.as_ptr().cast::<u8>();
    let size = core::mem::size_of_val(x);
    // Every 64 bytes from the start, and the last byte (the elements need
    // not start on a line).
    every_line(p, 0, size);
    if size > 0 {
        one(p.wrapping_add(size - 1));
    }
}

/// Prefetch `p + off` for `off` = `from`, `from + 64`, … below `to`. A
/// plain loop: the iterator chain it replaced cost MMH's short tags a few
/// percent.
#[inline]
fn every_line(p: *const u8, from: usize, to: usize) {
    let mut off = from;
    while off < to {
        one(p.wrapping_add(off));
        off += 64;
    }
}

/// Prefetch the cache line of `p`, which the callers keep inside the value
/// or run they were given.
#[inline(always)]
fn one(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is baseline on x86-64; a prefetch never faults and
        // reads nothing into the program.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// How far ahead of the blocks in hand the MMH leaves ask for a message's
/// lines ([`run_ahead`]).
pub(crate) const RUN_AHEAD: usize = 2048;

/// Prefetch the cache lines of bytes `from + RUN_AHEAD .. to + RUN_AHEAD`
/// of `run`, those inside it: a leaf streaming a message not in cache
/// otherwise waits on each line until the hardware prefetchers catch up
/// (measured in the MMH leaves' commits). Never past the run's end: lines
/// there may be unmapped, and a prefetch of those (which never faults)
/// still walked the page tables each time: the MMH64 AVX2 leaf with a
/// prefetch per block ran 8–64 KiB messages at 0.83–0.91x the best peer's
/// time instead of 0.41–0.49 (Intel Xeon 6/207 capped to `avx2-vaes`).
/// Taking it out looks like a gain wherever the message is in cache: the
/// AVX-512 32-bit leaf without it ran nmh32 at 1 MiB, hot, at 0.21–0.24×
/// OpenSSL's Poly1305-AES against 0.20–0.27 with it, but with 1000 keys
/// cycled (64 KiB – 1 MiB) at 0.55–0.62× against 0.39–0.50 (Xeon 6/207,
/// four alternating pairs of runs).
#[inline]
pub(crate) fn run_ahead(run: &[u8], from: usize, to: usize) {
    every_line(run.as_ptr(), from + RUN_AHEAD, (to + RUN_AHEAD).min(run.len()));
}
