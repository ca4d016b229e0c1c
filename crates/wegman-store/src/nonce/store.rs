//! [`NonceStore`]: a source of unique nonces for one key, with its lock and
//! the process-wide registry of open stores.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use super::chain::{self, Claim, Current, Published};
use super::files::{self, gen_path, parent_dir, with_suffix};
use super::fork::Incarnation;
use super::format;
use super::{ADOPTING, CREATING, GIVING_BACK, KeyBinding, NonceError, io_err, nonce_bytes, update_err};

/// Crash-safe source of unique nonces for one key.
///
/// ```
/// use wegman_store::nonce::{KeyBinding, NonceStore};
/// let dir = std::env::temp_dir().join(format!("wegman-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let state = dir.join("key.nonce");
/// # let _ = std::fs::remove_file(&state);
/// let key = KeyBinding::derive("poly1305aes", &[7u8; 32]); // from the key's bytes
/// NonceStore::create(&state, &key).unwrap();
/// let mut store = NonceStore::open(&state, &key).unwrap();
/// let a = store.next_nonce().unwrap();
/// let b = store.next_nonce().unwrap();
/// assert_ne!(a, b);
/// store.close().unwrap();
/// let mut again = NonceStore::open(&state, &key).unwrap();
/// assert_eq!(again.next_nonce().unwrap()[0], 2); // continues, never repeats
/// // the same state twice in one process is an error, not a deadlock
/// assert!(NonceStore::open(&state, &key).is_err());
/// drop(again);
/// // another key's store is refused
/// let other = KeyBinding::derive("poly1305aes", &[8u8; 32]);
/// assert!(NonceStore::open(&state, &other).is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct NonceStore {
    path: PathBuf,
    key: KeyBinding,
    /// Held for waiting only; `None` for the test-only unlocked store.
    _lock: Option<Lock>,
    /// This store's entry in the registry of open stores.
    _registered: Option<Registered>,
    /// The reserved range `[next, limit)`, the generation that shows it
    /// reserved, and the process incarnation that reserved it (a forked
    /// child is another, whatever its PID: `fork.rs`).
    claim: Option<Claim>,
    incarnation: Incarnation,
    next: u128,
    reserve: u64,
}

impl fmt::Debug for NonceStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NonceStore").field("path", &self.path).field("next", &self.next).finish_non_exhaustive()
    }
}

impl NonceStore {
    /// Create a new state for `key` whose safe nonce is 0. Fails if a state
    /// file exists (the file is created exclusively, with `link()`, so two
    /// racing creators cannot both succeed).
    ///
    /// A new state is generation 1 (safe nonce 0) beside a sealed base,
    /// never a version-2 base: only states of older versions are migrated
    /// (and continue 2^64 above their safe nonce, out of reach of an older
    /// wegman still writing them; `chain.rs`, `OLD_WRITER_GAP`).
    pub fn create(path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        if files::exists(path).map_err(io_err("reading", path))? {
            return Err(NonceError::AlreadyExists(path.to_path_buf()));
        }
        let writer = files::random16().map_err(io_err("creating", path))?;
        let first = format::GenRecord { generation: 1, safe: 0, writer };
        let gen1 = gen_path(path, 1);
        if !files::publish(path, &gen1, &format::encode_gen(key, &first)).map_err(update_err(CREATING))? {
            return Err(NonceError::AlreadyExists(gen1));
        }
        match files::publish(path, path, &format::encode_sealed(key)).map_err(update_err(CREATING))? {
            true => Ok(()),
            false => Err(NonceError::AlreadyExists(path.to_path_buf())),
        }
    }

    /// Open the state of `key` (and take its lock, waiting for other
    /// processes). Refuses a state path that is a symbolic link, a state of
    /// another key, an unbound (v1) state, and a state this process already
    /// has open.
    pub fn open(path: &Path, key: &KeyBinding) -> Result<Self, NonceError> {
        Self::open_noting_waits(path, key, &mut |_| {})
    }

    /// As [`NonceStore::open`]; if the lock is not free within a second,
    /// calls `waiting` once with a sentence naming the lock file and the
    /// process that holds it (from `/proc/locks`, where there is one), then
    /// goes on waiting. The command line prints it, so a second `wegman
    /// tag` does not sit silent.
    pub fn open_noting_waits(path: &Path, key: &KeyBinding, waiting: &mut dyn FnMut(&str)) -> Result<Self, NonceError> {
        refuse_symlink(path)?;
        let registered = Registered::new(path)?;
        let lock = Lock::acquire(path, waiting)?;
        Self::opened(path, key, Some(lock), Some(registered))
    }

    /// FOR TESTS ONLY: open without the lock and without the registry, as a
    /// writer that ignores the lock (or whose lock file was removed) would.
    /// The store must stay correct with any number of these.
    #[doc(hidden)]
    pub fn open_unlocked_for_tests(path: &Path, key: &KeyBinding) -> Result<Self, NonceError> {
        refuse_symlink(path)?;
        Self::opened(path, key, None, None)
    }

