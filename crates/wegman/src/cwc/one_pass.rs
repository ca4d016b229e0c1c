//! CWC-DEC in one pass over the ciphertext: every decryption API (one-shot,
//! in place, RustCrypto, the C ABI, Python) ends here.
//!
//! **Each ciphertext byte is read once.** The ciphertext is taken in
//! chunks of [`CHUNK`] bytes. A chunk before the last goes through the
//! counter-mode leaf (`Key::ctr_keeping`), which loads each register of
//! ciphertext once, writes its keystream XOR to the output and the register
//! itself, as loaded, to a private stack buffer; that copy is then hashed
//! (CWC-HASH). On the AVX2 lanes (`HashKey::keeps_whole_chunks`), and for
//! the last chunk on every tier, the hash's own loads make the copy of the
//! chunk's whole groups instead (`HashKey::keeping`: the IFMA and AVX2
//! lanes), and the rest (all of it, for a portable key or a short chunk)
//! is copied once into the private buffer and hashed there; a chunk before
//! the last is then decrypted (CWC-CTR) from there into the output, and the
//! last one too, but only after the verdict (a message shorter than
//! [`DECRYPT_AFTER_VERDICT_FROM`] is decrypted in the private buffer and
//! copied out after the verdict).
//!
//! Where the key's tiers have one loop of counter mode and hash
//! (`HashKey::one_loop`: AVX-512 IFMA and 512-bit VAES, the hash's table
//! built, runs from 4 KiB), it decrypts and hashes the same registers, each
//! loaded once: a message longer than a chunk goes through it into the
//! output, all but its last 1 to 192 bytes (held back as the last chunk
//! is); a shorter one into the private buffer, its last part (under 192
//! bytes) copied there, hashed and decrypted, all of it copied out after
//! the verdict and wiped there.
//!
//! The tag is compared (constant time) at the end; on a mismatch the
//! **whole output is zeroed**. So whatever another
//! thread or process does to the ciphertext meanwhile (shared memory, a
//! shared mmap of a file), a success has written the decryption of exactly
//! the bytes whose tag verified, and a failure leaves zeros. Decrypting
//! with two reads (verify, then decrypt) let a byte changed between them be
//! decrypted as changed under a tag that had verified.
//!
//! The output is never read, only written: another thread may write it too.
//! The last chunk is held back until the verdict, so a message of at most
//! one chunk never has unauthenticated plaintext in the output at all;
//! longer ones have, until the verdict, in the chunks before it. A forgery
//! costs what a valid message does, less the last chunk's decryption, plus
//! the wipe.
//!
//! The input and output are raw pointers: a `&[u8]` that another thread
//! writes would be undefined behaviour, and `c == m` (in place) must work.
//! The associated data and the tag are consumed first
//! ([`CwcKey::raw_decryptor`]: hashed, copied), so the output may overlap
//! them.

use core::mem::MaybeUninit;
use core::ptr;

use aead::inout::InOutBuf;
use zeroize::Zeroize;

use super::ctr::Ctr;
use super::hash;
use super::key::{CwcKey, check_len, check_tag_len, public_verdict, tag_eq};
use super::{NONCE_BYTES, TAG_BYTES};
use crate::ct::wipe;
use crate::error::Error;

/// Bytes per chunk: a multiple of 768 (the AVX2 hash's 16-group blocks, so
/// no chunk pays for a short block; hence also of 96, the IFMA backend's
/// groups, and of 12, CWC-HASH's coefficients) and of 16 (CWC-CTR's blocks,
/// so the counter never splits a block between chunks), and above both
/// backends' minimum runs (VAES CTR 256 bytes, IFMA and AVX2 hash 192).
/// 15 KiB of stack. Each chunk pays a counter-mode call and a hash call
/// (the IFMA table's spans, 3 KiB, start afresh and its lanes are summed):
/// against 7,680 bytes, decryption from one buffer to another, key made
/// once, AMD Zen 4 (ifma), best of three runs of 100–2,000 calls: 16 KiB
/// 4,785 against 4,960 ticks, 64 KiB 18,094 against 18,723, 1 MiB 279,130
/// against 290,848 (encryption 4,533, 16,770 and 263,613); capped to
/// `avx2-vaes` 1 MiB 341,351 against 345,318, `avx2` 471,122 against
/// 472,128. (Earlier, against 4032 bytes on an Intel Xeon 6/167 capped to
/// `avx2-vaes`, 7,680 took 0.431–0.443 ticks/B at 16 KiB against
/// 0.443–0.466.)
pub(crate) const CHUNK: usize = 160 * 96;

