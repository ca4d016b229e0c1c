//! The library half of `wegman patch`: replace bytes of a file tagged with
//! `wegman tag --keep-state`, or take in what was appended to it, and
//! re-tag it from its kept state, reading only the runs the change touches
//! (`incremental.rs`).
//!
//! **Nothing is signed that was not checked.** Before a new tag is made:
//! 1. the manifest must be sealed, and its seal must verify under the key
//!    (a manifest with a line dropped, added, replayed or changed, or with
//!    no seal, is refused: re-sealing it would vouch for it);
//! 2. the file must have exactly one line in it, and the kept state must be
//!    that line's (its nonce, tag, name and length, sealed with the state);
//! 3. the bytes of every run the change touches are read **once**, and must
//!    hash to the runs the state kept (`Incremental::replace_span`): a file
//!    changed behind the state's back is refused, with nothing written.
//!    The new tag is computed from those checked bytes, never from a second
//!    read, so a writer racing the patch can make the new tag fail to
//!    verify, never verify content the key holder did not write.
//!
//! For an append, the bytes past the tagged length are read once and taken
//! in, and the run holding the old end is checked like replaced bytes (a
//! file cut short is refused; one changed further back gets a tag that
//! fails `check`).
//!
//! Order, for a crash at any point: the new state is saved (for the new
//! line) before the file is written, and the manifest is printed last. A
//! crash before the file is written leaves the file as the old manifest
//! says (the new state is then refused as not the old line's); after it,
//! the old manifest fails `check` for this file, and the state is the new
//! line's, which was never printed: re-tag the file.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use wegman::poly1305aes::Key;
use zeroize::Zeroizing;

use crate::algs::{AnyKey, MacAlg};
use crate::incremental;
use crate::input::describe;
use crate::manifest::{self, Entry, Line, Sealer};
use crate::nonce::NonceStore;
use crate::sink::Sink;

/// What `patch` does to the file.
pub enum Edit<'a> {
    /// The bytes at `offset` become `new` (within the file).
    Replace {
        /// Where the new bytes go.
        offset: u64,
        /// The new bytes.
        new: &'a [u8],
    },
    /// The file grew: take in the bytes past the tagged length.
    Append,
}

/// The most bytes an append reads per call into the state.
const APPEND_CHUNK: usize = 1 << 20;

