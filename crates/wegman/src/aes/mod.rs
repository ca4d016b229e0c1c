//! AES on x86 for every family, on the widest AES instructions the CPU
//! has: the one place that picks them.
//!
//! Keys expanded once ([`Key`], `key.rs`: every family's key, its blocks
//! and CWC's counter mode):
//! - `x86_schedule.rs`: FIPS-197 key expansion with `aeskeygenassist`;
//! - `x86_aesni.rs`: blocks, and counter mode, eight AES-NI blocks in flight;
//! - `x86_vaes256.rs`: counter mode, VAES on 256-bit registers (two blocks
//!   each, AVX2 encoding; Zen 3, Alder Lake);
//! - `x86_vaes512.rs`: counter mode, VAES on 512-bit registers (four blocks
//!   each; AVX-512 machines), and its keystream for CWC's one loop of
//!   counter mode and hash ([`Keystream`]).
//!
//! Keys used once (Poly1305-AES's AES_k(n) for a key with no cached
//! schedule, one or eight at a time; MMH's one-shot key stream), the key
//! schedule fused into the rounds, [`PadLeaf`]:
//! - `x86_fused.rs`: AES-NI, one key, or eight interleaved chains;
//! - `x86_fused256.rs`: eight keys, two per 256-bit VAES register;
//! - `x86_fused512.rs`: eight keys, four per 512-bit VAES register.
//!
//! A counter block is `P || i`: a 12-byte prefix (CWC's `0x80 || N`) and a
//! 32-bit big-endian counter that the caller keeps from wrapping.

mod key;
// First: the counter-mode leaves below are written with its macro.
#[cfg(target_arch = "x86_64")]
#[macro_use]
mod x86_ctr;
#[cfg(target_arch = "x86_64")]
mod x86_aesni;
// Before the wide pad leaves, which are written with its macro.
#[cfg(target_arch = "x86_64")]
#[macro_use]
mod x86_fused;
#[cfg(target_arch = "x86_64")]
mod x86_fused256;
#[cfg(target_arch = "x86_64")]
mod x86_fused512;
#[cfg(target_arch = "x86_64")]
mod x86_schedule;
#[cfg(target_arch = "x86_64")]
mod x86_vaes256;
#[cfg(target_arch = "x86_64")]
mod x86_vaes512;

#[cfg(target_arch = "x86_64")]
use aead::inout::InOutBuf;
use cipher::{BlockCipherEncrypt, KeyInit};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
use crate::backend::AesWide;
use crate::cpu::Features;
#[cfg(target_arch = "x86_64")]
use crate::cpu::{AesNi, Vaes256, Vaes512};
pub(crate) use key::Key;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_schedule::RoundKeys;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_vaes512::Keystream;

/// Eight AES blocks, aligned for 64-byte stores; wiped on drop.
#[repr(C, align(64))]
#[derive(Default)]
pub(crate) struct Blocks8(pub(crate) [[u8; 16]; 8]);

impl Drop for Blocks8 {
    fn drop(&mut self) {
        self.0.as_flattened_mut().zeroize();
    }
}

/// Scalar work that an eight-key pad leaf runs in the gaps of its vector
/// rounds, `round(i)` for i = 0..9 in order. A trait rather than a closure
/// so that `#[inline(always)]` can put it inside the leaf: a call between
/// the rounds would spill and reload every vector register (all
/// caller-saved).
pub(crate) trait Between {
    fn round(&mut self, i: usize);
}

/// No work between the rounds.
pub(crate) struct Nothing;

impl Between for Nothing {
    #[inline(always)]
    fn round(&mut self, _: usize) {}
}

/// The code that computes AES-128 under keys used once, pads of one key or
/// of eight: the widest the features allow.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PadLeaf {
    #[cfg(target_arch = "x86_64")]
    Vaes512(Vaes512, AesNi),
    #[cfg(target_arch = "x86_64")]
    Vaes256(Vaes256, AesNi),
    #[cfg(target_arch = "x86_64")]
    AesNi(AesNi),
    /// The `aes` crate (which makes its own choice of AES-NI or bitsliced
    /// code), one key at a time.
    AesCrate,
}

