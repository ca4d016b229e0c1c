//! The §3 nonce store under injected I/O faults. Each step of publishing a
//! generation (write the temporary file, fsync it, link it to the
//! generation's name, fsync the directory) and the rename that seals the
//! base once fails in turn, at every occurrence a
//! run of `wegman tag` reaches, with several error codes and reservation
//! sizes; after each faulted run the same command runs again without one.
//!
//! The faults come from an LD_PRELOAD shim, `tests/c/fault_shim.c`, around
//! the C library's `write`/`writev`/`pwrite`, `fsync`/`fdatasync`,
//! `rename`/`renameat`/`renameat2` and `link`/`linkat`, counting only calls on files in the
//! key's directory: the binary under test is the real `wegman`, and each
//! fault takes the path a failing disk would. A fault happens either
//! *before* the call (nothing done) or *after* it (done, then an error
//! reported: a short write followed by a failing one, an fsync that wrote
//! back, a rename whose reply was lost).
//!
//! Required over every run of one key, faulted or not:
//! - no nonce is printed twice, and each run's nonces all come after every
//!   nonce printed before it (the counter never goes back);
//! - a faulted run exits 2 with one line on standard error that says what
//!   the store was doing, which step failed and the system's error;
//! - the run after it continues (exit 0, no temporary file left behind) or
//!   refuses with a message; refusals are counted and reported (none so far).
//!
//! `cargo test` runs a subset (EIO and ENOSPC, reserves 1, 3 and 1024: 164
//! faulted runs); `WEGMAN_FAULT_CAMPAIGN=full` (what `tools/nonce-faults`
//! sets) adds EDQUOT and EROFS and reserves 2 and 5: 488. The same harness
//! catches the deliberately broken store of `nonce_kill.rs`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

mod common;
use common::{broken_binary, printed_nonces};

/// The fault kinds: the shim's name, and the step the store's message names.
const OPS: [(&str, &str); 5] = [
    ("write", "writing the temporary nonce state"),
    ("fsync", "syncing the temporary nonce state"),
    ("link", "linking the new nonce state to"),
    ("dirsync", "syncing the directory of the nonce state"),
    ("rename", "renaming the new nonce state onto"),
];
// Only the seal of the base renames ("rename", last), once per key.
const WHENS: [&str; 2] = ["before", "after"];
/// Error codes: the shim's name, and the system's text for it.
const ERRNOS: [(&str, &str); 4] = [
    ("EIO", "Input/output error"),
    ("ENOSPC", "No space left on device"),
    ("EDQUOT", "Disk quota exceeded"),
    ("EROFS", "Read-only file system"),
];
/// Files per run: with the seal, five nonces, so reserve 1 makes five
/// reservations and reserve 3 two and a give-back.
const FILES: usize = 4;

/// The matrix: how many of [`ERRNOS`], and which reserves.
fn plan() -> (usize, &'static [u64]) {
    match std::env::var("WEGMAN_FAULT_CAMPAIGN").as_deref() {
        Ok("full") => (4, &[1, 2, 3, 5, 1024]),
        Ok(other) => panic!("WEGMAN_FAULT_CAMPAIGN={other}: only \"full\" is known"),
        Err(_) => (2, &[1, 3, 1024]),
    }
}

/// The shim, compiled once per test process.
fn shim() -> &'static Path {
    static SHIM: OnceLock<PathBuf> = OnceLock::new();
    SHIM.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/fault_shim.c");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fault_shim.so");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let st = Command::new(&cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&out)
            .arg(&src)
            .arg("-ldl")
            .status()
            .unwrap_or_else(|e| panic!("running {cc}: {e} (a C compiler builds the fault shim)"));
        assert!(st.success(), "compiling {}", src.display());
        out
    })
}

/// One injected fault.
#[derive(Clone, Copy)]
struct Fault {
    op: usize,
    errno: usize,
    when: &'static str,
    nth: usize,
}

/// What a campaign saw.
#[derive(Default)]
struct Tally {
    /// Faulted runs by (kind, error code, before/after).
    faulted: BTreeMap<(&'static str, &'static str, &'static str), usize>,
    /// Exit codes of the faulted runs.
    exit_codes: BTreeMap<Option<i32>, usize>,
    /// The faulted runs' messages, with the directory written DIR.
    messages: BTreeMap<String, usize>,
    /// Faulted runs that left a temporary file behind (for the next run to remove).
    temp_left: usize,
    /// Next runs that continued, and the messages of those that refused.
    continued: usize,
    refused: Vec<String>,
    runs: usize,
    nonces: usize,
    repeats: usize,
    /// Runs that printed a nonce below one printed before.
    backwards: usize,
    /// Broken requirements other than the two above.
    problems: Vec<String>,
}

/// One key and every nonce printed with it.
struct Series<'a> {
    bin: &'a Path,
    /// Removed with the series.
    _dir: tempfile::TempDir,
    real: PathBuf,
    seen: HashSet<u128>,
    max: Option<u128>,
}

