//! The output of `wegman seal` and `wegman open`, staged: a private
//! temporary file that becomes the output only once it is complete and, for
//! `open`, authenticated (`cwc_cmd.rs`, `cwc_threads.rs`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use wegman_store::input;

/// Staging files to remove if the process is interrupted (SIGINT, SIGTERM,
/// SIGHUP) before it commits or drops them: `Drop` does not run then.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// On SIGINT, SIGTERM or SIGHUP: remove every staging file, exit 130. (Only
/// SIGKILL or a crash can still leave one behind, under a hidden name.)
fn remove_staged_on_interrupt() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if let Ok(list) = STAGED.lock() {
                for p in list.iter() {
                    let _ = std::fs::remove_file(p);
                }
            }
            std::process::exit(130);
        });
    });
}

fn staged(path: &Path, add: bool) {
    if let Ok(mut list) = STAGED.lock() {
        if add {
            list.push(path.to_path_buf());
        } else {
            list.retain(|p| p != path);
        }
    }
}

/// A private temporary file that becomes the output only on `commit`: for
/// standard output an anonymous file (no name, nothing left behind in any
/// case); for `-o FILE` a hidden file beside FILE, renamed onto it.
pub struct Staged {
    /// The hidden file's name; `None` for the anonymous file or once committed.
    tmp: Option<PathBuf>,
    file: Option<BufWriter<File>>,
    dest: Option<PathBuf>,
}

/// `-o` only ever replaces a regular file (or creates one).
pub(crate) fn check_destination(dest: Option<&Path>) -> Result<(), String> {
    let Some(dest) = dest else { return Ok(()) };
    let meta = match std::fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{}: {}", dest.display(), input::describe(&e))),
    };
    let t = meta.file_type();
    if t.is_file() {
        return Ok(());
    }
    let what = if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file (a FIFO, device or socket)"
    };
    Err(format!(
        "{}: -o {what}: -o writes a new file and renames it into place, which would replace it; \
         write to standard output (no -o, or -o -) and redirect instead",
        dest.display()
    ))
}

impl Staged {
    pub(crate) fn new(dest: Option<&Path>) -> Result<Self, String> {
        check_destination(dest)?;
        let Some(dest) = dest else {
            let f = tempfile::tempfile().map_err(|e| format!("creating a temporary file: {}", input::describe(&e)))?;
            return Ok(Staged { tmp: None, file: Some(BufWriter::new(f)), dest: None });
        };
        remove_staged_on_interrupt();
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for attempt in 0..100u32 {
            let tmp = dir.join(format!(".{base}.wegman-{}-{attempt}.tmp", std::process::id()));
            staged(&tmp, true);
            match OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&tmp) {
                Ok(f) => {
                    return Ok(Staged {
                        tmp: Some(tmp),
                        file: Some(BufWriter::new(f)),
                        dest: Some(dest.to_path_buf()),
                    });
                }
                Err(e) => {
                    staged(&tmp, false);
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(format!("{}: {}", tmp.display(), input::describe(&e)));
                    }
                }
            }
        }
        Err("could not create a temporary file".into())
    }

    fn describe(&self, e: &io::Error) -> String {
        match &self.tmp {
            Some(t) => format!("{}: {}", t.display(), input::describe(e)),
            None => format!("temporary file: {}", input::describe(e)),
        }
    }

    pub(crate) fn write(&mut self, data: &[u8]) -> Result<(), String> {
        let f = self.file.as_mut().expect("open until commit");
        f.write_all(data).map_err(|e| self.describe(&e))
    }

    /// Write the buffered bytes out (before [`Staged::write_at`]).
    pub fn flush(&mut self) -> Result<(), String> {
        let f = self.file.as_mut().expect("open until commit");
        f.flush().map_err(|e| self.describe(&e))
    }

    /// `data` at `offset` of the staged file (`pwrite`: any thread, any
    /// order; after [`Staged::flush`]).
    pub fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), String> {
        use std::os::unix::fs::FileExt;
        let f = self.file.as_ref().expect("open until commit");
        f.get_ref().write_all_at(data, offset).map_err(|e| self.describe(&e))
    }

    /// Make the staged bytes the output: rename onto the destination, or
    /// copy to standard output.
    pub(crate) fn commit(mut self) -> Result<(), String> {
        let f = self.file.take().expect("open until commit");
        let f = f.into_inner().map_err(|e| self.describe(e.error()))?;
        match (&self.dest, &self.tmp) {
            (Some(dest), Some(tmp)) => {
                f.sync_all().map_err(|e| self.describe(&e))?;
                std::fs::rename(tmp, dest).map_err(|e| format!("{}: {}", dest.display(), input::describe(&e)))?;
                staged(tmp, false);
                self.tmp = None;
                // The rename is durable only once its directory is synced:
                // without it a power loss could take the output of a run
                // that exited 0 (the crash replay's seal scenario).
                let dir = match dest.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| format!("{}: syncing its directory: {}", dest.display(), input::describe(&e)))?;
            }
            _ => {
                let mut src = f;
                src.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
                let stdout = io::stdout();
                let mut out = stdout.lock();
                io::copy(&mut src, &mut out).and_then(|_| out.flush()).map_err(|e| crate::out::write_error(&e))?;
            }
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        self.file = None;
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(&tmp);
            staged(&tmp, false);
        }
    }
}
