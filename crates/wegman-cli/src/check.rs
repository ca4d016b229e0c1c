//! `wegman check -k KEYFILE MANIFEST`
//!
//! For each manifest line prints `name: OK`, `name: FAILED` (the tag does not
//! verify) or `name: FAILED open or read`; a summary goes to stderr. Exit 0
//! only if every line verified, 1 if any failed, 2 for usage, I/O or
//! malformed-manifest errors (strict: one malformed line makes the run fail
//! with 2, after the well-formed lines have been checked).

use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use crate::algs::MacAlg;
use crate::{input, keyfile, manifest, parallel};

#[derive(Args)]
pub struct CheckArgs {
    /// Key file the manifest was made with.
    #[arg(short = 'k', long = "key", value_name = "KEYFILE")]
    key: PathBuf,
    /// Insist on this algorithm (the key file and each line name theirs anyway).
    #[arg(long, value_name = "ALG")]
    alg: Option<MacAlg>,
    /// Don't print OK for each successfully verified file.
    #[arg(long)]
    quiet: bool,
    /// Don't output anything; the exit status shows success.
    #[arg(long)]
    status: bool,
    /// Don't fail or report status for missing files.
    #[arg(long)]
    ignore_missing: bool,
    /// The manifest made by `wegman tag`; `-` is standard input.
    #[arg(value_name = "MANIFEST")]
    manifest: PathBuf,
}

enum Outcome {
    Ok,
    Mismatch,
    Unreadable(io::Error),
}

pub fn run(args: &CheckArgs) -> Result<u8, String> {
    let key = keyfile::read_any(&args.key, args.alg)?;
    let label = key.alg().label();
    let mname = args.manifest.display().to_string();
    let reader = input::open(&args.manifest).map_err(|e| format!("{mname}: {}", input::describe(&e)))?;
    let mut lines = Vec::new();
    let mut malformed = 0usize;
    for (no, line) in BufReader::new(reader).split(b'\n').enumerate() {
        let line = line.map_err(|e| format!("{mname}: {}", input::describe(&e)))?;
        let parsed = std::str::from_utf8(&line).ok().and_then(manifest::parse);
        match parsed {
            Some(l) if l.alg == key.alg() => lines.push(l),
            Some(l) => {
                malformed += 1;
                if !args.status {
                    eprintln!("wegman: {mname}: {}: {} line, but the key is for {label}", no + 1, l.alg.label());
                }
            }
            None => {
                malformed += 1;
                if !args.status {
                    eprintln!("wegman: {mname}: {}: improperly formatted {label} line", no + 1);
                }
            }
        }
    }
    if lines.is_empty() && malformed == 0 {
        if !args.status {
            eprintln!("wegman: {mname}: no properly formatted {label} lines found");
        }
        return Ok(2);
    }

    let (mut failed, mut unreadable, mut verified) = (0usize, 0usize, 0usize);
    let stdout = io::stdout();
    parallel::ordered(
        &lines,
        |_| Ok::<(), String>(()),
        |l, ()| match input::mac(&key, &l.nonce, Path::new(&l.name), &indicatif::ProgressBar::hidden()) {
            Ok(mac) => match mac.verify(&l.tag) {
                Ok(true) => Outcome::Ok,
                Ok(false) => Outcome::Mismatch,
                Err(e) => Outcome::Unreadable(io::Error::other(e)),
            },
            Err(e) => Outcome::Unreadable(e),
        },
        |i, (), outcome| {
            let name = manifest::status_name(&lines[i].name);
            let text = match outcome {
                Outcome::Ok => {
                    verified += 1;
                    (!args.quiet).then(|| format!("{name}: OK"))
                }
                Outcome::Mismatch => {
                    failed += 1;
                    Some(format!("{name}: FAILED"))
                }
                Outcome::Unreadable(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => None,
                Outcome::Unreadable(e) => {
                    unreadable += 1;
                    if !args.status {
                        eprintln!("wegman: {name}: {}", input::describe(&e));
                    }
                    Some(format!("{name}: FAILED open or read"))
                }
            };
            if let (Some(t), false) = (text, args.status) {
                let mut out = stdout.lock();
                writeln!(out, "{t}").and_then(|()| out.flush()).map_err(|e| format!("writing output: {e}"))?;
            }
            Ok::<(), String>(())
        },
    )?;

    if !args.status {
        if malformed > 0 {
            eprintln!("wegman: WARNING: {malformed} line{} improperly formatted", plural(malformed, " is", "s are"));
        }
        if unreadable > 0 {
            eprintln!("wegman: WARNING: {unreadable} listed file{} could not be read", plural(unreadable, "", "s"));
        }
        if failed > 0 {
            eprintln!("wegman: WARNING: {failed} computed tag{} did NOT match", plural(failed, "", "s"));
        }
        if verified + failed + unreadable == 0 && malformed == 0 {
            eprintln!("wegman: {mname}: no file was verified");
        }
    }
    Ok(if malformed > 0 {
        2
    } else if failed > 0 || unreadable > 0 || verified == 0 {
        1
    } else {
        0
    })
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}
