//! Which process incarnation this is, told without PIDs: a reservation of
//! nonces belongs to the process that made it, and a child made by `fork`
//! must not hand out its parent's.
//!
//! A PID cannot tell: a child forked into a new PID namespace is PID 1
//! there, as is a parent running as a container's init, and a grandchild
//! can be given its grandparent's PID once that has exited. What the kernel
//! does guarantee is `MADV_WIPEONFORK` (Linux 4.14 and later): a private
//! anonymous page so marked reads as zeros in every child, whatever made
//! it (`fork`, `clone` without `CLONE_VM`, a raw syscall that skips libc's
//! fork hooks). So the page holds a random nonzero 64-bit id of this
//! incarnation; a child finds zero there and draws an id of its own. Where
//! the page cannot be made (another OS, an older kernel, a seccomp filter),
//! the PID stands in, as before, and [`Incarnation::strong`] says so.

#![allow(unsafe_code)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The id of this process incarnation (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Incarnation {
    id: u64,
    pid: u32,
}

impl Incarnation {
    /// This process's incarnation now.
    pub(crate) fn current() -> Incarnation {
        let pid = std::process::id();
        let id = page().map_or(0, |cell| match cell.load(Ordering::Acquire) {
            0 => {
                // A new incarnation (the first call, or a child's first call
                // after a fork): draw its id; if threads race, one id wins.
                let fresh = loop {
                    let mut b = [0u8; 8];
                    if getrandom::fill(&mut b).is_ok() && u64::from_le_bytes(b) != 0 {
                        break u64::from_le_bytes(b);
                    }
                };
                match cell.compare_exchange(0, fresh, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => fresh,
                    Err(winner) => winner,
                }
            }
            id => id,
        });
        Incarnation { id, pid }
    }

    /// Whether forks are told by the wiped page, not by the PID alone.
    #[cfg(test)]
    pub(crate) fn strong() -> bool {
        page().is_some()
    }
}

/// The wiped-on-fork cell, made once per process (its mapping is
/// inherited, wiped, by every child); `None` where it cannot be made.
fn page() -> Option<&'static AtomicU64> {
    static PAGE: OnceLock<Option<&'static AtomicU64>> = OnceLock::new();
    *PAGE.get_or_init(make_page)
}

#[cfg(target_os = "linux")]
fn make_page() -> Option<&'static AtomicU64> {
    let len = 4096;
    // SAFETY: an anonymous private mapping at an address the kernel picks
    // touches no existing memory; the result is checked before use.
    let p = unsafe {
        libc::mmap(
            core::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `p .. p + len` is the mapping just made, owned here alone.
    if unsafe { libc::madvise(p, len, libc::MADV_WIPEONFORK) } != 0 {
        // SAFETY: unmaps the mapping just made, which nothing else uses.
        unsafe { libc::munmap(p, len) };
        return None;
    }
    // SAFETY: the mapping is page-aligned (so aligned for u64), readable
    // and writable, zero-filled (a valid AtomicU64), never unmapped (so
    // 'static), and reached only through atomic operations.
    Some(unsafe { &*(p as *const AtomicU64) })
}

#[cfg(not(target_os = "linux"))]
fn make_page() -> Option<&'static AtomicU64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_incarnation_per_process_across_threads() {
        let me = Incarnation::current();
        let theirs: Vec<_> = (0..4).map(|_| std::thread::spawn(Incarnation::current)).collect();
        for t in theirs {
            assert_eq!(t.join().unwrap(), me);
        }
        #[cfg(target_os = "linux")]
        assert!(Incarnation::strong() && me.id != 0, "MADV_WIPEONFORK is in every kernel since 4.14");
    }
}
