//! The kept states of `wegman tag --keep-state DIR` and `wegman patch`:
//! a file's Poly1305-AES state (its polynomial and each 64 KiB run's own,
//! `wegman::poly1305aes::Incremental`), kept so that an edit can be
//! re-tagged reading only the runs it touches — which are checked against
//! the state before anything is written.
//!
//! The state is as secret as the key (with the file it gives equations in
//! r), so it is kept only sealed: CWC-AES-128 under a key derived from the
//! key holder's (HMAC-SHA-256 of `k || r` with a label of its own, so it is
//! no key of any other use), a random 11-byte nonce per save, and the
//! file's manifest name, its line's nonce and tag and its length as
//! associated data. A state file holds, in the clear, the line's nonce and
//! tag and the length (public: they are in the manifest), then the CWC
//! nonce and the sealed state (`Incremental::to_secret_bytes`, 32 bytes
//! and 17 per run: 272 KiB per GiB):
//!
//! ```text
//! "WGSTATE2" | line nonce (16) | line tag (16) | length (u64 le) | CWC nonce (11) | sealed state (32 + 17·runs + 16)
//! ```
//!
//! A state is used only for the manifest line it was saved with: [`load`]
//! refuses one whose line is not the manifest's current line for the file
//! (an older state, replayed), that does not open (altered, another key's,
//! another file's), or whose polynomial does not give the line's tag under
//! the line's nonce. States of format 1 (before runs were kept) cannot check
//! the bytes they replace and are refused: re-tag the file.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use wegman::cwc::CwcKey;
use wegman::poly1305aes::{Incremental, Key};
use zeroize::{Zeroize, Zeroizing};

use crate::input::describe;
use crate::manifest::Line;

const MAGIC: &[u8; 8] = b"WGSTATE2";
const MAGIC_V1: &[u8; 8] = b"WGSTATE1";
/// The sealing key's label (unchanged since format 1: it names the purpose).
const LABEL: &[u8] = b"wegman incremental state v1";
/// The associated data's label, naming the format.
const AAD_LABEL: &[u8] = b"wegman incremental state v2";
/// magic, line nonce, line tag, length, CWC nonce.
const HEADER_BYTES: usize = 8 + 16 + 16 + 8 + 11;
const CWC_TAG_BYTES: usize = 16;

/// The size of the state file of a message (name prefix and file) of
/// `message_len` bytes.
fn file_bytes(message_len: u64) -> Option<u64> {
    let runs = (message_len / 16).div_ceil(Incremental::RUN_BYTES as u64 / 16);
    runs.checked_mul(17)?.checked_add((HEADER_BYTES + 32 + CWC_TAG_BYTES) as u64)
}

/// Where the state of the manifest name `name` lives in `dir`: the first
/// 32 hex digits of SHA-256(name), `.state` (any name, one flat directory).
pub fn state_path(dir: &Path, name: &str) -> PathBuf {
    let digest = Sha256::digest(name.as_bytes());
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}.state"))
}

/// The key that seals states, from the Poly1305-AES key.
fn sealing_key(key: &Key) -> CwcKey {
    let mut material = key.to_bytes();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&material).expect("HMAC takes any key length");
    material.zeroize();
    mac.update(LABEL);
    let mut out: [u8; 32] = mac.finalize().into_bytes().into();
    let kek = CwcKey::new(&out[..16]).expect("16 bytes is an AES-128 key");
    out.zeroize();
    kek
}

fn associated(name: &str, nonce: &[u8; 16], tag: &[u8], len: u64) -> Vec<u8> {
    let mut a = AAD_LABEL.to_vec();
    a.extend_from_slice(&(name.len() as u64).to_le_bytes());
    a.extend_from_slice(name.as_bytes());
    a.extend_from_slice(nonce);
    a.extend_from_slice(tag);
    a.extend_from_slice(&len.to_le_bytes());
    a
}

/// Save `state`, the state of the file `name` of `len` bytes whose manifest
/// line has `nonce` and `tag`, in `dir` (created 0700 if missing): a new
/// file (0600) renamed over the old one.
pub fn save(
    dir: &Path,
    key: &Key,
    name: &str,
    (nonce, tag): (&[u8; 16], &[u8; 16]),
    len: u64,
    state: &Incremental,
) -> Result<(), String> {
    let at = |e: std::io::Error| format!("{}: {}", dir.display(), describe(&e));
    if !dir.is_dir() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(at)?;
        // The new directory's entry is durable only once its parent is
        // synced (else a power loss after a run that exited 0 could take
        // the directory and every state in it).
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        File::open(parent).and_then(|d| d.sync_all()).map_err(at)?;
    }
    let mut cwc_nonce = [0u8; 11];
    getrandom::fill(&mut cwc_nonce).map_err(|e| format!("random nonce: {e}"))?;
    let plain = state.to_secret_bytes();
    let sealed = sealing_key(key)
        .encrypt(&cwc_nonce, &associated(name, nonce, tag, len), &plain, CWC_TAG_BYTES)
        .map_err(|e| format!("sealing the state: {e}"))?;
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(nonce);
    bytes.extend_from_slice(tag);
    bytes.extend_from_slice(&len.to_le_bytes());
    bytes.extend_from_slice(&cwc_nonce);
    bytes.extend_from_slice(&sealed);
    let path = state_path(dir, name);
    let mut id = [0u8; 8];
    getrandom::fill(&mut id).map_err(|e| format!("random name: {e}"))?;
    let tmp = path.with_extension(format!("{:016x}.tmp", u64::from_le_bytes(id)));
    let write = || -> std::io::Result<()> {
        let mut f =
            OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {}", path.display(), describe(&e))
    })
}