impl<'a> Series<'a> {
    fn new(bin: &'a Path) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let st = Command::new(bin).args(["keygen", "-o", "key"]).current_dir(&real).status().unwrap();
        assert!(st.success());
        // The store as an earlier version left it (a version-2 base): the
        // first reservation migrates it and seals the base, so the seal's
        // rename is in every series (a new store is sealed from the start).
        let material = wegman_store::keyfile::read_material(&real.join("key")).unwrap();
        let v2 = wegman_testkit::nonce_v2::state_bytes("poly1305aes", &material.bytes, 0);
        std::fs::write(real.join("key.nonce"), v2).unwrap();
        let _ = std::fs::remove_file(real.join("key.nonce.1")); // (the negative control's store has none)
        for i in 0..FILES {
            std::fs::write(real.join(format!("f{i}")), vec![i as u8; 100 + 37 * i]).unwrap();
        }
        Series { bin, _dir: dir, real, seen: HashSet::new(), max: None }
    }

    fn tag(&self, reserve: u64, fault: Option<Fault>) -> Output {
        let mut c = Command::new(self.bin);
        c.args(["tag", "-k", "key", "--nonce-reserve", &reserve.to_string()])
            .args((0..FILES).map(|i| format!("f{i}")))
            .current_dir(&self.real)
            .stdin(Stdio::null());
        if let Some(f) = fault {
            c.env("LD_PRELOAD", shim())
                .env("WEGMAN_FAULT_OP", OPS[f.op].0)
                .env("WEGMAN_FAULT_NTH", f.nth.to_string())
                .env("WEGMAN_FAULT_ERRNO", ERRNOS[f.errno].0)
                .env("WEGMAN_FAULT_WHEN", f.when)
                .env("WEGMAN_FAULT_DIR", &self.real)
                .env("WEGMAN_FAULT_LOG", self.real.join("fault.log"));
        }
        c.output().unwrap()
    }

    /// Did the shim fail a call in the last run? (Clears its log.)
    fn fired(&self) -> bool {
        std::fs::remove_file(self.real.join("fault.log")).is_ok()
    }

