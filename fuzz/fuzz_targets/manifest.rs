//! Manifests (`wegman-store`'s `manifest` parser and `check`): any
//! bytes as a manifest must be checked without a panic, and `check` must
//! report success only for a manifest that `wegman tag` made with the key.
//!
//! Input: `sel` (bit 0: the Poly1305-AES key or the MMH32X4 key; bit 1:
//! `--allow-unsealed`), then the manifest. At start-up the target makes a
//! private directory (where `check` runs), writes four small files there (names with a space,
//! a newline and non-ASCII letters among them), a key file of each
//! algorithm with its nonce state, and has `tag::tag_files` make two
//! genuine manifests per key (if `WEGMAN_FUZZ_SEEDS` names a directory,
//! they are copied there as seeds).
//!
//! Checks, on every line: `manifest::parse` never panics, and what it
//! parses, formatted again by `manifest::format` / `format_seal`, parses to
//! the same line. On the whole input, `check::run_to` (the code `wegman
//! check` runs, reading the listed files) never panics, and exits 0 only for
//! * a genuine manifest of the key, byte for byte (its final newline may be
//!   missing): the seal line authenticates every line before it and their
//!   count, so nothing else can pass;
//! * with `--allow-unsealed`, lines each of which names a genuine (name,
//!   nonce, tag) of the key, with or without a seal that verifies.
//!
//! Inputs that name a file outside the directory (a `/` in the name) or
//! standard input (`-`) are skipped: reading `/dev/zero` or a terminal
//! would stall the fuzzer, and says nothing about the checker.
//!
//! Fails on: a seal that does not bind the lines' count or order, a file
//! line whose tag does not bind its name, an escape the parser and the
//! formatter disagree on, a slice at a non-character boundary, a line after
//! the seal that slips through.

#![no_main]

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use wegman_fuzz::{work_dir, write_seeds};
use wegman_store::check::{CheckOptions, run_to};
use wegman_store::keyfile::read_managed;
use wegman_store::manifest::{self, Entry};
use wegman_store::nonce::{NonceStore, state_path_for_key};
use wegman_store::progress::NoProgress;
use wegman_store::sink::Sink;
use wegman_store::tag::{TagOptions, tag_files};

/// The files the genuine manifests list, and their contents.
const FILES: [(&str, &[u8]); 4] =
    [("a.txt", b"alpha\n"), ("b c", b"\x00\xff bytes"), ("new\nline", b""), ("\u{fc}n\u{ef}", b"x")];

/// Collects what `tag` and `check` report.
struct Collect(Vec<String>);

impl Sink for Collect {
    fn line(&mut self, text: &str) -> Result<(), String> {
        self.0.push(text.to_string());
        Ok(())
    }

