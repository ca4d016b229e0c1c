//! The command line's bad-input matrix (docs/security.md): hostile
//! manifests (every byte of a genuine one changed, lines removed, repeated,
//! reordered, and hand-made hostile lines), inputs that cannot be read
//! (directories, missing files, dangling links), names that are not UTF-8,
//! a closed standard output, sealed messages cut at every length or changed,
//! hex arguments of wrong lengths, and malformed key files. Every case must
//! fail with a message on standard error, never with a panic (exit 101 or
//! "panicked"), and `open` must write no byte of plaintext when it fails.
//! The test prints the number of cases per row.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

struct Matrix {
    rows: Vec<(&'static str, usize)>,
    plaintext_released: usize,
}

fn wegman(dir: &Path, args: &[&OsStr], stdin: Option<&[u8]>, stdout: Stdio) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wegman"));
    cmd.args(args).current_dir(dir).stdout(stdout).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().expect("run wegman");
    if let Some(bytes) = stdin {
        use std::io::Write;
        // A command that fails early may close its standard input first.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    child.wait_with_output().expect("wait for wegman")
}

fn os<'a>(args: &[&'a str]) -> Vec<&'a OsStr> {
    args.iter().map(|a| OsStr::new(*a)).collect()
}

/// The command failed cleanly: non-zero exit with a message, no panic.
fn assert_refused(what: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{what}: accepted\n{stderr}");
    assert!(out.status.code().is_some_and(|c| c != 101), "{what}: {:?}\n{stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(!stderr.trim().is_empty(), "{what}: failed without a message");
}

fn manifests(m: &mut Matrix, dir: &Path) {
    let ok = wegman(dir, &os(&["tag", "-k", "key", "a", "b"]), None, Stdio::piped());
    assert!(ok.status.success());
    let genuine = ok.stdout;
    let check = |m: &mut Matrix, what: &str, manifest: &[u8]| {
        std::fs::write(dir.join("manifest"), manifest).unwrap();
        let out = wegman(dir, &os(&["check", "-k", "key", "manifest"]), None, Stdio::piped());
        assert_refused(what, &out);
        m.rows.last_mut().unwrap().1 += 1;
    };
    m.rows.push(("CLI: a genuine manifest with one byte changed (every byte, 2 ways)", 0));
    for i in 0..genuine.len() {
        for change in [0x01u8, 0x20] {
            let mut bad = genuine.clone();
            bad[i] ^= change;
            check(m, &format!("byte {i} ^ {change:#x}"), &bad);
        }
    }
    m.rows.push(("CLI: manifest lines removed, repeated, reordered; empty and blank manifests", 0));
    let lines: Vec<&[u8]> = genuine.split_inclusive(|&b| b == b'\n').collect();
    for skip in 0..lines.len() {
        let bad: Vec<u8> = lines.iter().enumerate().filter(|&(i, _)| i != skip).flat_map(|(_, l)| l.to_vec()).collect();
        check(m, &format!("line {skip} removed"), &bad);
        let bad: Vec<u8> =
            lines.iter().enumerate().flat_map(|(i, l)| if i == skip { l.repeat(2) } else { l.to_vec() }).collect();
        check(m, &format!("line {skip} repeated"), &bad);
    }
    check(m, "files swapped", &[lines[1], lines[0], lines[2]].concat());
    check(m, "seal first", &[lines[2], lines[0], lines[1]].concat());
    for bad in [&b""[..], b"\n", b"\n\n\n", b"   \n", b"\r\n"] {
        check(m, "empty or blank", bad);
    }
    m.rows.push(("CLI: hand-made hostile manifest lines", 0));
    let tag = "00".repeat(16);
    let nonce = "01".repeat(16);
    let hostile: Vec<Vec<u8>> = vec![
        format!("POLY1305-AES/2 (/etc/passwd) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 (../../../../etc/passwd) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 (d) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 (missing) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 () nonce={nonce} = {tag}\n").into_bytes(),
        format!("\\POLY1305-AES/2 (a\\q) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 (a) nonce={} = {tag}\n", "01".repeat(15)).into_bytes(),
        format!("POLY1305-AES/2 (a) nonce={nonce} = {}\n", "00".repeat(15)).into_bytes(),
        format!("POLY1305-AES/2 (a) nonce={nonce} = {}\n", "AB".repeat(16)).into_bytes(),
        format!("POLY1305-AES/2 (a) nonce={nonce} = {tag} \n").into_bytes(),
        format!("POLY1305-AES/2 (a) nonce={nonce} = {tag}\r\n").into_bytes(),
        format!("MMH32 (a) nonce={nonce} = 00000000\n").into_bytes(),
        format!("POLY1305-AES/9 (a) nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 MANIFEST lines=0 nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 MANIFEST lines=01 nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 MANIFEST lines=99999999999999999999999 nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 MANIFEST lines=-1 nonce={nonce} = {tag}\n").into_bytes(),
        format!("POLY1305-AES/2 (a\0b) nonce={nonce} = {tag}\n").into_bytes(),
        [b"POLY1305-AES/2 (\xff\xfe) nonce=".to_vec(), format!("{nonce} = {tag}\n").into_bytes()].concat(),
        format!("POLY1305-AES/2 ({}) nonce={nonce} = {tag}\n", "x".repeat(1 << 20)).into_bytes(),
        vec![b'\n'; 100_000],
        vec![0u8; 4096],
        (0..=255u8).cycle().take(10_000).collect(),
        format!("POLY1305-AES/2 (a) nonce={nonce} = {tag}").into_bytes(),
    ];
    for (i, bad) in hostile.iter().enumerate() {
        check(m, &format!("hostile line {i}"), bad);
    }
}

fn unreadable_and_names(m: &mut Matrix, dir: &Path) {
    std::os::unix::fs::symlink("nowhere", dir.join("dangling")).unwrap();
    let bad_name = OsStr::from_bytes(b"\xff\xfename");
    std::fs::write(dir.join(bad_name), b"x").unwrap();
    let key = "--key-file";
    let nonce = "01".repeat(16);
    let mut cases = 0;
    for input in [OsStr::new("d"), OsStr::new("missing"), OsStr::new("dangling")] {
        for args in [
            vec![OsStr::new("tag"), OsStr::new("-k"), OsStr::new("key"), input],
            vec![
                OsStr::new("mac"),
                OsStr::new("poly1305aes"),
                OsStr::new(key),
                OsStr::new("bare"),
                OsStr::new("--nonce-hex"),
                OsStr::new(&nonce),
                input,
            ],
            vec![OsStr::new("check"), OsStr::new("-k"), OsStr::new("key"), input],
            vec![OsStr::new("tag"), OsStr::new("-k"), input, OsStr::new("a")],
        ] {
            assert_refused(&format!("{args:?}"), &wegman(dir, &args, None, Stdio::piped()));
            cases += 1;
        }
    }
    m.rows.push(("CLI: unreadable inputs (directory, missing, dangling link) as file, manifest or key", cases));
    let out = wegman(dir, &[OsStr::new("tag"), OsStr::new("-k"), OsStr::new("key"), bad_name], None, Stdio::piped());
    assert_refused("tag of a non-UTF-8 name", &out);
    m.rows.push(("CLI: file names that are not UTF-8 (tag refuses before using a nonce)", 1));

    let mut closed = 0;
    for args in [
        os(&["tag", "-k", "key", "a"]),
        os(&["mac", "poly1305aes", "--key-file", "bare", "--nonce-hex", &nonce, "a"]),
        os(&["check", "-k", "key", "good"]),
        os(&["open", "cwc", "--key-file", "cwckey", "--nonce-hex", &"01".repeat(11), "sealed"]),
    ] {
        // A closed pipe ends a command quietly (exit 2, like `head` closing
        // a pipeline): no message is required, a panic is still a failure.
        let out = wegman(dir, &args, None, closed_stdout());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} with stdout closed: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        closed += 1;
    }
    m.rows.push(("CLI: standard output closed", closed));
}

