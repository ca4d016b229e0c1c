//! The file-system steps of the store, each on one name in the key's
//! directory and none following a symbolic link (`O_NOFOLLOW`), each
//! operation through the store's [`Fs`].

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::format::MAX_STATE_BYTES;
use super::fs::Fs;
use super::{parent_dir, with_suffix};

/// The name of generation `gen` of the state `base`: `KEY.nonce.<gen>`.
pub(super) fn gen_path(base: &Path, generation: u64) -> PathBuf {
    with_suffix(base, &format!(".{generation}"))
}

/// How a read of one of the store's files ended.
pub(super) enum FileRead {
    Text(String),
    NotFound,
    /// A directory, a symbolic link, a FIFO…: never a state.
    NotAFile(&'static str),
    NotText,
}

/// Read (at most [`MAX_STATE_BYTES`] of) a regular file, refusing a link
/// and never waiting on a FIFO (`O_NONBLOCK`).
pub(super) fn read_file(fs: &impl Fs, path: &Path) -> io::Result<FileRead> {
    // Checked before opening too: a socket cannot be opened at all.
    match fs.symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileRead::NotFound),
        Ok(m) if m.file_type().is_symlink() => return Ok(FileRead::NotAFile("a symbolic link, not a file")),
        Ok(m) if m.is_dir() => return Ok(FileRead::NotAFile("a directory, not a file")),
        Ok(m) if !m.is_file() => return Ok(FileRead::NotAFile("not a regular file")),
        _ => {}
    }
    let f = match fs.open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileRead::NotFound),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Ok(FileRead::NotAFile("a symbolic link, not a file"));
        }
        Err(e) => return Err(e),
    };
    let t = f.metadata()?.file_type();
    if !t.is_file() {
        return Ok(FileRead::NotAFile(if t.is_dir() { "a directory, not a file" } else { "not a regular file" }));
    }
    let mut bytes = Vec::new();
    f.take(MAX_STATE_BYTES as u64).read_to_end(&mut bytes)?;
    Ok(String::from_utf8(bytes).map(FileRead::Text).unwrap_or(FileRead::NotText))
}

/// 16 random bytes from the operating system.
pub(super) fn random16() -> io::Result<[u8; 16]> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(b)
}

/// A step of an update that failed: which, on which file, and why.
pub(super) type StepError = (&'static str, PathBuf, io::Error);

fn step<T>(r: io::Result<T>, op: &'static str, path: &Path) -> Result<T, StepError> {
    r.map_err(|e| (op, path.to_path_buf(), e))
}

/// A new temporary file beside `base` whose name no other writer uses
/// (`KEY.nonce.tmp.<pid>.<random>`), created exclusively, never through a link.
fn create_temp(fs: &impl Fs, base: &Path) -> Result<(PathBuf, File), StepError> {
    let tag = step(random16(), "choosing a temporary name for", base)?;
    let tmp = with_suffix(base, &format!(".tmp.{}.{}", std::process::id(), super::format::hex(&tag[..8])));
    let f = step(fs.create_new(&tmp), "creating the temporary nonce state", &tmp)?;
    Ok((tmp, f))
}

/// Write `text` to a new temporary file beside `base` whose name no other
/// writer uses (`KEY.nonce.tmp.<pid>.<random>`, created exclusively, never
/// through a link), fsync it, then give it the name `target` with `link()`,
/// which fails if `target` exists: `Ok(false)` then. The temporary name is
/// removed either way, and after a link the directory is synced.
pub(super) fn publish(fs: &impl Fs, base: &Path, target: &Path, text: &str) -> Result<bool, StepError> {
    let (tmp, mut f) = create_temp(fs, base)?;
    let written = step(fs.write(&mut f, text.as_bytes()), "writing the temporary nonce state", &tmp)
        .and_then(|()| step(fs.sync(&f), "syncing the temporary nonce state", &tmp));
    drop(f);
    let linked = written.and_then(|()| {
        let linked = match fs.hard_link(&tmp, target) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        };
        step(linked, "linking the new nonce state to", target)
    });
    let _ = fs.remove_file(&tmp);
    if linked? {
        sync_dir(fs, base)?;
        return Ok(true);
    }
    Ok(false)
}

