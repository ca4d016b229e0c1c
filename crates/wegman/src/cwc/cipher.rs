//! The block cipher BC_K of CWC-AES (AES-128, -192 or -256) and CWC-CTR.

#[cfg(target_arch = "x86_64")]
use aead::inout::InOutBuf;
use aes::{Aes128Enc, Aes192Enc, Aes256Enc};
use cipher::{Array, BlockCipherEncrypt, KeyInit};

use crate::error::Error;

/// BC_K: the `aes` crate's AES-128/192/256 for single blocks and short
/// runs, and with AES-NI the AES layer's counter mode (AES-NI, VAES-256 or
/// VAES-512) for long runs.
#[derive(Clone)]
pub(crate) struct Cipher {
    aes: Aes,
    #[cfg(target_arch = "x86_64")]
    wide: Option<Wide>,
}

/// AES with a 16-, 24- or 32-byte key, chosen at run time.
#[derive(Clone)]
enum Aes {
    Aes128(Aes128Enc),
    Aes192(Aes192Enc),
    Aes256(Aes256Enc),
}

/// The counter-mode leaf and its round keys, expanded once the key has had
/// [`CTR_BUILD_AFTER_BYTES`] in runs long enough for the leaf (a key used
/// once for a short message never pays for them: the `aes` crate runs it),
/// so the key bytes are kept until then; both are wiped on drop.
#[cfg(target_arch = "x86_64")]
#[derive(Clone)]
struct Wide {
    leaf: crate::aes::CtrLeaf,
    /// The AES key in its first `Cipher::key_bytes()` bytes (inline: no
    /// heap copy to wipe).
    key: [u8; 32],
    /// Boxed: a key that never needs them carries (and moves) 8 bytes, not 240.
    keys: crate::lazy::Lazy<crate::aes::RoundKeys>,
}

/// Bytes after which a key's counter-mode leaf is set up. On an Intel Xeon
/// (6/167, `avx2-vaes`) the one-shot encryption of 128 bytes took
/// 1116–1136 TSC ticks when it expanded the leaf's round keys (and
/// allocated them) and 758–803 on the `aes` crate's AES-NI; the leaf saves
/// about a third of a tick per byte there, so about 1.2 KiB repay the
/// set-up; VAES-512 saves more per byte (on the IFMA tier a 1 KiB one-shot
/// was 3–7 % slower with 2 KiB here).
#[cfg(target_arch = "x86_64")]
const CTR_BUILD_AFTER_BYTES: usize = 1024;

#[cfg(target_arch = "x86_64")]
impl Drop for Wide {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.key.zeroize();
    }
}

/// How many counter blocks are encrypted per call (lets AES-NI pipeline;
/// the `aes` crate runs them eight at a time, and a longer run amortizes
/// the call and the keystream buffer's single wipe).
const PAR: usize = 32;

impl Cipher {
    // Inlined into the key's constructor so the 704-byte schedule is built
    // where it stays instead of being copied on each return.
    #[inline(always)]
    pub(crate) fn new(key: &[u8], features: crate::cpu::Features) -> Result<Self, Error> {
        let aes = match key.len() {
            16 => Aes::Aes128(Aes128Enc::new(key.try_into().expect("16"))),
            24 => Aes::Aes192(Aes192Enc::new(key.try_into().expect("24"))),
            32 => Aes::Aes256(Aes256Enc::new(key.try_into().expect("32"))),
            got => return Err(Error::UnsupportedKeyLength { what: "CWC-AES", got, allowed: "16, 24 or 32" }),
        };
        #[cfg(target_arch = "x86_64")]
        let wide = crate::aes::CtrLeaf::best(features).map(|leaf| {
            let mut w = Wide { leaf, key: [0; 32], keys: Default::default() };
            w.key[..key.len()].copy_from_slice(key);
            w
        });
        #[cfg(not(target_arch = "x86_64"))]
        let _ = features;
        Ok(Cipher {
            aes,
            #[cfg(target_arch = "x86_64")]
            wide,
        })
    }

