//! `wegman seal cwc` / `wegman open cwc`: every cwc.json vector, and a wrong
//! tag leaves no output file behind and exits 1.

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
        let base = ["--key-hex", s(&v, "key"), "--nonce-hex", s(&v, "nonce"), "--aad-hex", s(&v, "aad")];
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

#[test]
fn wrong_tag_exits_1_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let key = "000102030405060708090a0b0c0d0e0f";
    let nonce = "ffeeddccbbaa9988776655";
    let pt = vec![0x5au8; 200_000];
    let f = dir.path().join("sealed");
    let out = wegman()
        .args(["seal", "cwc", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", "0102", "-o"])
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
            cmd.args(["open", "cwc", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad]);
            if to_file {
                cmd.arg("-o").arg(&dest);
            }
            let out = cmd.arg(&input).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{what}");
            assert!(out.stdout.is_empty(), "{what}: plaintext released on stdout");
            assert!(!dest.exists(), "{what}: output file left behind");
            assert!(String::from_utf8_lossy(&out.stderr).contains("FAILED"), "{what}");
            // and from stdin
            let out = run_stdin(&["open", "cwc", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad], &data);
            assert_eq!(out.status.code(), Some(1));
            assert!(out.stdout.is_empty());
        }
        // an existing output file is left exactly as it was
        let dest = dir.path().join("keep");
        std::fs::write(&dest, b"previous contents").unwrap();
        let out = wegman()
            .args(["open", "cwc", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", aad, "-o"])
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
        .args(["open", "cwc", "--key-hex", key, "--nonce-hex", nonce, "--aad-hex", "0102"])
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
        .args(["seal", "cwc", "--key-file", "key", "--nonce-hex", s(&v, "nonce"), "--aad-file", "aad", "pt"])
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
            assert_eq!(bytes.len(), 11 + 42 + 16);
            assert!(nonces.insert(bytes[..11].to_vec()), "{alg}: nonce repeated at seal {i}");
            let out = run(&["open", "cwc", "--key-file", &key, "--aad-hex", "0102", &sealed]);
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, b"the same plaintext, sealed again and again");
            // a changed nonce is refused like any other change
            let mut bad = bytes.clone();
            bad[i % 11] ^= 1;
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
