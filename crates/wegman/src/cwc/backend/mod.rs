//! CWC-HASH backends behind one per-key dispatch.
//!
//! [`HashKey`] holds the best backend the key's [`Features`] allow, chosen
//! when the key is made. A backend absorbs whole runs of 12-byte chunks
//! into the running R (`absorb`); hash.rs keeps the buffering, the padding
//! and the length block.
//!
//! - `soft.rs`: portable, `u128` halves, four coefficients per reduction.
//! - `x86_avx512ifma.rs`: eight lanes of radix-2^44 limbs for runs of at
//!   least 192 bytes (two groups of eight coefficients); shorter runs and
//!   the rest of a run go portable. `x86_avx512ifma_words.rs` for long runs
//!   of a key that has seen enough of them: each coefficient under its own
//!   precomputed power, the products summed by limb place.
//!
//! - `x86_avx2.rs`: four lanes of radix-2^26 limbs, each 32-bit word of
//!   each coefficient multiplied by its own precomputed power (times 2^0,
//!   2^32 or 2^64), for runs of at least 192 bytes, on CPUs with AVX2 but
//!   no IFMA; the rest of a run goes portable. Until a key has built its
//!   table, its runs of at least 768 bytes take the lanes under the last
//!   16 powers alone, built for the run.
//! - `keeper.rs`: which of the two lane leaves hashes a run while storing
//!   each register it loads to a private copy (`HashKey::keeping`);
//!   `source.rs`: where a leaf's run takes its groups from (a slice, or
//!   memory kept as loaded).
//!
//! CWC-CTR's keystream for long runs of whole blocks comes from the AES
//! layer (`crate::aes`: AES-NI, VAES-256 or VAES-512; `ctr.rs` asks its `Key`).
//! When a key's AES runs on 512-bit VAES and its hash has the IFMA table,
//! [`HashKey::one_loop`] gives a long run's counter mode and hash in one
//! loop (`x86_avx512ifma_ctr.rs`).

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod keeper;
mod soft;
// (unsafe_code: the declaration of the leaves' `unsafe fn group`, no body)
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod source;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx512ifma;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx512ifma_ctr;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86_avx512ifma_words;

pub(crate) use crate::backend::Dispatch;
use crate::backend::{Lanes as Leaf, Platform};
use crate::cpu::Features;
#[cfg(target_arch = "x86_64")]
use crate::lazy::Lazy;
#[cfg(target_arch = "x86_64")]
pub(crate) use keeper::Keeper;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_avx512ifma_ctr::OneLoop;

#[derive(Clone)]
// One per key; the portable powers stay inline (no heap copy to wipe).
#[allow(clippy::large_enum_variant)]
pub(crate) enum HashKey {
    Portable(soft::Powers),
    #[cfg(target_arch = "x86_64")]
    /// Eight lanes of 44-bit limbs (Kh^1 … Kh^16). The lane powers are
    /// boxed (wiped by their own drop before the memory is freed, so a key
    /// moved around by value stays small) once the key has offered the
    /// lanes [`Lanes::BUILD_AFTER_BYTES`]; before that, runs from
    /// [`x86_avx512ifma::SHORT_MIN_BYTES`] go through the lanes under the
    /// same powers built on the stack for the run (a one-shot key allocates
    /// nothing), shorter ones portable.
    /// Once the key has offered [`x86_avx512ifma_words::BUILD_AFTER_BYTES`]
    /// in long runs, also the powers of every coefficient of a span.
    Ifma(soft::Powers, Lazy<x86_avx512ifma::Powers>, Lazy<x86_avx512ifma_words::Table>, crate::cpu::Avx512Ifma),
    #[cfg(target_arch = "x86_64")]
    /// As `Ifma`, with four lanes of 26-bit limbs (Kh^1 … Kh^64 times 2^0,
    /// 2^32 and 2^64, each word of a block under its own power), built once
    /// the key has offered the lanes [`x86_avx2::BUILD_AFTER_BYTES`]; before
    /// that, runs from [`x86_avx2::SHORT_MIN_BYTES`] go through the lanes
    /// under Kh^1 … Kh^16 built for the run alone, shorter ones portable.
    Avx2(soft::Powers, Lazy<x86_avx2::Powers>, crate::cpu::Avx2),
}