    /// Start loading the AES schedule and, if a run of `len` bytes will use
    /// them, the counter mode's round keys (a key among many is not in cache).
    #[inline]
    pub(crate) fn prefetch_for(&self, len: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = &self.wide {
            crate::prefetch::lines(&self.aes);
            if len >= w.leaf.min_bytes()
                && let Some(k) = w.keys.get()
            {
                crate::prefetch::lines(k);
            }
        }
        let _ = len;
    }

    /// The code that runs counter mode for long runs: a leaf of the AES
    /// layer, or the `aes` crate (its bitsliced code without AES-NI).
    pub(crate) fn ctr_name(&self) -> &'static str {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = &self.wide {
            return w.leaf.name();
        }
        "aes-crate"
    }

    pub(crate) fn key_bytes(&self) -> usize {
        match self.aes {
            Aes::Aes128(_) => 16,
            Aes::Aes192(_) => 24,
            Aes::Aes256(_) => 32,
        }
    }

    /// BC_K(block), in place: the caller's buffer is the only copy of the
    /// output (Kh's source, the MAC's encrypted hash and pad), so the caller
    /// can wipe it.
    pub(crate) fn encrypt(&self, block: &mut [u8; 16]) {
        let b = block.into();
        match &self.aes {
            Aes::Aes128(c) => c.encrypt_block(b),
            Aes::Aes192(c) => c.encrypt_block(b),
            Aes::Aes256(c) => c.encrypt_block(b),
        }
    }

    fn encrypt_many(&self, blocks: &mut [Array<u8, cipher::consts::U16>]) {
        match &self.aes {
            Aes::Aes128(c) => c.encrypt_blocks(blocks),
            Aes::Aes192(c) => c.encrypt_blocks(blocks),
            Aes::Aes256(c) => c.encrypt_blocks(blocks),
        }
    }

    /// With a counter-mode leaf and a long enough run: the input's whole
    /// blocks at the start of `buf` XOR the keystream blocks `first`,
    /// `first + 1`, … written to its output (the same bytes, or others);
    /// returns how many bytes it did (0 when the `aes` crate should do them).
    fn wide(&self, nonce: &[u8; 11], first: u64, buf: InOutBuf<'_, '_, u8>) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = &self.wide {
            let n = buf.len() & !15;
            if n >= w.leaf.min_bytes() {
                let schedule = || Box::new(w.leaf.schedule(&w.key[..self.key_bytes()]));
                let Some(keys) = w.keys.offer(n, CTR_BUILD_AFTER_BYTES, schedule) else { return 0 };
                let first = u32::try_from(first).expect("the mode's limit keeps counters below 2^32");
                let mut prefix = [0u8; 12];
                prefix[0] = 0x80;
                prefix[1..].copy_from_slice(nonce);
                w.leaf.apply(keys, &prefix, first, buf.split_at(n).0);
                return n;
            }
        }
        let _ = (nonce, first, buf);
        0
    }
}

/// `0x80 || N || tostr(i, 32)`: counter block i (spec "CWC-CTR"; i = 0 is
/// the MAC's pad block).
pub(crate) fn counter_block(nonce: &[u8; 11], i: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0] = 0x80;
    b[1..12].copy_from_slice(nonce);
    b[12..].copy_from_slice(&i.to_be_bytes());
    b
}

/// CWC-CTR keystream, streaming: XORs `s_1 || s_2 || ...` into data.
#[derive(Clone)]
pub(crate) struct Ctr {
    nonce: [u8; 11],
    /// The next counter value to encrypt (starts at 1).
    next: u64,
    /// Unused keystream from the last block and how much of it is left.
    rest: [u8; 16],
    rest_len: usize,
}

impl Ctr {
    pub(crate) fn new(nonce: &[u8; 11]) -> Self {
        Self::at_block(nonce, 0)
    }

    /// The keystream from message block `block` on (counter `block + 1`):
    /// where a run of a message split across threads starts.
    pub(crate) fn at_block(nonce: &[u8; 11], block: u64) -> Self {
        Ctr { nonce: *nonce, next: block + 1, rest: [0; 16], rest_len: 0 }
    }

    /// Jump ahead `n` blocks (limit tests only).
    #[cfg(test)]
    pub(crate) fn skip_blocks_for_test(&mut self, n: u64) {
        self.next += n;
    }

