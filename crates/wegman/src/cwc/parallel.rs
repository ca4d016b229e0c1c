//! CWC-AES of one long message on several threads.
//!
//! Both halves split: CWC-CTR is a counter mode, so a run starting at block
//! b takes the keystream from counter b + 1; CWC-HASH is a polynomial in Kh
//! mod 2^127 − 1, so each run's R_j is computed from R = 0 over its own
//! 12-byte chunks and
//!
//! ```text
//! R = R_A · Kh^(chunks of σ) + Σ_j R_j · Kh^(chunks after run j)
//! ```
//!
//! by Horner's rule over the runs (R_A: the associated data, hashed on the
//! calling thread). Runs are 192 KiB: whole AES blocks and whole 12-byte
//! chunks (so only the last run is padded, as the whole σ is), and small
//! enough for a core's L2. The threads are `crate::parallel`'s.
//!
//! Decryption keeps the one-pass rule (`one_pass.rs`): each run's
//! ciphertext is read once into a private buffer, hashed and decrypted
//! there; the tag is checked before the plaintext counts as released.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use zeroize::Zeroize;

use super::NONCE_BYTES;
use super::backend::{canonical, mul};
use super::ctr::Ctr;
use super::hash::absorb_padded;
use super::key::{CwcKey, Tag, check_len, check_tag_len, tag_eq};
use crate::error::Error;
use crate::parallel::{Fill, Sink, each_run, run_start, thread_count};

/// The runs the threads take turns at (a multiple of 16 and of 48).
pub(crate) const RUN_BYTES: usize = 192 << 10;

/// What a run does between reading its bytes and handing them on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Plaintext in: encrypt, then hash the ciphertext.
    Encrypt,
    /// Ciphertext in: hash only (a tag check before anything is written).
    Hash,
    /// Ciphertext in: hash, then decrypt.
    Decrypt,
}

fn run_ends(len: usize) -> Vec<usize> {
    crate::parallel::run_ends(len, RUN_BYTES)
}

/// Kh^n mod 2^127 − 1, canonical, by square-and-multiply over the bits of
/// the public `n`.
fn kh_pow(kh: u128, n: u64) -> u128 {
    let mut acc = 1u128;
    for bit in (0..u64::BITS - n.leading_zeros()).rev() {
        acc = canonical(mul(acc, acc));
        if (n >> bit) & 1 == 1 {
            acc = canonical(mul(acc, kh));
        }
    }
    acc
}

/// R (canonical) of A and a `len`-byte σ supplied run by run through
/// `fill`; each run transformed by `op` and, with a `sink`, handed on.
#[allow(clippy::too_many_arguments)]
fn hash_runs<E: Send>(
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    len: usize,
    threads: NonZeroUsize,
    op: Op,
    fill: &Fill<'_, E>,
    sink: Option<&Sink<'_, E>>,
) -> Result<u128, E> {
    hash_cut(key, nonce, aad, &run_ends(len), thread_count(len, threads), op, fill, sink)
}

/// [`hash_runs`] with the runs ending at `ends` (multiples of 48 but the
/// last, which is the length: a run starts on an AES block and a 12-byte
/// chunk; runs may be empty), on `threads` threads.
#[allow(clippy::too_many_arguments)]
fn hash_cut<E: Send>(
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    ends: &[usize],
    threads: usize,
    op: Op,
    fill: &Fill<'_, E>,
    sink: Option<&Sink<'_, E>>,
) -> Result<u128, E> {
    debug_assert!(ends[..ends.len() - 1].iter().all(|e| e % 48 == 0) && ends.windows(2).all(|w| w[0] <= w[1]));
    let mut rs = each_run(ends, threads, |_, from, to, buffer| {
        buffer.resize(to - from, 0);
        fill(from as u64, buffer)?;
        let ctr = || Ctr::at_block(nonce, (from / 16) as u64);
        if op == Op::Encrypt {
            ctr().apply(&key.cipher, buffer);
        }
        let r = absorb_padded(&key.hash, 0, buffer);
        if op == Op::Decrypt {
            ctr().apply(&key.cipher, buffer);
        }
        if let Some(sink) = sink
            && !buffer.is_empty()
        {
            sink(from as u64, buffer)?;
        }
        Ok(r)
    })?;
    let kh = key.hash.kh();
    let mut r = canonical(absorb_padded(&key.hash, 0, aad));
    let mut power: Option<(u64, u128)> = None;
    for (i, rj) in rs.iter().enumerate() {
        let chunks = (ends[i] - run_start(ends, i)).div_ceil(12) as u64;
        let p = match power {
            Some((n, p)) if n == chunks => p,
            _ => kh_pow(kh, chunks),
        };
        power = Some((chunks, p));
        // Both canonical: the sum is below 2^128.
        r = canonical(mul(r, p)) + canonical(*rj);
    }
    if let Some((_, mut p)) = power {
        p.zeroize();
    }
    rs.zeroize();
    Ok(canonical(r))
}

