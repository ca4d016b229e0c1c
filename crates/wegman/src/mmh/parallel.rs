//! An MMH/NMH tag of one long message on several threads.
//!
//! Level 0 of the tree (spec §3) hashes each block of the message on its
//! own: runs of whole blocks are hashed by the threads (`crate::parallel`)
//! into their w-byte outputs, which are handed, in message order, to a
//! streaming [`Tree`] as level 1's input; the message's final partial block
//! and every level above are the tree's as for one thread. The threads work
//! through the message a window at a time, so the outputs held at once stay
//! bounded (one window's: at most 4 MiB) however long the message.

use std::num::NonZeroUsize;

use zeroize::Zeroize;

use super::alg::{Alg, KEY_BYTES, NONCE_BYTES};
use super::key::MacKey;
use super::mac::check;
use super::tag::{Tag, seal};
use super::tree::Tree;
use crate::error::Error;
use crate::parallel::{Fill, MIN_PARALLEL_BYTES, each_run, thread_count};

/// The runs the threads take turns at (a whole number of 128- and 256-byte blocks).
const RUN_BYTES: usize = 256 << 10;
/// Runs hashed before their outputs go up the tree.
const WINDOW_RUNS: usize = 64;

/// [`super::mac`] on up to `threads` threads: the same tag. A key is
/// expanded for the threads only for a message of
/// [`crate::parallel::MIN_PARALLEL_BYTES`] or more; a shorter one, or
/// `threads` = 1, takes the one-thread call.
pub fn mac_parallel(
    alg: Alg,
    key: &[u8; KEY_BYTES],
    nonce: &[u8; NONCE_BYTES],
    message: &[u8],
    threads: NonZeroUsize,
) -> Result<Tag, Error> {
    if threads.get() == 1 || message.len() < MIN_PARALLEL_BYTES {
        super::mac(alg, key, nonce, message)
    } else {
        MacKey::new(alg, key).mac_parallel(nonce, message, threads)
    }
}

/// [`super::verify`] on up to `threads` threads, as [`mac_parallel`].
#[must_use = "a failed verification must be acted upon"]
pub fn verify_parallel(
    alg: Alg,
    key: &[u8; KEY_BYTES],
    tag: &[u8],
    nonce: &[u8; NONCE_BYTES],
    message: &[u8],
    threads: NonZeroUsize,
) -> Result<(), Error> {
    if threads.get() == 1 || message.len() < MIN_PARALLEL_BYTES {
        super::verify(alg, key, tag, nonce, message)
    } else {
        MacKey::new(alg, key).verify_parallel(tag, nonce, message, threads)
    }
}

impl MacKey {
    /// [`MacKey::mac`] on up to `threads` threads (one per 4 MiB of message
    /// at most, none below 8 MiB): the same tag.
    ///
    /// ```
    /// use std::num::NonZeroUsize;
    /// use wegman::mmh::{Alg, MacKey};
    /// let key = MacKey::new(Alg::Mmh32x2, &[5u8; 32]);
    /// let message = vec![3u8; 9 << 20];
    /// let tag = key.mac_parallel(&[0; 16], &message, NonZeroUsize::new(2).unwrap())?;
    /// assert_eq!(tag, key.mac(&[0; 16], &message)?);
    /// # Ok::<(), wegman::Error>(())
    /// ```
    pub fn mac_parallel(&self, nonce: &[u8; NONCE_BYTES], message: &[u8], threads: NonZeroUsize) -> Result<Tag, Error> {
        if thread_count(message.len(), threads) == 1 {
            return self.mac(nonce, message);
        }
        // Level 0 straight from the message (no copy).
        let bb = self.alg().block_bytes();
        let full = message.len() - message.len() % bb;
        self.tag_from_outputs(nonce, message.len(), threads, &message[full..], |from, to, _| {
            Ok(self.level0(&message[from..to]))
        })
    }

    /// [`MacKey::verify`] on up to `threads` threads.
    #[must_use = "a failed verification must be acted upon"]
    pub fn verify_parallel(
        &self,
        tag: &[u8],
        nonce: &[u8; NONCE_BYTES],
        message: &[u8],
        threads: NonZeroUsize,
    ) -> Result<(), Error> {
        check(self.alg(), &self.mac_parallel(nonce, message, threads)?, tag)
    }