/// A lane backend as the dispatch sees it: its table of powers, when the
/// table pays for itself, and its runs. Both lane backends go through
/// [`absorb_lanes`] and [`prefetch_lanes`].
#[cfg(target_arch = "x86_64")]
trait Lanes: Sized {
    type Token: Copy;
    /// Runs shorter than this stay portable.
    const MIN_BYTES: usize;
    /// The table is built on the run that brings the bytes a key has
    /// offered the lanes to this (`crate::lazy`).
    const BUILD_AFTER_BYTES: usize;
    /// The lanes take runs in multiples of this; the rest goes portable.
    const GROUP_BYTES: usize;
    fn build(token: Self::Token, p: &soft::Powers) -> Box<Self>;
    fn run(token: Self::Token, lanes: &Self, r: u128, data: &[u8]) -> u128;
    /// R after `run` (whole groups, at least `MIN_BYTES` with the rest) for
    /// a key whose table is not built, if the lanes take it without the
    /// table; `None` leaves the whole of the data to the portable code.
    fn unbuilt(token: Self::Token, p: &soft::Powers, r: u128, run: &[u8]) -> Option<u128>;
}

#[cfg(target_arch = "x86_64")]
impl Lanes for x86_avx512ifma::Powers {
    type Token = crate::cpu::Avx512Ifma;
    const MIN_BYTES: usize = x86_avx512ifma::MIN_BYTES;
    // Until a key has offered this much, its runs build the powers on the
    // stack (`unbuilt`): the boxed table's allocation, `OnceLock` and free
    // were a twentieth of a one-shot 576-byte encryption on Zen 4. About
    // 4 KiB: the per-coefficient table's shortest run, which so builds
    // these powers on its own (`table_for`).
    const BUILD_AFTER_BYTES: usize = x86_avx512ifma_words::MIN_RUN_BYTES;
    const GROUP_BYTES: usize = 96;
    fn build(token: Self::Token, p: &soft::Powers) -> Box<Self> {
        x86_avx512ifma::Powers::new(token, p)
    }
    fn run(token: Self::Token, lanes: &Self, r: u128, data: &[u8]) -> u128 {
        x86_avx512ifma::absorb(token, lanes, r, data)
    }
    fn unbuilt(token: Self::Token, p: &soft::Powers, r: u128, run: &[u8]) -> Option<u128> {
        (run.len() >= x86_avx512ifma::SHORT_MIN_BYTES).then(|| x86_avx512ifma::absorb_unbuilt(token, p, r, run))
    }
}

#[cfg(target_arch = "x86_64")]
impl Lanes for x86_avx2::Powers {
    type Token = crate::cpu::Avx2;
    const MIN_BYTES: usize = x86_avx2::MIN_BYTES;
    const BUILD_AFTER_BYTES: usize = x86_avx2::BUILD_AFTER_BYTES;
    const GROUP_BYTES: usize = 48;
    fn build(token: Self::Token, p: &soft::Powers) -> Box<Self> {
        x86_avx2::Powers::new(token, p)
    }
    fn run(token: Self::Token, lanes: &Self, r: u128, data: &[u8]) -> u128 {
        x86_avx2::absorb(token, lanes, r, data)
    }
    fn unbuilt(token: Self::Token, p: &soft::Powers, r: u128, run: &[u8]) -> Option<u128> {
        // SHORT_MIN_BYTES is whole groups: the run reaches it when the data does.
        const _: () = assert!(x86_avx2::SHORT_MIN_BYTES.is_multiple_of(x86_avx2::Powers::GROUP_BYTES));
        (run.len() >= x86_avx2::SHORT_MIN_BYTES).then(|| x86_avx2::absorb_short(token, p, r, run))
    }
}

/// The lanes' table for a run of `len` bytes, which counts towards it: the
/// run that brings what the key has offered the lanes to
/// [`Lanes::BUILD_AFTER_BYTES`] builds it; `None` before that run.
#[cfg(target_arch = "x86_64")]
#[inline]
fn lane_table<'a, L: Lanes>(p: &soft::Powers, lanes: &'a Lazy<L>, token: L::Token, len: usize) -> Option<&'a L> {
    lanes.offer(len, L::BUILD_AFTER_BYTES, || L::build(token, p))
}

