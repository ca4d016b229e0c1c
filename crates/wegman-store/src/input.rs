//! Reading inputs (`-` is standard input) through a MAC, in 64 KiB pieces.

use std::fs::File;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::path::Path;

use wegman::cpu::Features;
use wegman::poly1305aes::{ExpandedKey, Key};

use crate::algs::{AnyKey, AnyMac};
use crate::progress::Progress;

/// Open a file, or standard input for `-`.
pub fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" { Ok(Box::new(io::stdin())) } else { Ok(Box::new(File::open(path)?)) }
}

/// The most bytes a manifest may hold: 1 GiB (a line per file: millions of
/// files). Standard input too: reading stops, with an error, past it.
pub const MANIFEST_MAX_BYTES: u64 = 1 << 30;

/// The most lines a manifest may hold: 2^24 (16,777,216), the seal line
/// included.
pub const MANIFEST_MAX_LINES: u64 = 1 << 24;

/// Open a manifest to read: `-` is standard input; anything else must be a
/// regular file, so that a FIFO, a device such as `/dev/urandom`, or a
/// directory is refused before a byte is read (the open never blocks:
/// `O_NONBLOCK`, which a regular file ignores). Read it through
/// [`read_manifest`] or a reader that stops at [`MANIFEST_MAX_BYTES`] and
/// [`MANIFEST_MAX_LINES`].
pub fn open_manifest(path: &Path) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" {
        return open(path);
    }
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?
    };
    #[cfg(not(unix))]
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file: a manifest is read from a regular file, or from standard input as -",
        ));
    }
    Ok(Box::new(file))
}

/// A whole manifest as text, opened with [`open_manifest`] (errors name
/// `path`): at most [`MANIFEST_MAX_BYTES`] bytes and [`MANIFEST_MAX_LINES`]
/// lines, else an error, before the rest is read.
pub fn read_manifest(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let reader = open_manifest(path).map_err(|e| format!("{shown}: {}", describe(&e)))?;
    read_manifest_from(reader, &shown.to_string(), MANIFEST_MAX_BYTES, MANIFEST_MAX_LINES)
}

/// [`read_manifest`] from `reader`, named `name`, within these bounds.
pub fn read_manifest_from(reader: impl Read, name: &str, max_bytes: u64, max_lines: u64) -> Result<String, String> {
    let mut bytes = Vec::new();
    let mut lines = 0u64;
    let mut reader = io::BufReader::new(reader.take(max_bytes + 1));
    loop {
        let n =
            io::BufRead::read_until(&mut reader, b'\n', &mut bytes).map_err(|e| format!("{name}: {}", describe(&e)))?;
        if n == 0 {
            break;
        }
        if bytes.len() as u64 > max_bytes {
            return Err(format!("{name}: longer than {max_bytes} bytes"));
        }
        lines += 1;
        if lines > max_lines {
            return Err(format!("{name}: more than {max_lines} lines"));
        }
    }
    String::from_utf8(bytes).map_err(|_| format!("{name}: not UTF-8 text"))
}

/// Open a file listed in a manifest: a regular file only, unless
/// `allow_special` (a FIFO, a device such as `/dev/zero`, a directory). The
/// open itself never blocks (`O_NONBLOCK`, which a regular file ignores), so
/// a FIFO is refused instead of waiting for a writer forever.
pub fn open_listed(path: &Path, allow_special: bool) -> io::Result<Box<dyn Read>> {
    if allow_special {
        return open(path);
    }
    #[cfg(unix)]
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?
    };
    #[cfg(not(unix))]
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (check --allow-special reads devices and FIFOs)",
        ));
    }
    Ok(Box::new(file))
}

/// Size of a regular file (0 for stdin or when unknown), for progress bars.
pub fn size_hint(path: &Path) -> u64 {
    if path.as_os_str() == "-" {
        return 0;
    }
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Stream `prefix` and then the contents of `path` through the MAC under
/// `key` and `nonce`.
pub fn mac<'k>(
    key: &'k AnyKey,
    nonce: &[u8; 16],
    prefix: &[u8],
    path: &Path,
    progress: &dyn Progress,
) -> io::Result<AnyMac<'k>> {
    mac_of(key, nonce, prefix, open(path)?, progress)
}

/// Regular files this long or longer are read by several threads at once
/// under a Poly1305-AES key (the library starts a thread for each 4 MiB at
/// most, and none below 8 MiB: docs/parallel.md).
pub const PARALLEL_MIN_BYTES: u64 = wegman::parallel::MIN_PARALLEL_BYTES as u64;

