//! The tree hash of spec §3 (paper §2.4, padding as §3.4 suggests), streaming.
//!
//! Each level keeps one block-sized buffer. A full block of level j's input
//! S_j is always a real block of P_j (the padding comes after S_j's last
//! byte), so it is hashed as soon as it is complete and its w output bytes go
//! straight into level j+1's buffer. Memory is therefore one block per level,
//! at most 16 × 256 bytes, whatever the message length.
//!
//! Finalization walks up from level 0: pad the level's buffer with `0x01` and
//! zeros, hash it, and if the level never saw a full block before, that
//! output is H; otherwise feed it to the next level and continue there.

use zeroize::Zeroize;

use super::alg::{Alg, MAX_BLOCK_BYTES, MAX_LEVELS, MAX_TAG_BYTES};
use super::backend::Keys;
use crate::error::Error;

/// Output bytes of the blocks handed to the backend per call at level 0
/// (64 blocks of the widest output): bounds the stack buffer for their
/// outputs and amortizes the backend dispatch and the hand-over to level 1.
const RUN_OUT_BASE: usize = 64 * MAX_TAG_BYTES;
/// The same above level 0, whose input arrives in pieces of at most
/// RUN_OUT_BASE bytes: a smaller buffer, because each call zero-fills its
/// own (measured: 1 KiB per level per call was a fifth of NMH32's
/// instructions at 1 MiB).
const RUN_OUT_UPPER: usize = 16 * MAX_TAG_BYTES;

#[derive(Clone)]
struct Level {
    buf: [u8; MAX_BLOCK_BYTES],
    /// Bytes in `buf`, always `< B` between calls.
    fill: usize,
    /// Whether a full block of this level's input has been hashed.
    hashed_block: bool,
}

impl Level {
    const fn new() -> Self {
        Level { buf: [0u8; MAX_BLOCK_BYTES], fill: 0, hashed_block: false }
    }

    fn wipe(&mut self, block_bytes: usize) {
        self.buf[..block_bytes].zeroize();
        self.fill = 0;
    }
}

/// Streaming tree-hash state. Level 0 lives inline so that messages shorter
/// than a block allocate nothing; higher levels are opened as they are needed.
///
/// `upper` holds intermediate hash values, so it must never reallocate
/// (that would free a copy of them unwiped): the first opened level makes
/// room for all 15, and a clone makes the same room (hence no derived
/// `Clone`, which would allocate only the levels present).
pub(crate) struct Tree {
    alg: Alg,
    /// Message bytes absorbed so far (public).
    len: u128,
    /// Set once a too-long update was refused; every later call fails.
    refused: bool,
    base: Level,
    upper: Vec<Level>,
}

impl Tree {
    pub(crate) fn new(alg: Alg) -> Self {
        Tree { alg, len: 0, refused: false, base: Level::new(), upper: Vec::new() }
    }

    /// Open level `upper.len() + 1`, within the room for all upper levels.
    fn open_level(&mut self) {
        if self.upper.capacity() == 0 {
            self.upper = upper_room();
        }
        assert!(self.upper.len() < self.upper.capacity(), "admit() bounds the height, so the room suffices");
        self.upper.push(Level::new());
    }

    pub(crate) fn alg(&self) -> Alg {
        self.alg
    }

    fn too_long(&self) -> Error {
        Error::TooLong { what: "message", max: u64::try_from(self.alg.max_message_len()).unwrap_or(u64::MAX) }
    }

    /// Account for `more` message bytes about to be absorbed and return the
    /// number of levels the message will then need; refuse (for good) if that
    /// exceeds 16, before anything is hashed.
    pub(crate) fn admit(&mut self, more: usize) -> Result<usize, Error> {
        let new_len = self.len + more as u128;
        if self.refused || new_len > self.alg.max_message_len() {
            self.refused = true;
            return Err(self.too_long());
        }
        self.len = new_len;
        Ok(self.alg.levels_for_len(new_len))
    }

    /// Absorb `data`, already [`admit`](Tree::admit)ted. `keys` must hold the
    /// levels `admit` returned.
    pub(crate) fn absorb(&mut self, keys: &Keys, data: &[u8]) {
        debug_assert!(!self.refused);
        debug_assert!(keys.levels() >= self.alg.levels_for_len(self.len));
        self.absorb_level::<RUN_OUT_BASE>(keys, 0, data);
    }

    /// `admit` then `absorb`, for keys that hold all 16 levels.
    pub(crate) fn update(&mut self, keys: &Keys, data: &[u8]) -> Result<(), Error> {
        self.admit(data.len())?;
        self.absorb(keys, data);
        Ok(())
    }

