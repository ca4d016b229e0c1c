//! The library half of `wegman check -k KEYFILE MANIFEST`.
//!
//! For each manifest line prints `name: OK`, `name: FAILED` (the tag does not
//! verify) or `name: FAILED open or read`; a summary goes to stderr. The
//! manifest's final seal line must verify (it authenticates every line
//! before it) unless `allow_unsealed` (`--allow-unsealed`) is set and there is none. Exit 0
//! only if every line and the seal verified, 1 if any failed or the seal is
//! missing, 2 for usage, I/O or malformed-manifest errors (strict: one
//! malformed line makes the run fail with 2, after the well-formed lines
//! have been checked). docs/manifest.md has the rules.
//!
//! Nothing in the manifest is trusted before its seal verifies: the seal is
//! checked first, and no listed file is opened unless it verified (or, with
//! `--allow-unsealed`, there is none). A listed file must be a regular file
//! unless `allow_special` (`--allow-special`). The manifest itself must be a
//! regular file or standard input ([`input::open_manifest`]: a FIFO or a
//! device such as `/dev/urandom` is refused before it is read), and is
//! bounded whatever it is: a line longer than [`MAX_LINE`] bytes, more than
//! [`input::MANIFEST_MAX_BYTES`] bytes or [`input::MANIFEST_MAX_LINES`]
//! lines is an error (exit 2) as soon as it is read, and running out of
//! memory for the lines is an error, not an abort.

use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::algs::{AnyKey, MacAlg};
use crate::manifest::{Entry, Line, Seal, Sealer};
use crate::progress::NoProgress;
use crate::sink::Sink;
use crate::{input, keyfile, manifest, parallel};

/// What to check and how (the options of `wegman check`, which names each
/// in `--kebab-case`).
pub struct CheckOptions {
    /// The key file the manifest was made with.
    pub key: PathBuf,
    /// The algorithm to insist on (the key file and each line name theirs anyway).
    pub alg: Option<MacAlg>,
    /// No `name: OK` line for a verified file.
    pub quiet: bool,
    /// No line and no warning at all: the status tells.
    pub status: bool,
    /// Missing files neither fail nor get a line.
    pub ignore_missing: bool,
    /// A manifest without a seal line is checked line by line (lines
    /// removed, added or reordered go unnoticed).
    pub allow_unsealed: bool,
    /// Listed files that are not regular files (FIFOs, devices) are read too.
    pub allow_special: bool,
    /// The manifest; `-` is standard input.
    pub manifest: PathBuf,
}

/// What became of one listed file.
pub enum Outcome {
    /// Its tag verified.
    Ok,
    /// It was read, and its tag did not verify.
    Mismatch,
    /// It could not be opened or read.
    Unreadable(io::Error),
}

/// The manifest's lines as read: the raw bytes of each (the seal covers
/// them exactly), the file lines for this key, the seal and its position.
/// The longest manifest line read (a name of 4096 bytes, each escaped,
/// is under 8.3 KiB with its tag).
pub const MAX_LINE: usize = 64 * 1024;

struct Parsed {
    raw: Vec<Vec<u8>>,
    files: Vec<Line>,
    seal: Option<(usize, Seal)>,
    malformed: usize,
}

/// A warning, unless `status` (`--status`) silences them.
fn warn(args: &CheckOptions, sink: &mut dyn Sink, msg: std::fmt::Arguments<'_>) {
    if !args.status {
        sink.warn(msg);
    }
}

/// How much of a manifest is read before giving up: bytes, lines.
#[derive(Clone, Copy)]
struct Bounds {
    bytes: u64,
    lines: u64,
}

const BOUNDS: Bounds = Bounds { bytes: input::MANIFEST_MAX_BYTES, lines: input::MANIFEST_MAX_LINES };