/// One thread per core (the default thread count of the commands).
pub fn all_cores() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// [`mac`] on up to `threads` threads: a regular file of at least
/// [`PARALLEL_MIN_BYTES`] is read by the threads at once (`pread`, 256 KiB
/// at a time each) and tagged as one message with `prefix`; the tag is the
/// same as one thread's. A file whose length changes while it is read gives
/// an error, not a tag. Standard input and short files are streamed as by
/// [`mac`].
pub fn mac_threads<'k>(
    key: &'k AnyKey,
    nonce: &[u8; 16],
    prefix: &[u8],
    path: &Path,
    threads: NonZeroUsize,
    progress: &dyn Progress,
) -> io::Result<AnyMac<'k>> {
    if threads.get() == 1 || path.as_os_str() == "-" {
        return mac(key, nonce, prefix, path, progress);
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let len = meta.len();
    if !meta.is_file() || len < PARALLEL_MIN_BYTES {
        return mac_of(key, nonce, prefix, Box::new(file), progress);
    }
    let tag = match key {
        AnyKey::Poly1305Aes(k, features) => {
            tag_file(k, *features, nonce, prefix, &file, len, threads, progress)?.to_vec()
        }
        AnyKey::Mmh(k) => {
            let total = usize::try_from(len)
                .ok()
                .and_then(|n| n.checked_add(prefix.len()))
                .ok_or_else(|| io::Error::other("file too large"))?;
            let fill = prefixed(prefix, &file, progress);
            let fill = |at: u64, buf: &mut [u8]| fill(at, buf).map_err(Failure::Io);
            let tag = k.mac_parallel_from(nonce, total, threads, &fill).map_err(Failure::into_io)?;
            unchanged(&file, len)?;
            tag.as_bytes().to_vec()
        }
    };
    Ok(AnyMac::Tagged(tag))
}

/// A read's error or the MAC's (a length past the algorithm's limit).
enum Failure {
    Io(io::Error),
    Mac(wegman::Error),
}

impl From<wegman::Error> for Failure {
    fn from(e: wegman::Error) -> Self {
        Failure::Mac(e)
    }
}

impl Failure {
    fn into_io(self) -> io::Error {
        match self {
            Failure::Io(e) => e,
            Failure::Mac(e) => io::Error::other(e),
        }
    }
}

/// Poly1305-AES of `prefix` and the `len` bytes of `file`, read on up to
/// `threads` threads.
#[allow(clippy::too_many_arguments)]
fn tag_file(
    key: &Key,
    features: Features,
    nonce: &[u8; 16],
    prefix: &[u8],
    file: &File,
    len: u64,
    threads: NonZeroUsize,
    progress: &dyn Progress,
) -> io::Result<[u8; 16]> {
    let total = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_add(prefix.len()))
        .ok_or_else(|| io::Error::other("file too large"))?;
    let fill = prefixed(prefix, file, progress);
    let tag = ExpandedKey::with_features(key, features).authenticate_parallel_from(nonce, total, threads, &fill)?;
    unchanged(file, len)?;
    Ok(tag)
}

fn changed() -> io::Error {
    io::Error::other("file changed size while being read")
}

fn unchanged(file: &File, len: u64) -> io::Result<()> {
    if file.metadata()?.len() != len { Err(changed()) } else { Ok(()) }
}

/// The message `prefix || file`, piece by piece: what falls in the prefix
/// is copied, the rest read at its place in the file (`pread`).
fn prefixed<'a>(
    prefix: &'a [u8],
    file: &'a File,
    progress: &'a dyn Progress,
) -> impl Fn(u64, &mut [u8]) -> io::Result<()> + Sync + 'a {
    use std::os::unix::fs::FileExt;
    move |at: u64, buffer: &mut [u8]| {
        let at = at as usize;
        let from_prefix = prefix.len().saturating_sub(at).min(buffer.len());
        buffer[..from_prefix].copy_from_slice(&prefix[at.min(prefix.len())..at.min(prefix.len()) + from_prefix]);
        let offset = (at + from_prefix - prefix.len()) as u64;
        match file.read_exact_at(&mut buffer[from_prefix..], offset) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(changed()),
            other => other?,
        }
        progress.inc((buffer.len() - from_prefix) as u64);
        Ok(())
    }
}