    /// XOR the next `data.len()` keystream bytes into `data`. The caller
    /// enforces the 2^32 - 1 block limit, so the 32-bit counter never wraps.
    pub(crate) fn apply(&mut self, cipher: &Cipher, data: &mut [u8]) {
        self.run(cipher, InOutBuf::from(data), None);
    }

    /// [`apply`](Self::apply) from the start of the keystream, also
    /// returning BC_K of counter block 0, the MAC's pad: for a short
    /// message it is encrypted in the same call as the keystream blocks
    /// (one pass through the AES pipeline instead of two).
    pub(crate) fn apply_with_pad(&mut self, cipher: &Cipher, data: &mut [u8]) -> [u8; 16] {
        debug_assert!(self.next == 1 && self.rest_len == 0);
        let mut pad = [0u8; 16];
        self.run(cipher, InOutBuf::from(data), Some(&mut pad));
        pad
    }

    /// The input of `buf` XOR the next keystream bytes, written to its
    /// output (the same bytes, or others of the same length, which are then
    /// only written, never read); with `pad` (only at the start) also the
    /// MAC's pad, as in [`apply_with_pad`](Self::apply_with_pad). One-pass
    /// decryption writes the plaintext of its private copy straight to the
    /// caller's output this way, and encryption the ciphertext of the
    /// caller's plaintext to another buffer.
    pub(crate) fn apply_inout(&mut self, cipher: &Cipher, buf: InOutBuf<'_, '_, u8>, pad: Option<&mut [u8; 16]>) {
        debug_assert!(pad.is_none() || (self.next == 1 && self.rest_len == 0));
        self.run(cipher, buf, pad);
    }

    fn run(&mut self, cipher: &Cipher, mut buf: InOutBuf<'_, '_, u8>, mut pad: Option<&mut [u8; 16]>) {
        if self.rest_len > 0 {
            let n = self.rest_len.min(buf.len());
            let off = 16 - self.rest_len;
            let (mut head, rest) = buf.split_at(n);
            head.xor_in2out(&self.rest[off..off + n]);
            self.rest_len -= n;
            buf = rest;
        }
        let wide = cipher.wide(&self.nonce, self.next, buf.reborrow());
        self.next += (wide / 16) as u64;
        buf = buf.split_at(wide).1;
        let mut ks = [Array::<u8, cipher::consts::U16>::default(); PAR];
        let template = counter_block(&self.nonce, 0);
        let mut used = 0;
        while !buf.is_empty() || pad.is_some() {
            // Slot 0 holds the pad's counter block on the first pass.
            let extra = usize::from(pad.is_some());
            let blocks = buf.len().div_ceil(16).min(PAR - extra);
            if extra == 1 {
                ks[0].copy_from_slice(&template);
            }
            for (j, b) in ks[extra..extra + blocks].iter_mut().enumerate() {
                debug_assert!(self.next + (j as u64) <= u64::from(u32::MAX));
                b.copy_from_slice(&template);
                b[12..].copy_from_slice(&((self.next + j as u64) as u32).to_be_bytes());
            }
            self.next += blocks as u64;
            cipher.encrypt_many(&mut ks[..extra + blocks]);
            used = used.max(extra + blocks);
            if let Some(p) = pad.take() {
                p.copy_from_slice(&ks[0]);
            }
            let ks = &ks[extra..extra + blocks];
            let n = buf.len().min(16 * blocks);
            let (now, rest) = buf.split_at(n);
            // Whole blocks 16 bytes at a time; a final partial block byte by
            // byte, its unused keystream kept for the next call.
            let (whole, mut tail) = now.into_chunks::<cipher::consts::U16>();
            let word = |b: &Array<u8, cipher::consts::U16>| u128::from_ne_bytes(b.0);
            for (mut b, k) in whole.into_iter().zip(ks) {
                // One 16-byte XOR, as before this took an `InOutBuf`: inout's
                // `xor_in2out` goes byte by byte through a temporary (one-shot
                // encryption of 16–100 bytes ran up to 5 % slower with it,
                // three alternating runs on the IFMA tier).
                let x = word(b.get_in()) ^ word(k);
                b.get_out().0 = x.to_ne_bytes();
            }
            if !tail.is_empty() {
                let k = &ks[n / 16];
                tail.xor_in2out(&k[..tail.len()]);
                self.rest.copy_from_slice(k);
                self.rest_len = 16 - tail.len();
            }
            buf = rest;
        }
        // Plain stores, kept by `black_box` (which the optimizer must assume
        // reads them): `zeroize`'s volatile loop stored a byte a cycle, up to
        // 512 cycles a call, which a caller working in chunks (one-pass
        // decryption) paid on every chunk.
        for b in ks[..used].iter_mut() {
            b.fill(0);
        }
        core::hint::black_box(&mut ks);
    }
}

