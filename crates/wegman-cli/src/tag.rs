//! `wegman tag -k KEYFILE FILE...`

use std::path::PathBuf;

use clap::Args;
use wegman_store::nonce::{DEFAULT_RESERVE, NonceError, NonceStore, state_path_for_key};

use crate::algs::{AnyKey, MacAlg};
use crate::out::{Console, Sink};
use crate::{input, keyfile, manifest, parallel, progress};

#[derive(Args)]
pub struct TagArgs {
    /// Key file made by `wegman keygen`; its nonce state KEYFILE.nonce is used and advanced.
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// Insist on this algorithm (the key file names its own).
    #[arg(long, value_name = "ALG")]
    alg: Option<MacAlg>,
    /// Nonces reserved on disk per write of the nonce state (any value is safe;
    /// larger means fewer disk syncs, smaller wastes fewer nonces after a crash).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESERVE)]
    nonce_reserve: u64,
    /// Bind a nonce state written by an older wegman (format v1, which does
    /// not name its key) to this key, once. Only if you are sure the state
    /// is this key's own: another key's counter can repeat nonces.
    #[arg(long)]
    adopt_nonce_state: bool,
    /// Files to tag; `-` is standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
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

pub fn run(args: &TagArgs) -> Result<u8, String> {
    refuse_non_utf8(&args.files)?;
    let (key, binding) = keyfile::read_managed(&args.key, args.alg)?;
    let state = state_path_for_key(&args.key).map_err(|e| e.to_string())?;
    if args.adopt_nonce_state {
        NonceStore::adopt(&state, &binding).map_err(|e| e.to_string())?;
    }
    let mut store = NonceStore::open_noting_waits(&state, &binding, &mut |m| crate::out::warn(format_args!("{m}")))
        .map_err(|e| match e {
            NonceError::Unbound(_) => format!("{e} (--adopt-nonce-state)"),
            e => e.to_string(),
        })?
        .with_reserve(args.nonce_reserve);
    let status = tag_files(&key, &mut store, &args.files, &mut Console)?;
    store.close().map_err(|e| e.to_string())?;
    Ok(status)
}

/// `wegman tag`'s work with the key and its open nonce store: one manifest
/// line per file, in order, then the seal line, all to `sink`. Returns the
/// exit status: 0, or 1 if a file could not be read (its line is left out
/// and a warning says why).
pub fn tag_files(key: &AnyKey, store: &mut NonceStore, files: &[PathBuf], sink: &mut dyn Sink) -> Result<u8, String> {
    refuse_non_utf8(files)?;
    // The seal's nonce is claimed first, so that the seal can be computed
    // as the lines are written; then the files' nonces, in file order, just
    // before each file is read (a nonce claimed by a file that then fails to
    // read is never used again).
    let seal_nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let mut sealer = manifest::Sealer::new(key.start(&seal_nonce)).map_err(|e| e.to_string())?;
    let bar = progress::bar(files.iter().map(|f| input::size_hint(f)).sum());
    let mut status = 0u8;
    parallel::ordered(
        files,
        |_| store.next_nonce().map_err(|e| e.to_string()),
        |path, nonce| {
            let prefix = manifest::file_message_prefix(&path.to_string_lossy());
            input::mac(key, nonce, &prefix, path, &bar).and_then(|m| m.finalize().map_err(std::io::Error::other))
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
                    bar.suspend(|| {
                        sink.warn(format_args!("{}: {}", manifest::status_name(&name), input::describe(&e)))
                    });
                    status = 1;
                }
            }
            Ok::<(), String>(())
        },
    )?;
    bar.finish_and_clear();
    let lines = sealer.lines();
    let seal = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    sink.line(&manifest::format_seal(key.alg(), lines, &seal_nonce, &seal))?;
    Ok(status)
}
