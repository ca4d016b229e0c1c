//! The one AES key type of every family: a 16-, 24- or 32-byte key
//! expanded once for the code the features allow.
//!
//! With AES-NI the key is FIPS-197 round keys (`x86_schedule.rs`, 240
//! bytes inline) that the AES-NI leaf encrypts blocks with and, for runs of
//! at least [`Key::ctr`]'s threshold, the widest counter-mode leaf (AES-NI,
//! VAES-256 or VAES-512) too: one copy of the key, built when the key is
//! made. Without AES-NI (or with features capped below it) it is the `aes`
//! crate's key (its bitsliced schedule is 704–960 bytes; AES-192's and
//! AES-256's boxed), which runs every operation.

#[cfg(target_arch = "x86_64")]
use aead::inout::InOutBuf;
use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
use cipher::{BlockCipherEncrypt, KeyInit};

#[cfg(target_arch = "x86_64")]
use super::{RoundKeys, x86_aesni, x86_vaes256, x86_vaes512};
#[cfg(target_arch = "x86_64")]
use crate::backend::AesWide;
#[cfg(target_arch = "x86_64")]
use crate::cpu::AesNi;
use crate::cpu::Features;

/// An AES key, expanded; wiped on drop.
//
// The AES-NI round keys and the `aes` crate's AES-128 key inline: a key
// among many is one run of cache lines, with no allocation (with the larger
// AES-192/256 keys inline too, a Poly1305-AES `ExpandedKey` grew from 1,344
// to 1,664 bytes and a 16-byte message under it took 10–15 TSC ticks more,
// hot, on Zen 4). Those two boxed: only CWC makes them, without AES-NI.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum Key {
    /// Round keys for the AES-NI leaves, and the widest counter-mode leaf.
    #[cfg(target_arch = "x86_64")]
    Native {
        keys: RoundKeys,
        aesni: AesNi,
        wide: AesWide,
    },
    /// The `aes` crate (which makes its own choice of AES-NI or bitsliced
    /// code), each wiped on drop (the crate's `zeroize` feature).
    Aes128(Aes128Enc),
    Aes192(Box<Aes192Enc>),
    Aes256(Box<Aes256Enc>),
}

impl Key {
    /// Expand a 16-, 24- or 32-byte key for the best code `features`
    /// allow; `None` for any other length.
    // Inlined into the callers' constructors, so the schedule is built where
    // it stays instead of being copied on each return.
    #[inline(always)]
    pub(crate) fn new(key: &[u8], features: Features) -> Option<Self> {
        if !matches!(key.len(), 16 | 24 | 32) {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some((aesni, wide)) = crate::backend::aes(features) {
            return Some(Key::Native { keys: RoundKeys::new(aesni, key), aesni, wide });
        }
        let _ = features;
        Some(match key.len() {
            16 => Key::Aes128(Aes128Enc::new(key.try_into().expect("16"))),
            24 => Key::Aes192(Box::new(Aes192Enc::new(key.try_into().expect("24")))),
            _ => Key::Aes256(Box::new(Aes256Enc::new(key.try_into().expect("32")))),
        })
    }

    /// An AES-128 key.
    #[inline(always)]
    pub(crate) fn new128(key: &[u8; 16], features: Features) -> Self {
        Self::new(key, features).expect("16 bytes")
    }

    /// The key's length in bytes: 16, 24 or 32.
    pub(crate) fn len(&self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { keys, .. } => (keys.rounds - 6) * 4,
            Key::Aes128(_) => 16,
            Key::Aes192(_) => 24,
            Key::Aes256(_) => 32,
        }
    }

    /// AES_K(block), in place: the caller's buffer is the only copy of the
    /// output, so the caller can wipe it.
    #[inline]
    pub(crate) fn encrypt(&self, block: &mut [u8; 16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { keys, aesni, .. } => x86_aesni::block(*aesni, keys, block),
            Key::Aes128(c) => c.encrypt_block(block.into()),
            Key::Aes192(c) => c.encrypt_block(block.into()),
            Key::Aes256(c) => c.encrypt_block(block.into()),
        }
    }

