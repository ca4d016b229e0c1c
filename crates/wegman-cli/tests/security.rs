//! Regression tests for wegman's security review: each test replays
//! one attack or careless use through the `wegman` binary and fails on the
//! code the review found it in. The finding's number is in the test's name.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A temporary directory with a fresh Poly1305-AES key file `key`.
struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Self {
        let d = Dir { dir: tempfile::tempdir().unwrap() };
        d.ok(&["keygen", "-o", "key"]);
        d
    }
    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = wegman();
        c.args(args).current_dir(self.dir.path()).stdin(Stdio::null());
        c
    }
    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }
    fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert_eq!(out.status.code(), Some(0), "wegman {args:?}: {}", text(&out.stderr));
        out
    }
    fn write(&self, p: &str, data: &[u8]) {
        std::fs::write(self.path(p), data).unwrap();
    }
}

/// The nonces of every manifest line (file lines and seals).
fn nonces(manifest: &[u8]) -> Vec<String> {
    text(manifest).lines().filter_map(|l| l.split("nonce=").nth(1)).map(|t| t[..32].to_string()).collect()
}

fn assert_unique(all: &[String]) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in all {
        *count.entry(n).or_default() += 1;
    }
    let repeated: Vec<_> = count.iter().filter(|&(_, &c)| c > 1).collect();
    assert!(repeated.is_empty(), "nonces used twice: {repeated:?} (all: {all:?})");
}

fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !cond() {
        assert!(t0.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

#[test]
fn finding_1_removing_the_lock_file_cannot_make_a_nonce_repeat() {
    // The review's reproduction: A = `tag --nonce-reserve 3` on a FIFO,
    // `rm KEY.nonce.lock`, B = `tag` one file, feed the FIFO, then `tag`
    // three files.
    let d = Dir::new();
    for f in ["b", "c1", "c2", "c3"] {
        d.write(f, f.as_bytes());
    }
    mkfifo(&d.path("fifo"));
    let a = d
        .cmd(&["tag", "-k", "key", "--nonce-reserve", "3", "fifo"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A has reserved its block once the state's safe nonce is 3 (in
    // generation 2: keygen made generation 1)
    wait_for("A's reservation", || {
        std::fs::read_to_string(d.path("key.nonce.2")).is_ok_and(|s| s.contains("safe 03000000"))
    });
    std::fs::remove_file(d.path("key.nonce.lock")).unwrap();
    let b = d.ok(&["tag", "-k", "key", "b"]);
    std::fs::OpenOptions::new().write(true).open(d.path("fifo")).unwrap().write_all(b"fifo data").unwrap();
    let a = a.wait_with_output().unwrap();
    let c = d.ok(&["tag", "-k", "key", "c1", "c2", "c3"]);
    let all: Vec<String> = [&a.stdout, &b.stdout, &c.stdout].into_iter().flat_map(|o| nonces(o)).collect();
    assert_unique(&all);
    assert_eq!(all.len(), 2 + 2 + 4);
    // A's lines are fine (their nonces were reserved on disk), and it does
    // not give its block back over B's generation: the rest is skipped.
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
}

#[test]
fn finding_2_a_key_renamed_onto_another_keys_state_is_refused() {
    let d = Dir::new();
    d.ok(&["keygen", "-o", "b.key"]);
    d.write("f", b"data");
    let first = d.ok(&["tag", "-k", "key", "f"]);
    d.ok(&["tag", "-k", "b.key", "f"]);
    // `mv key b.key` over the other key, whose state stays behind
    std::fs::rename(d.path("key"), d.path("b.key")).unwrap();
    let out = d.run(&["tag", "-k", "b.key", "f"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("belongs to another key"), "{}", text(&out.stderr));
    // moving its state (the base and its generation files) along makes it
    // usable again, continuing its count
    let names = || std::fs::read_dir(d.path(".")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap());
    for name in names().filter(|n| n.starts_with("b.key.nonce")) {
        std::fs::remove_file(d.path(&name)).unwrap();
    }
    for name in names().filter(|n| n.starts_with("key.nonce")) {
        std::fs::rename(d.path(&name), d.path(&format!("b.{name}"))).unwrap();
    }
    let again = d.ok(&["tag", "-k", "b.key", "f"]);
    assert_unique(&[nonces(&first.stdout), nonces(&again.stdout)].concat());
}

#[test]
fn finding_2_an_edited_or_old_format_state_is_refused() {
    let d = Dir::new();
    d.write("f", b"data");
    d.ok(&["tag", "-k", "key", "f"]);
    // the current generation (the highest of key.nonce.<g>)
    let top = (1..100).rev().find(|g| d.path(&format!("key.nonce.{g}")).exists()).unwrap();
    let current = format!("key.nonce.{top}");
    let good = std::fs::read_to_string(d.path(&current)).unwrap();
    // rolled back by hand: the HMAC no longer matches
    let safe = good.lines().find(|l| l.starts_with("safe ")).unwrap();
    d.write(&current, good.replace(safe, "safe 00000000000000000000000000000000").as_bytes());
    let out = d.run(&["tag", "-k", "key", "f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("authentication code does not match"), "{}", text(&out.stderr));
    // the unbound format of earlier versions: refused until adopted
    d.write(&current, good.as_bytes());
    d.write("key.nonce", b"wegman-nonce-state v1\nsafe 05000000000000000000000000000000\ncrc32 496a60d2\n");
    let out = d.run(&["tag", "-k", "key", "f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--adopt-nonce-state"), "{}", text(&out.stderr));
    let out = d.ok(&["tag", "-k", "key", "--adopt-nonce-state", "f"]);
    assert!(nonces(&out.stdout).iter().all(|n| n.as_str() >= "05"), "{}", text(&out.stdout));
}

#[test]
fn finding_3_a_file_checked_under_another_name_or_a_dropped_line_fails() {
    // The review's attack: copy example.conf over policy.conf, rename the
    // manifest line's name, delete the other line.
    let d = Dir::new();
    d.write("example.conf", b"harmless example\n");
    d.write("policy.conf", b"deny all\n");
    let m = text(&d.ok(&["tag", "-k", "key", "example.conf", "policy.conf"]).stdout);
    d.write("M", m.as_bytes());
    assert_eq!(text(&d.ok(&["check", "-k", "key", "M"]).stdout), "example.conf: OK\npolicy.conf: OK\n");
    std::fs::copy(d.path("example.conf"), d.path("policy.conf")).unwrap();
    let lines: Vec<&str> = m.lines().collect();
    let renamed = lines[0].replace("(example.conf)", "(policy.conf)");
    let seal = lines.last().unwrap();
    // the name is authenticated: the renamed line fails even with its seal gone
    for forged in [format!("{renamed}\n"), format!("{renamed}\n{seal}\n")] {
        d.write("F", forged.as_bytes());
        // (without a valid seal no listed file is even opened)
        let out = d.run(&["check", "-k", "key", "F"]);
        assert_eq!(out.status.code(), Some(1), "{forged}");
        assert_eq!(text(&out.stdout), "");
        let out = d.run(&["check", "-k", "key", "--allow-unsealed", "F"]);
        assert_eq!(out.status.code(), Some(1), "{forged}");
        if !forged.contains("MANIFEST") {
            assert_eq!(text(&out.stdout), "policy.conf: FAILED\n");
        }
    }
    // dropping, reordering or duplicating lines breaks the seal
    std::fs::write(d.path("policy.conf"), b"deny all\n").unwrap();
    for forged in [
        format!("{}\n{}\n", lines[0], lines[2]),
        format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]),
        format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[1], lines[2]),
    ] {
        d.write("F", forged.as_bytes());
        let out = d.run(&["check", "-k", "key", "F"]);
        assert_eq!(out.status.code(), Some(1), "{forged}");
        assert!(text(&out.stderr).contains("the seal does NOT verify"), "{}", text(&out.stderr));
    }
    // no seal at all: fails unless told otherwise
    d.write("F", format!("{}\n{}\n", lines[0], lines[1]).as_bytes());
    let out = d.run(&["check", "-k", "key", "F"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no seal line"), "{}", text(&out.stderr));
    assert_eq!(d.run(&["check", "-k", "key", "--allow-unsealed", "F"]).status.code(), Some(0));
    // a line after the seal is not covered by it: malformed
    d.write("F", format!("{m}{}\n", lines[0]).as_bytes());
    assert_eq!(d.run(&["check", "-k", "key", "F"]).status.code(), Some(2));
}

#[test]
fn finding_3_old_manifest_lines_are_still_read_with_a_warning() {
    let d = Dir::new();
    d.write("a", b"alpha");
    // A version-1 line: its tag covers the content only, under nonce 7.
    let key = std::fs::read_to_string(d.path("key")).unwrap();
    let hex = key.lines().find_map(|l| l.strip_prefix("key ")).unwrap().to_string();
    let nonce = format!("07{}", "0".repeat(30));
    let tag = d.ok(&["mac", "poly1305aes", "--key-hex", &hex, "--nonce-hex", &nonce, "a"]);
    let line = format!("POLY1305-AES (a) nonce={nonce} = {}", text(&tag.stdout).trim());
    d.write("OLD", format!("{line}\n").as_bytes());
    let out = d.run(&["check", "-k", "key", "--allow-unsealed", "OLD"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "a: OK\n");
    assert!(text(&out.stderr).contains("old format (version 1)"), "{}", text(&out.stderr));
}

#[test]
fn finding_4_mac_with_a_managed_key_file_refuses_an_explicit_nonce() {
    let d = Dir::new();
    d.write("f", b"data");
    let used = nonces(&d.ok(&["tag", "-k", "key", "f"]).stdout);
    let out = d.run(&["mac", "poly1305aes", "--key-file", "key", "--nonce-hex", &used[0], "f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("--caller-manages-nonces"), "{}", text(&out.stderr));
    let state = std::fs::read(d.path("key.nonce")).unwrap();
    // the caller may take the responsibility explicitly; verify needs no flag
    let tag =
        d.ok(&["mac", "poly1305aes", "--caller-manages-nonces", "--key-file", "key", "--nonce-hex", &used[0], "f"]);
    let tag = text(&tag.stdout);
    d.ok(&["verify", "poly1305aes", "--key-file", "key", "--nonce-hex", &used[0], "--tag-hex", tag.trim(), "f"]);
    assert_eq!(std::fs::read(d.path("key.nonce")).unwrap(), state, "mac and verify never touch the store");
    // a bare hex key file has no store: explicit nonces are the only kind
    let key = std::fs::read_to_string(d.path("key")).unwrap();
    d.write("raw", key.lines().find_map(|l| l.strip_prefix("key ")).unwrap().as_bytes());
    assert_eq!(text(&d.ok(&["mac", "poly1305aes", "--key-file", "raw", "--nonce-hex", &used[0], "f"]).stdout), tag);
}

#[test]
fn finding_5_selftest_never_uses_a_planted_directory() {
    // Plant a symbolic link at the path the old selftest used
    // (TMPDIR/wegman-selftest-PID) before the process starts working: the
    // shell's PID is the PID `exec` keeps.
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("victim-dir");
    std::fs::create_dir(&target).unwrap();
    let mut child = Command::new("sh")
        .args(["-c", "read go && exec \"$0\" selftest", env!("CARGO_BIN_EXE_wegman")])
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let link = tmp.path().join(format!("wegman-selftest-{}", child.id()));
    std::os::unix::fs::symlink(&target, &link).unwrap();
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0, "selftest wrote through the planted link");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    // and it cleaned up after itself: only the planted entries remain
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 2);
}

/// Standard output that fails: a full device, or a pipe nobody reads.
fn broken_stdouts() -> Vec<(&'static str, Stdio)> {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    vec![("/dev/full", Stdio::from(full)), ("a closed pipe", Stdio::from(writer))]
}

#[test]
fn finding_6_a_full_or_closed_stdout_is_an_error_not_a_panic() {
    let d = Dir::new();
    d.write("f", b"data");
    let m = d.ok(&["tag", "-k", "key", "f"]);
    d.write("M", &m.stdout);
    let key = "00".repeat(32);
    let zero = "0".repeat(32);
    let commands: Vec<Vec<&str>> = vec![
        vec!["mac", "poly1305aes", "--key-hex", &key, "--nonce-hex", &zero, "f"],
        vec!["mac", "mmh32", "--key-hex", &key, "--nonce-hex", &zero, "f"],
        vec!["tag", "-k", "key", "f"],
        vec!["check", "-k", "key", "M"],
        vec!["seal", "cwc", "--key-hex", &key, "--nonce-hex", &zero[..22], "f"],
        vec!["selftest"],
        vec!["--help"],
        vec!["--version"],
    ];
    for args in &commands {
        for (what, stdout) in broken_stdouts() {
            let out = d.cmd(args).stdout(stdout).stderr(Stdio::piped()).output().unwrap();
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "wegman {args:?} > {what}: {err}");
            assert!(!err.contains("panicked"), "wegman {args:?} > {what}: {err}");
            if what == "/dev/full" {
                assert!(err.contains("No space left on device"), "wegman {args:?} > {what}: {err}");
            } else {
                assert_eq!(err, "", "wegman {args:?} > {what}: a closed pipe ends quietly");
            }
        }
    }
    // a failing stderr is no reason to panic either: the exit status still tells
    let full = || Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
    let bad_tag = "1".repeat(32);
    let out = d
        .cmd(&["verify", "poly1305aes", "--key-hex", &key, "--nonce-hex", &zero, "--tag-hex", &bad_tag, "f"])
        .stderr(full())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = d.cmd(&["tag", "-k", "key", "missing"]).stderr(full()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn finding_7_seal_and_open_never_replace_special_files() {
    let d = Dir::new();
    d.write("pt", b"plain text");
    let key = "11".repeat(16);
    let nonce = "22".repeat(11);
    let sealed = d.ok(&["seal", "cwc", "--key-hex", &key, "--nonce-hex", &nonce, "pt", "-o", "ct"]);
    assert!(sealed.stdout.is_empty());
    mkfifo(&d.path("fifo"));
    d.write("real", b"keep me");
    std::os::unix::fs::symlink("real", d.path("link")).unwrap();
    std::os::unix::fs::symlink("/proc/self/fd/1", d.path("fd1")).unwrap();
    std::fs::create_dir(d.path("dir")).unwrap();
    for (cmd, input) in [("seal", "pt"), ("open", "ct")] {
        for out in ["fifo", "link", "fd1", "dir", "/dev/null"] {
            let o = d.run(&[cmd, "cwc", "--key-hex", &key, "--nonce-hex", &nonce, input, "-o", out]);
            assert_eq!(o.status.code(), Some(2), "{cmd} -o {out}: {}", text(&o.stderr));
            assert!(text(&o.stderr).contains("standard output"), "{cmd} -o {out}: {}", text(&o.stderr));
        }
    }
    assert!(std::fs::symlink_metadata(d.path("fifo")).unwrap().file_type().is_fifo_like());
    assert!(std::fs::symlink_metadata(d.path("link")).unwrap().file_type().is_symlink());
    assert!(std::fs::symlink_metadata(d.path("fd1")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(d.path("real")).unwrap(), b"keep me");
    // a regular file is still replaced, as before
    d.write("out", b"old");
    d.ok(&["open", "cwc", "--key-hex", &key, "--nonce-hex", &nonce, "ct", "-o", "out"]);
    assert_eq!(std::fs::read(d.path("out")).unwrap(), b"plain text");
}

trait FifoLike {
    fn is_fifo_like(&self) -> bool;
}

impl FifoLike for std::fs::FileType {
    fn is_fifo_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_fifo()
    }
}

#[test]
fn finding_8_key_state_and_lock_files_are_private_under_any_umask() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f"), b"data").unwrap();
    for args in ["keygen -o key", "tag -k key f"] {
        let st = Command::new("sh")
            .arg("-c")
            .arg(format!("umask 000 && exec \"$0\" {args} > /dev/null"))
            .arg(env!("CARGO_BIN_EXE_wegman"))
            .current_dir(tmp.path())
            .status()
            .unwrap();
        assert!(st.success(), "{args}");
    }
    for f in ["key", "key.nonce", "key.nonce.lock"] {
        let mode = std::fs::metadata(tmp.path().join(f)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{f} is {mode:o}");
    }
}
