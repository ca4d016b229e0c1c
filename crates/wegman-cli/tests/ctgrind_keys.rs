//! Constant-time check of the command line's key parsing under valgrind's
//! memcheck (issue 9, finding 10): `examples/ctgrind_keys.rs` marks the hex
//! digits of key files and `--key-hex` keys undefined and parses them with
//! the CLI's own `keyfile`/`hexarg` code; memcheck must report nothing but
//! the two public-by-design verdicts suppressed in `tests/ctgrind_keys.supp`
//! (both of which must be used). `--leaky` runs the decoder of wegman
//! before issue 9, which memcheck must report: a negative control, and the
//! proof that this test fails on that code.
//!
//! The example is built in release mode with line tables (so memcheck can
//! name inlined frames) into its own target directory. Valgrind is
//! required: without it these tests fail, unless `WEGMAN_SKIP_VALGRIND=1`
//! is set, which skips them with a message. `VALGRIND` overrides the tool.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const SKIP_VAR: &str = "WEGMAN_SKIP_VALGRIND";
const VALIDITY: &str = "wegman-cli-hex-validity-is-public";
const FORMAT: &str = "wegman-cli-key-file-format-is-public";

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn valgrind() -> String {
    std::env::var("VALGRIND").unwrap_or_else(|_| "valgrind".into())
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

/// valgrind's version, or `None` if the test is to be skipped.
fn valgrind_or_skip(test: &str) -> Option<String> {
    if std::env::var(SKIP_VAR).is_ok_and(|v| v == "1") {
        println!("{test}: SKIPPED ({SKIP_VAR}=1): the constant-time check did not run");
        return None;
    }
    match Command::new(valgrind()).arg("--version").output() {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).trim().to_owned()),
        _ => panic!("{test}: valgrind is required (apt-get install valgrind), or set {SKIP_VAR}=1 to skip this test"),
    }
}

fn memcheck(args: &[&str]) -> (Output, String, String) {
    let mut supp = std::ffi::OsString::from("--suppressions=");
    supp.push(crate_dir().join("tests/ctgrind_keys.supp"));
    let out = Command::new(valgrind())
        .args(["--tool=memcheck", "--error-exitcode=1", "--track-origins=yes", "--num-callers=30", "-s"])
        .arg(supp)
        .arg(harness())
        .args(args)
        .output()
        .expect("run valgrind");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

/// How often suppression `name` was used (from `-s`'s `used_suppression:` lines).
fn uses(stderr: &str, name: &str) -> u64 {
    stderr
        .lines()
        .filter_map(|l| l.split_once("used_suppression:").map(|(_, r)| r.split_whitespace().collect::<Vec<_>>()))
        .filter(|w| w.get(1) == Some(&name))
        .map(|w| w[0].parse::<u64>().expect("a count"))
        .sum()
}

fn summary(stderr: &str) -> &str {
    stderr.lines().rev().find_map(|l| l.find("ERROR SUMMARY:").map(|i| &l[i..])).expect("an ERROR SUMMARY line")
}

#[test]
fn key_parsing_never_branches_on_a_key_digit() {
    let Some(version) = valgrind_or_skip("key_parsing_never_branches_on_a_key_digit") else { return };
    let (out, stdout, stderr) = memcheck(&[]);
    let context = format!("stdout:\n{stdout}\nvalgrind:\n{stderr}");
    println!(
        "{version}: {}; {VALIDITY} used {} times, {FORMAT} {} times\n{stdout}",
        summary(&stderr),
        uses(&stderr, VALIDITY),
        uses(&stderr, FORMAT)
    );
    assert!(summary(&stderr).starts_with("ERROR SUMMARY: 0 errors from 0 contexts"), "{context}");
    assert_eq!(out.status.code(), Some(0), "{context}");
    assert!(stdout.contains("ctgrind_keys: 6 passed, 0 failed"), "{context}");
    // The verdicts were computed from undefined digits: the test marked the
    // key, and both bare and wegman-format files went through the parser.
    assert!(uses(&stderr, VALIDITY) >= 6, "{context}");
    assert!(uses(&stderr, FORMAT) >= 2, "{context}");
}

#[test]
fn negative_control_the_old_decoder_is_caught() {
    let Some(version) = valgrind_or_skip("negative_control_the_old_decoder_is_caught") else { return };
    let (out, stdout, stderr) = memcheck(&["--leaky"]);
    let context = format!("stdout:\n{stdout}\nvalgrind:\n{stderr}");
    println!("{version}, --leaky (must be caught): {}", summary(&stderr));
    assert!(stdout.contains("ctgrind_keys --leaky: ran the old decoder on 6 keys"), "{context}");
    assert_eq!(out.status.code(), Some(1), "memcheck did not fail the old decoder: {context}");
    assert!(stderr.contains("Conditional jump or move depends on uninitialised value"), "{context}");
    // u8::from_str_radix, which the old decoder ran on each pair of digits
    assert!(stderr.contains("from_ascii_radix") || stderr.contains("from_str_radix"), "{context}");
    assert!(stderr.contains("Uninitialised value was created by a client request"), "{context}");
}
