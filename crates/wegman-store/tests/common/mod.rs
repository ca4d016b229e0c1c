//! [`TestFs`]: the nonce store's file system for its tests. The operating
//! system's ([`RealFs`]) underneath, and around each operation what a test
//! asks for: one step failing once with EIO, before or after it takes
//! effect (a lost reply); a hook before each publication (after the store
//! read the current generation: where a writer can be stopped) and one
//! before each file is opened for reading (after its type was checked:
//! where another process can swap it); the lock ignored, as by a writer
//! that takes none or whose lock file was removed; pauses of random length
//! before operations (a writer descheduled between any two of its steps);
//! and a record of every operation, in order.

#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::fs::{File, Metadata, ReadDir};
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use wegman_store::nonce::{FileLock, Fs, NonceError, RealFs};

/// An operation of [`Fs`], as [`TestFs`] records it and faults it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Lock,
    SymlinkMetadata,
    OpenRead,
    CreateNew,
    Write,
    Sync,
    HardLink,
    Rename,
    RemoveFile,
    SyncDir,
    ReadDir,
}

impl Op {
    /// The step a failure of this operation is reported as, in
    /// [`NonceError::Update`], when it publishes a generation.
    pub fn step(self) -> &'static str {
        match self {
            Op::CreateNew => "creating the temporary nonce state",
            Op::Write => "writing the temporary nonce state",
            Op::Sync => "syncing the temporary nonce state",
            Op::HardLink => "linking the new nonce state to",
            Op::Rename => "renaming the new nonce state onto",
            Op::SyncDir => "syncing the directory of the nonce state",
            _ => "(not a step of a publication)",
        }
    }
}

/// The steps of a publication a fault can hit, before or after each acts.
pub const PUBLICATION_STEPS: [Op; 4] = [Op::Write, Op::Sync, Op::HardLink, Op::SyncDir];

/// A hook run before a file is opened, with its path.
type OpenHook = Box<dyn FnMut(&Path)>;

#[derive(Default)]
struct State {
    unlocked: bool,
    fault: Cell<Option<(Op, bool)>>,
    before_publish: RefCell<Option<Box<dyn FnMut()>>>,
    before_open: RefCell<Option<OpenHook>>,
    log: RefCell<Vec<(Op, PathBuf)>>,
    /// The state of the generator of [`TestFs::jittered`]'s pauses (0: none).
    jitter: Cell<u64>,
}

/// The real file system with faults, hooks and a record (module docs).
/// Clones share all of it: keep one to steer a store that owns another.
#[derive(Clone, Default)]
pub struct TestFs(Rc<State>);

impl TestFs {
    /// The real file system, the lock included, and nothing injected yet.
    pub fn new() -> TestFs {
        TestFs::default()
    }

    /// As [`TestFs::new`], but [`Fs::lock`] takes no lock and makes no entry
    /// in the table of open stores: a writer that ignores the lock (or
    /// whose lock file was removed). The store must stay correct with any
    /// number of these.
    pub fn unlocked() -> TestFs {
        TestFs(Rc::new(State { unlocked: true, ..State::default() }))
    }

    /// As [`TestFs::unlocked`], and before about one operation in five (at
    /// random, from `seed`) the thread pauses: it yields (8 in 64), sleeps
    /// up to 255 µs (4 in 64) or 1–5 ms (2 in 64), so that other writers
    /// run between any two of its steps, and now and then run far ahead,
    /// as under a loaded scheduler.
    pub fn jittered(seed: u64) -> TestFs {
        let fs = TestFs::unlocked();
        fs.0.jitter.set(seed | 1);
        fs
    }

    /// The next `op` fails once with EIO: `after` false, without doing
    /// anything; true, after taking effect (a lost reply).
    pub fn inject_fault(&self, op: Op, after: bool) {
        self.0.fault.set(Some((op, after)));
    }

    /// Whether an injected fault is still pending.
    pub fn fault_pending(&self) -> bool {
        self.0.fault.get().is_some()
    }

    /// Run `hook` before each publication (the creation of its temporary
    /// file), after the current generation was read (`None` removes it).
    pub fn before_publish(&self, hook: Option<Box<dyn FnMut()>>) {
        *self.0.before_publish.borrow_mut() = hook;
    }

