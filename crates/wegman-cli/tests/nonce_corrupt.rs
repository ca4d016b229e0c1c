//! The §3 nonce store refuses every state it cannot trust. Over a thousand
//! damaged, foreign, rolled-back or misplaced states are put where a key's
//! current state belongs (its highest generation file `key.nonce.<g>`,
//! the only one left beside the sealed base), one at a time, and `wegman tag` runs on each: it must
//! exit 2 without printing a line, say in one line on standard error which
//! state it refuses and why, and leave the state as it found it.
//!
//! The one state that is *not* refused is the one docs/security.md says no
//! store beside the key can catch: a genuine older state of the same key (a
//! restored backup: the base and an older generation file). It authenticates as it did the day it was written;
//! the test pins that down, and that it repeats nonces, so the limitation
//! stays documented rather than forgotten. A genuine state whose counter
//! was edited down (or up) without its authentication code is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rand::{Rng, SeedableRng};
use wegman_store::algs::MacAlg;
use wegman_store::nonce::{KeyBinding, NonceStore};

mod common;
use common::printed_nonces;

/// What to put at the state's path.
enum Make {
    Bytes(Vec<u8>),
    Dir,
    Symlink(PathBuf),
    Fifo,
    Socket,
    Missing,
}

struct Case {
    category: &'static str,
    make: Make,
}

fn bytes(category: &'static str, b: impl Into<Vec<u8>>) -> Case {
    Case { category, make: Make::Bytes(b.into()) }
}

struct Dir {
    _tmp: tempfile::TempDir,
    real: PathBuf,
}

impl Dir {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().canonicalize().unwrap();
        Dir { _tmp: tmp, real }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_wegman"))
            .args(args)
            .current_dir(&self.real)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert!(out.status.success(), "wegman {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    fn state(&self, key: &str) -> Vec<u8> {
        std::fs::read(current_file(&self.real, key)).unwrap()
    }
}

/// The file that holds the current state of `dir/key`: its highest
/// generation file, or the base before the first reservation.
fn current_file(dir: &Path, key: &str) -> PathBuf {
    let prefix = format!("{key}.nonce.");
    let top = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_prefix(&prefix)?.parse::<u64>().ok())
        .max();
    match top {
        Some(g) => dir.join(format!("{prefix}{g}")),
        None => dir.join(format!("{key}.nonce")),
    }
}

/// Remove every generation file of `dir/key` but `keep`.
fn remove_generations_but(dir: &Path, key: &str, keep: &Path) {
    let prefix = format!("{key}.nonce.");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.strip_prefix(&prefix).is_some_and(|g| g.parse::<u64>().is_ok()) && p != keep {
            std::fs::remove_file(p).unwrap();
        }
    }
}

/// A state file of `alg` with key bytes `key` and safe nonce `safe`, as the
/// store writes it.
fn state_of(alg: &str, key: &[u8], safe: usize) -> Vec<u8> {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("s.nonce");
    let b = KeyBinding::derive(alg, key);
    NonceStore::create(&p, &b).unwrap();
    let mut s = NonceStore::open(&p, &b).unwrap().with_reserve(1);
    for _ in 0..safe {
        s.next_nonce().unwrap();
    }
    drop(s); // no give-back: the state holds `safe`
    std::fs::read(current_file(d.path(), "s")).unwrap()
}

fn replace_line(state: &[u8], prefix: &str, line: &str) -> Vec<u8> {
    let text = String::from_utf8(state.to_vec()).unwrap();
    text.lines()
        .map(|l| if l.starts_with(prefix) { line.to_string() } else { l.to_string() } + "\n")
        .collect::<String>()
        .into()
}

fn line_of(state: &[u8], prefix: &str) -> String {
    String::from_utf8_lossy(state).lines().find(|l| l.starts_with(prefix)).unwrap().to_string()
}

