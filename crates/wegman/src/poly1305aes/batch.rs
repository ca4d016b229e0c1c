//! Many (key, nonce, message) triples in one call: the key agility of §1.
//!
//! Items are taken eight at a time. Their eight AES pads are computed
//! together (with VAES, eight fused key schedules in two registers:
//! `backend/x86_vaes.rs`; otherwise one by one, as `authenticate` does).
//! Chunks whose messages are all at most 16 bytes run each tag as one
//! block straight from the bytes (`soft::short_tag`: no backend state to
//! build and wipe per item). Eight messages of one length from 17 to 256
//! bytes (fixed-size packets)
//! then run their polynomials in the eight lanes of the IFMA backend, each
//! lane under its own r, final reduction and pad included (1.24× the
//! single calls at 64 bytes, 1.77× at 256, on the development machine);
//! any other chunk runs each message on the best backend for its length. Short
//! messages under many keys are where this pays: there, a tag's cost is
//! mostly its AES key schedule, a chain of ten dependent rounds that eight
//! keys can share.

use zeroize::Zeroize;

use super::backend::{Precomputed, State};
use super::key::{Key, NONCE_BYTES, TAG_BYTES};
use super::mac::one_shot_pad;
use super::poly1305::whole_message;
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
    let mut pads = [[0u8; 16]; LANES];
    pads_of(chunk, features, &mut pads);
    if chunk.iter().all(|i| i.message.len() <= 16) {
        for ((item, tag), s) in chunk.iter().zip(out.iter_mut()).zip(&pads) {
            *tag = super::backend::soft::short_tag(item.key.r(), s, item.message);
        }
    } else if !lanes(chunk, features, &pads, out) {
        for ((item, tag), s) in chunk.iter().zip(out.iter_mut()).zip(&pads) {
            *tag = whole_message(State::new(item.key.r(), features), s, item.message, &Precomputed::None);
        }
    }
    pads.zeroize();
}

/// Eight short messages of one length, with IFMA: their polynomials in
/// eight lanes, each under its own r (`tags8`). False if the chunk does
/// not qualify (then nothing is written).
fn lanes(chunk: &[Item<'_>], features: Features, pads: &[[u8; 16]; LANES], out: &mut [[u8; TAG_BYTES]]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use super::backend::x86_avx512ifma::{BATCH_MAX_BYTES, tags8};
        let len = chunk.first().map_or(0, |i| i.message.len());
        if let (Some(token), LANES) = (features.avx512ifma(), chunk.len()) {
            // One block per lane does not repay the transposes (measured:
            // even with the per-item path at 16 bytes); two or more do.
            if len > 16 && len <= BATCH_MAX_BYTES && chunk.iter().all(|i| i.message.len() == len) {
                let mut r = [[0u8; 16]; LANES];
                for (ri, item) in r.iter_mut().zip(chunk) {
                    *ri = *item.key.r();
                }
                let msgs: [&[u8]; LANES] = core::array::from_fn(|i| chunk[i].message);
                out.copy_from_slice(&tags8(token, &r, pads, &msgs));
                r.zeroize();
                return true;
            }
        }
    }
    let _ = (chunk, features, pads, out);
    false
}

/// AES_k(n) of each item of `chunk` into `pads`.
fn pads_of(chunk: &[Item<'_>], features: Features, pads: &mut [[u8; 16]; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(token), LANES) = (features.vaes(), chunk.len()) {
        let mut k = [[0u8; 16]; LANES];
        let mut n = [[0u8; 16]; LANES];
        for (i, item) in chunk.iter().enumerate() {
            k[i] = *item.key.k();
            n[i] = *item.nonce;
        }
        *pads = super::backend::x86_vaes::pads8(token, &k, &n);
        k.zeroize();
        return;
    }
    for (pad, item) in pads.iter_mut().zip(chunk) {
        *pad = one_shot_pad(item.key, item.nonce, features);
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
    for (chunk, out) in items.chunks(LANES).zip(tags.chunks_mut(LANES)) {
        chunk_tags(chunk, features, out);
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
    let mut mine = [[0u8; TAG_BYTES]; LANES];
    for ((chunk, given), res) in items.chunks(LANES).zip(tags.chunks(LANES)).zip(ok.chunks_mut(LANES)) {
        chunk_tags(chunk, features, &mut mine[..chunk.len()]);
        for ((m, t), r) in mine.iter().zip(given).zip(res.iter_mut()) {
            *r = crate::ct::eq16(m, t);
            all &= *r;
        }
    }
    mine.zeroize();
    Ok(all)
}