    /// Level 0's outputs of whole blocks of the message computed apart (in
    /// message order, a whole number of w-byte outputs): what
    /// [`absorb`](Tree::absorb) of those blocks would have passed up. Only
    /// while level 0 holds no partial block; the bytes were `admit`ted.
    pub(crate) fn absorb_outputs(&mut self, keys: &Keys, outputs: &[u8]) {
        debug_assert!(self.base.fill == 0 && outputs.len().is_multiple_of(self.alg.output_bytes()));
        if outputs.is_empty() {
            return;
        }
        self.base.hashed_block = true;
        if self.upper.is_empty() {
            self.open_level();
        }
        self.absorb_level::<RUN_OUT_UPPER>(keys, 1, outputs);
    }

    fn level(&mut self, j: usize) -> &mut Level {
        if j == 0 { &mut self.base } else { &mut self.upper[j - 1] }
    }

    /// Append `data` to level j's input, hashing every block it completes and
    /// passing the outputs up.
    fn absorb_level<const OUT: usize>(&mut self, keys: &Keys, j: usize, mut data: &[u8]) {
        debug_assert!(j < MAX_LEVELS, "admit() bounds the height");
        let bb = self.alg.block_bytes();
        let w = self.alg.output_bytes();
        let mut out = [0u8; OUT];
        let mut used = 0;
        while !data.is_empty() {
            let lv = self.level(j);
            let produced = if lv.fill == 0 && data.len() >= bb {
                // Whole blocks straight from the input.
                let nb = (data.len() / bb).min(OUT / w);
                // The leaves ask for their run's lines a little way ahead,
                // never past its end; the start of the next run is asked
                // for here, so that a long message is covered throughout.
                let next = &data[nb * bb..];
                crate::prefetch::slice(&next[..next.len().min(crate::prefetch::RUN_AHEAD)]);
                keys.absorb(j, &data[..nb * bb], &mut out[..nb * w]);
                data = &data[nb * bb..];
                nb * w
            } else {
                let take = (bb - lv.fill).min(data.len());
                lv.buf[lv.fill..lv.fill + take].copy_from_slice(&data[..take]);
                lv.fill += take;
                data = &data[take..];
                if lv.fill < bb {
                    break; // data is exhausted
                }
                keys.absorb(j, &lv.buf[..bb], &mut out[..w]);
                lv.fill = 0;
                w
            };
            lv.hashed_block = true;
            used = used.max(produced);
            if self.upper.len() < j + 1 {
                self.open_level();
            }
            self.absorb_level::<RUN_OUT_UPPER>(keys, j + 1, &out[..produced]);
        }
        out[..used].zeroize();
    }

    /// Pad and hash each level in turn (spec §3) and return H, w bytes
    /// (the rest zero). Fails only if an update was refused.
    pub(crate) fn finalize(&mut self, keys: &Keys) -> Result<[u8; MAX_TAG_BYTES], Error> {
        if self.refused {
            return Err(self.too_long());
        }
        let bb = self.alg.block_bytes();
        let w = self.alg.output_bytes();
        let mut out = [0u8; MAX_TAG_BYTES];
        let mut j = 0;
        loop {
            let lv = self.level(j);
            pad_last(&mut lv.buf[..bb], lv.fill);
            keys.absorb(j, &lv.buf[..bb], &mut out[..w]);
            lv.fill = 0;
            if !lv.hashed_block {
                return Ok(out); // Drop wipes the buffers
            }
            // Level j+1 exists: it was opened when level j hashed a block.
            self.absorb_level::<RUN_OUT_UPPER>(keys, j + 1, &out[..w]);
            j += 1;
        }
    }
}

/// Spec §3's padding of a level's last block in place: `S || 0x01 || 0x00…`
/// after the `fill` bytes of S (`fill < B`, so the 0x01 always fits).
fn pad_last(block: &mut [u8], fill: usize) {
    block[fill] = 0x01;
    block[fill + 1..].fill(0);
}

/// Messages up to this length are hashed by [`hash_whole`]: its level-1
/// outputs are at most (len/B + 1)·w = 8,208 bytes; longer messages stream
/// through [`Tree`], whose memory does not grow with the message.
pub(crate) const WHOLE_MAX: usize = 64 << 10;

/// The most bytes [`hash_whole`]'s levels hold at once, over every
/// algorithm: level 1's outputs and level 2's for a [`WHOLE_MAX`]-byte
/// message (MMH32x4's 8,208 + 1,040, the widest output per block byte).
const WHOLE_LEVELS_MAX: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < Alg::ALL.len() {
        let need = room_for(Alg::ALL[i], WHOLE_MAX).1;
        if need > most {
            most = need;
        }
        i += 1;
    }
    most
};
const _: () = assert!(WHOLE_LEVELS_MAX == 8208 + 1040);

