//! Key hygiene of the command line: random keys go through every way a
//! command can fail with a key in hand — a wrong tag, a forged ciphertext,
//! a key with a forbidden bit of r, keys of the wrong length or with a bad
//! digit (on the command line and in key files), a key file for another
//! algorithm, missing inputs, a tampered manifest — and through the
//! successful commands; no piece of the key may appear on standard error or
//! standard output (see `wegman_testkit::leak_scan`: raw, hex, byte
//! lists, decimal words).
//!
//! `WEGMAN_KEY_HYGIENE_KEYS` sets the number of keys (default 1,000; each
//! runs about ten commands).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use rand::{Rng, SeedableRng};
use wegman_testkit::leak_scan;

fn wegman(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run wegman")
}

/// A wegman key file for `alg` holding `key` (the format `keygen` writes).
fn key_file(alg: &str, key: &[u8]) -> String {
    format!("wegman-key v1\n# secret\nalg {alg}\nkey {}\n", hex::encode(key))
}

struct Run {
    commands: usize,
    failures_seen: usize,
}

/// Every command for one key; panics naming the command if its output
/// shows a piece of the key.
fn one_key(dir: &Path, i: usize, rng: &mut impl Rng, run: &mut Run) {
    let mut kr = [0u8; 32];
    rng.fill_bytes(&mut kr);
    // A valid Poly1305-AES key: clear r's forbidden bits (§2).
    for b in [3, 7, 11, 15] {
        kr[16 + b] &= 15;
    }
    for b in [4, 8, 12] {
        kr[16 + b] &= 252;
    }
    let hexkey = hex::encode(kr);
    let nonce = hex::encode([i as u8; 16]);
    std::fs::write(dir.join("kf"), key_file("poly1305aes", &kr)).unwrap();
    std::fs::write(dir.join("bare"), format!("{hexkey}\n")).unwrap();
    let mut forbidden = kr;
    forbidden[16 + 3] |= 0x10;
    let forbidden = hex::encode(forbidden);
    let mut bad_digit = hexkey.clone().into_bytes();
    bad_digit[rng.random_range(0..64)] = b'g';
    let bad_digit = String::from_utf8(bad_digit).unwrap();
    std::fs::write(dir.join("kf-bad-digit"), format!("wegman-key v1\nalg poly1305aes\nkey {bad_digit}\n")).unwrap();
    std::fs::write(dir.join("kf-mmh"), key_file("mmh32", &kr)).unwrap();
    std::fs::write(dir.join("kf-short"), key_file("poly1305aes", &kr[..31])).unwrap();
    std::fs::write(dir.join("kf-cwc"), format!("{}\n", hex::encode(&kr[..16]))).unwrap();

    let cases: Vec<(&str, Vec<String>, bool)> = vec![
        (
            "mac with a bare key file",
            vec!["mac", "poly1305aes", "--key-file", "bare", "--nonce-hex", &nonce, "msg"],
            true,
        ),
        (
            "verify a wrong tag",
            vec![
                "verify",
                "poly1305aes",
                "--key-file",
                "bare",
                "--nonce-hex",
                &nonce,
                "--tag-hex",
                &"00".repeat(16),
                "msg",
            ],
            false,
        ),
        (
            "--key-hex with a forbidden bit of r",
            vec!["mac", "poly1305aes", "--key-hex", &forbidden, "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "--key-hex one digit short",
            vec!["mac", "poly1305aes", "--key-hex", &hexkey[1..], "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "--key-hex with a bad digit",
            vec!["mac", "poly1305aes", "--key-hex", &bad_digit, "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "key file with a bad digit",
            vec!["mac", "poly1305aes", "--key-file", "kf-bad-digit", "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "key file for another algorithm",
            vec!["mac", "poly1305aes", "--key-file", "kf-mmh", "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "key file with a short key",
            vec!["mac", "poly1305aes", "--key-file", "kf-short", "--nonce-hex", &nonce, "msg"],
            false,
        ),
        (
            "mac of a missing file",
            vec!["mac", "poly1305aes", "--key-file", "bare", "--nonce-hex", &nonce, "missing"],
            false,
        ),
        (
            "open a forged ciphertext",
            vec!["open", "cwc", "--key-file", "kf-cwc", "--nonce-hex", &nonce[..22], "forged"],
            false,
        ),
    ]
    .into_iter()
    .map(|(what, args, ok)| (what, args.into_iter().map(String::from).collect(), ok))
    .collect();

    // The forged ciphertext for `open`: 40 bytes that are not a sealed message.
    let mut forged = vec![0u8; 40];
    rng.fill_bytes(&mut forged);
    std::fs::write(dir.join("forged"), forged).unwrap();

    for (what, args, should_succeed) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = wegman(dir, &args);
        run.commands += 1;
        assert_eq!(out.status.success(), should_succeed, "key {i}, {what}: {:?}", out);
        assert_ne!(out.status.code(), Some(101), "key {i}, {what}: a panic: {out:?}");
        if !should_succeed {
            assert!(!out.stderr.is_empty(), "key {i}, {what}: failed without a message");
            run.failures_seen += 1;
        }
        for (stream, bytes) in [("stderr", &out.stderr), ("stdout", &out.stdout)] {
            let text = String::from_utf8_lossy(bytes);
            if let Some(found) = leak_scan::shows(&text, &kr) {
                panic!("key {i}, {what}: {stream} shows the key ({found}):\n{text}");
            }
        }
    }
}

#[test]
fn no_key_byte_on_stderr_or_stdout_of_any_command() {
    let keys: usize = std::env::var("WEGMAN_KEY_HYGIENE_KEYS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    // The commands are processes waited on one at a time: one worker per
    // core, each with its own directory and its own stream of keys (key i
    // goes to worker i mod the number of workers).
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(keys.max(1));
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    std::fs::write(dir.path().join("msg"), b"key hygiene").unwrap();
                    let mut rng = rand::rngs::StdRng::seed_from_u64(0x636c_6920_6b65_7973 ^ w as u64);
                    let mut run = Run { commands: 0, failures_seen: 0 };
                    for i in (w..keys).step_by(workers) {
                        one_key(dir.path(), i, &mut rng, &mut run);
                    }
                    run
                })
            })
            .collect();
        // a worker's panic (a key shown, a wrong status) is this test's
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let run = Run {
        commands: runs.iter().map(|r| r.commands).sum(),
        failures_seen: runs.iter().map(|r| r.failures_seen).sum(),
    };
    assert_eq!(run.commands, 10 * keys, "every key ran every command");
    println!(
        "CLI key hygiene: {keys} random keys, {} commands ({} failing with a message), 0 outputs showing a key byte",
        run.commands, run.failures_seen
    );
}

/// Keys made by `keygen` and used by `tag` and `check`: a missing input, a
/// tampered manifest, a file changed after tagging.
#[test]
fn no_key_byte_from_tag_and_check_failures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..20 {
        let key = format!("k{i}");
        assert!(wegman(d, &["keygen", "-o", &key]).status.success());
        let text = std::fs::read_to_string(d.join(&key)).unwrap();
        let hexkey = text.lines().find_map(|l| l.strip_prefix("key ")).unwrap().trim().to_owned();
        let raw = hex::decode(&hexkey).unwrap();
        std::fs::write(d.join("a"), format!("file a {i}")).unwrap();
        let tagged = wegman(d, &["tag", "-k", &key, "a"]);
        assert!(tagged.status.success(), "{tagged:?}");
        std::fs::write(d.join("manifest"), &tagged.stdout).unwrap();
        std::fs::write(d.join("a"), format!("file a {i} changed")).unwrap();
        let mut tampered = tagged.stdout.clone();
        let at = tampered.len() - 5;
        tampered[at] = if tampered[at] == b'0' { b'1' } else { b'0' };
        std::fs::write(d.join("tampered"), tampered).unwrap();
        for (what, args) in [
            ("tag a missing file", vec!["tag", "-k", &key, "missing"]),
            ("check a changed file", vec!["check", "-k", &key, "manifest"]),
            ("check a tampered manifest", vec!["check", "-k", &key, "tampered"]),
        ] {
            let out = wegman(d, &args);
            assert!(!out.status.success() && out.status.code() != Some(101), "{what}: {out:?}");
            for bytes in [&out.stderr, &out.stdout] {
                let text = String::from_utf8_lossy(bytes);
                assert!(leak_scan::shows(&text, &raw).is_none(), "{what} shows the key:\n{text}");
            }
        }
    }
}
