//! The `wegman` command: vectors through `mac`/`verify`, and keygen/tag/check
//! with exact output and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn wegman() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wegman"))
}

fn run(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null()).output().expect("spawn wegman")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

fn shared() -> PathBuf {
    std::env::var("WEGMAN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

fn vectors() -> Vec<Value> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(shared().join("vectors/poly1305aes.json")).unwrap()).unwrap();
    v["groups"].as_array().unwrap().iter().flat_map(|g| g["vectors"].as_array().unwrap().clone()).collect()
}

fn s<'a>(v: &'a Value, f: &str) -> &'a str {
    v[f].as_str().unwrap()
}

#[test]
fn every_vector_through_mac_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for v in vectors() {
        if v.get("k").is_none() || v.get("tag").is_none() {
            continue;
        }
        let msg = dir.path().join("m");
        std::fs::write(&msg, hex::decode(s(&v, "m")).unwrap()).unwrap();
        let key = format!("{}{}", s(&v, "k"), s(&v, "r"));
        let out = run(wegman().args(["mac", "poly1305aes", "--key-hex", &key, "--nonce-hex", s(&v, "n")]).arg(&msg));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{}\n", s(&v, "tag")), "{}", v["name"]);
        // verify: good tag 0, flipped tag 1
        let ok = run(wegman()
            .args(["verify", "poly1305aes", "--key-hex", &key, "--nonce-hex", s(&v, "n"), "--tag-hex", s(&v, "tag")])
            .arg(&msg));
        assert_eq!(ok.status.code(), Some(0));
        if n % 16 == 0 {
            let mut bad = hex::decode(s(&v, "tag")).unwrap();
            bad[15] ^= 0x80;
            let no = run(wegman()
                .args(["verify", "poly1305aes", "--key-hex", &key, "--nonce-hex", s(&v, "n"), "--tag-hex"])
                .arg(hex::encode(bad))
                .arg(&msg));
            assert_eq!(no.status.code(), Some(1));
            assert!(no.stdout.is_empty());
        }
        n += 1;
    }
    assert!(n > 370);
}

#[test]
fn backend_flag_runs_the_named_backend_and_gives_the_vector_tags() {
    let dir = tempfile::tempdir().unwrap();
    let msg = dir.path().join("m");
    let mut checked = 0;
    for (i, v) in vectors().iter().enumerate().filter(|(_, v)| v.get("k").is_some() && v.get("tag").is_some()) {
        std::fs::write(&msg, hex::decode(s(v, "m")).unwrap()).unwrap();
        let key = format!("{}{}", s(v, "k"), s(v, "r"));
        // float64 and portable run everywhere; the SIMD names only where the CPU has them.
        let backend = ["float64", "portable", "auto"][i % 3];
        let out = run(wegman()
            .args(["mac", "poly1305aes", "--backend", backend, "--key-hex", &key, "--nonce-hex", s(v, "n")])
            .arg(&msg));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{}\n", s(v, "tag")), "{} on {backend}", v["name"]);
        let ok = run(wegman()
            .args(["verify", "poly1305aes", "--backend", backend, "--key-hex", &key, "--nonce-hex", s(v, "n")])
            .args(["--tag-hex", s(v, "tag")])
            .arg(&msg));
        assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} vectors");
    // MMH has no float64 backend: refused, not silently ignored.
    let out = run(wegman()
        .args(["mac", "mmh32", "--backend", "float64", "--key-hex", &"01".repeat(32), "--nonce-hex", &"02".repeat(16)])
        .arg(&msg));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--backend float64: mmh32"), "{}", text(&out.stderr));
}

#[test]
fn stdin_and_dash_and_key_file() {
    let v = &vectors()[0]; // Appendix A #1
    let key = format!("{}{}", s(v, "k"), s(v, "r"));
    let dir = tempfile::tempdir().unwrap();
    let kf = dir.path().join("hexkey");
    std::fs::write(&kf, format!("{key}\n")).unwrap();
    for dash in [true, false] {
        let mut cmd = wegman();
        cmd.args(["mac", "poly1305aes", "--key-file"]).arg(&kf).args(["--nonce-hex", s(v, "n")]);
        if dash {
            cmd.arg("-");
        }
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&hex::decode(s(v, "m")).unwrap()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(text(&out.stdout), "f4c633c3044fc145f84f335cb81953de\n");
    }
}

