//! `wegman mac|verify ALG` for the MMH family: every mac vector of
//! ../shared/vectors/mmh.json, and keygen/tag/check with `--alg`.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn mac_vectors() -> Vec<Value> {
    let dir = std::env::var("WEGMAN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("vectors/mmh.json")).unwrap()).unwrap();
    let g = v["groups"].as_array().unwrap().iter().find(|g| g["name"] == "mac").unwrap();
    g["vectors"].as_array().unwrap().clone()
}

fn s<'a>(v: &'a Value, f: &str) -> &'a str {
    v[f].as_str().unwrap()
}

#[test]
fn every_mac_vector_through_mac_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let msg = dir.path().join("m");
    let mut per_alg = std::collections::BTreeMap::new();
    for (i, v) in mac_vectors().iter().enumerate() {
        std::fs::write(&msg, hex::decode(s(v, "m")).unwrap()).unwrap();
        let alg = s(v, "alg");
        let out = run(wegman().args(["mac", alg, "--key-hex", s(v, "key"), "--nonce-hex", s(v, "nonce")]).arg(&msg));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{}\n", s(v, "tag")), "vector {i} ({alg})");
        if i % 7 == 0 {
            let ok = run(wegman()
                .args(["verify", alg, "--key-hex", s(v, "key"), "--nonce-hex", s(v, "nonce"), "--tag-hex", s(v, "tag")])
                .arg(&msg));
            assert_eq!(ok.status.code(), Some(0));
            let mut bad = hex::decode(s(v, "tag")).unwrap();
            bad[0] ^= 1;
            let no = run(wegman()
                .args(["verify", alg, "--key-hex", s(v, "key"), "--nonce-hex", s(v, "nonce"), "--tag-hex"])
                .arg(hex::encode(&bad))
                .arg(&msg));
            assert_eq!(no.status.code(), Some(1));
        }
        *per_alg.entry(alg.to_string()).or_insert(0) += 1;
    }
    assert_eq!(per_alg.len(), 7, "{per_alg:?}");
    assert_eq!(per_alg.values().sum::<usize>(), 2170);
}

#[test]
fn wrong_tag_length_and_key_length_exit_2() {
    let key = "11".repeat(32);
    let nonce = "00".repeat(16);
    for args in [
        vec!["verify", "mmh32", "--key-hex", &key, "--nonce-hex", &nonce, "--tag-hex", "0011223344"],
        vec!["verify", "mmh64x2", "--key-hex", &key, "--nonce-hex", &nonce, "--tag-hex", "00112233"],
        vec!["mac", "nmh32", "--key-hex", &key[..60], "--nonce-hex", &nonce],
        vec!["mac", "mmh128", "--key-hex", &key, "--nonce-hex", &nonce],
    ] {
        let out = run(wegman().args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn keygen_tag_check_with_alg() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a"), b"alpha").unwrap();
    std::fs::write(d.join("b"), vec![0xffu8; 5000]).unwrap();
    for (alg, label, hexlen) in
        [("mmh32", "MMH32", 8), ("mmh32x4", "MMH32X4", 32), ("nmh32", "NMH32", 8), ("mmh64x2", "MMH64X2", 32)]
    {
        let key = format!("{alg}.key");
        let out = run(wegman().current_dir(d).args(["keygen", "--alg", alg, "-o", &key]));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let kf = std::fs::read_to_string(d.join(&key)).unwrap();
        assert!(kf.contains(&format!("alg {alg}\n")));
        let out = run(wegman().current_dir(d).args(["tag", "-k", &key, "a", "b"]));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let manifest = text(&out.stdout);
        assert_eq!(manifest.lines().count(), 3);
        for (i, line) in manifest.lines().enumerate() {
            let start = if i < 2 { format!("{label}/2 (") } else { format!("{label}/2 MANIFEST lines=2 ") };
            assert!(line.starts_with(&start), "{line}");
            assert_eq!(line.rsplit(" = ").next().unwrap().len(), hexlen, "{line}");
        }
        std::fs::write(d.join("M"), &manifest).unwrap();
        let out = run(wegman().current_dir(d).args(["check", "-k", &key, "M"]));
        assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), "a: OK\nb: OK\n".to_string()));
        // --alg on check must agree with the key
        let out = run(wegman().current_dir(d).args(["check", "--alg", alg, "-k", &key, "M"]));
        assert_eq!(out.status.code(), Some(0));
        let out = run(wegman().current_dir(d).args(["check", "--alg", "poly1305aes", "-k", &key, "M"]));
        assert_eq!(out.status.code(), Some(2));
        // tampering is caught
        std::fs::write(d.join("a"), b"alphA").unwrap();
        let out = run(wegman().current_dir(d).args(["check", "-k", &key, "M"]));
        assert_eq!((out.status.code(), text(&out.stdout)), (Some(1), "a: FAILED\nb: OK\n".to_string()));
        std::fs::write(d.join("a"), b"alpha").unwrap();
    }
    // a manifest line of another algorithm than the key's is an error (2)
    let p = run(wegman().current_dir(d).args(["keygen", "-o", "p.key"]));
    assert_eq!(p.status.code(), Some(0));
    let out = run(wegman().current_dir(d).args(["check", "-k", "p.key", "M"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("MMH64X2 line, but the key is for POLY1305-AES"), "{}", text(&out.stderr));
}
