//! A 64-byte-aligned local for the SIMD leaves whose loops spill vector
//! registers to the stack.
//!
//! Without it LLVM keeps a leaf's frame at the ABI's 16-byte alignment and
//! spills 32-byte registers with unaligned moves, so where the frame lands
//! decides whether a spill slot straddles a cache line or a 4 KiB page. On
//! Zen 3 that made Poly1305's AVX2 loop 1.3–2.3× slower at random stack
//! depths: one-shot `authenticate` on 1 MiB called under frames padded in
//! 64-byte steps ran 0.40–0.70 ticks/byte at 1–3 of 64 depths in each of four
//! processes, 0.30 elsewhere (the cause of the Python worker-thread and
//! per-process `ExpandedKey` slowdowns). A live 64-byte-aligned local makes
//! LLVM realign the frame (`and rsp, -64`) and put the spill slots on their
//! natural alignment (aligned moves): the same scan then showed no slow depth.

/// Declare one with [`Align64::pin`] at the top of a leaf that spills.
#[repr(align(64))]
pub(crate) struct Align64 {
    _bytes: [u8; 64],
}

impl Align64 {
    /// A local the optimiser must keep (so the frame is realigned).
    #[inline(always)]
    pub(crate) fn pin() -> Self {
        let mut a = Align64 { _bytes: [0; 64] };
        core::hint::black_box(&mut a);
        a
    }
}
