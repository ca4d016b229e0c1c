//! The nonce store's negative controls, out of the shipped crates: the old
//! store ([`legacy`], [`legacy::Kind::Legacy`]), which two writers that
//! ignore the lock make repeat nonces, and the naive one of the paper's
//! warning ([`legacy::Kind::Broken`]). Each is behind a binary that answers
//! the two commands the harnesses run, as `wegman` does:
//!
//! ```text
//! wegman-legacy-store keygen -o KEY
//! wegman-legacy-store tag -k KEY [--nonce-reserve N] FILE...
//! ```
//!
//! (`wegman-broken-store` likewise), and a third that stands in for the
//! Python workers of `scripts/nonce_race_worker.py` (the Python package is
//! built from the shipped store only):
//!
//! ```text
//! wegman-legacy-store worker threads|fork|spawn KEY MACS RESERVE
//! ```
//!
//! `scripts/nonce-race --legacy` runs the old store; `crates/wegman-cli/tests/nonce_kill.rs` and
//! `nonce_faults.rs` run the broken one. Each harness must report nonce
//! reuse against them.
//!
//! The key file is `wegman keygen`'s (its new state is replaced by the old
//! store's), the manifest lines and their seal are `wegman tag`'s, each
//! printed as soon as its tag is known; only the nonces come from the store
//! under test.

pub mod legacy;

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use legacy::{KeyBinding, Kind, NonceStore};
use wegman_store::algs::MacAlg;
use wegman_store::nonce::state_path_for_key;
use wegman_store::progress::NoProgress;
use wegman_store::{input, keyfile, manifest};

/// The `main` of a control binary running the store `kind`: exit 0, 2 with
/// `wegman: MESSAGE` on standard error for an error or a usage error.
pub fn main(kind: Kind) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(kind, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wegman: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(kind: Kind, args: &[String]) -> Result<(), String> {
    let usage =
        || "usage: keygen -o KEY | tag -k KEY [--nonce-reserve N] FILE... | worker MODE KEY MACS RESERVE".to_string();
    match args {
        [cmd, mode, key, macs, reserve] if cmd == "worker" => {
            let n = |a: &String| a.parse().map_err(|_| usage());
            worker(kind, mode, Path::new(key), n(macs)?, n(reserve)?)
        }
        [cmd, o, key] if cmd == "keygen" && o == "-o" => keygen(kind, Path::new(key)),
        [cmd, rest @ ..] if cmd == "tag" => {
            let (mut key, mut reserve, mut files) = (None, legacy::DEFAULT_RESERVE, Vec::new());
            let mut it = rest.iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "-k" => key = it.next().map(PathBuf::from),
                    "--nonce-reserve" => reserve = it.next().and_then(|n| n.parse().ok()).ok_or_else(usage)?,
                    _ => files.push(PathBuf::from(a)),
                }
            }
            tag(kind, &key.ok_or_else(usage)?, reserve, &files)
        }
        _ => Err(usage()),
    }
}

/// `wegman keygen -o KEY` (a Poly1305-AES key), with the store under test's
/// new state in place of the one `keygen` made.
fn keygen(kind: Kind, path: &Path) -> Result<(), String> {
    keyfile::keygen(path, MacAlg::Poly1305aes)?;
    let state = state_path_for_key(path).map_err(|e| e.to_string())?;
    let mut gen1 = state.clone().into_os_string();
    gen1.push(".1");
    for made in [state.clone(), PathBuf::from(gen1)] {
        std::fs::remove_file(&made).map_err(|e| format!("{}: {e}", made.display()))?;
    }
    NonceStore::create(kind, &state, &binding(path)?).map_err(|e| e.to_string())
}

/// The old store's binding of the key in the key file `path`.
fn binding(path: &Path) -> Result<KeyBinding, String> {
    let material = keyfile::read_material(path)?;
    let alg = material.alg.ok_or_else(|| format!("{}: not a key file of wegman keygen", path.display()))?;
    Ok(KeyBinding::derive(&alg, &material.bytes))
}

