//! The §3 nonce discipline: a "safe nonce" stored on disk beside the key.
//!
//! Poly1305-AES §3: *"If a key is stored on disk, while increasing nonce
//! values are stored in memory, what happens when the power goes out?
//! Solution: Store a safe nonce value—a new nonce larger than any nonce
//! used—on disk alongside the key."*
//!
//! Nonces are a 128-bit counter written as 16 little-endian bytes, so they
//! increase in the reverse-lexicographic order the paper suggests.
//!
//! **The invariant.** A nonce is handed out only after a durable record,
//! which no other writer can overwrite or roll back, shows it reserved.
//!
//! **The files.** The state of the key file `KEY` is `KEY.nonce` (what
//! [`state_path_for_key`] returns) and the *generation files*
//! `KEY.nonce.<g>` beside it (`g` = 1, 2, … in decimal). Each generation
//! file holds, authenticated with HMAC-SHA-256 under the key ([`KeyBinding`]):
//! the key id, its generation `g` (which must match its name), the safe
//! nonce `s` (no nonce `>= s` was handed out from the chain up to `g`) and
//! a random 128-bit id written fresh into every file. The current state is
//! the highest generation present. `KEY.nonce` itself is the *base*: a
//! *sealed* base (format v3, "generations beside") that holds no counter
//! and never changes; `create` writes generation 1 (safe nonce 0), then the
//! sealed base. Earlier wegman versions kept the counter in a version-2
//! base, rewritten (renamed over) at every reservation; the first
//! reservation of this version reads such a base as generation 0, makes
//! generation 1 **2^64 above its safe nonce**, and seals the base. The gap
//! is there because an earlier wegman that read the base before it was
//! sealed can still rename its own over the seal and use what it reserved
//! (fewer than 2^64 nonces at a time): a reservation that finds a
//! version-2 base, migrating it or beside generations where such a writer
//! put it back, continues 2^64 above it and seals it again. Earlier
//! versions refuse a sealed base (a bad header), so they cannot start on a
//! migrated state.

