//! Constant-time check of the C library under valgrind's memcheck ("ctgrind").
//!
//! `tests/c/ctgrind.c` marks the secret inputs of every secret-handling C
//! entry point undefined (first the key, then the message) and calls them;
//! memcheck then reports any conditional jump or memory address that depends
//! on a secret. The program also checks that every output still carries
//! undefined bits (so the secret really went through the computation) before
//! it declassifies and compares it. See the comment at the top of the C file
//! for what exactly is secret and why the 22 always-zero bits of r are not.
//!
//! Two runs, both under `valgrind --error-exitcode=1 --track-origins=yes`
//! with the suppressions of `tests/ctgrind.supp`:
//!
//! * the real one must exit 0 with `ERROR SUMMARY: 0 errors`. The one
//!   intended branch on secret-derived data, whether a CWC tag verified
//!   (taken in `release_if_verified`, `src/cwc.rs`), is suppressed by name,
//!   and the suppression must have been used: that proves the decryptions
//!   ran with a secret-dependent verdict;
//! * `ctgrind --leaky`, a negative control with a deliberate secret-dependent
//!   branch and a secret-indexed load, must make valgrind report both (exit 1,
//!   "depends on uninitialised value", "Use of uninitialised value"), so a
//!   clean real run means something.
//!
//! The library is the release `libwegman_c.a`, built as C users build it
//! (`cargo build --release -p wegman-capi`, as in `tests/c_api.rs`); the C
//! program is compiled with `-std=c11 -Wall -Wextra -Werror -g -O1`.
//!
//! Valgrind is required: without it these tests fail, unless
//! `WEGMAN_SKIP_VALGRIND=1` is set, which skips them (with a message).
//! `VALGRIND`, `CC` override the tools.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

mod common;
use common::{LINK_LIBS, crate_dir, libs, scratch, tool};

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-O1"];
/// What a Rust staticlib needs from the C library on Linux.
const VALGRIND_FLAGS: &[&str] =
    &["--tool=memcheck", "--error-exitcode=1", "--track-origins=yes", "--num-callers=30", "--show-error-list=yes"];
/// The suppression in `tests/ctgrind.supp` for the CWC tag verdict.
const VERDICT_SUPPRESSION: &str = "wegman-cwc-tag-verdict-is-public";
/// The exit status `--error-exitcode` gives a run with memcheck errors.
const VALGRIND_ERROR_EXIT: i32 = 1;
const SKIP_VAR: &str = "WEGMAN_SKIP_VALGRIND";

