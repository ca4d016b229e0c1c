//! The AES key schedule (FIPS-197 §5.2) for the x86 counter-mode leaves.
//!
//! The `aes` crate does not expose its schedule, so the leaves expand the
//! key themselves, word by word as FIPS-197 §5.2 defines it (Nk = 4, 6 or
//! 8), with `aeskeygenassist` supplying SubWord(RotWord(w)) and SubWord(w)
//! (so no S-box table is indexed by key bytes). Tests check the leaves'
//! output against the `aes` crate for keys of all three sizes.
//!
//! Constant time: the key words go through `aeskeygenassist` and XORs only;
//! the branches are on the word index.

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

/// SubWord(RotWord(w)) and SubWord(w) of one little-endian key word, from
/// `aeskeygenassist` (dwords 1 and 0 of its result for w in dword 1).
#[target_feature(enable = "aes")]
fn sub_words(w: u32) -> (u32, u32) {
    let v = _mm_aeskeygenassist_si128::<0>(_mm_set1_epi32(w as i32));
    (_mm_cvtsi128_si32(_mm_shuffle_epi32::<1>(v)) as u32, _mm_cvtsi128_si32(v) as u32)
}

impl RoundKeys {
    /// FIPS-197 §5.2 for a 16-, 24- or 32-byte key.
    pub(crate) fn new(token: AesNi, key: &[u8]) -> Self {
        let _ = token;
        assert!(matches!(key.len(), 16 | 24 | 32));
        let nk = key.len() / 4;
        let rounds = nk + 6;
        let mut w = [0u32; 60];
        for (wi, k) in w.iter_mut().zip(key.chunks_exact(4)) {
            *wi = u32::from_le_bytes(k.try_into().expect("4 bytes"));
        }
        let mut rcon = 1u32;
        for i in nk..4 * (rounds + 1) {
            let mut t = w[i - 1];
            if i % nk == 0 || (nk == 8 && i % nk == 4) {
                // SAFETY: `token` is an `AesNi`, which `crate::cpu` hands
                // out only after detecting AES-NI on this CPU.
                let (rot_sub, sub) = unsafe { sub_words(t) };
                if i % nk == 0 {
                    t = rot_sub ^ rcon;
                    // xtime: the next power of x in GF(2^8).
                    rcon = (rcon << 1) ^ (0x11b & (rcon >> 7).wrapping_neg());
                } else {
                    t = sub;
                }
            }
            w[i] = w[i - nk] ^ t;
        }
        let mut rk = [[0u8; 16]; 15];
        for (r, words) in rk.iter_mut().zip(w.chunks_exact(4)) {
            for (b, x) in r.chunks_exact_mut(4).zip(words) {
                b.copy_from_slice(&x.to_le_bytes());
            }
        }
        w.zeroize();
        RoundKeys { rk, rounds }
    }
}

#[cfg(test)]
mod tests {
    /// Dropping `RoundKeys` zeroes every round key: no output shows it, so
    /// its drop made a no-op survived mutation testing.
    #[test]
    fn dropping_round_keys_zeroes_them() {
        let Some(token) = crate::cpu::Features::detect().aesni() else {
            let uncapped = crate::cpu::Features::uncapped().aesni().is_some();
            eprintln!("skipped: {}", crate::cpu::Features::explain_missing("AesNi", uncapped));
            return;
        };
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