/// Standard output whose reader is gone: every write fails with EPIPE.
fn closed_stdout() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

fn sealed_messages(m: &mut Matrix, dir: &Path, plaintext: &[u8]) {
    let nonce = "01".repeat(11);
    let sealed = std::fs::read(dir.join("sealed")).unwrap();
    let open = |m: &mut Matrix, what: &str, input: &[u8], extra: &[&str]| {
        let mut args = os(&["open", "cwc", "--key-file", "cwckey", "--nonce-hex", &nonce]);
        args.extend(extra.iter().map(OsStr::new));
        let out = wegman(dir, &args, Some(input), Stdio::piped());
        assert_refused(what, &out);
        m.plaintext_released += out.stdout.len();
        m.rows.last_mut().unwrap().1 += 1;
    };
    m.rows.push(("CLI: sealed messages cut at every length (incl. empty) or with one byte changed", 0));
    for cut in 0..sealed.len() {
        open(m, &format!("cut to {cut}"), &sealed[..cut], &[]);
    }
    for i in 0..sealed.len() {
        let mut bad = sealed.clone();
        bad[i] ^= 0x40;
        open(m, &format!("byte {i} changed"), &bad, &[]);
    }
    m.rows.push(("CLI: open -o FILE of a forged message (FILE must not appear)", 0));
    let mut bad = sealed.clone();
    bad[0] ^= 1;
    open(m, "forged to a file", &bad, &["-o", "plain.out"]);
    assert!(!dir.join("plain.out").exists(), "open wrote a file for a forged message");
    let _ = plaintext;
}

