//! `wegman tag --keep-state` and `wegman patch`: an edit re-tagged from the
//! kept state passes `check`, many times in a row; a stale, altered or
//! misplaced state is refused and changes nothing; and the adversary of
//! docs/security.md (who writes the data files and the manifests, not the
//! key, its nonce store or the state directory) gets nothing through
//! `check` that the key holder did not write: bytes changed before a patch
//! (the review's `old − D` and chosen-content attacks, and a writer racing
//! the patch at random times), a manifest with a line dropped or replayed or
//! no seal, a file cut short before an append.

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

/// What a refused patch must leave: exit 2, no manifest printed, the file
/// as it was; its message.
fn refused_untouched(d: &Path, file: &str, out: Output, what: &str) -> String {
    let before = std::fs::read(d.join(file)).unwrap();
    assert_eq!(out.status.code(), Some(2), "{what}: {}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.stdout.is_empty(), "{what}: printed a manifest");
    assert_eq!(std::fs::read(d.join(file)).unwrap(), before, "{what}: the file changed");
    text(&out.stderr)
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

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn block_at(data: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(data[at..at + 16].try_into().unwrap())
}

/// The review's attack, exactly: the attacker writes X = old − D into the
/// 16-byte block just before the key holder patches it with NEW; a patch
/// that believed the bytes it read made a tag for NEW + D, which the
/// attacker then writes, and `check` said OK. Then the chosen-content
/// variant (NEW known, X = old + NEW − EVIL, then EVIL). Now the patch
/// refuses (the run read is not the state's), nothing is written, and the
/// attacker's content fails `check` under every manifest there is.
#[test]
fn bytes_changed_before_a_patch_are_refused_and_never_pass_check() {
    let dir = setup();
    let d = dir.path();
    let original = std::fs::read(d.join("big")).unwrap();
    let new = *b"NEW-CONTENT-16B!";
    let evil = *b"EVIL-CONTENT-16B";
    // The name's prefix (1 + 8 + 3 bytes for "big") puts message blocks at
    // file offsets 4 mod 16: the attack works block by block.
    let chosen = (700_004..).step_by(16).find(|&at| {
        block_at(&original, at)
            .checked_add(u128::from_le_bytes(new))
            .and_then(|v| v.checked_sub(u128::from_le_bytes(evil)))
            .is_some()
    });
    for (case, at) in [("old - D", 4100usize), ("chosen content", chosen.unwrap())] {
        let old = block_at(&original, at);
        let (x, last) = if case == "old - D" {
            (old.checked_sub(1).unwrap(), u128::from_le_bytes(new).checked_add(1).unwrap())
        } else {
            let x = old.checked_add(u128::from_le_bytes(new)).and_then(|v| v.checked_sub(u128::from_le_bytes(evil)));
            (x.expect("no wrap at this offset"), u128::from_le_bytes(evil))
        };
        let mut attacked = original.clone();
        attacked[at..at + 16].copy_from_slice(&x.to_le_bytes());
        std::fs::write(d.join("big"), &attacked).unwrap();
        let out = patch(d, "m", &at.to_string(), &hex(&new), "big");
        let patched_ok = out.status.code() == Some(0);
        if patched_ok {
            std::fs::write(d.join("m-attacked"), &out.stdout).unwrap();
        } else {
            let msg = refused_untouched(d, "big", out, case);
            assert!(msg.contains("not the ones it was tagged with"), "{case}: {msg}");
        }
        // The attacker's final content, under the old and (if any) new manifest.
        let mut fin = attacked.clone();
        fin[at..at + 16].copy_from_slice(&last.to_le_bytes());
        std::fs::write(d.join("big"), &fin).unwrap();
        for m in ["m", "m-attacked"].into_iter().filter(|m| d.join(m).exists()) {
            let check = wegman(d, &["check", "-k", "key", m]);
            assert!(text(&check.stdout).contains("big: FAILED"), "{case}: {m}: {}", text(&check.stdout));
        }
        assert!(!patched_ok, "{case}: the patch was accepted");
        std::fs::write(d.join("big"), &original).unwrap();
    }
    // Untouched again, the state still serves.
    let out = ok(patch(d, "m", "4100", &hex(&new), "big"));
    std::fs::write(d.join("m2"), &out.stdout).unwrap();
    ok(wegman(d, &["check", "-k", "key", "m2"]));
}

/// A writer changes bytes of the file at random times while `patch` runs
/// (inside the edited run, in it but outside the edit, in the run after):
/// whatever the interleaving, each manifest that `check` passes vouches for
/// exactly the content the key holder meant — the original for the old
/// manifest, the original with the edit for the new one.
#[test]
fn a_writer_racing_the_patch_never_gets_its_bytes_through_check() {
    use rand::{Rng, SeedableRng};
    use std::os::unix::fs::FileExt;
    let dir = setup();
    let d = dir.path();
    let original = std::fs::read(d.join("big")).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x33);
    let (at, new) = (200_000usize, [0x5au8; 32]);
    let mut intended = original.clone();
    intended[at..at + 32].copy_from_slice(&new);
    let rounds = 24;
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..rounds {
        std::fs::write(d.join("big"), &original).unwrap();
        let out = ok(wegman(d, &["tag", "-k", "key", "--keep-state", "st", "big", "small"]));
        std::fs::write(d.join("m"), &out.stdout).unwrap();
        let delay = std::time::Duration::from_micros(rng.random_range(0..6000));
        let pos = [at + rng.random_range(0..32), 196_608 + rng.random_range(0..65_536), 262_144 + 100][round % 3];
        let junk: u8 = rng.random();
        let path = d.join("big");
        let writer = std::thread::spawn(move || {
            std::thread::sleep(delay);
            let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            f.write_all_at(&[junk, junk ^ 0x81], pos as u64).unwrap();
        });
        let out = patch(d, "m", &at.to_string(), &hex(&new), "big");
        writer.join().unwrap();
        let new_manifest = out.status.code() == Some(0);
        if new_manifest {
            accepted += 1;
            std::fs::write(d.join("m-new"), &out.stdout).unwrap();
        } else {
            refused += 1;
            assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
            let _ = std::fs::remove_file(d.join("m-new"));
        }
        let content = std::fs::read(d.join("big")).unwrap();
        for (m, meant) in [("m", &original), ("m-new", &intended)] {
            if !d.join(m).exists() {
                continue;
            }
            let check = wegman(d, &["check", "-k", "key", m]);
            if text(&check.stdout).contains("big: OK") {
                assert!(&content == meant, "round {round}: {m} passed check for content the key holder did not write");
            }
        }
    }
    eprintln!("{rounds} rounds: {accepted} patches accepted, {refused} refused");
}

/// `patch` re-seals only a manifest whose seal verifies: one with a line
/// dropped, an older genuine line spliced in, the seal removed or changed,
/// or a line after the seal, is refused with nothing written.
#[test]
fn manifests_that_are_not_sealed_as_made_are_refused() {
    let dir = setup();
    let d = dir.path();
    let m = text(&std::fs::read(d.join("m")).unwrap());
    // An older genuine line for big: from a patch, then the state back.
    let out = ok(patch(d, "m", "0", "01", "big"));
    let m2 = text(&out.stdout);
    let lines: Vec<&str> = m2.lines().collect();
    assert_eq!(lines.len(), 3, "{m2}");
    let old_lines: Vec<&str> = m.lines().collect();
    let seal = lines[2];
    let cases = [
        ("a line dropped", format!("{}\n{seal}\n", lines[0])),
        ("an older line replayed", format!("{}\n{}\n{seal}\n", old_lines[0], lines[1])),
        ("no seal", format!("{}\n{}\n", lines[0], lines[1])),
        ("the seal changed", format!("{}\n{}\n{}\n", lines[0], lines[1], seal.replace("lines=2", "lines=1"))),
        ("a line after the seal", format!("{m2}{}\n", lines[0])),
        ("the seal of the old manifest", format!("{}\n{}\n{}\n", lines[0], lines[1], old_lines[2])),
    ];
    for (what, manifest) in cases {
        std::fs::write(d.join("hostile"), &manifest).unwrap();
        let msg = refused_untouched(d, "big", patch(d, "hostile", "5", "02", "big"), what);
        assert!(msg.contains("seal") || msg.contains("line"), "{what}: {msg}");
    }
    // The genuine manifest still works.
    std::fs::write(d.join("m2"), &m2).unwrap();
    let out = ok(patch(d, "m2", "5", "02", "big"));
    std::fs::write(d.join("m3"), &out.stdout).unwrap();
    ok(wegman(d, &["check", "-k", "key", "m3"]));
}

/// A file that grows (a log) is re-tagged reading only what it grew by and
/// the run before; one cut short, or changed in the run holding its old
/// end, is refused; one changed further back gets a tag `check` fails.
#[test]
fn appends_are_re_tagged_and_shrunk_or_changed_files_refused() {
    let dir = setup();
    let d = dir.path();
    let append = |m: &str| wegman(d, &["patch", "-k", "key", "--state", "st", "--manifest", m, "--append", "big"]);
    let mut data = std::fs::read(d.join("big")).unwrap();
    let mut manifest = "m".to_string();
    for (i, more) in [0usize, 1, 11, 16, 65_536, 100_003].into_iter().enumerate() {
        data.extend((0..more).map(|j| (j * 13 + i) as u8));
        std::fs::write(d.join("big"), &data).unwrap();
        let out = ok(append(&manifest));
        manifest = format!("ma{i}");
        std::fs::write(d.join(&manifest), &out.stdout).unwrap();
        let check = ok(wegman(d, &["check", "-k", "key", &manifest]));
        assert_eq!(text(&check.stdout), "big: OK\nsmall: OK\n", "append of {more}");
    }
    // Cut short: refused.
    std::fs::write(d.join("big"), &data[..data.len() - 1]).unwrap();
    assert!(refused_untouched(d, "big", append(&manifest), "shrunk").contains("shorter"));
    // Changed in the run holding the old end, then grown: refused.
    let mut changed = data.clone();
    *changed.last_mut().unwrap() ^= 1;
    changed.extend_from_slice(b"more");
    std::fs::write(d.join("big"), &changed).unwrap();
    assert!(refused_untouched(d, "big", append(&manifest), "changed at the end").contains("not the ones"));
    // Changed far back, then grown: the append goes through, `check` fails.
    let mut changed = data.clone();
    changed[10] ^= 1;
    changed.extend_from_slice(b"more");
    std::fs::write(d.join("big"), &changed).unwrap();
    let out = ok(append(&manifest));
    std::fs::write(d.join("mx"), &out.stdout).unwrap();
    let check = wegman(d, &["check", "-k", "key", "mx"]);
    assert_eq!(text(&check.stdout), "big: FAILED\nsmall: OK\n");
}

/// A state of the format before runs were kept cannot check what it
/// replaces: refused, with the way out named.
#[test]
fn states_of_the_old_format_are_refused() {
    use wegman_store::incremental::state_path;
    let dir = setup();
    let d = dir.path();
    let path = state_path(&d.join("st"), "big");
    let mut old = b"WGSTATE1".to_vec();
    old.extend_from_slice(&std::fs::read(&path).unwrap()[8..]);
    std::fs::write(&path, &old).unwrap();
    let msg = refused_untouched(d, "big", patch(d, "m", "0", "00", "big"), "old format");
    assert!(msg.contains("older wegman") && msg.contains("--keep-state"), "{msg}");
}

/// The file named in the manifest replaced by a symbolic link (to another
/// tagged file with the same bytes, say): `patch` does not follow it, so it
/// never writes into a file the manifest does not name.
#[test]
fn a_file_replaced_by_a_link_is_not_followed() {
    let dir = setup();
    let d = dir.path();
    std::fs::copy(d.join("big"), d.join("twin")).unwrap();
    std::fs::remove_file(d.join("big")).unwrap();
    std::os::unix::fs::symlink("twin", d.join("big")).unwrap();
    let before = std::fs::read(d.join("twin")).unwrap();
    let out = patch(d, "m", "10", "00", "big");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(d.join("twin")).unwrap(), before, "patch wrote through the link");
    let out = wegman(d, &["patch", "-k", "key", "--state", "st", "--manifest", "m", "--append", "big"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
