//! The builds of the Rust API harness (`src/main.rs`) that the constant-time
//! evidence rests on, and what memcheck must say about each.
//!
//! Each build is a release build at one opt-level (1, 2 or 3, through
//! `CARGO_PROFILE_RELEASE_OPT_LEVEL`), with line tables so that memcheck
//! names inlined functions, in its own target directory under
//! `target/ctgrind/`. Each build runs twice: as it is, when memcheck must
//! report nothing and the CWC verdict suppression must have been used, and
//! with `--leaky`, the harness's negative control (a table lookup at every
//! output and verdict the library computed from a secret), when memcheck
//! must report errors in the leak's function and nowhere else, in every
//! family and at every backend level. The forced-portable builds add
//! `--cfg wegman_backend="portable"` and the `aes` crate's
//! `--cfg aes_backend="soft"`: no SIMD in wegman and bitsliced AES.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::memcheck::{self, ERROR_EXIT, Run};

/// The function the leaky control's lookup is in (the harness's `leak`).
pub const LEAK_FUNCTION: &str = "ctgrind::leak";
/// The suppression of the one intended branch on a CWC verdict
/// (`ctgrind.supp`).
pub const VERDICT_SUPPRESSION: &str = "wegman-cwc-verdict-is-public";
/// The families the harness runs; each must reach the leak.
pub const FAMILIES: &[&str] = &["poly1305aes", "mmh", "cwc"];

/// One build of the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Build {
    /// `opt-level` of the release profile: 1, 2 or 3.
    pub opt_level: u8,
    /// Run with `--leaky` (the same executable as the clean run).
    pub leak: bool,
    /// With wegman's and the `aes` crate's portable backends forced.
    pub portable: bool,
}

impl Build {
    /// Every build `tools/ctgrind` runs: opt-levels 1 to 3 and the
    /// forced-portable build at 3, each clean and leaky.
    pub fn all() -> Vec<Build> {
        let mut out = Vec::new();
        for (opt_level, portable) in [(1, false), (2, false), (3, false), (3, true)] {
            for leak in [false, true] {
                out.push(Build { opt_level, leak, portable });
            }
        }
        out
    }

    /// e.g. `O2`, `O3 portable leak`.
    pub fn label(&self) -> String {
        let mut s = format!("O{}", self.opt_level);
        if self.portable {
            s.push_str(" portable");
        }
        if self.leak {
            s.push_str(" leak");
        }
        s
    }

    /// The `RUSTFLAGS` of this build (set in full: an inherited value would
    /// make it another build than its label says).
    pub fn rustflags(&self) -> String {
        let mut flags = Vec::new();
        if self.portable {
            flags.push(r#"--cfg wegman_backend="portable" --cfg aes_backend="soft""#);
        }
        flags.join(" ")
    }

    /// `target/ctgrind/<label>` (under `$CARGO_TARGET_DIR` if set), the
    /// leaky run's the clean run's.
    pub fn target_dir(&self) -> PathBuf {
        let clean = Build { leak: false, ..*self };
        ctgrind_dir().join(clean.label().to_lowercase().replace(' ', "-"))
    }

    /// Build the Rust API harness; returns the executable.
    pub fn build(&self) -> Result<PathBuf, String> {
        self.build_bin("ctgrind")
    }

    /// Build the harness `bin` of this crate (`ctgrind`, or the command
    /// line's `ctgrind_keys`) in this build's target directory, which the
    /// harnesses share; returns the executable.
    pub fn build_bin(&self, bin: &str) -> Result<PathBuf, String> {
        let dir = self.target_dir();
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.args(["build", "--quiet", "--locked", "--release", "-p", "wegman-ctgrind", "--bin", bin])
            .arg("--target-dir")
            .arg(&dir)
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", self.opt_level.to_string())
            .env("CARGO_PROFILE_RELEASE_DEBUG", "limited")
            .env("RUSTFLAGS", self.rustflags())
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .current_dir(workspace_dir());
        let st = cmd.status().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
        if !st.success() {
            return Err(format!("{cmd:?} failed ({st})"));
        }
        Ok(dir.join("release").join(bin))
    }

    /// Run the harness under memcheck with `ctgrind.supp`.
    pub fn run(&self, exe: &Path, quick: bool) -> Run {
        let supp = crate_dir().join("ctgrind.supp");
        let mut args = Vec::new();
        if quick {
            args.push("--quick");
        }
        if self.leak {
            args.push("--leaky");
        }
        memcheck::run(exe, &args, &[&supp])
    }

    /// What is wrong with `run` for this build (nothing: as expected).
    pub fn judge(&self, run: &Run) -> Vec<String> {
        let r = &run.report;
        let mut problems = Vec::new();
        let last = run.stdout.lines().rev().find(|l| l.starts_with("ctgrind: ") && l.contains(" passed, "));
        match last {
            Some(l) if l.ends_with(" passed, 0 failed") && !l.starts_with("ctgrind: 0 passed") => {}
            _ => problems.push(format!("the harness's checks did not all pass: {last:?}")),
        }
        if r.uses(VERDICT_SUPPRESSION) == 0 {
            problems.push(format!("{VERDICT_SUPPRESSION} unused: CWC decryption never acted on a secret verdict"));
        }
        if !self.leak {
            if !r.is_clean() {
                problems.push(format!("memcheck: {} errors in {}", r.errors, r.functions().join(", ")));
            }
            if run.status.code() != Some(0) {
                problems.push(format!("exit status {}", run.status));
            }
            return problems;
        }
        if r.errors == 0 {
            problems.push("the leaky control was not flagged".into());
        }
        if r.functions().iter().any(|f| *f != LEAK_FUNCTION) {
            problems.push(format!("flagged outside {LEAK_FUNCTION}: {}", r.functions().join(", ")));
        }
        for (section, errors) in sections(&run.stdout) {
            if errors == 0 {
                problems.push(format!("the leak was not reached in {section}"));
            }
        }
        for family in FAMILIES {
            if !sections(&run.stdout).iter().any(|(s, _)| s.split(' ').next() == Some(family)) {
                problems.push(format!("no {family} section ran"));
            }
        }
        if run.status.code() != Some(ERROR_EXIT) {
            problems.push(format!("exit status {}, not valgrind's {ERROR_EXIT}", run.status));
        }
        problems
    }
}

/// The harness's `ctgrind: section <family> <level>: N memcheck errors`.
pub fn sections(stdout: &str) -> Vec<(String, u64)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("ctgrind: section "))
        .filter_map(|l| {
            let (name, rest) = l.split_once(": ")?;
            Some((name.to_owned(), rest.split(' ').next()?.parse().ok()?))
        })
        .collect()
}

/// The backends a run exercised, from the harness's `ctgrind: backends`
/// lines: `poly1305aes: portable, avx2; mmh: …`.
pub fn backends(stdout: &str) -> String {
    let lines: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("ctgrind: backends ")).collect();
    lines.join("; ")
}

/// This crate's directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's directory.
pub fn workspace_dir() -> PathBuf {
    let dir = crate_dir().join("../..");
    dir.canonicalize().unwrap_or(dir)
}

/// Where the ctgrind builds go: `target/ctgrind` (under `$CARGO_TARGET_DIR`
/// if set).
pub fn ctgrind_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace_dir().join("target"), PathBuf::from);
    std::path::absolute(&target).unwrap_or(target).join("ctgrind")
}
