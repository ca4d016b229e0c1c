//! [`Fs`]: every file-system operation the store performs, and
//! [`RealFs`], the operating system's, which every store uses unless it is
//! given another (a test's, which can fail a step or act between two).

use std::collections::HashMap;
use std::fs::{self, File, Metadata, OpenOptions, ReadDir};
use std::io::{self, Write};
#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::fork::Incarnation;
use super::{NonceError, io_err, parent_dir, with_suffix};

/// The operations a [`super::NonceStore`] performs on the files of its
/// state, each on one name in the key's directory. [`RealFs`] is the
/// operating system's; the store is generic over this trait so that a test
/// can wrap it (fail one step, swap a file between two, record them all).
/// An implementation must do what [`RealFs`] documents for each method: the
/// store's guarantees rest on it.
pub trait Fs {
    /// What [`Fs::lock`] holds until the store is dropped.
    type Lock;

    /// Take the lock of the state `state` (`STATE.lock`) for a store about to
    /// open it, waiting for other processes (calling `waiting` once, with a
    /// sentence naming the lock and its holder, if that takes more than a
    /// second). The lock only makes writers wait for each other; uniqueness
    /// does not depend on it.
    fn lock(&self, state: &Path, waiting: &mut dyn FnMut(&str)) -> Result<Self::Lock, NonceError>;

    /// The metadata of `path` itself, not of where a symbolic link points.
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata>;

    /// Open `path` for reading, never through a symbolic link (`ELOOP`)
    /// and never waiting on a FIFO.
    fn open_read(&self, path: &Path) -> io::Result<File>;

    /// Create `path` for writing, exclusively (an existing name, a
    /// symbolic link included, is an error), mode 0600.
    fn create_new(&self, path: &Path) -> io::Result<File>;

    /// Write all of `bytes` to `file`.
    fn write(&self, file: &mut File, bytes: &[u8]) -> io::Result<()>;

    /// Flush `file` (data and metadata) to stable storage.
    fn sync(&self, file: &File) -> io::Result<()>;

    /// Give the file `from` the name `to` too; fails with `AlreadyExists`
    /// if `to` exists, atomically.
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Rename `from` over `to`, atomically.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Remove the name `path`.
    fn remove_file(&self, path: &Path) -> io::Result<()>;

    /// Flush the directory `dir` (the names in it) to stable storage.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;

    /// The entries of the directory `dir`.
    fn read_dir(&self, dir: &Path) -> io::Result<ReadDir>;
}

/// The operating system's file system: what every store uses unless it is
/// given another [`Fs`]. No file is created or opened through a symbolic
/// link (`O_NOFOLLOW`), files are created mode 0600 whatever the umask, and
/// none is inherited by a child program (`O_CLOEXEC`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RealFs;

/// Options that create nothing through a symbolic link and make files
/// mode 0600 whatever the umask.
fn nofollow(o: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    o.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    o
}

impl Fs for RealFs {
    type Lock = FileLock;

    /// An exclusive lock on `STATE.lock` (a symbolic link there is refused:
    /// [`NonceError::LockSymlink`]); a state this process already has open
    /// is [`NonceError::AlreadyOpen`], not a wait for its own lock.
    fn lock(&self, state: &Path, waiting: &mut dyn FnMut(&str)) -> Result<FileLock, NonceError> {
        let registered = Registered::new(state)?;
        let lock = Lock::acquire(state, waiting)?;
        Ok(FileLock { _lock: lock, _registered: registered })
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        fs::symlink_metadata(path)
    }

    fn open_read(&self, path: &Path) -> io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true);
        #[cfg(unix)]
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
        o.open(path)
    }

    fn create_new(&self, path: &Path) -> io::Result<File> {
        nofollow(OpenOptions::new().write(true).create_new(true)).open(path)
    }

    fn write(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        file.write_all(bytes)
    }

    fn sync(&self, file: &File) -> io::Result<()> {
        file.sync_all()
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::hard_link(from, to)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir).and_then(|d| d.sync_all())
    }

    fn read_dir(&self, dir: &Path) -> io::Result<ReadDir> {
        fs::read_dir(dir)
    }
}

/// What [`RealFs::lock`] holds: the lock on `STATE.lock` and the state's
/// entry in this process's table of open stores, both released on drop.
pub struct FileLock {
    _lock: Lock,
    _registered: Registered,
}

impl std::fmt::Debug for FileLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileLock").finish_non_exhaustive()
    }
}

/// An exclusive lock on `STATE.lock`, held until drop: only for waiting.
struct Lock {
    _file: File,
}

impl Lock {
    fn acquire(state: &Path, waiting: &mut dyn FnMut(&str)) -> Result<Lock, NonceError> {
        let path = with_suffix(state, ".lock");
        let file = match nofollow(OpenOptions::new().create(true).truncate(false).write(true)).open(&path) {
            Ok(f) => f,
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(NonceError::LockSymlink(path)),
            Err(e) => return Err(io_err("opening lock file", &path)(e)),
        };
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < std::time::Duration::from_secs(1) => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    let holder = lock_holder(&file).map_or_else(
                        || "another process".to_string(),
                        |(pid, name)| format!("process {pid}{}", name.map(|n| format!(" ({n})")).unwrap_or_default()),
                    );
                    waiting(&format!("waiting for {holder}, which holds the nonce lock {}", path.display()));
                    file.lock().map_err(io_err("locking", &path))?;
                    break;
                }
                Err(fs::TryLockError::Error(e)) => return Err(io_err("locking", &path)(e)),
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
        let locks = fs::read_to_string("/proc/locks").ok()?;
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
                let name = fs::read_to_string(format!("/proc/{pid}/comm")).ok().map(|n| n.trim().to_string());
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
        let meta = fs::metadata(dir).map_err(io_err("reading the directory of", path))?;
        let name = path
            .file_name()
            .map(|n| n.to_owned())
            .ok_or_else(|| io_err("naming", path)(io::Error::new(io::ErrorKind::InvalidInput, "not a file name")))?;
        #[cfg(unix)]
        let id = (meta.dev(), meta.ino(), name);
        #[cfg(not(unix))]
        let id = (0, 0, {
            let _ = meta;
            fs::canonicalize(dir).map_err(io_err("resolving", dir))?.join(name).into_os_string()
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