/// A message shorter than this is decrypted in the private buffer before
/// the verdict (its keystream in one AES batch with the MAC's pad) and
/// copied out after it; a longer last chunk stays ciphertext there and is
/// decrypted after the verdict straight into the output, with no copy out
/// and nothing to wipe. Decryption over encryption, key made once, AMD Zen
/// 4 (ifma), median of six alternating processes: decrypting after the
/// verdict, from 256 bytes 1.01–1.07 against 1.14–1.22 decrypting first,
/// at 192 bytes 1.21 against 1.12–1.15, at 16–64 bytes 1.20–1.23 against
/// 1.07–1.09 (the pad's AES latency, no longer hidden in the batch). The
/// bench's hot tables (five runs each, median of each run's ratio): 4 KiB
/// 1.21 → 1.06, 8 KiB 1.25 → 1.08, 16 KiB 1.06 → 1.04.
const DECRYPT_AFTER_VERDICT_FROM: usize = 256;

/// The streaming decryptor's private buffer ([`through_private`]): zeroed
/// on every call, so it stays at 4032 bytes (a multiple of 96 and 16).
const STREAM_CHUNK: usize = 42 * 96;

const _: () = assert!(CHUNK.is_multiple_of(768) && CHUNK.is_multiple_of(16));
#[cfg(target_arch = "x86_64")]
const _: () = assert!(CHUNK.is_multiple_of(super::backend::OneLoop::STEP));
const _: () = assert!(STREAM_CHUNK.is_multiple_of(96) && STREAM_CHUNK.is_multiple_of(16));
#[cfg(target_arch = "x86_64")]
const _: () = assert!(CHUNK >= crate::aes::CTR_MIN_BYTES);

/// CWC-DEC between raw buffers, once the associated data is hashed and the
/// tag copied (so neither is borrowed while the output is written).
/// From [`CwcKey::raw_decryptor`]; run it with [`decrypt`](Self::decrypt).
pub struct RawDecryptor<'k> {
    key: &'k CwcKey,
    nonce: [u8; NONCE_BYTES],
    /// R after A (zero-padded): secret-derived, wiped on drop.
    r: u128,
    len_a: u64,
    tag: [u8; TAG_BYTES],
    tag_len: usize,
}

impl CwcKey {
    /// Start CWC-DEC of a ciphertext that is not a Rust slice (C or Python
    /// buffers, memory another thread may write): checks the lengths,
    /// hashes `aad` and copies `tag` (its length is the mode's tl, 1..=16);
    /// neither stays borrowed. Then [`RawDecryptor::decrypt`].
    pub fn raw_decryptor(&self, nonce: &[u8; NONCE_BYTES], aad: &[u8], tag: &[u8]) -> Result<RawDecryptor<'_>, Error> {
        check_tag_len(tag.len())?;
        check_len("associated data", aad.len() as u64)?;
        let mut copy = [0u8; TAG_BYTES];
        copy[..tag.len()].copy_from_slice(tag);
        let r = hash::absorb_padded(&self.hash, 0, aad);
        Ok(RawDecryptor { key: self, nonce: *nonce, r, len_a: aad.len() as u64, tag: copy, tag_len: tag.len() })
    }
}