/// The state of the file of the manifest line `line` from `dir`, and the
/// file's length when it was saved; refused unless it is that line's (see
/// the module docs).
pub fn load(dir: &Path, key: &Key, line: &Line) -> Result<(Incremental, u64), String> {
    let path = state_path(dir, &line.name);
    let shown = path.display();
    let mut f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
        .map_err(|e| format!("{shown}: {} (make it with `wegman tag --keep-state`)", describe(&e)))?;
    let mut header = Vec::with_capacity(HEADER_BYTES);
    Read::by_ref(&mut f)
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut header)
        .map_err(|e| format!("{shown}: {}", describe(&e)))?;
    if header.starts_with(MAGIC_V1) {
        return Err(format!(
            "{shown}: a state of an older wegman, which cannot check the bytes an edit replaces: re-tag {} with \
             `wegman tag --keep-state`",
            crate::manifest::status_name(&line.name)
        ));
    }
    if header.len() < HEADER_BYTES || !header.starts_with(MAGIC) {
        return Err(format!("{shown}: not a wegman state file"));
    }
    let field = |from: usize, n: usize| &header[from..from + n];
    let (nonce, tag) = (field(8, 16), field(24, 16));
    let len = u64::from_le_bytes(field(40, 8).try_into().expect("8 bytes"));
    if nonce != line.nonce || tag != line.tag.as_slice() {
        return Err(format!(
            "{shown}: stale: this state belongs to another manifest line of {} than the one given (an older \
             state, or another manifest)",
            crate::manifest::status_name(&line.name)
        ));
    }
    let prefix = crate::manifest::file_message_prefix(&line.name).len() as u64;
    let message_len = len.checked_add(prefix).ok_or_else(|| format!("{shown}: not a wegman state file"))?;
    let want = file_bytes(message_len)
        .filter(|&n| n <= (1 << 40))
        .ok_or_else(|| format!("{shown}: not a wegman state file"))?;
    let body = want - HEADER_BYTES as u64;
    let mut sealed = Vec::new();
    sealed.try_reserve_exact(body as usize).map_err(|_| format!("{shown}: out of memory"))?;
    Read::by_ref(&mut f).take(body + 1).read_to_end(&mut sealed).map_err(|e| format!("{shown}: {}", describe(&e)))?;
    if sealed.len() as u64 != body {
        return Err(format!("{shown}: not a wegman state file (its length is not its header's)"));
    }
    let cwc_nonce: [u8; 11] = field(48, 11).try_into().expect("11 bytes");
    let refused = || format!("{shown}: refused: altered, or not this key's or this file's state");
    let plain = sealing_key(key)
        .decrypt(&cwc_nonce, &associated(&line.name, &line.nonce, &line.tag, len), &sealed, CWC_TAG_BYTES)
        .map_err(|_| refused())?;
    let plain = Zeroizing::new(plain);
    let state = Incremental::from_secret_bytes(key, &plain).map_err(|_| refused())?;
    let tag: &[u8; 16] = line.tag.as_slice().try_into().map_err(|_| format!("{shown}: not a Poly1305-AES line"))?;
    if state.len() != message_len || state.verify(tag, &line.nonce).is_err() {
        return Err(format!("{shown}: refused: the state does not give its line's tag"));
    }
    Ok((state, len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algs::MacAlg;

    /// A state saved for file `a` and presented for a line of file `b` that
    /// carries `a`'s nonce and tag (and a name of the same length): only
    /// the associated data tells them apart, since the state's polynomial
    /// gives that tag. Refused. A state file that is a symbolic link to a
    /// genuine state is refused too (it is opened with O_NOFOLLOW).
    #[test]
    fn a_state_opens_only_for_its_own_name_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let key = Key::from_bytes_clamped(&[3; 32]);
        let content = vec![0x42u8; 70_000];
        let message = [crate::manifest::file_message_prefix("a"), content.clone()].concat();
        let state = Incremental::new(&key, &message);
        let (nonce, tag) = ([5u8; 16], state.tag(&[5u8; 16]));
        save(dir.path(), &key, "a", (&nonce, &tag), content.len() as u64, &state).unwrap();
        let line =
            |name: &str| Line { alg: MacAlg::Poly1305aes, version: 2, name: name.into(), nonce, tag: tag.to_vec() };
        let (back, len) = load(dir.path(), &key, &line("a")).unwrap();
        assert_eq!((back.tag(&nonce), len), (tag, content.len() as u64));
        std::fs::copy(state_path(dir.path(), "a"), state_path(dir.path(), "b")).unwrap();
        let e = load(dir.path(), &key, &line("b")).unwrap_err();
        assert!(e.contains("refused"), "{e}");
        // Cut anywhere (in the clear header or the sealed part), or grown.
        let whole = std::fs::read(state_path(dir.path(), "a")).unwrap();
        for cut in [0, 7, 8, 20, HEADER_BYTES - 1, HEADER_BYTES, whole.len() - 1, whole.len() + 1] {
            let mut bytes = whole.clone();
            bytes.resize(cut, 0);
            std::fs::write(state_path(dir.path(), "b"), &bytes).unwrap();
            let e = load(dir.path(), &key, &line("b")).unwrap_err();
            assert!(e.contains("not a wegman state file"), "cut to {cut}: {e}");
        }
        std::fs::remove_file(state_path(dir.path(), "b")).unwrap();
        std::os::unix::fs::symlink(state_path(dir.path(), "a"), state_path(dir.path(), "b")).unwrap();
        let e = load(dir.path(), &key, &line("b")).unwrap_err();
        assert!(e.contains("symbolic link") || e.contains("many levels"), "{e}");
    }
}
