//! `wegman tag --keep-state` and `wegman patch` (issue 22): an edit
//! re-tagged from the kept state passes `check`, many times in a row; a
//! stale, altered or misplaced state is refused and changes nothing.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn wegman(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wegman")).args(args).current_dir(dir).stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: Output) -> Output {
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    out
}

/// A key, a 1 MiB + 5 file and a small one, tagged with their states kept.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(wegman(d, &["keygen", "-o", "key"]));
    std::fs::write(d.join("big"), (0..(1 << 20) + 5).map(|i| (i * 7) as u8).collect::<Vec<u8>>()).unwrap();
    std::fs::write(d.join("small"), b"a small file\n").unwrap();
    let out = ok(wegman(d, &["tag", "-k", "key", "--keep-state", "st", "big", "small"]));
    std::fs::write(d.join("m"), out.stdout).unwrap();
    dir
}

fn patch(d: &Path, manifest: &str, offset: &str, hex: &str, file: &str) -> Output {
    wegman(
        d,
        &["patch", "-k", "key", "--state", "st", "--manifest", manifest, "--offset", offset, "--data-hex", hex, file],
    )
}

#[test]
fn edits_in_a_row_pass_check_and_the_old_manifest_fails() {
    let dir = setup();
    let d = dir.path();
    let mut manifest = "m".to_string();
    // At the start, across a block boundary, in the final partial block,
    // the last byte, and in the small file.
    for (i, (offset, hex, file)) in [
        ("0", "ff", "big"),
        ("4094", "0102030405", "big"),
        ("1048576", "aabbccdd", "big"),
        ("1048580", "00", "big"),
        ("2", "5a5a", "small"),
    ]
    .into_iter()
    .enumerate()
    {
        let out = ok(patch(d, &manifest, offset, hex, file));
        let next = format!("m{i}");
        std::fs::write(d.join(&next), &out.stdout).unwrap();
        let check = ok(wegman(d, &["check", "-k", "key", &next]));
        assert_eq!(text(&check.stdout), "big: OK\nsmall: OK\n");
        manifest = next;
    }
    let old = wegman(d, &["check", "-k", "key", "m"]);
    assert_eq!(old.status.code(), Some(1));
    assert_eq!(text(&old.stdout), "big: FAILED\nsmall: FAILED\n");
}

#[test]
fn stale_altered_or_misplaced_states_are_refused_and_change_nothing() {
    use wegman_store::incremental::state_path;
    let dir = setup();
    let d = dir.path();
    // A patch with the manifest it was made for; then everything below is refused.
    let out = ok(patch(d, "m", "10", "00", "big"));
    std::fs::write(d.join("m2"), &out.stdout).unwrap();
    let before = std::fs::read(d.join("big")).unwrap();
    let refused = |out: Output, what: &str| {
        assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{what}: printed a manifest");
        assert_eq!(std::fs::read(d.join("big")).unwrap(), before, "{what}: the file changed");
        text(&out.stderr)
    };
    // The old manifest again: its line is not the state's.
    assert!(refused(patch(d, "m", "20", "00", "big"), "old manifest").contains("stale"));
    // Past the end; no line for the file.
    assert!(refused(patch(d, "m2", "1048580", "0000", "big"), "past the end").contains("do not lie within"));
    std::fs::write(d.join("other"), b"x").unwrap();
    assert!(refused(patch(d, "m2", "0", "00", "other"), "no line").contains("no line"));
    // The state altered anywhere in its sealed part, or in its clear header.
    let big_state = state_path(&d.join("st"), "big");
    let good = std::fs::read(&big_state).unwrap();
    for at in [0, 9, 30, 45, 50, 60, 100, 130] {
        let mut bad = good.clone();
        bad[at] ^= 1;
        std::fs::write(&big_state, &bad).unwrap();
        refused(patch(d, "m2", "30", "11", "big"), &format!("state byte {at} altered"));
    }
    // The small file's state in the big one's place.
    std::fs::copy(state_path(&d.join("st"), "small"), &big_state).unwrap();
    refused(patch(d, "m2", "30", "11", "big"), "another file's state");
    std::fs::write(&big_state, &good).unwrap();
    // The file's length changed by something other than `patch`.
    let mut grown = before.clone();
    grown.push(0);
    std::fs::write(d.join("big"), &grown).unwrap();
    let out = patch(d, "m2", "0", "00", "big");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("stale"), "{}", text(&out.stderr));
    // Back as it was, the state still works.
    std::fs::write(d.join("big"), &before).unwrap();
    let out = ok(patch(d, "m2", "0", "00", "big"));
    std::fs::write(d.join("m3"), &out.stdout).unwrap();
    ok(wegman(d, &["check", "-k", "key", "m3"]));
}

#[test]
fn keep_state_needs_a_poly1305_aes_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(wegman(d, &["keygen", "-o", "mk", "--alg", "mmh64"]));
    std::fs::write(d.join("f"), b"x").unwrap();
    let out = wegman(d, &["tag", "-k", "mk", "--keep-state", "st", "f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--keep-state needs a Poly1305-AES key"), "{}", text(&out.stderr));
}
