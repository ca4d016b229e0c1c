//! Eight AES_k(n) at once, for batches of one-shot tags under eight
//! different keys: the fused key schedule of `x86_aesni.rs`, four keys per
//! 512-bit register (VAES works on each 128-bit lane; `vpshufb` and the
//! byte shifts stay inside lanes too), two registers.
//!
//! One key's schedule is a chain of ten dependent rounds; eight
//! independent chains in two registers cost about what one did. Tested
//! equal to the `aes` crate on random keys and nonces, like `x86_aesni.rs`.

use core::arch::x86_64::*;

use super::super::batch::Item;
use crate::cpu::Vaes512;

/// AES-128_{k[i]}(n[i]) for i in 0..8.
pub(crate) fn pads8(token: Vaes512, k: &[[u8; 16]; 8], n: &[[u8; 16]; 8]) -> [[u8; 16]; 8] {
    // SAFETY: `token` is a `Vaes512`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU.
    unsafe { encrypt8(token, k, n) }
}

/// The next round key of four keys, with round constant `rcon` in every column.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn next(k: __m512i, rcon: __m512i) -> __m512i {
    let rot = _mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f_0e0d));
    let t = _mm512_aesenclast_epi128(rot, rcon);
    let k = _mm512_xor_si512(k, _mm512_bslli_epi128::<4>(k));
    let k = _mm512_xor_si512(k, _mm512_bslli_epi128::<8>(k));
    _mm512_xor_si512(k, t)
}

/// AES-128 of the four blocks in `n` under the four keys in `k` (one per
/// 128-bit lane), the schedule computed alongside the rounds in registers.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
#[inline]
fn encrypt4x2(mut ka: __m512i, mut kb: __m512i, na: __m512i, nb: __m512i) -> (__m512i, __m512i) {
    let mut sa = _mm512_xor_si512(na, ka);
    let mut sb = _mm512_xor_si512(nb, kb);
    for rcon in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b] {
        let rc = _mm512_set1_epi32(rcon);
        ka = next(ka, rc);
        kb = next(kb, rc);
        sa = _mm512_aesenc_epi128(sa, ka);
        sb = _mm512_aesenc_epi128(sb, kb);
    }
    let rc = _mm512_set1_epi32(0x36);
    ka = next(ka, rc);
    kb = next(kb, rc);
    (_mm512_aesenclast_epi128(sa, ka), _mm512_aesenclast_epi128(sb, kb))
}

#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn encrypt8(_proof: Vaes512, k: &[[u8; 16]; 8], n: &[[u8; 16]; 8]) -> [[u8; 16]; 8] {
    let (kp, np) = (k.as_ptr().cast::<u8>(), n.as_ptr().cast::<u8>());
    // SAFETY: `k` and `n` are 128 contiguous readable bytes each: two
    // unaligned 64-byte loads from each.
    let (ka, kb, na, nb) = unsafe {
        (
            _mm512_loadu_si512(kp.cast()),
            _mm512_loadu_si512(kp.add(64).cast()),
            _mm512_loadu_si512(np.cast()),
            _mm512_loadu_si512(np.add(64).cast()),
        )
    };
    let (sa, sb) = encrypt4x2(ka, kb, na, nb);
    let mut out = [[0u8; 16]; 8];
    let op = out.as_mut_ptr().cast::<u8>();
    // SAFETY: `out` is 128 contiguous writable bytes: two 64-byte stores.
    unsafe {
        _mm512_storeu_si512(op.cast(), sa);
        _mm512_storeu_si512(op.add(64).cast(), sb);
    }
    out
}

/// Poly1305-AES tags of a run of messages of at most 16 bytes under one
/// key each (`items.len()` a multiple of 8, every `message.len() <= 16`),
/// `out[i]` for `items[i]`: eight pads at a time as in [`pads8`], gathered
/// straight from the keys and nonces into registers, and the one-block
/// polynomials (`soft::short_tag`) of the previous eight items computed in
/// scalar code between the AES rounds of the next eight, so the vector and
/// integer units work at once. The pads pass through one 128-byte aligned
/// stack buffer, wiped at the end with two stores.
pub(crate) fn short_tags(token: Vaes512, items: &[Item<'_>], out: &mut [[u8; 16]]) {
    assert!(items.len().is_multiple_of(8) && items.len() == out.len());
    debug_assert!(items.iter().all(|i| i.message.len() <= 16));
    // SAFETY: `token` is a `Vaes512`, which `crate::cpu` hands out only after
    // detecting AES-NI, VAES, AVX-512 F and BW on this CPU.
    unsafe { short_run(token, items, out) }
}

/// Four 16-byte blocks, one per 128-bit lane, lane i from `b[i]`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn gather4(b: [&[u8; 16]; 4]) -> __m512i {
    // SAFETY: each `b[i]` is 16 readable bytes: one unaligned 16-byte load each.
    let [x0, x1, x2, x3] = b.map(|p| unsafe { _mm_loadu_si128(p.as_ptr().cast()) });
    let lo = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x0), x1);
    let hi = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x2), x3);
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// Eight pads, aligned for two aligned 64-byte stores (and their wipe).
#[repr(C, align(64))]
struct Pads([[u8; 16]; 8]);