/// Every case, by category. `old` and `current` are genuine states of the
/// key at `dir/key` (`old` the earlier), `key_bytes` its key.
fn cases(d: &Dir, old: &[u8], current: &[u8], key_bytes: &[u8]) -> Vec<Case> {
    let mut v = Vec::new();
    // cut short at every length (the empty file is the "empty" case)
    for len in 1..current.len() {
        v.push(bytes("truncated", &current[..len]));
    }
    // every bit of every byte flipped
    for i in 0..current.len() {
        for bit in 0..8 {
            let mut b = current.to_vec();
            b[i] ^= 1 << bit;
            v.push(bytes("bit flip", b));
        }
    }
    // bytes appended, prepended, or the format rewritten
    let text = String::from_utf8(current.to_vec()).unwrap();
    let mac = line_of(current, "mac ");
    let appended: Vec<Vec<u8>> = vec![
        b"\n".to_vec(),
        b" ".to_vec(),
        b"x".to_vec(),
        b"\0".to_vec(),
        b"\xff".to_vec(),
        format!("{mac}\n").into_bytes(),
        current.to_vec(),
        vec![b'a'; 4096],
        vec![b'\n'; 10_000],
    ];
    for tail in appended {
        v.push(bytes("appended", [current, &tail].concat()));
    }
    for edited in [
        format!("\u{feff}{text}"),
        format!("\n{text}"),
        format!(" {text}"),
        text.replace('\n', "\r\n"),
        text.to_uppercase().replace("WEGMAN-NONCE-STATE V2", "wegman-nonce-state v2"),
        text.replace(' ', "  "),
        text.trim_end().to_string(),
        text.lines().rev().map(|l| format!("{l}\n")).collect(),
    ] {
        v.push(bytes("reformatted", edited));
    }
    // another key's state: other keys, and this key's bytes under other algorithms
    for alg in ["poly1305aes", "mmh32", "mmh64x2"] {
        let name = format!("other-{alg}");
        d.ok(&["keygen", "-o", &name, "--alg", alg]);
        v.push(bytes("foreign", d.state(&name)));
        d.ok(&["tag", "-k", &name, &name]);
        v.push(bytes("foreign", d.state(&name)));
    }
    for alg in MacAlg::ALL.iter().map(|a| a.name()).filter(|&a| a != "poly1305aes") {
        v.push(bytes("foreign", state_of(alg, key_bytes, 0)));
        v.push(bytes("foreign", state_of(alg, key_bytes, 100)));
    }
    for other in [[0u8; 32], [0xff; 32]] {
        v.push(bytes("foreign", state_of("poly1305aes", &other, 7)));
    }
    // the counter moved without the authentication code: down (rolled
    // back), up, or an older state's counter or code spliced in
    let old_safe = line_of(old, "safe ");
    for safe in [0u128, 1, 2, u128::MAX, u128::MAX - 1, 1 << 64] {
        let line = format!("safe {}", hex::encode(safe.to_le_bytes()));
        v.push(bytes("counter edited", replace_line(current, "safe ", &line)));
    }
    v.push(bytes("counter edited", replace_line(current, "safe ", &old_safe)));
    v.push(bytes("counter edited", replace_line(old, "mac ", &mac)));
    v.push(bytes("counter edited", replace_line(current, "mac ", &line_of(old, "mac "))));
    // the format of earlier versions, valid or not: refused until adopted
    for v1 in [
        "wegman-nonce-state v1\nsafe 05000000000000000000000000000000\ncrc32 496a60d2\n",
        "wegman-nonce-state v1\nsafe 00000000000000000000000000000000\ncrc32 00000000\n",
        "wegman-nonce-state v1\n",
        "wegman-nonce-state v1\nsafe ff\n",
    ] {
        v.push(bytes("v1 format", v1));
    }
    v.push(bytes("empty", Vec::new()));
    for junk in ["\n", "   ", "wegman-nonce-state v2\n", "wegman-nonce-state v3\n"] {
        v.push(bytes("no state", junk));
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    for len in [1, 16, 100, current.len(), 4097] {
        v.push(bytes("random bytes", (0..len).map(|_| rng.random::<u8>()).collect::<Vec<u8>>()));
    }
    v.push(Case { category: "directory", make: Make::Dir });
    v.push(Case { category: "fifo or socket", make: Make::Fifo });
    v.push(Case { category: "fifo or socket", make: Make::Socket });
    for target in [d.real.join("good.nonce"), d.real.join("no-such-file"), d.real.clone(), "/dev/zero".into()] {
        v.push(Case { category: "symlink", make: Make::Symlink(target) });
    }
    v.push(Case { category: "missing", make: Make::Missing });
    v
}

/// Put `make` at `state` (whatever is there removed first).
fn put(state: &Path, make: &Make) {
    let _ = std::fs::remove_file(state);
    let _ = std::fs::remove_dir_all(state);
    match make {
        Make::Bytes(b) => std::fs::write(state, b).unwrap(),
        Make::Dir => std::fs::create_dir(state).unwrap(),
        Make::Symlink(t) => std::os::unix::fs::symlink(t, state).unwrap(),
        Make::Fifo => assert!(Command::new("mkfifo").arg(state).status().unwrap().success()),
        Make::Socket => drop(std::os::unix::net::UnixListener::bind(state).unwrap()),
        Make::Missing => {}
    }
}

/// What is at `state` now, to check a refusal left it alone.
fn snapshot(state: &Path) -> String {
    match std::fs::symlink_metadata(state) {
        Err(_) => "missing".into(),
        Ok(m) if m.is_file() => format!("file {:?}", std::fs::read(state).unwrap()),
        Ok(m) if m.file_type().is_symlink() => format!("link {:?}", std::fs::read_link(state).unwrap()),
        Ok(m) => format!("{:?}", m.file_type()),
    }
}

/// The gist of a refusal: up to its advice, without the key ids that vary
/// from case to case.
fn reason(msg: &str) -> String {
    let gist = msg.split("; ").next().unwrap();
    let gist = gist.split_once("): ").map_or(gist.to_string(), |(g, _)| format!("{g})"));
    let mut out = String::new();
    for word in gist.split(' ') {
        let hex = word.trim_end_matches([',', ')']);
        if hex.len() == 32 && hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            out.push_str(&word.replace(hex, "<id>"));
        } else {
            out.push_str(word);
        }
        out.push(' ');
    }
    out.trim_end().to_string()
}

