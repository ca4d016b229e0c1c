//! `wegman tag -k KEYFILE FILE...`: the arguments, the key's nonce store,
//! and the store's `tag_files` writing to the console with a progress bar.

use std::path::PathBuf;

use clap::Args;
use wegman_store::keyfile;
use wegman_store::nonce::{DEFAULT_RESERVE, NonceError, NonceStore, state_path_for_key};
use wegman_store::tag::{TagOptions, refuse_non_utf8, tag_files};

use crate::alg_arg::AlgArg;
use crate::out::Console;
use crate::progress;

#[derive(Args)]
pub struct TagArgs {
    /// Key file made by `wegman keygen`; its nonce state KEYFILE.nonce is used and advanced.
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// Insist on this algorithm (the key file names its own).
    #[arg(long, value_name = "ALG")]
    alg: Option<AlgArg>,
    /// Nonces reserved on disk per write of the nonce state (any value is safe;
    /// larger means fewer disk syncs, smaller wastes fewer nonces after a crash).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESERVE)]
    nonce_reserve: u64,
    /// Bind a nonce state written by an older wegman (format v1, which does
    /// not name its key) to this key, once. Only if you are sure the state
    /// is this key's own: another key's counter can repeat nonces.
    #[arg(long)]
    adopt_nonce_state: bool,
    /// Threads that read a large file at once (a regular file
    /// of 8 MiB or more); the manifest is the same for any number. Default:
    /// one per core.
    #[arg(long, value_name = "N")]
    threads: Option<std::num::NonZeroUsize>,
    /// Keep each file's state, sealed under a key derived from KEYFILE's,
    /// in DIR, so that `wegman patch` can re-tag an edit reading only the
    /// edited bytes (Poly1305-AES keys; regular files).
    #[arg(long, value_name = "DIR")]
    keep_state: Option<PathBuf>,
    /// Files to tag; `-` is standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: &TagArgs) -> Result<u8, String> {
    refuse_non_utf8(&args.files)?;
    let (key, mut store) = open_store(&args.key, args.alg.map(|a| a.0), args.adopt_nonce_state, args.nonce_reserve)?;
    let threads = args.threads.unwrap_or_else(wegman_store::input::all_cores);
    let options = TagOptions { threads, keep_state: args.keep_state.as_deref() };
    let status = tag_files(&key, &mut store, &args.files, &options, &mut Console, progress::bar)?;
    store.close().map_err(|e| e.to_string())?;
    Ok(status)
}

/// The key of a key file made by `wegman keygen` and its nonce store,
/// opened (waiting, with a message, while another process holds it).
pub fn open_store(
    key_file: &std::path::Path,
    alg: Option<wegman_store::algs::MacAlg>,
    adopt: bool,
    reserve: u64,
) -> Result<(wegman_store::algs::AnyKey, NonceStore), String> {
    let (key, binding) = keyfile::read_managed(key_file, alg)?;
    let state = state_path_for_key(key_file).map_err(|e| e.to_string())?;
    if adopt {
        NonceStore::adopt(&state, &binding).map_err(|e| e.to_string())?;
    }
    let store = NonceStore::open_noting_waits(&state, &binding, &mut |m| crate::out::warn(format_args!("{m}")))
        .map_err(|e| match e {
            NonceError::Unbound(_) => format!("{e} (--adopt-nonce-state)"),
            e => e.to_string(),
        })?
        .with_reserve(reserve);
    Ok((key, store))
}