    fn warn(&mut self, _: std::fmt::Arguments<'_>) {}
}

/// One key: its file, and the manifests `wegman tag` made with it.
struct Keyed {
    path: PathBuf,
    manifests: Vec<Vec<u8>>,
    /// Every (name, nonce, tag) of their file lines.
    lines: Vec<(String, [u8; 16], Vec<u8>)>,
}

/// A key file for `alg` with the key `hex`, its nonce state, and the two
/// genuine manifests: of every file, and of the second file alone.
fn keyed(name: &str, alg: &str, hex: &str) -> Keyed {
    let path = PathBuf::from(name);
    std::fs::write(&path, format!("wegman-key v1\nalg {alg}\nkey {hex}\n")).expect("key file");
    let (key, binding) = read_managed(&path, None).expect("key file reads");
    let state = state_path_for_key(&path).expect("state path");
    NonceStore::create(&state, &binding).expect("nonce state");
    let mut store = NonceStore::open(&state, &binding).expect("nonce state opens");
    let all: Vec<PathBuf> = FILES.iter().map(|(n, _)| PathBuf::from(n)).collect();
    let mut manifests: Vec<Vec<u8>> = Vec::new();
    for files in [&all[..], &all[1..2]] {
        let mut out = Collect(Vec::new());
        assert_eq!(
            tag_files(
                &key,
                &mut store,
                files,
                &TagOptions { threads: NonZeroUsize::MIN, keep_state: None },
                &mut out,
                |_| NoProgress
            ),
            Ok(0),
            "tag"
        );
        manifests.push(out.0.iter().flat_map(|l| [l.as_bytes(), b"\n"]).flatten().copied().collect());
    }
    store.close().expect("close");
    let mut lines = Vec::new();
    for m in &manifests {
        for line in m.split(|&b| b == b'\n') {
            if let Some(Entry::File(l)) = std::str::from_utf8(line).ok().and_then(manifest::parse) {
                lines.push((l.name, l.nonce, l.tag));
            }
        }
    }
    Keyed { path, manifests, lines }
}

/// The private directory and the two keys.
struct World {
    dir: PathBuf,
    keys: [Keyed; 2],
}

/// Run `f` in `dir`: manifests name files relative to the current
/// directory, and libFuzzer's own relative paths need the old one back.
fn in_dir<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    let old = std::env::current_dir().expect("current directory");
    std::env::set_current_dir(dir).expect("work directory");
    let out = f();
    std::env::set_current_dir(old).expect("current directory");
    out
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = work_dir("manifest");
        let keys = in_dir(&dir, || {
            for (name, content) in FILES {
                std::fs::write(name, content).expect("file");
            }
            [
                keyed("p.key", "poly1305aes", "00112233445566778899aabbccddeeff0f1e2d0c4c5a69088896a50cc4d2e10f"),
                keyed("m.key", "mmh32x4", "0f1e2d3c4b5a69788796a5b4c3d2e1f000112233445566778899aabbccddeeff"),
            ]
        });
        let mut seeds = Vec::new();
        for (sel, k) in keys.iter().enumerate() {
            for (i, m) in k.manifests.iter().enumerate() {
                seeds.push((format!("genuine-{sel}-{i}"), [&[sel as u8][..], m].concat()));
            }
        }
        write_seeds(&seeds);
        World { dir, keys }
    })
}

/// Parse, format and parse again: the same line.
fn reparses(line: &str) {
    match manifest::parse(line) {
        None => {}
        Some(Entry::File(l)) => {
            let again = manifest::format(l.alg, &l.name, &l.nonce, &l.tag);
            let Some(Entry::File(m)) = manifest::parse(&again) else { panic!("{again:?} does not parse") };
            assert_eq!((m.alg, m.version, &m.name, m.nonce, &m.tag), (l.alg, 2, &l.name, l.nonce, &l.tag), "{line:?}");
        }
        Some(Entry::Seal(s)) => {
            let again = manifest::format_seal(s.alg, s.lines, &s.nonce, &s.tag);
            let Some(Entry::Seal(t)) = manifest::parse(&again) else { panic!("{again:?} does not parse") };
            assert_eq!((t.alg, t.lines, t.nonce, &t.tag), (s.alg, s.lines, s.nonce, &s.tag), "{line:?}");
        }
    }
}

fuzz_target!(init: { world(); }, |data: &[u8]| {
    let world = world();
    let Some((&sel, text)) = data.split_first() else { return };
    let k = &world.keys[usize::from(sel & 1)];
    let mut names = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let Ok(line) = std::str::from_utf8(line) else { continue };
        reparses(line);
        if let Some(Entry::File(l)) = manifest::parse(line) {
            names.push(l.name);
        }
    }
    if names.iter().any(|n| n.contains('/') || n == "-") {
        return;
    }

    let input = world.dir.join("input.manifest");
    std::fs::write(&input, text).expect("write manifest");
    let mut args = CheckOptions::new(k.path.clone(), input);
    args.allow_unsealed = sel & 2 != 0;
    let status = in_dir(&world.dir, || run_to(&args, &mut Collect(Vec::new()))).expect("check runs");
    if status != 0 {
        return;
    }
    let genuine = k.manifests.iter().any(|m| text == m || text == &m[..m.len() - 1]);
    if !args.allow_unsealed {
        assert!(genuine, "check accepted a manifest that tag did not make");
        return;
    }
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let entry = std::str::from_utf8(line).ok().and_then(manifest::parse);
        match entry {
            Some(Entry::File(l)) => {
                let triple = (l.name, l.nonce, l.tag);
                assert!(k.lines.contains(&triple), "check accepted a line that tag did not write: {triple:?}");
            }
            Some(Entry::Seal(_)) => {}
            None => panic!("check --allow-unsealed accepted a malformed line {line:?}"),
        }
    }
});
