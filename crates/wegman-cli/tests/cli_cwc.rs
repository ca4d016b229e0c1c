//! `wegman seal cwc` / `wegman open cwc`: every cwc.json vector (through
//! `--headerless`, the bare CWC output), a wrong tag leaves no output file
//! behind and exits 1, and the sealed format's header decides how a file
//! is opened (docs/sealed-format.md).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn shared() -> PathBuf {
    std::env::var("WEGMAN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

fn vectors() -> Vec<(String, Value)> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(shared().join("vectors/cwc.json")).unwrap()).unwrap();
    let mut out = Vec::new();
    for g in v["groups"].as_array().unwrap() {
        for t in g["vectors"].as_array().unwrap() {
            out.push((g["name"].as_str().unwrap().to_string(), t.clone()));
        }
    }
    out
}

fn s<'a>(v: &'a Value, f: &str) -> &'a str {
    v[f].as_str().unwrap()
}

fn tl(v: &Value) -> String {
    v["tag_len"].as_u64().map(|n| n.to_string()).unwrap_or_else(|| s(v, "tag_len").to_string())
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        wegman().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // A process that rejects its arguments may exit before reading: a
    // broken pipe here is expected, not a failure.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

#[test]
fn every_vector_through_seal_and_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for (i, (_, v)) in vectors().into_iter().enumerate() {
        if v.get("pt").is_none() {
            continue;
        }
        let pt = hex::decode(s(&v, "pt")).unwrap();
        let ct = hex::decode(s(&v, "ct")).unwrap();
        let base =
            ["--headerless", "--key-hex", s(&v, "key"), "--nonce-hex", s(&v, "nonce"), "--aad-hex", s(&v, "aad")];
        let t = tl(&v);
        // file in, stdout out (odd vectors use stdin in, file out)
        if i % 2 == 0 {
            let f = dir.path().join("in");
            std::fs::write(&f, &pt).unwrap();
            let out = wegman().args(["seal", "cwc"]).args(base).args(["--tag-len", &t]).arg(&f).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, ct, "{}", v["name"]);
            std::fs::write(&f, &ct).unwrap();
            let out = wegman().args(["open", "cwc"]).args(base).args(["--tag-len", &t]).arg(&f).output().unwrap();
            assert_eq!(out.status.code(), Some(0));
            assert_eq!(out.stdout, pt);
        } else {
            let o = dir.path().join(format!("out{i}"));
            let out = run_stdin(
                &[&["seal", "cwc"][..], &base, &["--tag-len", &t, "-o", o.to_str().unwrap(), "-"]].concat(),
                &pt,
            );
            assert_eq!(out.status.code(), Some(0));
            assert_eq!(std::fs::read(&o).unwrap(), ct, "{}", v["name"]);
            let out =
                run_stdin(&[&["open", "cwc"][..], &base, &["--tag-len", &t, "-o", o.to_str().unwrap()]].concat(), &ct);
            assert_eq!(out.status.code(), Some(0));
            assert_eq!(std::fs::read(&o).unwrap(), pt);
        }
        n += 1;
    }
    assert_eq!(n, 609);
}