//! **A reservation** of `n` nonces, from the current generation `g` with
//! safe nonce `s`:
//!
//! 1. write generation `g + 1` with safe nonce `s + n` to a temporary file
//!    whose name no other writer uses (`KEY.nonce.tmp.<pid>.<random>`,
//!    created exclusively, `O_NOFOLLOW`, mode 0600), fsync it;
//! 2. `link()` it to `KEY.nonce.<g+1>`: the file system makes this atomic
//!    and exclusive, it fails if the name exists, and then the writer lost
//!    the race: it reads the state again and retries;
//! 3. unlink the temporary name, fsync the directory;
//! 4. check that the exact file it based the reservation on (generation
//!    `g` with the same random id, or the unsealed base) is still present;
//!    if not, the claim is void (see below): read again and retry;
//! 5. only then hand out `s .. s + n`.
//!
//! No writer ever replaces or removes the file of the current generation,
//! so what a successful `link` published cannot be overwritten or rolled
//! back by another writer; two writers that read the same generation cannot
//! both link the next one. **Cleaning** keeps the directory small: after
//! publishing generation `own`, a writer removes generations below `own - 1`,
//! from the lowest it lists upwards, strictly in increasing order (and seals
//! the base first if it was not yet sealed). The two highest generations
//! ever made are therefore never removed, and the highest present is the
//! highest ever made. The hazard of removing is that a name becomes free
//! again: a writer stopped for a long time after reading generation `g`
//! could link `g + 1` after another `g + 1` was made, used and removed.
//! Step 4 catches exactly that: the other `g + 1` could only be removed by
//! a cleaner that had first removed `g` (increasing order, and it lists
//! only after its own, later, generation exists), so `g` with the same
//! random id — which is written once and never re-created — is gone. The
//! same holds for the base: it is sealed before any generation is removed,
//! so a writer that read the unsealed base finds it sealed.
//!
//! Step 4 needs the parent to have been the current generation when it was
//! read, and a file under a generation's name need not ever have been: a
//! **void** publication (a stopped writer's link into a name cleaning had
//! freed, its parent gone) stays until a cleaner removes it, and its safe
//! nonce is below what others handed out. So **reading the current
//! generation** lists the directory, reads the highest listed, probes
//! upwards (`g + 1`, `g + 2`, …) until a name is absent, checks that the
//! file it read is still there, and then lists the directory again: the
//! file is current only if no higher generation is listed; otherwise it
//! starts over. A listing begun after the read includes the highest name
//! ever linked (it is never removed, and POSIX requires a listing to return
//! every entry that is neither added nor removed while it runs), so the file
//! read was then at the highest name ever linked, the same file (removing
//! its name needs two higher ones), and not a void in a recycled name (a
//! cleaner freed that name: two higher ones exist; the one void that can be
//! highest, on an unsealed base an older wegman replaced, is what the 2^64
//! gap above is for). Without the second
//! listing, a listing made before other writers went on can lead the probe
//! to a recycled name holding a void file with a freed name above it, and
//! the void passes step 4 as a parent (`tests/nonce_race.rs` forces that
//! interleaving; a harness of threads paused at random between their steps
//! finds it within a few seconds without the check).
//!
//! **Giving back** ([`NonceStore::close`]): a clean exit publishes
//! generation `g + 1` with the first unused nonce as its safe nonce, but
//! only if the current generation is still the store's own last one (same
//! random id); otherwise, or if the link fails, the unused nonces are just
//! skipped. A crash at any point leaves a chain whose highest generation is
//! above every nonce handed out: at worst the rest of a block is skipped.
//!
//! **The lock** on `KEY.nonce.lock` only makes writers wait for each other
//! (so a `wegman tag` run gets a dense block of nonces); uniqueness does not
//! depend on it. A symbolic link at the lock path is refused.
//!
//! **Processes.** A reservation belongs to the process that made it: the
//! store records the process's *incarnation* with the reserved range — a
//! random id kept in a page the kernel zeroes in every child
//! (`MADV_WIPEONFORK`, `fork.rs`), not the PID, which a child in a new PID
//! namespace or a grandchild can share with the reserver — and a forked
//! child that inherits an open store discards the inherited range and
//! reserves its own (a new generation); its `close` never gives back the
//! parent's range.
//! Opening one state twice in one process is an error
//! ([`NonceError::AlreadyOpen`]), not a deadlock on the lock.
//!
//! **Leases.** [`NonceStore::reserve`] reserves a block as its own
//! generation and returns it as a [`Lease`]: authenticated bytes another
//! process can use with no disk access, never overlapping another lease or
//! a store's block (each lease is to be used once).
//!
//! A missing, corrupt or foreign state, or any I/O error, is an error: the
//! store never guesses. **Binding to the key**: a state of another key (a
//! key file renamed onto a path with a leftover state) is
//! [`NonceError::WrongKey`], an edited one [`NonceError::Corrupt`]. What
//! binding cannot catch is a *genuine older state of the same key* restored
//! from a backup, or the highest generation files deleted by hand: the
//! older state authenticates as well as it did the day it was written.
//! Restoring one rolls the counter back and can repeat nonces: after a
//! restore, make a new key.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

mod chain;
mod files;
mod fork;
mod format;
mod fs;
mod lease;
mod store;

pub use fs::{FileLock, Fs, RealFs};
pub use lease::Lease;
pub use store::NonceStore;

use format::hex;

/// How many nonces are reserved on disk at a time by default.
pub const DEFAULT_RESERVE: u64 = 1024;