/// R after `data` (a multiple of 12 bytes): its whole groups in the lanes
/// once their table is built, everything else portable.
#[cfg(target_arch = "x86_64")]
#[inline]
fn absorb_lanes<L: Lanes>(p: &soft::Powers, lanes: &Lazy<L>, token: L::Token, r: u128, data: &[u8]) -> u128 {
    if data.len() < L::MIN_BYTES {
        return p.absorb(r, data);
    }
    let (run, rest) = data.split_at(data.len() - data.len() % L::GROUP_BYTES);
    let after_run = match lane_table(p, lanes, token, data.len()) {
        Some(lanes) => L::run(token, lanes, r, run),
        None => match L::unbuilt(token, p, r, run) {
            Some(after_run) => after_run,
            None => return p.absorb(r, data),
        },
    };
    p.absorb(after_run, rest)
}

/// The per-coefficient table for a run of `len` bytes, if the run is long
/// enough and the key has offered enough of them (the table is built from
/// the lane powers, built first if need be). With `only_if_enough`, a run
/// the table does not take yet is not counted: the caller then hashes it
/// through [`HashKey::absorb`], which counts it.
#[cfg(target_arch = "x86_64")]
#[inline]
fn table_for<'a>(
    p: &soft::Powers,
    lanes: &Lazy<x86_avx512ifma::Powers>,
    table: &'a Lazy<x86_avx512ifma_words::Table>,
    token: crate::cpu::Avx512Ifma,
    len: usize,
    only_if_enough: bool,
) -> Option<&'a x86_avx512ifma_words::Table> {
    use x86_avx512ifma_words as words;
    // A run this long builds the lane powers on its own (it is more than
    // their `BUILD_AFTER_BYTES`), so a key's first message can build both.
    const _: () = assert!(words::MIN_RUN_BYTES >= <x86_avx512ifma::Powers as Lanes>::BUILD_AFTER_BYTES);
    if len < words::MIN_RUN_BYTES {
        return None;
    }
    // The run alone brings the lane powers' count to enough (above), so
    // counting it here never makes a second count that matters.
    let powers = lane_table(p, lanes, token, len)?;
    let build = || words::table(token, powers);
    if only_if_enough {
        table.offer_if_enough(len, words::BUILD_AFTER_BYTES, build)
    } else {
        table.offer(len, words::BUILD_AFTER_BYTES, build)
    }
}

/// R after `data` on the IFMA tier: long runs under the per-coefficient
/// table once the key has offered enough of them ([`table_for`]), the rest
/// as [`absorb_lanes`].
#[cfg(target_arch = "x86_64")]
#[inline]
fn absorb_ifma(
    p: &soft::Powers,
    lanes: &Lazy<x86_avx512ifma::Powers>,
    table: &Lazy<x86_avx512ifma_words::Table>,
    token: crate::cpu::Avx512Ifma,
    r: u128,
    data: &[u8],
) -> u128 {
    if let Some(table) = table_for(p, lanes, table, token, data.len(), false) {
        let (run, rest) = data.split_at(data.len() - data.len() % 96);
        return p.absorb(x86_avx512ifma_words::absorb(token, table, r, run), rest);
    }
    absorb_lanes(p, lanes, token, r, data)
}

/// Start loading the lane powers if a run of `len` bytes will use them.
#[cfg(target_arch = "x86_64")]
#[inline]
fn prefetch_lanes<L: Lanes>(lanes: &Lazy<L>, len: usize) {
    if len >= L::MIN_BYTES
        && let Some(p) = lanes.get()
    {
        crate::prefetch::lines(p);
    }
}

impl Dispatch for HashKey {
    /// Kh (< 2^127).
    type Seed<'a> = &'a u128;

    fn select(kh: &u128, features: Features) -> Self {
        let p = soft::Powers::new(*kh);
        match crate::backend::lanes(features) {
            #[cfg(target_arch = "x86_64")]
            Leaf::Ifma(token) => HashKey::Ifma(p, Default::default(), Default::default(), token),
            #[cfg(target_arch = "x86_64")]
            Leaf::Avx2(token) => HashKey::Avx2(p, Default::default(), token),
            Leaf::Portable => HashKey::Portable(p),
        }
    }