    fn temp_exists(&self) -> bool {
        std::fs::read_dir(&self.real)
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().starts_with("key.nonce.tmp"))
    }

    /// Count the nonces of one run's output against every earlier run's.
    fn record(&mut self, out: &Output, t: &mut Tally) {
        t.runs += 1;
        let printed: Vec<u128> = printed_nonces(&out.stdout)
            .iter()
            .map(|h| u128::from_le_bytes(hex::decode(h).unwrap().try_into().unwrap()))
            .collect();
        if let (Some(max), Some(&min)) = (self.max, printed.iter().min())
            && min <= max
        {
            t.backwards += 1;
        }
        for n in printed {
            t.nonces += 1;
            if !self.seen.insert(n) {
                t.repeats += 1;
            }
            self.max = self.max.max(Some(n));
        }
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A faulted run's failure: exit 2, one line naming what, where and why.
fn check_fault_report(s: &Series, f: Fault, out: &Output, t: &mut Tally) {
    let err = text(&out.stderr);
    let line = err.strip_suffix('\n').unwrap_or(&err);
    let mut shape = line.replace(s.real.to_str().unwrap(), "DIR");
    // temporary names are unique: key.nonce.tmp.<pid>.<random>
    if let Some(at) = shape.find("key.nonce.tmp.") {
        let end = shape[at..].find(':').map_or(shape.len(), |e| at + e);
        shape.replace_range(at..end, "key.nonce.tmp.PID.RANDOM");
    }
    // and generations are numbered: key.nonce.<generation>
    if let Some(at) = shape.find("key.nonce.").map(|a| a + "key.nonce.".len()) {
        let digits = shape[at..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            shape.replace_range(at..at + digits, "N");
        }
    }
    let (op, step) = OPS[f.op];
    let ok = out.status.code() == Some(2)
        && !line.contains('\n')
        && (line.starts_with("wegman: reserving nonces failed at ")
            || line.starts_with("wegman: giving back unused nonces failed at "))
        && line.contains(step)
        && line.contains(ERRNOS[f.errno].1);
    if !ok {
        t.problems
            .push(format!("{op} #{} {} {}: exit {:?}, stderr {err:?}", f.nth, ERRNOS[f.errno].0, f.when, out.status));
    }
    *t.exit_codes.entry(out.status.code()).or_default() += 1;
    *t.messages.entry(shape).or_default() += 1;
    *t.faulted.entry((op, ERRNOS[f.errno].0, f.when)).or_default() += 1;
}

/// Every fault of the matrix against `bin`, each followed by a clean run.
fn campaign(bin: &Path, errnos: usize, reserves: &[u64]) -> Tally {
    let mut t = Tally::default();
    for op in 0..OPS.len() {
        for when in WHENS {
            for errno in 0..errnos {
                let mut s = Series::new(bin);
                for &reserve in reserves {
                    for nth in 1..=64 {
                        let f = Fault { op, errno, when, nth };
                        let out = s.tag(reserve, Some(f));
                        s.record(&out, &mut t);
                        if !s.fired() {
                            // past the last occurrence: an ordinary run
                            if !out.status.success() {
                                t.problems.push(format!("unfaulted run failed: {}", text(&out.stderr)));
                            }
                            break;
                        }
                        check_fault_report(&s, f, &out, &mut t);
                        t.temp_left += usize::from(s.temp_exists());
                        let next = s.tag(reserve, None);
                        s.record(&next, &mut t);
                        match next.status.code() {
                            Some(0) if !s.temp_exists() => t.continued += 1,
                            Some(0) => t.problems.push("a temporary file outlived the next run".into()),
                            Some(2) if !next.stderr.is_empty() => {
                                t.refused.push(text(&next.stderr));
                                s = Series::new(bin); // a refusing store stays refused: a new key
                            }
                            _ => t.problems.push(format!("next run: {:?} {}", next.status, text(&next.stderr))),
                        }
                    }
                }
            }
        }
    }
    let faulted: usize = t.faulted.values().sum();
    eprintln!(
        "{}: {faulted} faulted runs ({} runs in all), {} nonces printed, {} reused, {} backwards; next run \
         continued {} times, refused {}; {} faulted runs left a temporary file; {} problems",
        bin.display(),
        t.runs,
        t.nonces,
        t.repeats,
        t.backwards,
        t.continued,
        t.refused.len(),
        t.temp_left,
        t.problems.len()
    );
    for ((op, errno, when), n) in &t.faulted {
        eprintln!("  {op:8} {errno:7} {when:6} {n:4} faulted runs");
    }
    eprintln!("  exit codes: {:?}", t.exit_codes);
    for (m, n) in &t.messages {
        eprintln!("  {n:4} x {m}");
    }
    for m in t.refused.iter().chain(&t.problems).take(5) {
        eprintln!("  ! {m}");
    }
    t
}

/// The acceptance conditions, shared by the real run and the negative control.
fn verdict(t: &Tally, faulted_wanted: usize) -> Result<(), String> {
    if t.repeats != 0 {
        return Err(format!("{} nonces reused", t.repeats));
    }
    if t.backwards != 0 {
        return Err(format!("{} runs printed a nonce below an earlier one", t.backwards));
    }
    if let Some(p) = t.problems.first() {
        return Err(format!("{} broken requirements, the first: {p}", t.problems.len()));
    }
    let faulted: usize = t.faulted.values().sum();
    if faulted < faulted_wanted {
        return Err(format!("only {faulted} faulted runs"));
    }
    Ok(())
}

#[test]
fn injected_io_faults_never_make_the_store_reuse_a_nonce() {
    let (errnos, reserves) = plan();
    let t = campaign(Path::new(env!("CARGO_BIN_EXE_wegman")), errnos, reserves);
    // every occurrence of every step in every series (the seal's rename:
    // once per series)
    let per_series: usize = reserves.iter().map(|&r| occurrences(r)).sum();
    let per_op = (OPS.len() - 1) * per_series + 1;
    verdict(&t, per_op * WHENS.len() * errnos).unwrap();
    // the store has never refused after a fault: a failed publication
    // removes its temporary file, and the link is atomic
    assert!(t.refused.is_empty(), "{:?}", t.refused);
    assert_eq!(t.temp_left, 0, "temporary files left behind");
}

/// Generations published in one run of [`FILES`] files with `reserve`: one
/// per reservation, and one to give back an unused rest.
fn occurrences(reserve: u64) -> usize {
    let nonces = FILES as u64 + 1;
    (nonces.div_ceil(reserve) + u64::from(!nonces.is_multiple_of(reserve))) as usize
}

#[test]
fn the_same_test_catches_a_broken_store() {
    // The naive store writes its state in place, once, at exit: a failed
    // write leaves it empty, and the next run starts again from zero.
    let t = campaign(&broken_binary(), 1, &[1]);
    let err = verdict(&t, 1).expect_err("the fault test failed to notice a store that reuses nonces");
    eprintln!("broken store caught: {err}");
    assert!(t.repeats > 0 && err.contains("reused"), "{err}");
}