#[test]
fn invalid_r_exits_2_unless_clamped() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for v in vectors() {
        if v.get("expect").is_none() {
            continue;
        }
        let msg = dir.path().join("m");
        std::fs::write(&msg, hex::decode(s(&v, "m")).unwrap()).unwrap();
        let key = format!("{}{}", s(&v, "k"), s(&v, "r"));
        let out = run(wegman().args(["mac", "poly1305aes", "--key-hex", &key, "--nonce-hex", s(&v, "n")]).arg(&msg));
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        let err = text(&out.stderr);
        assert!(err.contains("§2") && err.contains("--clamp"), "{err}");
        let out = run(wegman()
            .args(["mac", "poly1305aes", "--clamp", "--key-hex", &key, "--nonce-hex", s(&v, "n")])
            .arg(&msg));
        assert_eq!(out.status.code(), Some(0));
        let k: [u8; 16] = hex::decode(s(&v, "k")).unwrap().try_into().unwrap();
        let r: [u8; 16] = hex::decode(s(&v, "r_clamped")).unwrap().try_into().unwrap();
        let n: [u8; 16] = hex::decode(s(&v, "n")).unwrap().try_into().unwrap();
        let want = hex::encode(reference_tag(&k, &r, &n, &hex::decode(s(&v, "m")).unwrap()));
        assert_eq!(text(&out.stdout), format!("{want}\n"));
        seen += 1;
    }
    assert_eq!(seen, 8);
}

/// Tag via the library (itself tested against the reference model).
fn reference_tag(k: &[u8; 16], r: &[u8; 16], n: &[u8; 16], m: &[u8]) -> [u8; 16] {
    let mut kr = [0u8; 32];
    kr[..16].copy_from_slice(k);
    kr[16..].copy_from_slice(r);
    wegman::poly1305aes::authenticate(&wegman::poly1305aes::Key::from_bytes(&kr).unwrap(), n, m)
}

