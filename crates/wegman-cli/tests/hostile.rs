//! The command under a hostile environment: a closed
//! standard output, an untrusted manifest naming a FIFO or a device or
//! holding a huge line, names with terminal escape codes, core dumps.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("spawn wegman")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn keygen(dir: &Path) -> std::path::PathBuf {
    let key = dir.join("k.key");
    let out = run(wegman().arg("keygen").arg("-o").arg(&key));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    key
}

/// `wegman ARGS` with its standard output closed (`>&-`), through sh.
fn closed_stdout(args: &[&str]) -> Output {
    let mut sh = Command::new("sh");
    sh.arg("-c").arg("exec \"$@\" >&-").arg("sh").arg(env!("CARGO_BIN_EXE_wegman")).args(args);
    run(&mut sh)
}

#[test]
fn tag_with_stdout_closed_spends_no_nonce_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    let file = dir.path().join("f");
    std::fs::write(&file, b"data").unwrap();
    let state = dir.path().join("k.key.nonce");
    let before = std::fs::read(&state).unwrap();
    let out = closed_stdout(&["tag", "-k", key.to_str().unwrap(), file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("standard output is closed"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&state).unwrap(), before, "the nonce state moved");
    // keygen and seal too
    let out = closed_stdout(&["keygen", "-o", dir.path().join("k2.key").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("k2.key").exists());
    // a shell's `>/dev/null` is a choice, not a closed descriptor
    let out = run(wegman().arg("tag").arg("-k").arg(&key).arg(&file).stdout(Stdio::null()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// A sealed manifest of `names` (regular files when tagged), then `prepare`
/// may replace them; returns `check`'s output and how long it took.
fn check_after(names: &[&str], prepare: impl FnOnce(&Path), extra: &[&str]) -> (Output, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    for n in names {
        std::fs::write(dir.path().join(n), b"content").unwrap();
    }
    let out = run(wegman().current_dir(dir.path()).arg("tag").arg("-k").arg(&key).args(names));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let manifest = dir.path().join("MANIFEST");
    std::fs::write(&manifest, &out.stdout).unwrap();
    prepare(dir.path());
    let start = Instant::now();
    let mut cmd = wegman();
    cmd.current_dir(dir.path()).arg("check").arg("-k").arg(&key).args(extra).arg(&manifest);
    let out = run(&mut cmd);
    (out, start.elapsed())
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success());
}

#[test]
fn check_never_blocks_on_a_fifo_or_reads_a_device() {
    // A sealed manifest whose file became a FIFO: refused, not waited on.
    let (out, took) = check_after(
        &["a", "b"],
        |d| {
            std::fs::remove_file(d.join("a")).unwrap();
            mkfifo(&d.join("a"));
        },
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("a: FAILED open or read"), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("b: OK"));
    assert!(text(&out.stderr).contains("not a regular file"), "{}", text(&out.stderr));
    assert!(took < Duration::from_secs(20));

    // A manifest with a broken seal naming /dev/zero and a FIFO: no file is
    // opened at all, so nothing blocks or runs forever.
    let (out, took) = check_after(
        &["c"],
        |d| {
            let m = std::fs::read_to_string(d.join("MANIFEST")).unwrap();
            let m = m.replacen("(c)", "(/dev/zero)", 1);
            std::fs::write(d.join("MANIFEST"), m).unwrap();
            mkfifo(&d.join("fifo"));
        },
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("seal does NOT verify"), "{}", text(&out.stderr));
    assert!(text(&out.stdout).is_empty(), "a file was read: {}", text(&out.stdout));
    assert!(took < Duration::from_secs(20));
}

#[test]
fn a_huge_manifest_line_is_an_error_not_a_huge_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    let manifest = dir.path().join("MANIFEST");
    let mut m = vec![b'x'; 20 << 20];
    m.push(b'\n');
    std::fs::write(&manifest, &m).unwrap();
    // with 16 MiB of address space to spare the old reader aborted
    let out = run(wegman().arg("check").arg("-k").arg(&key).arg(&manifest));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("line 1: longer than 65536 bytes"), "{}", text(&out.stderr));
}

#[test]
fn names_with_control_characters_are_printed_escaped() {
    let name = "evil\u{1b}[2K\rok\u{7f}\u{9b}x";
    let (out, _) = check_after(&[name], |_| {}, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout, "\\evil\\x1b[2K\\rok\\x7f\\u{9b}x: OK\n");
    assert!(!stdout.contains('\u{1b}') && !stdout.contains('\r'));
}

/// Names that would lie on a terminal — a bidi override or isolate
/// reversing the rest of the line, a zero-width space, a line separator, an
/// escape sequence — are escaped both in `tag`'s manifest and in `check`'s
/// lines, and still check OK (the tag covers the raw name).
#[test]
fn invisible_and_bidi_characters_are_escaped_in_manifests_and_check() {
    let names = [
        ("report\u{202e}fdp.exe", "report\\u{202e}fdp.exe"),
        ("isolate\u{2066}x\u{2069}", "isolate\\u{2066}x\\u{2069}"),
        ("zero\u{200b}width", "zero\\u{200b}width"),
        ("line\u{2028}sep", "line\\u{2028}sep"),
    ];
    let esc = "evil\u{1b}[2Kok";
    let all: Vec<&str> = names.iter().map(|(n, _)| *n).chain([esc]).collect();
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    for n in &all {
        std::fs::write(dir.path().join(n), n.as_bytes()).unwrap();
    }
    let out = run(wegman().current_dir(dir.path()).arg("tag").arg("-k").arg(&key).args(&all));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let manifest = text(&out.stdout);
    let lines: Vec<&str> = manifest.lines().collect();
    assert_eq!(lines.len(), all.len() + 1);
    let invisible = |c: char| matches!(c, '\u{1b}' | '\u{202e}' | '\u{2066}' | '\u{2069}' | '\u{200b}' | '\u{2028}');
    assert!(!manifest.chars().any(invisible), "raw in the manifest: {manifest:?}");
    for ((_, spelled), line) in names.iter().zip(&lines) {
        assert!(line.starts_with("\\POLY1305-AES/2 (") && line.contains(&format!("({spelled}) ")), "{line}");
    }
    assert!(lines[names.len()].starts_with("\\POLY1305-AES/2 (evil\\u{1b}[2Kok) "), "{}", lines[names.len()]);
    std::fs::write(dir.path().join("MANIFEST"), &out.stdout).unwrap();
    let out = run(wegman().current_dir(dir.path()).arg("check").arg("-k").arg(&key).arg("MANIFEST"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.chars().any(invisible), "raw in check's output: {stdout:?}");
    let want: Vec<String> = names
        .iter()
        .map(|(_, spelled)| format!("\\{spelled}: OK"))
        .chain(["\\evil\\x1b[2Kok: OK".to_string()])
        .collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
}

/// A manifest is a regular file (or `-`): `/dev/urandom`, which would be
/// read until killed, a FIFO, which would block, and a directory are
/// refused before a byte is read, exit 2, saying why.
#[test]
fn a_manifest_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    for manifest in [Path::new("/dev/urandom"), Path::new("/dev/zero"), &fifo, dir.path()] {
        let start = Instant::now();
        let out = run(wegman().arg("check").arg("-k").arg(&key).arg(manifest));
        assert!(start.elapsed() < Duration::from_secs(20), "{}", manifest.display());
        assert_eq!(out.status.code(), Some(2), "{}: {}", manifest.display(), text(&out.stderr));
        let want = format!("{}: not a regular file: a manifest is read from a regular file", manifest.display());
        assert!(text(&out.stderr).contains(&want), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
    }
}

#[test]
#[cfg(target_os = "linux")]
fn no_core_dump_while_a_key_is_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    // `mac` with a key loaded waits on its standard input: read its limits
    let mut child = wegman()
        .args(["mac", "poly1305aes", "--caller-manages-nonces", "--nonce-hex", &"00".repeat(16), "--key-file"])
        .arg(&key)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let limits = format!("/proc/{}/limits", child.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    let line = loop {
        let l = std::fs::read_to_string(&limits).unwrap_or_default();
        let core = l.lines().find(|l| l.starts_with("Max core file size")).map(str::to_string);
        // the soft limit may be 0 already (a shell's `ulimit -c 0`): wait for the hard one
        if let Some(c) = core.filter(|c| c.split_whitespace().nth(5) == Some("0")) {
            break c;
        }
        assert!(Instant::now() < deadline, "core limit never 0: {l}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(&fields[4..6], ["0", "0"], "{line}");
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
#[cfg(target_os = "linux")]
fn a_second_tag_says_who_holds_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path());
    let file = dir.path().join("f");
    std::fs::write(&file, b"data").unwrap();
    let lock = dir.path().join("k.key.nonce.lock");
    // another process holds the store's lock for 2 s (flock(1), flock(2) as the store)
    let mut holder = Command::new("flock").arg("-x").arg(&lock).args(["sleep", "2"]).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let out = run(wegman().arg("tag").arg("-k").arg(&key).arg(&file));
    holder.wait().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("holds the nonce lock"), "{err}");
    assert!(err.contains(&format!("process {}", holder.id())) || err.contains("(sleep)"), "{err}");
    assert!(start.elapsed() >= Duration::from_secs(1));
}
