//! Running a program under valgrind's memcheck the way every ctgrind
//! harness of this project does, and the one switch that skips it.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitStatus};

use crate::report::Report;

/// Set to `1` to skip the valgrind tests (they fail without valgrind).
pub const SKIP_VAR: &str = "WEGMAN_SKIP_VALGRIND";

/// The exit status `--error-exitcode` gives a run with memcheck errors.
pub const ERROR_EXIT: i32 = 1;

/// memcheck, failing the run on any error, tracing undefined values to
/// where they were made (here: a client request marking a secret), and
/// listing errors and used suppressions at the end.
pub const FLAGS: &[&str] =
    &["--tool=memcheck", "--error-exitcode=1", "--track-origins=yes", "--num-callers=30", "--show-error-list=yes"];

/// The valgrind to run: `$VALGRIND`, or `valgrind` from the PATH.
pub fn valgrind() -> String {
    std::env::var("VALGRIND").unwrap_or_else(|_| "valgrind".into())
}

/// valgrind's `--version`, or `None` if `test` is to be skipped
/// ([`SKIP_VAR`]` =1`, said on stdout). Panics if valgrind is missing and
/// skipping was not asked for: a constant-time test must not pass silently.
pub fn version_or_skip(test: &str) -> Option<String> {
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        println!("{test}: SKIPPED ({SKIP_VAR}=1): the constant-time check did not run");
        return None;
    }
    let valgrind = valgrind();
    match Command::new(&valgrind).arg("--version").output() {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).trim().to_owned()),
        result => panic!(
            "{test}: valgrind is required for the constant-time test but `{valgrind} --version` {}. Install it \
             (Debian/Ubuntu: apt-get install valgrind), point VALGRIND at it, or set {SKIP_VAR}=1 to skip this test.",
            match result {
                Ok(out) => format!("failed ({})", out.status),
                Err(e) => format!("could not run: {e}"),
            }
        ),
    }
}

/// One program run under memcheck.
#[derive(Debug)]
pub struct Run {
    /// valgrind's exit status (the program's, or [`ERROR_EXIT`] on errors).
    pub status: ExitStatus,
    /// The program's standard output.
    pub stdout: String,
    /// valgrind's log (the program's standard error is mixed in).
    pub log: String,
    /// memcheck's verdict, read from the log.
    pub report: Report,
}

impl Run {
    /// The program's output and valgrind's log, for a failure message.
    pub fn context(&self) -> String {
        format!("stdout:\n{}\nvalgrind's log:\n{}", self.stdout, self.log)
    }
}

/// Run `exe args` under memcheck with the suppression files `supps`.
/// Panics if valgrind cannot be started or prints no error summary.
pub fn run(exe: &Path, args: &[&str], supps: &[&Path]) -> Run {
    let mut cmd = Command::new(valgrind());
    cmd.args(FLAGS);
    for s in supps {
        let mut flag = OsString::from("--suppressions=");
        flag.push(s);
        cmd.arg(flag);
    }
    cmd.arg(exe).args(args);
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = Report::parse(&log).unwrap_or_else(|e| panic!("{cmd:?}: {e}\nstdout:\n{stdout}"));
    Run { status: out.status, stdout, log, report }
}
