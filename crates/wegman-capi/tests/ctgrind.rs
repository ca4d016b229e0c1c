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
//!   (taken in `wegman`'s `cwc::key::public_verdict`), is suppressed by name,
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
//! Each run prints memcheck's report as one line (`wegman_ctgrind::report`),
//! which `tools/ctgrind` collects into its table.
//!
//! Valgrind is required: without it these tests fail, unless
//! `WEGMAN_SKIP_VALGRIND=1` is set, which skips them (with a message).
//! `VALGRIND`, `CC` override the tools.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use wegman_ctgrind::memcheck::{self, ERROR_EXIT, Run};
use wegman_ctgrind::report::Report;

mod common;
use common::{LINK_LIBS, crate_dir, libs, scratch, tool};

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-O1"];
/// The suppression in `tests/ctgrind.supp` for the CWC tag verdict.
const VERDICT_SUPPRESSION: &str = "wegman-cwc-tag-verdict-is-public";

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

/// Run the C program under memcheck with `args`; prints memcheck's report
/// line (for `tools/ctgrind`) as `label`.
fn memcheck(args: &[&str], label: &str) -> Run {
    let supp = crate_dir().join("tests/ctgrind.supp");
    let run = memcheck::run(ctgrind_exe(), args, &[supp.as_path()]);
    println!("{}", run.report.line(label));
    run
}

/// The distinct functions memcheck's errors were reported in (the top frame
/// of each, e.g. `wegman::mmh::backend::soft::Keys::compress`), called from
/// which C entry points, in order of first appearance.
fn flagged_functions(report: &Report) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for flag in &report.flags {
        let entry = flag
            .stack
            .iter()
            .find(|f| (f.starts_with("wegman_") || f.starts_with("poly1305aes_")) && !f.contains("::"));
        let item = format!("  {} (via {})", flag.function(), entry.map_or("?", String::as_str));
        if !found.contains(&item) {
            found.push(item);
        }
    }
    found
}

#[test]
fn secret_paths_are_constant_time_under_memcheck() {
    let Some(version) = memcheck::version_or_skip("secret_paths_are_constant_time_under_memcheck") else { return };
    let run = memcheck(&[], "C ABI");
    let r = &run.report;
    let verdicts = r.uses(VERDICT_SUPPRESSION);
    println!(
        "{version}, real run:\n{}valgrind: {} errors from {} contexts ({}); {VERDICT_SUPPRESSION} suppressed {verdicts} times",
        run.stdout, r.errors, r.contexts, run.status
    );
    let context = run.context();
    assert!(r.is_clean(), "memcheck found errors, first reported in:\n{}\n{context}", flagged_functions(r).join("\n"));
    assert!(verdicts > 0, "the CWC verdict was never secret-dependent, so decryption went untested: {context}");
    assert_eq!(run.status.code(), Some(0), "ctgrind failed: {context}");
    let last = run.stdout.lines().next_back().unwrap_or_default();
    assert!(
        last.starts_with("ctgrind: ") && last.contains(" passed, 0 failed") && !last.starts_with("ctgrind: 0 passed"),
        "unexpected result line {last:?}: {context}"
    );
}

#[test]
fn negative_control_leaky_code_is_caught() {
    let Some(version) = memcheck::version_or_skip("negative_control_leaky_code_is_caught") else { return };
    let run = memcheck(&["--leaky"], "C ABI --leaky");
    let (stdout, log) = (&run.stdout, &run.log);
    println!(
        "{version}, ctgrind --leaky (must be caught):\n{stdout}valgrind: {} errors ({})",
        run.report.errors, run.status
    );
    let context = run.context();
    // The program itself finished; the failure status is valgrind's.
    assert!(stdout.contains("ctgrind --leaky: ran the leaky comparison"), "the leaky run did not finish: {context}");
    assert_eq!(run.status.code(), Some(ERROR_EXIT), "memcheck did not fail the leaky run: {context}");
    assert!(!run.report.is_clean(), "{context}");
    // The secret-dependent branch, reported where it is.
    assert!(
        log.contains("Conditional jump or move depends on uninitialised value") && log.contains("leaky_equal"),
        "the early-exit comparison was not reported: {context}"
    );
    // The secret-indexed load.
    assert!(
        log.contains("Use of uninitialised value of size") && log.contains("leaky_lookup"),
        "the secret-indexed lookup was not reported: {context}"
    );
    // --track-origins traces both back to the secret.
    assert!(log.contains("Uninitialised value was created by a client request"), "{context}");
}
