//! THE OLD NONCE STORE, kept only for negative controls (the crate's
//! documentation): with the lock file removed, two writers share the fixed
//! temporary name `KEY.nonce.tmp` and can install each other's state. With
//! [`Kind::Broken`], the naive store of the paper's warning. The store
//! wegman ships is `wegman_store::nonce`; what follows is the old one's
//! own documentation.
//!
//! The §3 nonce discipline: a "safe nonce" stored on disk beside the key.
//!
//! Poly1305-AES §3: *"If a key is stored on disk, while increasing nonce
//! values are stored in memory, what happens when the power goes out?
//! Solution: Store a safe nonce value—a new nonce larger than any nonce
//! used—on disk alongside the key."*
//!
//! Nonces are a 128-bit counter written as 16 little-endian bytes, so they
//! increase in the reverse-lexicographic order the paper suggests. The file
//! `KEY.nonce` holds the safe nonce `s`: no nonce `>= s` was ever handed
//! out. Before handing out nonce `x`, the store makes sure `x < s` is on
//! stable storage, reserving a block of nonces at a time:
//!
//! 1. write the new safe nonce to `KEY.nonce.tmp` (created afresh, mode
//!    0600), fsync it;
//! 2. rename it over `KEY.nonce`; fsync the directory;
//! 3. only then hand out nonces below the new value.
//!
//! A crash at any point leaves either the old or the new safe nonce on disk,
//! both `>=` every nonce handed out, so no nonce is ever used twice; at worst
//! the rest of a reserved block is skipped. [`NonceStore::close`] writes back
//! the first unused nonce so a clean exit wastes nothing. A missing or
//! corrupt state file, or any I/O error, is an error: the store never guesses.
//!
//! **Locking.** An exclusive lock on `KEY.nonce.lock` keeps two processes
//! from sharing a block. A lock only excludes others while the file it is
//! on is still the one at that path, so the store checks that after locking
//! (retrying if the file was replaced meanwhile), again before every
//! reservation and before giving nonces back; and it reserves or gives back
//! only when the safe nonce on disk is still the one it wrote last. If the
//! lock file was removed or the state changed under it, the store stops with
//! [`NonceError::Conflict`] and never moves the safe nonce backwards.
//!
//! **Binding to the key.** The state names its key and is authenticated
//! under it: [`KeyBinding`] derives, with HMAC-SHA-256 keyed by the key
//! material, a public key id and a state-authentication key. The file holds
//! the key id, the safe nonce and an HMAC of both, so a state that belongs
//! to another key (a key file renamed onto a path with a leftover state) is
//! refused as [`NonceError::WrongKey`], and an edited one as
//! [`NonceError::Corrupt`]. What binding cannot catch is a *genuine older
//! state of the same key* restored from a backup: it authenticates as well
//! as it did the day it was written. Restoring one rolls the counter back
//! and can repeat nonces: after a restore, make a new key.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

/// How many nonces are reserved on disk at a time by default.
pub const DEFAULT_RESERVE: u64 = 1024;

/// The state format this version writes: bound to its key.
const MAGIC: &str = "wegman-nonce-state v2";
/// The unbound format of earlier versions (refused).
const MAGIC_V1: &str = "wegman-nonce-state v1";
/// How often `lock` retries when the lock file is replaced under it.
const LOCK_ATTEMPTS: usize = 100;
/// The most of a state file that is read (a genuine one is under 200 bytes).
const MAX_STATE_BYTES: usize = 4096;

/// Why the store refused to continue: the shipped store's errors (the old
/// store's own said the same, but for a conflict's wording).
pub use wegman_store::nonce::NonceError;

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> NonceError + use<'a> {
    move |source| NonceError::Io { op, path: path.to_path_buf(), source }
}

/// What [`persist`] writes a new safe nonce for, as [`NonceError::Update`] names it.
const CREATING: &str = "creating the nonce state";
const RESERVING: &str = "reserving nonces";
const GIVING_BACK: &str = "giving back unused nonces";

fn conflict(path: &Path, why: impl Into<String>) -> NonceError {
    NonceError::Conflict { path: path.to_path_buf(), why: why.into() }
}

/// Lowercase hex of public bytes (nonces, key ids, the state's HMAC).
fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// What ties a state file to one key: the public key id the shipped store
/// derives ([`wegman_store::nonce::KeyBinding`]), and a secret key that
/// authenticates the state, derived from the key material with
/// HMAC-SHA-256 (keyed by the key, domain-separated by purpose and
/// algorithm name). The shipped store keeps its own state-authentication
/// key private, so this one has a purpose of its own: the old store's state
/// files are its own, never read by the shipped store.
#[derive(Clone)]
pub struct KeyBinding {
    id: [u8; 16],
    mac_key: Zeroizing<[u8; 32]>,
}

