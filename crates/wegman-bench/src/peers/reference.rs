//! The hand-assembled reference of the Poly1305-AES tables: AES-128 with
//! AES-NI and the `pshufb` key expansion, in C (`c/ref_aesni.c`, built by
//! build.rs), for s = AES_k(n), then libsodium's Poly1305 on `r || s`. Not
//! a library anyone ships: the fastest one-shot Poly1305-AES that can be
//! assembled from public parts today, so that "fastest" is also measured
//! against it. x86-64 with AES-NI only.

unsafe extern "C" {
    fn wegman_bench_ref_aes128(key: *const u8, input: *const u8, out: *mut u8);
}

/// Whether this CPU can run the reference (AES-NI and SSSE3).
pub fn available() -> bool {
    std::is_x86_feature_detected!("aes") && std::is_x86_feature_detected!("ssse3")
}

/// AES-128_k(n). Call only when [`available`].
pub fn aes128(k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
    assert!(available(), "the reference needs AES-NI");
    let mut out = [0u8; 16];
    // SAFETY: three 16-byte buffers, as the C function reads and writes;
    // the CPU has the instructions it was compiled for (asserted above).
    unsafe { wegman_bench_ref_aes128(k.as_ptr(), n.as_ptr(), out.as_mut_ptr()) };
    out
}
