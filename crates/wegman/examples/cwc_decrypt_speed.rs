//! CWC-AES decryption speed with a hot key: TSC ticks per byte at 16 KiB and
//! 1 MiB, the median of many runs (the machine is shared, so the median, not
//! the mean). A tick is the invariant TSC's, not a core cycle.
//!
//! `cargo run --release -p wegman --example cwc_decrypt_speed`
//!
//! Two shapes: `inout` decrypts from one buffer into another (the C ABI's
//! `wegman_cwc_decrypt_detached`, RustCrypto's `decrypt_inout_detached`),
//! `in place` is `CwcKey::decrypt_detached` (its buffer is refilled with the
//! ciphertext between runs, outside the timed region). `encrypt` (one pass
//! by construction) is the yardstick.

use aead::AeadInOut;
use aead::inout::InOutBuf;
use wegman::cwc::{CwcAes128, CwcAes256, CwcKey};

#[cfg(target_arch = "x86_64")]
fn now() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: lfence needs SSE2 and rdtsc nothing beyond x86-64, which has
    // both; neither touches memory.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn now() -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Median ticks per byte of `runs` calls of `f` (after three warm-up
/// calls); `f` times its own critical part with [`now`].
fn per_byte(len: usize, runs: usize, mut f: impl FnMut() -> u64) -> f64 {
    for _ in 0..3 {
        f();
    }
    let mut t: Vec<u64> = (0..runs).map(|_| f()).collect();
    t.sort_unstable();
    t[runs / 2] as f64 / len as f64
}

fn main() {
    let nonce = [7u8; 11];
    let aad = [1u8; 13];
    println!("{:<8} {:>9} {:>9} {:>9} {:>9}", "key", "bytes", "inout", "in place", "encrypt");
    for key_len in [16, 32] {
        let raw: Vec<u8> = (0..key_len as u8).collect();
        let key = CwcKey::new(&raw).unwrap();
        for (len, runs) in [(16 << 10, 4001), (1 << 20, 201)] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
            let mut sealed = key.encrypt(&nonce, &aad, &msg, 16).unwrap();
            let tag = sealed.split_off(len);
            let mut out = vec![0u8; len];
            // The AEAD object is built once, outside the timed loop.
            let a128 = (key_len == 16).then(|| <CwcAes128 as digest::common::KeyInit>::new_from_slice(&raw).unwrap());
            let a256 = (key_len == 32).then(|| <CwcAes256 as digest::common::KeyInit>::new_from_slice(&raw).unwrap());
            let t_inout = per_byte(len, runs, || {
                let buf = InOutBuf::new(&sealed, &mut out).unwrap();
                let t0 = now();
                let t = tag.as_slice().try_into().unwrap();
                let r = match (&a128, &a256) {
                    (Some(a), _) => a.decrypt_inout_detached(&nonce.into(), &aad, buf, t),
                    (_, Some(a)) => a.decrypt_inout_detached(&nonce.into(), &aad, buf, t),
                    _ => unreachable!(),
                };
                r.unwrap();
                now() - t0
            });
            assert_eq!(out, msg);
            let mut buf = vec![0u8; len];
            let t_place = per_byte(len, runs, || {
                buf.copy_from_slice(&sealed);
                let t0 = now();
                key.decrypt_detached(&nonce, &aad, &mut buf, &tag).unwrap();
                now() - t0
            });
            assert_eq!(buf, msg);
            let t_enc = per_byte(len, runs, || {
                buf.copy_from_slice(&msg);
                let t0 = now();
                key.encrypt_detached(&nonce, &aad, &mut buf, 16).unwrap();
                now() - t0
            });
            println!("AES-{:<4} {len:>9} {t_inout:>9.3} {t_place:>9.3} {t_enc:>9.3}", key_len * 8);
        }
    }
}
