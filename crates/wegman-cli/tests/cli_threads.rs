//! Large files read by several threads (`--threads`): the same
//! tag from every thread count and from standard input, equal to the
//! library's; a `tag` manifest made on several threads passes `check`
//! (which reads each file on one thread).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use wegman::poly1305aes::{Key, authenticate};

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn run(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(data) = stdin {
        input.write_all(data).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Past the 8 MiB where a second thread starts, ending in a partial block.
fn big() -> Vec<u8> {
    (0..(9usize << 20) + 4101).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect()
}

#[test]
fn mac_is_the_same_on_any_number_of_threads_and_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let data = big();
    std::fs::write(dir.path().join("big"), &data).unwrap();
    let kr: [u8; 32] = core::array::from_fn(|i| (i * 37 + 11) as u8);
    let key = Key::from_bytes_clamped(&kr);
    let key_hex = hex::encode(key.to_bytes());
    let nonce = [0x42u8; 16];
    let want = format!("{}\n", hex::encode(authenticate(&key, &nonce, &data)));
    let base = ["mac", "poly1305aes", "--key-hex", &key_hex, "--nonce-hex", &hex::encode(nonce)];
    for threads in [None, Some("1"), Some("2"), Some("7")] {
        let mut cmd = wegman();
        cmd.args(base).current_dir(dir.path());
        if let Some(t) = threads {
            cmd.args(["--threads", t]);
        }
        let out = run(cmd.arg("big"), None);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "--threads {threads:?}");
        let verify = run(
            wegman()
                .args(["verify", "poly1305aes", "--key-hex", &key_hex, "--nonce-hex", &hex::encode(nonce)])
                .args(["--tag-hex", want.trim(), "--threads", threads.unwrap_or("2"), "big"])
                .current_dir(dir.path()),
            None,
        );
        assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    }
    let out = run(wegman().args(base).args(["--threads", "4", "-"]), Some(&data));
    assert_eq!(text(&out.stdout), want, "standard input");
    let zero = run(wegman().args(base).args(["--threads", "0", "-"]), Some(b""));
    assert_eq!(zero.status.code(), Some(2), "--threads 0 is refused");
}

#[test]
fn a_manifest_tagged_on_several_threads_passes_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(wegman().args(["keygen", "-o", "key"]).current_dir(dir.path()), None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::write(dir.path().join("big"), big()).unwrap();
    std::fs::write(dir.path().join("small"), b"small\n").unwrap();
    let out = run(wegman().args(["tag", "-k", "key", "--threads", "3", "big", "small"]).current_dir(dir.path()), None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::write(dir.path().join("manifest"), &out.stdout).unwrap();
    let check = run(wegman().args(["check", "-k", "key", "manifest"]).current_dir(dir.path()), None);
    assert_eq!(check.status.code(), Some(0), "{}{}", text(&check.stdout), text(&check.stderr));
    // And a change deep in the big file's second thread's share fails.
    let mut data = big();
    data[7 << 20] ^= 1;
    std::fs::write(dir.path().join("big"), data).unwrap();
    let check = run(wegman().args(["check", "-k", "key", "manifest"]).current_dir(dir.path()), None);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
}

#[test]
fn seal_and_open_are_the_same_on_any_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big"), big()).unwrap();
    let key =
        ["--key-hex", "000102030405060708090a0b0c0d0e0f1011121314151617", "--nonce-hex", "0102030405060708090a0b"];
    let sealed: Vec<Vec<u8>> = ["1", "2", "5"]
        .iter()
        .map(|t| {
            let out = run(
                wegman()
                    .args(["seal", "cwc"])
                    .args(key)
                    .args(["--aad-hex", "aa", "--threads", t, "big"])
                    .current_dir(dir.path()),
                None,
            );
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            out.stdout
        })
        .collect();
    assert!(sealed[0] == sealed[1] && sealed[0] == sealed[2], "seal differs between thread counts");
    std::fs::write(dir.path().join("sealed"), &sealed[0]).unwrap();
    for t in ["1", "3"] {
        let out = run(
            wegman()
                .args(["open", "cwc"])
                .args(key)
                .args(["--aad-hex", "aa", "--threads", t, "sealed"])
                .current_dir(dir.path()),
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stdout == big(), "open --threads {t}");
    }
    // A flipped byte in the second thread's share: exit 1, nothing written.
    let mut bad = sealed[0].clone();
    bad[7 << 20] ^= 0x40;
    std::fs::write(dir.path().join("bad"), &bad).unwrap();
    let out = run(
        wegman()
            .args(["open", "cwc"])
            .args(key)
            .args(["--aad-hex", "aa", "--threads", "2", "-o", "plain", "bad"])
            .current_dir(dir.path()),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && !dir.path().join("plain").exists());
    assert!(text(&out.stderr).contains("authentication FAILED; nothing written"), "{}", text(&out.stderr));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 3, "no staged file left behind: {leftovers:?}");
}

#[test]
fn mmh_mac_is_the_same_on_any_number_of_threads() {
    use wegman::mmh::{Alg, MacKey};
    let dir = tempfile::tempdir().unwrap();
    let data = big();
    std::fs::write(dir.path().join("big"), &data).unwrap();
    let kr: [u8; 32] = core::array::from_fn(|i| (i * 5 + 3) as u8);
    let nonce = [0x17u8; 16];
    for (name, alg) in [("mmh32x4", Alg::Mmh32x4), ("nmh32", Alg::Nmh32), ("mmh64x2", Alg::Mmh64x2)] {
        let want = format!("{}\n", hex::encode(MacKey::new(alg, &kr).mac(&nonce, &data).unwrap().as_bytes()));
        for t in ["1", "2", "3"] {
            let out = run(
                wegman()
                    .args(["mac", name, "--key-hex", &hex::encode(kr), "--nonce-hex", &hex::encode(nonce)])
                    .args(["--threads", t, "big"])
                    .current_dir(dir.path()),
                None,
            );
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            assert_eq!(text(&out.stdout), want, "{name} --threads {t}");
        }
    }
}
