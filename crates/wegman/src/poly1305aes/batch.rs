//! Many (key, nonce, message) triples in one call: the key agility of §1.
//!
//! Today every item runs through the per-key backend in turn; a multi-buffer
//! SIMD backend can later take several items at once behind this same API.

use super::key::{Key, NONCE_BYTES, TAG_BYTES};
use super::mac::{authenticate, verify};
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

/// Authenticate every item, writing `tags[i]` for `items[i]`.
///
/// Fails (writing nothing) if the two slices differ in length.
pub fn authenticate_many(items: &[Item<'_>], tags: &mut [[u8; TAG_BYTES]]) -> Result<(), Error> {
    if items.len() != tags.len() {
        return Err(Error::InvalidLength { what: "tag array", expected: items.len(), got: tags.len() });
    }
    for (item, tag) in items.iter().zip(tags.iter_mut()) {
        *tag = authenticate(item.key, item.nonce, item.message);
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
    let mut all = true;
    for ((item, tag), res) in items.iter().zip(tags).zip(ok.iter_mut()) {
        *res = verify(item.key, tag, item.nonce, item.message).is_ok();
        all &= *res;
    }
    Ok(all)
}
