//! AES-128 under keys used once, with AES-NI: the key schedule computed
//! round by round while the block is encrypted, the round keys never
//! leaving registers (nothing stored, so nothing to wipe). For one-shot
//! Poly1305-AES pads ([`pad`]), batches of them under eight keys
//! ([`pads8`]) and the one-shot MMH key stream ([`counter_blocks_and_pad`]).
//!
//! A one-shot tag needs one AES block under a key it has never expanded;
//! expanding the whole schedule into memory first (and wiping it after)
//! was most of a short message's cost. Round i's key comes from round
//! i−1's, w4..w7 = prefix-XOR of w0..w3, each XORed with
//! T = SubWord(RotWord(w3)) ⊕ rcon_i. T is computed without
//! `aeskeygenassist` (slow on several cores): `pshufb` broadcasts
//! RotWord(w3) into all four columns, and `aesenclast` with round key
//! rcon_i in every column applies SubBytes (ShiftRows moves bytes between
//! identical columns, so it changes nothing) and XORs rcon. The prefix XOR
//! is three byte-shifts by 4 and XORs. `x86_fused256.rs` and
//! `x86_fused512.rs` run the same steps on two and four keys per register.
//!
//! Tested equal to the `aes` crate on FIPS-197's vector and on random keys
//! and nonces; AES-NI instructions run in time independent of their data,
//! and nothing here branches or indexes on a secret.

use core::arch::x86_64::*;

use crate::cpu::AesNi;

/// The eight-key pad leaf of one wide register (`x86_fused256.rs`: two keys
/// a register, `x86_fused512.rs`: four): [`pads8`]'s steps, with every
/// register holding `keys` schedules side by side. Defines `pads8` (the
/// leaf's entry), `next` (the round-key step of all of a register's keys)
/// and `encrypt8`. The leaf supplies `load(&[&[u8; 16]]) -> V`, its first
/// `keys` blocks one per 128-bit lane.
macro_rules! pads8_leaf {
    (
        token: $Token:ty,
        features: $features:literal,
        vector: $V:ty,
        keys: $keys:literal,
        set1: $set1:path,
        xor: $xor:path,
        shuffle: $shuffle:path,
        bslli4: $bslli4:expr,
        bslli8: $bslli8:expr,
        aesenclast: $last:path,
        aesenc: $enc:path,
        store: $store:path $(,)?
    ) => {
        /// AES-128_{k[i]}(n[i]) for i in 0..8 into `out`, `between(i)` after
        /// the (i+1)-th of the nine middle rounds, as `x86_fused::pads8` does.
        pub(crate) fn pads8<B: super::Between>(
            token: $Token,
            k: [&[u8; 16]; 8],
            n: [&[u8; 16]; 8],
            out: &mut super::Blocks8,
            between: B,
        ) {
            // SAFETY: `token` is the leaf's CPU-feature token, which
            // `crate::cpu` hands out only after detecting every feature
            // `encrypt8` enables on this CPU.
            unsafe { encrypt8(token, k, n, out, between) }
        }

        /// The next round key of a register's keys, with round constant
        /// `rcon` in every column.
        #[target_feature(enable = $features)]
        #[inline]
        fn next(k: $V, rcon: $V) -> $V {
            let rot = $shuffle(k, $set1(0x0c0f_0e0d));
            let t = $last(rot, rcon);
            let k = $xor(k, $bslli4(k));
            let k = $xor(k, $bslli8(k));
            $xor(k, t)
        }

        #[target_feature(enable = $features)]
        fn encrypt8<B: super::Between>(
            _proof: $Token,
            k: [&[u8; 16]; 8],
            n: [&[u8; 16]; 8],
            out: &mut super::Blocks8,
            mut between: B,
        ) {
            // Spill slots on their alignment wherever the stack lands (crate::frame).
            let _frame = crate::frame::Align64::pin();
            let mut key: [$V; 8 / $keys] = core::array::from_fn(|i| load(&k[$keys * i..]));
            let mut state: [$V; 8 / $keys] = core::array::from_fn(|i| $xor(load(&n[$keys * i..]), key[i]));
            for (round, rcon) in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b].into_iter().enumerate() {
                let rc = $set1(rcon);
                for (s, k) in state.iter_mut().zip(key.iter_mut()) {
                    *k = next(*k, rc);
                    *s = $enc(*s, *k);
                }
                between.round(round);
            }
            let rc = $set1(0x36);
            let op = out.0.as_mut_ptr().cast::<$V>();
            for (i, (s, k)) in state.into_iter().zip(key).enumerate() {
                // SAFETY: `out` is 128 contiguous writable bytes, 64-byte
                // aligned: 8 / keys aligned stores of one register each.
                unsafe { $store(op.add(i).cast(), $last(s, next(k, rc))) };
            }
        }
    };
}

