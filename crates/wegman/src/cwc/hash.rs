//! CWC-HASH_K(A, σ) (spec §3 "CWC-HASH"; paper §3), streaming.
//!
//! X = A || 0* || σ || 0* with each part zero-padded to a multiple of 12
//! bytes; Y_i are its 96-bit big-endian chunks; Y_{β+1} = 2^64·|A| + |σ|
//! (lengths in bytes); R = Σ Y_i Kh^(β+1-i) mod 2^127-1, fully reduced.

use zeroize::Zeroize;

use super::backend::{HashKey, canonical};

/// Streaming CWC-HASH over A then σ.
#[derive(Clone)]
pub(crate) struct Hasher {
    r: u128,
    buf: [u8; 48],
    buf_len: usize,
    len_a: u64,
    len_c: u64,
    in_ciphertext: bool,
}

impl Hasher {
    pub(crate) fn new() -> Self {
        Hasher { r: 0, buf: [0; 48], buf_len: 0, len_a: 0, len_c: 0, in_ciphertext: false }
    }

    /// Absorb whole 12-byte chunks (the backend decides how).
    fn chunks(&mut self, key: &HashKey, data: &[u8]) {
        self.r = key.absorb(self.r, data);
    }

    fn absorb(&mut self, key: &HashKey, mut data: &[u8]) {
        if self.buf_len > 0 {
            let take = (48 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 48 {
                return;
            }
            let buf = self.buf;
            self.chunks(key, &buf);
            self.buf_len = 0;
        }
        let whole = data.len() - data.len() % 48;
        self.chunks(key, &data[..whole]);
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Zero-pad the current part to a multiple of 12 bytes and absorb it.
    fn flush_part(&mut self, key: &HashKey) {
        let padded = self.buf_len.div_ceil(12) * 12;
        self.buf[self.buf_len..padded].fill(0);
        let buf = self.buf;
        self.chunks(key, &buf[..padded]);
        self.buf_len = 0;
    }

    /// More associated data (only before any ciphertext).
    pub(crate) fn update_aad(&mut self, key: &HashKey, aad: &[u8]) {
        debug_assert!(!self.in_ciphertext);
        self.len_a += aad.len() as u64;
        self.absorb(key, aad);
    }

    /// More ciphertext σ.
    pub(crate) fn update_ciphertext(&mut self, key: &HashKey, c: &[u8]) {
        if !self.in_ciphertext {
            self.flush_part(key);
            self.in_ciphertext = true;
        }
        self.len_c += c.len() as u64;
        self.absorb(key, c);
    }

    /// tostr(R, 128).
    pub(crate) fn finalize(mut self, key: &HashKey) -> [u8; 16] {
        if !self.in_ciphertext {
            self.flush_part(key);
            self.in_ciphertext = true;
        }
        self.flush_part(key);
        // Y_{β+1} is added, not multiplied by Kh: lengths < 2^36 each, so
        // 2^64·|A| + |σ| < 2^100 and R + Y < 2^128.
        let y_last = (u128::from(self.len_a) << 64) | u128::from(self.len_c);
        canonical(self.r + y_last).to_be_bytes()
    }

    /// Pretend `len` ciphertext bytes were hashed (limit tests only).
    #[cfg(test)]
    pub(crate) fn set_ciphertext_len_for_test(&mut self, len: u64) {
        self.in_ciphertext = true;
        self.len_c = len;
    }

    pub(crate) fn lengths(&self) -> (u64, u64) {
        (self.len_a, self.len_c)
    }
}

/// tostr(CWC-HASH(A, σ), 128) of a whole message at once: each part
/// through [`absorb_padded`], then [`finish`]. The same value as [`Hasher`]
/// without its buffer, copies and wipe (the one-shot calls).
pub(crate) fn whole(key: &HashKey, aad: &[u8], c: &[u8]) -> [u8; 16] {
    let r = absorb_padded(key, absorb_padded(key, 0, aad), c);
    finish(r, aad.len() as u64, c.len() as u64)
}

/// R after `part` (public: A or σ), zero-padded to a multiple of 12 bytes:
/// whole 12-byte chunks straight from `part`, the last partial chunk from
/// a padded local copy. A run of whole chunks may be fed in pieces that
/// are multiples of 12 bytes, the last piece of any length.
pub(crate) fn absorb_padded(key: &HashKey, r: u128, part: &[u8]) -> u128 {
    let whole = part.len() - part.len() % 12;
    let r = key.absorb(r, &part[..whole]);
    let rest = &part[whole..];
    if rest.is_empty() {
        return r;
    }
    let mut last = [0u8; 12];
    last[..rest.len()].copy_from_slice(rest);
    key.absorb(r, &last)
}

/// tostr(R + Y_{β+1}, 128) for A and σ of `len_a` and `len_c` bytes; `r`
/// is consumed and wiped.
pub(crate) fn finish(mut r: u128, len_a: u64, len_c: u64) -> [u8; 16] {
    // As in `Hasher::finalize`: lengths < 2^36 each, so R + Y < 2^128.
    let y_last = (u128::from(len_a) << 64) | u128::from(len_c);
    let out = canonical(r + y_last).to_be_bytes();
    r.zeroize();
    out
}

impl Drop for Hasher {
    fn drop(&mut self) {
        self.r.zeroize();
        self.buf.zeroize();
    }
}