/// `wegman tag -k KEY --nonce-reserve N FILE...`: the seal's nonce first,
/// then one per file in order, each line printed as soon as it is made,
/// then the seal; the store closed (its unused nonces given back) at the end.
fn tag(kind: Kind, key_path: &Path, reserve: u64, files: &[PathBuf]) -> Result<(), String> {
    let (key, _) = keyfile::read_managed(key_path, None)?;
    let state = state_path_for_key(key_path).map_err(|e| e.to_string())?;
    let mut store =
        NonceStore::open(kind, &state, &binding(key_path)?).map_err(|e| e.to_string())?.with_reserve(reserve);
    let seal_nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let mut sealer = manifest::Sealer::new(key.start(&seal_nonce)).map_err(|e| e.to_string())?;
    for path in files {
        let nonce = store.next_nonce().map_err(|e| e.to_string())?;
        let name = path.to_string_lossy();
        let prefix = manifest::file_message_prefix(&name);
        let tag = input::mac_threads(&key, &nonce, &prefix, path, NonZeroUsize::MIN, &NoProgress)
            .and_then(|m| m.finalize().map_err(std::io::Error::other))
            .map_err(|e| format!("{name}: {e}"))?;
        let line = manifest::format(key.alg(), &name, &nonce, &tag);
        sealer.line(line.as_bytes()).map_err(|e| e.to_string())?;
        print_line(&line)?;
    }
    let lines = sealer.lines();
    let seal = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    print_line(&manifest::format_seal(key.alg(), lines, &seal_nonce, &seal))?;
    store.close().map_err(|e| e.to_string())
}

/// `line` and a newline to standard output, at once (a killed run's
/// complete lines are all out).
fn print_line(line: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).map_err(|e| format!("writing standard output: {e}"))
}

/// `worker MODE KEY MACS RESERVE`: what `scripts/nonce_race_worker.py` does
/// with the Python package, on the store under test, each MAC over data no
/// other call uses and printed as `PY MODE PID nonce=HEX = TAG` at once:
/// `threads`, one store shared by four threads (a call at a time);
/// `fork`, a store used, then inherited by three forked children that use
/// and close it, then used again; `spawn`, two processes (this binary,
/// mode `open`) that open a store of their own.
fn worker(kind: Kind, mode: &str, key_path: &Path, macs: u64, reserve: u64) -> Result<(), String> {
    let (key, _) = keyfile::read_managed(key_path, None)?;
    let state = state_path_for_key(key_path).map_err(|e| e.to_string())?;
    let binding = binding(key_path)?;
    let open = || NonceStore::open(kind, &state, &binding).map(|s| s.with_reserve(reserve)).map_err(|e| e.to_string());
    let seed = std::collections::hash_map::RandomState::new();
    let mac = |store: &mut NonceStore, i: u64| -> Result<(), String> {
        use std::hash::BuildHasher;
        let nonce = store.next_nonce().map_err(|e| e.to_string())?;
        let pid = std::process::id();
        let data = format!("{mode} {pid} {:?} {i} {:016x}", std::thread::current().id(), seed.hash_one(i));
        let mut m = key.start(&nonce);
        m.update(data.as_bytes()).map_err(|e| e.to_string())?;
        let tag = m.finalize().map_err(|e| e.to_string())?;
        print_line(&format!("PY {mode} {pid} nonce={} = {}", hex(&nonce), hex(&tag)))
    };
    match mode {
        "threads" => {
            let store = std::sync::Mutex::new(open()?);
            std::thread::scope(|s| {
                let runs: Vec<_> = (0..4)
                    .map(|_| s.spawn(|| (0..macs).try_for_each(|i| mac(&mut store.lock().unwrap(), i))))
                    .collect();
                runs.into_iter().try_for_each(|r| r.join().unwrap())
            })?;
            store.into_inner().unwrap().close().map_err(|e| e.to_string())
        }
        "fork" => {
            let mut store = open()?;
            mac(&mut store, 0)?;
            let mut children = Vec::new();
            for _ in 0..3 {
                // SAFETY: this process has one thread here (no lock another
                // thread could hold); the child only takes nonces, writes
                // lines and exits, as a Python pool worker would.
                match unsafe { libc::fork() } {
                    0 => {
                        let done = (0..macs).try_for_each(|i| mac(&mut store, i));
                        let closed = done.and_then(|()| store.close().map_err(|e| e.to_string()));
                        std::process::exit(if closed.is_ok() { 0 } else { 2 });
                    }
                    -1 => return Err(format!("fork: {}", std::io::Error::last_os_error())),
                    pid => children.push(pid),
                }
            }
            for pid in children {
                let mut status = 0;
                // SAFETY: waits for a child of this process; `status` is a
                // valid place for its exit status.
                unsafe { libc::waitpid(pid, &mut status, 0) };
            }
            (0..macs).try_for_each(|i| mac(&mut store, i))?;
            store.close().map_err(|e| e.to_string())
        }
        "spawn" => {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let spawned: Vec<_> = (0..2)
                .map(|_| {
                    std::process::Command::new(&exe)
                        .args(["worker", "open"])
                        .arg(key_path)
                        .args([macs.to_string(), reserve.to_string()])
                        .spawn()
                })
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            for mut child in spawned {
                child.wait().map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        "open" => {
            let mut store = open()?;
            (0..macs).try_for_each(|i| mac(&mut store, i))?;
            store.close().map_err(|e| e.to_string())
        }
        _ => Err(format!("unknown mode {mode:?} (threads, fork, spawn)")),
    }
}

/// Lowercase hex of public bytes.
fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