/// The format of before the header (`--headerless`): open's guarantees
/// hold as they did.
#[test]
fn wrong_tag_exits_1_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let key = "000102030405060708090a0b0c0d0e0f";
    let nonce = "ffeeddccbbaa9988776655";
    let pt = vec![0x5au8; 200_000];
    let f = dir.path().join("sealed");
    let out = wegman()
        .args(["seal", "cwc", "--headerless", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", "0102", "-o"])
        .arg(&f)
        .stdin(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&pt)?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let sealed = std::fs::read(&f).unwrap();
    assert_eq!(sealed.len(), pt.len() + 16);

    let mut cases: Vec<(String, Vec<u8>, &str)> = vec![];
    let mut flip_ct = sealed.clone();
    flip_ct[1000] ^= 4;
    cases.push(("ciphertext bit".into(), flip_ct, "0102"));
    let mut flip_tag = sealed.clone();
    let last = flip_tag.len() - 1;
    flip_tag[last] ^= 0x80;
    cases.push(("tag bit".into(), flip_tag, "0102"));
    cases.push(("truncated".into(), sealed[..sealed.len() - 1].to_vec(), "0102"));
    cases.push(("shorter than a tag".into(), sealed[..5].to_vec(), "0102"));
    cases.push(("aad".into(), sealed.clone(), "0103"));
    for (what, data, aad) in cases {
        let input = dir.path().join("bad");
        std::fs::write(&input, &data).unwrap();
        for to_file in [true, false] {
            let dest = dir.path().join("plain");
            let _ = std::fs::remove_file(&dest);
            let mut cmd = wegman();
            cmd.args(["open", "cwc", "--headerless", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad]);
            if to_file {
                cmd.arg("-o").arg(&dest);
            }
            let out = cmd.arg(&input).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{what}");
            assert!(out.stdout.is_empty(), "{what}: plaintext released on stdout");
            assert!(!dest.exists(), "{what}: output file left behind");
            assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED"), "{what}");
            // and from stdin
            let out = run_stdin(
                &["open", "cwc", "--headerless", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad],
                &data,
            );
            assert_eq!(out.status.code(), Some(1));
            assert!(out.stdout.is_empty());
        }
        // an existing output file is left exactly as it was
        let dest = dir.path().join("keep");
        std::fs::write(&dest, b"previous contents").unwrap();
        let out = wegman()
            .args(["open", "cwc", "--headerless", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad, "-o"])
            .arg(&dest)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(std::fs::read(&dest).unwrap(), b"previous contents");
    }
    // no temporary files left in the directory
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("wegman"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // the good one opens
    let out = wegman()
        .args(["open", "cwc", "--headerless", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", "0102"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, pt);
}

#[test]
fn aad_file_key_file_and_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let v = vectors().into_iter().find(|(g, v)| g == "draft-irtf-cfrg-cwc" && !s(v, "aad").is_empty()).unwrap().1;
    std::fs::write(dir.path().join("aad"), hex::decode(s(&v, "aad")).unwrap()).unwrap();
    std::fs::write(dir.path().join("key"), format!("{}\n", s(&v, "key"))).unwrap();
    std::fs::write(dir.path().join("pt"), hex::decode(s(&v, "pt")).unwrap()).unwrap();
    let out = wegman()
        .current_dir(dir.path())
        .args([
            "seal",
            "cwc",
            "--headerless",
            "--key-file",
            "key",
            "--nonce-hex",
            s(&v, "nonce"),
            "--aad-file",
            "aad",
            "pt",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(hex::encode(out.stdout), s(&v, "ct"));
    for args in [
        vec!["seal", "cwc", "--key-hex", "0011", "--nonce-hex", "0011223344556677889900"],
        vec!["seal", "cwc", "--key-hex", &"00".repeat(16), "--nonce-hex", "00112233445566778899"],
        vec!["seal", "cwc", "--key-hex", &"00".repeat(16), "--nonce-hex", "0011223344556677889900", "--tag-len", "0"],
        vec!["seal", "cwc", "--key-hex", &"00".repeat(16), "--nonce-hex", "0011223344556677889900", "--tag-len", "17"],
        vec!["seal", "cwc", "--key-hex", &"00".repeat(16), "--nonce-hex", "0011223344556677889900", "--aad-hex", "0"],
        vec!["open", "cwc", "--key-hex", &"00".repeat(16), "--nonce-hex", "0011223344556677889900", "/nonexistent"],
        vec!["seal", "gcm", "--key-hex", &"00".repeat(16), "--nonce-hex", "0011223344556677889900"],
    ] {
        let out = run_stdin(&args, b"x");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty());
    }
}

const K: &str = "000102030405060708090a0b0c0d0e0f";
const N: &str = "0102030405060708090a0b";

#[test]
fn open_reads_a_pipe_or_fifo_as_it_reads_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let plain = b"through a pipe, not a regular file".to_vec();
    let sealed = run_stdin(&["seal", "cwc", "--key-hex", K, "--nonce-hex", N], &plain);
    assert_eq!(sealed.status.code(), Some(0));
    // /dev/stdin is a pipe here: its metadata says length 0.
    let out = run_stdin(&["open", "cwc", "--key-hex", K, "--nonce-hex", N, "/dev/stdin"], &sealed.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, plain);
    // `-o -` is standard output, as `-` is standard input
    let out = run_stdin(&["open", "cwc", "--key-hex", K, "--nonce-hex", N, "-o", "-", "-"], &sealed.stdout);
    assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain));
    // a FIFO, and -o: same answer, and a wrong tag still writes nothing
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (data, want) in [(sealed.stdout.clone(), Some(0)), ([&sealed.stdout[..], b"x"].concat(), Some(1))] {
        let dest = dir.path().join("out");
        let _ = std::fs::remove_file(&dest);
        let child = wegman()
            .args(["open", "cwc", "--key-hex", K, "--nonce-hex", N, "-o"])
            .arg(&dest)
            .arg(&fifo)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::fs::write(&fifo, &data).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), want, "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read(&dest).ok(), (want == Some(0)).then(|| plain.clone()));
    }
}