    fn opened(
        path: &Path,
        key: &KeyBinding,
        lock: Option<Lock>,
        registered: Option<Registered>,
    ) -> Result<Self, NonceError> {
        chain::read_current(path, key)?;
        Ok(NonceStore {
            path: path.to_path_buf(),
            key: key.clone(),
            _lock: lock,
            _registered: registered,
            claim: None,
            incarnation: Incarnation::current(),
            next: 0,
            reserve: super::DEFAULT_RESERVE,
        })
    }

    /// Bind an unbound version-1 state (from wegman versions before the
    /// binding) to `key`, keeping its safe nonce: it becomes generation 1
    /// and the base is sealed. Only for a state you know is this key's:
    /// adopting another key's state repeats nonces. A state already bound
    /// to `key` is left as it is; one bound to another key is refused.
    pub fn adopt(path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        refuse_symlink(path)?;
        let text = match files::read_file(path).map_err(io_err("reading", path))? {
            files::FileRead::Text(t) => t,
            _ => return chain::read_current(path, key).map(|_| ()),
        };
        let safe = match format::decode_v1(&text) {
            Ok(safe) => safe,
            Err(_) => return chain::read_current(path, key).map(|_| ()),
        };
        match chain::read_current_with(path, key, true) {
            // Generations beside a v1 base (an old state written over a
            // migrated one): continue above both.
            Ok(cur) => {
                chain::publish_after(path, key, &cur, cur.safe().max(safe), ADOPTING)?;
            }
            Err(NonceError::Missing(_)) => {
                // Generation 1 may already be there: another adopter
                // linked it and has not sealed the base yet.
                let writer = files::random16().map_err(io_err("adopting", path))?;
                let rec = format::GenRecord { generation: 1, safe, writer };
                files::publish(path, &gen_path(path, 1), &format::encode_gen(key, &rec))
                    .map_err(update_err(ADOPTING))?;
            }
            Err(e) => return Err(e),
        }
        chain::seal(path, key, ADOPTING)?;
        chain::read_current(path, key).map(|_| ())
    }

    /// Reserve `n` (at least 1) nonces per disk write instead of the default.
    pub fn with_reserve(mut self, n: u64) -> Self {
        self.reserve = n.max(1);
        self
    }

    /// The next unused nonce. Never returns the same value twice for one
    /// state, across crashes, processes, forks and threads included.
    pub fn next_nonce(&mut self) -> Result<[u8; 16], NonceError> {
        let now = Incarnation::current();
        if self.incarnation != now {
            // A forked child: the reserved range is the parent's.
            self.claim = None;
            self.incarnation = now;
        }
        let claim = match self.claim {
            Some(c) if self.next < c.limit => c,
            _ => {
                if cfg!(wegman_nonce_planted_limit_bug) {
                    // PLANTED BUG (negative control of tests/nonce_store.rs):
                    // the in-memory range is set before the reservation is
                    // on disk, so a failed reservation still hands it out.
                    if let Some(c) = self.claim.as_mut() {
                        c.limit = self.next.saturating_add(u128::from(self.reserve));
                        let n = self.next;
                        self.next += 1;
                        let _ = chain::reserve(&self.path, &self.key, self.reserve);
                        return Ok(nonce_bytes(n));
                    }
                }
                let c = chain::reserve(&self.path, &self.key, self.reserve)?;
                self.next = c.first;
                self.claim = Some(c);
                c
            }
        };
        debug_assert!(self.next < claim.limit);
        let n = self.next;
        self.next += 1;
        Ok(nonce_bytes(n))
    }

    /// Forget the reserved block without giving it back, so that the next
    /// nonce comes from a reservation of this process's own: what a process
    /// must do with a store it inherited across `fork` (the block is the
    /// parent's). `next_nonce` and `close` already notice a fork, by a page
    /// the kernel wipes in every child (`MADV_WIPEONFORK`), or by the PID
    /// where that page cannot be made; the Python bindings call this from
    /// `os.register_at_fork` as well.
    pub fn forget_reservation(&mut self) {
        self.claim = None;
        self.incarnation = Incarnation::current();
    }

    /// Reserve `count` (at least 1) nonces as a [`super::Lease`] for another
    /// user: a generation of their own, published before this returns, so
    /// they never overlap this store's nonces or another lease. Leaves this
    /// store's own block as it is (its unused rest is then skipped at
    /// `close`, not given back).
    pub fn reserve(&mut self, count: u64) -> Result<super::Lease, NonceError> {
        super::Lease::reserve(&self.path, &self.key, count)
    }