impl KeyBinding {
    /// The binding of the key `key` (raw key bytes) for algorithm `alg` (the
    /// name the key file gives, e.g. `poly1305aes`).
    pub fn derive(alg: &str, key: &[u8]) -> Self {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts keys of any length");
        for part in ["wegman legacy nonce state", alg] {
            m.update(part.as_bytes());
            m.update(&[0]);
        }
        let mac_key = Zeroizing::new(m.finalize().into_bytes().into());
        KeyBinding { id: wegman_store::nonce::KeyBinding::derive(alg, key).id(), mac_key }
    }

    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.mac_key[..]).expect("32-byte key")
    }
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// A 16-byte nonce as the paper's counter: little-endian.
pub fn nonce_bytes(counter: u128) -> [u8; 16] {
    counter.to_le_bytes()
}

/// Crash-safe source of unique nonces for one key.
pub struct NonceStore {
    kind: Kind,
    path: PathBuf,
    lock: Lock,
    key: KeyBinding,
    next: u128,
    limit: u128,
    reserve: u64,
}

impl fmt::Debug for NonceStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NonceStore").field("path", &self.path).field("next", &self.next).finish_non_exhaustive()
    }
}

impl NonceStore {
    /// Create a new state file for `key` whose safe nonce is 0. Fails if one
    /// exists (checked under the lock, so two racing creators cannot both
    /// succeed).
    pub fn create(kind: Kind, path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        let _lock = Lock::acquire(path)?;
        if fs::symlink_metadata(path).is_ok() {
            return Err(NonceError::AlreadyExists(path.to_path_buf()));
        }
        persist(kind, path, key, 0, CREATING)
    }

    /// Open and lock the state file of `key`. Refuses a state path that is a
    /// symbolic link, a state of another key and an unbound (v1) state.
    pub fn open(kind: Kind, path: &Path, key: &KeyBinding) -> Result<Self, NonceError> {
        let lock = Lock::acquire(path)?;
        refuse_symlink(path)?;
        let safe = read_state(kind, path, key)?;
        Ok(NonceStore {
            kind,
            path: path.to_path_buf(),
            lock,
            key: key.clone(),
            next: safe,
            limit: safe,
            reserve: DEFAULT_RESERVE,
        })
    }

    /// Reserve `n` (at least 1) nonces per disk write instead of the default.
    pub fn with_reserve(mut self, n: u64) -> Self {
        self.reserve = n.max(1);
        self
    }

    /// The next unused nonce. Never returns the same value twice for one
    /// state file, across crashes included.
    pub fn next_nonce(&mut self) -> Result<[u8; 16], NonceError> {
        if self.next == u128::MAX {
            return Err(NonceError::Exhausted);
        }
        if self.kind == Kind::Broken {
            // The naive store of the paper's warning: the counter lives in
            // memory and reaches the disk only at close.
            self.limit = u128::MAX;
        }
        if self.next >= self.limit {
            self.check_still_ours()?;
            let new_limit = self.next.saturating_add(u128::from(self.reserve));
            persist(self.kind, &self.path, &self.key, new_limit, RESERVING)?;
            self.limit = new_limit;
        }
        let n = self.next;
        self.next += 1;
        Ok(nonce_bytes(n))
    }

    /// Give back the unused rest of the reserved block (a clean exit) — only
    /// if the lock is still on the file at the lock path and the safe nonce
    /// on disk is still the one this store wrote; otherwise nothing is
    /// written back (the safe nonce never moves backwards) and the conflict
    /// is reported.
    pub fn close(self) -> Result<(), NonceError> {
        if self.kind == Kind::Broken {
            return persist(self.kind, &self.path, &self.key, self.next, GIVING_BACK);
        }
        if self.next < self.limit {
            self.check_still_ours()?;
            persist(self.kind, &self.path, &self.key, self.next, GIVING_BACK)?;
        }
        Ok(())
    }

    /// Before writing: the lock is still on the file at the lock path, and
    /// the state on disk still holds the safe nonce this store last wrote.
    fn check_still_ours(&self) -> Result<(), NonceError> {
        self.lock.check_held(&self.path)?;
        let on_disk = read_state(self.kind, &self.path, &self.key)?;
        if on_disk != self.limit {
            return Err(conflict(
                &self.path,
                format!(
                    "its safe nonce is {} on disk, not {} as this process left it",
                    hex(&nonce_bytes(on_disk)),
                    hex(&nonce_bytes(self.limit))
                ),
            ));
        }
        Ok(())
    }
}

fn refuse_symlink(path: &Path) -> Result<(), NonceError> {
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(NonceError::Symlink(path.to_path_buf()));
    }
    Ok(())
}

