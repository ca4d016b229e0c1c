//! Helpers shared by the C-side tests: where things are, running commands,
//! and the release C library as a C user builds it.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

/// What a Rust staticlib needs from the C library on Linux.
pub const LINK_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn include_dir() -> PathBuf {
    crate_dir().join("include")
}

pub fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The C library as a C user gets it: `cargo build --release -p wegman-capi`
/// (run once per test process, with the cargo running this test, into the
/// workspace's target directory). Cargo's own report names the artifacts,
/// so a stale file from another profile is never picked up.
pub struct Libs {
    pub staticlib: PathBuf,
    pub cdylib: PathBuf,
}

pub fn libs() -> &'static Libs {
    static LIBS: OnceLock<Libs> = OnceLock::new();
    LIBS.get_or_init(|| {
        let stdout = run(Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "wegman-capi", "--message-format=json-render-diagnostics"])
            .arg("--manifest-path")
            .arg(crate_dir().join("Cargo.toml")));
        let files: Vec<PathBuf> = stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "wegman_c")
            .flat_map(|msg| msg["filenames"].as_array().cloned().unwrap_or_default())
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .collect();
        let find = |ext: &str| {
            let path = files
                .iter()
                .find(|f| f.extension().is_some_and(|e| e == ext))
                .unwrap_or_else(|| panic!("cargo reported no .{ext} for wegman_c: {files:?}"))
                .clone();
            assert!(path.is_file(), "{} is missing", path.display());
            path
        };
        Libs { staticlib: find("a"), cdylib: find("so") }
    })
}

pub fn tool(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

/// Run `cmd`, panicking with its output unless it succeeds; returns stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