/// Apply `edit` to `file` and write to `sink` the manifest `manifest_text`
/// with the file's line re-tagged under a fresh nonce and a new seal line.
/// The manifest must be sealed and verify under `key`; the file must have
/// exactly one version-2 Poly1305-AES line in it and a state in `state_dir`
/// made for that line. Every refusal happens before anything is written.
pub fn patch_file(
    key: &Key,
    store: &mut NonceStore,
    state_dir: &Path,
    manifest_text: &str,
    file: &Path,
    edit: Edit<'_>,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let name = file.to_str().ok_or_else(|| format!("{}: file name is not valid UTF-8", file.display()))?;
    let shown = manifest::status_name(name);
    let any = AnyKey::Poly1305Aes(key.clone(), wegman::cpu::Features::detect());
    let lines = sealed_lines(&any, manifest_text)?;
    let mut ours = lines.iter().enumerate().filter(|(_, (_, l))| l.name == name);
    let (at, (_, line)) = ours.next().ok_or_else(|| format!("{shown}: no line for it in the manifest"))?;
    if ours.next().is_some() {
        return Err(format!("{shown}: more than one line for it in the manifest"));
    }
    if line.alg != MacAlg::Poly1305aes || line.version != 2 {
        return Err(format!(
            "{shown}: its manifest line is not POLY1305-AES/2 (re-tag it with `wegman tag --keep-state`)"
        ));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(matches!(edit, Edit::Replace { .. }))
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(file)
        .map_err(|e| format!("{shown}: {}", describe(&e)))?;
    let meta = f.metadata().map_err(|e| format!("{shown}: {}", describe(&e)))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    let len = meta.len();
    let (mut state, tagged_len) = incremental::load(state_dir, key, line)?;
    let prefix = manifest::file_message_prefix(name);
    let io = |e: std::io::Error| format!("{shown}: {}", describe(&e));
    let new_len = match edit {
        Edit::Replace { offset, new } => {
            if len != tagged_len {
                return Err(format!(
                    "{shown}: stale: it is {len} bytes, the state's file {tagged_len} (changed by something other \
                     than `wegman patch`?)"
                ));
            }
            if offset.checked_add(new.len() as u64).is_none_or(|end| end > len) {
                return Err(format!(
                    "{shown}: {} bytes at offset {offset} do not lie within its {len} bytes (patch replaces bytes; \
                     `--append` takes in what a file grew by)",
                    new.len()
                ));
            }
            let at = prefix.len() as u64 + offset;
            let span = state.span(at, new.len()).map_err(|e| format!("{shown}: {e}"))?;
            let old = read_message(&f, &prefix, span.start, span.end).map_err(io)?;
            state.replace_span(at, new, &old).map_err(|e| refused(&shown, e))?;
            len
        }
        Edit::Append => {
            if len < tagged_len {
                return Err(format!("{shown}: it is {len} bytes, shorter than the {tagged_len} it was tagged at"));
            }
            // The run holding the old end, checked like replaced bytes (the
            // message is never empty: it starts with the name's prefix).
            let end = prefix.len() as u64 + tagged_len;
            let span = state.span(end - 1, 1).map_err(|e| format!("{shown}: {e}"))?;
            let old = read_message(&f, &prefix, span.start, span.end).map_err(io)?;
            state.verify_span(span, &old).map_err(|e| refused(&shown, e))?;
            let mut buf = Zeroizing::new(vec![0u8; APPEND_CHUNK.min((len - tagged_len) as usize)]);
            let mut from = tagged_len;
            while from < len {
                let n = APPEND_CHUNK.min((len - from) as usize);
                f.read_exact_at(&mut buf[..n], from).map_err(io)?;
                state.append(&buf[..n]);
                from += n as u64;
            }
            len
        }
    };
    let seal_nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let tag = state.tag(&nonce);
    incremental::save(state_dir, key, name, (&nonce, &tag), new_len, &state)?;
    if let Edit::Replace { offset, new } = edit {
        f.write_all_at(new, offset).and_then(|()| f.sync_all()).map_err(io)?;
    }
    // The manifest again, this file's line new, sealed anew.
    let mut sealer = Sealer::new(any.start(&seal_nonce)).map_err(|e| e.to_string())?;
    let new_line = manifest::format(MacAlg::Poly1305aes, name, &nonce, &tag);
    for (i, (text, _)) in lines.iter().enumerate() {
        let text = if i == at { new_line.as_str() } else { text };
        sealer.line(text.as_bytes()).map_err(|e| e.to_string())?;
        sink.line(text)?;
    }
    let count = sealer.lines();
    let seal = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    sink.line(&manifest::format_seal(MacAlg::Poly1305aes, count, &seal_nonce, &seal))
}

fn refused(shown: &str, e: wegman::Error) -> String {
    match e {
        wegman::Error::NotTheMessage => format!(
            "{shown}: refused: its bytes around the change are not the ones it was tagged with (changed since, by \
             something other than `wegman patch`); nothing was written"
        ),
        e => format!("{shown}: {e}"),
    }
}

/// The file lines of a sealed manifest, with their text, once its seal has
/// verified: every line well formed and of `key`'s algorithm, the seal the
/// last line, covering every line before it.
fn sealed_lines<'t>(key: &AnyKey, text: &'t str) -> Result<Vec<(&'t str, Line)>, String> {
    let mut raw: Vec<&str> = text.split('\n').collect();
    if raw.last() == Some(&"") {
        raw.pop();
    }
    let Some((seal_text, file_texts)) = raw.split_last() else {
        return Err("the manifest is empty".into());
    };
    let unsealed = "the manifest has no seal line: patch re-seals only a manifest whose seal verifies (re-tag the \
                    files with `wegman tag`)";
    let Some(Entry::Seal(seal)) = manifest::parse(seal_text) else { return Err(unsealed.into()) };
    let mut lines = Vec::with_capacity(file_texts.len());
    for (no, text) in file_texts.iter().enumerate() {
        match manifest::parse(text) {
            Some(Entry::File(l)) if l.alg == key.alg() => lines.push((*text, l)),
            Some(Entry::Seal(_)) => return Err(format!("line {}: a seal line before the last line", no + 1)),
            _ => return Err(format!("line {}: not a well-formed {} line", no + 1, key.alg().label())),
        }
    }
    if seal.alg != key.alg() {
        return Err(format!("the seal is a {} line, but the key is for {}", seal.alg.label(), key.alg().label()));
    }
    let mut sealer = Sealer::new(key.start(&seal.nonce)).map_err(|e| e.to_string())?;
    for (text, _) in &lines {
        sealer.line(text.as_bytes()).map_err(|e| e.to_string())?;
    }
    let counted = sealer.lines();
    let valid = sealer.finish().and_then(|m| m.verify(&seal.tag)).map_err(|e| e.to_string())?;
    if !valid || counted != seal.lines {
        return Err("the manifest's seal does NOT verify (lines were removed, added, reordered or changed): refused, \
                    nothing written"
            .into());
    }
    Ok(lines)
}

/// The message's bytes `from .. to` (the name's prefix, then the file),
/// read once.
fn read_message(f: &File, prefix: &[u8], from: u64, to: u64) -> std::io::Result<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(vec![0u8; (to - from) as usize]);
    let p = prefix.len() as u64;
    let in_prefix = (p.min(to).saturating_sub(from)) as usize;
    if in_prefix > 0 {
        out[..in_prefix].copy_from_slice(&prefix[from as usize..from as usize + in_prefix]);
    }
    if to > p {
        let file_from = from.max(p) - p;
        f.read_exact_at(&mut out[in_prefix..], file_from)?;
    }
    Ok(out)
}