/// An exclusive lock on `STATE.lock`, held until drop.
struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Lock the file at `STATE.lock`, making sure the lock is on the file
    /// that is at that path once it is held: a lock taken on a file that was
    /// removed or replaced meanwhile excludes nobody, so it is retried.
    fn acquire(state: &Path) -> Result<Lock, NonceError> {
        let path = with_suffix(state, ".lock");
        for _ in 0..LOCK_ATTEMPTS {
            let file = private(OpenOptions::new().create(true).truncate(false).write(true))
                .open(&path)
                .map_err(io_err("opening lock file", &path))?;
            file.lock().map_err(io_err("locking", &path))?;
            let lock = Lock { file, path: path.clone() };
            if lock.is_at_path()? {
                return Ok(lock);
            }
        }
        Err(conflict(state, "its lock file kept being replaced, or is a symbolic link"))
    }

    /// The locked file is still the one at the lock path.
    fn check_held(&self, state: &Path) -> Result<(), NonceError> {
        if self.is_at_path()? {
            Ok(())
        } else {
            Err(conflict(state, format!("its lock file {} was removed or replaced", self.path.display())))
        }
    }

    #[cfg(unix)]
    fn is_at_path(&self) -> Result<bool, NonceError> {
        let held = self.file.metadata().map_err(io_err("reading lock file", &self.path))?;
        match fs::symlink_metadata(&self.path) {
            Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_err("reading lock file", &self.path)(e)),
        }
    }

    #[cfg(not(unix))]
    fn is_at_path(&self) -> Result<bool, NonceError> {
        Ok(fs::symlink_metadata(&self.path).is_ok_and(|m| m.is_file()))
    }
}

/// Files of the store are created mode 0600, whatever the umask.
fn private(o: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    o.mode(0o600);
    o
}

/// A state file's contents, parsed.
enum Decoded {
    /// v2: the key id it names, its safe nonce, the body the HMAC covers and the HMAC.
    Bound { id: [u8; 16], safe: u128, body: String, mac: [u8; 32] },
    /// v1: unbound.
    Unbound,
}

fn encode(key: &KeyBinding, safe: u128) -> String {
    let body = format!("{MAGIC}\nkey {}\nsafe {}\n", hex(&key.id), hex(&nonce_bytes(safe)));
    let mut m = key.mac();
    m.update(body.as_bytes());
    format!("{body}mac {}\n", hex(&m.finalize().into_bytes()))
}

/// `n` bytes from exactly `2n` lowercase hex digits.
fn strict_hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let mut b = [0u8; N];
    let len = base16ct::lower::decode(s, &mut b).ok()?.len();
    (len == N).then_some(b)
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(name)?.strip_prefix(' ')?.strip_suffix('\n')
}

fn decode(text: &str) -> Result<Decoded, &'static str> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match lines.first() {
        None => return Err("empty"),
        Some(l) if *l == format!("{MAGIC_V1}\n") => return Ok(Decoded::Unbound),
        Some(l) if *l != format!("{MAGIC}\n") => return Err("bad header"),
        Some(_) => {}
    }
    let [_, key, safe, mac] = lines[..] else {
        return Err(if lines.len() < 4 { "truncated" } else { "trailing data" });
    };
    let id = field(key, "key").and_then(strict_hex::<16>).ok_or("bad key line")?;
    let safe_b = field(safe, "safe").and_then(strict_hex::<16>).ok_or("bad safe line")?;
    let mac = field(mac, "mac").and_then(strict_hex::<32>).ok_or("bad mac line")?;
    Ok(Decoded::Bound { id, safe: u128::from_le_bytes(safe_b), body: lines[..3].concat(), mac })
}

/// The safe nonce of a state file that must belong to `key`.
fn check(path: &Path, key: &KeyBinding, text: &str) -> Result<u128, NonceError> {
    let corrupt = |why| NonceError::Corrupt { path: path.to_path_buf(), why };
    match decode(text).map_err(corrupt)? {
        Decoded::Unbound => Err(NonceError::Unbound(path.to_path_buf())),
        Decoded::Bound { id, .. } if id != key.id => {
            Err(NonceError::WrongKey { path: path.to_path_buf(), found: id, expected: key.id })
        }
        Decoded::Bound { safe, body, mac, .. } => {
            let mut m = key.mac();
            m.update(body.as_bytes());
            // constant-time comparison (hmac's verify_slice uses subtle)
            m.verify_slice(&mac).map_err(|_| corrupt("its authentication code does not match: edited or damaged"))?;
            Ok(safe)
        }
    }
}