/// `tests/c/ctgrind.c` linked against the static library, built once.
fn ctgrind_exe() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = scratch("ctgrind");
        let mut cc = Command::new(tool("CC", "cc"));
        cc.args(C_FLAGS)
            .arg("-I")
            .arg(crate_dir().join("include"))
            .arg(crate_dir().join("tests/c/ctgrind.c"))
            .arg(&libs().staticlib)
            .args(LINK_LIBS)
            .arg("-o")
            .arg(&exe);
        let out = cc.output().unwrap_or_else(|e| panic!("cannot run {cc:?}: {e}"));
        assert!(
            out.status.success(),
            "{cc:?} failed ({}); <valgrind/memcheck.h> comes with valgrind's development files:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

/// valgrind's `--version`, or `None` if this test is to be skipped. Panics if
/// valgrind is missing and skipping was not asked for.
fn valgrind_or_skip(test: &str) -> Option<String> {
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        println!("{test}: SKIPPED ({SKIP_VAR}=1): the constant-time check did not run");
        return None;
    }
    let valgrind = tool("VALGRIND", "valgrind");
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

/// Run the C program under memcheck with `args`.
fn memcheck(args: &[&str]) -> (Output, String, String) {
    let mut cmd = Command::new(tool("VALGRIND", "valgrind"));
    let mut suppressions = std::ffi::OsString::from("--suppressions=");
    suppressions.push(crate_dir().join("tests/ctgrind.supp"));
    cmd.args(VALGRIND_FLAGS).arg(suppressions).arg(ctgrind_exe()).args(args);
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// How often the suppression `name` was used, from the `used_suppression:`
/// lines that `--show-error-list=yes` prints (0 if it was not).
fn suppression_uses(stderr: &str, name: &str) -> u64 {
    stderr
        .lines()
        .filter_map(|l| l.split_once("used_suppression:").map(|(_, rest)| rest.split_whitespace().collect::<Vec<_>>()))
        .filter(|words| words.get(1) == Some(&name))
        .map(|words| words[0].parse::<u64>().expect("a use count"))
        .sum()
}

/// The distinct functions memcheck's errors were reported in (the top frame
/// of each, e.g. `wegman::mmh::backend::soft::Keys::compress`), called from
/// which C entry points, in order of first appearance.
fn flagged_functions(stderr: &str) -> Vec<String> {
    let frames: Vec<&str> = stderr.lines().map(|l| l.split_once("== ").map_or(l, |(_, rest)| rest).trim()).collect();
    let mut found: Vec<String> = Vec::new();
    for (i, line) in frames.iter().enumerate() {
        if !(line.starts_with("Conditional jump") || line.starts_with("Use of uninitialised")) {
            continue;
        }
        let name = |frame: &str| {
            let after = frame.split_once(": ").map_or(frame, |(_, f)| f);
            after.split(" (").next().unwrap_or(after).to_owned()
        };
        let stack: Vec<String> = frames[i + 1..]
            .iter()
            .take_while(|f| f.starts_with("at ") || f.starts_with("by "))
            .map(|f| name(f))
            .collect();
        let top = stack.first().cloned().unwrap_or_default();
        let entry =
            stack.iter().find(|f| (f.starts_with("wegman_") || f.starts_with("poly1305aes_")) && !f.contains("::"));
        let item = format!("  {top} (via {})", entry.map_or("?", String::as_str));
        if !found.contains(&item) {
            found.push(item);
        }
    }
    found
}

/// valgrind's `ERROR SUMMARY` line, without the `==pid==` prefix.
fn error_summary(stderr: &str) -> &str {
    stderr
        .lines()
        .rev()
        .find_map(|l| l.find("ERROR SUMMARY:").map(|i| &l[i..]))
        .unwrap_or_else(|| panic!("no ERROR SUMMARY from valgrind:\n{stderr}"))
}

#[test]
fn secret_paths_are_constant_time_under_memcheck() {
    let Some(version) = valgrind_or_skip("secret_paths_are_constant_time_under_memcheck") else { return };
    let (out, stdout, stderr) = memcheck(&[]);
    let summary = error_summary(&stderr);
    let verdicts = suppression_uses(&stderr, VERDICT_SUPPRESSION);
    println!(
        "{version}, real run:\n{stdout}valgrind: {summary} ({}); {VERDICT_SUPPRESSION} suppressed {verdicts} times",
        out.status
    );
    let context = format!("stdout:\n{stdout}\nvalgrind's stderr:\n{stderr}");
    assert!(
        summary.starts_with("ERROR SUMMARY: 0 errors from 0 contexts"),
        "memcheck found errors, first reported in:\n{}\n{context}",
        flagged_functions(&stderr).join("\n")
    );
    assert!(verdicts > 0, "the CWC verdict was never secret-dependent, so decryption went untested: {context}");
    assert_eq!(out.status.code(), Some(0), "ctgrind failed: {context}");
    let last = stdout.lines().next_back().unwrap_or_default();
    assert!(
        last.starts_with("ctgrind: ") && last.contains(" passed, 0 failed") && !last.starts_with("ctgrind: 0 passed"),
        "unexpected result line {last:?}: {context}"
    );
}

#[test]
fn negative_control_leaky_code_is_caught() {
    let Some(version) = valgrind_or_skip("negative_control_leaky_code_is_caught") else { return };
    let (out, stdout, stderr) = memcheck(&["--leaky"]);
    let summary = error_summary(&stderr);
    println!("{version}, ctgrind --leaky (must be caught):\n{stdout}valgrind: {summary} ({})", out.status);
    let context = format!("stdout:\n{stdout}\nvalgrind's stderr:\n{stderr}");
    // The program itself finished; the failure status is valgrind's.
    assert!(stdout.contains("ctgrind --leaky: ran the leaky comparison"), "the leaky run did not finish: {context}");
    assert_eq!(out.status.code(), Some(VALGRIND_ERROR_EXIT), "memcheck did not fail the leaky run: {context}");
    assert!(!summary.starts_with("ERROR SUMMARY: 0 errors"), "{context}");
    // The secret-dependent branch, reported where it is.
    assert!(
        stderr.contains("Conditional jump or move depends on uninitialised value") && stderr.contains("leaky_equal"),
        "the early-exit comparison was not reported: {context}"
    );
    // The secret-indexed load.
    assert!(
        stderr.contains("Use of uninitialised value of size") && stderr.contains("leaky_lookup"),
        "the secret-indexed lookup was not reported: {context}"
    );
    // --track-origins traces both back to the secret.
    assert!(stderr.contains("Uninitialised value was created by a client request"), "{context}");
}