/// Why the nonce store refused to continue.
#[derive(Debug)]
#[non_exhaustive]
pub enum NonceError {
    /// The state file does not exist (re-creating it could reuse nonces).
    Missing(PathBuf),
    /// The state file exists but cannot be trusted.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The state file belongs to another key: using its counter could
    /// repeat nonces of this key.
    WrongKey {
        /// The file.
        path: PathBuf,
        /// The key id the file names.
        found: [u8; 16],
        /// This key's id.
        expected: [u8; 16],
    },
    /// The state file is in the unbound version-1 format of earlier wegman
    /// versions: [`NonceStore::adopt`] binds it to a key.
    Unbound(PathBuf),
    /// `create` found a state file already there.
    AlreadyExists(PathBuf),
    /// This process already has this state open (a second store on it would
    /// wait for its own lock forever).
    AlreadyOpen(PathBuf),
    /// The lock path is a symbolic link: the store would create or lock a
    /// file elsewhere.
    LockSymlink(PathBuf),
    /// The state path is a symbolic link: renaming a new state over it would
    /// replace the link, not its target, and the target would keep counting
    /// on its own, so the store refuses it.
    Symlink(PathBuf),
    /// The generation files kept changing under this store (other writers
    /// won every attempt): it hands out no nonce of the attempts.
    Conflict {
        /// The state file.
        path: PathBuf,
        /// What changed.
        why: String,
    },
    /// Writing a new generation failed at one step. The highest generation
    /// is then the old or the new one (the link is atomic), and neither is
    /// below a nonce handed out: no nonce of a failed reservation is handed
    /// out, and after a failed give-back the unused nonces may stay
    /// reserved (skipped, never reused).
    Update {
        /// What the update was for: "creating the nonce state", "reserving
        /// nonces", "giving back unused nonces" or "binding the nonce state
        /// to this key".
        during: &'static str,
        /// The step that failed ("writing the temporary nonce state", …).
        op: &'static str,
        /// The file (or directory) of that step.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The counter reached 2^128 - 1.
    Exhausted,
    /// An operating-system error.
    Io {
        /// What the store was doing.
        op: &'static str,
        /// On which file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

impl fmt::Display for NonceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NonceError::Missing(p) => write!(
                f,
                "nonce state {} is missing; refusing to guess a safe nonce \
                 (starting again from zero could repeat nonces and reveal the key)",
                p.display()
            ),
            NonceError::Corrupt { path, why } => {
                write!(f, "nonce state {} is corrupt ({why}); refusing to guess a safe nonce", path.display())
            }
            NonceError::WrongKey { path, found, expected } => write!(
                f,
                "nonce state {} belongs to another key (key id {}, this key is {}): was a key file renamed or \
                 copied over another? Refusing it: another key's counter could repeat this key's nonces",
                path.display(),
                hex(found),
                hex(expected)
            ),
            NonceError::Unbound(p) => write!(
                f,
                "nonce state {} is in the old unbound format (v1), which does not name its key; adopt it for \
                 this key only if you are sure it is this key's state",
                p.display()
            ),
            NonceError::AlreadyExists(p) => write!(f, "nonce state {} already exists", p.display()),
            NonceError::AlreadyOpen(p) => write!(
                f,
                "nonce state {} is already open in this process; use that store (opening it twice would wait \
                 for its own lock)",
                p.display()
            ),
            NonceError::LockSymlink(p) => write!(
                f,
                "nonce lock {} is a symbolic link; refusing it (the lock would be taken, or a file created, \
                 where it points)",
                p.display()
            ),
            NonceError::Symlink(p) => write!(
                f,
                "nonce state {} is a symbolic link; refusing it (updating it would replace the link and let the \
                 state it points to repeat nonces); keep the state file itself beside the key",
                p.display()
            ),
            NonceError::Conflict { path, why } => write!(
                f,
                "nonce state {} kept changing ({why}); stopping without handing out or giving back nonces",
                path.display()
            ),
            NonceError::Update { during, op, path, source } => {
                let outcome = match *during {
                    RESERVING => "; no nonce of this reservation was handed out",
                    GIVING_BACK => "; the unused nonces may be skipped, none is reused",
                    _ => "",
                };
                write!(f, "{during} failed at {op} {}: {source}{outcome}", path.display())
            }
            NonceError::Exhausted => f.write_str("all 2^128 - 1 nonces of this key have been used"),
            NonceError::Io { op, path, source } => write!(f, "{op} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for NonceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NonceError::Io { source, .. } | NonceError::Update { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> NonceError + use<'a> {
    move |source| NonceError::Io { op, path: path.to_path_buf(), source }
}

/// What an update is for, as [`NonceError::Update`] names it.
const CREATING: &str = "creating the nonce state";
const RESERVING: &str = "reserving nonces";
const GIVING_BACK: &str = "giving back unused nonces";
const ADOPTING: &str = "binding the nonce state to this key";

fn update_err(during: &'static str) -> impl FnOnce(files::StepError) -> NonceError {
    move |(op, path, source)| NonceError::Update { during, op, path, source }
}

/// What ties a state file to one key: a public key id and a secret key
/// that authenticates the state, both derived from the key material with
/// HMAC-SHA-256 (keyed by the key, domain-separated by purpose and
/// algorithm name), so the key file itself needs no extra field and every
/// copy of one key finds the same id.
///
/// ```
/// use wegman_store::nonce::KeyBinding;
/// let a = KeyBinding::derive("poly1305aes", &[1u8; 32]);
/// assert_eq!(a.id(), KeyBinding::derive("poly1305aes", &[1u8; 32]).id());
/// assert_ne!(a.id(), KeyBinding::derive("poly1305aes", &[2u8; 32]).id());
/// assert_ne!(a.id(), KeyBinding::derive("mmh32", &[1u8; 32]).id());
/// ```
#[derive(Clone)]
pub struct KeyBinding {
    id: [u8; 16],
    mac_key: Zeroizing<[u8; 32]>,
}

impl KeyBinding {
    /// The binding of the key `key` (raw key bytes) for algorithm `alg` (the
    /// name the key file gives, e.g. `poly1305aes`).
    pub fn derive(alg: &str, key: &[u8]) -> Self {
        let prf = |purpose: &str| {
            let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length");
            for part in ["wegman nonce state", purpose, alg] {
                m.update(part.as_bytes());
                m.update(&[0]);
            }
            let out: [u8; 32] = m.finalize().into_bytes().into();
            Zeroizing::new(out)
        };
        let mut id = [0u8; 16];
        id.copy_from_slice(&prf("key id")[..16]);
        KeyBinding { id, mac_key: prf("state authentication key") }
    }

    /// The public key id a state file of this key names.
    pub fn id(&self) -> [u8; 16] {
        self.id
    }

    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.mac_key[..]).expect("32-byte key")
    }
}

impl fmt::Debug for KeyBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyBinding").field("id", &hex(&self.id)).finish_non_exhaustive()
    }
}

