//! `tools/ctgrind [--quick]`: every constant-time harness of the project
//! under valgrind's memcheck, in every build the evidence claims, and one
//! table of what memcheck said.
//!
//! * The Rust API harness (`src/main.rs`): release builds at opt-levels 1,
//!   2 and 3 and a forced-portable build at 3, each clean (must show 0
//!   errors) and with the harness's leaky control (must be flagged in
//!   `ctgrind::leak` and nowhere else); see `matrix.rs`.
//! * The C ABI harness (`wegman-capi`, `tests/ctgrind.rs`) and the command
//!   line's key-parsing harness (`wegman-cli`, `tests/ctgrind_keys.rs`),
//!   each with its own negative control, through their cargo tests (which
//!   make their assertions) with the release profile at the same
//!   opt-levels; the tests print the report lines this table shows.
//!
//! `--quick`: opt-level 3 only, and the Rust API harness's shorter inputs.
//! Exit status 0 if every row is as expected, 1 otherwise, 2 on misuse.

use std::process::{Command, ExitCode};
use std::time::Instant;

use wegman_ctgrind::matrix::{self, Build};
use wegman_ctgrind::memcheck::{self, SKIP_VAR};
use wegman_ctgrind::report::Report;

/// One line of the table.
struct Row {
    harness: &'static str,
    build: String,
    backends: String,
    report: Report,
    expected: &'static str,
    problems: Vec<String>,
}

/// The Rust API harness in one build.
fn rust_api(build: Build, quick: bool) -> Row {
    let mut row = Row {
        harness: "rust-api",
        build: build.label(),
        backends: String::new(),
        report: Report::default(),
        expected: if build.leak { "flagged" } else { "0 errors" },
        problems: Vec::new(),
    };
    eprintln!("== rust-api {}: building in {}", row.build, build.target_dir().display());
    let exe = match build.build() {
        Ok(exe) => exe,
        Err(e) => {
            row.problems.push(e);
            return row;
        }
    };
    eprintln!("== rust-api {}: running under memcheck", row.build);
    let run = build.run(&exe, quick);
    let aes = if build.portable {
        "aes crate soft"
    } else {
        "AES: the aes crate's AES-NI at the portable level, wegman's AES-NI leaves above it"
    };
    row.backends = format!("{}; {aes}", matrix::backends(&run.stdout));
    row.problems = build.judge(&run);
    row.report = run.report;
    row
}

/// A harness that lives in another crate's cargo test, with the release
/// profile at `opt_level`: one row per report line the test printed, the
/// real run before its negative control.
fn cargo_test(harness: &'static str, package: &str, test: &str, backends: &str, opt_level: u8) -> Vec<Row> {
    let build = format!("O{opt_level}");
    eprintln!("== {harness} {build}: cargo test -p {package} --test {test}");
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["test", "--quiet", "--locked", "-p", package, "--test", test, "--", "--nocapture", "--test-threads=1"])
        .env("CARGO_TARGET_DIR", matrix::ctgrind_dir().join("tests"))
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt_level.to_string())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove(SKIP_VAR)
        .current_dir(matrix::workspace_dir());
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => {
            let problems = vec![format!("cannot run {cmd:?}: {e}")];
            let report = Report::default();
            return vec![Row { harness, build, backends: String::new(), report, expected: "", problems }];
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut rows: Vec<Row> = stdout
        .lines()
        .filter_map(Report::from_line)
        .map(|(label, report)| {
            let control = label.contains("leaky");
            let mut problems = Vec::new();
            if control == report.is_clean() {
                problems.push(if control { "not flagged".into() } else { "memcheck errors".into() });
            }
            Row {
                harness,
                build: format!("{build} {label}"),
                backends: backends.into(),
                report,
                expected: if control { "flagged" } else { "0 errors" },
                problems,
            }
        })
        .collect();
    rows.sort_by_key(|r| r.expected == "flagged");
    if !out.status.success() || rows.is_empty() {
        let why = format!(
            "cargo test failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).lines().rev().take(40).collect::<Vec<_>>().join("\n")
        );
        match rows.first_mut() {
            Some(r) => r.problems.push(why),
            None => {
                let report = Report::default();
                rows.push(Row { harness, build, backends: String::new(), report, expected: "", problems: vec![why] });
            }
        }
    }
    rows
}

/// At most three names, generic arguments elided, and how many more.
fn short_list(names: &[&str]) -> String {
    let short = |n: &&str| match n.find('<') {
        Some(i) if i > 0 => format!("{}<…>", &n[..i]),
        _ => n.to_string(),
    };
    let mut s = names.iter().take(3).map(short).collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(" (+{} more)", names.len() - 3));
    }
    if s.is_empty() { "-".into() } else { s }
}

fn print_table(rows: &[Row]) {
    println!(
        "| harness | build | backends exercised | memcheck errors (contexts) | suppressions used | functions flagged | expected | verdict |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in rows {
        let supp: Vec<String> = r.report.suppressed.iter().map(|(s, n)| format!("{s} x{n}")).collect();
        let verdict = if r.problems.is_empty() { "as expected".to_owned() } else { "UNEXPECTED".to_owned() };
        println!(
            "| {} | {} | {} | {} ({}) | {} | {} | {} | {verdict} |",
            r.harness,
            r.build,
            r.backends,
            r.report.errors,
            r.report.contexts,
            if supp.is_empty() { "-".into() } else { supp.join(", ") },
            short_list(&r.report.functions()),
            r.expected,
        );
    }
}

fn main() -> ExitCode {
    let Some(quick) = wegman_ctgrind::quick_option() else {
        eprintln!("usage: tools/ctgrind [--quick]");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let version = match Command::new(memcheck::valgrind()).arg("--version").output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        _ => {
            eprintln!("tools/ctgrind: valgrind is required (apt-get install valgrind, or set VALGRIND)");
            return ExitCode::from(2);
        }
    };
    let opt_levels: &[u8] = if quick { &[3] } else { &[1, 2, 3] };
    let mut rows = Vec::new();
    for build in Build::all().into_iter().filter(|b| opt_levels.contains(&b.opt_level)) {
        rows.push(rust_api(build, quick));
    }
    for &opt in opt_levels {
        rows.extend(cargo_test("c-abi", "wegman-capi", "ctgrind", "detected: avx2, AES-NI pad", opt));
        rows.extend(cargo_test("cli-keys", "wegman-cli", "ctgrind_keys", "base16ct (no SIMD)", opt));
    }

    println!("{version}, memcheck; {}", if quick { "--quick" } else { "full run" });
    print_table(&rows);
    let bad: Vec<&Row> = rows.iter().filter(|r| !r.problems.is_empty()).collect();
    for r in &bad {
        println!("\nUNEXPECTED: {} {}:\n  {}", r.harness, r.build, r.problems.join("\n  "));
    }
    let secs = start.elapsed().as_secs();
    println!("\n{} rows, {} unexpected; wall time {}m{:02}s", rows.len(), bad.len(), secs / 60, secs % 60);
    if bad.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
