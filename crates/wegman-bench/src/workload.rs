//! What the calls are fed: lengths, regimes (hot/cold keys, aligned or not)
//! and one pool of random message bytes.

use crate::contender::{Family, Input};

/// Keys, nonces and messages cycled in the cold regime.
pub const SLOTS: usize = 1000;
/// The cold regime's messages take at most this much memory in total; long
/// messages therefore use fewer than [`SLOTS`] distinct slots.
pub const COLD_CAP: usize = 64 << 20;
/// "Aligned" means this: every message slot starts on a cache line.
pub const ALIGN: usize = 64;

/// The quick run's lengths: the short ones where per-message overhead
/// dominates, the paper's 16/128/1024 and unaligned 43/127/1025, packet
/// sizes, and long messages up to 1 MiB.
pub const QUICK_LENGTHS: [usize; 26] = [
    0,
    1,
    8,
    15,
    16,
    17,
    32,
    43,
    63,
    64,
    65,
    127,
    128,
    256,
    511,
    512,
    576,
    1024,
    1025,
    1500,
    2048,
    4096,
    8192,
    16384,
    65536,
    1 << 20,
];

/// The smoke run's lengths: a handful covering partial and whole blocks.
pub const SMOKE_LENGTHS: [usize; 7] = [0, 1, 16, 17, 64, 576, 8192];

/// Every length 0..=8192, then a few long ones for the throughput curve.
pub fn full_lengths() -> Vec<usize> {
    (0..=8192).chain([16384, 65536, 262_144, 1 << 20]).collect()
}

/// Where keys and messages sit when a call is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// One key, nonce and message, used over and over: all in L1.
    HotAligned,
    /// The same with the message starting one byte past a cache line.
    HotMisaligned,
    /// Up to 1000 keys, nonces and messages, cycled in a shuffled order.
    ColdAligned,
    /// The same with every message one byte past a cache line.
    ColdMisaligned,
}

impl Regime {
    /// All four, in report order.
    pub const ALL: [Regime; 4] =
        [Regime::HotAligned, Regime::HotMisaligned, Regime::ColdAligned, Regime::ColdMisaligned];

    /// Short id for tables, JSON and file names.
    pub fn id(self) -> &'static str {
        match self {
            Regime::HotAligned => "hot",
            Regime::HotMisaligned => "hot+1",
            Regime::ColdAligned => "cold",
            Regime::ColdMisaligned => "cold+1",
        }
    }

    /// One line for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Regime::HotAligned => "one key, nonce and message, hot in cache; message 64-byte aligned",
            Regime::HotMisaligned => "one key, nonce and message, hot in cache; message pointer 64k+1",
            Regime::ColdAligned => "1000 keys, nonces and messages cycled in shuffled order; messages 64-byte aligned",
            Regime::ColdMisaligned => "1000 keys, nonces and messages cycled in shuffled order; message pointers 64k+1",
        }
    }

    /// A few words for chart panels.
    pub fn short(self) -> &'static str {
        match self {
            Regime::HotAligned => "hot: one key, message aligned",
            Regime::HotMisaligned => "hot+1: one key, message at 64k+1",
            Regime::ColdAligned => "cold: 1000 keys cycled, messages aligned",
            Regime::ColdMisaligned => "cold+1: 1000 keys cycled, messages at 64k+1",
        }
    }

    /// Many keys?
    pub fn cold(self) -> bool {
        matches!(self, Regime::ColdAligned | Regime::ColdMisaligned)
    }

    /// Bytes past the cache line where each message starts.
    pub fn offset(self) -> usize {
        match self {
            Regime::HotAligned | Regime::ColdAligned => 0,
            Regime::HotMisaligned | Regime::ColdMisaligned => 1,
        }
    }

    /// Parse an id.
    pub fn from_id(s: &str) -> Option<Regime> {
        Regime::ALL.into_iter().find(|r| r.id() == s)
    }
}

/// Distance between message slots of length `len` (room for the +1 offset).
pub fn stride(len: usize) -> usize {
    (len + 1).next_multiple_of(ALIGN)
}

/// Distinct slots the cold regime uses at `len`: 1000, or fewer to stay
/// within [`COLD_CAP`].
pub fn cold_slots(len: usize) -> usize {
    SLOTS.min(COLD_CAP / stride(len)).max(1)
}

/// SplitMix64: a small, seeded generator for keys, nonces and messages
/// (benchmark inputs, not secrets).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fill `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let r = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    /// N random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        self.fill(&mut b);
        b
    }

    /// A shuffled 0..n.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
        v
    }
}

/// Random message bytes, cache-line aligned, big enough for every length's
/// cold set.
pub struct Pool {
    buf: Vec<u8>,
    base: usize,
}

impl Pool {
    /// A pool for these lengths (at least 64 KiB for the checks).
    pub fn for_lengths(lengths: &[usize]) -> Pool {
        let size = lengths.iter().map(|&l| cold_slots(l) * stride(l)).max().unwrap_or(0).max(64 << 10);
        let mut buf = vec![0u8; size + ALIGN];
        let base = buf.as_ptr().align_offset(ALIGN);
        Rng::new(0x706f_6f6c).fill(&mut buf);
        Pool { buf, base }
    }

    /// The `index`-th message slot for length `len`, `offset` bytes past its
    /// cache line.
    pub fn msg(&self, index: usize, len: usize, offset: usize) -> &[u8] {
        let start = self.base + index * stride(len) + offset;
        &self.buf[start..start + len]
    }
}

/// The inputs one (length, regime) cell cycles through: slot 0 alone when
/// hot; otherwise [`cold_slots`] slots in a shuffled order. Verify tags are
/// computed here, before timing.
pub fn inputs<'a>(pool: &'a Pool, family: &dyn Family, regime: Regime, len: usize) -> Vec<Input<'a>> {
    let order = if regime.cold() { Rng::new(len as u64).permutation(cold_slots(len)) } else { vec![0] };
    order
        .into_iter()
        .map(|slot| {
            let msg = pool.msg(slot, len, regime.offset());
            Input { slot, msg, tag: family.expected_tag(slot, msg) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_sets_fit_the_cap() {
        for len in [0, 1, 63, 64, 8192, 65536, 1 << 20] {
            assert!(cold_slots(len) * stride(len) <= COLD_CAP.max(stride(len)));
            assert!(stride(len) > len);
        }
        assert_eq!(cold_slots(0), SLOTS);
        assert_eq!(cold_slots(1 << 20), 63);
    }

    #[test]
    fn messages_are_aligned_or_off_by_one() {
        let pool = Pool::for_lengths(&[100]);
        assert_eq!(pool.msg(3, 100, 0).as_ptr() as usize % ALIGN, 0);
        assert_eq!(pool.msg(3, 100, 1).as_ptr() as usize % ALIGN, 1);
    }

    #[test]
    fn permutation_is_one() {
        let mut p = Rng::new(9).permutation(1000);
        p.sort_unstable();
        assert!(p.iter().enumerate().all(|(i, &x)| i == x));
    }
}