/// The state file that belongs to a key file: `KEY.nonce` beside the key
/// file itself, with symbolic links and relative parts of `key_path`
/// resolved, so that every name of one key file finds the same state (and
/// the same lock).
pub fn state_path_for_key(key_path: &Path) -> Result<PathBuf, NonceError> {
    let real = std::fs::canonicalize(key_path).map_err(io_err("resolving key file", key_path))?;
    Ok(with_suffix(&real, ".nonce"))
}

/// The state file for a key file about to be created at `key_path`: what
/// [`state_path_for_key`] will return once it exists (the real directory,
/// the file name, `.nonce`).
pub fn state_path_for_new_key(key_path: &Path) -> Result<PathBuf, NonceError> {
    let name = key_path.file_name().ok_or_else(|| {
        io_err("naming key file", key_path)(io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))
    })?;
    let dir = parent_dir(key_path);
    let real = std::fs::canonicalize(dir).map_err(io_err("resolving directory", dir))?;
    Ok(with_suffix(&real.join(name), ".nonce"))
}

/// `path` with `suffix` appended to its last component.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A 16-byte nonce as the paper's counter: little-endian.
pub fn nonce_bytes(counter: u128) -> [u8; 16] {
    counter.to_le_bytes()
}

/// What [`NonceStore::open`] makes of a state file `KEY.nonce` holding
/// `bytes` when no generation file is beside it: the safe nonce of a
/// version-2 state (as earlier versions wrote), or why it is refused (a
/// sealed base with no generation is [`NonceError::Missing`]). The same
/// checks on the same prefix (the first 4096 bytes) as `open`, without the
/// file or its lock: for a tool that inspects a state it was handed, and for
/// the fuzz target `fuzz/fuzz_targets/nonce_state.rs`, which checks the two
/// agree. `path` only names the file in errors.
///
/// ```
/// use wegman_store::nonce::{KeyBinding, NonceError, check_state_bytes};
/// let key = KeyBinding::derive("poly1305aes", &[1u8; 32]);
/// let refused = check_state_bytes("key.nonce".as_ref(), &key, b"wegman-nonce-state v9\n");
/// assert!(matches!(refused, Err(NonceError::Corrupt { .. })));
/// ```
pub fn check_state_bytes(path: &Path, key: &KeyBinding, bytes: &[u8]) -> Result<u128, NonceError> {
    let prefix = &bytes[..bytes.len().min(format::MAX_STATE_BYTES)];
    let text =
        std::str::from_utf8(prefix).map_err(|_| chain::refused(path, format::Refusal::Corrupt("not text"), key))?;
    match format::decode_base(key, text).map_err(|r| chain::refused(path, r, key))? {
        format::Base::V2(safe) => Ok(safe),
        format::Base::Sealed => Err(chain::missing_gens(path)),
    }
}