    /// Give back the unused rest of the reserved block (a clean exit): only
    /// if this process made the reservation and its generation is still the
    /// current one; otherwise the unused nonces are skipped (never reused)
    /// and this is not an error.
    pub fn close(mut self) -> Result<(), NonceError> {
        let Some(claim) = self.claim.take() else { return Ok(()) };
        if self.incarnation != Incarnation::current() || self.next >= claim.limit {
            return Ok(());
        }
        let cur = chain::read_current(&self.path, &self.key)?;
        match cur {
            Current::Gen(r) if r.generation == claim.own.generation && r.writer == claim.own.writer => {}
            _ => return Ok(()),
        }
        match chain::publish_after(&self.path, &self.key, &cur, self.next, GIVING_BACK)? {
            Published::Stands(_) | Published::Lost => Ok(()),
        }
    }
}

fn refuse_symlink(path: &Path) -> Result<(), NonceError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(NonceError::Symlink(path.to_path_buf()));
    }
    Ok(())
}

/// An exclusive lock on `STATE.lock`, held until drop: only for waiting.
struct Lock {
    _file: File,
}

impl Lock {
    fn acquire(state: &Path, waiting: &mut dyn FnMut(&str)) -> Result<Lock, NonceError> {
        let path = with_suffix(state, ".lock");
        let file = match files::nofollow(OpenOptions::new().create(true).truncate(false).write(true)).open(&path) {
            Ok(f) => f,
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(NonceError::LockSymlink(path)),
            Err(e) => return Err(io_err("opening lock file", &path)(e)),
        };
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < std::time::Duration::from_secs(1) => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = lock_holder(&file).map_or_else(
                        || "another process".to_string(),
                        |(pid, name)| format!("process {pid}{}", name.map(|n| format!(" ({n})")).unwrap_or_default()),
                    );
                    waiting(&format!("waiting for {holder}, which holds the nonce lock {}", path.display()));
                    file.lock().map_err(io_err("locking", &path))?;
                    break;
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err("locking", &path)(e)),
            }
        }
        Ok(Lock { _file: file })
    }
}

/// Who holds the lock on `file`: its PID and command name, from
/// `/proc/locks` (Linux; `None` elsewhere or if it cannot tell).
fn lock_holder(file: &File) -> Option<(u32, Option<String>)> {
    #[cfg(target_os = "linux")]
    {
        let meta = file.metadata().ok()?;
        let (maj, min) = (libc::major(meta.dev()), libc::minor(meta.dev()));
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters have "->"
        for line in locks.lines().filter(|l| !l.contains("->")) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(pid), Some(id)) = (f.get(4), f.get(5)) else { continue };
            let mut parts = id.split(':');
            let (Some(a), Some(b), Some(ino)) = (parts.next(), parts.next(), parts.next()) else { continue };
            let same = u32::from_str_radix(a, 16).ok() == Some(maj)
                && u32::from_str_radix(b, 16).ok() == Some(min)
                && ino.parse::<u64>().ok() == Some(meta.ino());
            if same {
                let pid: u32 = pid.parse().ok()?;
                let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|n| n.trim().to_string());
                return Some((pid, name));
            }
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// Which state: the directory (device and inode) and the file name.
type StateId = (u64, u64, std::ffi::OsString);

/// The open stores of this process, and the incarnation that opened each (a
/// forked child inherits the parent's table but not its stores' locks).
fn registry() -> &'static Mutex<HashMap<StateId, Incarnation>> {
    static OPEN: OnceLock<Mutex<HashMap<StateId, Incarnation>>> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A store's entry in [`registry`], removed when the store is dropped.
struct Registered {
    id: StateId,
    by: Incarnation,
}

impl Registered {
    fn new(path: &Path) -> Result<Registered, NonceError> {
        let dir = parent_dir(path);
        let meta = std::fs::metadata(dir).map_err(io_err("reading the directory of", path))?;
        let name = path
            .file_name()
            .map(|n| n.to_owned())
            .ok_or_else(|| io_err("naming", path)(io::Error::new(io::ErrorKind::InvalidInput, "not a file name")))?;
        #[cfg(unix)]
        let id = (meta.dev(), meta.ino(), name);
        #[cfg(not(unix))]
        let id = (0, 0, {
            let _ = meta;
            std::fs::canonicalize(dir).map_err(io_err("resolving", dir))?.join(name).into_os_string()
        });
        let me = Incarnation::current();
        let mut open = registry().lock().unwrap_or_else(PoisonError::into_inner);
        if open.get(&id) == Some(&me) {
            return Err(NonceError::AlreadyOpen(path.to_path_buf()));
        }
        open.insert(id.clone(), me);
        Ok(Registered { id, by: me })
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut open = registry().lock().unwrap_or_else(PoisonError::into_inner);
        // In a forked child that opened the state again, the entry is the
        // child's: dropping the store inherited from the parent keeps it.
        if open.get(&self.id) == Some(&self.by) {
            open.remove(&self.id);
        }
    }
}