impl RawDecryptor<'_> {
    /// Decrypt the `len` ciphertext bytes at `c` into the `len` bytes at
    /// `m`, reading each byte of `c` once and never reading `m`. On success
    /// `m` holds the plaintext; on a wrong tag `m` is zeroed and
    /// [`Error::TagMismatch`] returned; a `len` past the mode's limit fails
    /// before anything is read or written.
    ///
    /// # Safety
    /// `c` must be valid for reads and `m` for writes of `len` bytes (either
    /// may be dangling when `len` is 0), and `m` must either equal `c` (in
    /// place) or not overlap it. Other threads may write either buffer
    /// meanwhile; no Rust reference into `m` may be in use.
    pub unsafe fn decrypt(mut self, c: *const u8, m: *mut u8, len: usize) -> Result<(), Error> {
        check_len("ciphertext", len as u64)?;
        if len > isize::MAX as usize {
            return Err(Error::TooLong { what: "ciphertext", max: isize::MAX as u64 });
        }
        let key = self.key;
        key.prefetch_for(self.len_a as usize, len);
        let mut ctr = Ctr::new(&self.nonce);
        let mut pad = [0u8; 16];
        // On a cache line: the hash's 64-byte loads from it then never
        // straddle two lines (1 MiB decrypt, Zen 4: 288,201 against 292,526
        // ticks, best of three).
        #[repr(C, align(64))]
        struct Private([MaybeUninit<u8>; CHUNK]);
        let mut private = Private([const { MaybeUninit::<u8>::uninit() }; CHUNK]);
        let private = &mut private.0;
        let base = private.as_mut_ptr().cast::<u8>();
        let mut off = 0;
        let mut decrypted = false;
        // A message longer than a chunk, if the key's tiers have one loop of
        // counter mode and hash: all its whole steps but the last byte's, in
        // that loop, which hashes the registers it decrypts (each byte still
        // read once, with no private copy). What is held back until the
        // verdict is then the last 1 to 192 bytes, not the last chunk: a
        // message this long has plaintext in the output before the verdict
        // either way.
        #[cfg(target_arch = "x86_64")]
        if len > CHUNK
            && let Some(one) = key.hash.one_loop(&key.cipher, len)
            && let Some((prefix, first)) = ctr.position()
        {
            use super::backend::OneLoop;
            let n = (len - 1) / OneLoop::STEP * OneLoop::STEP;
            // SAFETY: `n < len`: inside `c`'s and `m`'s `len` bytes (caller
            // contract: the same or disjoint); n is a multiple of the loop's
            // steps and the mode's limit keeps the counters below 2^32.
            self.r = unsafe { one.run::<true>(&prefix, first, self.r, c, m, n) };
            ctr.advance(n / 16);
            pad = key.mac_pad(&self.nonce);
            off = n;
        }
        let last = loop {
            let n = (len - off).min(CHUNK);
            // A chunk before the last, through the counter-mode leaf, which
            // keeps each ciphertext register it loads in the local buffer:
            // the read of the chunk and its private copy in one.
            #[cfg(target_arch = "x86_64")]
            if off + n < len
                && !key.hash.keeps_whole_chunks()
                && let Some((prefix, first)) = ctr.position()
                // SAFETY: `off + n < len`: inside `c`'s and `m`'s `len` bytes
                // (caller contract: the same or disjoint); the local buffer is
                // apart from both; n is a multiple of 16 (CHUNK is) and the
                // mode's limit keeps the counters below 2^32.
                && unsafe {
                    key.cipher.ctr_keeping(&prefix, first, c.wrapping_add(off), m.wrapping_add(off), &mut private[..n])
                }
            {
                ctr.advance(n / 16);
                if off == 0 {
                    pad = key.mac_pad(&self.nonce);
                }
                // SAFETY: the leaf stored all `n` bytes, and this is the only
                // reference to the local buffer.
                let chunk = core::hint::black_box(unsafe { core::slice::from_raw_parts_mut(base, n) });
                self.r = hash::absorb_padded(&key.hash, self.r, chunk);
                off += n;
                continue;
            }
            let is_last = off + n == len;
            // A message of at most a chunk, if the key's tiers have the one
            // loop: its whole steps decrypted by it into the local buffer
            // (hashing the registers it loads), the rest copied there,
            // hashed and decrypted; copied out after the verdict, as a
            // short message is.
            #[cfg(target_arch = "x86_64")]
            if is_last
                && off == 0
                && let Some(one) = key.hash.one_loop(&key.cipher, n)
                && let Some((prefix, first)) = ctr.position()
            {
                let k = super::backend::OneLoop::bytes_of(n);
                pad = key.mac_pad(&self.nonce);
                // SAFETY: `k <= n = len`: inside `c`'s `len` readable bytes
                // (caller contract); the destination is the local buffer's
                // first `k <= CHUNK` bytes, which nothing else can reach; k
                // is whole steps and the mode's limit keeps the counters
                // below 2^32.
                self.r = unsafe { one.run::<true>(&prefix, first, self.r, c, base, k) };
                ctr.advance(k / 16);
                // SAFETY: bytes k..n of `c` (readable, as above) to the same
                // bytes of the local buffer.
                unsafe { copy(c.wrapping_add(k), base.wrapping_add(k), n - k) };
                // SAFETY: all `n` bytes are initialised now (the loop wrote
                // the first `k`), and this is the only reference to them.
                let chunk = core::hint::black_box(unsafe { core::slice::from_raw_parts_mut(base, n) });
                self.r = hash::absorb_padded(&key.hash, self.r, &chunk[k..]);
                ctr.apply(&key.cipher, &mut chunk[k..]);
                decrypted = true;
                break chunk;
            }
            if is_last && off == 0 && n >= DECRYPT_AFTER_VERDICT_FROM {
                // The MAC's pad first: its AES then overlaps the hash.
                pad = key.mac_pad(&self.nonce);
            }
            // The chunk's whole groups through the hash's lanes where they
            // store each register they load in the local buffer (the IFMA
            // and AVX2 lanes): the copy and the hash in one read, whose
            // memory waits then overlap the hash's arithmetic instead of
            // stalling a copy.
            let mut kept = 0;
            #[cfg(target_arch = "x86_64")]
            if let Some(keeper) = key.hash.keeping(n) {
                kept = n - n % 96;
                // SAFETY: `off + kept <= len`, so the source is inside `c`'s
                // `len` readable bytes (caller contract); the destination is
                // the first `kept <= CHUNK` bytes of the local buffer, which
                // nothing else can reach, so they do not overlap; `kept` is
                // whole groups, at least the lanes' shortest run.
                self.r = unsafe { keeper.run(self.r, c.wrapping_add(off), base, kept) };
            }
            // SAFETY: as above, for bytes `kept..n` of the chunk.
            unsafe { copy(c.wrapping_add(off + kept), base.wrapping_add(kept), n - kept) };
            // SAFETY: those `n` bytes were just initialised, and this is
            // the only reference to the local buffer.
            let chunk = unsafe { core::slice::from_raw_parts_mut(base, n) };
            // From here on the copy is the ciphertext: `black_box` makes the
            // optimizer treat it as opaque, so it cannot go back to `c` for
            // these bytes.
            let chunk = core::hint::black_box(chunk);
            self.r = hash::absorb_padded(&key.hash, self.r, &chunk[kept..]);
            if is_last {
                // The last chunk is held back until the verdict: a short
                // message decrypted here, a longer last chunk decrypted from
                // here after it (DECRYPT_AFTER_VERDICT_FROM).
                if off == 0 && n < DECRYPT_AFTER_VERDICT_FROM {
                    pad = ctr.apply_with_pad(&key.cipher, chunk);
                    decrypted = true;
                }
                break chunk;
            }
            let first = if off == 0 { Some(&mut pad) } else { None };
            // SAFETY: `off + n < len`: inside `m`'s `len` writable bytes
            // (caller contract), non-NULL as `n > 0`, not overlapping the
            // local buffer. The slice is only written (`apply_inout` never
            // reads its output) and dropped before `m` is touched again.
            let dst = unsafe { core::slice::from_raw_parts_mut(m.wrapping_add(off), n) };
            ctr.apply_inout(&key.cipher, InOutBuf::new(chunk, dst).expect("equal lengths"), first);
            off += n;
        };
        let e = hash::finish(self.r, self.len_a, len as u64);
        let mine = key.mac_of(e, &pad, self.tag_len);
        pad.zeroize();
        let verdict = public_verdict(tag_eq(&mine, &self.tag[..self.tag_len]));
        if verdict.is_err() {
            // SAFETY: `m` is valid for `len` writable bytes (caller contract).
            unsafe { wipe_raw(m, len) };
        } else if decrypted {
            // SAFETY: the last chunk's `last.len()` bytes end at `len`, inside
            // `m` (caller contract); the source is the local buffer.
            unsafe { copy(last.as_ptr(), m.wrapping_add(off), last.len()) };
        } else if !last.is_empty() {
            // SAFETY: the last chunk's `last.len() > 0` bytes end at `len`,
            // inside `m`'s writable bytes (caller contract), so `m` is not
            // NULL; they do not overlap the local buffer. The slice is only
            // written (`apply_inout` never reads its output) and dropped
            // before returning.
            let dst = unsafe { core::slice::from_raw_parts_mut(m.wrapping_add(off), last.len()) };
            ctr.apply_inout(&key.cipher, InOutBuf::new(&*last, dst).expect("equal lengths"), None);
        }
        if decrypted {
            // Then the local buffer holds the message's plaintext at its
            // start (past it only ciphertext, public); otherwise it held
            // only ciphertext.
            wipe(last);
        }
        verdict
    }
}