impl PadLeaf {
    pub(crate) fn best(features: Features) -> Self {
        #[cfg(not(target_arch = "x86_64"))]
        return {
            let _ = features;
            PadLeaf::AesCrate
        };
        #[cfg(target_arch = "x86_64")]
        match crate::backend::aes(features) {
            Some((aesni, AesWide::Vaes512(t))) => PadLeaf::Vaes512(t, aesni),
            Some((aesni, AesWide::Vaes256(t))) => PadLeaf::Vaes256(t, aesni),
            Some((aesni, AesWide::None)) => PadLeaf::AesNi(aesni),
            None => PadLeaf::AesCrate,
        }
    }

    /// The label of the one-key pad (every wide leaf comes with AES-NI).
    pub(crate) fn name(self) -> &'static str {
        match self {
            PadLeaf::AesCrate => "aes-crate",
            _ => "aesni-fused",
        }
    }

    /// The label of the eight-key pads.
    pub(crate) fn name8(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            PadLeaf::Vaes512(..) => "vaes512",
            #[cfg(target_arch = "x86_64")]
            PadLeaf::Vaes256(..) => "vaes256",
            #[cfg(target_arch = "x86_64")]
            PadLeaf::AesNi(_) => "aesni-fused",
            PadLeaf::AesCrate => "aes-crate",
        }
    }

    /// AES-128_k(n).
    pub(crate) fn pad(self, k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
        match self {
            #[cfg(target_arch = "x86_64")]
            PadLeaf::Vaes512(_, t) | PadLeaf::Vaes256(_, t) | PadLeaf::AesNi(t) => x86_fused::pad(t, k, n),
            PadLeaf::AesCrate => aes_crate_block(k, n),
        }
    }

    /// AES-128_{k[i]}(n[i]) for i in 0..8 into `out`, `between(i)` for
    /// i = 0..9 in the gaps of the vector rounds (the caller's scalar work
    /// overlaps them; with the `aes` crate, after each block).
    #[inline]
    pub(crate) fn pads8(self, k: [&[u8; 16]; 8], n: [&[u8; 16]; 8], out: &mut Blocks8, mut between: impl Between) {
        match self {
            #[cfg(target_arch = "x86_64")]
            PadLeaf::Vaes512(t, _) => x86_fused512::pads8(t, k, n, out, between),
            #[cfg(target_arch = "x86_64")]
            PadLeaf::Vaes256(t, _) => x86_fused256::pads8(t, k, n, out, between),
            #[cfg(target_arch = "x86_64")]
            PadLeaf::AesNi(t) => x86_fused::pads8(t, k, n, out, between),
            PadLeaf::AesCrate => {
                for (i, o) in out.0.iter_mut().enumerate() {
                    *o = aes_crate_block(k[i], n[i]);
                    between.round(i);
                }
                between.round(8);
            }
        }
    }
}

/// AES-128_k(n) with the `aes` crate (its expanded key wiped on drop).
fn aes_crate_block(k: &[u8; 16], n: &[u8; 16]) -> [u8; 16] {
    let mut b = (*n).into();
    aes::Aes128Enc::new(k.into()).encrypt_block(&mut b);
    b.into()
}

/// Runs of whole blocks shorter than this are left to single-block AES by
/// every counter-mode leaf (the largest of their `min_bytes`): a caller that
/// cuts its input into chunks of at least this many bytes runs every chunk
/// on the wide leaf.
#[cfg(target_arch = "x86_64")]
pub(crate) const CTR_MIN_BYTES: usize = {
    let (a, b, c) = (x86_vaes512::MIN_BYTES, x86_vaes256::MIN_BYTES, x86_aesni::MIN_BYTES);
    let ab = if a > b { a } else { b };
    if ab > c { ab } else { c }
};

