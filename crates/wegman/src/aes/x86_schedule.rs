//! The AES key schedule (FIPS-197 §5.2) for the x86 counter-mode leaves.
//!
//! The `aes` crate does not expose its schedule, so the leaves expand the
//! key themselves, with `aeskeygenassist` supplying SubWord(RotWord(w)) and
//! SubWord(w) (so no S-box table is indexed by key bytes). 16- and 32-byte
//! keys take four words per step in one register (the word-by-word XOR
//! chain of §5.2 is three shifted XORs of the previous round key); 24-byte
//! keys go word by word. Tests check all three against FIPS-197 Appendix A
//! and, through the leaves, against the `aes` crate.
//!
//! Constant time: the key words go through `aeskeygenassist`, shuffles and
//! XORs only; the branches are on the key length and the word index.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::cpu::AesNi;

/// The expanded key, one 16-byte round key per entry (11, 13 or 15 used);
/// wiped on drop.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    pub(super) rk: [[u8; 16]; 15],
    pub(super) rounds: usize,
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.rk.as_flattened_mut().zeroize();
    }
}

/// One §5.2 step on four words: `prev` is the round key four words back,
/// `t` the transformed word (SubWord(RotWord(w)) ^ Rcon, or SubWord(w))
/// in all four dwords. Word j of the result is t ^ prev[0] ^ … ^ prev[j].
#[target_feature(enable = "aes")]
#[inline]
fn step(prev: __m128i, t: __m128i) -> __m128i {
    let mut k = prev;
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, t)
}

/// Store one round key.
#[target_feature(enable = "aes")]
#[inline]
fn put(slot: &mut [u8; 16], k: __m128i) {
    // SAFETY: `slot` is 16 writable bytes; an unaligned store.
    unsafe { _mm_storeu_si128(slot.as_mut_ptr().cast(), k) }
}

/// Load one 16-byte key half.
#[target_feature(enable = "aes")]
#[inline]
fn get(bytes: &[u8]) -> __m128i {
    let b: &[u8; 16] = bytes.try_into().expect("16 bytes");
    // SAFETY: `b` is 16 readable bytes; an unaligned load.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// AES-128: ten steps, each SubWord(RotWord) of the last word (dword 3 of
/// `aeskeygenassist`'s second half) with its Rcon.
#[target_feature(enable = "aes")]
fn expand128(key: &[u8], rk: &mut [[u8; 16]; 15]) {
    let mut k = get(key);
    put(&mut rk[0], k);
    macro_rules! round {
        ($i:expr, $rcon:expr) => {
            k = step(k, _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k)));
            put(&mut rk[$i], k);
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
}

/// AES-256: the even round keys from SubWord(RotWord) of the odd ones with
/// Rcon, the odd from SubWord (dword 2 of `aeskeygenassist`) of the even.
#[target_feature(enable = "aes")]
fn expand256(key: &[u8], rk: &mut [[u8; 16]; 15]) {
    let (mut a, mut b) = (get(&key[..16]), get(&key[16..]));
    put(&mut rk[0], a);
    put(&mut rk[1], b);
    macro_rules! even {
        ($i:expr, $rcon:expr) => {
            a = step(a, _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(b)));
            put(&mut rk[$i], a);
        };
    }
    macro_rules! odd {
        ($i:expr) => {
            b = step(b, _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(a)));
            put(&mut rk[$i], b);
        };
    }
    even!(2, 0x01);
    odd!(3);
    even!(4, 0x02);
    odd!(5);
    even!(6, 0x04);
    odd!(7);
    even!(8, 0x08);
    odd!(9);
    even!(10, 0x10);
    odd!(11);
    even!(12, 0x20);
    odd!(13);
    even!(14, 0x40);
}

