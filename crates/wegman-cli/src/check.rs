//! `wegman check -k KEYFILE MANIFEST`: the arguments, and the store's
//! check writing to the console (what it checks: `wegman_store::check`;
//! the rules: docs/manifest.md).

use std::path::PathBuf;

use clap::Args;
use wegman_store::check::{CheckOptions, run_to};

use crate::alg_arg::AlgArg;
use crate::out::Console;

#[derive(Args)]
pub struct CheckArgs {
    /// Key file the manifest was made with.
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// Insist on this algorithm (the key file and each line name theirs anyway).
    #[arg(long, value_name = "ALG")]
    alg: Option<AlgArg>,
    /// Don't print OK for each successfully verified file.
    #[arg(long)]
    quiet: bool,
    /// Don't output anything; the exit status shows success.
    #[arg(long)]
    status: bool,
    /// Don't fail or report status for missing files.
    #[arg(long)]
    ignore_missing: bool,
    /// Accept a manifest without a seal line (e.g. one written by an older
    /// wegman): its lines are checked one by one, but lines removed from it,
    /// added to it or reordered in it go unnoticed.
    #[arg(long)]
    allow_unsealed: bool,
    /// Also read listed files that are not regular files (FIFOs, devices):
    /// such a file can block or never end.
    #[arg(long)]
    allow_special: bool,
    /// The manifest made by `wegman tag`: a regular file (at most 1 GiB and
    /// 2^24 lines), or `-` for standard input (the same bounds).
    #[arg(value_name = "MANIFEST")]
    manifest: PathBuf,
}

pub fn run(args: &CheckArgs) -> Result<u8, String> {
    let options = CheckOptions {
        key: args.key.clone(),
        alg: args.alg.map(|a| a.0),
        quiet: args.quiet,
        status: args.status,
        ignore_missing: args.ignore_missing,
        allow_unsealed: args.allow_unsealed,
        allow_special: args.allow_special,
        manifest: args.manifest.clone(),
    };
    run_to(&options, &mut Console)
}
