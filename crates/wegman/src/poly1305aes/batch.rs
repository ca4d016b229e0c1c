//! Many (key, nonce, message) triples in one call: the key agility of §1.
//!
//! With AES-NI, a run of whole eight-item chunks whose messages are all at
//! most 16 bytes goes through [`short_run`]: eight fused AES key schedules
//! and pads at a time (`crate::aes::PadLeaf::pads8`: eight AES-NI chains,
//! or two or four keys per VAES register), and between their rounds the
//! one-block polynomials of the previous eight (`soft::short_tag`: h = c · r
//! straight from the bytes, no backend state to build and wipe per item),
//! so the vector and integer units overlap. Short messages under many keys
//! are where this pays: a single tag's cost is mostly its AES key schedule,
//! a chain of ten dependent rounds.
//!
//! Other items are taken eight at a time: their pads together, or one by
//! one (as `authenticate` does) in a last chunk of fewer; eight messages of one length from
//! 17 to 256 bytes (fixed-size packets) then run their polynomials in the
//! eight lanes of a backend that has them (`backend::tags8`: IFMA), each
//! lane under its own r, final reduction and pad included; any other chunk
//! runs each message on the best backend for its length.

use zeroize::Zeroize;

use super::backend::short_tag;
use super::backend::{Dispatch, Precomputed, State, lanes8_name, tags8};
use super::key::{Key, NONCE_BYTES, TAG_BYTES};
use super::poly1305::whole_message;
use crate::aes::{Between, Blocks8, Nothing, PadLeaf};
use crate::cpu::Features;
use crate::error::Error;

/// One message to authenticate or verify.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The secret key (k, r).
    pub key: &'a Key,
    /// The message's unique nonce.
    pub nonce: &'a [u8; NONCE_BYTES],
    /// The message.
    pub message: &'a [u8],
}

/// How many items share one pass of the AES pads.
const LANES: usize = 8;

