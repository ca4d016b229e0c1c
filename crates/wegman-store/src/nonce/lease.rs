//! [`Lease`]: a block of nonces reserved on disk by a [`super::NonceStore`]
//! and handed, as bytes, to a process that uses them with no disk access.

use std::fmt;
use std::path::Path;

use hmac::Mac;

use super::format::{Refusal, hex};
use super::fs::Fs;
use super::{KeyBinding, NonceError, chain, nonce_bytes};

const MAGIC: &str = "wegman-nonce-lease v1";

/// `count` nonces from `first`, reserved for the key with id `key_id` by a
/// generation of its store exactly as the store's own blocks are, so no two
/// leases (nor a lease and a store's block) ever overlap. Its text form
/// ([`Lease::to_bytes`]) is authenticated with HMAC-SHA-256 under the key,
/// so another process can check that it is this key's and unedited
/// ([`Lease::from_bytes`]).
///
/// **A lease is used once.** Its nonces are reserved once; a process that
/// uses a lease's bytes after another did repeats nonces. Hand each lease to
/// exactly one user, and drop it after use.
///
/// ```
/// use wegman_store::nonce::{KeyBinding, Lease, NonceStore};
/// let dir = std::env::temp_dir().join(format!("wegman-lease-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let state = dir.join("key.nonce");
/// # let _ = std::fs::remove_file(&state);
/// let key = KeyBinding::derive("poly1305aes", &[7u8; 32]);
/// NonceStore::create(&state, &key).unwrap();
/// let mut store = NonceStore::open(&state, &key).unwrap();
/// let lease = store.reserve(100).unwrap();
/// let bytes = lease.to_bytes(); // to another process
/// let there = Lease::from_bytes(&bytes, &key).unwrap();
/// let nonces: Vec<[u8; 16]> = there.into_nonces().collect();
/// assert_eq!(nonces.len(), 100);
/// assert!(!nonces.contains(&store.next_nonce().unwrap()));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Lease {
    key_id: [u8; 16],
    first: u128,
    count: u64,
    mac: [u8; 32],
}

impl fmt::Debug for Lease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lease")
            .field("key_id", &hex(&self.key_id))
            .field("first", &self.first)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

fn body(key_id: &[u8; 16], first: u128, count: u64) -> String {
    format!("{MAGIC}\nkey {}\nfirst {}\ncount {count}\n", hex(key_id), hex(&first.to_le_bytes()))
}

impl Lease {
    /// Reserve `count` (at least 1) nonces of the state at `base`.
    pub(super) fn reserve(fs: &impl Fs, base: &Path, key: &KeyBinding, count: u64) -> Result<Lease, NonceError> {
        let claim = chain::reserve(fs, base, key, count.max(1))?;
        // a block at the very end of the counter can be shorter
        let count = u64::try_from(claim.limit - claim.first).expect("at most `count`");
        let mut m = key.mac();
        m.update(body(&key.id, claim.first, count).as_bytes());
        Ok(Lease { key_id: key.id, first: claim.first, count, mac: m.finalize().into_bytes().into() })
    }

    /// The id of the key the lease is for.
    pub fn key_id(&self) -> [u8; 16] {
        self.key_id
    }

    /// The first nonce of the lease.
    pub fn first(&self) -> [u8; 16] {
        nonce_bytes(self.first)
    }

    /// How many nonces it holds.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Its nonces, in order.
    pub fn into_nonces(self) -> impl Iterator<Item = [u8; 16]> {
        (0..u128::from(self.count)).map(move |i| nonce_bytes(self.first + i))
    }

    /// Its authenticated text form (about 200 bytes, public: no secret in it).
    pub fn to_bytes(&self) -> Vec<u8> {
        format!("{}mac {}\n", body(&self.key_id, self.first, self.count), hex(&self.mac)).into_bytes()
    }

    /// A lease from [`Lease::to_bytes`], checked: it must be `key`'s and
    /// unedited ([`NonceError::WrongKey`], [`NonceError::Corrupt`]). The
    /// path in these errors is `<lease>`.
    pub fn from_bytes(bytes: &[u8], key: &KeyBinding) -> Result<Lease, NonceError> {
        let path = Path::new("<lease>");
        let refused = |r| chain::refused(path, r, key);
        let text = std::str::from_utf8(bytes).map_err(|_| refused(Refusal::Corrupt("not text")))?;
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let [magic, id, first, count, mac] = lines[..] else {
            return Err(refused(Refusal::Corrupt("not five lines")));
        };
        if magic != format!("{MAGIC}\n") {
            return Err(refused(Refusal::Corrupt("bad header")));
        }
        fn field<'a>(name: &str, l: &'a str) -> Option<&'a str> {
            l.strip_prefix(name)?.strip_prefix(' ')?.strip_suffix('\n')
        }
        let unhex = |s: &str, out: &mut [u8]| -> bool {
            s.len() == 2 * out.len()
                && s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
                && out
                    .iter_mut()
                    .enumerate()
                    .all(|(i, o)| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map(|v| *o = v).is_ok())
        };
        let (mut key_id, mut first_b, mut mac_b) = ([0u8; 16], [0u8; 16], [0u8; 32]);
        if !field("key", id).is_some_and(|s| unhex(s, &mut key_id)) {
            return Err(refused(Refusal::Corrupt("bad key line")));
        }
        if !field("first", first).is_some_and(|s| unhex(s, &mut first_b)) {
            return Err(refused(Refusal::Corrupt("bad first line")));
        }
        let count: u64 = field("count", count)
            .filter(|s| !s.is_empty() && !s.starts_with('0') && s.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| refused(Refusal::Corrupt("bad count line")))?;
        if !field("mac", mac).is_some_and(|s| unhex(s, &mut mac_b)) {
            return Err(refused(Refusal::Corrupt("bad mac line")));
        }
        if key_id != key.id {
            return Err(refused(Refusal::WrongKey(key_id)));
        }
        let first = u128::from_le_bytes(first_b);
        let mut m = key.mac();
        m.update(body(&key_id, first, count).as_bytes());
        m.verify_slice(&mac_b)
            .map_err(|_| refused(Refusal::Corrupt("its authentication code does not match: edited or damaged")))?;
        Ok(Lease { key_id, first, count, mac: mac_b })
    }
}
