//! The allocator behind these tests: [`System`], except that while a
//! [`Watch`] is armed every block is searched for the watched "needles"
//! (8-byte values of key material) just before it goes back to the system,
//! whether through `dealloc` or because `realloc` moved it.
//!
//! Only the thread that started the watch is watched: libtest runs the
//! other tests on other threads, and their frees (a panic's unwinding, for
//! one, copies registers that may hold key bytes) are not this test's.
//!
//! The allocator never allocates and never locks: needles live in a fixed
//! array of atomics, hits in another, the "watched" flag in a
//! const-initialized thread-local without destructor. Only [`Watch`]
//! (outside the allocator) takes a lock, so that tests watch one at a time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// At most this many needles at once (one bit each in a `u64`).
pub const MAX_NEEDLES: usize = 64;

static NEEDLES: [AtomicU64; MAX_NEEDLES] = [const { AtomicU64::new(0) }; MAX_NEEDLES];
static NEEDLE_COUNT: AtomicUsize = AtomicUsize::new(0);
/// Freed blocks that held needle i (a block counts once per needle).
static HITS: [AtomicUsize; MAX_NEEDLES] = [const { AtomicUsize::new(0) }; MAX_NEEDLES];
/// Freed blocks that held any needle.
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Whether this thread is being watched.
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

fn armed() -> bool {
    // `try_with`: a thread being torn down may free after its locals are gone.
    ARMED.try_with(Cell::get).unwrap_or(false)
}

/// Read 8 bytes at `p` (any alignment) as the machine holds them.
///
/// Through inline assembly rather than a Rust load: a freed block may hold
/// bytes Rust considers uninitialized (a struct's padding after a typed
/// copy), and reading those with a Rust load would be undefined behaviour;
/// an assembly load just returns whatever the memory contains.
///
/// # Safety
/// `p..p + 8` must be memory this thread may read.
#[inline(always)]
unsafe fn load8(p: *const u8) -> u64 {
    let v: u64;
    // SAFETY: the caller guarantees the 8 bytes are readable; x86-64 allows
    // unaligned loads; the asm writes only `v` and touches no stack or flags.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::asm!("mov {v}, qword ptr [{p}]", p = in(reg) p, v = lateout(reg) v,
            options(nostack, readonly, preserves_flags));
    }
    // SAFETY: as above; Linux lets user code load unaligned from normal memory.
    #[cfg(target_arch = "aarch64")]
    unsafe {
        core::arch::asm!("ldr {v}, [{p}]", p = in(reg) p, v = lateout(reg) v,
            options(nostack, readonly, preserves_flags));
    }
    v
}

/// The needles found in `len` bytes at `p`, as a bit set: every 8-byte
/// window at every byte offset is compared, so a copy is found wherever it
/// sits and however it is aligned.
///
/// # Safety
/// `p..p + len` must be memory this thread may read.
unsafe fn find(p: *const u8, len: usize) -> u64 {
    let n = NEEDLE_COUNT.load(Ordering::Acquire);
    let mut needles = [0u64; MAX_NEEDLES];
    for (d, s) in needles[..n].iter_mut().zip(&NEEDLES) {
        *d = s.load(Ordering::Relaxed);
    }
    let mut found = 0u64;
    for i in 0..len.saturating_sub(7) {
        // SAFETY: i + 8 <= len, so the window lies inside the caller's range.
        let w = unsafe { load8(p.add(i)) };
        for (j, &needle) in needles[..n].iter().enumerate() {
            found |= u64::from(w == needle) << j;
        }
    }
    found
}

fn record(found: u64) {
    if found != 0 {
        BLOCKS.fetch_add(1, Ordering::Relaxed);
    }
    for (j, hits) in HITS.iter().enumerate() {
        if found >> j & 1 == 1 {
            hits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The test binary's global allocator (see the module docs).
pub struct Scanner;

// SAFETY: every method forwards to `System` with the caller's own arguments,
// so `System`'s guarantees carry over; the scanning only reads blocks the
// caller still owns at that moment and writes only to blocks it just got.
unsafe impl GlobalAlloc for Scanner {
    /// Zeroed, so that a block the system recycles never carries an earlier
    /// block's needles into a later count.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `layout` has a non-zero size, as `alloc_zeroed` requires.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if armed() {
            // SAFETY: the caller owns the `layout.size()` bytes at `ptr` until
            // they are handed back below.
            record(unsafe { find(ptr, layout.size()) });
        }
        // SAFETY: the caller's `ptr` and `layout`, unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        let armed = armed();
        // Searched before the call, while the caller still owns the block:
        // afterwards a moved block is no longer ours to read.
        // SAFETY: the caller owns the `old` bytes at `ptr`.
        let whole = if armed { unsafe { find(ptr, old) } } else { 0 };
        // SAFETY: as above; `new_size < old` keeps the tail inside the block.
        let tail = if armed && new_size < old { unsafe { find(ptr.add(new_size), old - new_size) } } else { 0 };
        // SAFETY: the caller's arguments, unchanged.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if new.is_null() {
            return new; // the old block is still the caller's, nothing freed
        }
        // A moved block left its old bytes behind; one shrunk in place only
        // its tail.
        record(if new == ptr { tail } else { whole });
        if new_size > old {
            // SAFETY: `new` has `new_size` writable bytes; zeroed as in `alloc`.
            unsafe { new.add(old).write_bytes(0, new_size - old) };
        }
        new
    }
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Watching for needles: at most one at a time in this binary.
pub struct Watch {
    _turn: MutexGuard<'static, ()>,
    count: usize,
}

impl Watch {
    /// Start counting freed blocks that hold any of `needles` (non-zero:
    /// zero fills every fresh block).
    pub fn start(needles: &[u64]) -> Watch {
        // A failed test poisons the lock; the next one may still run.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        assert!(needles.len() <= MAX_NEEDLES, "at most {MAX_NEEDLES} needles");
        assert!(needles.iter().all(|&n| n != 0), "a zero needle would match every fresh block");
        for (i, slot) in NEEDLES.iter().enumerate() {
            slot.store(needles.get(i).copied().unwrap_or(0), Ordering::Relaxed);
        }
        for hits in &HITS {
            hits.store(0, Ordering::Relaxed);
        }
        BLOCKS.store(0, Ordering::Relaxed);
        NEEDLE_COUNT.store(needles.len(), Ordering::Release);
        ARMED.set(true);
        Watch { _turn: turn, count: needles.len() }
    }

    /// Stop, and return how many freed blocks held any needle, and how
    /// many held each.
    pub fn stop(self) -> (usize, Vec<usize>) {
        ARMED.set(false);
        let each = HITS[..self.count].iter().map(|h| h.load(Ordering::Relaxed)).collect();
        (BLOCKS.load(Ordering::Relaxed), each)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Also when a test panics while watching.
        ARMED.set(false);
    }
}