/// MMH's one-shot key material under two keys used once: the counter
/// blocks AES_ks(0) … AES_ks(N − 1) and the pad AES_kp(nonce), the two
/// schedules fused into the rounds and interleaved.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn counter_blocks_and_pad<const N: usize>(
    token: AesNi,
    ks: &[u8; 16],
    kp: &[u8; 16],
    nonce: &[u8; 16],
) -> ([[u8; 16]; N], [u8; 16]) {
    x86_fused::counter_blocks_and_pad::<N>(token, ks, kp, nonce)
}

/// A counter-mode leaf's buffer as raw pointers, after checking that it is
/// whole blocks and that its counters stay below 2^32: `len` readable bytes
/// at the first pointer and `len` writable ones at the second, the same
/// bytes or disjoint ones (an `InOutBuf`'s guarantee), for as long as the
/// buffer was borrowed.
#[cfg(target_arch = "x86_64")]
fn buffer(first: u32, buf: InOutBuf<'_, '_, u8>) -> (*const u8, *mut u8, usize) {
    check_run(first, buf.len());
    let len = buf.len();
    let (src, dst) = buf.into_raw();
    (src, dst, len)
}

/// A counter-mode run of `len` bytes from counter `first`: whole blocks, and
/// its counters below 2^32 (every leaf entry checks this).
#[cfg(target_arch = "x86_64")]
fn check_run(first: u32, len: usize) {
    assert!(len.is_multiple_of(16));
    assert!(u64::from(first) + (len / 16) as u64 <= 1 << 32);
}

#[cfg(test)]
pub(crate) mod tests {
    #[cfg(target_arch = "x86_64")]
    use super::RoundKeys;
    use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
    use cipher::{BlockCipherEncrypt, KeyInit};

    /// AES_key(b) in place with the `aes` crate (the leaves' oracle).
    pub(crate) fn aes_block(key: &[u8], b: &mut [u8; 16]) {
        let block = b.into();
        match key.len() {
            16 => Aes128Enc::new(key.try_into().unwrap()).encrypt_block(block),
            24 => Aes192Enc::new(key.try_into().unwrap()).encrypt_block(block),
            _ => Aes256Enc::new(key.try_into().unwrap()).encrypt_block(block),
        }
    }

    type Pads8<'a> = &'a dyn Fn([&[u8; 16]; 8], [&[u8; 16]; 8], &mut super::Blocks8, &mut Calls);

    /// The rounds a leaf called `Between::round` with.
    #[derive(Default)]
    pub(crate) struct Calls(Vec<usize>);

    impl super::Between for &mut Calls {
        fn round(&mut self, i: usize) {
            self.0.push(i);
        }
    }

    /// An eight-key pad leaf against the `aes` crate on random keys and
    /// nonces (and all-zero and all-one ones), calling `between` with
    /// 0, 1, …, 8 in order.
    pub(crate) fn check_pads8(leaf: Pads8<'_>) {
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for round in 0..3_000 {
            let mut k = [[0u8; 16]; 8];
            let mut n = [[0u8; 16]; 8];
            k.iter_mut().chain(n.iter_mut()).flatten().for_each(|b| *b = next() as u8);
            if round == 0 {
                (k[3], n[3], k[6], n[6]) = ([0xff; 16], [0xff; 16], [0; 16], [0; 16]);
            }
            let mut out = super::Blocks8::default();
            let mut calls = Calls::default();
            leaf(core::array::from_fn(|i| &k[i]), core::array::from_fn(|i| &n[i]), &mut out, &mut calls);
            assert_eq!(calls.0, (0..9).collect::<Vec<_>>());
            for i in 0..8 {
                let mut b = n[i];
                aes_block(&k[i], &mut b);
                assert_eq!(out.0[i], b, "lane {i}");
            }
        }
    }

    /// Dropping `Blocks8` (eight AES pads) zeroes all 128 bytes: no output
    /// shows it, so its drop made a no-op survived mutation testing.
    #[test]
    fn dropping_blocks8_zeroes_every_byte() {
        let mut p = core::mem::MaybeUninit::new(super::Blocks8([[0xa5; 16]; 8]));
        // SAFETY: `p` holds an initialised `Blocks8`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { p.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `p`'s, and its bytes are
        // plain `u8`s, valid for any bits: read through a raw pointer, with no
        // reference to the dropped `Blocks8`.
        let bytes = unsafe { (&raw const (*p.as_ptr()).0).read() };
        assert_eq!(bytes, [[0; 16]; 8]);
    }

