//! The clock: the x86-64 time-stamp counter read between `lfence`s.
//!
//! On this kind of machine the TSC is *invariant* (`constant_tsc`,
//! `nonstop_tsc`): it ticks at a fixed rate whatever the core's clock, so a
//! "tick" is a unit of wall-clock time (calibrated below against the OS
//! clock), **not** a core cycle. Cores usually run faster than the TSC
//! (boost), so ticks understate cycles; [`core_ticks_ratio`] estimates by how
//! much. Performance counters (`perf`) are not available in this VM.
//!
//! `lfence; rdtsc; lfence`: the first fence waits until everything before
//! has executed, the second keeps later instructions from starting before
//! the counter is read (on AMD `lfence` is dispatch-serialising since the
//! Spectre mitigations; on Intel it always was).

use std::time::{Duration, Instant};

/// Read the TSC, fenced on both sides.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn now() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: lfence needs SSE2 and rdtsc needs nothing beyond x86-64, which
    // guarantees both; neither touches memory.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

/// Elsewhere: nanoseconds since the first call (then a "tick" is 1 ns).
#[cfg(not(target_arch = "x86_64"))]
pub fn now() -> u64 {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Which counter [`now`] reads.
pub fn timer_name() -> &'static str {
    if cfg!(target_arch = "x86_64") { "lfence; rdtsc; lfence" } else { "std::time::Instant (ns)" }
}

/// The TSC's rate measured against the OS's monotonic clock.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// Median of the rounds, in MHz (ticks per microsecond).
    pub mhz: f64,
    /// Every round's estimate.
    pub rounds: Vec<f64>,
    /// How long each round slept.
    pub round: Duration,
}

/// Count ticks across `rounds` sleeps of `round` each and take the median.
pub fn calibrate(rounds: usize, round: Duration) -> Calibration {
    let mut est: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let (w0, t0) = (Instant::now(), now());
            std::thread::sleep(round);
            let (t1, w1) = (now(), Instant::now());
            t1.saturating_sub(t0) as f64 / (w1 - w0).as_nanos() as f64 * 1e3
        })
        .collect();
    let rounds = est.clone();
    est.sort_by(f64::total_cmp);
    Calibration { mhz: est[est.len() / 2], rounds, round }
}

/// Busy-wait for `d` (lets an idle core reach its working clock).
pub fn spin(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Core clock cycles per TSC tick, estimated from a chain of dependent
/// 1-cycle additions (8 per loop iteration); the best of a few tries, as
/// interruptions only make it look slower. An estimate, not a measurement:
/// the core clock changes with load and temperature. The chain adds a
/// register, not an immediate: recent Intel cores collapse a chain of
/// add-immediates at register renaming (on an Intel Xeon, 6/167, it gave
/// 8.5 "cycles" per tick; adding a register, and a chain of 3-cycle
/// `imul`s, both give 1.56).
#[cfg(target_arch = "x86_64")]
pub fn core_ticks_ratio() -> f64 {
    const ITERS: u64 = 4_000_000;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t0 = now();
        // SAFETY: register-only arithmetic and a counted loop; no memory or
        // stack access, flags are declared clobbered by default.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {x}, {y}", "add {x}, {y}", "add {x}, {y}", "add {x}, {y}",
                "add {x}, {y}", "add {x}, {y}", "add {x}, {y}", "add {x}, {y}",
                "dec {n}",
                "jnz 2b",
                n = inout(reg) ITERS => _,
                x = inout(reg) 0u64 => _,
                y = in(reg) 1u64,
                options(nomem, nostack),
            );
        }
        best = best.min(now().saturating_sub(t0) as f64);
    }
    (8 * ITERS) as f64 / best
}

/// Without a TSC there is nothing to compare with.
#[cfg(not(target_arch = "x86_64"))]
pub fn core_ticks_ratio() -> f64 {
    f64::NAN
}