    fn platform(&self) -> Platform {
        match self {
            HashKey::Portable(_) => Platform::Portable,
            #[cfg(target_arch = "x86_64")]
            HashKey::Ifma(..) => Platform::Avx512Ifma,
            #[cfg(target_arch = "x86_64")]
            HashKey::Avx2(..) => Platform::Avx2,
        }
    }

    fn wipe(&mut self) {
        match self {
            HashKey::Portable(p) => p.wipe(),
            #[cfg(target_arch = "x86_64")]
            HashKey::Ifma(p, lanes, table, _) => {
                p.wipe();
                lanes.clear();
                table.clear();
            }
            #[cfg(target_arch = "x86_64")]
            HashKey::Avx2(p, lanes, ..) => {
                p.wipe();
                lanes.clear();
            }
        }
    }
}

impl HashKey {
    /// Kh, canonical (combining the hashes of runs computed apart).
    pub(crate) fn kh(&self) -> u128 {
        match self {
            HashKey::Portable(p) => p.all()[0],
            #[cfg(target_arch = "x86_64")]
            HashKey::Ifma(p, ..) | HashKey::Avx2(p, ..) => p.all()[0],
        }
    }

    /// Start loading the lane powers if a run of `len` bytes will use them.
    #[inline]
    pub(crate) fn prefetch_for(&self, len: usize) {
        match self {
            HashKey::Portable(_) => {}
            #[cfg(target_arch = "x86_64")]
            HashKey::Ifma(_, lanes, ..) => prefetch_lanes(lanes, len),
            #[cfg(target_arch = "x86_64")]
            HashKey::Avx2(_, lanes, _) => prefetch_lanes(lanes, len),
        }
        let _ = len;
    }

    /// Counter mode and this hash in one loop for a run of `len` bytes,
    /// if `cipher` runs on 512-bit VAES and this key takes the run under
    /// its IFMA table (`x86_avx512ifma_ctr.rs`); `None` otherwise.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn one_loop<'a>(&'a self, cipher: &'a crate::aes::Key, len: usize) -> Option<OneLoop<'a>> {
        let HashKey::Ifma(p, lanes, table, ifma) = self else { return None };
        let (keys, aes) = cipher.vaes512()?;
        // Not counted unless taken: a run the loop leaves is hashed (and
        // counted) by `absorb`.
        let table = table_for(p, lanes, table, *ifma, len, true)?;
        Some(OneLoop::new(*ifma, aes, keys, table))
    }

    /// The hash of a run of `len` bytes that stores each register it loads
    /// ([`Keeper::run`], over the run's whole groups of 96 bytes), if this
    /// key's lanes hash it that way: the IFMA lanes, on a run they take
    /// without the per-coefficient table, and the AVX2 lanes, on a run
    /// they take under their table or under powers built for it (from
    /// [`x86_avx2::SHORT_MIN_BYTES`]). The run counts towards the lane
    /// powers' table as [`absorb`](Self::absorb)'s do; `None` counts
    /// nothing.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn keeping(&self, len: usize) -> Option<Keeper<'_>> {
        use x86_avx2 as avx2;
        use x86_avx512ifma as ifma;
        match self {
            HashKey::Ifma(p, lanes, table, token) => {
                if len < ifma::SHORT_MIN_BYTES {
                    return None;
                }
                // A run the per-coefficient table takes is left to `absorb`.
                // Counted here as `absorb` counts it, so the table is built
                // on the same run as if the run had gone there; once it is
                // built, `absorb` counting the run again changes nothing.
                if table_for(p, lanes, table, *token, len, false).is_some() {
                    return None;
                }
                Some(Keeper::Ifma(match lane_table(p, lanes, *token, len) {
                    Some(powers) => ifma::Keeper::Built(*token, powers),
                    None => ifma::Keeper::Unbuilt(*token, p),
                }))
            }
            HashKey::Avx2(p, lanes, token) => {
                // Below this a run without the table goes portable
                // (`Lanes::unbuilt`); one with it is left to `absorb`.
                if len < avx2::SHORT_MIN_BYTES {
                    return None;
                }
                Some(Keeper::Avx2(match lane_table(p, lanes, *token, len) {
                    Some(powers) => avx2::Keeper::Built(*token, powers),
                    None => avx2::Keeper::Unbuilt(*token, p),
                }))
            }
            HashKey::Portable(_) => None,
        }
    }

    /// Whether one-pass decryption keeps its private copy of a chunk before
    /// the last through this hash's loads ([`keeping`](Self::keeping), then
    /// counter mode from the copy into the output) rather than through
    /// counter mode's (`crate::aes::Key::ctr_keeping`, then the hash of the
    /// copy): the AVX2 lanes, whose loop has issue slots for the copy's
    /// stores, where counter mode storing both the output and the copy
    /// took half as long again as storing the output alone.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn keeps_whole_chunks(&self) -> bool {
        matches!(self, HashKey::Avx2(..))
    }

    /// R after the 12-byte chunks of `data` (a multiple of 12 bytes).
    /// Pre/post: R <= 2^127.
    #[inline]
    pub(crate) fn absorb(&self, r: u128, data: &[u8]) -> u128 {
        match self {
            HashKey::Portable(p) => p.absorb(r, data),
            #[cfg(target_arch = "x86_64")]
            HashKey::Ifma(p, lanes, table, token) => absorb_ifma(p, lanes, table, *token, r, data),
            #[cfg(target_arch = "x86_64")]
            HashKey::Avx2(p, lanes, token) => absorb_lanes(p, lanes, *token, r, data),
        }
    }
}

