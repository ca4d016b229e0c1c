//! Key files: `wegman-key v1`, the algorithm, the key in hex; mode 0600.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use wegman::nonce::{NonceStore, state_path_for_key};
use wegman::poly1305aes::{KEY_BYTES, Key, clamp};
use zeroize::Zeroizing;

use crate::hexarg;

const HEADER: &str = "wegman-key v1";

/// Write a fresh random Poly1305-AES key to `path` (refusing to overwrite)
/// and create its nonce state.
pub fn keygen(path: &Path) -> Result<(), String> {
    let state = state_path_for_key(path);
    if std::fs::symlink_metadata(&state).is_ok() {
        return Err(format!(
            "{}: a nonce state already exists; remove it only if you are sure its key is gone",
            state.display()
        ));
    }
    let mut kr = Zeroizing::new([0u8; KEY_BYTES]);
    getrandom::fill(&mut kr[..]).map_err(|e| format!("reading OS randomness: {e}"))?;
    let r: &mut [u8; 16] = (&mut kr[16..]).try_into().expect("16 bytes");
    clamp(r);
    let text = Zeroizing::new(format!(
        "{HEADER}\n# secret: never share, never commit; nonces are in {}.nonce beside it\nalg poly1305aes\nkey {}\n",
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        hexarg::encode(&kr[..])
    ));
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(text.as_bytes()).and_then(|()| f.sync_all()).map_err(|e| format!("{}: {e}", path.display()))?;
    NonceStore::create(&state).map_err(|e| e.to_string())?;
    Ok(())
}

/// Read a key file: the wegman format, or a file holding just the hex key.
pub fn read(path: &Path, allow_clamp: bool) -> Result<Key, String> {
    let text = Zeroizing::new(std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?);
    let hex = if text.starts_with(HEADER) {
        let mut alg = None;
        let mut key = None;
        for line in text.lines().skip(1) {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(' ') {
                Some(("alg", a)) => alg = Some(a.trim()),
                Some(("key", k)) => key = Some(k.trim()),
                _ => return Err(format!("{}: unrecognised line in key file", path.display())),
            }
        }
        match alg {
            Some("poly1305aes") => {}
            Some(other) => return Err(format!("{}: unsupported algorithm {other:?}", path.display())),
            None => return Err(format!("{}: key file names no algorithm", path.display())),
        }
        key.ok_or_else(|| format!("{}: key file holds no key", path.display()))?
    } else {
        text.trim()
    };
    parse_key(hex, allow_clamp).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parse 64 hex digits `k || r`.
pub fn parse_key(hex: &str, allow_clamp: bool) -> Result<Key, String> {
    let kr = Zeroizing::new(hexarg::decode::<KEY_BYTES>("key", hex)?);
    if allow_clamp {
        Ok(Key::from_bytes_clamped(&kr))
    } else {
        Key::from_bytes(&kr).map_err(|e| format!("{e} (or pass --clamp)"))
    }
}
