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
//! 1. write the new safe nonce to `KEY.nonce.tmp`, fsync it;
//! 2. rename it over `KEY.nonce`; fsync the directory;
//! 3. only then hand out nonces below the new value.
//!
//! A crash at any point leaves either the old or the new safe nonce on disk,
//! both `>=` every nonce handed out, so no nonce is ever used twice; at worst
//! the rest of a reserved block is skipped. [`NonceStore::close`] writes back
//! the first unused nonce so a clean exit wastes nothing. A missing or
//! corrupt state file, or any I/O error, is an error: the store never guesses.
//! An exclusive lock on `KEY.nonce.lock` keeps two processes from sharing a
//! block.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// How many nonces are reserved on disk at a time by default.
pub const DEFAULT_RESERVE: u64 = 1024;

const MAGIC: &str = "wegman-nonce-state v1";

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
    /// `create` found a state file already there.
    AlreadyExists(PathBuf),
    /// The state path is a symbolic link: renaming a new state over it would
    /// replace the link, not its target, and the target would keep counting
    /// on its own, so the store refuses it.
    Symlink(PathBuf),
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
            NonceError::AlreadyExists(p) => write!(f, "nonce state {} already exists", p.display()),
            NonceError::Symlink(p) => write!(
                f,
                "nonce state {} is a symbolic link; refusing it (updating it would replace the link and let the \
                 state it points to repeat nonces); keep the state file itself beside the key",
                p.display()
            ),
            NonceError::Exhausted => f.write_str("all 2^128 - 1 nonces of this key have been used"),
            NonceError::Io { op, path, source } => write!(f, "{op} {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for NonceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NonceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> NonceError + use<'a> {
    move |source| NonceError::Io { op, path: path.to_path_buf(), source }
}

/// The state file that belongs to a key file: `KEY.nonce` beside the key
/// file itself, with symbolic links and relative parts of `key_path`
/// resolved, so that every name of one key file finds the same state (and
/// the same lock).
pub fn state_path_for_key(key_path: &Path) -> Result<PathBuf, NonceError> {
    let real = fs::canonicalize(key_path).map_err(io_err("resolving key file", key_path))?;
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
    let real = fs::canonicalize(dir).map_err(io_err("resolving directory", dir))?;
    Ok(with_suffix(&real.join(name), ".nonce"))
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
///
/// ```
/// use wegman::nonce::NonceStore;
/// let dir = std::env::temp_dir().join(format!("wegman-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let state = dir.join("key.nonce");
/// # let _ = std::fs::remove_file(&state);
/// NonceStore::create(&state).unwrap();
/// let mut store = NonceStore::open(&state).unwrap();
/// let a = store.next_nonce().unwrap();
/// let b = store.next_nonce().unwrap();
/// assert_ne!(a, b);
/// store.close().unwrap();
/// let mut again = NonceStore::open(&state).unwrap();
/// assert_eq!(again.next_nonce().unwrap()[0], 2); // continues, never repeats
/// # drop(again); std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct NonceStore {
    path: PathBuf,
    _lock: File,
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
    /// Create a new state file whose safe nonce is 0. Fails if one exists
    /// (checked under the lock, so two racing creators cannot both succeed).
    pub fn create(path: &Path) -> Result<(), NonceError> {
        let _lock = lock(path)?;
        if fs::symlink_metadata(path).is_ok() {
            return Err(NonceError::AlreadyExists(path.to_path_buf()));
        }
        persist(path, 0)
    }

    /// Open and lock the state file. Refuses a state path that is a symbolic link.
    pub fn open(path: &Path) -> Result<Self, NonceError> {
        let lock = lock(path)?;
        if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(NonceError::Symlink(path.to_path_buf()));
        }
        let safe = read_state(path)?;
        Ok(NonceStore { path: path.to_path_buf(), _lock: lock, next: safe, limit: safe, reserve: DEFAULT_RESERVE })
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
        if BROKEN_FOR_TESTS {
            // The naive store of the paper's warning: the counter lives in
            // memory and reaches the disk only at close.
            self.limit = u128::MAX;
        }
        if self.next >= self.limit {
            let new_limit = self.next.saturating_add(u128::from(self.reserve));
            persist(&self.path, new_limit)?;
            self.limit = new_limit;
        }
        let n = self.next;
        self.next += 1;
        Ok(nonce_bytes(n))
    }

    /// Give back the unused rest of the reserved block (a clean exit).
    pub fn close(self) -> Result<(), NonceError> {
        if self.next < self.limit || BROKEN_FOR_TESTS {
            persist(&self.path, self.next)?;
        }
        Ok(())
    }
}