fn parse(
    args: &CheckOptions,
    key: &AnyKey,
    reader: Box<dyn Read>,
    mname: &str,
    sink: &mut dyn Sink,
    bounds: Bounds,
) -> Result<Parsed, String> {
    let label = key.alg().label();
    let mut p = Parsed { raw: Vec::new(), files: Vec::new(), seal: None, malformed: 0 };
    // One byte past the bound is read, to tell a manifest of exactly the
    // bound from a longer one.
    let mut reader = BufReader::new(reader.take(bounds.bytes + 1));
    let mut total = 0u64;
    for no in 0.. {
        let mut line = Vec::new();
        let read = (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line);
        let n = read.map_err(|e| format!("{mname}: {}", input::describe(&e)))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > bounds.bytes {
            return Err(format!("{mname}: longer than {} bytes", bounds.bytes));
        }
        if no as u64 >= bounds.lines {
            return Err(format!("{mname}: more than {} lines", bounds.lines));
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > MAX_LINE {
            return Err(format!("{mname}: line {}: longer than {MAX_LINE} bytes", no + 1));
        }
        let oom = |_| format!("{mname}: out of memory at line {}", no + 1);
        p.raw.try_reserve(1).map_err(oom)?;
        p.files.try_reserve(1).map_err(oom)?;
        let entry = std::str::from_utf8(&line).ok().and_then(manifest::parse);
        p.raw.push(line);
        if p.seal.is_some() {
            p.malformed += 1;
            warn(
                args,
                sink,
                format_args!("{mname}: {}: line after the manifest's seal, which does not cover it", no + 1),
            );
            continue;
        }
        let alg = match &entry {
            Some(Entry::File(l)) => l.alg,
            Some(Entry::Seal(s)) => s.alg,
            None => key.alg(),
        };
        match entry {
            _ if alg != key.alg() => {
                p.malformed += 1;
                warn(args, sink, format_args!("{mname}: {}: {} line, but the key is for {label}", no + 1, alg.label()));
            }
            Some(Entry::File(l)) => p.files.push(l),
            Some(Entry::Seal(s)) => p.seal = Some((no, s)),
            None => {
                p.malformed += 1;
                warn(args, sink, format_args!("{mname}: {}: improperly formatted {label} line", no + 1));
            }
        }
    }
    Ok(p)
}

/// Whether the seal verifies over the lines before it (and counts them right).
fn seal_verifies(key: &AnyKey, raw: &[Vec<u8>], seal: &Seal) -> Result<bool, String> {
    let mut sealer = Sealer::new(key.start(&seal.nonce)).map_err(|e| e.to_string())?;
    for line in raw {
        sealer.line(line).map_err(|e| e.to_string())?;
    }
    let counted = sealer.lines();
    let valid = sealer.finish().and_then(|m| m.verify(&seal.tag)).map_err(|e| e.to_string())?;
    Ok(valid && counted == seal.lines)
}

impl CheckOptions {
    /// `wegman check -k KEY MANIFEST` with no other option.
    pub fn new(key: PathBuf, manifest: PathBuf) -> Self {
        CheckOptions {
            key,
            alg: None,
            quiet: false,
            status: false,
            ignore_missing: false,
            allow_unsealed: false,
            allow_special: false,
            manifest,
        }
    }
}

/// `wegman check` with its lines and warnings sent to `sink`; returns the
/// exit status (0 all verified, 1 a failure, 2 a malformed manifest).
pub fn run_to(args: &CheckOptions, sink: &mut dyn Sink) -> Result<u8, String> {
    let key = keyfile::read_any(&args.key, args.alg)?;
    let mname = args.manifest.display().to_string();
    let reader = input::open_manifest(&args.manifest).map_err(|e| format!("{mname}: {}", input::describe(&e)))?;
    let (mut plan, lines) = match prepare(args, &key, reader, &mname, sink)? {
        Prepared::Done(status) => return Ok(status),
        Prepared::Verify(plan, lines) => (plan, lines),
    };
    parallel::ordered(
        &lines,
        |_| Ok::<(), String>(()),
        |l, ()| verify_listed(&key, l, args.allow_special),
        |i, (), outcome| plan.record(args, sink, &lines[i], outcome),
    )?;
    Ok(plan.finish(args, sink))
}

/// A manifest read and its seal checked: either the run's end (its status;
/// what was wrong is reported), or the file lines left to verify.
pub enum Prepared {
    /// Nothing is to be read: the exit status.
    Done(u8),
    /// The seal verified (or the manifest has none and that is allowed):
    /// verify the file lines (in manifest order), [`Plan::record`] each
    /// outcome, then [`Plan::finish`].
    Verify(Plan, Vec<Line>),
}

/// What the report of a manifest whose seal verified needs: what was
/// found reading it, and the tally of its lines' outcomes so far.
pub struct Plan {
    mname: String,
    malformed: usize,
    /// Lines in the old format (version 1), warned about at the end.
    v1: usize,
    sealed: Option<bool>,
    failed: usize,
    unreadable: usize,
    verified: usize,
}

/// Read the manifest from `reader` (named `mname` in messages) and check
/// its seal under `key`. No listed file is opened here, and none may be
/// opened unless this returns [`Prepared::Verify`].
pub fn prepare(
    args: &CheckOptions,
    key: &AnyKey,
    reader: Box<dyn Read>,
    mname: &str,
    sink: &mut dyn Sink,
) -> Result<Prepared, String> {
    prepare_within(args, key, reader, mname, sink, BOUNDS)
}

fn prepare_within(
    args: &CheckOptions,
    key: &AnyKey,
    reader: Box<dyn Read>,
    mname: &str,
    sink: &mut dyn Sink,
    bounds: Bounds,
) -> Result<Prepared, String> {
    let label = key.alg().label();
    let Parsed { raw, files: lines, seal, malformed } = parse(args, key, reader, mname, sink, bounds)?;
    if lines.is_empty() && malformed == 0 && seal.is_none() {
        warn(args, sink, format_args!("{mname}: no properly formatted {label} lines found"));
        return Ok(Prepared::Done(2));
    }
    let sealed = match &seal {
        Some((no, s)) => Some(seal_verifies(key, &raw[..*no], s)?),
        None => None,
    };
    // No listed file is opened before the seal verifies: an untrusted
    // manifest could name a FIFO or a device, or thousands of files.
    if sealed == Some(false) || (sealed.is_none() && !args.allow_unsealed) {
        report_malformed(args, sink, malformed);
        report_seal(args, sink, mname, sealed);
        return Ok(Prepared::Done(if malformed > 0 { 2 } else { 1 }));
    }
    let plan = Plan {
        mname: mname.to_string(),
        malformed,
        v1: lines.iter().filter(|l| l.version == 1).count(),
        sealed,
        failed: 0,
        unreadable: 0,
        verified: 0,
    };
    Ok(Prepared::Verify(plan, lines))
}

/// Verify one listed file, opened by name (a regular file only, unless
/// `allow_special`).
pub fn verify_listed(key: &AnyKey, l: &Line, allow_special: bool) -> Outcome {
    match input::open_listed(Path::new(&l.name), allow_special) {
        Ok(file) => verify_read(key, l, file),
        Err(e) => Outcome::Unreadable(e),
    }
}

/// Verify one listed file read from `file`.
pub fn verify_read(key: &AnyKey, l: &Line, file: impl Read) -> Outcome {
    let prefix = if l.version >= 2 { manifest::file_message_prefix(&l.name) } else { Vec::new() };
    match input::mac_of(key, &l.nonce, &prefix, file, &NoProgress).map(|mac| mac.verify(&l.tag)) {
        Ok(Ok(true)) => Outcome::Ok,
        Ok(Ok(false)) => Outcome::Mismatch,
        Ok(Err(e)) => Outcome::Unreadable(io::Error::other(e)),
        Err(e) => Outcome::Unreadable(e),
    }
}

impl Plan {
    /// Report the outcome for `line` (call in manifest order).
    pub fn record(
        &mut self,
        args: &CheckOptions,
        sink: &mut dyn Sink,
        line: &Line,
        outcome: Outcome,
    ) -> Result<(), String> {
        let name = manifest::status_name(&line.name);
        let text = match outcome {
            Outcome::Ok => {
                self.verified += 1;
                (!args.quiet).then(|| format!("{name}: OK"))
            }
            Outcome::Mismatch => {
                self.failed += 1;
                Some(format!("{name}: FAILED"))
            }
            Outcome::Unreadable(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => None,
            Outcome::Unreadable(e) => {
                self.unreadable += 1;
                warn(args, sink, format_args!("{name}: {}", input::describe(&e)));
                Some(format!("{name}: FAILED open or read"))
            }
        };
        if let (Some(t), false) = (text, args.status) {
            sink.line(&t)?;
        }
        Ok(())
    }

    /// The summary warnings; the exit status.
    pub fn finish(self, args: &CheckOptions, sink: &mut dyn Sink) -> u8 {
        let Plan { mname, malformed, v1, sealed, failed, unreadable, verified } = self;
        report_malformed(args, sink, malformed);
        if v1 > 0 {
            warn(
                args,
                sink,
                format_args!(
                    "WARNING: {v1} line{} in the old format (version 1): its tag covers the file's content but not \
                     its name",
                    plural(v1, " is", "s are")
                ),
            );
        }
        if unreadable > 0 {
            warn(
                args,
                sink,
                format_args!("WARNING: {unreadable} listed file{} could not be read", plural(unreadable, "", "s")),
            );
        }
        if failed > 0 {
            warn(args, sink, format_args!("WARNING: {failed} computed tag{} did NOT match", plural(failed, "", "s")));
        }
        let seal_failed = report_seal(args, sink, &mname, sealed);
        if verified + failed + unreadable == 0 && malformed == 0 {
            warn(args, sink, format_args!("{mname}: no file was verified"));
        }
        if malformed > 0 {
            2
        } else if failed > 0 || unreadable > 0 || verified == 0 || seal_failed {
            1
        } else {
            0
        }
    }
}

fn report_malformed(args: &CheckOptions, sink: &mut dyn Sink, malformed: usize) {
    if malformed > 0 {
        warn(
            args,
            sink,
            format_args!("WARNING: {malformed} line{} improperly formatted", plural(malformed, " is", "s are")),
        );
    }
}

/// The seal's warning, if any; whether it counts as a failure.
fn report_seal(args: &CheckOptions, sink: &mut dyn Sink, mname: &str, sealed: Option<bool>) -> bool {
    match sealed {
        Some(true) => false,
        Some(false) => {
            warn(
                args,
                sink,
                format_args!(
                    "WARNING: {mname}: the seal does NOT verify: lines were removed, added, reordered or changed \
                     (no listed file was read)"
                ),
            );
            true
        }
        None if args.allow_unsealed => false,
        None => {
            warn(
                args,
                sink,
                format_args!(
                    "WARNING: {mname}: no seal line, so lines could have been removed, added or reordered \
                     (`wegman tag` ends every manifest with one; --allow-unsealed checks the lines anyway)"
                ),
            );
            true
        }
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Quiet(Vec<String>);

    impl Sink for Quiet {
        fn line(&mut self, text: &str) -> Result<(), String> {
            self.0.push(text.to_string());
            Ok(())
        }
        fn warn(&mut self, text: std::fmt::Arguments<'_>) {
            self.0.push(text.to_string());
        }
    }

    fn key() -> AnyKey {
        AnyKey::Poly1305Aes(wegman::poly1305aes::Key::from_bytes_clamped(&[3; 32]), wegman::cpu::Features::detect())
    }

    /// `n` well-formed (unsealed) lines.
    fn lines(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                format!("{}\n", manifest::format(MacAlg::Poly1305aes, &format!("f{i}"), &[1; 16], &[2; 16]))
                    .into_bytes()
            })
            .collect()
    }

    fn prepare_bounded(text: Vec<u8>, bytes: u64, lines: u64) -> Result<Prepared, String> {
        let args = CheckOptions::new("k".into(), "m".into());
        prepare_within(
            &args,
            &key(),
            Box::new(io::Cursor::new(text)),
            "m",
            &mut Quiet::default(),
            Bounds { bytes, lines },
        )
    }

    #[test]
    fn a_manifest_over_its_line_bound_is_an_error() {
        assert!(prepare_bounded(lines(3), 1 << 20, 3).is_ok());
        assert_eq!(prepare_bounded(lines(4), 1 << 20, 3).err().unwrap(), "m: more than 3 lines");
        // a last line without its newline counts too
        let mut text = lines(3);
        text.extend_from_slice(b"x");
        assert_eq!(prepare_bounded(text, 1 << 20, 3).err().unwrap(), "m: more than 3 lines");
    }

    #[test]
    fn a_manifest_over_its_byte_bound_is_an_error() {
        let text = lines(3);
        let len = text.len() as u64;
        assert!(prepare_bounded(text.clone(), len, 10).is_ok());
        assert_eq!(prepare_bounded(text, len - 1, 10).err().unwrap(), format!("m: longer than {} bytes", len - 1));
    }

    #[test]
    fn an_endless_manifest_stops_at_the_bound() {
        // newlines forever: the line bound; a short line again and again:
        // the byte bound; one endless line: the line length
        let endless = |line: &'static [u8]| Box::new(io::Cursor::new(line).chain(io::repeat(b'\n'))) as Box<dyn Read>;
        let args = CheckOptions::new("k".into(), "m".into());
        let err = |r, bounds| prepare_within(&args, &key(), r, "m", &mut Quiet::default(), bounds).err().unwrap();
        assert_eq!(err(endless(b""), Bounds { bytes: 1 << 30, lines: 1000 }), "m: more than 1000 lines");
        assert_eq!(err(endless(b""), Bounds { bytes: 5000, lines: 1 << 24 }), "m: longer than 5000 bytes");
        let one_line = Box::new(io::repeat(b'x')) as Box<dyn Read>;
        assert_eq!(err(one_line, BOUNDS), format!("m: line 1: longer than {MAX_LINE} bytes"));
    }
}