/// Arithmetic modulo 2^127 − 1 outside the hot loop (combining the parts
/// of a parallel hash, the final reduction): the same portable code on
/// every CPU, a handful of multiplies per message.
pub(crate) use soft::{canonical, mul};

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane powers of each lane tier are built on the run that brings
    /// the bytes a key has offered the lanes to its `BUILD_AFTER_BYTES`, not
    /// before (runs shorter than the lanes take are not counted), and the
    /// hash is the same on both sides of it; before it, runs below and from
    /// the tier's `SHORT_MIN_BYTES` (portable, and powers built for the run)
    /// alternate.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lane_powers_are_built_once_the_key_has_offered_enough() {
        for features in Features::detect().every_level() {
            let kh = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128 >> 1;
            let key = HashKey::select(&kh, features);
            let (min, short_min, after) = match &key {
                HashKey::Portable(_) => continue,
                HashKey::Ifma(..) => (
                    x86_avx512ifma::MIN_BYTES,
                    x86_avx512ifma::SHORT_MIN_BYTES,
                    <x86_avx512ifma::Powers as Lanes>::BUILD_AFTER_BYTES,
                ),
                HashKey::Avx2(..) => (x86_avx2::MIN_BYTES, x86_avx2::SHORT_MIN_BYTES, x86_avx2::BUILD_AFTER_BYTES),
            };
            let built = |k: &HashKey| match k {
                HashKey::Ifma(_, lanes, ..) => lanes.get().is_some(),
                HashKey::Avx2(_, lanes, _) => lanes.get().is_some(),
                HashKey::Portable(_) => false,
            };
            let soft = soft::Powers::new(kh);
            let short = vec![0xa5u8; min - 12];
            let two = [vec![0x5au8; short_min - 48], vec![0x3cu8; short_min + 60]];
            assert!(two[0].len() >= min, "{}: the first run reaches the lanes", features.tier());
            for _ in 0..50 {
                assert_eq!(key.absorb(7, &short), soft.absorb(7, &short));
            }
            assert!(!built(&key), "{}: runs the lanes do not take are not counted", features.tier());
            let mut offered = 0;
            let mut runs = two.iter().cycle();
            let run = loop {
                let run = runs.next().expect("endless");
                if offered + run.len() >= after {
                    break run;
                }
                assert_eq!(canonical(key.absorb(7, run)), canonical(soft.absorb(7, run)));
                offered += run.len();
                assert!(!built(&key), "{}: built after {offered} bytes", features.tier());
            };
            assert_eq!(canonical(key.absorb(7, run)), canonical(soft.absorb(7, run)));
            assert!(built(&key), "{}: not built after {} bytes", features.tier(), offered + run.len());
            assert_eq!(canonical(key.absorb(7, run)), canonical(soft.absorb(7, run)));
        }
    }

    /// Each lane tier takes a run of an unbuilt key into the lanes from its
    /// `SHORT_MIN_BYTES` (whole groups) and leaves shorter ones portable
    /// (`None`); what it takes equals the portable hash. Only the speed
    /// depends on this choice, so the equality tests cannot see it.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn unbuilt_keys_take_runs_into_the_lanes_from_their_threshold() {
        fn check<L: Lanes>(token: L::Token, short_min: usize) {
            let kh = (1u128 << 126) + 12345;
            let soft = soft::Powers::new(kh);
            let data: Vec<u8> = (0..short_min + 2 * L::GROUP_BYTES).map(|i| (i * 13 + 5) as u8).collect();
            for len in (L::MIN_BYTES..=data.len()).step_by(L::GROUP_BYTES) {
                let got = L::unbuilt(token, &soft, 3, &data[..len]);
                if len < short_min {
                    assert_eq!(got, None, "{len}");
                } else {
                    let got = got.unwrap_or_else(|| panic!("{len}: left portable"));
                    assert_eq!(canonical(got), canonical(soft.absorb(3, &data[..len])), "{len}");
                }
            }
        }
        let features = Features::detect();
        if let Some(token) = features.avx512ifma() {
            check::<x86_avx512ifma::Powers>(token, x86_avx512ifma::SHORT_MIN_BYTES);
        }
        if let Some(token) = features.avx2() {
            check::<x86_avx2::Powers>(token, x86_avx2::SHORT_MIN_BYTES);
        }
    }

    /// A fresh key of every tier this CPU has, at every run length up to
    /// 4 KiB (whole coefficients): the portable hash below the lanes, the
    /// powers built for the run, the first runs of the boxed table; R at
    /// its extremes, coefficients all ones or random.
    #[test]
    fn a_fresh_key_equals_the_portable_hash_at_every_length_to_4_kib() {
        let p127 = (1u128 << 127) - 1;
        let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        let random: Vec<u8> = (0..4104).map(|_| next() as u8).collect();
        let ones = vec![0xffu8; 4104];
        for features in Features::detect().every_level() {
            for (i, kh) in
                [p127 - 1, (1 << 126) + 1, u128::from(next()) << 60 | u128::from(next())].into_iter().enumerate()
            {
                let soft = soft::Powers::new(kh);
                for len in (0..=4104).step_by(12) {
                    let data = if (len / 12 + i) % 3 == 0 { &ones[..len] } else { &random[..len] };
                    let r = [0, 1, p127, 1 << 127][(len / 12) % 4];
                    let got = HashKey::select(&kh, features).absorb(r, data);
                    assert!(got <= 1 << 127);
                    assert_eq!(
                        canonical(got),
                        canonical(soft.absorb(r, data)),
                        "{} kh {kh:x} len {len}",
                        features.tier()
                    );
                }
            }
        }
    }

    /// Which runs hash while they are copied (`HashKey::keeping`). On the
    /// IFMA tier from the lanes' shortest run for a key without its lanes'
    /// table (powers built for the run) and with it, not once the
    /// per-coefficient table takes the run; on the AVX2 tier from the
    /// shortest run of powers built for it, under them and then under the
    /// table, built on the run that brings the bytes offered to its
    /// threshold; never on the portable one. The runs taken count towards
    /// the tables as `absorb`'s do; and only the AVX2 lanes keep whole
    /// chunks of one-pass decryption (`keeps_whole_chunks`).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn which_runs_hash_while_copied_on_each_tier() {
        use x86_avx512ifma::{Keeper as K, SHORT_MIN_BYTES};
        use x86_avx512ifma_words::{BUILD_AFTER_BYTES, MIN_RUN_BYTES};
        let kh = 0x0fed_cba9_8765_4321_0123_4567_89ab_cdefu128 >> 1;
        for features in Features::detect().every_level() {
            let key = HashKey::select(&kh, features);
            assert_eq!(key.keeps_whole_chunks(), matches!(key, HashKey::Avx2(..)), "{features:?}");
            if let HashKey::Avx2(_, lanes, _) = &key {
                use x86_avx2::{BUILD_AFTER_BYTES, Keeper as A, SHORT_MIN_BYTES};
                assert!(key.keeping(SHORT_MIN_BYTES - 48).is_none());
                let mut offered = 0;
                while offered + SHORT_MIN_BYTES < BUILD_AFTER_BYTES {
                    assert!(matches!(key.keeping(SHORT_MIN_BYTES), Some(Keeper::Avx2(A::Unbuilt(..)))));
                    offered += SHORT_MIN_BYTES;
                    assert!(lanes.get().is_none(), "built after {offered} bytes");
                }
                let k = key.keeping(SHORT_MIN_BYTES);
                assert!(matches!(k, Some(Keeper::Avx2(A::Built(..)))), "the run that brings enough builds the table");
                assert!(matches!(key.keeping(SHORT_MIN_BYTES), Some(Keeper::Avx2(A::Built(..)))));
                assert!(key.keeping(SHORT_MIN_BYTES - 48).is_none(), "a short run is left to `absorb`");
                continue;
            }
            if !matches!(key, HashKey::Ifma(..)) {
                assert!(key.keeping(1 << 20).is_none(), "{features:?}");
                continue;
            }
            let built = |k: &HashKey| matches!(k, HashKey::Ifma(_, lanes, _, _) if lanes.get().is_some());
            let words = |k: &HashKey| matches!(k, HashKey::Ifma(_, _, table, _) if table.get().is_some());
            let unbuilt_run = |k: Option<Keeper<'_>>| matches!(k, Some(Keeper::Ifma(K::Unbuilt(..))));
            let built_run = |k: Option<Keeper<'_>>| matches!(k, Some(Keeper::Ifma(K::Built(..))));
            assert!(key.keeping(SHORT_MIN_BYTES - 1).is_none());
            assert!(unbuilt_run(key.keeping(SHORT_MIN_BYTES)));
            assert!(!built(&key), "built after {SHORT_MIN_BYTES} bytes");
            // Runs below the per-coefficient table's build the lanes' table
            // (counted as `absorb` counts them) and then run under it.
            let mut offered = SHORT_MIN_BYTES;
            while !built(&key) {
                assert!(key.keeping(MIN_RUN_BYTES - 1).is_some());
                offered += MIN_RUN_BYTES - 1;
                assert!(offered <= <x86_avx512ifma::Powers as Lanes>::BUILD_AFTER_BYTES + MIN_RUN_BYTES, "{offered}");
            }
            assert!(built_run(key.keeping(SHORT_MIN_BYTES)));
            // Runs the per-coefficient table takes are counted towards it
            // until it is built, and then left to `absorb`.
            let mut offered = 0;
            while offered + MIN_RUN_BYTES < BUILD_AFTER_BYTES {
                assert!(built_run(key.keeping(MIN_RUN_BYTES)));
                offered += MIN_RUN_BYTES;
                assert!(!words(&key), "built after {offered} bytes");
            }
            assert!(key.keeping(MIN_RUN_BYTES).is_none(), "the run that brings enough builds the table");
            assert!(words(&key));
            assert!(key.keeping(MIN_RUN_BYTES).is_none() && key.keeping(1 << 20).is_none());
            assert!(built_run(key.keeping(MIN_RUN_BYTES - 1)));
        }
    }

    /// The IFMA per-coefficient table is built once the key has offered it
    /// `BUILD_AFTER_BYTES` in long runs, not before (runs too short for it
    /// are not counted); the hash is the same on both sides of it, and
    /// after it at run lengths around the table's spans (3,072 bytes) and
    /// its threshold, with the rest of each run portable.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn ifma_table_is_built_once_the_key_has_offered_enough() {
        use x86_avx512ifma_words::{BUILD_AFTER_BYTES, MIN_RUN_BYTES};
        let Some(ifma) = Features::detect().every_level().into_iter().find(|f| f.avx512ifma().is_some()) else {
            return; // no IFMA here (or capped below it)
        };
        let kh = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128 >> 1;
        let key = HashKey::select(&kh, ifma);
        let built = |k: &HashKey| matches!(k, HashKey::Ifma(_, _, table, _) if table.get().is_some());
        let soft = soft::Powers::new(kh);
        // whole coefficients: the longest run below the threshold, and a
        // run of whole groups above it
        let short = vec![0xa5u8; (MIN_RUN_BYTES - 1) / 12 * 12];
        let run = vec![0x5au8; (MIN_RUN_BYTES / 96 + 1) * 96];
        for _ in 0..(2 * BUILD_AFTER_BYTES / short.len()) {
            assert_eq!(canonical(key.absorb(7, &short)), canonical(soft.absorb(7, &short)));
        }
        assert!(!built(&key), "runs the table does not take are not counted");
        let mut offered = 0;
        while offered + run.len() < BUILD_AFTER_BYTES {
            assert_eq!(canonical(key.absorb(7, &run)), canonical(soft.absorb(7, &run)));
            offered += run.len();
            assert!(!built(&key), "built after {offered} bytes");
        }
        assert_eq!(canonical(key.absorb(7, &run)), canonical(soft.absorb(7, &run)));
        assert!(built(&key), "not built after {} bytes", offered + run.len());
        // A key hashing only 4 KiB messages (their runs: whole coefficients,
        // 4,092 bytes) builds it too, on the run that brings enough.
        {
            let fresh = HashKey::select(&kh, ifma);
            let whole = vec![0x3cu8; 4096 / 12 * 12];
            for i in 1..=BUILD_AFTER_BYTES.div_ceil(whole.len()) {
                assert!(!built(&fresh), "built after {} runs", i - 1);
                assert_eq!(canonical(fresh.absorb(9, &whole)), canonical(soft.absorb(9, &whole)));
            }
            assert!(built(&fresh), "4 KiB messages never build the table");
        }
        // An attempt of the one loop that the table does not take is not
        // counted (the run is then hashed, and counted, by `absorb`).
        {
            let fresh = HashKey::select(&kh, ifma);
            let cipher = crate::aes::Key::new(&[3; 16], ifma).expect("16 bytes");
            for _ in 0..4 {
                assert!(fresh.one_loop(&cipher, BUILD_AFTER_BYTES - 1).is_none());
            }
            assert!(!built(&fresh), "attempts counted");
            if cipher.vaes512().is_some() {
                assert!(fresh.one_loop(&cipher, BUILD_AFTER_BYTES).is_some(), "a run of enough builds");
            }
        }
        // With the table built, the one loop of counter mode and hash takes
        // runs from MIN_RUN_BYTES (any length: it is a message's), if the
        // AES key runs on 512-bit VAES; never on the other tiers.
        for features in Features::detect().every_level() {
            let cipher = crate::aes::Key::new(&[3; 16], features).expect("16 bytes");
            let vaes = cipher.vaes512().is_some();
            assert_eq!(key.one_loop(&cipher, MIN_RUN_BYTES).is_some(), vaes, "{features:?}");
            assert!(key.one_loop(&cipher, MIN_RUN_BYTES - 1).is_none(), "{features:?}");
            let other = HashKey::select(&kh, features);
            if !matches!(other, HashKey::Ifma(..)) {
                assert!(other.one_loop(&cipher, 1 << 20).is_none(), "{features:?}");
            }
        }
        let first = MIN_RUN_BYTES.div_ceil(96) * 96;
        let data: Vec<u8> = (0..first + 4 * 3072 + 200).map(|i| (i * 7 + 3) as u8).collect();
        let ends = [first, first + 3072, 3 * 3072, 4 * 3072, first + 4 * 3072];
        for len in ends.iter().flat_map(|&e| [e - 108, e - 96, e - 12, e, e + 12, e + 96, e + 108]) {
            for r in [0, (1u128 << 127) - 1, 1 << 127] {
                let got = key.absorb(r, &data[..len]);
                assert!(got <= 1 << 127);
                assert_eq!(canonical(got), canonical(soft.absorb(r, &data[..len])), "len {len} r {r:x}");
            }
        }
    }
}
