//! `wegman`: authenticate files with Wegman–Carter MACs.
//!
//! Exit status (all commands): 0 success; 1 a tag did not verify or a listed
//! file could not be read; 2 usage, I/O, key or malformed-input errors.

#![forbid(unsafe_code)]

mod alg_arg;
mod backend;
mod check;
mod cwc_cmd;
mod cwc_threads;
mod explicit;
mod guard;
mod manual;
mod out;
mod patch;
mod progress;
mod selftest;
mod staged;
mod tag;

// Key files, nonce stores, manifests and what `tag` and `check` do with
// them are the store's, shared with the Python bindings.
use wegman_store::{algs, keyfile};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// Wegman–Carter message authentication: Poly1305-AES, the MMH family, CWC-AES.
///
/// Keys live in key files (`wegman keygen`); the nonce state is kept beside
/// the key in KEYFILE.nonce and must travel with it.
#[derive(Parser)]
#[command(name = "wegman", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create a new random key file (mode 0600) and its nonce state.
    Keygen {
        /// Where to write the key; refuses to overwrite.
        #[arg(short = 'o', long = "output", value_name = "KEYFILE")]
        output: PathBuf,
        /// The algorithm the key is for: poly1305aes, an MMH name, or
        /// cwc-aes-128, cwc-aes-192, cwc-aes-256 (for `seal`/`open`).
        #[arg(long, value_name = "ALG", default_value = "poly1305aes")]
        alg: String,
    },
    /// Print one manifest line per file (`POLY1305-AES/2 (name) nonce=<hex> = <hex>`), then a seal line over them.
    Tag(tag::TagArgs),
    /// Verify the files listed in a manifest made by `wegman tag`.
    Check(check::CheckArgs),
    /// Replace bytes of a file tagged with `tag --keep-state` and print its manifest re-tagged, reading only those bytes.
    Patch(patch::PatchArgs),
    /// Print the tag of one input under an explicit key and nonce.
    Mac(MacArgs),
    /// Verify a tag of one input under an explicit key and nonce (exit 0 valid, 1 invalid).
    Verify(VerifyArgs),
    /// Authenticated encryption: write header || ciphertext || tag (docs/sealed-format.md).
    Seal(cwc_cmd::AeadArgs),
    /// Authenticated decryption: write the plaintext only if the header is this key's and the tag verifies (exit 1 otherwise, writing nothing).
    Open(cwc_cmd::AeadArgs),
    /// Check the library against the paper's Appendix A, then tag and check a sample file.
    Selftest,
    /// Print a completion script for SHELL (e.g. `wegman completions bash > /etc/bash_completion.d/wegman`).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `wegman man > ~/.local/share/man/man1/wegman.1`.
    Man {
        /// Write wegman.1 and one page per command (wegman-tag.1, …) into DIR instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Args)]
struct KeySource {
    /// The key as hex on the command line. UNSAFE for real secrets: argv is
    /// visible to other users (ps, /proc) and lands in shell history. Meant
    /// for test vectors and interop scripts.
    #[arg(long, value_name = "HEX", required_unless_present = "key_file", conflicts_with = "key_file")]
    key_hex: Option<String>,
    /// Read the key from a wegman key file (or a file holding just the hex key).
    #[arg(long, value_name = "PATH")]
    key_file: Option<PathBuf>,
    /// Poly1305-AES only: clear r's forbidden bits (§2) instead of rejecting such a key.
    #[arg(long)]
    clamp: bool,
}

#[derive(Args)]
struct ExplicitArgs {
    /// Algorithm.
    alg: alg_arg::AlgArg,
    #[command(flatten)]
    key: KeySource,
    /// The 16-byte nonce as 32 hex digits. Never reuse a nonce with one key.
    #[arg(long, value_name = "HEX")]
    nonce_hex: String,
    /// Input file; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// Poly1305 backend for poly1305aes (`float64` is the paper's §4
    /// floating-point method); a backend this CPU lacks is refused.
    #[arg(long, value_enum, value_name = "NAME", default_value = "auto")]
    backend: backend::Backend,
    /// Threads that read a large input at once (a regular file
    /// of 8 MiB or more); the tag is the same for any number. Default: one
    /// per core.
    #[arg(long, value_name = "N")]
    threads: Option<std::num::NonZeroUsize>,
}

#[derive(Args)]
struct MacArgs {
    #[command(flatten)]
    common: ExplicitArgs,
    /// Allow --nonce-hex with a key file made by `wegman keygen`, whose nonces
    /// otherwise come only from its nonce store (`wegman tag`): you promise
    /// that this nonce was never used with this key, by the store or by you.
    #[arg(long)]
    caller_manages_nonces: bool,
}

#[derive(Args)]
struct VerifyArgs {
    #[command(flatten)]
    common: ExplicitArgs,
    /// The tag to check, in hex (32 digits for Poly1305-AES; 8 to 32 for the MMH family).
    #[arg(long, value_name = "HEX")]
    tag_hex: String,
}

/// `wegman keygen -o PATH --alg ALG`, a MAC key or a CWC key.
fn keygen(output: &std::path::Path, alg: &str) -> Result<(), String> {
    if algs::CWC_ALGS.iter().any(|(n, _)| *n == alg) {
        return keyfile::keygen_cwc(output, alg);
    }
    let mac = <alg_arg::AlgArg as clap::ValueEnum>::from_str(alg, true).map(|a| a.0).map_err(|_| {
        format!("--alg {alg}: not one of poly1305aes, the MMH names, cwc-aes-128, cwc-aes-192, cwc-aes-256")
    })?;
    keyfile::keygen(output, mac)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // clap: help/version are not errors; everything else is usage (2)
            let code = if e.use_stderr() { 2 } else { 0 };
            return match e.print() {
                Ok(()) => ExitCode::from(code),
                Err(err) => {
                    let msg = out::write_error(&err);
                    if msg != out::CLOSED_PIPE {
                        out::warn(msg);
                    }
                    ExitCode::from(2)
                }
            };
        }
    };
    let ready = guard::no_core_dumps().and_then(|()| guard::stdout_writable());
    let result = ready.and_then(|()| match cli.command {
        Command::Keygen { output, alg } => keygen(&output, &alg).map(|()| 0),
        Command::Tag(args) => tag::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Patch(args) => patch::run(&args),
        Command::Mac(args) => explicit::mac(&args),
        Command::Verify(args) => explicit::verify(&args),
        Command::Seal(args) => cwc_cmd::seal(&args),
        Command::Open(args) => cwc_cmd::open(&args),
        Command::Selftest => selftest::run(),
        Command::Completions { shell } => manual::completions::<Cli>(shell),
        Command::Man { dir } => manual::man_pages::<Cli>(dir.as_deref()),
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            if msg != out::CLOSED_PIPE {
                out::warn(msg);
            }
            ExitCode::from(2)
        }
    }
}
