//! Many (key, nonce, message) triples in one call.
//!
//! Every item runs through its key's backend in turn today; a multi-buffer
//! backend (the paper's §3.2 "working on several messages at the same time",
//! loading each key word once for several blocks) can later take several
//! items at once behind this same API.

use super::alg::NONCE_BYTES;
use super::key::MacKey;
use super::tag::Tag;
use crate::error::Error;

/// One message to authenticate or verify.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// The expanded key (its algorithm decides the tag length).
    pub key: &'a MacKey,
    /// The message's unique nonce.
    pub nonce: &'a [u8; NONCE_BYTES],
    /// The message.
    pub message: &'a [u8],
}

fn check_fits(items: &[Item<'_>]) -> Result<(), Error> {
    for item in items {
        let alg = item.key.alg();
        if item.message.len() as u128 > alg.max_message_len() {
            let max = u64::try_from(alg.max_message_len()).unwrap_or(u64::MAX);
            return Err(Error::TooLong { what: "message", max });
        }
    }
    Ok(())
}

/// Authenticate every item, writing `tags[i]` for `items[i]`.
///
/// Fails, writing nothing, if the slices differ in length or a message is
/// too long for its algorithm.
///
/// ```
/// use wegman::mmh::{self, Alg, Item, MacKey};
/// let (a, b) = (MacKey::new(Alg::Mmh32, &[1; 32]), MacKey::new(Alg::Mmh64x2, &[2; 32]));
/// let items = [
///     Item { key: &a, nonce: &[0; 16], message: b"one" },
///     Item { key: &b, nonce: &[0; 16], message: b"two" },
/// ];
/// let mut tags = [a.mac(&[9; 16], b"")?; 2];
/// mmh::mac_many(&items, &mut tags)?;
/// assert_eq!((tags[0].len(), tags[1].len()), (4, 16));
/// let mut ok = [false; 2];
/// assert_eq!(mmh::verify_many(&items, &tags, &mut ok), Ok(true));
/// # Ok::<(), wegman::Error>(())
/// ```
pub fn mac_many(items: &[Item<'_>], tags: &mut [Tag]) -> Result<(), Error> {
    if items.len() != tags.len() {
        return Err(Error::InvalidLength { what: "tag array", expected: items.len(), got: tags.len() });
    }
    check_fits(items)?;
    for (item, tag) in items.iter().zip(tags.iter_mut()) {
        *tag = item.key.mac(item.nonce, item.message)?;
    }
    Ok(())
}

/// Verify every item, setting `ok[i]` to whether `tags[i]` is valid for
/// `items[i]`; returns `Ok(true)` only if all are. Each comparison is
/// constant time; which items failed is, by design, public. A tag of the
/// wrong length for its item's algorithm simply fails.
pub fn verify_many<T: AsRef<[u8]>>(items: &[Item<'_>], tags: &[T], ok: &mut [bool]) -> Result<bool, Error> {
    if items.len() != tags.len() {
        return Err(Error::InvalidLength { what: "tag array", expected: items.len(), got: tags.len() });
    }
    if items.len() != ok.len() {
        return Err(Error::InvalidLength { what: "result array", expected: items.len(), got: ok.len() });
    }
    check_fits(items)?;
    let mut all = true;
    for ((item, tag), res) in items.iter().zip(tags).zip(ok.iter_mut()) {
        *res = item.key.verify(tag.as_ref(), item.nonce, item.message).is_ok();
        all &= *res;
    }
    Ok(all)
}
