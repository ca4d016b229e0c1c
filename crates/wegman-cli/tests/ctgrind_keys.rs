//! Constant-time check of the command line's key parsing under valgrind's
//! memcheck (the security review's finding 10): wegman-ctgrind's `src/bin/ctgrind_keys.rs` marks the hex
//! digits of key files and `--key-hex` keys undefined and parses them with
//! the CLI's own `keyfile`/`hex` code (wegman-store's); memcheck must report nothing but
//! the two public-by-design verdicts suppressed in `tests/ctgrind_keys.supp`
//! (both of which must be used). `--leaky` runs the decoder of wegman
//! before the security review, which memcheck must report: a negative control, and the
//! proof that this test fails on that code.
//!
//! The harness is built in release mode with line tables (so memcheck can
//! name inlined frames), beside the Rust API harness. Valgrind is
//! required: without it these tests fail, unless `WEGMAN_SKIP_VALGRIND=1`
//! is set, which skips them with a message. `VALGRIND` overrides the tool.
//! Each run prints memcheck's report as one line (`wegman_ctgrind::report`),
//! which `tools/ctgrind` collects into its table.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use wegman_ctgrind::matrix::Build;
use wegman_ctgrind::memcheck::{self, ERROR_EXIT, Run};

const VALIDITY: &str = "wegman-cli-hex-validity-is-public";
const FORMAT: &str = "wegman-cli-key-file-format-is-public";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The harness (wegman-ctgrind's `src/bin/ctgrind_keys.rs`), built once per
/// test process with the release profile at `CARGO_PROFILE_RELEASE_OPT_LEVEL`
/// (3 unless set: `tools/ctgrind` sets 1, 2 and 3), in the target directory
/// of the Rust API harness's build at that level.
fn harness() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let opt_level = std::env::var("CARGO_PROFILE_RELEASE_OPT_LEVEL").ok().map_or(3, |v| {
            v.parse().unwrap_or_else(|_| panic!("CARGO_PROFILE_RELEASE_OPT_LEVEL={v}: this test takes 1, 2 or 3"))
        });
        Build { opt_level, portable: false, leak: false }.build_bin("ctgrind_keys").unwrap_or_else(|e| panic!("{e}"))
    })
}

/// Run the harness under memcheck with `args`; prints memcheck's report
/// line (for `tools/ctgrind`) as `label`.
fn memcheck(args: &[&str], label: &str) -> Run {
    let supp = crate_dir().join("tests/ctgrind_keys.supp");
    let run = memcheck::run(harness(), args, &[supp.as_path()]);
    println!("{}", run.report.line(label));
    run
}

#[test]
fn key_parsing_never_branches_on_a_key_digit() {
    let Some(version) = memcheck::version_or_skip("key_parsing_never_branches_on_a_key_digit") else { return };
    let run = memcheck(&[], "CLI keys");
    let (r, context) = (&run.report, run.context());
    println!(
        "{version}: {} errors; {VALIDITY} used {} times, {FORMAT} {} times\n{}",
        r.errors,
        r.uses(VALIDITY),
        r.uses(FORMAT),
        run.stdout
    );
    assert!(r.is_clean(), "{context}");
    assert_eq!(run.status.code(), Some(0), "{context}");
    assert!(run.stdout.contains("ctgrind_keys: 6 passed, 0 failed"), "{context}");
    // The verdicts were computed from undefined digits: the test marked the
    // key, and both bare and wegman-format files went through the parser.
    assert!(r.uses(VALIDITY) >= 6, "{context}");
    assert!(r.uses(FORMAT) >= 2, "{context}");
}

#[test]
fn negative_control_the_old_decoder_is_caught() {
    let Some(version) = memcheck::version_or_skip("negative_control_the_old_decoder_is_caught") else { return };
    let run = memcheck(&["--leaky"], "CLI keys --leaky");
    let (log, context) = (&run.log, run.context());
    println!("{version}, --leaky (must be caught): {} errors", run.report.errors);
    assert!(run.stdout.contains("ctgrind_keys --leaky: ran the old decoder on 6 keys"), "{context}");
    assert_eq!(run.status.code(), Some(ERROR_EXIT), "memcheck did not fail the old decoder: {context}");
    assert!(log.contains("Conditional jump or move depends on uninitialised value"), "{context}");
    // u8::from_str_radix, which the old decoder ran on each pair of digits
    assert!(log.contains("from_ascii_radix") || log.contains("from_str_radix"), "{context}");
    assert!(log.contains("Uninitialised value was created by a client request"), "{context}");
}