    #[test]
    fn the_aes_crate_pads_equal_the_aes_crate() {
        check_pads8(&|k, n, out, between| super::PadLeaf::AesCrate.pads8(k, n, out, between));
    }

    /// A leaf that encrypts blocks in place under round keys, against the
    /// `aes` crate: keys of all three sizes, every count of blocks around
    /// the eight-block step.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn check_blocks(leaf: &dyn Fn(&RoundKeys, &mut [[u8; 16]])) {
        let aesni = crate::cpu::Features::detect().aesni().expect("a leaf's token comes with AES-NI");
        let mut next = crate::xorshift(0x7a3c_99d1_0b5e_2f41u64);
        for klen in [16, 24, 32] {
            for count in (0..=20).chain([31, 32, 33, 64, 67]) {
                let key: Vec<u8> = (0..klen).map(|_| next() as u8).collect();
                let data: Vec<[u8; 16]> = (0..count).map(|_| core::array::from_fn(|_| next() as u8)).collect();
                let mut got = data.clone();
                leaf(&RoundKeys::new(aesni, &key), &mut got);
                for (i, (g, d)) in got.iter().zip(&data).enumerate() {
                    let mut want = *d;
                    aes_block(&key, &mut want);
                    assert_eq!(g, &want, "key {klen} B, block {i} of {count}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    type Leaf<'a> = &'a dyn Fn(&RoundKeys, &[u8; 12], u32, aead::inout::InOutBuf<'_, '_, u8>);
    /// A leaf's `apply_keeping` (raw input and output, the copy of the input).
    #[cfg(target_arch = "x86_64")]
    pub(crate) type KeepLeaf<'a> =
        &'a dyn Fn(&RoundKeys, &[u8; 12], u32, *const u8, *mut u8, &mut [core::mem::MaybeUninit<u8>]);

    /// A counter-mode leaf against the `aes` crate: random keys of all three
    /// sizes, every block count around its steps (1, 2, 8 and 16 blocks per
    /// step in the three leaves), counters up to the top of the 32-bit range,
    /// in place and into a separate output; and its `apply_keeping`, which
    /// must write the same output and keep the input exactly, in place and
    /// out of place.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn check_ctr_leaf(leaf: Leaf<'_>, keeping: KeepLeaf<'_>) {
        let aesni = crate::cpu::Features::detect().aesni().expect("every wide AES token comes with AES-NI");
        let mut next = crate::xorshift(0x0123_4567_89ab_cdefu64);
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
                leaf(&keys, &prefix, first, got.as_mut_slice().into());
                // Out of place: the input stays, the output (garbage before)
                // gets the same bytes as in place.
                let mut out = vec![0xa5; data.len()];
                let input = data.clone();
                leaf(&keys, &prefix, first, aead::inout::InOutBuf::new(&input, &mut out).expect("same length"));
                assert_eq!(input, data, "the input of an out-of-place run is not written");
                assert_eq!(out, got, "out of place equals in place: key {klen} B, {blocks} blocks from {first}");
                for in_place in [false, true] {
                    let mut keep = vec![core::mem::MaybeUninit::new(0x5au8); data.len()];
                    let mut out = if in_place { data.clone() } else { vec![0xa5; data.len()] };
                    let src = if in_place { out.as_ptr() } else { input.as_ptr() };
                    keeping(&keys, &prefix, first, src, out.as_mut_ptr(), &mut keep);
                    // SAFETY: `keep` was initialised when it was made.
                    let kept: Vec<u8> = keep.iter().map(|b| unsafe { b.assume_init() }).collect();
                    assert_eq!(
                        (&out, &kept),
                        (&got, &data),
                        "keeping, in place {in_place}: key {klen} B, {blocks} blocks"
                    );
                }
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