fn arguments_and_key_files(m: &mut Matrix, dir: &Path) {
    let mut cases = 0;
    let key = "ab".repeat(32);
    let nonce = "01".repeat(16);
    let mut run = |args: Vec<String>| {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        assert_refused(&format!("{args:?}"), &wegman(dir, &args, None, Stdio::piped()));
        cases += 1;
    };
    for bad in ["", "0", "011", &"01".repeat(15), &"01".repeat(17), &format!("{}zz", "01".repeat(15))] {
        let bad = bad.to_string();
        run(vec![
            "mac".into(),
            "poly1305aes".into(),
            "--key-hex".into(),
            key.clone(),
            "--nonce-hex".into(),
            bad.clone(),
            "a".into(),
        ]);
        run(vec![
            "mac".into(),
            "poly1305aes".into(),
            "--key-hex".into(),
            bad.clone(),
            "--nonce-hex".into(),
            nonce.clone(),
            "a".into(),
        ]);
        run(vec![
            "verify".into(),
            "poly1305aes".into(),
            "--key-hex".into(),
            key.clone(),
            "--nonce-hex".into(),
            nonce.clone(),
            "--tag-hex".into(),
            bad.clone(),
            "a".into(),
        ]);
        run(vec![
            "seal".into(),
            "cwc".into(),
            "--key-hex".into(),
            "ab".repeat(16),
            "--nonce-hex".into(),
            bad,
            "a".into(),
        ]);
    }
    for tag_len in ["0", "17", "-1", "x", "99999999999999999999999"] {
        for cmd in ["seal", "open"] {
            run(vec![
                cmd.into(),
                "cwc".into(),
                "--key-hex".into(),
                "ab".repeat(16),
                "--nonce-hex".into(),
                "01".repeat(11),
                "--tag-len".into(),
                tag_len.into(),
                "a".into(),
            ]);
        }
    }
    for aad in ["0", "zz", "abc"] {
        run(vec![
            "seal".into(),
            "cwc".into(),
            "--key-hex".into(),
            "ab".repeat(16),
            "--nonce-hex".into(),
            "01".repeat(11),
            "--aad-hex".into(),
            aad.into(),
            "a".into(),
        ]);
    }
    m.rows.push(("CLI: hex arguments (keys, nonces, tags, AD) and tag lengths that are wrong", cases));

    let mut files = 0;
    let header = "wegman-key v1\n";
    let keyline = format!("key {key}\n");
    for (i, content) in [
        String::new(),
        header.to_string(),
        format!("{header}alg poly1305aes\n"),
        format!("{header}alg nosuchalg\n{keyline}"),
        format!("{header}alg poly1305aes\nkey {}\n", &key[..63]),
        format!("{header}alg poly1305aes\n{keyline}{keyline}"),
        format!("{header}alg poly1305aes\r\n{}", keyline.replace('\n', "\r\n")),
        format!("wegman-key v9\nalg poly1305aes\n{keyline}"),
        format!("{header}alg poly1305aes\n{keyline}trailing\n"),
        format!("{header}alg mmh32\nkey {}\n", "ab".repeat(16)),
        "\u{0}\u{1}\u{2}".repeat(30),
        format!("{}\n", "ab".repeat(31)),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("badkey{i}");
        std::fs::write(dir.join(&name), content).unwrap();
        run_key(dir, &name, &nonce);
        files += 2;
    }
    m.rows.push(("CLI: malformed key files (mac --key-file, tag -k)", files));
}

fn run_key(dir: &Path, name: &str, nonce: &str) {
    for args in
        [os(&["mac", "poly1305aes", "--key-file", name, "--nonce-hex", nonce, "a"]), os(&["tag", "-k", name, "a"])]
    {
        assert_refused(&format!("{args:?}"), &wegman(dir, &args, None, Stdio::piped()));
    }
}

#[test]
fn the_command_line_refuses_every_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("a"), b"file a").unwrap();
    std::fs::write(dir.join("b"), b"file b").unwrap();
    std::fs::write(dir.join("bare"), format!("{}\n", "ab".repeat(32))).unwrap();
    std::fs::write(dir.join("cwckey"), format!("{}\n", "cd".repeat(16))).unwrap();
    let plaintext = b"the plaintext that must never come out of a failed open".to_vec();
    std::fs::write(dir.join("plain"), &plaintext).unwrap();
    assert!(wegman(dir, &os(&["keygen", "-o", "key"]), None, Stdio::piped()).status.success());
    let good = wegman(dir, &os(&["tag", "-k", "key", "a"]), None, Stdio::piped());
    std::fs::write(dir.join("good"), &good.stdout).unwrap();
    let sealed = wegman(
        dir,
        &os(&["seal", "cwc", "--key-file", "cwckey", "--nonce-hex", &"01".repeat(11), "plain"]),
        None,
        Stdio::piped(),
    );
    assert!(sealed.status.success());
    std::fs::write(dir.join("sealed"), &sealed.stdout).unwrap();

    let mut m = Matrix { rows: Vec::new(), plaintext_released: 0 };
    manifests(&mut m, dir);
    unreadable_and_names(&mut m, dir);
    sealed_messages(&mut m, dir, &plaintext);
    arguments_and_key_files(&mut m, dir);
    let total: usize = m.rows.iter().map(|r| r.1).sum();
    for (name, cases) in &m.rows {
        println!("{cases:>6}  {name}");
    }
    println!("CLI bad-input matrix: {total} cases, 0 panics, {} bytes of plaintext released", m.plaintext_released);
    assert_eq!(m.plaintext_released, 0);
}