fn read_text(path: &Path) -> Result<String, NonceError> {
    // Only a regular file can be a state: opening a FIFO would wait for a
    // writer forever, and a directory or a device holds no state. Checked
    // before opening, and on the file opened.
    let not_a_file = |t: fs::FileType| NonceError::Corrupt {
        path: path.to_path_buf(),
        why: if t.is_dir() {
            "a directory, not a file"
        } else if t.is_symlink() {
            "a symbolic link, not a file"
        } else {
            "not a regular file"
        },
    };
    match fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() => return Err(not_a_file(m.file_type())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(NonceError::Missing(path.to_path_buf())),
        _ => {}
    }
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(NonceError::Missing(path.to_path_buf())),
        Err(e) => return Err(io_err("opening", path)(e)),
    };
    let meta = f.metadata().map_err(io_err("reading", path))?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut bytes = Vec::new();
    f.take(MAX_STATE_BYTES as u64).read_to_end(&mut bytes).map_err(io_err("reading", path))?;
    String::from_utf8(bytes).map_err(|_| not_text(path))
}

fn not_text(path: &Path) -> NonceError {
    NonceError::Corrupt { path: path.to_path_buf(), why: "not text" }
}

fn read_state(kind: Kind, path: &Path, key: &KeyBinding) -> Result<u128, NonceError> {
    let strict = read_text(path).and_then(|text| check(path, key, &text));
    if kind == Kind::Broken {
        // The naive store also "recovers" from a missing or damaged file by
        // starting again from zero.
        return Ok(strict.unwrap_or(0));
    }
    strict
}

/// Which store: the old one as it was, or the naive one of the paper's
/// warning (the kill and fault tests' negative control).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The old store: a state file replaced through `KEY.nonce.tmp`.
    Legacy,
    /// DELIBERATELY BROKEN: the counter kept in memory, written in place
    /// (no temporary file, no fsync, no rename) only when the store is
    /// closed, and a missing or damaged state read as zero.
    Broken,
}

/// Atomically replace the state with `safe`: a fresh temp file (any old one
/// removed first, so a planted symbolic link is never followed and a temp
/// file left by a failed update never blocks the next), fsync, rename,
/// fsync dir. `during` says what for, in the error.
fn persist(kind: Kind, path: &Path, key: &KeyBinding, safe: u128, during: &'static str) -> Result<(), NonceError> {
    if kind == Kind::Broken {
        return persist_in_place(path, key, safe);
    }
    let failed = |op, path: &Path| {
        let path = path.to_path_buf();
        move |source| NonceError::Update { during, op, path, source }
    };
    let tmp = with_suffix(path, ".tmp");
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(failed("removing the leftover temporary nonce state", &tmp)(e));
        }
        _ => {}
    }
    let mut f = private(OpenOptions::new().write(true).create_new(true))
        .open(&tmp)
        .map_err(failed("creating the temporary nonce state", &tmp))?;
    f.write_all(encode(key, safe).as_bytes()).map_err(failed("writing the temporary nonce state", &tmp))?;
    f.sync_all().map_err(failed("syncing the temporary nonce state", &tmp))?;
    drop(f);
    fs::rename(&tmp, path).map_err(failed("renaming the new nonce state onto", path))?;
    let dir = parent_dir(path);
    File::open(dir).and_then(|d| d.sync_all()).map_err(failed("syncing the directory of the nonce state", dir))?;
    Ok(())
}

/// DELIBERATELY BROKEN, for the kill test's negative control only: the
/// naive store that keeps the counter in memory and rewrites the file in
/// place (no temp file, no fsync, no rename) only when it is closed.
fn persist_in_place(path: &Path, key: &KeyBinding, safe: u128) -> Result<(), NonceError> {
    let mut f = private(OpenOptions::new().write(true).create(true).truncate(true))
        .open(path)
        .map_err(io_err("opening", path))?;
    f.write_all(encode(key, safe).as_bytes()).map_err(io_err("writing", path))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_check_round_trip() {
        let key = KeyBinding::derive("poly1305aes", &[5; 32]);
        let p = Path::new("x");
        for v in [0u128, 1, 255, 256, 1 << 64, u128::MAX - 1] {
            assert_eq!(check(p, &key, &encode(&key, v)).ok(), Some(v));
        }
        let good = encode(&key, 77);
        assert!(check(p, &key, &good[..good.len() - 1]).is_err());
        assert!(check(p, &key, &good.replace("safe 4d", "safe 4e")).is_err());
        assert!(check(p, &key, "").is_err());
        assert!(check(p, &key, &format!("{good}x")).is_err());
        let other = KeyBinding::derive("poly1305aes", &[6; 32]);
        assert!(matches!(check(p, &other, &good), Err(NonceError::WrongKey { .. })));
    }
}
