//! Key files: `wegman-key v1`, the algorithm, the key in hex; mode 0600.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use wegman::nonce::{KeyBinding, NonceStore, state_path_for_new_key};
use wegman::poly1305aes::{KEY_BYTES, Key, clamp};
use zeroize::Zeroizing;

use crate::algs::{AnyKey, MacAlg};
use crate::hexarg;

const HEADER: &str = "wegman-key v1";

/// Write a fresh random key for `alg` to `path` (refusing to overwrite)
/// and create its nonce state. If the nonce state cannot be created, the
/// new key file is removed again, so that a retry is not blocked by it.
pub fn keygen(path: &Path, alg: MacAlg) -> Result<(), String> {
    let state = state_path_for_new_key(path).map_err(|e| e.to_string())?;
    if std::fs::symlink_metadata(&state).is_ok() {
        return Err(format!(
            "{}: a nonce state already exists; remove it only if you are sure its key is gone",
            state.display()
        ));
    }
    let mut kr = Zeroizing::new([0u8; KEY_BYTES]);
    getrandom::fill(&mut kr[..]).map_err(|e| format!("reading OS randomness: {e}"))?;
    if alg == MacAlg::Poly1305aes {
        // k is 16 random bytes; r gets its 106 random bits (§2)
        let r: &mut [u8; 16] = (&mut kr[16..]).try_into().expect("16 bytes");
        clamp(r);
    }
    // MMH keys kp || ks are two independent random AES keys (spec §2).
    // Built in one buffer reserved up front: no reallocation, no temporary
    // holds the hex, and the buffer is wiped on drop.
    let mut text = Zeroizing::new(String::with_capacity(256));
    text.push_str(HEADER);
    text.push_str("\n# secret: never share, never commit; its nonces are in the .nonce file beside it\nalg ");
    text.push_str(alg.name());
    text.push_str("\nkey ");
    hexarg::encode_secret_into(&kr[..], &mut text);
    text.push('\n');
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let written = f.write_all(text.as_bytes()).and_then(|()| f.sync_all());
    drop(f);
    let created = written
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|()| NonceStore::create(&state, &KeyBinding::derive(alg.name(), &kr[..])).map_err(|e| e.to_string()));
    if let Err(e) = created {
        let _ = std::fs::remove_file(path);
        return Err(e);
    }
    Ok(())
}

/// The contents of a key file: the algorithm it names (if it is in the
/// wegman format) and the raw key bytes.
pub struct Material {
    pub alg: Option<String>,
    pub bytes: Zeroizing<Vec<u8>>,
}

/// Read a key file: the wegman format, or a file holding just the hex key.
pub fn read_material(path: &Path) -> Result<Material, String> {
    let text = Zeroizing::new(std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?);
    let (alg, hex) = if text.starts_with(HEADER) {
        let mut alg = None;
        let mut key = None;
        for line in text.lines().skip(1) {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_once(' ') {
                Some(("alg", a)) => alg = Some(a.trim().to_string()),
                Some(("key", k)) => key = Some(k.trim()),
                _ => return Err(format!("{}: unrecognised line in key file", path.display())),
            }
        }
        let alg = alg.ok_or_else(|| format!("{}: key file names no algorithm", path.display()))?;
        (Some(alg), key.ok_or_else(|| format!("{}: key file holds no key", path.display()))?)
    } else {
        (None, text.trim())
    };
    let bytes = hexarg::decode_secret("key", hex).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Material { alg, bytes })
}

/// Read a key file for `tag`/`check`: it must be in the wegman format and
/// name its algorithm; `want`, if given, must agree.
pub fn read_any(path: &Path, want: Option<MacAlg>) -> Result<AnyKey, String> {
    read_managed(path, want).map(|(key, _)| key)
}

/// As [`read_any`], with the binding of the key's nonce state.
pub fn read_managed(path: &Path, want: Option<MacAlg>) -> Result<(AnyKey, KeyBinding), String> {
    let m = read_material(path)?;
    let name = m.alg.as_deref().ok_or_else(|| format!("{}: not a wegman key file (no algorithm)", path.display()))?;
    let alg = MacAlg::from_name(name).ok_or_else(|| format!("{}: unsupported algorithm {name:?}", path.display()))?;
    if let Some(w) = want.filter(|w| *w != alg) {
        return Err(format!("{}: this is a {alg} key, not a {w} key", path.display()));
    }
    let key = AnyKey::from_bytes(alg, &m.bytes, false).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((key, KeyBinding::derive(alg.name(), &m.bytes)))
}

/// A Poly1305-AES key from 32 bytes `k || r`.
pub fn key_from_bytes(bytes: &[u8], allow_clamp: bool) -> Result<Key, String> {
    let kr: Zeroizing<[u8; KEY_BYTES]> =
        Zeroizing::new(bytes.try_into().map_err(|_| format!("key: expected {KEY_BYTES} bytes, got {}", bytes.len()))?);
    if allow_clamp {
        Ok(Key::from_bytes_clamped(&kr))
    } else {
        Key::from_bytes(&kr).map_err(|e| format!("{e} (or pass --clamp)"))
    }
}