impl RawDecryptor<'_> {
    /// [`decrypt`](Self::decrypt) from `buf`'s input to its output (the same
    /// slice, or two that do not overlap: `InOutBuf` guarantees it).
    pub(crate) fn inout(self, buf: InOutBuf<'_, '_, u8>) -> Result<(), Error> {
        let len = buf.len();
        let (c, m) = buf.into_raw();
        // SAFETY: an `InOutBuf` is `len` readable bytes at `c` and `len`
        // writable ones at `m`, either the same or disjoint, borrowed for
        // this call.
        unsafe { self.decrypt(c, m, len) }
    }

    /// [`decrypt`](Self::decrypt) in place.
    pub(crate) fn in_place(self, buf: &mut [u8]) -> Result<(), Error> {
        self.inout(InOutBuf::from(buf))
    }
}

impl Drop for RawDecryptor<'_> {
    fn drop(&mut self) {
        self.r.zeroize();
    }
}

/// Run `f` over `data` chunk by chunk, each chunk read once into a private
/// buffer, changed there by `f` and written back (the streaming
/// [`Decryptor`](super::Decryptor)'s in-place pass: it hashes and decrypts
/// the same copy). The private buffer is wiped at the end.
pub(crate) fn through_private(data: &mut [u8], mut f: impl FnMut(&mut [u8])) {
    let mut private = [0u8; STREAM_CHUNK];
    for piece in data.chunks_mut(STREAM_CHUNK) {
        let copy = &mut private[..piece.len()];
        copy.copy_from_slice(piece);
        f(core::hint::black_box(copy));
        piece.copy_from_slice(copy);
    }
    wipe(&mut private[..data.len().min(STREAM_CHUNK)]);
}