/// AES-128_k(n), with `k` and `n` as the 16 bytes of the paper's layout.
pub(crate) fn pad(token: AesNi, k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only after
    // detecting AES-NI and SSSE3 on this CPU.
    unsafe { encrypt(token, k, n) }
}

/// AES-128_k(i) for the counter blocks i = 0 .. N (i as 16 little-endian
/// bytes), the schedule fused in the same way: each round key, made once,
/// is applied to all N states (their `aesenc`s overlap). In the same pass, [`pad`] of `n` under a second key
/// `kp`: two independent key-schedule chains whose rounds interleave. For
/// the one-shot MMH MAC, whose level-0 key is the first N blocks of AES_ks
/// in counter mode and whose pad is AES_kp(nonce).
pub(crate) fn counter_blocks_and_pad<const N: usize>(
    token: AesNi,
    k: &[u8; 16],
    kp: &[u8; 16],
    n: &[u8; 16],
) -> ([[u8; 16]; N], [u8; 16]) {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only after
    // detecting AES-NI and SSSE3 on this CPU.
    unsafe { encrypt_counters(token, k, kp, n) }
}

/// AES-128_{k[i]}(n[i]) for i in 0..8 into `out`: eight fused schedules
/// whose rounds interleave (a lone schedule is a chain of ten dependent
/// rounds; eight independent chains keep both AES units busy). After the
/// (i+1)-th of the nine middle rounds, `between(i)` runs (i = 0..9): the
/// caller's scalar work, issued between the vector rounds so the two kinds
/// of unit work at once (see `poly1305aes/batch.rs`).
pub(crate) fn pads8<B: super::Between>(
    token: AesNi,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    between: B,
) {
    // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only after
    // detecting AES-NI and SSSE3 on this CPU.
    unsafe { encrypt8(token, k, n, out, between) }
}

#[target_feature(enable = "aes,ssse3,sse2")]
fn encrypt8<B: super::Between>(
    _proof: AesNi,
    k: [&[u8; 16]; 8],
    n: [&[u8; 16]; 8],
    out: &mut super::Blocks8,
    mut between: B,
) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    // SAFETY: every `k[i]` and `n[i]` is 16 readable bytes; unaligned loads.
    let mut key = k.map(|k| unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
    // SAFETY: as above.
    let block = n.map(|n| unsafe { _mm_loadu_si128(n.as_ptr().cast()) });
    let mut state: [__m128i; 8] = core::array::from_fn(|i| _mm_xor_si128(block[i], key[i]));
    for (round, rcon) in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b].into_iter().enumerate() {
        for (s, k) in state.iter_mut().zip(key.iter_mut()) {
            *k = next(*k, rcon);
            *s = _mm_aesenc_si128(*s, *k);
        }
        between.round(round);
    }
    for ((o, s), k) in out.0.iter_mut().zip(state).zip(key) {
        // SAFETY: `o` is 16 writable bytes; unaligned store.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), _mm_aesenclast_si128(s, next(k, 0x36))) };
    }
}

