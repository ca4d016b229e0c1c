//! Asking for a key's tables before they are needed.
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
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let p = x.as_ptr().cast::<u8>();
        let size = core::mem::size_of_val(x);
        // Every 64 bytes from the start, and the last byte (the elements
        // need not start on a line). A plain loop: the iterator chain it
        // replaced cost MMH's short tags a few percent.
        let mut off = 0;
        while off < size {
            // SAFETY: SSE is baseline on x86-64; the address is inside `x`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off).cast()) };
            off += 64;
        }
        if size > 0 {
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(size - 1).cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
