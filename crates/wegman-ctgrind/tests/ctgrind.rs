//! The Rust API harness (`src/main.rs`) under valgrind's memcheck in CI: the
//! release build at opt-level 3 must show 0 errors (with the CWC verdict's
//! one suppression used), and the same build run with the harness's leaky
//! control (`--leaky`) must be flagged in `ctgrind::leak`, in every family
//! and backend level, and nowhere else. `tools/ctgrind`
//! runs these and the other builds (opt-levels 1 and 2, forced portable).
//!
//! Each build goes to its own directory under `target/ctgrind/` (shared with
//! the script). Valgrind is required: without it these tests fail, unless
//! `WEGMAN_SKIP_VALGRIND=1` is set, which skips them with a message.
#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::sync::Mutex;

use wegman_ctgrind::matrix::{self, Build, VERDICT_SUPPRESSION};
use wegman_ctgrind::memcheck;

/// One build at a time: each is a whole release build of wegman.
static BUILDING: Mutex<()> = Mutex::new(());

fn check(test: &str, build: Build) {
    let Some(version) = memcheck::version_or_skip(test) else { return };
    let _one_at_a_time = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let exe = build.build().unwrap_or_else(|e| panic!("{e}"));
    let run = build.run(&exe, false);
    let r = &run.report;
    println!(
        "{version}, {}: {} errors from {} contexts in [{}]; {VERDICT_SUPPRESSION} used {} times\n{}\n{}",
        build.label(),
        r.errors,
        r.contexts,
        r.functions().join(", "),
        r.uses(VERDICT_SUPPRESSION),
        matrix::backends(&run.stdout),
        r.line(&format!("rust-api {}", build.label()))
    );
    let problems = build.judge(&run);
    assert!(problems.is_empty(), "{}:\n  {}\n{}", build.label(), problems.join("\n  "), run.context());
}

#[test]
fn rust_api_at_opt_level_3_is_constant_time() {
    check("rust_api_at_opt_level_3_is_constant_time", Build { opt_level: 3, leak: false, portable: false });
}

#[test]
fn negative_control_a_lookup_at_each_secret_output_is_flagged() {
    check(
        "negative_control_a_lookup_at_each_secret_output_is_flagged",
        Build { opt_level: 3, leak: true, portable: false },
    );
}