/// The tags of up to eight items, `out[i]` for `chunk[i]`.
fn chunk_tags(chunk: &[Item<'_>], features: Features, out: &mut [[u8; TAG_BYTES]]) {
    let mut pads = Blocks8::default();
    pads_of(chunk, features, &mut pads);
    if chunk.iter().all(|i| i.message.len() <= 16) {
        for ((item, tag), s) in chunk.iter().zip(out.iter_mut()).zip(&pads.0) {
            *tag = short_tag(item.key.r(), s, item.message);
        }
    } else if !lanes(chunk, features, &pads.0, out) {
        for ((item, tag), s) in chunk.iter().zip(out.iter_mut()).zip(&pads.0) {
            *tag = whole_message(State::select(item.key.r(), features), s, item.message, &Precomputed::None);
        }
    }
}

/// The tags of the longest run of whole chunks at the start of `items`
/// whose messages are all at most 16 bytes: returns how many items it did
/// (0 if none qualify). Eight pads at a time (`PadLeaf::pads8`), and in the
/// gaps between their vector rounds the one-block polynomials of the
/// previous eight (`soft::short_tag`), so the vector and integer units work
/// at once. The pads pass through two aligned buffers, wiped on drop.
fn short_run(items: &[Item<'_>], features: Features, tags: &mut [[u8; TAG_BYTES]]) -> usize {
    let leaf = PadLeaf::best(features);
    if matches!(leaf, PadLeaf::AesCrate) || features.prefers_float64() {
        return 0;
    }
    let n = items.iter().take_while(|i| i.message.len() <= 16).count() & !(LANES - 1);
    let [mut fresh, mut used] = [Blocks8::default(), Blocks8::default()];
    let (mut fresh, mut used) = (&mut fresh, &mut used);
    // The chunk whose pads are in `used` and whose tags are still to come.
    let mut pending: Option<(&[Item<'_>], &mut [[u8; TAG_BYTES]])> = None;
    for (it, o) in items[..n].chunks_exact(LANES).zip(tags[..n].chunks_exact_mut(LANES)) {
        let k = core::array::from_fn(|i| it[i].key.k());
        let nonce = core::array::from_fn(|i| it[i].nonce);
        leaf.pads8(k, nonce, fresh, PendingTags { chunk: pending.as_mut(), pads: used });
        pending = Some((it, o));
        core::mem::swap(&mut fresh, &mut used);
    }
    if let Some((pi, po)) = pending {
        for ((item, s), t) in pi.iter().zip(&used.0).zip(po.iter_mut()) {
            *t = short_tag(item.key.r(), s, item.message);
        }
    }
    n
}

/// The tags of a chunk whose pads are ready, one per gap between the next
/// chunk's AES rounds.
struct PendingTags<'c, 'a, 'p> {
    chunk: Option<&'c mut (&'a [Item<'a>], &'a mut [[u8; TAG_BYTES]])>,
    pads: &'p Blocks8,
}

impl Between for PendingTags<'_, '_, '_> {
    #[inline(always)]
    fn round(&mut self, i: usize) {
        if let Some((items, tags)) = self.chunk.as_mut()
            && i < LANES
        {
            tags[i] = short_tag(items[i].key.r(), &self.pads.0[i], items[i].message);
        }
    }
}

/// Eight messages of one length in the lanes of a backend that has them
/// (`backend::tags8`), each lane under its own r. False if the chunk does
/// not qualify (then nothing is written).
fn lanes(chunk: &[Item<'_>], features: Features, pads: &[[u8; 16]; LANES], out: &mut [[u8; TAG_BYTES]]) -> bool {
    if chunk.len() != LANES {
        return false;
    }
    let r = core::array::from_fn(|i| chunk[i].key.r());
    let msgs: [&[u8]; LANES] = core::array::from_fn(|i| chunk[i].message);
    match tags8(features, r, pads, &msgs) {
        Some(t) => {
            out.copy_from_slice(&t);
            true
        }
        None => false,
    }
}

/// The backends a batch runs on with `features`: (the pads of a chunk of
/// eight, the polynomials of eight equal-length messages), as labels.
pub(crate) fn backend_names(features: Features) -> (&'static str, &'static str) {
    (PadLeaf::best(features).name8(), lanes8_name(features))
}

/// AES_k(n) of each item of `chunk` into `pads`.
fn pads_of(chunk: &[Item<'_>], features: Features, pads: &mut Blocks8) {
    let leaf = PadLeaf::best(features);
    if chunk.len() == LANES {
        let k = core::array::from_fn(|i| chunk[i].key.k());
        let nonce = core::array::from_fn(|i| chunk[i].nonce);
        leaf.pads8(k, nonce, pads, Nothing);
        return;
    }
    for (pad, item) in pads.0.iter_mut().zip(chunk) {
        *pad = leaf.pad(item.key.k(), item.nonce);
    }
}

/// Authenticate every item, writing `tags[i]` for `items[i]`.
///
/// Fails (writing nothing) if the two slices differ in length.
///
/// ```
/// use wegman::poly1305aes::{authenticate, authenticate_many, Item, Key};
/// let keys: Vec<Key> = (0..20u8).map(|i| Key::from_bytes_clamped(&[i; 32])).collect();
/// let nonce = [9u8; 16];
/// let items: Vec<Item> = keys.iter().map(|key| Item { key, nonce: &nonce, message: b"ping" }).collect();
/// let mut tags = vec![[0u8; 16]; items.len()];
/// authenticate_many(&items, &mut tags)?;
/// assert_eq!(tags[7], authenticate(&keys[7], &nonce, b"ping"));
/// # Ok::<(), wegman::Error>(())
/// ```
pub fn authenticate_many(items: &[Item<'_>], tags: &mut [[u8; TAG_BYTES]]) -> Result<(), Error> {
    authenticate_many_with(items, tags, Features::detect())
}

/// [`authenticate_many`] on the best backends `features` allow (tests and
/// benchmarks; [`Features::portable`] forces the portable code).
pub fn authenticate_many_with(
    items: &[Item<'_>],
    tags: &mut [[u8; TAG_BYTES]],
    features: Features,
) -> Result<(), Error> {
    if items.len() != tags.len() {
        return Err(Error::InvalidLength { what: "tag array", expected: items.len(), got: tags.len() });
    }
    let (mut items, mut tags) = (items, tags);
    while !items.is_empty() {
        let n = match short_run(items, features, tags) {
            0 => {
                let n = items.len().min(LANES);
                chunk_tags(&items[..n], features, &mut tags[..n]);
                n
            }
            n => n,
        };
        (items, tags) = (&items[n..], &mut tags[n..]);
    }
    Ok(())
}

/// Verify every item, setting `ok[i]` to whether `tags[i]` is valid for
/// `items[i]`; returns `Ok(true)` only if all are. Each comparison is
/// constant time; which items failed is, by design, public.
pub fn verify_many(items: &[Item<'_>], tags: &[[u8; TAG_BYTES]], ok: &mut [bool]) -> Result<bool, Error> {
    if items.len() != tags.len() {
        return Err(Error::InvalidLength { what: "tag array", expected: items.len(), got: tags.len() });
    }
    if items.len() != ok.len() {
        return Err(Error::InvalidLength { what: "result array", expected: items.len(), got: ok.len() });
    }
    let features = Features::detect();
    let mut all = true;
    // The expected tags, a block of items at a time (long enough for the
    // pipelined short-message runs), wiped at the end.
    let mut mine = [[0u8; TAG_BYTES]; 8 * LANES];
    for ((block, given), res) in items.chunks(8 * LANES).zip(tags.chunks(8 * LANES)).zip(ok.chunks_mut(8 * LANES)) {
        authenticate_many_with(block, &mut mine[..block.len()], features)?;
        for ((m, t), r) in mine.iter().zip(given).zip(res.iter_mut()) {
            *r = crate::ct::eq16(m, t);
            all &= *r;
        }
    }
    mine.as_flattened_mut().zeroize(); // one bulk wipe, not a byte loop per tag
    Ok(all)
}
