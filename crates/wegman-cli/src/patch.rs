//! `wegman patch -k KEYFILE --state DIR --manifest M --offset N --data-file F FILE`
//! (or `--append FILE`): replace bytes of a file tagged with `wegman tag
//! --keep-state DIR`, or take in what it grew by, and print its manifest
//! with the file's line re-tagged, reading only the 64 KiB runs the change
//! touches — checked against the kept state first — and the manifest,
//! whose seal must verify (the store's `patch.rs`; docs/parallel.md).

use std::path::PathBuf;

use clap::Args;
use wegman_store::algs::{AnyKey, MacAlg};
use wegman_store::nonce::DEFAULT_RESERVE;
use wegman_store::patch::{Edit, patch_file};
use wegman_store::{hex, input};

use crate::out::Console;

#[derive(Args)]
pub struct PatchArgs {
    /// Key file made by `wegman keygen` (Poly1305-AES); its nonce store gives the new line's nonce.
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// The directory `wegman tag --keep-state` kept the file's state in (updated here).
    #[arg(long, value_name = "DIR")]
    state: PathBuf,
    /// The file's current manifest (printed again with its line re-tagged).
    #[arg(long, value_name = "MANIFEST")]
    manifest: PathBuf,
    /// Where in the file the new bytes go.
    #[arg(long, value_name = "N", required_unless_present = "append", conflicts_with = "append")]
    offset: Option<u64>,
    /// The new bytes, from a file.
    #[arg(long, value_name = "FILE", required_unless_present_any = ["data_hex", "append"], conflicts_with_all = ["data_hex", "append"])]
    data_file: Option<PathBuf>,
    /// The new bytes, as hex.
    #[arg(long, value_name = "HEX", conflicts_with = "append")]
    data_hex: Option<String>,
    /// The file grew (a log, say): re-tag it reading only the bytes past its tagged length and the
    /// 64 KiB run before them (checked against the state).
    #[arg(long)]
    append: bool,
    /// Nonces reserved on disk per write of the nonce state.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESERVE)]
    nonce_reserve: u64,
    /// The file to change, named as in the manifest.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

pub fn run(args: &PatchArgs) -> Result<u8, String> {
    let new = match (args.append, &args.data_file, &args.data_hex) {
        (true, None, None) => Vec::new(),
        (false, Some(path), None) => {
            std::fs::read(path).map_err(|e| format!("{}: {}", path.display(), input::describe(&e)))?
        }
        (false, None, Some(h)) => hex::decode_vec("data", h)?,
        _ => return Err("give exactly one of --data-file, --data-hex and --append".into()),
    };
    let edit = match args.offset {
        Some(offset) if !args.append => Edit::Replace { offset, new: &new },
        None if args.append => Edit::Append,
        _ => return Err("--offset goes with --data-file or --data-hex, not --append".into()),
    };
    let text = input::read_manifest(&args.manifest)?;
    let (key, mut store) = crate::tag::open_store(&args.key, Some(MacAlg::Poly1305aes), false, args.nonce_reserve)?;
    let AnyKey::Poly1305Aes(k, _) = &key else { return Err("patch needs a Poly1305-AES key".into()) };
    patch_file(k, &mut store, &args.state, &text, &args.file, edit, &mut Console)?;
    store.close().map_err(|e| e.to_string())?;
    Ok(0)
}