#[target_feature(enable = "aes,ssse3,sse2")]
fn encrypt_counters<const N: usize>(
    _proof: AesNi,
    k: &[u8; 16],
    kp: &[u8; 16],
    n: &[u8; 16],
) -> ([[u8; 16]; N], [u8; 16]) {
    // SAFETY: `k`, `kp` and `n` are 16 readable bytes each; unaligned loads.
    let (mut key, mut key2, block2) = unsafe {
        (_mm_loadu_si128(k.as_ptr().cast()), _mm_loadu_si128(kp.as_ptr().cast()), _mm_loadu_si128(n.as_ptr().cast()))
    };
    let mut state = [_mm_setzero_si128(); N];
    for (i, s) in state.iter_mut().enumerate() {
        *s = _mm_xor_si128(_mm_set_epi64x(0, i as i64), key);
    }
    let mut state2 = _mm_xor_si128(block2, key2);
    for rcon in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b] {
        key = next(key, rcon);
        key2 = next(key2, rcon);
        for s in state.iter_mut() {
            *s = _mm_aesenc_si128(*s, key);
        }
        state2 = _mm_aesenc_si128(state2, key2);
    }
    key = next(key, 0x36);
    key2 = next(key2, 0x36);
    let mut out = [[0u8; 16]; N];
    for (o, s) in out.iter_mut().zip(state) {
        // SAFETY: `o` is 16 writable bytes; unaligned store.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), _mm_aesenclast_si128(s, key)) };
    }
    let mut p = [0u8; 16];
    // SAFETY: `p` is 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(p.as_mut_ptr().cast(), _mm_aesenclast_si128(state2, key2)) };
    (out, p)
}

/// The next round key after `k`, with round constant `rcon` in every column.
#[target_feature(enable = "aes,ssse3,sse2")]
#[inline]
pub(super) fn next(k: __m128i, rcon: i32) -> __m128i {
    // RotWord(w3) in every column: bytes 13, 14, 15, 12 of each word
    let rot = _mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f_0e0d));
    let t = _mm_aesenclast_si128(rot, _mm_set1_epi32(rcon));
    let mut k = k;
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    k = _mm_xor_si128(k, _mm_slli_si128::<8>(k));
    _mm_xor_si128(k, t)
}

#[target_feature(enable = "aes,ssse3,sse2")]
fn encrypt(_proof: AesNi, k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
    // SAFETY: `k` and `n` are 16 readable bytes each; unaligned loads.
    let (mut key, block) = unsafe { (_mm_loadu_si128(k.as_ptr().cast()), _mm_loadu_si128(n.as_ptr().cast())) };
    let mut state = _mm_xor_si128(block, key);
    for rcon in [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b] {
        key = next(key, rcon);
        state = _mm_aesenc_si128(state, key);
    }
    key = next(key, 0x36);
    state = _mm_aesenclast_si128(state, key);
    let mut out = [0u8; 16];
    // SAFETY: `out` is 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), state) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::Aes128Enc;
    use cipher::{BlockCipherEncrypt, KeyInit};

    fn reference(k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
        let mut b = (*n).into();
        Aes128Enc::new(&(*k).into()).encrypt_block(&mut b);
        b.into()
    }

    #[test]
    fn counter_blocks_equal_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        let mut next = crate::xorshift(0x0123_4567_89ab_cdef);
        for _ in 0..500 {
            let k: [u8; 16] = core::array::from_fn(|_| next() as u8);
            let (kp, n) = (k.map(|b| b.rotate_left(3) ^ 0x5a), k.map(|b| b.wrapping_mul(7)));
            let (got, p) = counter_blocks_and_pad::<17>(token, &k, &kp, &n);
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, reference(&k, &(i as u128).to_le_bytes()), "block {i}");
            }
            assert_eq!(p, reference(&kp, &n));
            let (eight, p8) = counter_blocks_and_pad::<8>(token, &k, &kp, &n);
            assert_eq!((eight, p8), (got[..8].try_into().unwrap(), p));
        }
    }

    #[test]
    fn eight_pads_equal_the_aes_crate_and_call_between_nine_times() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        super::super::tests::check_pads8(&|k, n, out, between| pads8(token, k, n, out, between));
    }

    #[test]
    fn equals_the_aes_crate() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        // FIPS-197 appendix C.1
        let k: [u8; 16] = core::array::from_fn(|i| i as u8);
        let n: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
        let want = [0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a];
        assert_eq!(pad(token, &k, &n), want);
        // pseudo-random keys and nonces, and the extremes
        let mut next = crate::xorshift(0x0123_4567_89ab_cdefu64);
        for i in 0..20_000 {
            let mut k = [0u8; 16];
            let mut n = [0u8; 16];
            k.iter_mut().chain(n.iter_mut()).for_each(|b| *b = next() as u8);
            if i == 0 {
                k = [0xff; 16];
                n = [0xff; 16];
            }
            if i == 1 {
                k = [0; 16];
                n = [0; 16];
            }
            assert_eq!(pad(token, &k, &n), reference(&k, &n), "k {k:02x?} n {n:02x?}");
        }
    }
}