#[test]
fn an_interrupted_open_leaves_no_staging_file() {
    // SIGTERM at several moments of a two-pass `open -o`: whenever it lands,
    // no hidden staging file (partial plaintext) may remain.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    let sealed = dir.path().join("big.cwc");
    std::fs::write(&big, vec![0x42u8; 48 << 20]).unwrap();
    let st = wegman().args(["seal", "cwc", "--key-hex", K, "--nonce-hex", N, "-o"]).arg(&sealed).arg(&big).status();
    assert!(st.unwrap().success());
    let outdir = dir.path().join("out");
    std::fs::create_dir(&outdir).unwrap();
    let mut interrupted = 0;
    for delay_ms in [20u64, 60, 120, 200, 300, 450, 650, 900] {
        let dest = outdir.join("plain");
        let _ = std::fs::remove_file(&dest);
        let child = wegman()
            .args(["open", "cwc", "--key-hex", K, "--nonce-hex", N, "-o"])
            .arg(&dest)
            .arg(&sealed)
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
        let out = child.wait_with_output().unwrap();
        let left: Vec<_> = std::fs::read_dir(&outdir).unwrap().map(|e| e.unwrap().file_name()).collect();
        match out.status.code() {
            Some(0) => assert_eq!(left, vec![std::ffi::OsString::from("plain")], "after {delay_ms} ms"),
            // 130: our handler removed the staging file; None: killed before
            // it was installed, i.e. before any staging file existed.
            Some(130) | None => {
                interrupted += 1;
                assert!(left.iter().all(|n| n == "plain"), "after {delay_ms} ms: {left:?}");
            }
            other => panic!("after {delay_ms} ms: exit {other:?}"),
        }
    }
    eprintln!("{interrupted} of 8 runs interrupted");
}