    /// AES_K of each block, in place.
    #[inline]
    pub(crate) fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { keys, aesni, .. } => x86_aesni::blocks(*aesni, keys, blocks),
            Key::Aes128(c) => c.encrypt_blocks(cipher::Array::cast_slice_from_core_mut(blocks)),
            Key::Aes192(c) => c.encrypt_blocks(cipher::Array::cast_slice_from_core_mut(blocks)),
            Key::Aes256(c) => c.encrypt_blocks(cipher::Array::cast_slice_from_core_mut(blocks)),
        }
    }

    /// The code that runs long counter-mode runs: a leaf of this module, or
    /// the `aes` crate.
    pub(crate) fn ctr_name(&self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::Vaes512(_), .. } => "vaes512",
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::Vaes256(_), .. } => "vaes256",
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::None, .. } => "aesni",
            _ => "aes-crate",
        }
    }

    /// Counter mode on the widest leaf, for a run long enough to pay for
    /// it: the input's whole blocks at the start of `buf` XOR the keystream
    /// blocks `first`, `first + 1`, … of `prefix` (`P || i`, i a 32-bit
    /// big-endian counter the caller keeps below 2^32), written to the
    /// output (the same bytes, or others). Returns how many bytes it did: 0
    /// for a shorter run or a portable key, which the caller runs through
    /// [`encrypt_blocks`](Self::encrypt_blocks).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn ctr(&self, prefix: &[u8; 12], first: u32, buf: InOutBuf<'_, '_, u8>) -> usize {
        let Key::Native { keys, aesni, wide } = self else { return 0 };
        let n = buf.len() & !15;
        if n < self.ctr_min_bytes() {
            return 0;
        }
        let buf = buf.split_at(n).0;
        match *wide {
            AesWide::Vaes512(t) => x86_vaes512::apply(t, keys, prefix, first, buf),
            AesWide::Vaes256(t) => x86_vaes256::apply(t, keys, prefix, first, buf),
            AesWide::None => x86_aesni::apply(*aesni, keys, prefix, first, buf),
        }
        n
    }

    /// [`ctr`](Self::ctr) from `src` to `dst` (`keep.len()` bytes, a
    /// multiple of 16), also storing each input block, as the leaf loaded
    /// it, at the same offset of `keep`: the input is read once, by the
    /// leaf. Returns whether it ran: `false` (nothing read or written) for a
    /// run shorter than the leaf takes or a portable key.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `keep.len()` bytes, the same or
    /// disjoint (another thread may write either meanwhile);
    /// `first + keep.len() / 16` at most 2^32.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) unsafe fn ctr_keeping(
        &self,
        prefix: &[u8; 12],
        first: u32,
        src: *const u8,
        dst: *mut u8,
        keep: &mut [core::mem::MaybeUninit<u8>],
    ) -> bool {
        let Key::Native { keys, aesni, wide } = self else { return false };
        if keep.len() < self.ctr_min_bytes() {
            return false;
        }
        // SAFETY: the caller's contract, which is each leaf's.
        unsafe {
            match *wide {
                AesWide::Vaes512(t) => x86_vaes512::apply_keeping(t, keys, prefix, first, src, dst, keep),
                AesWide::Vaes256(t) => x86_vaes256::apply_keeping(t, keys, prefix, first, src, dst, keep),
                AesWide::None => x86_aesni::apply_keeping(*aesni, keys, prefix, first, src, dst, keep),
            }
        }
        true
    }

    /// The round keys and the token of the 512-bit VAES leaf, if this key
    /// runs it (CWC's counter mode and hash in one loop take its keystream).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn vaes512(&self) -> Option<(&RoundKeys, crate::cpu::Vaes512)> {
        match self {
            Key::Native { keys, wide: AesWide::Vaes512(t), .. } => Some((keys, *t)),
            _ => None,
        }
    }

    /// The shortest run [`ctr`](Self::ctr) takes (shorter ones are not worth
    /// the leaf's set-up): the leaf's threshold, or `usize::MAX` for a
    /// portable key.
    #[inline]
    pub(crate) fn ctr_min_bytes(&self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::Vaes512(_), .. } => x86_vaes512::MIN_BYTES,
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::Vaes256(_), .. } => x86_vaes256::MIN_BYTES,
            #[cfg(target_arch = "x86_64")]
            Key::Native { wide: AesWide::None, .. } => x86_aesni::MIN_BYTES,
            _ => usize::MAX,
        }
    }

    /// Start loading the key (one among many is not in cache).
    #[inline]
    pub(crate) fn prefetch(&self) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Key::Native { keys, .. } => crate::prefetch::lines(keys),
            Key::Aes128(c) => crate::prefetch::lines(c),
            Key::Aes192(c) => crate::prefetch::lines(&**c),
            Key::Aes256(c) => crate::prefetch::lines(&**c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Key;

    /// Every operation of keys of all three lengths, made for every level of
    /// this CPU's features, against the `aes` crate: single blocks, runs of
    /// blocks around the eight-block step, and counter mode around every
    /// leaf's threshold, its output the keystream or nothing.
    #[test]
    fn every_operation_equals_the_aes_crate_at_every_level() {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1du64);
        for features in crate::cpu::levels_for_test() {
            for len in [16, 24, 32] {
                let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                let key = Key::new(&bytes, features).expect("a valid length");
                assert_eq!(key.len(), len);
                for count in [0, 1, 2, 7, 8, 9, 15, 16, 17, 33] {
                    let data: Vec<[u8; 16]> = (0..count).map(|_| core::array::from_fn(|_| next() as u8)).collect();
                    let mut got = data.clone();
                    key.encrypt_blocks(&mut got);
                    for (i, (g, d)) in got.iter().zip(&data).enumerate() {
                        let mut want = *d;
                        super::super::tests::aes_block(&bytes, &mut want);
                        assert_eq!(g, &want, "{features:?}, {len}-byte key, block {i} of {count}");
                        let mut one = *d;
                        key.encrypt(&mut one);
                        assert_eq!(one, want);
                    }
                }
                #[cfg(target_arch = "x86_64")]
                for blocks in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65] {
                    let prefix: [u8; 12] = core::array::from_fn(|_| next() as u8);
                    let first = next() as u32 % 1000;
                    let data: Vec<u8> = (0..16 * blocks + 5).map(|_| next() as u8).collect();
                    let mut got = data.clone();
                    let done = key.ctr(&prefix, first, got.as_mut_slice().into());
                    // A run at the leaf's threshold or longer is the leaf's,
                    // whole; a shorter one (any for a portable key) is left.
                    let want_done = if 16 * blocks >= key.ctr_min_bytes() { 16 * blocks } else { 0 };
                    assert_eq!(done, want_done, "{features:?}, {len}-byte key, {blocks} blocks");
                    // The leaves' thresholds: 128 bytes (AES-NI, VAES-256) or 256
                    // (VAES-512); a portable key never reaches a leaf.
                    let min = key.ctr_min_bytes();
                    assert!(if matches!(key, Key::Native { .. }) {
                        (128..=256).contains(&min)
                    } else {
                        min == usize::MAX
                    });
                    for (i, (g, d)) in got.chunks(16).zip(data.chunks(16)).enumerate() {
                        let mut b = [0u8; 16];
                        b[..12].copy_from_slice(&prefix);
                        b[12..].copy_from_slice(&(first + i as u32).to_be_bytes());
                        super::super::tests::aes_block(&bytes, &mut b);
                        let want: Vec<u8> =
                            if 16 * i < done { b.iter().zip(d).map(|(k, m)| k ^ m).collect() } else { d.to_vec() };
                        assert_eq!(g, &want[..], "{features:?}, {len}-byte key, {blocks} blocks, block {i}");
                    }
                }
            }
            assert!(Key::new(&[0; 15], features).is_none());
            assert!(Key::new(&[0; 33], features).is_none());
        }
    }

    /// The label names the leaf the key runs: the portable key names the
    /// `aes` crate, a native one the widest leaf its features allow.
    #[test]
    fn the_counter_mode_label_follows_the_features() {
        for features in crate::cpu::levels_for_test() {
            let key = Key::new128(&[5; 16], features);
            #[cfg(target_arch = "x86_64")]
            let want = match crate::backend::aes(features) {
                Some((_, crate::backend::AesWide::Vaes512(_))) => "vaes512",
                Some((_, crate::backend::AesWide::Vaes256(_))) => "vaes256",
                Some((_, crate::backend::AesWide::None)) => "aesni",
                None => "aes-crate",
            };
            #[cfg(not(target_arch = "x86_64"))]
            let want = "aes-crate";
            assert_eq!(key.ctr_name(), want, "{features:?}");
        }
    }
}
