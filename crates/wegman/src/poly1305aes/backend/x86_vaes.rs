//! Eight AES_k(n) at once, for batches of one-shot tags under eight
//! different keys: the fused key schedule of `x86_aesni.rs`, four keys per
//! 512-bit register (VAES works on each 128-bit lane; `vpshufb` and the
//! byte shifts stay inside lanes too), two registers.
//!
//! One key's schedule is a chain of ten dependent rounds; eight
//! independent chains in two registers cost about what one did. Tested
//! equal to the `aes` crate on random keys and nonces, like `x86_aesni.rs`.

use core::arch::x86_64::*;

use crate::cpu::Vaes;

/// AES-128_{k[i]}(n[i]) for i in 0..8.
pub(crate) fn pads8(token: Vaes, k: &[[u8; 16]; 8], n: &[[u8; 16]; 8]) -> [[u8; 16]; 8] {
    // SAFETY: `token` is a `Vaes`, which `crate::cpu` hands out only after
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

#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn encrypt8(_proof: Vaes, k: &[[u8; 16]; 8], n: &[[u8; 16]; 8]) -> [[u8; 16]; 8] {
    let (kp, np) = (k.as_ptr().cast::<u8>(), n.as_ptr().cast::<u8>());
    // SAFETY: `k` and `n` are 128 contiguous readable bytes each: two
    // unaligned 64-byte loads from each.
    let (mut ka, mut kb, na, nb) = unsafe {
        (
            _mm512_loadu_si512(kp.cast()),
            _mm512_loadu_si512(kp.add(64).cast()),
            _mm512_loadu_si512(np.cast()),
            _mm512_loadu_si512(np.add(64).cast()),
        )
    };
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
    sa = _mm512_aesenclast_epi128(sa, ka);
    sb = _mm512_aesenclast_epi128(sb, kb);
    let mut out = [[0u8; 16]; 8];
    let op = out.as_mut_ptr().cast::<u8>();
    // SAFETY: `out` is 128 contiguous writable bytes: two 64-byte stores.
    unsafe {
        _mm512_storeu_si512(op.cast(), sa);
        _mm512_storeu_si512(op.add(64).cast(), sb);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::Aes128Enc;
    use cipher::{BlockCipherEncrypt, KeyInit};

    #[test]
    fn equals_the_aes_crate() {
        let Some(token) = crate::cpu::Features::detect().vaes() else {
            assert!(cfg!(wegman_backend = "portable") || !std::is_x86_feature_detected!("vaes"));
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