/// Replace `target` with `text` (write a private temporary file, fsync,
/// rename, fsync the directory): only for the sealed base, whose content
/// never changes once written, so no writer can roll it back.
pub(super) fn replace(fs: &impl Fs, base: &Path, target: &Path, text: &str) -> Result<(), StepError> {
    let (tmp, mut f) = create_temp(fs, base)?;
    let done = step(fs.write(&mut f, text.as_bytes()), "writing the temporary nonce state", &tmp)
        .and_then(|()| step(fs.sync(&f), "syncing the temporary nonce state", &tmp))
        .and_then(|()| step(fs.rename(&tmp, target), "renaming the new nonce state onto", target));
    if done.is_err() {
        let _ = fs.remove_file(&tmp);
    }
    done?;
    sync_dir(fs, base)
}

/// fsync the directory of `base`.
pub(super) fn sync_dir(fs: &impl Fs, base: &Path) -> Result<(), StepError> {
    let dir = parent_dir(base);
    step(fs.sync_dir(dir), "syncing the directory of the nonce state", dir)
}

/// The generation numbers of the files `KEY.nonce.<gen>` beside `base`, sorted.
pub(super) fn list_gens(fs: &impl Fs, base: &Path) -> io::Result<Vec<u64>> {
    let Some(name) = base.file_name() else { return Ok(Vec::new()) };
    let mut prefix: OsString = name.to_owned();
    prefix.push(".");
    let prefix = prefix.as_encoded_bytes().to_vec();
    let mut gens = Vec::new();
    for entry in fs.read_dir(parent_dir(base))? {
        let entry = entry?;
        let n = entry.file_name();
        if let Some(g) = n
            .as_encoded_bytes()
            .strip_prefix(&prefix[..])
            .and_then(|rest| std::str::from_utf8(rest).ok())
            .and_then(super::format::strict_gen)
        {
            gens.push(g);
        }
    }
    gens.sort_unstable();
    Ok(gens)
}

/// Whether a file (of any kind) is at `path`.
pub(super) fn exists(fs: &impl Fs, path: &Path) -> io::Result<bool> {
    match fs.symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Remove the temporary files `KEY.nonce.tmp.<pid>.<random>` beside `base`
/// whose process no longer exists (a writer killed between creating and
/// removing one). A live writer's file is left alone; were it removed
/// anyway (another PID namespace), its link would fail and it would report
/// an error, never hand out a nonce.
#[cfg(unix)]
pub(super) fn remove_dead_temps(fs: &impl Fs, base: &Path) {
    let Some(name) = base.file_name() else { return };
    let mut prefix: OsString = name.to_owned();
    prefix.push(".tmp.");
    let prefix = prefix.as_encoded_bytes().to_vec();
    let Ok(entries) = fs.read_dir(parent_dir(base)) else { return };
    for entry in entries.flatten() {
        let n = entry.file_name();
        let Some(pid) = n
            .as_encoded_bytes()
            .strip_prefix(&prefix[..])
            .and_then(|rest| std::str::from_utf8(rest).ok())
            .and_then(|rest| rest.split('.').next())
            .and_then(|p| p.parse::<u32>().ok())
            .filter(|&p| p > 0)
        else {
            continue;
        };
        // Linux's /proc (elsewhere, without it, nothing is removed).
        let gone = Path::new("/proc/self").exists() && !Path::new("/proc").join(pid.to_string()).exists();
        if gone {
            let _ = fs.remove_file(&entry.path());
        }
    }
}

#[cfg(not(unix))]
pub(super) fn remove_dead_temps(_fs: &impl Fs, _base: &Path) {}