#[test]
fn bad_arguments_exit_2() {
    let key = "00".repeat(32);
    for args in [
        vec!["mac", "poly1305aes", "--key-hex", &key[..62], "--nonce-hex", "00000000000000000000000000000000"],
        vec!["mac", "poly1305aes", "--key-hex", &key, "--nonce-hex", "0000000000000000000000000000000g"],
        vec!["mac", "poly1305aes", "--nonce-hex", "00000000000000000000000000000000"],
        vec!["mac", "md5", "--key-hex", &key, "--nonce-hex", "00000000000000000000000000000000"],
        vec!["verify", "poly1305aes", "--key-hex", &key, "--nonce-hex", "00000000000000000000000000000000"],
        vec![
            "verify",
            "poly1305aes",
            "--key-hex",
            &key,
            "--nonce-hex",
            "00000000000000000000000000000000",
            "--tag-hex",
            "00",
        ],
        vec![
            "mac",
            "poly1305aes",
            "--key-hex",
            &key,
            "--nonce-hex",
            "00000000000000000000000000000000",
            "/nonexistent/file",
        ],
        vec!["tag", "-k", "/nonexistent/key", "x"],
        vec!["frobnicate"],
    ] {
        let out = run(wegman().args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let out = run(wegman().args(["keygen", "-o", "key"]).current_dir(dir.path()));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        Fixture { dir }
    }
    fn path(&self, p: &str) -> PathBuf {
        self.dir.path().join(p)
    }
    fn run(&self, args: &[&str]) -> Output {
        run(wegman().args(args).current_dir(self.dir.path()))
    }
    fn write(&self, p: &str, data: &[u8]) {
        std::fs::write(self.path(p), data).unwrap();
    }
}

#[test]
fn keygen_makes_a_private_key_and_refuses_to_overwrite() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::new();
    let meta = std::fs::metadata(f.path("key")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(f.path("key.nonce").exists());
    let before = std::fs::read(f.path("key")).unwrap();
    let out = f.run(&["keygen", "-o", "key"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(f.path("key")).unwrap(), before);
    // the key is valid and nothing secret was printed
    assert!(out.stdout.is_empty());
    let text = String::from_utf8(before).unwrap();
    let hex = text.lines().find_map(|l| l.strip_prefix("key ")).unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(hex));
    assert!(wegman::poly1305aes::Key::from_slice(&hex::decode(hex).unwrap()).is_ok());
}

#[test]
fn tag_then_check_all_ok() {
    let f = Fixture::new();
    f.write("a.txt", b"hello\n");
    f.write("empty", b"");
    f.write("big", &vec![0xffu8; 1 << 20]);
    let out = f.run(&["tag", "-k", "key", "a.txt", "empty", "big"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let manifest = text(&out.stdout);
    let lines: Vec<&str> = manifest.lines().collect();
    assert_eq!(lines.len(), 4);
    // nonce 0 seals the manifest; the files get 1, 2, 3
    for (i, (line, name)) in lines.iter().zip(["a.txt", "empty", "big"]).enumerate() {
        let mut nonce = [0u8; 16];
        nonce[0] = i as u8 + 1;
        let prefix = format!("POLY1305-AES/2 ({name}) nonce={} = ", hex::encode(nonce));
        assert!(line.starts_with(&prefix), "{line}");
        assert_eq!(line.len(), prefix.len() + 32);
    }
    let seal = format!("POLY1305-AES/2 MANIFEST lines=3 nonce={} = ", hex::encode([0u8; 16]));
    assert!(lines[3].starts_with(&seal) && lines[3].len() == seal.len() + 32, "{}", lines[3]);
    f.write("MANIFEST", manifest.as_bytes());
    let out = f.run(&["check", "-k", "key", "MANIFEST"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "a.txt: OK\nempty: OK\nbig: OK\n");
    assert_eq!(text(&out.stderr), "");
    let out = f.run(&["check", "-k", "key", "--quiet", "MANIFEST"]);
    assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), String::new()));
    // the manifest can come from stdin
    let mut child = wegman()
        .args(["check", "-k", "key", "-"])
        .current_dir(f.dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(manifest.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // a second tag run continues the nonce sequence
    let out = f.run(&["tag", "-k", "key", "a.txt"]);
    assert!(text(&out.stdout).contains("nonce=05000000000000000000000000000000"));
}

#[test]
fn check_reports_tampering_missing_and_malformed() {
    let f = Fixture::new();
    for n in ["one", "two", "three", "four"] {
        f.write(n, n.as_bytes());
    }
    let out = f.run(&["tag", "-k", "key", "one", "two", "three", "four"]);
    let manifest = text(&out.stdout);
    f.write("M", manifest.as_bytes());

    // tampered file
    f.write("two", b"TWO");
    let out = f.run(&["check", "-k", "key", "M"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "one: OK\ntwo: FAILED\nthree: OK\nfour: OK\n");
    assert_eq!(text(&out.stderr), "wegman: WARNING: 1 computed tag did NOT match\n");
    f.write("two", b"two");

    // tampered manifest line: tag, then nonce
    let mut lines: Vec<String> = manifest.lines().map(String::from).collect();
    let l = lines[2].clone();
    let last = l.chars().last().unwrap();
    lines[2] = format!("{}{}", &l[..l.len() - 1], if last == '0' { '1' } else { '0' });
    let l0 = lines[0].clone();
    lines[0] = l0.replacen("nonce=01", "nonce=11", 1);
    f.write("M2", (lines.join("\n") + "\n").as_bytes());
    // (the seal is checked first: no listed file is opened when it fails)
    let out = f.run(&["check", "-k", "key", "M2"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "wegman: WARNING: M2: the seal does NOT verify: lines were removed, added, reordered or changed \
         (no listed file was read)\n"
    );

    // missing file
    std::fs::remove_file(f.path("three")).unwrap();
    let out = f.run(&["check", "-k", "key", "M"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "one: OK\ntwo: OK\nthree: FAILED open or read\nfour: OK\n");
    assert_eq!(
        text(&out.stderr),
        "wegman: three: No such file or directory\nwegman: WARNING: 1 listed file could not be read\n"
    );
    let out = f.run(&["check", "-k", "key", "--ignore-missing", "M"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "one: OK\ntwo: OK\nfour: OK\n");
    assert_eq!(text(&out.stderr), "");
    let out = f.run(&["check", "-k", "key", "--status", "M"]);
    assert_eq!((out.status.code(), out.stdout.len(), out.stderr.len()), (Some(1), 0, 0));

    // malformed line: strict, exit 2; the seal then fails, so no file is read
    f.write("three", b"three");
    let mut lines: Vec<String> = manifest.lines().map(String::from).collect();
    lines.insert(1, "POLY1305-AES/2 (two) nonce=zz = 00".into());
    f.write("M3", (lines.join("\n") + "\n").as_bytes());
    let out = f.run(&["check", "-k", "key", "M3"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "wegman: M3: 2: improperly formatted POLY1305-AES line\nwegman: WARNING: 1 line is improperly formatted\n\
         wegman: WARNING: M3: the seal does NOT verify: lines were removed, added, reordered or changed \
         (no listed file was read)\n"
    );
    // unsealed with --allow-unsealed: well-formed lines still checked
    lines.pop();
    f.write("M4", (lines.join("\n") + "\n").as_bytes());
    let out = f.run(&["check", "-k", "key", "--allow-unsealed", "M4"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "one: OK\ntwo: OK\nthree: OK\nfour: OK\n");

    // wrong key: every line fails
    let g = Fixture::new();
    std::fs::copy(f.path("key"), g.path("other")).unwrap();
    let out = run(wegman().args(["check", "-k"]).arg(g.path("key")).arg("M").current_dir(f.dir.path()));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert!(text(&out.stderr).contains("the seal does NOT verify"));

    // empty manifest, missing manifest
    f.write("E", b"");
    assert_eq!(f.run(&["check", "-k", "key", "E"]).status.code(), Some(2));
    assert_eq!(f.run(&["check", "-k", "key", "nope"]).status.code(), Some(2));
}

#[test]
fn awkward_file_names_are_escaped_like_coreutils() {
    let f = Fixture::new();
    f.write("new\nline", b"x");
    f.write("back\\slash", b"y");
    let out = f.run(&["tag", "-k", "key", "new\nline", "back\\slash"]);
    let manifest = text(&out.stdout);
    let lines: Vec<&str> = manifest.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("\\POLY1305-AES/2 (new\\nline) nonce="), "{}", lines[0]);
    assert!(lines[1].starts_with("\\POLY1305-AES/2 (back\\\\slash) nonce="), "{}", lines[1]);
    f.write("M", manifest.as_bytes());
    let out = f.run(&["check", "-k", "key", "M"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "\\new\\nline: OK\n\\back\\\\slash: OK\n");
}

#[test]
fn tag_of_unreadable_file_exits_1_and_still_tags_the_rest() {
    let f = Fixture::new();
    f.write("ok", b"fine");
    let out = f.run(&["tag", "-k", "key", "missing", "ok"]);
    assert_eq!(out.status.code(), Some(1));
    // the file line and the seal (which covers the one line written)
    assert_eq!(text(&out.stdout).lines().count(), 2);
    assert!(text(&out.stdout).starts_with("POLY1305-AES/2 (ok) nonce=02"), "{}", text(&out.stdout));
    assert!(text(&out.stdout).lines().nth(1).unwrap().starts_with("POLY1305-AES/2 MANIFEST lines=1 nonce=00"));
    assert_eq!(text(&out.stderr), "wegman: missing: No such file or directory\n");
}

#[test]
fn tag_refuses_without_nonce_state() {
    let f = Fixture::new();
    f.write("x", b"x");
    std::fs::remove_file(f.path("key.nonce")).unwrap();
    let out = f.run(&["tag", "-k", "key", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("refusing to guess"));
    let _ = Path::new("");
}

#[test]
fn selftest_passes_and_shows_its_work() {
    let out = run(&mut wegman());
    assert_eq!(out.status.code(), Some(2)); // no subcommand: usage
    let out = run(wegman().arg("selftest"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert_eq!(t.matches(": tag ").count(), 4);
    assert!(t.contains("f4c633c3044fc145f84f335cb81953de ok"));
    assert!(t.contains("sample.txt: OK") && t.contains("sample.txt: FAILED"));
    assert!(t.ends_with("self-test passed\n"));
}

#[test]
fn every_name_of_a_key_shares_one_nonce_state() {
    // `tag -k alias` must continue the key's count, not start its own.
    let f = Fixture::new();
    f.write("file", b"data");
    std::os::unix::fs::symlink("key", f.path("alias")).unwrap();
    let a = f.run(&["tag", "-k", "key", "file"]);
    let b = f.run(&["tag", "-k", "alias", "file"]);
    assert_eq!((a.status.code(), b.status.code()), (Some(0), Some(0)), "{}", text(&b.stderr));
    let nonce = |o: &Output| text(&o.stdout).split("nonce=").nth(1).unwrap()[..32].to_string();
    assert_ne!(nonce(&a), nonce(&b), "the alias reused the key's nonce");
    assert!(!f.path("alias.nonce").exists());
}

#[test]
fn a_symlinked_nonce_state_is_refused() {
    let f = Fixture::new();
    f.write("file", b"data");
    std::fs::rename(f.path("key.nonce"), f.path("elsewhere.nonce")).unwrap();
    std::os::unix::fs::symlink("elsewhere.nonce", f.path("key.nonce")).unwrap();
    let out = f.run(&["tag", "-k", "key", "file"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("symbolic link"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
}

#[test]
fn tag_refuses_a_file_name_that_is_not_utf8_before_claiming_a_nonce() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::new();
    let name = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    std::fs::write(f.path("x").with_file_name(name), b"data").unwrap();
    let state_before = std::fs::read(f.path("key.nonce")).unwrap();
    let out = run(wegman().args(["tag", "-k", "key"]).arg(name).current_dir(f.dir.path()));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not valid UTF-8"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read(f.path("key.nonce")).unwrap(), state_before, "no nonce was claimed");
}

#[test]
fn keygen_with_a_newline_in_the_name_makes_a_usable_key() {
    let f = Fixture::new();
    f.write("file", b"data");
    let out = f.run(&["keygen", "-o", "k\nx"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = f.run(&["tag", "-k", "k\nx", "file"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `wegman completions SHELL` prints a script naming every command, for each
/// shell a package would install one for; an unknown shell is a usage error.
#[test]
fn completions_name_every_command() {
    let commands = ["keygen", "tag", "check", "patch", "mac", "verify", "seal", "open", "selftest", "man"];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(wegman().args(["completions", shell]));
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for c in commands {
            assert!(script.contains(c), "{shell}: no {c}");
        }
        assert!(script.contains("key-file"), "{shell}: no options");
    }
    assert_eq!(run(wegman().args(["completions", "tcsh"])).status.code(), Some(2));
}

/// `wegman man` prints a roff page; `--dir` writes it and one per command.
#[test]
fn the_manual_page_lists_every_command() {
    let out = run(wegman().arg("man"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    assert!(page.contains(".TH wegman 1"), "{page}");
    for c in ["keygen", "tag", "check", "patch", "seal", "open", "completions"] {
        assert!(page.contains(c), "no {c}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = run(wegman().arg("man").arg("--dir").arg(dir.path()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let tag = std::fs::read_to_string(dir.path().join("wegman-tag.1")).unwrap();
    assert!(tag.contains(".TH wegman-tag 1") && tag.contains("keep\\-state"), "{tag}");
    assert!(dir.path().join("wegman.1").exists());
    let missing = dir.path().join("no/such/dir");
    assert_eq!(run(wegman().arg("man").arg("--dir").arg(&missing)).status.code(), Some(2));
}
