//! Constant-time check of the command line's key parsing under valgrind's
//! memcheck (the security review's finding 10): `examples/ctgrind_keys.rs` marks the hex
//! digits of key files and `--key-hex` keys undefined and parses them with
//! the CLI's own `keyfile`/`hex` code (wegman-store's); memcheck must report nothing but
//! the two public-by-design verdicts suppressed in `tests/ctgrind_keys.supp`
//! (both of which must be used). `--leaky` runs the decoder of wegman
//! before the security review, which memcheck must report: a negative control, and the
//! proof that this test fails on that code.
//!
//! The example is built in release mode with line tables (so memcheck can
//! name inlined frames) into its own target directory. Valgrind is
//! required: without it these tests fail, unless `WEGMAN_SKIP_VALGRIND=1`
//! is set, which skips them with a message. `VALGRIND` overrides the tool.
//! Each run prints memcheck's report as one line (`wegman_ctgrind::report`),
//! which `tools/ctgrind` collects into its table.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use wegman_ctgrind::memcheck::{self, ERROR_EXIT, Run};

const VALIDITY: &str = "wegman-cli-hex-validity-is-public";
const FORMAT: &str = "wegman-cli-key-file-format-is-public";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example, built once per test process.
fn harness() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let root = crate_dir().join("../..");
        let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| root.join("target"));
        let target = target.join("ctgrind-cli");
        let st = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--locked", "--release", "-p", "wegman-cli", "--example", "ctgrind_keys"])
            .arg("--target-dir")
            .arg(&target)
            .env("CARGO_PROFILE_RELEASE_DEBUG", "limited")
            .current_dir(&root)
            .status()
            .expect("run cargo");
        assert!(st.success(), "building examples/ctgrind_keys.rs failed");
        target.join("release/examples/ctgrind_keys")
    })
}

/// Run the example under memcheck with `args`; prints memcheck's report
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