    /// Run `hook` each time the store is about to open one of its files for
    /// reading, after it checked the file's type (`None` removes it): the
    /// hook may replace the file by a link, a socket or nothing, as another
    /// process could at that moment.
    pub fn before_open(&self, hook: Option<OpenHook>) {
        *self.0.before_open.borrow_mut() = hook;
    }

    /// Every operation so far, in order, with the path it was on (for
    /// `write` and `sync`, the last file created).
    pub fn ops(&self) -> Vec<(Op, PathBuf)> {
        self.0.log.borrow().clone()
    }

    /// Forget the operations recorded so far.
    pub fn clear_ops(&self) {
        self.0.log.borrow_mut().clear();
    }

    /// `f` as the operation `op` on `path`: recorded, and failed if a
    /// fault is injected for it.
    fn run<T>(&self, op: Op, path: &Path, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        self.0.log.borrow_mut().push((op, path.to_path_buf()));
        self.pause();
        self.fault(op, false)?;
        let v = f()?;
        self.fault(op, true)?;
        Ok(v)
    }

    /// The pause of [`TestFs::jittered`], if it is one.
    fn pause(&self) {
        let mut x = self.0.jitter.get();
        if x == 0 {
            return;
        }
        // xorshift64: any generator will do, the seed makes a run repeatable
        // as far as the scheduler lets it
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0.jitter.set(x);
        match x % 64 {
            0..=7 => std::thread::yield_now(),
            8..=11 => std::thread::sleep(std::time::Duration::from_micros(x >> 56)),
            12..=13 => std::thread::sleep(std::time::Duration::from_micros(1000 + (x >> 52))),
            _ => {}
        }
    }

    fn fault(&self, op: Op, after: bool) -> io::Result<()> {
        match self.0.fault.get() {
            Some((o, a)) if o == op && a == after => {
                self.0.fault.set(None);
                Err(io::Error::from_raw_os_error(5))
            }
            _ => Ok(()),
        }
    }

    /// The path of the last file created (what `write` and `sync` act on).
    fn last_created(&self) -> PathBuf {
        let log = self.0.log.borrow();
        log.iter().rev().find(|(op, _)| *op == Op::CreateNew).map(|(_, p)| p.clone()).unwrap_or_default()
    }
}

/// Run the hook in `slot`, taken out while it runs (it may itself use
/// stores on this file system), then put it back unless it was replaced.
fn run_hook<H: ?Sized>(slot: &RefCell<Option<Box<H>>>, call: impl FnOnce(&mut H)) {
    let hook = slot.borrow_mut().take();
    if let Some(mut hook) = hook {
        call(&mut hook);
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(hook);
        }
    }
}

impl Fs for TestFs {
    type Lock = Option<FileLock>;

    fn lock(&self, state: &Path, waiting: &mut dyn FnMut(&str)) -> Result<Self::Lock, NonceError> {
        self.0.log.borrow_mut().push((Op::Lock, state.to_path_buf()));
        if self.0.unlocked {
            return Ok(None);
        }
        RealFs.lock(state, waiting).map(Some)
    }

    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        self.run(Op::SymlinkMetadata, path, || RealFs.symlink_metadata(path))
    }

    fn open_read(&self, path: &Path) -> io::Result<File> {
        run_hook(&self.0.before_open, |h| h(path));
        self.run(Op::OpenRead, path, || RealFs.open_read(path))
    }

    fn create_new(&self, path: &Path) -> io::Result<File> {
        run_hook(&self.0.before_publish, |h| h());
        self.run(Op::CreateNew, path, || RealFs.create_new(path))
    }

    fn write(&self, file: &mut File, bytes: &[u8]) -> io::Result<()> {
        self.run(Op::Write, &self.last_created(), || RealFs.write(file, bytes))
    }

    fn sync(&self, file: &File) -> io::Result<()> {
        self.run(Op::Sync, &self.last_created(), || RealFs.sync(file))
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.run(Op::HardLink, to, || RealFs.hard_link(from, to))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.run(Op::Rename, to, || RealFs.rename(from, to))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.run(Op::RemoveFile, path, || RealFs.remove_file(path))
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.run(Op::SyncDir, dir, || RealFs.sync_dir(dir))
    }

    fn read_dir(&self, dir: &Path) -> io::Result<ReadDir> {
        self.run(Op::ReadDir, dir, || RealFs.read_dir(dir))
    }
}