/// The tag of `item` with pad `s` into `out`.
#[inline(always)]
fn tag(item: &Item<'_>, s: &[u8; 16], out: &mut [u8; 16]) {
    *out = super::soft::short_tag(item.key.r(), s, item.message);
}

#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn short_run(_proof: Vaes512, items: &[Item<'_>], out: &mut [[u8; 16]]) {
    let mut pads = Pads([[0u8; 16]; 8]);
    let pp = pads.0.as_mut_ptr().cast::<__m512i>();
    // The chunk whose pads are in `pads` and whose tags are still to come.
    let mut pending: Option<(&[Item<'_>], &mut [[u8; 16]])> = None;
    for (it, o) in items.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        let mut ka = gather4([it[0].key.k(), it[1].key.k(), it[2].key.k(), it[3].key.k()]);
        let mut kb = gather4([it[4].key.k(), it[5].key.k(), it[6].key.k(), it[7].key.k()]);
        let mut sa = _mm512_xor_si512(gather4([it[0].nonce, it[1].nonce, it[2].nonce, it[3].nonce]), ka);
        let mut sb = _mm512_xor_si512(gather4([it[4].nonce, it[5].nonce, it[6].nonce, it[7].nonce]), kb);
        for (round, rcon) in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b].into_iter().enumerate() {
            let rc = _mm512_set1_epi32(rcon);
            ka = next(ka, rc);
            kb = next(kb, rc);
            sa = _mm512_aesenc_epi128(sa, ka);
            sb = _mm512_aesenc_epi128(sb, kb);
            // Rounds 0–7 each carry one of the previous chunk's tags.
            if let (Some((pi, po)), true) = (pending.as_mut(), round < 8) {
                tag(&pi[round], &pads.0[round], &mut po[round]);
            }
        }
        let rc = _mm512_set1_epi32(0x36);
        ka = next(ka, rc);
        kb = next(kb, rc);
        // SAFETY: `pads` is 128 contiguous writable bytes, 64-byte aligned:
        // two aligned 64-byte stores.
        unsafe {
            _mm512_store_si512(pp.cast(), _mm512_aesenclast_epi128(sa, ka));
            _mm512_store_si512(pp.add(1).cast(), _mm512_aesenclast_epi128(sb, kb));
        }
        pending = Some((it, o));
    }
    if let Some((pi, po)) = pending {
        for ((item, s), t) in pi.iter().zip(&pads.0).zip(po.iter_mut()) {
            tag(item, s, t);
        }
    }
    // SAFETY: the same 128 aligned bytes, overwritten with zeros by
    // volatile stores the compiler may not drop.
    unsafe {
        core::ptr::write_volatile(pp, _mm512_setzero_si512());
        core::ptr::write_volatile(pp.add(1), _mm512_setzero_si512());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::Aes128Enc;
    use cipher::{BlockCipherEncrypt, KeyInit};

    #[test]
    fn equals_the_aes_crate() {
        let Some(token) = crate::cpu::Features::detect().vaes512() else {
            // a capped build, or a CPU without the instructions, skips this
            let uncapped = crate::cpu::Features::uncapped().vaes512().is_some();
            eprintln!("skipped: {}", crate::cpu::Features::explain_missing("Vaes512", uncapped));
            return;
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..5_000 {
            let mut k = [[0u8; 16]; 8];
            let mut n = [[0u8; 16]; 8];
            k.iter_mut().chain(n.iter_mut()).flatten().for_each(|b| *b = next() as u8);
            let got = pads8(token, &k, &n);
            for i in 0..8 {
                let mut b = n[i].into();
                Aes128Enc::new(&k[i].into()).encrypt_block(&mut b);
                assert_eq!(got[i], <[u8; 16]>::from(b), "lane {i}");
            }
        }
    }
}