/// The tree hash H of a whole message held in memory (spec §3), level by
/// level, without the streaming state: each level's full blocks are hashed
/// straight from its input, then its padded last block (`S || 0x01 || 0…`,
/// always present); a level with no full block gives H. The same H as
/// [`Tree`] (tested below). `keys` must hold the levels the length needs.
///
/// The levels' outputs live on the stack, in the smallest of three buffers
/// that holds levels 1 and 2 (256 bytes, 2.5 KiB, 9 KiB: zero-filling is
/// the price of each; 2.5 KiB holds MMH32x4's for 16 KiB): they were heap
/// blocks, and allocating, zeroing and freeing three of them was 15–17 %
/// of an 8 KiB MMH32x4 tag (perf, Intel Xeon 6/207).
pub(crate) fn hash_whole(alg: Alg, keys: &Keys, message: &[u8]) -> [u8; MAX_TAG_BYTES] {
    debug_assert!(message.len() <= WHOLE_MAX);
    let (bb, w) = (alg.block_bytes(), alg.output_bytes());
    if message.len() < bb {
        // Level 0's padded block gives H: no level above it. Written out
        // rather than through `levels` with no room: that took 1.5x the
        // time of a 64-byte MMH32x4 tag (probe, Xeon 6/207).
        let mut last = [0u8; MAX_BLOCK_BYTES];
        last[..message.len()].copy_from_slice(message);
        pad_last(&mut last[..bb], message.len());
        let mut h = [0u8; MAX_TAG_BYTES];
        keys.absorb(0, &last[..bb], &mut h[..w]);
        crate::ct::wipe(&mut last);
        return h;
    }
    let (first, need) = room_for(alg, message.len());
    if need <= 256 {
        levels(alg, keys, message, &mut [0u8; 256][..need], first)
    } else if need <= 2560 {
        levels(alg, keys, message, &mut [0u8; 2560][..need], first)
    } else {
        levels(alg, keys, message, &mut [0u8; WHOLE_LEVELS_MAX][..need], first)
    }
}

/// Level 1's output bytes for a message of `len` (at least a block), and
/// those of levels 1 and 2 together.
const fn room_for(alg: Alg, len: usize) -> (usize, usize) {
    let (bb, w) = (alg.block_bytes(), alg.output_bytes());
    let first = (len / bb + 1) * w;
    (first, first + (first / bb + 1) * w)
}

/// [`hash_whole`] with `room` for the levels' outputs: odd levels write at
/// its start (`first` bytes, level 1's size, the largest), even ones after
/// it; each level's input is the other part. `room` is wiped before
/// returning (and by a guard if a backend panics).
fn levels(alg: Alg, keys: &Keys, message: &[u8], room: &mut [u8], first: usize) -> [u8; MAX_TAG_BYTES] {
    let (bb, w) = (alg.block_bytes(), alg.output_bytes());
    let room = crate::ct::WipeOnDrop(room);
    let last = crate::ct::WipeOnDrop(&mut [0u8; MAX_BLOCK_BYTES][..bb]);
    let (odd, even) = room.0.split_at_mut(first);
    // Level j's input: the message, or `len` bytes of the part level j − 1
    // wrote (`odd` when j − 1 is odd).
    let mut len = message.len();
    let mut j = 0;
    loop {
        let (input, out): (&[u8], &mut [u8]) = match j {
            0 => (message, &mut *odd),
            _ if j % 2 == 1 => (&odd[..len], &mut *even),
            _ => (&even[..len], &mut *odd),
        };
        let full = input.len() / bb;
        let rest = &input[full * bb..];
        last.0[..rest.len()].copy_from_slice(rest);
        pad_last(last.0, rest.len());
        if full == 0 {
            let mut h = [0u8; MAX_TAG_BYTES];
            keys.absorb(j, last.0, &mut h[..w]);
            return h;
        }
        keys.absorb(j, &input[..full * bb], &mut out[..full * w]);
        keys.absorb(j, last.0, &mut out[full * w..(full + 1) * w]);
        len = (full + 1) * w;
        j += 1;
    }
}

/// An empty vector with room for every level above level 0.
fn upper_room() -> Vec<Level> {
    Vec::with_capacity(MAX_LEVELS - 1)
}

