//! `vpmuludq` as one instruction, for the AVX2 leaves (Poly1305, MMH).
//!
//! Written as inline assembly rather than `_mm256_mul_epu32`: LLVM rewrites
//! that intrinsic's masked form into a generic 64-bit vector multiply when it
//! cannot prove the high halves are zero, and AVX2 has no such instruction,
//! so it emitted three `vpmuludq` plus shifts per product (seen in the
//! disassembly of the Poly1305 leaf; 1.5× slower).

use core::arch::x86_64::__m256i;

/// The low 32 bits of each 64-bit lane of `a` and `b`, multiplied into 64.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn mul32(a: __m256i, b: __m256i) -> __m256i {
    let r;
    // SAFETY: a register-only instruction (no memory, no stack, no flags);
    // `#[target_feature(enable = "avx2")]` makes this callable only from
    // code that is itself entered with an `Avx2` token.
    unsafe {
        core::arch::asm!("vpmuludq {r}, {a}, {b}", r = lateout(ymm_reg) r, a = in(ymm_reg) a, b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags));
    }
    r
}