impl Drop for Ctr {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.rest.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Features;

    /// The counter-mode leaf's round keys are expanded on the run that
    /// brings the bytes offered to it to `CTR_BUILD_AFTER_BYTES`, not
    /// before, and the keystream is the same on both sides of it.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ctr_round_keys_are_expanded_once_the_key_has_offered_enough() {
        let Some(features) = Features::detect().every_level().into_iter().rfind(|f| f.aesni().is_some()) else {
            return; // no AES-NI here (or capped below it)
        };
        let cipher = Cipher::new(&[9u8; 16], features).unwrap();
        let reference = Cipher::new(&[9u8; 16], Features::portable()).unwrap();
        let built = |c: &Cipher| c.wide.as_ref().is_some_and(|w| w.keys.get().is_some());
        let nonce = [0x3c; 11];
        let (mut offered, run) = (0, 400);
        let mut first = 0u64;
        let mut step = |c: &Cipher| {
            let mut got = vec![0x77u8; run];
            let mut want = got.clone();
            Ctr::at_block(&nonce, first).apply(c, &mut got);
            Ctr::at_block(&nonce, first).apply(&reference, &mut want);
            assert_eq!(got, want);
            first += (run / 16) as u64;
        };
        while offered + run < CTR_BUILD_AFTER_BYTES {
            step(&cipher);
            offered += run;
            assert!(!built(&cipher), "expanded after {offered} bytes");
        }
        step(&cipher);
        assert!(built(&cipher), "not expanded after {} bytes", offered + run);
        step(&cipher);
    }

    #[test]
    fn apply_inout_writes_what_apply_computes_at_every_split() {
        let data: Vec<u8> = (0..1200u32).map(|i| (i * 37 + 11) as u8).collect();
        let nonce = [0x6b; 11];
        for features in Features::detect().every_level() {
            for key in [&[1u8; 16][..], &[2u8; 24][..], &[3u8; 32][..]] {
                let cipher = Cipher::new(key, features).unwrap();
                let mut want = data.clone();
                let want_pad = Ctr::new(&nonce).apply_with_pad(&cipher, &mut want);
                // Two calls at every first length (partial blocks carried
                // between them), the first with the pad or without it.
                for first in (0..=100).chain([255, 256, 257, 511, 512, 513, 1199, 1200]) {
                    let mut ctr = Ctr::new(&nonce);
                    let mut got = vec![0xa5u8; data.len()];
                    let input = data.clone();
                    let (i1, i2) = input.split_at(first);
                    let (o1, o2) = got.split_at_mut(first);
                    let mut pad = [0u8; 16];
                    ctr.apply_inout(&cipher, InOutBuf::new(i1, o1).unwrap(), Some(&mut pad));
                    ctr.apply_inout(&cipher, InOutBuf::new(i2, o2).unwrap(), None);
                    assert_eq!((got.as_slice(), pad), (want.as_slice(), want_pad), "split at {first}");
                    assert_eq!(input, data, "the input is only read");
                    let mut ctr = Ctr::new(&nonce);
                    let mut in_place = data.clone();
                    let (a, b) = in_place.split_at_mut(first);
                    ctr.apply_with_pad(&cipher, a);
                    let mut out = vec![0u8; b.len()];
                    ctr.apply_inout(&cipher, InOutBuf::new(b, &mut out).unwrap(), None);
                    assert_eq!([&in_place[..first], &out[..]].concat(), want, "mixed, split at {first}");
                }
            }
        }
    }
}
