//! The library half of `wegman patch`: replace bytes of a file tagged
//! with `wegman tag --keep-state`, and re-tag it from its kept state,
//! reading only the bytes replaced (issue 22; `incremental.rs`).
//!
//! Order, for a crash at any point: the new state is saved (for the new
//! line) before the file is written, and the manifest is printed last. A
//! crash before the file is written leaves the file as the old manifest
//! says (the new state is then refused as not the old line's); after it,
//! the old manifest fails `check` for this file, and the state is the new
//! line's, which was never printed: re-tag the file.

use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use wegman::poly1305aes::Key;

use crate::algs::{AnyKey, MacAlg};
use crate::incremental;
use crate::input::describe;
use crate::manifest::{self, Entry};
use crate::nonce::NonceStore;
use crate::sink::Sink;

/// Replace the bytes of `file` at `offset` by `new`, and write to `sink`
/// the manifest `manifest` (its text) with the file's line re-tagged under
/// a fresh nonce and a new seal line. The file must have a version-2
/// Poly1305-AES line in the manifest and a state in `state_dir` made for
/// that line; `offset + new.len()` must lie within the file.
#[allow(clippy::too_many_arguments)]
pub fn patch_file(
    key: &Key,
    store: &mut NonceStore,
    state_dir: &Path,
    manifest_text: &str,
    file: &Path,
    offset: u64,
    new: &[u8],
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let name = file.to_str().ok_or_else(|| format!("{}: file name is not valid UTF-8", file.display()))?;
    let shown = manifest::status_name(name);
    let mut lines: Vec<&str> = manifest_text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let entries: Vec<Option<Entry>> = lines.iter().map(|l| manifest::parse(l)).collect();
    let at = entries
        .iter()
        .rposition(|e| matches!(e, Some(Entry::File(l)) if l.name == name))
        .ok_or_else(|| format!("{shown}: no line for it in the manifest"))?;
    let Some(Entry::File(line)) = &entries[at] else { unreachable!("found as a file line") };
    if line.alg != MacAlg::Poly1305aes || line.version != 2 {
        return Err(format!(
            "{shown}: its manifest line is not POLY1305-AES/2 (re-tag it with `wegman tag --keep-state`)"
        ));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(file)
        .map_err(|e| format!("{shown}: {}", describe(&e)))?;
    let meta = f.metadata().map_err(|e| format!("{shown}: {}", describe(&e)))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let len = meta.len();
    if offset.checked_add(new.len() as u64).is_none_or(|end| end > len) {
        return Err(format!(
            "{shown}: {} bytes at offset {offset} do not lie within its {len} bytes (patch replaces bytes; \
             re-tag a file that grows)",
            new.len()
        ));
    }
    let mut state = incremental::load(state_dir, key, line, len)?;
    // The only bytes of the file read: the ones replaced.
    let mut old = vec![0u8; new.len()];
    f.read_exact_at(&mut old, offset).map_err(|e| format!("{shown}: {}", describe(&e)))?;
    let prefix = manifest::file_message_prefix(name).len() as u64;
    state.replace(prefix + offset, &old, new).map_err(|e| format!("{shown}: {e}"))?;
    let seal_nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let tag = state.tag(&nonce);
    incremental::save(state_dir, key, name, (&nonce, &tag), len, &state)?;
    f.write_all_at(new, offset).and_then(|()| f.sync_all()).map_err(|e| format!("{shown}: {}", describe(&e)))?;
    // The manifest again, this file's line new, sealed anew.
    let any = AnyKey::Poly1305Aes(key.clone(), wegman::cpu::Features::detect());
    let mut sealer = manifest::Sealer::new(any.start(&seal_nonce)).map_err(|e| e.to_string())?;
    let new_line = manifest::format(MacAlg::Poly1305aes, name, &nonce, &tag);
    for (i, (text, entry)) in lines.iter().zip(&entries).enumerate() {
        if matches!(entry, Some(Entry::Seal(_))) {
            continue;
        }
        let text = if i == at { new_line.as_str() } else { text };
        sealer.line(text.as_bytes()).map_err(|e| e.to_string())?;
        sink.line(text)?;
    }
    let lines = sealer.lines();
    let seal = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    sink.line(&manifest::format_seal(MacAlg::Poly1305aes, lines, &seal_nonce, &seal))
}