    /// [`MacKey::mac_parallel`] of a `len`-byte message supplied piece by
    /// piece (`fill(offset, buffer)`, from any thread, as for
    /// `poly1305aes::authenticate_parallel_from`); the first error of
    /// `fill` stops it and is returned, and so is a length that would need a
    /// 17th tree level.
    pub fn mac_parallel_from<E: From<Error> + Send>(
        &self,
        nonce: &[u8; NONCE_BYTES],
        len: usize,
        threads: NonZeroUsize,
        fill: &Fill<'_, E>,
    ) -> Result<Tag, E> {
        let bb = self.alg().block_bytes();
        let full = len - len % bb;
        let mut last = vec![0u8; len - full];
        fill(full as u64, &mut last)?;
        let tag = self.tag_from_outputs(nonce, len, threads, &last, |from, to, buffer| {
            buffer.resize(to - from, 0);
            fill(from as u64, buffer)?;
            Ok(self.level0(buffer))
        });
        last.zeroize();
        tag
    }

    /// Level 0's outputs of whole blocks.
    fn level0(&self, blocks: &[u8]) -> Vec<u8> {
        let alg = self.alg();
        let mut out = vec![0u8; blocks.len() / alg.block_bytes() * alg.output_bytes()];
        self.keys().absorb(0, blocks, &mut out);
        out
    }

    /// The tag of a `len`-byte message whose whole blocks' level-0 outputs
    /// `outputs(from, to, scratch)` gives run by run (on the threads, a
    /// window at a time) and whose final partial block is `last`.
    fn tag_from_outputs<E: From<Error> + Send>(
        &self,
        nonce: &[u8; NONCE_BYTES],
        len: usize,
        threads: NonZeroUsize,
        last: &[u8],
        outputs: impl Fn(usize, usize, &mut Vec<u8>) -> Result<Vec<u8>, E> + Sync,
    ) -> Result<Tag, E> {
        let alg = self.alg();
        let keys = self.keys();
        let mut tree = Tree::new(alg);
        tree.admit(len)?;
        let threads = thread_count(len, threads);
        let full = len - last.len();
        let mut window = 0;
        while window < full {
            let end = (window + WINDOW_RUNS * RUN_BYTES).min(full);
            let ends: Vec<usize> = (window + RUN_BYTES..end).step_by(RUN_BYTES).chain([end]).collect();
            let ends: Vec<usize> = ends.iter().map(|e| e - window).collect();
            let mut outs =
                each_run(&ends, threads, |_, from, to, scratch| outputs(window + from, window + to, scratch))?;
            for out in &outs {
                tree.absorb_outputs(keys, out);
            }
            outs.iter_mut().for_each(|o| o.zeroize());
            window = end;
        }
        tree.absorb(keys, last);
        let mut h = tree.finalize(keys)?;
        let mut pad = self.pad(nonce);
        let tag = seal(alg, &h, &pad);
        h.zeroize();
        pad.zeroize();
        Ok(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmh::Alg;

    /// The outputs of level-0 runs handed up the tree give the one-thread
    /// tag for every algorithm and backend, around the blocks, the runs and
    /// the windows (the thread count only decides who computes a run).
    #[test]
    fn the_same_tag_as_one_thread() {
        let emulated = std::env::var_os("WEGMAN_EMULATED").is_some();
        let message: Vec<u8> = (0..WINDOW_RUNS * RUN_BYTES + 3 * RUN_BYTES + 300).map(|i| (i * 13 + 1) as u8).collect();
        let lens = [
            0usize,
            1,
            127,
            128,
            129,
            256,
            RUN_BYTES - 1,
            RUN_BYTES,
            RUN_BYTES + 129,
            WINDOW_RUNS * RUN_BYTES + 3 * RUN_BYTES + 300,
        ];
        for alg in Alg::ALL {
            for features in crate::cpu::levels_for_test() {
                let key = MacKey::with_features(alg, &[0x5a; 32], features);
                for &len in lens.iter().filter(|&&l| !emulated || l <= RUN_BYTES + 129) {
                    let m = &message[..len];
                    let fill = |at: u64, b: &mut [u8]| {
                        b.copy_from_slice(&m[at as usize..at as usize + b.len()]);
                        Ok::<(), Error>(())
                    };
                    let want = key.mac(&[7; 16], m).unwrap();
                    for t in [1usize, 3] {
                        let got = key.mac_parallel_from(&[7; 16], len, NonZeroUsize::new(t).unwrap(), &fill).unwrap();
                        assert_eq!(got, want, "{alg:?} {features:?} len {len}");
                    }
                }
            }
        }
    }
}