/// `keygen --alg cwc-aes-N` makes a key with a nonce store: `seal` takes a
/// fresh nonce from it every time and writes it first, `open` reads it back,
/// an explicit nonce is refused for such a key and required without one.
#[test]
fn cwc_keys_with_a_nonce_store_never_repeat_a_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| wegman().current_dir(d).args(args).stdin(Stdio::null()).output().unwrap();
    for (alg, len) in [("cwc-aes-128", 16), ("cwc-aes-192", 24), ("cwc-aes-256", 32)] {
        let key = format!("{alg}.key");
        let out = run(&["keygen", "-o", &key, "--alg", alg]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(d.join(format!("{key}.nonce")).exists());
        let text = std::fs::read_to_string(d.join(&key)).unwrap();
        assert!(text.contains(&format!("alg {alg}\n")));
        let hex_len = text.lines().last().unwrap().trim_start_matches("key ").len();
        assert_eq!(hex_len, 2 * len, "{alg}");
        std::fs::write(d.join("plain"), b"the same plaintext, sealed again and again").unwrap();
        let mut nonces = std::collections::HashSet::new();
        for i in 0..20 {
            let sealed = format!("s{i}");
            let out = run(&["seal", "cwc", "--key-file", &key, "--aad-hex", "0102", "plain", "-o", &sealed]);
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            let bytes = std::fs::read(d.join(&sealed)).unwrap();
            assert_eq!(bytes.len(), 30 + 42 + 16);
            assert!(nonces.insert(bytes[19..30].to_vec()), "{alg}: nonce repeated at seal {i}");
            let out = run(&["open", "cwc", "--key-file", &key, "--aad-hex", "0102", &sealed]);
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, b"the same plaintext, sealed again and again");
            // a changed nonce is refused like any other change
            let mut bad = bytes.clone();
            bad[19 + i % 11] ^= 1;
            std::fs::write(d.join("bad"), &bad).unwrap();
            let out = run(&["open", "cwc", "--key-file", &key, "--aad-hex", "0102", "bad"]);
            assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
        }
        let out = run(&["seal", "cwc", "--key-file", &key, "--nonce-hex", &"00".repeat(11), "plain"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--nonce-hex is refused"));
    }
    // a key without a store: the caller gives the nonce, and must
    std::fs::write(d.join("bare"), "00".repeat(16)).unwrap();
    let out = run(&["seal", "cwc", "--key-file", "bare", "plain"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--nonce-hex is required"));
    let out = run(&["seal", "cwc", "--key-file", "bare", "--nonce-hex", &"00".repeat(11), "plain"]);
    assert_eq!(out.status.code(), Some(0));
    // a MAC key is not a CWC key
    assert_eq!(run(&["keygen", "-o", "mac.key"]).status.code(), Some(0));
    let out = run(&["seal", "cwc", "--key-file", "mac.key", "plain"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The test vector of docs/sealed-format.md.
const VECTOR: &str = concat!(
    "5745474d43574300",                 // magic "WEGMCWC\0"
    "01",                               // version
    "01",                               // CWC-AES-128
    "cd556344033484bb",                 // key id
    "10",                               // tag length 16
    "0102030405060708090a0b",           // nonce
    "d3122ef07022a43c46223a9b9ca6",     // ciphertext of "attack at dawn"
    "f9c26fe15ad8d29cefca7bdf82911402", // tag
);

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `open` of `data` (from a file, with and without -o, and from standard
/// input) with `args`: each exits `code`, writes nothing, and says `says`.
fn open_refused(args: &[&str], data: &[u8], code: i32, says: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sealed");
    std::fs::write(&input, data).unwrap();
    let dest = dir.path().join("plain");
    for to_file in [false, true] {
        let mut cmd = wegman();
        cmd.args(["open", "cwc"]).args(args).arg(&input);
        if to_file {
            cmd.arg("-o").arg(&dest);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty() && !dest.exists(), "{args:?}: output written");
    }
    let out = run_stdin(&[&["open", "cwc"][..], args].concat(), data);
    assert_eq!(out.status.code(), Some(code), "{args:?} (stdin): {}", stderr(&out));
    assert!(stderr(&out).contains(says), "{args:?} (stdin): {}", stderr(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a staging file was left");
}

#[test]
fn the_documented_test_vector() {
    let args = ["--key-hex", K, "--nonce-hex", "0102030405060708090a0b", "--aad-hex", "686561646572"];
    let out = run_stdin(&[&["seal", "cwc"][..], &args].concat(), b"attack at dawn");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(hex::encode(&out.stdout), VECTOR);
    // open needs neither the nonce nor the tag length: the header has them
    let out = run_stdin(&["open", "cwc", "--key-hex", K, "--aad-hex", "686561646572"], &out.stdout);
    assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(0), &b"attack at dawn"[..]), "{}", stderr(&out));
    // the rule for the associated data: u16be(30) || header || the caller's
    let sealed = hex::decode(VECTOR).unwrap();
    let aad = format!("001e{}686561646572", hex::encode(&sealed[..30]));
    let bare = [
        &["seal", "cwc", "--headerless", "--key-hex", K, "--nonce-hex", "0102030405060708090a0b"][..],
        &["--aad-hex", &aad],
    ]
    .concat();
    let out = run_stdin(&bare, b"attack at dawn");
    assert_eq!(out.stdout, &sealed[30..]);
}

/// A 16-byte tag cut to 8 opens under no `--tag-len`: the header says 16,
/// and is authenticated, so a header edited to say 8 fails the tag.
#[test]
fn a_cut_tag_is_refused_whatever_tag_len_says() {
    let plain = b"a file whose tag is cut short".to_vec();
    let out = run_stdin(&["seal", "cwc", "--key-hex", K, "--nonce-hex", N], &plain);
    assert_eq!(out.status.code(), Some(0));
    let sealed = out.stdout;
    assert_eq!(sealed.len(), 30 + plain.len() + 16);
    let cut = &sealed[..sealed.len() - 8];
    open_refused(&["--key-hex", K], cut, 1, "authentication FAILED");
    open_refused(&["--key-hex", K, "--tag-len", "16"], cut, 1, "authentication FAILED");
    for t in ["8", "4", "15"] {
        open_refused(&["--key-hex", K, "--tag-len", t], cut, 2, "the file's header says its tag is 16 bytes");
    }
    let mut says_8 = cut.to_vec();
    says_8[18] = 8;
    open_refused(&["--key-hex", K], &says_8, 1, "authentication FAILED");
    open_refused(&["--key-hex", K, "--tag-len", "8"], &says_8, 1, "authentication FAILED");
    // the whole file still opens, with or without an agreeing --tag-len
    for extra in [&[][..], &["--tag-len", "16"][..]] {
        let out = run_stdin(&[&["open", "cwc", "--key-hex", K][..], extra].concat(), &sealed);
        assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain), "{}", stderr(&out));
    }
}

#[test]
fn an_edited_header_is_refused() {
    let plain = b"header edits".to_vec();
    let sealed = run_stdin(&["seal", "cwc", "--key-hex", K, "--nonce-hex", N, "--tag-len", "12"], &plain).stdout;
    assert_eq!(sealed.len(), 30 + plain.len() + 12);
    let key = ["--key-hex", K];
    let edit = |at: usize, v: u8| {
        let mut s = sealed.clone();
        s[at] = v;
        s
    };
    open_refused(&key, &edit(0, b'X'), 2, "--headerless");
    open_refused(&key, &edit(8, 2), 2, "sealed-file format version 2 is unknown");
    open_refused(&key, &edit(8, 0), 2, "sealed-file format version 0 is unknown");
    open_refused(&key, &edit(9, 3), 2, "sealed with a cwc-aes-256 key, but the key given is a cwc-aes-128 key");
    open_refused(&key, &edit(9, 9), 2, "unknown algorithm (byte 9)");
    open_refused(&key, &edit(12, sealed[12] ^ 1), 2, "key id mismatch");
    open_refused(&key, &edit(18, 0), 2, "tag length 0 is not 1 to 16");
    open_refused(&key, &edit(18, 17), 2, "tag length 17 is not 1 to 16");
    // a valid but different tag length or nonce: the tag fails
    open_refused(&key, &edit(18, 16), 1, "authentication FAILED");
    open_refused(&key, &edit(18, 11), 1, "authentication FAILED");
    open_refused(&key, &edit(25, sealed[25] ^ 0x40), 1, "authentication FAILED");
    // a header cut short, and a file of its first bytes only
    for n in [1, 8, 9, 20, 29] {
        open_refused(&key, &sealed[..n], 2, "header is cut short");
    }
    open_refused(&key, &sealed[..30], 1, "authentication FAILED");
    open_refused(&key, b"", 2, "no sealed-file header");
    // --nonce-hex with a header must agree with it
    open_refused(&["--key-hex", K, "--nonce-hex", &"00".repeat(11)], &sealed, 2, "--nonce-hex differs");
    let out = run_stdin(&["open", "cwc", "--key-hex", K, "--nonce-hex", N], &sealed);
    assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain));
}

/// Key A's file opened with key B: the header names the key, so the
/// answer is "another key", before any decryption, not a tag failure.
#[test]
fn another_key_is_named_by_its_key_id() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| wegman().current_dir(d).args(args).stdin(Stdio::null()).output().unwrap();
    for k in ["a.key", "b.key"] {
        assert_eq!(run(&["keygen", "-o", k, "--alg", "cwc-aes-128"]).status.code(), Some(0));
    }
    std::fs::write(d.join("plain"), b"for key a").unwrap();
    assert_eq!(run(&["seal", "cwc", "--key-file", "a.key", "plain", "-o", "sealed"]).status.code(), Some(0));
    let sealed = std::fs::read(d.join("sealed")).unwrap();
    let b = d.join("b.key");
    open_refused(&["--key-file", b.to_str().unwrap()], &sealed, 2, "key id mismatch");
    let out = run(&["open", "cwc", "--key-file", "b.key", "sealed"]);
    assert!(!stderr(&out).contains("FAILED"), "{}", stderr(&out));
    let out = run(&["open", "cwc", "--key-file", "a.key", "sealed"]);
    assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(0), &b"for key a"[..]));
    // the same with keys given as hex
    let other = "f0".repeat(16);
    let sealed = run_stdin(&["seal", "cwc", "--key-hex", K, "--nonce-hex", N], b"x").stdout;
    open_refused(&["--key-hex", &other], &sealed, 2, "key id mismatch");
}

