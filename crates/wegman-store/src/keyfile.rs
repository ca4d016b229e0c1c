//! Key files: `wegman-key v1`, the algorithm, the key in hex; mode 0600.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use wegman::poly1305aes::{KEY_BYTES, clamp};
use zeroize::Zeroizing;

use crate::algs::{AnyKey, CWC_ALGS, MacAlg};
use crate::hex;
use crate::nonce::{KeyBinding, NonceStore, state_path_for_new_key};

const HEADER: &str = "wegman-key v1";

/// Write a fresh random key for `alg` to `path` (refusing to overwrite)
/// and create its nonce state. If the nonce state cannot be created, the
/// new key file is removed again, so that a retry is not blocked by it.
pub fn keygen(path: &Path, alg: MacAlg) -> Result<(), String> {
    let mut kr = Zeroizing::new([0u8; KEY_BYTES]);
    getrandom::fill(&mut kr[..]).map_err(|e| format!("reading OS randomness: {e}"))?;
    if alg == MacAlg::Poly1305aes {
        // k is 16 random bytes; r gets its 106 random bits (§2)
        let r: &mut [u8; 16] = (&mut kr[16..]).try_into().expect("16 bytes");
        clamp(r);
    }
    // MMH keys kp || ks are two independent random AES keys (spec §2).
    write_key(path, alg.name(), &kr[..])
}

/// `wegman keygen --alg cwc-aes-N`: a random AES key and its nonce store.
pub fn keygen_cwc(path: &Path, name: &str) -> Result<(), String> {
    let (name, len) =
        CWC_ALGS.into_iter().find(|(n, _)| *n == name).ok_or_else(|| format!("unknown algorithm {name:?}"))?;
    let mut k = Zeroizing::new([0u8; 32]);
    getrandom::fill(&mut k[..len]).map_err(|e| format!("reading OS randomness: {e}"))?;
    write_key(path, name, &k[..len])
}

/// The key file for `alg` holding `key`, mode 0600, never overwriting; then
/// its nonce state (the key file is removed again if that fails).
fn write_key(path: &Path, alg: &str, key: &[u8]) -> Result<(), String> {
    let state = state_path_for_new_key(path).map_err(|e| e.to_string())?;
    if std::fs::symlink_metadata(&state).is_ok() {
        return Err(format!(
            "{}: a nonce state already exists; remove it only if you are sure its key is gone",
            state.display()
        ));
    }
    // Built in one buffer reserved up front: no reallocation, no temporary
    // holds the hex, and the buffer is wiped on drop.
    let mut text = Zeroizing::new(String::with_capacity(256));
    text.push_str(HEADER);
    text.push_str("\n# secret: never share, never commit; its nonces are in the .nonce file beside it\nalg ");
    // The key line comes last: the parser finds the key without reading its digits.
    text.push_str(alg);
    text.push_str("\nkey ");
    hex::encode_secret_into(key, &mut text);
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
        .and_then(|()| NonceStore::create(&state, &KeyBinding::derive(alg, key)).map_err(|e| e.to_string()));
    if let Err(e) = created {
        let _ = std::fs::remove_file(path);
        return Err(e);
    }
    Ok(())
}

/// The contents of a key file: the algorithm it names (if it is in the
/// wegman format) and the raw key bytes.
pub struct Material {
    /// The algorithm named, None for a bare hex key.
    pub alg: Option<String>,
    /// The key, wiped on drop.
    pub bytes: Zeroizing<Vec<u8>>,
}