fn lock(path: &Path) -> Result<File, NonceError> {
    let lock_path = with_suffix(path, ".lock");
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(io_err("opening lock file", &lock_path))?;
    f.lock().map_err(io_err("locking", &lock_path))?;
    Ok(f)
}

fn encode(safe: u128) -> String {
    let hex: String = nonce_bytes(safe).iter().map(|b| format!("{b:02x}")).collect();
    let body = format!("{MAGIC}\nsafe {hex}\n");
    format!("{body}crc32 {:08x}\n", crc32(body.as_bytes()))
}

fn decode(text: &str) -> Result<u128, &'static str> {
    let mut lines = text.split_inclusive('\n');
    let l1 = lines.next().ok_or("empty")?;
    let l2 = lines.next().ok_or("truncated")?;
    let l3 = lines.next().ok_or("truncated")?;
    if lines.next().is_some() {
        return Err("trailing data");
    }
    if l1 != format!("{MAGIC}\n") {
        return Err("bad header");
    }
    let hex = l2.strip_prefix("safe ").and_then(|s| s.strip_suffix('\n')).ok_or("bad safe line")?;
    let crc = l3.strip_prefix("crc32 ").and_then(|s| s.strip_suffix('\n')).ok_or("bad checksum line")?;
    let body = format!("{l1}{l2}");
    if crc != format!("{:08x}", crc32(body.as_bytes())) {
        return Err("checksum mismatch");
    }
    if hex.len() != 32 || !hex.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()) {
        return Err("bad nonce digits");
    }
    let mut b = [0u8; 16];
    for (i, out) in b.iter_mut().enumerate() {
        *out = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| "bad nonce digits")?;
    }
    Ok(u128::from_le_bytes(b))
}

fn read_state(path: &Path) -> Result<u128, NonceError> {
    if BROKEN_FOR_TESTS {
        // The naive store also "recovers" from a missing or damaged file by
        // starting again from zero.
        return Ok(read_state_strict(path).unwrap_or(0));
    }
    read_state_strict(path)
}

fn read_state_strict(path: &Path) -> Result<u128, NonceError> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(NonceError::Missing(path.to_path_buf())),
        Err(e) => return Err(io_err("opening", path)(e)),
    };
    let mut text = String::new();
    f.take(4096).read_to_string(&mut text).map_err(|e| {
        if e.kind() == io::ErrorKind::InvalidData {
            NonceError::Corrupt { path: path.to_path_buf(), why: "not text" }
        } else {
            io_err("reading", path)(e)
        }
    })?;
    decode(&text).map_err(|why| NonceError::Corrupt { path: path.to_path_buf(), why })
}

/// The kill test's negative control, compiled only with
/// `RUSTFLAGS="--cfg wegman_broken_nonce_store"` (a cfg, not a Cargo
/// feature, so that `--all-features` can never switch it on).
const BROKEN_FOR_TESTS: bool = cfg!(wegman_broken_nonce_store);

/// Atomically replace the state with `safe`: temp file, fsync, rename, fsync dir.
#[cfg(not(wegman_broken_nonce_store))]
fn persist(path: &Path, safe: u128) -> Result<(), NonceError> {
    let tmp = with_suffix(path, ".tmp");
    let mut f =
        OpenOptions::new().write(true).create(true).truncate(true).open(&tmp).map_err(io_err("creating", &tmp))?;
    f.write_all(encode(safe).as_bytes()).map_err(io_err("writing", &tmp))?;
    f.sync_all().map_err(io_err("syncing", &tmp))?;
    drop(f);
    fs::rename(&tmp, path).map_err(io_err("renaming onto", path))?;
    let dir = parent_dir(path);
    File::open(dir).and_then(|d| d.sync_all()).map_err(io_err("syncing directory", dir))?;
    Ok(())
}

/// DELIBERATELY BROKEN, for the kill test's negative control only: the
/// naive store that keeps the counter in memory and rewrites the file in
/// place (no temp file, no fsync, no rename) only when it is closed.
#[cfg(wegman_broken_nonce_store)]
fn persist(path: &Path, safe: u128) -> Result<(), NonceError> {
    let mut f =
        OpenOptions::new().write(true).create(true).truncate(true).open(path).map_err(io_err("opening", path))?;
    f.write_all(encode(safe).as_bytes()).map_err(io_err("writing", path))?;
    Ok(())
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of `data`; only
/// detects accidental damage to the state file.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn encode_decode_round_trip() {
        for v in [0u128, 1, 255, 256, 1 << 64, u128::MAX - 1] {
            assert_eq!(decode(&encode(v)), Ok(v));
        }
        let good = encode(77);
        assert!(decode(&good[..good.len() - 1]).is_err());
        assert!(decode(&good.replace("safe 4d", "safe 4e")).is_err());
        assert!(decode("").is_err());
        assert!(decode(&format!("{good}x")).is_err());
    }
}
