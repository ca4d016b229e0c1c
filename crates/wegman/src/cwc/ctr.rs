//! CWC-CTR (spec "CWC-CTR"): the keystream `BC_K(0x80 || N || tostr(i, 32))`
//! for i = 1, 2, …, under the mode's one AES key (`crate::aes::Key`).

use aead::inout::InOutBuf;

use crate::aes::Key;

/// How many counter blocks are encrypted per call below the counter-mode
/// leaf's threshold (lets AES pipeline; a longer run amortizes the call and
/// the keystream buffer's single wipe).
const PAR: usize = 32;

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
    pub(crate) fn apply(&mut self, cipher: &Key, data: &mut [u8]) {
        self.run(cipher, InOutBuf::from(data), None);
    }

    /// [`apply`](Self::apply) from the start of the keystream, also
    /// returning BC_K of counter block 0, the MAC's pad: for a short
    /// message it is encrypted in the same call as the keystream blocks
    /// (one pass through the AES pipeline instead of two).
    pub(crate) fn apply_with_pad(&mut self, cipher: &Key, data: &mut [u8]) -> [u8; 16] {
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
    pub(crate) fn apply_inout(&mut self, cipher: &Key, buf: InOutBuf<'_, '_, u8>, pad: Option<&mut [u8; 16]>) {
        debug_assert!(pad.is_none() || (self.next == 1 && self.rest_len == 0));
        self.run(cipher, buf, pad);
    }

    /// Where the keystream stands, for a caller that runs the
    /// counter-mode leaf itself (one-pass decryption's chunks): the counter
    /// blocks' prefix and the next counter, at a block boundary; `None`
    /// mid-block. [`advance`](Self::advance) once the blocks are used.
    pub(crate) fn position(&self) -> Option<([u8; 12], u32)> {
        (self.rest_len == 0).then(|| (self.prefix(), self.counter()))
    }

    /// The next counter value, as the leaf takes it.
    fn counter(&self) -> u32 {
        u32::try_from(self.next).expect("the mode's limit keeps counters below 2^32")
    }

    /// Count `blocks` keystream blocks as used (from [`position`](Self::position)).
    pub(crate) fn advance(&mut self, blocks: usize) {
        debug_assert_eq!(self.rest_len, 0);
        self.next += blocks as u64;
    }

    /// The counter blocks' first 12 bytes: `0x80 || N`.
    fn prefix(&self) -> [u8; 12] {
        let mut prefix = [0u8; 12];
        prefix[0] = 0x80;
        prefix[1..].copy_from_slice(&self.nonce);
        prefix
    }

    fn run(&mut self, cipher: &Key, mut buf: InOutBuf<'_, '_, u8>, mut pad: Option<&mut [u8; 16]>) {
        if self.rest_len > 0 {
            let n = self.rest_len.min(buf.len());
            let off = 16 - self.rest_len;
            let (mut head, rest) = buf.split_at(n);
            head.xor_in2out(&self.rest[off..off + n]);
            self.rest_len -= n;
            buf = rest;
        }
        // A run long enough for the counter-mode leaf (a whole block left
        // means its counter is below 2^32: the mode's limit).
        #[cfg(target_arch = "x86_64")]
        if buf.len() >= cipher.ctr_min_bytes() {
            let wide = cipher.ctr(&self.prefix(), self.counter(), buf.reborrow());
            self.next += (wide / 16) as u64;
            buf = buf.split_at(wide).1;
        }
        let mut ks = [[0u8; 16]; PAR];
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
            cipher.encrypt_blocks(&mut ks[..extra + blocks]);
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
            for (mut b, k) in whole.into_iter().zip(ks) {
                // One 16-byte XOR, as before this took an `InOutBuf`: inout's
                // `xor_in2out` goes byte by byte through a temporary (one-shot
                // encryption of 16–100 bytes ran up to 5 % slower with it,
                // three alternating runs on the IFMA tier).
                let x = u128::from_ne_bytes(b.get_in().0) ^ u128::from_ne_bytes(*k);
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

    #[test]
    fn apply_inout_writes_what_apply_computes_at_every_split() {
        let data: Vec<u8> = (0..1200u32).map(|i| (i * 37 + 11) as u8).collect();
        let nonce = [0x6b; 11];
        for features in crate::cpu::levels_for_test() {
            for key in [&[1u8; 16][..], &[2u8; 24][..], &[3u8; 32][..]] {
                let cipher = Key::new(key, features).unwrap();
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
