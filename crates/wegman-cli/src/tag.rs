//! `wegman tag -k KEYFILE FILE...`

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use wegman::nonce::{DEFAULT_RESERVE, NonceStore, state_path_for_key};

use crate::algs::MacAlg;
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
    /// Files to tag; `-` is standard input.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: &TagArgs) -> Result<u8, String> {
    // A manifest line names its file in UTF-8; a name that is not cannot be
    // checked later, so refuse it before any nonce is claimed.
    if let Some(bad) = args.files.iter().find(|f| f.to_str().is_none()) {
        return Err(format!(
            "{}: file name is not valid UTF-8, so a manifest line cannot name it (rename the file, or tag it as - \
             from standard input)",
            manifest::status_name(&bad.to_string_lossy())
        ));
    }
    let key = keyfile::read_any(&args.key, args.alg)?;
    let state = state_path_for_key(&args.key).map_err(|e| e.to_string())?;
    let mut store = NonceStore::open(&state).map_err(|e| e.to_string())?.with_reserve(args.nonce_reserve);
    // Nonces are claimed in file order just before each file is read; a
    // nonce claimed by a file that then fails to read is never used again.
    let bar = progress::bar(args.files.iter().map(|f| input::size_hint(f)).sum());
    let mut status = 0u8;
    let stdout = std::io::stdout();
    parallel::ordered(
        &args.files,
        |_| store.next_nonce().map_err(|e| e.to_string()),
        |path, nonce| input::mac(&key, nonce, path, &bar).and_then(|m| m.finalize().map_err(std::io::Error::other)),
        |i, nonce, res| {
            let name = args.files[i].to_string_lossy();
            match res {
                Ok(tag) => {
                    let mut out = stdout.lock();
                    writeln!(out, "{}", manifest::format(key.alg(), &name, &nonce, &tag))
                        .and_then(|()| out.flush())
                        .map_err(|e| format!("writing output: {}", input::describe(&e)))?;
                }
                Err(e) => {
                    bar.suspend(|| eprintln!("wegman: {}: {}", manifest::status_name(&name), input::describe(&e)));
                    status = 1;
                }
            }
            Ok::<(), String>(())
        },
    )?;
    bar.finish_and_clear();
    store.close().map_err(|e| e.to_string())?;
    Ok(status)
}
