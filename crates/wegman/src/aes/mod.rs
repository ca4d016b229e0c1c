//! AES on x86 for every family: the key schedule and counter mode on the
//! widest AES instructions the CPU has (the one place that picks them).
//!
//! - `x86_schedule.rs`: FIPS-197 key expansion with `aeskeygenassist`;
//! - `x86_aesni.rs`: counter mode, eight AES-NI blocks in flight;
//! - `x86_vaes256.rs`: counter mode, VAES on 256-bit registers (two blocks
//!   each, AVX2 encoding; Zen 3, Alder Lake);
//! - `x86_vaes512.rs`: counter mode, VAES on 512-bit registers (four blocks
//!   each; AVX-512 machines).
//!
//! Single blocks (a Poly1305-AES pad, CWC's Kh and MAC pad) stay with the
//! fused one-shot AES-NI leaf (`poly1305aes/backend/x86_aesni.rs`) or the
//! `aes` crate; this module is for runs of blocks. A counter block is
//! `P || i`: a 12-byte prefix (CWC's `0x80 || N`) and a 32-bit big-endian
//! counter that the caller keeps from wrapping.

pub(crate) mod x86_aesni;
pub(crate) mod x86_schedule;
pub(crate) mod x86_vaes256;
pub(crate) mod x86_vaes512;

use crate::cpu::{AesNi, Features, Vaes256, Vaes512};
pub(crate) use x86_schedule::RoundKeys;

/// The counter-mode leaf a key's features allow, widest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CtrLeaf {
    aesni: AesNi,
    wide: Wide,
}

#[derive(Clone, Copy, Debug)]
enum Wide {
    Vaes512(Vaes512),
    Vaes256(Vaes256),
    None,
}

impl CtrLeaf {
    /// The widest leaf `features` allow; `None` without AES-NI.
    pub(crate) fn best(features: Features) -> Option<Self> {
        let aesni = features.aesni()?;
        let wide = if let Some(t) = features.vaes512() {
            Wide::Vaes512(t)
        } else if let Some(t) = features.vaes256() {
            Wide::Vaes256(t)
        } else {
            Wide::None
        };
        Some(CtrLeaf { aesni, wide })
    }

    /// The leaf's label (the benchmark's and the CPU-class table's).
    pub(crate) fn name(self) -> &'static str {
        match self.wide {
            Wide::Vaes512(_) => "vaes512",
            Wide::Vaes256(_) => "vaes256",
            Wide::None => "aesni",
        }
    }

    /// Runs of whole blocks shorter than this are better left to single-block AES.
    pub(crate) fn min_bytes(self) -> usize {
        match self.wide {
            Wide::Vaes512(_) => x86_vaes512::MIN_BYTES,
            Wide::Vaes256(_) => x86_vaes256::MIN_BYTES,
            Wide::None => x86_aesni::MIN_BYTES,
        }
    }

    /// The round keys of a 16-, 24- or 32-byte AES key.
    pub(crate) fn schedule(self, key: &[u8]) -> RoundKeys {
        RoundKeys::new(self.aesni, key)
    }

    /// XOR the keystream blocks `first`, `first + 1`, … of `prefix` into
    /// `data` (a multiple of 16 bytes; `first + data.len() / 16` at most 2^32).
    pub(crate) fn apply(self, keys: &RoundKeys, prefix: &[u8; 12], first: u32, data: &mut [u8]) {
        match self.wide {
            Wide::Vaes512(t) => x86_vaes512::apply(t, keys, prefix, first, data),
            Wide::Vaes256(t) => x86_vaes256::apply(t, keys, prefix, first, data),
            Wide::None => x86_aesni::apply(self.aesni, keys, prefix, first, data),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::RoundKeys;
    use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
    use cipher::{BlockCipherEncrypt, KeyInit};

    fn aes_block(key: &[u8], b: &mut [u8; 16]) {
        let block = b.into();
        match key.len() {
            16 => Aes128Enc::new(key.try_into().unwrap()).encrypt_block(block),
            24 => Aes192Enc::new(key.try_into().unwrap()).encrypt_block(block),
            _ => Aes256Enc::new(key.try_into().unwrap()).encrypt_block(block),
        }
    }

    type Leaf<'a> = &'a dyn Fn(&RoundKeys, &[u8; 12], u32, &mut [u8]);

    /// A counter-mode leaf against the `aes` crate: random keys of all three
    /// sizes, every block count around its steps (1, 2, 8 and 16 blocks per
    /// step in the three leaves), counters up to the top of the 32-bit range.
    pub(crate) fn check_ctr_leaf(leaf: Leaf<'_>) {
        let aesni = crate::cpu::Features::detect().aesni().expect("every wide AES token comes with AES-NI");
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let counts = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 35, 36, 48, 64, 67, 100];
        for klen in [16, 24, 32] {
            for round in 0..2 * counts.len() {
                let key: Vec<u8> = (0..klen).map(|_| next() as u8).collect();
                let prefix: [u8; 12] = core::array::from_fn(|_| next() as u8);
                let keys = RoundKeys::new(aesni, &key);
                let blocks = counts[round % counts.len()];
                let first = if round % 3 == 0 { u32::MAX - blocks as u32 + 1 } else { next() as u32 % 1000 };
                let data: Vec<u8> = (0..16 * blocks).map(|_| next() as u8).collect();
                let mut got = data.clone();
                leaf(&keys, &prefix, first, &mut got);
                for (i, (g, d)) in got.chunks_exact(16).zip(data.chunks_exact(16)).enumerate() {
                    let mut b = [0u8; 16];
                    b[..12].copy_from_slice(&prefix);
                    b[12..].copy_from_slice(&(first + i as u32).to_be_bytes());
                    aes_block(&key, &mut b);
                    let want: Vec<u8> = b.iter().zip(d).map(|(k, m)| k ^ m).collect();
                    assert_eq!(g, &want[..], "key {klen} B, {blocks} blocks from {first}, block {i}");
                }
            }
        }
    }
}
