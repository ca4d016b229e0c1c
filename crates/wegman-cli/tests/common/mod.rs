//! Helpers shared by the nonce-store campaigns (`nonce_kill.rs`,
//! `nonce_faults.rs`).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The nonces of the complete lines of `wegman tag`'s output: a line cut
/// short by a kill was never handed out.
pub fn printed_nonces(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|line| line.split("nonce=").nth(1).map(|t| t[..32].to_string()).expect("manifest line"))
        .collect()
}

/// The deliberately broken store (the dev-only crate `tools/nonce-controls`:
/// the naive in-memory counter written in place, behind `wegman keygen` and
/// `wegman tag`): `examples/broken_store.rs`, which `cargo test` builds with
/// the other targets; a test run on its own (`--test nonce_kill`) builds it
/// into a target directory of its own (the running `cargo test` holds the
/// workspace's). Returns its binary.
pub fn broken_binary() -> PathBuf {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/
    let exe = std::env::current_exe().expect("the test's own path");
    if let Some(built) = exe.parent().and_then(|deps| deps.parent()).map(|p| p.join("examples/broken_store"))
        && built.is_file()
    {
        return built;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| root.join("target"));
    let target = target.join("nonce-controls");
    let st = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "wegman-cli", "--example", "broken_store", "--target-dir"])
        .arg(&target)
        .current_dir(&root)
        .status()
        .expect("run cargo");
    assert!(st.success(), "building the broken store failed");
    target.join("debug/examples/broken_store")
}