impl Clone for Tree {
    /// The same room for upper levels as the original (none while there are
    /// none: a short message's clone allocates nothing either).
    fn clone(&self) -> Self {
        let mut upper = if self.upper.is_empty() { Vec::new() } else { upper_room() };
        upper.extend(self.upper.iter().cloned());
        Tree { alg: self.alg, len: self.len, refused: self.refused, base: self.base.clone(), upper }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let bb = self.alg.block_bytes();
        self.base.wipe(bb);
        for lv in &mut self.upper {
            lv.wipe(bb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Dispatch;
    use crate::cpu::Features;
    use crate::mmh::key::{ciphers, push_next_level};

    #[test]
    fn whole_message_hash_equals_the_streaming_tree() {
        let mut msg = vec![0u8; WHOLE_MAX];
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        msg.iter_mut().for_each(|b| *b = next() as u8);
        for alg in Alg::ALL {
            let (_, ks) = ciphers(&[0x5au8; 32], crate::cpu::Features::detect());
            let mut keys = Keys::select(alg, Features::portable());
            for _ in 0..MAX_LEVELS {
                push_next_level(&mut keys, &ks, alg);
            }
            let bb = alg.block_bytes();
            let w = alg.output_bytes();
            let mut lens: Vec<usize> = (0..=2 * bb + 2).collect();
            // around every length where another level opens, and a few more
            let levels = |l: usize| alg.levels_for_len(l as u128);
            let opens: Vec<usize> = (1..=WHOLE_MAX).filter(|&l| levels(l) != levels(l - 1)).collect();
            assert!(opens.len() >= 2, "{alg}: at least levels 2 and 3 open below 64 KiB");
            // and where hash_whole's levels move to a larger stack buffer
            let tier = |l: usize| l >= bb && room_for(alg, l).1 > 256;
            let big = |l: usize| l >= bb && room_for(alg, l).1 > 2560;
            let tiers: Vec<usize> =
                (1..=WHOLE_MAX).filter(|&l| tier(l) != tier(l - 1) || big(l) != big(l - 1)).collect();
            assert!(!tiers.is_empty(), "{alg}: the levels outgrow the smallest buffer below 64 KiB");
            for edge in opens.into_iter().chain(tiers).chain([4096, 16384, WHOLE_MAX]) {
                lens.extend(edge.saturating_sub(w + 1)..=(edge + w + 1).min(WHOLE_MAX));
            }
            for len in lens.into_iter().filter(|&l| l <= WHOLE_MAX) {
                for data in [&msg[..len], &vec![0xff; len][..]] {
                    let mut t = Tree::new(alg);
                    t.update(&keys, data).unwrap();
                    assert_eq!(hash_whole(alg, &keys, data), t.finalize(&keys).unwrap(), "{alg} {len}");
                }
            }
        }
    }

    #[test]
    fn a_clone_has_room_for_every_upper_level() {
        for alg in Alg::ALL {
            let (_, ks) = ciphers(&[0x5au8; 32], crate::cpu::Features::detect());
            let mut keys = Keys::select(alg, Features::portable());
            for _ in 0..MAX_LEVELS {
                push_next_level(&mut keys, &ks, alg);
            }
            // A short message's tree has no upper level, nor does its clone.
            let short = Tree::new(alg);
            assert_eq!(short.clone().upper.capacity(), 0, "{alg}");
            // Level 1 open: the clone can open the other 14 in place.
            let mut t = Tree::new(alg);
            t.update(&keys, &[7u8; 300]).unwrap();
            assert_eq!(t.upper.len(), 1, "{alg}");
            assert!(t.clone().upper.capacity() >= MAX_LEVELS - 1, "{alg}");
        }
    }

    #[test]
    fn a_17th_level_is_refused_before_anything_is_hashed() {
        for alg in Alg::ALL {
            let max = alg.max_message_len();
            assert_eq!(alg.levels_for_len(max), MAX_LEVELS, "{alg}");
            assert_eq!(alg.levels_for_len(max + 1), MAX_LEVELS + 1, "{alg}");
            // Pretend max − 3 bytes have been absorbed (only the counter
            // matters to admit()).
            let mut t = Tree::new(alg);
            t.len = max - 3;
            assert_eq!(t.admit(3), Ok(MAX_LEVELS));
            let mut t = Tree::new(alg);
            t.len = max - 3;
            assert!(matches!(t.admit(4), Err(Error::TooLong { what: "message", .. })));
            // refused for good, even for an empty update, and at finalize
            assert!(t.admit(0).is_err());
            let (_, ks) = ciphers(&[0u8; 32], crate::cpu::Features::detect());
            let mut keys = Keys::select(alg, Features::portable());
            push_next_level(&mut keys, &ks, alg);
            assert!(t.finalize(&keys).is_err());
        }
        // spec §2's figure for mmh32x4
        assert_eq!(Alg::Mmh32x4.max_message_len(), 3_860_228_252_031_871);
        assert!(matches!(
            Tree::new(Alg::Mmh32x4).admit(usize::MAX),
            Err(Error::TooLong { max: 3_860_228_252_031_871, .. })
        ));
    }
}