/// Copy `n` bytes from `src` to `dst`; nothing (and no pointer is looked
/// at) when `n` is 0, where C callers may pass NULL.
///
/// # Safety
/// If `n > 0`: `src` valid for reads and `dst` for writes of `n` bytes,
/// not overlapping.
unsafe fn copy(src: *const u8, dst: *mut u8, n: usize) {
    if n > 0 {
        // SAFETY: caller contract.
        unsafe { ptr::copy_nonoverlapping(src, dst, n) };
    }
}

/// [`wipe`] for `len` bytes at a raw pointer.
///
/// # Safety
/// `m` valid for writes of `len` bytes (dangling if `len` is 0), with no
/// Rust reference into them in use.
unsafe fn wipe_raw(m: *mut u8, len: usize) {
    if len > 0 {
        // SAFETY: caller contract.
        unsafe { ptr::write_bytes(m, 0, len) };
    }
    core::hint::black_box(m);
}

#[cfg(test)]
mod tests {
    use super::*;
    use wegman_ref::cwc as reference;

    /// What an output holds before a call (neither plaintext nor zero).
    const SENTINEL: u8 = 0xa5;

    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut next = crate::xorshift(seed | 1);
        (0..len).map(|_| next() as u8).collect()
    }

    /// Under an emulator (`WEGMAN_EMULATED`, set by the CPU-class runs):
    /// there these tests are for the CPU class's leaves, which every length
    /// around a boundary reaches; natively they take every length and bit.
    fn emulated() -> bool {
        std::env::var_os("WEGMAN_EMULATED").is_some()
    }

    /// Whether `len` is within one byte of a multiple of 16 or 48 (the
    /// counter's blocks, the hash's AVX2 groups and four coefficients) or of
    /// a chunk (the 12-byte coefficients in between go through the portable
    /// code on every CPU, tested natively).
    fn near_a_boundary(len: usize) -> bool {
        [16, 48, CHUNK].iter().any(|&s| matches!(len % s, 0 | 1) || len % s == s - 1)
    }

    /// Decrypt `c` with `tag` three ways (a new `Vec`, in place, into a
    /// separate sentinel-filled buffer); all must agree, as success with
    /// the plaintext or as failure with a zeroed output.
    fn open_all_ways(key: &CwcKey, n: &[u8; 11], a: &[u8], c: &[u8], tag: &[u8]) -> Option<Vec<u8>> {
        let sealed = [c, tag].concat();
        let vec = key.decrypt(n, a, &sealed, tag.len());
        let mut in_place = c.to_vec();
        let r_in_place = key.decrypt_detached(n, a, &mut in_place, tag);
        let mut out = vec![SENTINEL; c.len()];
        let r_out = key.raw_decryptor(n, a, tag).and_then(|d| d.inout(InOutBuf::new(c, &mut out).unwrap()));
        match vec {
            Ok(p) => {
                assert!(r_in_place.is_ok() && r_out.is_ok(), "the three ways disagree (len {})", c.len());
                assert_eq!((&in_place, &out), (&p, &p), "len {}", c.len());
                Some(p)
            }
            Err(e) => {
                assert_eq!(e, Error::TagMismatch);
                assert_eq!((r_in_place, r_out), (Err(Error::TagMismatch), Err(Error::TagMismatch)));
                assert!(in_place.iter().chain(&out).all(|&b| b == 0), "output not wiped (len {})", c.len());
                None
            }
        }
    }

    /// Natively every length to a chunk and 4 KiB past it (every residue
    /// of every block and group size, through the last-chunk path and the
    /// kept-copy path with a short last chunk), and to three chunks the
    /// lengths around a boundary; under an emulator the lengths around a
    /// boundary to 8 KiB (past every backend's thresholds: its runs at
    /// every residue) and beyond them those around a chunk's (the one-pass
    /// logic between them is portable code, run natively at every length).
    #[test]
    fn every_length_to_a_chunk_and_every_boundary_to_three_opens_what_encrypt_sealed() {
        let m = bytes(3, 3 * CHUNK + 1);
        let a = bytes(5, 29);
        let n = [0x42; 11];
        for features in crate::cpu::levels_for_test() {
            for (i, klen) in [16, 24, 32].into_iter().enumerate() {
                let k = bytes(7 + i as u64, klen);
                let key = CwcKey::with_features(&k, features).unwrap();
                let first = |l: usize| l <= CHUNK + 4096;
                let near_chunk = |l: usize| matches!(l % CHUNK, 0 | 1) || l % CHUNK == CHUNK - 1;
                let wanted = |l: usize| match emulated() {
                    false => first(l) || near_a_boundary(l),
                    true => (l <= 8192 + 48 && near_a_boundary(l)) || near_chunk(l),
                };
                for len in (0..=3 * CHUNK + 1).filter(|&l| wanted(l)) {
                    let aad = &a[..(len + i) % 30];
                    let tl = 1 + (len + i) % 16;
                    let mut c = m[..len].to_vec();
                    let tag = key.encrypt_detached(&n, aad, &mut c, tl).unwrap();
                    let p = open_all_ways(&key, &n, aad, &c, tag.as_slice());
                    assert_eq!(p.as_deref(), Some(&m[..len]), "key {klen} len {len}");
                }
            }
        }
    }

    /// A chunk hashed while it is copied (`HashKey::keeping`, the IFMA
    /// lanes): under a fresh key for every message (the lanes' powers built
    /// for the run, as a one-shot call has them) and under a key whose
    /// lanes' table is built but not the per-coefficient one, at lengths
    /// around the lanes' shortest run, their groups of 96 bytes, the
    /// per-coefficient table's runs and a chunk, with associated data: each
    /// opens what the reference sealed, and refuses a flipped first or last
    /// byte, or tag bit, with its output zeroed.
    #[test]
    fn chunks_hashed_while_copied_equal_the_reference() {
        let n = [0x29; 11];
        let k = bytes(23, 16);
        let lens = [383, 384, 385, 479, 480, 481, 576, 577, 1000, 4095, 4096, 4097, 4200, 7679, CHUNK - 95, CHUNK];
        for features in crate::cpu::levels_for_test() {
            for len in lens.into_iter().filter(|&l| !emulated() || near_a_boundary(l)) {
                let m = bytes(len as u64 + 1, len);
                let a = bytes(29, len % 37);
                let sealed = reference::encrypt(&k, &n, &a, &m, 16);
                let (c, tag) = sealed.split_at(len);
                let warm = CwcKey::with_features(&k, features).unwrap();
                // 2 × 3000 bytes: the lanes' table, not the per-coefficient one
                for _ in 0..2 {
                    let mut x = vec![0; 3000];
                    let t = warm.encrypt_detached(&n, &[], &mut x, 16).unwrap();
                    warm.decrypt_detached(&n, &[], &mut x, t.as_slice()).unwrap();
                }
                for fresh in [true, false] {
                    let key = |_: ()| if fresh { CwcKey::with_features(&k, features).unwrap() } else { warm.clone() };
                    let what = format!("{features:?} len {len} fresh {fresh}");
                    assert_eq!(open_all_ways(&key(()), &n, &a, c, tag).as_deref(), Some(&m[..]), "{what}");
                    for at in [0, len - 1] {
                        let mut bad = c.to_vec();
                        bad[at] ^= 0x80;
                        assert_eq!(open_all_ways(&key(()), &n, &a, &bad, tag), None, "{what} byte {at}");
                    }
                    let mut bad = tag.to_vec();
                    bad[15] ^= 1;
                    assert_eq!(open_all_ways(&key(()), &n, &a, c, &bad), None, "{what} tag");
                }
            }
        }
    }

    /// `wipe` zeroes every byte it is given (cargo-mutants: a `wipe` that
    /// did nothing passed every other test, since the buffers it clears,
    /// the private copies of `decrypt` and `through_private`, are locals
    /// no caller can see after the call).
    #[test]
    fn wipe_zeroes_every_byte() {
        for len in [0, 1, 15, 16, 17, CHUNK] {
            let mut buf = bytes(11, len);
            buf.iter_mut().for_each(|b| *b |= 1);
            wipe(&mut buf);
            assert!(buf.iter().all(|&b| b == 0), "len {len}");
        }
    }

    /// Lengths around every multiple of 12 and 16 up to 600 (the hash's
    /// chunks, the counter's blocks, the AES batch of 32 blocks, the backends'
    /// minimum runs) and around one, two and three chunks.
    fn boundary_lengths() -> Vec<usize> {
        let small = (0..=600).filter(|l| [l % 12, l % 16].iter().any(|&r| r <= 1 || r == 11 || r == 15));
        let chunks = (1..=3).flat_map(|k| k * CHUNK - 25..=k * CHUNK + 25);
        small.chain(chunks).collect()
    }

    #[test]
    fn around_the_boundaries_equal_to_the_reference_and_every_tag_bit_flip_wiped() {
        let n = [0x17; 11];
        for (i, klen) in [16, 24, 32].into_iter().enumerate() {
            let k = bytes(11 + i as u64, klen);
            let key = CwcKey::new(&k).unwrap();
            let portable = CwcKey::with_features(&k, crate::cpu::Features::portable()).unwrap();
            for len in boundary_lengths().into_iter().filter(|&l| !emulated() || near_a_boundary(l)) {
                let m = bytes(len as u64, len);
                let a = bytes(13, (len * 7 + i) % 50);
                let tl = 1 + (len + i) % 16;
                let sealed = reference::encrypt(&k, &n, &a, &m, tl);
                assert_eq!(key.encrypt(&n, &a, &m, tl).unwrap(), sealed, "key {klen} len {len}");
                let (c, tag) = sealed.split_at(len);
                assert_eq!(open_all_ways(&key, &n, &a, c, tag).as_deref(), Some(&m[..]), "key {klen} len {len}");
                // Every bit of the tag up to 600 bytes (every tag length,
                // many times), beyond that and under an emulator the first
                // and last bit: the tag computed, and the wiping of what a
                // refused call wrote, do not depend on which bit of the given
                // tag is flipped; only the comparison does, which is the same
                // code at every message length and on every CPU.
                let exhaustive = len <= 600 && !emulated();
                let bits = (0..8 * tl).filter(|&b| exhaustive || b == 0 || b == 8 * tl - 1);
                for bit in bits {
                    let mut bad = tag.to_vec();
                    bad[bit / 8] ^= 1 << (bit % 8);
                    assert_eq!(open_all_ways(&key, &n, &a, c, &bad), None, "key {klen} len {len} tag bit {bit}");
                }
                // A flipped ciphertext bit in the first and in the last chunk:
                // refused exactly when the reference refuses (a 1-byte tag
                // still matches one changed message in 256). Past 600 bytes
                // and under an emulator the portable backends stand in for
                // the reference (tests/cwc_backends.rs holds every level, the
                // portable one too, to the reference around every threshold
                // and on long messages; the reference's big integers took
                // 95 % of this test's time natively, half under qemu).
                for at in [0, len.saturating_sub(1)].into_iter().filter(|_| len > 0) {
                    let mut bad = c.to_vec();
                    bad[at] ^= 0x10;
                    let sealed_bad = [&bad[..], tag].concat();
                    let want = match exhaustive {
                        true => reference::decrypt(&k, &n, &a, &sealed_bad, tl),
                        false => portable.decrypt(&n, &a, &sealed_bad, tl).ok(),
                    };
                    assert_eq!(open_all_ways(&key, &n, &a, &bad, tag), want, "key {klen} len {len} byte {at}");
                }
            }
        }
    }

    #[test]
    fn streaming_decryptor_reads_through_the_private_copy_at_every_split() {
        let k = bytes(17, 16);
        let key = CwcKey::new(&k).unwrap();
        let n = [9; 11];
        let m = bytes(19, 2 * CHUNK + 7);
        let sealed = key.encrypt(&n, b"aad", &m, 16).unwrap();
        let (c, tag) = sealed.split_at(m.len());
        let around = |x: usize| [x - 1, x, x + 1];
        let splits = [0, 1, 11, 12, 13, 16, 2 * CHUNK, m.len()].into_iter().chain(around(CHUNK));
        for split in splits.chain(around(STREAM_CHUNK)).chain(around(2 * STREAM_CHUNK)) {
            let mut ver = key.verifier(&n, b"aad", 16).unwrap();
            ver.update(c).unwrap();
            let mut dec = ver.verify(tag).unwrap();
            let mut buf = c.to_vec();
            let (x, y) = buf.split_at_mut(split);
            dec.update(x).unwrap();
            dec.update(y).unwrap();
            dec.finish().unwrap();
            assert_eq!(buf, m, "split {split}");
        }
    }

    #[test]
    fn lengths_past_the_limit_fail_before_reading_or_writing() {
        let key = CwcKey::new(&[1; 16]).unwrap();
        let dec = key.raw_decryptor(&[0; 11], b"", &[0; 16]).unwrap();
        let too_long = usize::try_from(crate::cwc::MAX_BYTES + 1).unwrap();
        // SAFETY: the length is refused before either pointer is used.
        let r = unsafe { dec.decrypt(ptr::null(), ptr::null_mut(), too_long) };
        assert!(matches!(r, Err(Error::TooLong { .. })));
        assert!(matches!(key.raw_decryptor(&[0; 11], b"", &[0; 17]), Err(Error::InvalidTagLength { .. })));
        assert!(matches!(key.raw_decryptor(&[0; 11], b"", &[]), Err(Error::InvalidTagLength { .. })));
    }
}
