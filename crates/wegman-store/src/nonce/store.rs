//! [`NonceStore`]: a source of unique nonces for one key, with its lock and
//! the process-wide registry of open stores.

use std::fmt;
use std::path::{Path, PathBuf};

use super::chain::{self, Claim, Current, Published};
use super::files::{self, gen_path};
use super::fork::Incarnation;
use super::format;
use super::fs::{Fs, RealFs};
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
///
/// Every file operation goes through `F` ([`Fs`]): the operating system's
/// ([`RealFs`]) unless a store is made with [`NonceStore::create_with`],
/// [`NonceStore::open_with`] or [`NonceStore::adopt_with`].
pub struct NonceStore<F: Fs = RealFs> {
    path: PathBuf,
    key: KeyBinding,
    /// Held for waiting only ([`Fs::lock`]).
    _lock: F::Lock,
    /// The reserved range `[next, limit)`, the generation that shows it
    /// reserved, and the process incarnation that reserved it (a forked
    /// child is another, whatever its PID: `fork.rs`).
    claim: Option<Claim>,
    incarnation: Incarnation,
    next: u128,
    reserve: u64,
    fs: F,
}

impl<F: Fs> fmt::Debug for NonceStore<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NonceStore").field("path", &self.path).field("next", &self.next).finish_non_exhaustive()
    }
}

impl NonceStore {
    /// Create a new state for `key` whose safe nonce is 0 (see
    /// [`NonceStore::create_with`]).
    pub fn create(path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        Self::create_with(&RealFs, path, key)
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
        Self::opened(RealFs, path, key, waiting)
    }

    /// Bind an unbound version-1 state to `key` (see
    /// [`NonceStore::adopt_with`]).
    pub fn adopt(path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        Self::adopt_with(&RealFs, path, key)
    }
}

impl<F: Fs> NonceStore<F> {
    /// Create a new state for `key` whose safe nonce is 0, through `fs`.
    /// Fails if a state file exists (the file is created exclusively, with
    /// `link()`, so two racing creators cannot both succeed).
    ///
    /// A new state is generation 1 (safe nonce 0) beside a sealed base,
    /// never a version-2 base: only states of older versions are migrated
    /// (and continue 2^64 above their safe nonce, out of reach of an older
    /// wegman still writing them; `chain.rs`, `OLD_WRITER_GAP`).
    pub fn create_with(fs: &F, path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        if files::exists(fs, path).map_err(io_err("reading", path))? {
            return Err(NonceError::AlreadyExists(path.to_path_buf()));
        }
        let writer = files::random16().map_err(io_err("creating", path))?;
        let first = format::GenRecord { generation: 1, safe: 0, writer };
        let gen1 = gen_path(path, 1);
        if !files::publish(fs, path, &gen1, &format::encode_gen(key, &first)).map_err(update_err(CREATING))? {
            return Err(NonceError::AlreadyExists(gen1));
        }
        match files::publish(fs, path, path, &format::encode_sealed(key)).map_err(update_err(CREATING))? {
            true => Ok(()),
            false => Err(NonceError::AlreadyExists(path.to_path_buf())),
        }
    }

    /// As [`NonceStore::open`], through `fs` (its [`Fs::lock`] included).
    pub fn open_with(fs: F, path: &Path, key: &KeyBinding) -> Result<Self, NonceError> {
        Self::opened(fs, path, key, &mut |_| {})
    }

    fn opened(fs: F, path: &Path, key: &KeyBinding, waiting: &mut dyn FnMut(&str)) -> Result<Self, NonceError> {
        refuse_symlink(&fs, path)?;
        let lock = fs.lock(path, waiting)?;
        chain::read_current(&fs, path, key)?;
        Ok(NonceStore {
            path: path.to_path_buf(),
            key: key.clone(),
            _lock: lock,
            claim: None,
            incarnation: Incarnation::current(),
            next: 0,
            reserve: super::DEFAULT_RESERVE,
            fs,
        })
    }

    /// Bind an unbound version-1 state (from wegman versions before the
    /// binding) to `key`, keeping its safe nonce: it becomes generation 1
    /// and the base is sealed. Only for a state you know is this key's:
    /// adopting another key's state repeats nonces. A state already bound
    /// to `key` is left as it is; one bound to another key is refused.
    pub fn adopt_with(fs: &F, path: &Path, key: &KeyBinding) -> Result<(), NonceError> {
        refuse_symlink(fs, path)?;
        let text = match files::read_file(fs, path).map_err(io_err("reading", path))? {
            files::FileRead::Text(t) => t,
            _ => return chain::read_current(fs, path, key).map(|_| ()),
        };
        let safe = match format::decode_v1(&text) {
            Ok(safe) => safe,
            Err(_) => return chain::read_current(fs, path, key).map(|_| ()),
        };
        match chain::read_current_with(fs, path, key, true) {
            // Generations beside a v1 base (an old state written over a
            // migrated one): continue above both.
            Ok(cur) => {
                chain::publish_after(fs, path, key, &cur, cur.safe().max(safe), ADOPTING)?;
            }
            Err(NonceError::Missing(_)) => {
                // Generation 1 may already be there: another adopter
                // linked it and has not sealed the base yet.
                let writer = files::random16().map_err(io_err("adopting", path))?;
                let rec = format::GenRecord { generation: 1, safe, writer };
                files::publish(fs, path, &gen_path(path, 1), &format::encode_gen(key, &rec))
                    .map_err(update_err(ADOPTING))?;
            }
            Err(e) => return Err(e),
        }
        chain::seal(fs, path, key, ADOPTING)?;
        chain::read_current(fs, path, key).map(|_| ())
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
                let c = chain::reserve(&self.fs, &self.path, &self.key, self.reserve)?;
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
        super::Lease::reserve(&self.fs, &self.path, &self.key, count)
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
        let cur = chain::read_current(&self.fs, &self.path, &self.key)?;
        match cur {
            Current::Gen(r) if r.generation == claim.own.generation && r.writer == claim.own.writer => {}
            _ => return Ok(()),
        }
        match chain::publish_after(&self.fs, &self.path, &self.key, &cur, self.next, GIVING_BACK)? {
            Published::Stands(_) | Published::Lost => Ok(()),
        }
    }
}

fn refuse_symlink(fs: &impl Fs, path: &Path) -> Result<(), NonceError> {
    if fs.symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(NonceError::Symlink(path.to_path_buf()));
    }
    Ok(())
}