/// Read a key file: the wegman format, or a file holding just the hex key.
pub fn read_material(path: &Path) -> Result<Material, String> {
    let text = Zeroizing::new(std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?);
    parse_material(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parse a key file's bytes without ever branching on a key digit: the
/// parser looks byte by byte only at the structure around the key (the
/// header, blank, comment and `alg` lines, the `key ` prefix, one final
/// newline) and hands every hex digit to [`hex::decode_secret`], which is
/// branch-free. So the key must end the file: in the wegman format the
/// `key` line is the last line, in a bare key file the digits are all there
/// is (each with at most one final newline). Checked under valgrind by
/// `tests/ctgrind_keys.rs`.
pub fn parse_material(text: &[u8]) -> Result<Material, String> {
    let header = [HEADER.as_bytes(), b"\n"].concat();
    let (alg, hex) =
        by_format(text, &header, &mut |rest| wegman_format(rest).map(|(a, h)| (Some(a), h)), &mut |all| {
            Ok((None, all))
        })?;
    let hex = hex.strip_suffix(b"\n").unwrap_or(hex);
    let bytes = hex::decode_secret("key", hex)
        .map_err(|e| format!("{e} (the key must end the file: hex digits only, then at most a newline)"))?;
    Ok(Material { alg, bytes })
}

/// `wegman(rest after the header)` if `text` starts with `header`, else
/// `bare(text)`. In a bare key file the bytes compared with the header are
/// key digits: they are compared without an early exit, and the one branch
/// on the outcome — which format the file is in, public — is taken here, out
/// of line and through `dyn` calls (so it cannot become a select in the
/// caller), where the constant-time test expects it and nowhere else.
#[inline(never)]
fn by_format<'a, T>(
    text: &'a [u8],
    header: &[u8],
    wegman: &mut dyn FnMut(&'a [u8]) -> T,
    bare: &mut dyn FnMut(&'a [u8]) -> T,
) -> T {
    if text.len() < header.len() {
        return bare(text);
    }
    let (head, rest) = text.split_at(header.len());
    let diff = head.iter().zip(header).fold(0u8, |d, (a, b)| d | (a ^ b));
    if diff == 0 { wegman(rest) } else { bare(text) }
}

/// The lines after the header up to the key: the algorithm, and the rest of
/// the file after `key ` (the digits). Lines before the key are public and
/// examined freely.
fn wegman_format(mut rest: &[u8]) -> Result<(String, &[u8]), String> {
    let mut alg = None;
    loop {
        if let Some(hex) = rest.strip_prefix(b"key ") {
            return Ok((alg.ok_or("key file names no algorithm before its key")?, hex));
        }
        if rest.is_empty() {
            return Err("key file holds no key".into());
        }
        let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |i| i + 1);
        let (line, next) = rest.split_at(end);
        rest = next;
        let line = std::str::from_utf8(line).map_err(|_| "unrecognised line in key file")?.trim();
        match line.split_once(' ') {
            _ if line.is_empty() || line.starts_with('#') => {}
            Some(("alg", a)) => alg = Some(a.trim().to_string()),
            _ => return Err("unrecognised line in key file".into()),
        }
    }
}

/// Read a key file for `tag`/`check`: it must be in the wegman format and
/// name its algorithm; `want`, if given, must agree.
pub fn read_any(path: &Path, want: Option<MacAlg>) -> Result<AnyKey, String> {
    read_managed(path, want).map(|(key, _)| key)
}

/// As [`read_any`], with the binding of the key's nonce state.
pub fn read_managed(path: &Path, want: Option<MacAlg>) -> Result<(AnyKey, KeyBinding), String> {
    managed_from(path, &read_material(path)?, want)
}

/// As [`read_managed`], from the material already read from `path`.
pub fn managed_from(path: &Path, m: &Material, want: Option<MacAlg>) -> Result<(AnyKey, KeyBinding), String> {
    let name = m.alg.as_deref().ok_or_else(|| format!("{}: not a wegman key file (no algorithm)", path.display()))?;
    let alg = MacAlg::from_name(name).ok_or_else(|| format!("{}: unsupported algorithm {name:?}", path.display()))?;
    if let Some(w) = want.filter(|w| *w != alg) {
        return Err(format!("{}: this is a {alg} key, not a {w} key", path.display()));
    }
    let key = AnyKey::from_bytes(alg, &m.bytes, false).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((key, KeyBinding::derive(alg.name(), &m.bytes)))
}

pub use crate::algs::key_from_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0";

    fn parse(text: &str) -> Result<(Option<String>, Vec<u8>), String> {
        parse_material(text.as_bytes()).map(|m| (m.alg, m.bytes.to_vec()))
    }

    #[test]
    fn key_files_that_parse() {
        let want = hex::decode_vec("", HEX).unwrap();
        let alg = Some("poly1305aes".to_string());
        for text in [
            format!("{HEADER}\n# secret\nalg poly1305aes\nkey {HEX}\n"),
            format!("{HEADER}\n\n  # indented comment\nalg  poly1305aes \nkey {HEX}"),
            format!("{HEADER}\nalg poly1305aes\nkey {}\n", HEX.to_uppercase()),
        ] {
            assert_eq!(parse(&text), Ok((alg.clone(), want.clone())), "{text:?}");
        }
        for text in [format!("{HEX}\n"), HEX.to_string(), HEX.to_uppercase()] {
            assert_eq!(parse(&text), Ok((None, want.clone())), "{text:?}");
        }
    }

    #[test]
    fn key_files_that_are_refused() {
        for text in [
            format!("{HEADER}\nkey {HEX}\n"),                          // no algorithm
            format!("{HEADER}\nkey {HEX}\nalg poly1305aes\n"),         // key not last
            format!("{HEADER}\nalg poly1305aes\nkey {HEX}\n# note\n"), // key not last
            format!("{HEADER}\nalg poly1305aes\nkey {HEX}\r\n"),       // CRLF
            format!("{HEADER}\nalg poly1305aes\nkey  {HEX}\n"),        // two blanks
            format!("{HEADER}\nalg poly1305aes\nkey {HEX}\n\n"),       // blank line after
            format!("{HEADER}\nalg poly1305aes\nsecret {HEX}\n"),      // unknown line
            format!("{HEADER}\nalg poly1305aes\n"),                    // no key
            format!(" {HEX}\n"),                                       // blank before a bare key
            format!("{HEX}\n\n"),
        ] {
            assert!(parse(&text).is_err(), "{text:?}");
        }
        let e = parse(&format!("{HEADER}\nalg poly1305aes\nkey {HEX}\n# note\n")).unwrap_err();
        assert!(e.contains("must end the file"), "{e}");
    }
}
