//! Reading inputs (`-` is standard input) through a MAC, in 64 KiB pieces.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::algs::{AnyKey, AnyMac};
use indicatif::ProgressBar;

/// Open a file, or standard input for `-`.
pub fn open(path: &Path) -> io::Result<Box<dyn Read>> {
    if path.as_os_str() == "-" { Ok(Box::new(io::stdin())) } else { Ok(Box::new(File::open(path)?)) }
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
    progress: &ProgressBar,
) -> io::Result<AnyMac<'k>> {
    let mut input = open(path)?;
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