/// [`hash_runs`] from `input` (each byte read once) into `output`, whose
/// runs each thread locks in turn (once each).
fn in_memory(
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    input: &[u8],
    output: &mut [u8],
    threads: NonZeroUsize,
    op: Op,
) -> Result<u128, Error> {
    let pieces: Vec<Mutex<&mut [u8]>> = output.chunks_mut(RUN_BYTES).map(Mutex::new).collect();
    let fill = |at: u64, buf: &mut [u8]| {
        buf.copy_from_slice(&input[at as usize..at as usize + buf.len()]);
        Ok::<(), Error>(())
    };
    let sink = |at: u64, buf: &[u8]| {
        let mut piece = pieces[at as usize / RUN_BYTES].lock().unwrap_or_else(|p| p.into_inner());
        piece.copy_from_slice(buf);
        Ok::<(), Error>(())
    };
    hash_runs(key, nonce, aad, input.len(), threads, op, &fill, Some(&sink))
}

impl CwcKey {
    /// [`CwcKey::encrypt`] on up to `threads` threads (one per 4 MiB of
    /// message at most, none below 8 MiB): `ciphertext || tag`, the same
    /// bytes.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use wegman::cwc::CwcKey;
    /// let key = CwcKey::new(&[7u8; 16])?;
    /// let message = vec![1u8; 9 << 20];
    /// let two = NonZeroUsize::new(2).unwrap();
    /// let sealed = key.encrypt_parallel(&[3; 11], b"aad", &message, 16, two)?;
    /// assert_eq!(sealed, key.encrypt(&[3; 11], b"aad", &message, 16)?);
    /// assert_eq!(key.decrypt_parallel(&[3; 11], b"aad", &sealed, 16, two)?, message);
    /// # Ok::<(), wegman::Error>(())
    /// ```
    pub fn encrypt_parallel(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
        threads: NonZeroUsize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        check_len("associated data", aad.len() as u64)?;
        check_len("message", plaintext.len() as u64)?;
        if thread_count(plaintext.len(), threads) == 1 {
            return self.encrypt(nonce, aad, plaintext, tag_len);
        }
        let mut out = vec![0u8; plaintext.len() + tag_len];
        let (body, tail) = out.split_at_mut(plaintext.len());
        let r = in_memory(self, nonce, aad, plaintext, body, threads, Op::Encrypt)?;
        tail.copy_from_slice(self.tag_of(nonce, r, aad.len(), plaintext.len(), tag_len).as_slice());
        Ok(out)
    }

    /// [`CwcKey::decrypt`] on up to `threads` threads: the plaintext, or an
    /// error and nothing at all. Each byte of `sealed` is read once (into a
    /// run's private buffer, hashed and decrypted there); on a wrong tag the
    /// plaintext is zeroed before it is freed.
    pub fn decrypt_parallel(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        sealed: &[u8],
        tag_len: usize,
        threads: NonZeroUsize,
    ) -> Result<Vec<u8>, Error> {
        check_tag_len(tag_len)?;
        check_len("associated data", aad.len() as u64)?;
        if thread_count(sealed.len(), threads) == 1 {
            return self.decrypt(nonce, aad, sealed, tag_len);
        }
        let split = sealed.len().checked_sub(tag_len).ok_or(Error::TagMismatch)?;
        check_len("ciphertext", split as u64)?;
        let (c, tag) = sealed.split_at(split);
        let mut out = vec![0u8; split];
        let r = in_memory(self, nonce, aad, c, &mut out, threads, Op::Decrypt)?;
        let mine = self.tag_of(nonce, r, aad.len(), split, tag_len);
        if tag_eq(&mine, tag) {
            Ok(out)
        } else {
            out.zeroize();
            Err(Error::TagMismatch)
        }
    }

