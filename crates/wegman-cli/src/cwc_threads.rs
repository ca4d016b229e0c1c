//! `seal` and `open` of a large regular file on several threads:
//! the threads read the input with `pread` and write the staged output with
//! `pwrite`, each 192 KiB at a time, through the core's
//! `CwcKey::encrypt_parallel_from` / `decrypt_parallel_from`. The output is
//! the one-thread output, byte for byte; `open` still writes nothing
//! unless the tag verified (its first pass only hashes; the second checks
//! the tag again, so an input that changed between them is refused).

use std::fs::File;
use std::io;
use std::num::NonZeroUsize;
use std::os::unix::fs::FileExt;

use wegman::cwc::{CwcKey, NONCE_BYTES};
use wegman_store::input::{self, PARALLEL_MIN_BYTES};

use crate::staged::Staged;

/// Why a threaded pass stopped: the tag (or a length), or a read or write.
enum Failure {
    Cwc(wegman::Error),
    Io(String),
}

impl From<wegman::Error> for Failure {
    fn from(e: wegman::Error) -> Self {
        Failure::Cwc(e)
    }
}

/// The input as a regular file of at least `PARALLEL_MIN_BYTES` bytes past
/// `skip`, when there are threads to share it: the file and its length.
pub fn large_file(path: &std::path::Path, threads: NonZeroUsize) -> io::Result<Option<(File, u64)>> {
    if threads.get() == 1 || path.as_os_str() == "-" {
        return Ok(None);
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    Ok((meta.is_file() && meta.len() >= PARALLEL_MIN_BYTES).then_some((file, meta.len())))
}

fn read_at(file: &File, name: &str, buf: &mut [u8], at: u64) -> Result<(), Failure> {
    file.read_exact_at(buf, at).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Failure::Io(format!("{name}: file shrank while reading")),
        _ => Failure::Io(format!("{name}: {}", input::describe(&e))),
    })
}

/// Encrypt the `len` bytes of `file` into `out` from offset `base` (after
/// the nonce, for a key with a store), then the tag.
#[allow(clippy::too_many_arguments)]
pub fn seal(
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    tag_len: usize,
    threads: NonZeroUsize,
    (file, len, name): (&File, u64, &str),
    out: &mut Staged,
    base: u64,
) -> Result<(), String> {
    out.flush()?;
    let total = usize::try_from(len).map_err(|_| format!("{name}: too large"))?;
    let fill = |at: u64, buf: &mut [u8]| read_at(file, name, buf, at);
    let staged = &*out;
    let sink = |at: u64, buf: &[u8]| staged.write_at(base + at, buf).map_err(Failure::Io);
    let tag = match key.encrypt_parallel_from(nonce, aad, total, tag_len, threads, &fill, &sink) {
        Ok(tag) => tag,
        Err(Failure::Cwc(e)) => return Err(format!("{name}: {e}")),
        Err(Failure::Io(e)) => return Err(e),
    };
    out.write_at(base + len, tag.as_slice())?;
    if file.metadata().map_err(|e| format!("{name}: {}", input::describe(&e)))?.len() != len {
        return Err(format!("{name}: file changed size while reading"));
    }
    Ok(())
}

/// Decrypt the `body` bytes of `file` from `start`, whose tag is `tag`,
/// into `out`. `Ok(false)`: the tag is wrong (or the input changed between
/// the passes); `out` must then be discarded.
#[allow(clippy::too_many_arguments)]
pub fn open(
    key: &CwcKey,
    nonce: &[u8; NONCE_BYTES],
    aad: &[u8],
    tag: &[u8],
    threads: NonZeroUsize,
    (file, start, body, name): (&File, u64, u64, &str),
    out: &Staged,
) -> Result<bool, String> {
    let total = usize::try_from(body).map_err(|_| format!("{name}: too large"))?;
    let fill = |at: u64, buf: &mut [u8]| read_at(file, name, buf, start + at);
    let sink = |at: u64, buf: &[u8]| out.write_at(at, buf).map_err(Failure::Io);
    match key.decrypt_parallel_from(nonce, aad, total, tag, threads, &fill, &sink) {
        Ok(()) => Ok(true),
        Err(Failure::Cwc(wegman::Error::TagMismatch)) => Ok(false),
        Err(Failure::Cwc(e)) => Err(format!("{name}: {e}")),
        Err(Failure::Io(e)) => Err(e),
    }
}