/// AES-192, word by word as §5.2 writes it (Nk = 6 does not align with the
/// four-word round keys).
#[target_feature(enable = "aes")]
fn expand192(key: &[u8], rk: &mut [[u8; 16]; 15]) {
    const NK: usize = 6;
    let mut w = [0u32; 52];
    for (wi, k) in w.iter_mut().zip(key.chunks_exact(4)) {
        *wi = u32::from_le_bytes(k.try_into().expect("4 bytes"));
    }
    let mut rcon = 1u32;
    for i in NK..w.len() {
        let mut t = w[i - 1];
        if i % NK == 0 {
            let v = _mm_aeskeygenassist_si128::<0>(_mm_set1_epi32(t as i32));
            t = _mm_cvtsi128_si32(_mm_shuffle_epi32::<1>(v)) as u32 ^ rcon;
            // The next power of x in GF(2^8): AES-192 uses eight, 0x01 …
            // 0x80, so the doubling never needs reducing.
            rcon <<= 1;
        }
        w[i] = w[i - NK] ^ t;
    }
    for (r, words) in rk.iter_mut().zip(w.chunks_exact(4)) {
        for (b, x) in r.chunks_exact_mut(4).zip(words) {
            b.copy_from_slice(&x.to_le_bytes());
        }
    }
    w.zeroize();
}

impl RoundKeys {
    /// 10, 12 or 14.
    pub(crate) fn rounds(&self) -> usize {
        self.rounds
    }

    /// FIPS-197 §5.2 for a 16-, 24- or 32-byte key.
    // Built where it is returned (and inlined into the key's constructor),
    // so the round keys are not copied out of a local: a copy of freshly
    // stored round keys stalls on store forwarding.
    #[inline(always)]
    pub(crate) fn new(token: AesNi, key: &[u8]) -> Self {
        let _ = token;
        let mut out = RoundKeys { rk: [[0u8; 16]; 15], rounds: key.len() / 4 + 6 };
        // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands out only
        // after detecting AES-NI on this CPU.
        unsafe {
            match key.len() {
                16 => expand128(key, &mut out.rk),
                24 => expand192(key, &mut out.rk),
                32 => expand256(key, &mut out.rk),
                n => panic!("an AES key is 16, 24 or 32 bytes, not {n}"),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    /// FIPS-197 Appendix A.1–A.3: the first and last four words of each
    /// expanded key (the leaves' tests compare every round key with the
    /// `aes` crate through encryption).
    #[test]
    fn the_schedule_matches_fips197_appendix_a() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        let word = |k: &[u8; 16], j: usize| u32::from_be_bytes(k[4 * j..4 * j + 4].try_into().unwrap());
        let cases: [(&str, [u32; 4]); 3] = [
            ("2b7e151628aed2a6abf7158809cf4f3c", [0xd014f9a8, 0xc9ee2589, 0xe13f0cc8, 0xb6630ca6]),
            ("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", [0xe98ba06f, 0x448c773c, 0x8ecc7204, 0x01002202]),
            (
                "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                [0xfe4890d1, 0xe6188d0b, 0x046df344, 0x706c631e],
            ),
        ];
        for (hex, last) in cases {
            let key = hex::decode(hex).unwrap();
            let keys = super::RoundKeys::new(token, &key);
            assert_eq!(keys.rounds, key.len() / 4 + 6);
            assert_eq!(&keys.rk[0][..], &key[..16]);
            let got: Vec<u32> = (0..4).map(|j| word(&keys.rk[keys.rounds], j)).collect();
            assert_eq!(got, last, "{}-byte key", key.len());
        }
    }

    /// Dropping `RoundKeys` zeroes every round key: no output shows it, so
    /// its drop made a no-op survived mutation testing.
    #[test]
    fn dropping_round_keys_zeroes_them() {
        let Some(token) = crate::cpu::token_for_test("AesNi", crate::cpu::Features::aesni) else { return };
        let keys = super::RoundKeys::new(token, &[0x5a; 32]);
        assert!(keys.rk.iter().all(|r| r.iter().any(|&b| b != 0)), "every round key has a byte to zero");
        let mut p = core::mem::MaybeUninit::new(keys);
        // SAFETY: `p` holds an initialised `RoundKeys`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { p.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `p`'s, and its round
        // keys are plain bytes, valid for any bits: read through a raw
        // pointer, with no reference to the dropped `RoundKeys`.
        let rk = unsafe { (&raw const (*p.as_ptr()).rk).read() };
        assert_eq!(rk, [[0; 16]; 15]);
    }
}