    /// CWC-ENC of a `len`-byte message supplied piece by piece (a file read
    /// with `pread`) on up to `threads` threads: `fill(offset, buffer)`
    /// gives plaintext, `sink(offset, ciphertext)` takes the ciphertext of
    /// the same bytes (in any order, from any thread); returns the tag.
    /// Lengths are checked before anything is read; the first error of
    /// `fill` or `sink` stops the threads and is returned.
    #[allow(clippy::too_many_arguments)]
    pub fn encrypt_parallel_from<E: From<Error> + Send>(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        len: usize,
        tag_len: usize,
        threads: NonZeroUsize,
        fill: &Fill<'_, E>,
        sink: &Sink<'_, E>,
    ) -> Result<Tag, E> {
        check_tag_len(tag_len)?;
        check_len("associated data", aad.len() as u64)?;
        check_len("message", len as u64)?;
        let r = hash_runs(self, nonce, aad, len, threads, Op::Encrypt, fill, Some(sink))?;
        Ok(self.tag_of(nonce, r, aad.len(), len, tag_len))
    }

    /// CWC-DEC of a `len`-byte ciphertext supplied piece by piece, with its
    /// `tag`, on up to `threads` threads, in two passes: the first only
    /// hashes and checks the tag (`sink` sees nothing if it is wrong); the
    /// second reads the ciphertext again, hashes and decrypts each run
    /// (from one read of it) and hands the plaintext to `sink`, then checks
    /// the tag again. `Ok(())` only if both checks pass: on an error after
    /// the first pass (the input changed between the passes, or `fill` or
    /// `sink` failed) the caller must discard what `sink` received.
    #[allow(clippy::too_many_arguments)]
    pub fn decrypt_parallel_from<E: From<Error> + Send>(
        &self,
        nonce: &[u8; NONCE_BYTES],
        aad: &[u8],
        len: usize,
        tag: &[u8],
        threads: NonZeroUsize,
        fill: &Fill<'_, E>,
        sink: &Sink<'_, E>,
    ) -> Result<(), E> {
        check_tag_len(tag.len())?;
        check_len("associated data", aad.len() as u64)?;
        check_len("ciphertext", len as u64)?;
        for op in [Op::Hash, Op::Decrypt] {
            let r = hash_runs(self, nonce, aad, len, threads, op, fill, (op == Op::Decrypt).then_some(sink))?;
            if !tag_eq(&self.tag_of(nonce, r, aad.len(), len, tag.len()), tag) {
                return Err(Error::TagMismatch.into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Features;

    fn levels() -> Vec<Features> {
        crate::cpu::levels_for_test()
    }

    /// Every backend, 1–3 threads, against the one-thread calls (which the
    /// vector and reference tests pin), at lengths around the runs'
    /// boundaries and the 12-byte chunks, and a tag refused.
    #[test]
    fn same_bytes_as_one_thread_at_run_boundaries() {
        let emulated = std::env::var_os("WEGMAN_EMULATED").is_some();
        let lens = [0usize, 1, 12, RUN_BYTES - 1, RUN_BYTES, RUN_BYTES + 11, 3 * RUN_BYTES + 13];
        let message: Vec<u8> = (0..3 * RUN_BYTES + 13).map(|i| (i * 31 + 7) as u8).collect();
        for features in levels() {
            let key = CwcKey::with_features(&[0x42; 16], features).unwrap();
            for &len in lens.iter().filter(|&&l| !emulated || l <= RUN_BYTES + 11) {
                let m = &message[..len];
                let want = key.encrypt(&[9; 11], b"header", m, 16).unwrap();
                // Below 8 MiB the public calls keep one thread; the runs and
                // their combination are the same code on any thread count.
                for t in [1usize, 2, 3] {
                    let t = NonZeroUsize::new(t).unwrap();
                    let r = |op| {
                        let fill = |at: u64, b: &mut [u8]| {
                            b.copy_from_slice(&m[at as usize..at as usize + b.len()]);
                            Ok::<(), Error>(())
                        };
                        hash_runs(&key, &[9; 11], b"header", len, t, op, &fill, None).unwrap()
                    };
                    let tag = key.tag_of(&[9; 11], r(Op::Encrypt), 6, len, 16);
                    assert_eq!(tag.as_slice(), &want[len..], "{features:?} len {len}");
                    let c = &want[..len];
                    let fill = |at: u64, b: &mut [u8]| {
                        b.copy_from_slice(&c[at as usize..at as usize + b.len()]);
                        Ok::<(), Error>(())
                    };
                    let r = hash_runs(&key, &[9; 11], b"header", len, t, Op::Hash, &fill, None).unwrap();
                    assert_eq!(key.tag_of(&[9; 11], r, 6, len, 16).as_slice(), &want[len..]);
                }
                let two = NonZeroUsize::new(2).unwrap();
                assert_eq!(key.encrypt_parallel(&[9; 11], b"header", m, 16, two).unwrap(), want);
                assert_eq!(key.decrypt_parallel(&[9; 11], b"header", &want, 16, two).unwrap(), m);
                let mut bad = want.clone();
                bad[len / 2] ^= 1;
                assert_eq!(key.decrypt_parallel(&[9; 11], b"header", &bad, 16, two), Err(Error::TagMismatch));
            }
        }
    }

    /// Any cut on 48-byte boundaries, 1–64 runs, empty runs included, on
    /// one thread and on three: the one-thread tag (encrypting) and the same
    /// tag from the ciphertext (hashing only).
    #[test]
    fn every_cut_gives_the_one_thread_tag() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = |n: usize| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 33) as usize % n
        };
        let message: Vec<u8> = (0..20_000).map(|i| (i * 7 + 3) as u8).collect();
        for features in levels() {
            let key = CwcKey::with_features(&[0x24; 16], features).unwrap();
            for len in [0usize, 1, 47, 48, 49, 480, 4801, 20_000] {
                let m = &message[..len];
                let want = key.encrypt(&[1; 11], b"ad", m, 16).unwrap();
                let c = &want[..len];
                for runs in [1usize, 2, 3, 7, 64] {
                    let mut ends: Vec<usize> = (1..runs).map(|_| rand(len / 48 + 1) * 48).collect();
                    ends.sort_unstable();
                    ends.push(len);
                    for threads in [1, 3] {
                        let fill_m = |at: u64, b: &mut [u8]| {
                            b.copy_from_slice(&m[at as usize..at as usize + b.len()]);
                            Ok::<(), Error>(())
                        };
                        let fill_c = |at: u64, b: &mut [u8]| {
                            b.copy_from_slice(&c[at as usize..at as usize + b.len()]);
                            Ok::<(), Error>(())
                        };
                        let r = hash_cut(&key, &[1; 11], b"ad", &ends, threads, Op::Encrypt, &fill_m, None).unwrap();
                        assert_eq!(key.tag_of(&[1; 11], r, 2, len, 16).as_slice(), &want[len..], "{ends:?}");
                        let r = hash_cut(&key, &[1; 11], b"ad", &ends, threads, Op::Hash, &fill_c, None).unwrap();
                        assert_eq!(key.tag_of(&[1; 11], r, 2, len, 16).as_slice(), &want[len..], "{ends:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn kh_powers_match_repeated_products() {
        let kh = (1u128 << 126) + 12345;
        let mut want = 1u128;
        for n in 0..70u64 {
            assert_eq!(kh_pow(kh, n), want, "n = {n}");
            want = canonical(mul(want, kh));
        }
    }
}