/// The kept state (`wegman tag --keep-state`) of `prefix` and the regular
/// file at `path` under a Poly1305-AES key, read on up to `threads` threads,
/// and the file's length. A file whose length changes meanwhile is an error.
pub fn incremental_of(
    key: &Key,
    prefix: &[u8],
    path: &Path,
    threads: NonZeroUsize,
    progress: &dyn Progress,
) -> io::Result<(wegman::poly1305aes::Incremental, u64)> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file (--keep-state needs one)"));
    }
    let len = meta.len();
    let total = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_add(prefix.len()))
        .ok_or_else(|| io::Error::other("file too large"))?;
    let state =
        wegman::poly1305aes::Incremental::new_parallel_from(key, total, threads, &prefixed(prefix, &file, progress))?;
    unchanged(&file, len)?;
    Ok((state, len))
}

/// Stream `prefix` and then `input` through the MAC under `key` and `nonce`.
pub fn mac_of<'k>(
    key: &'k AnyKey,
    nonce: &[u8; 16],
    prefix: &[u8],
    mut input: impl Read,
    progress: &dyn Progress,
) -> io::Result<AnyMac<'k>> {
    let mut mac = key.start(nonce);
    mac.update(prefix).map_err(io::Error::other)?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        mac.update(&buf[..n]).map_err(io::Error::other)?;
        progress.inc(n as u64);
    }
    Ok(mac)
}

/// An I/O error as coreutils prints it, without Rust's "(os error N)".
pub fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    /// A file shorter than it was when its length was taken (truncated
    /// while the threads read it) gives an error, never a tag; the same
    /// file at its length gives the one-thread tag.
    #[test]
    fn a_file_that_shrinks_while_read_gives_no_tag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let data: Vec<u8> = (0..(PARALLEL_MIN_BYTES as usize) + 77).map(|i| i as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let key = Key::from_bytes_clamped(&[3; 32]);
        let file = File::open(&path).unwrap();
        let two = NonZeroUsize::new(2).unwrap();
        let len = data.len() as u64;
        let mut message = b"prefix ".to_vec();
        message.extend_from_slice(&data);
        let tag = tag_file(&key, Features::detect(), &[1; 16], b"prefix ", &file, len, two, &NoProgress).unwrap();
        assert_eq!(tag, wegman::poly1305aes::authenticate(&key, &[1; 16], &message));
        for claimed in [len + 1, len + (1 << 20)] {
            let err = tag_file(&key, Features::detect(), &[1; 16], b"prefix ", &file, claimed, two, &NoProgress);
            assert_eq!(err.unwrap_err().to_string(), "file changed size while being read");
        }
        // Grown since: read to the old length, then the length check refuses it.
        let err = tag_file(&key, Features::detect(), &[1; 16], b"prefix ", &file, len - 16, two, &NoProgress);
        assert_eq!(err.unwrap_err().to_string(), "file changed size while being read");
    }
}

#[cfg(test)]
mod manifest_tests {
    use super::*;

    #[test]
    fn read_manifest_is_bounded_in_bytes_and_lines() {
        let text = "a\nb\nc\n";
        assert_eq!(read_manifest_from(text.as_bytes(), "m", 6, 3).unwrap(), text);
        assert_eq!(read_manifest_from(text.as_bytes(), "m", 5, 3).unwrap_err(), "m: longer than 5 bytes");
        assert_eq!(read_manifest_from(text.as_bytes(), "m", 6, 2).unwrap_err(), "m: more than 2 lines");
        assert_eq!(read_manifest_from("a\nb".as_bytes(), "m", 6, 1).unwrap_err(), "m: more than 1 lines");
        assert_eq!(read_manifest_from(io::repeat(b'\n'), "m", 1 << 30, 10).unwrap_err(), "m: more than 10 lines");
        assert_eq!(read_manifest_from(io::repeat(b'x'), "m", 1000, 10).unwrap_err(), "m: longer than 1000 bytes");
        assert_eq!(read_manifest_from(&b"\xff\n"[..], "m", 10, 10).unwrap_err(), "m: not UTF-8 text");
    }

    #[test]
    #[cfg(unix)]
    fn a_manifest_must_be_a_regular_file_or_stdin() {
        for special in ["/dev/urandom", "/dev/null", "/"] {
            let err = read_manifest(Path::new(special)).unwrap_err();
            assert!(err.starts_with(&format!("{special}: not a regular file")), "{err}");
        }
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        // no writer: an open that blocked would hang here
        assert!(read_manifest(&fifo).unwrap_err().contains("not a regular file"));
        let file = dir.path().join("m");
        std::fs::write(&file, "x\n").unwrap();
        assert_eq!(read_manifest(&file).unwrap(), "x\n");
    }
}
