//! Reading inputs (`-` is standard input) through a MAC, in 64 KiB pieces.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::algs::{AnyKey, AnyMac};
use crate::progress::Progress;

/// Open a file, or standard input for `-`.
pub fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" { Ok(Box::new(io::stdin())) } else { Ok(Box::new(File::open(path)?)) }
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

/// Stream `prefix` and then `input` through the MAC under `key` and `nonce`.
pub fn mac_of<'k>(
    key: &'k AnyKey,
    nonce: &[u8; 16],
    prefix: &[u8],
    mut input: Box<dyn Read>,
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