/// Each AES size round-trips through the header, from a file and from
/// standard input; a headerless file opens only with --headerless.
#[test]
fn round_trip_for_each_aes_size_and_the_headerless_format() {
    let dir = tempfile::tempdir().unwrap();
    let plain: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
    let input = dir.path().join("plain");
    std::fs::write(&input, &plain).unwrap();
    for (len, alg_byte) in [(16, 1u8), (24, 2), (32, 3)] {
        let key = "5a".repeat(len);
        for tag_len in ["1", "8", "16"] {
            let args = ["--key-hex", key.as_str(), "--nonce-hex", N, "--aad-hex", "0a0b", "--tag-len", tag_len];
            let out = wegman().args(["seal", "cwc"]).args(args).arg(&input).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            let sealed = out.stdout;
            let t: usize = tag_len.parse().unwrap();
            assert_eq!(sealed.len(), 30 + plain.len() + t);
            assert_eq!((&sealed[..8], sealed[8], sealed[9], sealed[18]), (&b"WEGMCWC\0"[..], 1, alg_byte, t as u8));
            let f = dir.path().join("sealed");
            std::fs::write(&f, &sealed).unwrap();
            let out = wegman().args(["open", "cwc", "--key-hex", &key, "--aad-hex", "0a0b"]).arg(&f).output().unwrap();
            assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain), "{}", stderr(&out));
            let out = run_stdin(&["open", "cwc", "--key-hex", &key, "--aad-hex", "0a0b"], &sealed);
            assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain));
            // another associated data fails the tag
            open_refused(&["--key-hex", &key, "--aad-hex", "0a0c"], &sealed, 1, "authentication FAILED");
        }
        // --headerless: the bare format, opened only when asked for
        let args = ["--key-hex", key.as_str(), "--nonce-hex", N];
        let bare = wegman().args(["seal", "cwc", "--headerless"]).args(args).arg(&input).output().unwrap().stdout;
        assert_eq!(bare.len(), plain.len() + 16);
        open_refused(&["--key-hex", &key], &bare, 2, "open that with --headerless");
        open_refused(&args, &bare, 2, "--headerless");
        let out = run_stdin(&[&["open", "cwc", "--headerless"][..], &args].concat(), &bare);
        assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain));
        // and --headerless on a file with a header fails its tag
        let sealed = run_stdin(&[&["seal", "cwc"][..], &args].concat(), &plain).stdout;
        open_refused(&[&["--headerless"][..], &args].concat(), &sealed, 1, "authentication FAILED");
    }
    // a key with a nonce store, headerless: nonce || ciphertext || tag
    let d = dir.path();
    let st = wegman().current_dir(d).args(["keygen", "-o", "s.key", "--alg", "cwc-aes-256"]).status().unwrap();
    assert!(st.success());
    let bare = wegman().current_dir(d).args(["seal", "cwc", "--headerless", "--key-file", "s.key", "plain"]).output();
    let bare = bare.unwrap().stdout;
    assert_eq!(bare.len(), 11 + plain.len() + 16);
    let out = run_stdin(&["open", "cwc", "--headerless", "--key-file", d.join("s.key").to_str().unwrap()], &bare);
    assert_eq!((out.status.code(), &out.stdout), (Some(0), &plain));
}
