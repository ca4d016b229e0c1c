//! The library half of `wegman tag`: a manifest of files, each tagged
//! under the next nonce of the key's store, sealed by a last line.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use crate::algs::AnyKey;
use crate::nonce::NonceStore;
use crate::progress::Progress;
use crate::sink::Sink;
use crate::{incremental, input, manifest, parallel};

/// How `tag_files` reads the files.
pub struct TagOptions<'a> {
    /// A file of 8 MiB or more is read by up to this many threads at once (`input::mac_threads`; the same line as
    /// one thread's).
    pub threads: NonZeroUsize,
    /// Keep each file's state, sealed, in this directory, for `wegman
    /// patch` (`incremental.rs`; Poly1305-AES keys and regular files only).
    pub keep_state: Option<&'a std::path::Path>,
}

/// A manifest line names its file in UTF-8; a name that is not cannot be
/// checked later, so it is refused before any nonce is claimed.
pub fn refuse_non_utf8(files: &[PathBuf]) -> Result<(), String> {
    if let Some(bad) = files.iter().find(|f| f.to_str().is_none()) {
        return Err(format!(
            "{}: file name is not valid UTF-8, so a manifest line cannot name it (rename the file, or tag it as - \
             from standard input)",
            manifest::status_name(&bad.to_string_lossy())
        ));
    }
    Ok(())
}

/// `wegman tag`'s work with the key and its open nonce store: one manifest
/// line per file, in order, then the seal line, all to `sink`. Returns the
/// exit status: 0, or 1 if a file could not be read (its line is left out
/// and a warning says why). `progress` makes the display of the bytes read
/// from their total ([`crate::progress::NoProgress`] for none).
pub fn tag_files<P: Progress>(
    key: &AnyKey,
    store: &mut NonceStore,
    files: &[PathBuf],
    options: &TagOptions<'_>,
    sink: &mut dyn Sink,
    progress: impl FnOnce(u64) -> P,
) -> Result<u8, String> {
    refuse_non_utf8(files)?;
    let keep = match (options.keep_state, key) {
        (None, _) => None,
        (Some(dir), AnyKey::Poly1305Aes(k, _)) => Some((dir, k)),
        (Some(_), _) => return Err("--keep-state needs a Poly1305-AES key".into()),
    };
    let threads = options.threads;
    // The seal's nonce is claimed first, so that the seal can be computed
    // as the lines are written; then the files' nonces, in file order, just
    // before each file is read (a nonce claimed by a file that then fails to
    // read is never used again).
    let seal_nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let mut sealer = manifest::Sealer::new(key.start(&seal_nonce)).map_err(|e| e.to_string())?;
    let bar = progress(files.iter().map(|f| input::size_hint(f)).sum());
    let mut status = 0u8;
    parallel::ordered(
        files,
        |_| store.next_nonce().map_err(|e| e.to_string()),
        |path, nonce| {
            let name = path.to_string_lossy();
            let prefix = manifest::file_message_prefix(&name);
            let Some((dir, k)) = keep else {
                return input::mac_threads(key, nonce, &prefix, path, threads, &bar)
                    .and_then(|m| m.finalize().map_err(std::io::Error::other));
            };
            // The tag from the state kept for `wegman patch` (one read).
            let (state, len) = input::incremental_of(k, &prefix, path, threads, &bar)?;
            let tag = state.tag(nonce);
            incremental::save(dir, k, &name, (nonce, &tag), len, &state).map_err(std::io::Error::other)?;
            Ok(tag.to_vec())
        },
        |i, nonce, res| {
            let name = files[i].to_string_lossy();
            match res {
                Ok(tag) => {
                    let line = manifest::format(key.alg(), &name, &nonce, &tag);
                    sealer.line(line.as_bytes()).map_err(|e| e.to_string())?;
                    sink.line(&line)?;
                }
                Err(e) => {
                    bar.suspend(&mut || {
                        sink.warn(format_args!("{}: {}", manifest::status_name(&name), input::describe(&e)))
                    });
                    status = 1;
                }
            }
            Ok::<(), String>(())
        },
    )?;
    bar.finish();
    let lines = sealer.lines();
    let seal = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    sink.line(&manifest::format_seal(key.alg(), lines, &seal_nonce, &seal))?;
    Ok(status)
}