#[test]
fn every_untrustworthy_state_is_refused() {
    let d = Dir::new();
    d.ok(&["keygen", "-o", "key"]);
    std::fs::write(d.real.join("f"), b"data").unwrap();
    let mut printed = Vec::new();
    printed.extend(printed_nonces(&d.ok(&["tag", "-k", "key", "--nonce-reserve", "1", "f"]).stdout));
    let old = d.state("key");
    let old_file = current_file(&d.real, "key");
    for _ in 0..3 {
        printed.extend(printed_nonces(&d.ok(&["tag", "-k", "key", "f", "f", "f"]).stdout));
    }
    let current = d.state("key");
    std::fs::write(d.real.join("good.nonce"), &current).unwrap();
    let key_text = std::fs::read_to_string(d.real.join("key")).unwrap();
    let key_bytes = hex::decode(key_text.lines().find_map(|l| l.strip_prefix("key ")).unwrap()).unwrap();

    let state = current_file(&d.real, "key");
    remove_generations_but(&d.real, "key", &state);
    // "nonce state DIR/key.nonce.<g> is corrupt", or "….nonce.<generation> is missing"
    let prefix = format!("wegman: nonce state {}", d.real.join("key.nonce").display());
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let all = cases(&d, &old, &current, &key_bytes);
    for case in &all {
        put(&state, &case.make);
        let before = snapshot(&state);
        let out = d.run(&["tag", "-k", "key", "f"]);
        let err = String::from_utf8_lossy(&out.stderr);
        let one_line = err.ends_with('\n') && err.matches('\n').count() == 1;
        if out.status.code() == Some(2) && out.stdout.is_empty() && one_line && err.starts_with(&prefix) {
            *refused.entry(case.category).or_default() += 1;
            let why = err[prefix.len()..].split_once(' ').map_or("", |(_, w)| w);
            *reasons.entry(format!("{:14} {}", case.category, reason(why))).or_default() += 1;
        } else {
            failures.push(format!(
                "{}: exit {:?}, stdout {} bytes, stderr {err:?}",
                case.category,
                out.status,
                out.stdout.len()
            ));
        }
        if snapshot(&state) != before {
            failures.push(format!("{}: the refusal changed the state", case.category));
        }
    }
    put(&state, &Make::Bytes(current.clone()));
    let temps = std::fs::read_dir(&d.real)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("key.nonce.tmp"));
    assert_eq!(temps.count(), 0, "temporary files left behind");

    let total: usize = refused.values().sum();
    eprintln!("{total} of {} untrustworthy states refused:", all.len());
    for (reason, n) in &reasons {
        eprintln!("  {n:5}  {reason}");
    }
    assert!(failures.is_empty(), "{} not refused cleanly, the first: {}", failures.len(), failures[0]);
    assert_eq!(total, all.len());
    assert!(total >= 100);

    // The refusals did no harm: the genuine state continues where it was.
    let next = printed_nonces(&d.ok(&["tag", "-k", "key", "f"]).stdout);
    assert!(next.iter().all(|n| !printed.contains(n)), "{next:?}");
    printed.extend(next);

    // The documented limit: a genuine older state of the same key (a
    // restored backup) is accepted, and repeats nonces.
    remove_generations_but(&d.real, "key", &old_file);
    put(&old_file, &Make::Bytes(old));
    let again = printed_nonces(&d.ok(&["tag", "-k", "key", "f"]).stdout);
    assert!(
        again.iter().any(|n| printed.contains(n)),
        "a restored backup no longer repeats nonces: update docs/security.md"
    );
}
